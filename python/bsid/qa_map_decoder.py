#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The MAP decoder block: equal to map_decoder_core in all three output modes,
erasures flagged and counted, long frames, run-time channel changes."""

import threading

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import bsid
from qa_tagged_streams import tagged_source, tags_of


def llr_from(post, scale=1.0, clip=0.0):
    """Bit LLRs of docs/design.md section 2, written here independently."""
    q = post.shape[1]
    B = int(np.ceil(np.log2(q)))
    out = []
    for row in post:
        for b in range(B):
            shift = B - 1 - b
            ones = np.array([(d >> shift) & 1 for d in range(q)], dtype=bool)
            p1, p0 = max(row[ones].sum(), 1e-300), max(row[~ones].sum(), 1e-300)
            v = (np.log(p1) - np.log(p0)) * scale
            out.append(np.clip(v, -clip, clip) if clip > 0 else v)
    return np.array(out, dtype=np.float32)


class qa_map_decoder(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()
        self.cb = bsid.codebook.builtin("ld3-modvec6")
        self.N = 30
        self.ch = bsid.channel_params(0.01, 0.01, 0.01)
        rng = np.random.default_rng(8)
        self.msgs = [rng.integers(0, 16, self.N) for _ in range(7)]
        self.frames = [bsid.transmit(self.ch, self.cb.encode(m), 4, frame=k)[0]
                       for k, m in enumerate(self.msgs)]
        self.core = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu")

    def decode_block(self, src, output, sink, **kw):
        dec = bsid.map_decoder(self.cb, self.N, 0.01, 0.01, 0.01, output=output, backend="cpu",
                               **kw)
        self.tb.connect(src, dec, sink)
        self.tb.run()
        return dec

    def test_001_posteriors(self):
        snk = blocks.vector_sink_f(16)
        dec = self.decode_block(tagged_source(self.frames), "posteriors", snk, max_batch=3)
        got = np.array(snk.data(), dtype=np.float32).reshape(-1, self.N, 16)
        for k, rx in enumerate(self.frames):
            np.testing.assert_array_equal(got[k], self.core.decode(rx).astype(np.float32))
        self.assertEqual(tags_of(snk, "packet_len"), [(k * self.N, self.N) for k in range(7)])
        self.assertEqual((dec.frames(), dec.erasures()), (7, 0))
        self.assertEqual(dec.backend(), "cpu")

    def test_002_llr_with_scale_and_clip(self):
        snk = blocks.vector_sink_f()
        self.decode_block(tagged_source(self.frames), "llr", snk, llr_scale=0.5, llr_clip=3.0)
        got = np.array(snk.data(), dtype=np.float32).reshape(7, -1)
        for k, rx in enumerate(self.frames):
            np.testing.assert_allclose(got[k], llr_from(self.core.decode(rx), 0.5, 3.0), atol=1e-5)
        self.assertEqual(tags_of(snk, "packet_len"), [(k * self.N * 4, self.N * 4) for k in range(7)])

    def test_003_hard(self):
        snk = blocks.vector_sink_i()
        self.decode_block(tagged_source(self.frames), "hard", snk)
        got = np.array(snk.data()).reshape(7, self.N)
        for k, rx in enumerate(self.frames):
            np.testing.assert_array_equal(got[k], bsid.hard_decisions(self.core.decode(rx)))
        # a good channel: the messages come back
        self.assertLess(int((got != np.array(self.msgs)).sum()), 10)

    def test_004_erasures_are_flagged_and_counted(self):
        frames = list(self.frames[:3])
        frames.append(np.concatenate([self.frames[3], np.zeros(200, dtype=np.uint8)]))  # drift
        bad = self.frames[4].copy()
        bad[7] = 2                                                                       # not a bit
        frames.append(bad)
        frames.append(np.zeros(0, dtype=np.uint8))                                       # empty
        frames.append(self.frames[5])
        # two frames lost upstream, reported on the last frame
        off = sum(len(f) for f in frames[:6])
        snk = blocks.vector_sink_i()
        dec = self.decode_block(tagged_source(frames, [(off, "bsid_frames_lost", 2)]), "hard", snk)
        got = np.array(snk.data()).reshape(-1, self.N)
        self.assertEqual(got.shape[0], 9)  # 7 frames + 2 lost: none dropped
        erasures = tags_of(snk, "bsid_erasure")
        self.assertEqual(erasures, [(3 * self.N, "drift_out_of_range"), (4 * self.N, "invalid_input"),
                                    (5 * self.N, "empty"), (6 * self.N, "frame_lost"),
                                    (7 * self.N, "frame_lost")])
        for k in (3, 4, 5, 6, 7):
            self.assertTrue((got[k] == -1).all())
        np.testing.assert_array_equal(got[8], bsid.hard_decisions(self.core.decode(self.frames[5])))
        self.assertEqual((dec.frames(), dec.erasures()), (9, 5))
        # in posteriors mode an erasure is uniform
        self.tb = gr.top_block()
        snk = blocks.vector_sink_f(16)
        self.decode_block(tagged_source(frames[3:4]), "posteriors", snk)
        np.testing.assert_array_equal(np.array(snk.data()), np.full(self.N * 16, 1 / 16, dtype=np.float32))

    def test_005_truncated_frame_and_bits_outside_frames(self):
        data = [1, 0, 1] + list(self.frames[0]) + list(self.frames[1])
        tags = [gr.tag_utils.python_to_tag((3, pmt.intern("packet_len"),
                                            pmt.from_long(len(self.frames[0]) + 50))),
                gr.tag_utils.python_to_tag((3 + len(self.frames[0]), pmt.intern("packet_len"),
                                            pmt.from_long(len(self.frames[1]))))]
        snk = blocks.vector_sink_i()
        dec = self.decode_block(blocks.vector_source_b(data, False, 1, tags), "hard", snk)
        self.assertEqual(dec.bits_discarded(), 3)
        self.assertEqual(tags_of(snk, "bsid_erasure"), [(0, "truncated")])
        np.testing.assert_array_equal(np.array(snk.data())[self.N:],
                                      bsid.hard_decisions(self.core.decode(self.frames[1])))

    def test_006_frame_ten_times_the_buffer(self):
        # 330 kbit frame (the default buffer holds 32 k items); a quiet channel
        N = 41250
        ch = bsid.channel_params(1e-4, 1e-4, 0)
        msg = np.random.default_rng(2).integers(0, 16, N)
        rx, _ = bsid.transmit(ch, self.cb.encode(msg), 1)
        snk = blocks.vector_sink_i()
        dec = bsid.map_decoder(self.cb, N, 1e-4, 1e-4, 0.0, output="hard", backend="cpu")
        self.tb.connect(tagged_source([rx]), dec, snk)
        done = threading.Event()

        def run():
            self.tb.run()
            done.set()

        threading.Thread(target=run, daemon=True).start()
        self.assertTrue(done.wait(120), "the decoder stalled on a long frame")
        got = np.array(snk.data())
        self.assertEqual(len(got), N)
        self.assertLess(int((got != msg).sum()), 5)

    def test_007_set_channel(self):
        dec = bsid.map_decoder(self.cb, self.N, 0.1, 0.1, 0.1, output="hard", backend="cpu")
        dec.set_channel(0.01, 0.01, 0.01)
        with self.assertRaises(ValueError):
            dec.set_channel(0.5, 0.5, 0)
        snk = blocks.vector_sink_i()
        self.tb.connect(tagged_source(self.frames), dec, snk)
        self.tb.run()
        got = np.array(snk.data()).reshape(7, self.N)
        for k, rx in enumerate(self.frames):
            np.testing.assert_array_equal(got[k], bsid.hard_decisions(self.core.decode(rx)))

    def test_008_bad_parameters(self):
        for kw in (dict(output="soft"), dict(backend="gpu"), dict(max_batch=0), dict(Pr=0.0),
                   dict(llr_clip=-1.0)):
            with self.subTest(kw=kw):
                with self.assertRaises(ValueError):
                    bsid.map_decoder(self.cb, self.N, 0.01, 0.01, 0.0, **kw)


if __name__ == '__main__':
    gr_unittest.run(qa_map_decoder)
