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
letters) decodes them as the core does, as letters or as vectors of A
log-probabilities (input "logprob", the concatenated decoder too); a tag of
another alphabet is ignored, and a letter outside the alphabet stops the
channel block."""

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

    def logprobs(self, frames, seed=3):
        """A basecaller's log-probabilities of the received letters: sure of
        the right letter, now and then of another (A floats an item)."""
        rng = np.random.default_rng(seed)
        out = []
        for y in frames:
            seen = np.where(rng.random(len(y)) < 0.98, y, (y + rng.integers(1, 4, len(y))) % 4)
            lp = np.full((len(y), 4), np.log(0.02 / 3), np.float32)
            lp[np.arange(len(y)), seen] = np.log(0.98)
            out.append(lp)
        return out

    def test_006_log_probabilities_as_the_core_decodes_them(self):
        # vectors of four floats an item, tagged frames: every frame's
        # posteriors as the core's from the same log-probabilities
        rx = [bsid.transmit(self.ch, self.cb.encode(m), 11, frame=k)[0]
              for k, m in enumerate(self.msgs)]
        lps = self.logprobs(rx)
        data, tags, at = [], [], 0
        for lp in lps:
            tags.append(tag(at, "packet_len", pmt.from_long(len(lp))))
            data += lp.ravel().tolist()
            at += len(lp)
        src = blocks.vector_source_f(data, False, 4, tags)
        dec = bsid.map_decoder(self.cb, self.N, 0.02, 0.02, 0.01, input="logprob",
                               backend="cpu", max_batch=2)
        snk = blocks.vector_sink_f(16)
        self.tb.connect(src, dec, snk)
        self.tb.run()
        got = np.array(snk.data()).reshape(-1, self.N, 16)
        self.assertEqual(len(got), len(lps))
        core = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu", input="logprob")
        errors = 0
        for k, lp in enumerate(lps):
            np.testing.assert_allclose(got[k], core.decode(lp.astype(np.float64)), atol=1e-6)
            errors += int(np.sum(got[k].argmax(axis=1) != self.msgs[k]))
        # the channel's and the reader's errors only: about 8 of 150 symbols
        # at this seed, as many as hard letters give
        self.assertLessEqual(errors, 15)

    def test_007_log_probabilities_in_stream_framing(self):
        W = [2, 0, 3, 3, 0, 1, 0]  # GATTACA
        sent = []
        for m in self.msgs:
            sent += W + self.cb.encode(m).tolist()
        rx = bsid.transmit(self.ch, np.array(sent, np.uint8), 5)[0]
        lp = self.logprobs([rx])[0]
        dec = bsid.map_decoder(self.cb, self.N, 0.02, 0.02, 0.01, input="logprob",
                               output="hard", backend="cpu", sync_word="GATTACA",
                               framing="stream")
        snk = blocks.vector_sink_i()
        self.tb.connect(blocks.vector_source_f(lp.ravel().tolist(), False, 4), dec, snk)
        self.tb.run()
        rows = np.array(snk.data(), np.int64).reshape(-1, self.N)
        self.assertGreaterEqual(len(rows), len(self.msgs) - 1)
        good = sum(int(np.sum(r != m)) <= 3 for r, m in zip(rows, self.msgs))
        self.assertGreaterEqual(good, len(self.msgs) - 1)

    def test_008_log_probabilities_over_bits_are_the_llr_path(self):
        cb = bsid.codebook.builtin("ld3-modvec6")
        ch = bsid.channel_params(0.01, 0.01, 0.01)
        rx = bsid.transmit(ch, cb.encode(self.msgs[0][:20]), 3)[0]
        llr = np.where(rx == 1, 2.5, -2.5).astype(np.float32)
        lp = np.stack([np.zeros_like(llr), llr], axis=1)  # lp(1) - lp(0) = llr
        outs = []
        for kind, data, vlen in (("llr", llr, 1), ("logprob", lp, 2)):
            tb = gr.top_block()
            src = blocks.vector_source_f(data.ravel().tolist(), False, vlen,
                                         [tag(0, "packet_len", pmt.from_long(len(rx)))])
            dec = bsid.map_decoder(cb, 20, 0.01, 0.01, 0.01, input=kind, backend="cpu")
            snk = blocks.vector_sink_f(16)
            tb.connect(src, dec, snk)
            tb.run()
            outs.append(np.array(snk.data()))
        np.testing.assert_array_equal(outs[0], outs[1])

    def test_009_the_input_kinds_are_checked_against_the_alphabet(self):
        with self.assertRaisesRegex(ValueError, "LLRs are soft bits"):
            bsid.map_decoder(self.cb, self.N, 0.02, 0.02, 0.01, input="llr")
        with self.assertRaisesRegex(ValueError, "is not one of bits, llr, logprob"):
            bsid.map_decoder(self.cb, self.N, 0.02, 0.02, 0.01, input="probabilities")

    def test_010_the_concatenated_decoder_takes_log_probabilities(self):
        code = bsid.ldpc_code.from_spec("ldpc-regular:60:30:16:3:1")
        cb = bsid.codebook.random(4, 16, 2, 3, alphabet=4)
        ch = bsid.channel_params(0.01, 0.01, 0.01, alphabet=4)
        src = bsid.frame_source(cb, ch, 0, 6, outer=code)
        data, tags, at, infos = [], [], 0, []
        for j in range(3):
            f = src.frame(j)
            lp = self.logprobs([f["rx"]], seed=j)[0]
            tags.append(tag(at, "packet_len", pmt.from_long(len(lp))))
            data += lp.ravel().tolist()
            at += len(lp)
            infos.append(src.info(j))
        dec = bsid.concatenated_decoder(cb, code, 0.01, 0.01, 0.01, input="logprob",
                                        backend="cpu")
        snk = blocks.vector_sink_b()
        self.tb.connect(blocks.vector_source_f(data, False, 4, tags), dec, snk)
        self.tb.run()
        bits = np.array(snk.data(), np.uint8).reshape(3, -1)
        ok = [t for _, t in tags_of(snk, "bsid_frame_ok")]
        self.assertEqual(len(ok), 3)
        self.assertGreaterEqual(sum(bool(v) for v in ok), 2)
        for j in range(3):  # a frame that checks is its information, MSB first
            if ok[j]:
                syms = bits[j].reshape(-1, 4) @ np.array([8, 4, 2, 1])
                np.testing.assert_array_equal(syms, infos[j])


if __name__ == "__main__":
    gr_unittest.run(qa_letters_blocks)
