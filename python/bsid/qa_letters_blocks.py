#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The blocks over four letters (docs/dna.md): the codebook encoder puts out
a codebook's letters, the channel block passes them through the channel over
its alphabet as bsid.transmit does and announces it in its bsid_channel tags,
and the MAP decoder (tagged framing, stream framing with a sync word of
letters) decodes them as the core does; a tag of another alphabet is
ignored, and a letter outside the alphabet stops the channel block."""

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import bsid
from qa_tagged_streams import tags_of


def tag(offset, key, value):
    return gr.tag_utils.python_to_tag((offset, pmt.intern(key), value))


class qa_letters_blocks(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()
        self.cb = bsid.codebook.from_spec("random:4:16:2:3", alphabet=4)
        self.ch = bsid.channel_params(0.02, 0.02, 0.01, alphabet=4)
        self.N = 30
        rng = np.random.default_rng(8)
        self.msgs = [rng.integers(0, 16, self.N) for _ in range(5)]

    def symbols(self):
        data, tags = [], []
        for k, m in enumerate(self.msgs):
            tags.append(tag(k * self.N, "packet_len", pmt.from_long(self.N)))
            data += m.tolist()
        return blocks.vector_source_i(data, False, 1, tags)

    def test_001_encoder_channel_decoder(self):
        enc = bsid.codebook_encoder(self.cb, self.N)
        chan = bsid.channel(0.02, 0.02, 0.01, 7, alphabet=4)
        letters = blocks.vector_sink_b()
        dec = bsid.map_decoder(self.cb, self.N, 0.02, 0.02, 0.01, output="hard",
                               backend="cpu", max_batch=2)
        snk = blocks.vector_sink_i()
        src = self.symbols()
        self.tb.connect(src, enc, chan, dec, snk)
        self.tb.connect(chan, letters)
        self.tb.run()
        self.assertEqual(chan.error(), "")
        # the channel: frame k as bsid.transmit sends it with the block's seed
        rx = np.array(letters.data(), np.uint8)
        want = [bsid.transmit(self.ch, self.cb.encode(m), 7, frame=k)[0]
                for k, m in enumerate(self.msgs)]
        np.testing.assert_array_equal(rx, np.concatenate(want))
        self.assertLess(int(rx.max()), 4)
        self.assertGreater(int(rx.max()), 1)  # letters, not bits
        # its first bsid_channel tag names the alphabet
        t = [v for _, v in tags_of(letters, "bsid_channel")]
        self.assertEqual(list(t[0]), [0.02, 0.02, 0.01, 4.0])
        # the decoder: every frame as the core decodes it
        rows = np.array(snk.data(), np.int64).reshape(-1, self.N)
        self.assertEqual(len(rows), len(self.msgs))
        core = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu")
        for k in range(len(rows)):
            np.testing.assert_array_equal(rows[k], bsid.hard_decisions(core.decode(want[k])))
            self.assertLessEqual(int(np.sum(rows[k] != self.msgs[k])), 3)

    def test_002_stream_framing_with_a_sync_word_of_letters(self):
        enc = bsid.codebook_encoder(self.cb, self.N, sync_word="GATTACA")
        chan = bsid.channel(0.01, 0.01, 0.01, 9, alphabet=4)
        dec = bsid.map_decoder(self.cb, self.N, 0.01, 0.01, 0.01, output="hard",
                               backend="cpu", sync_word="GATTACA", framing="stream")
        snk = blocks.vector_sink_i()
        self.tb.connect(self.symbols(), enc, chan, dec, snk)
        self.tb.run()
        rows = np.array(snk.data(), np.int64).reshape(-1, self.N)
        self.assertGreaterEqual(len(rows), len(self.msgs) - 1)
        good = sum(int(np.sum(r != m)) <= 3 for r, m in zip(rows, self.msgs))
        self.assertGreaterEqual(good, len(self.msgs) - 1)

    def test_003_tags_of_another_alphabet_are_ignored(self):
        bits_cb = bsid.codebook.builtin("ld3-modvec6")
        x = bits_cb.encode(self.msgs[0][:10])
        tags = [tag(0, "packet_len", pmt.from_long(len(x))),
                tag(0, "bsid_channel", pmt.init_f64vector(4, [0.01, 0.01, 0.0, 4.0]))]
        dec = bsid.map_decoder(bits_cb, 10, 0.0, 0.0, 0.0, output="hard", backend="cpu")
        snk = blocks.vector_sink_i()
        self.tb.connect(blocks.vector_source_b(x.tolist(), False, 1, tags), dec, snk)
        self.tb.run()
        np.testing.assert_array_equal(snk.data(), self.msgs[0][:10])

    def test_004_a_letter_outside_the_alphabet_stops_the_channel(self):
        data = [0, 1, 2, 3, 4, 1]
        chan = bsid.channel(0.0, 0.0, 0.0, 1, alphabet=4)
        snk = blocks.vector_sink_b()
        self.tb.connect(blocks.vector_source_b(data, False), chan, snk)
        self.tb.run()
        self.assertIn("is not a letter of the alphabet (expected 0 to 3)", chan.error())
        # nothing past the bad letter goes out
        out = list(snk.data())
        self.assertEqual(out, data[:len(out)])
        self.assertLessEqual(len(out), 4)

    def test_005_the_encoder_refuses_a_sync_word_outside_its_alphabet(self):
        with self.assertRaises(ValueError):
            bsid.codebook_encoder(self.cb, self.N, sync_word="GATXACA")
        with self.assertRaises(ValueError):
            bsid.codebook_encoder(bsid.codebook.builtin("ld3-modvec6"), 10, sync_word="ACGT")


if __name__ == "__main__":
    gr_unittest.run(qa_letters_blocks)
