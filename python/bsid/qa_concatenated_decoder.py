#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The concatenated decoder block: the encoder chain decoded back in one pass
on a clean channel, equal to concatenated_decoder_core on a noisy one (bits and
LLRs, batched), frames in equal frames out with erasures flagged, stream
framing, bad parameters refused."""

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import bsid
from qa_tagged_streams import tagged_source, tags_of

OUTER = "ldpc-regular:60:24:16:3:1"  # GF(16), n = 60, k = 36: K = 144 bits, N = 60


def info_bits(info, q):
    """Information symbols to bits, MSB first (the encoder's input order)."""
    a = int(np.log2(q))
    return np.array([(int(u) >> (a - 1 - b)) & 1 for u in info for b in range(a)],
                    dtype=np.uint8)


class qa_concatenated_decoder(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()
        self.cb = bsid.codebook.builtin("ld3-modvec6")  # q = 16, n = 8
        self.code = bsid.ldpc_code.from_spec(OUTER)
        self.K = self.code.k * 4

    def decoder(self, Pi=0.01, Pd=0.01, Ps=0.0, **kw):
        kw.setdefault("backend", "cpu")
        return bsid.concatenated_decoder(self.cb, self.code, Pi, Pd, Ps, **kw)

    def core_bits(self, frames, ch, soft=False):
        """The core's decisions for the same received frames, as the block's bits."""
        inner = bsid.map_decoder_core(self.cb, ch, self.code.n, backend="cpu",
                                      input="llr" if soft else "bits")
        core = bsid.concatenated_decoder_core(inner, self.code, iterations=10,
                                              bp_iterations=50)
        out = []
        for r in core.decode(frames):
            self.assertEqual(r["status"], "ok")
            out.append((info_bits(r["info"], 16), bool(r["syndrome_ok"]), r["iterations"]))
        return out

    def run_graph(self, src, dec):
        snk = blocks.vector_sink_b()
        self.tb.connect(src, dec, snk)
        self.tb.run()
        return np.array(snk.data(), dtype=np.uint8), snk

    def test_001_clean_channel_through_the_encoder_chain(self):
        F = 6
        bits = np.random.default_rng(1).integers(0, 2, F * self.K).astype(np.uint8)
        src = blocks.vector_source_b(bits.tolist(), False)
        s2ts = blocks.stream_to_tagged_stream(gr.sizeof_char, 1, self.K, "packet_len")
        enc = bsid.ldpc_encoder(self.code, self.cb.q)
        cbe = bsid.codebook_encoder(self.cb, enc.symbols_per_frame())
        dec = self.decoder(max_batch=4)
        snk = blocks.vector_sink_b()
        self.tb.connect(src, s2ts, enc, cbe, dec, snk)
        self.tb.run()
        np.testing.assert_array_equal(np.array(snk.data(), dtype=np.uint8), bits)
        starts = [(k * self.K, self.K) for k in range(F)]
        self.assertEqual(tags_of(snk, "packet_len"), starts)
        self.assertEqual(tags_of(snk, "bsid_frame_ok"), [(o, True) for o, _ in starts])
        self.assertEqual(tags_of(snk, "bsid_iterations"), [(o, 1) for o, _ in starts])
        self.assertEqual(tags_of(snk, "bsid_erasure"), [])
        self.assertEqual((dec.frames(), dec.erasures(), dec.frames_ok()), (F, 0, F))
        self.assertEqual((dec.bits_per_frame(), dec.symbols_per_frame()), (self.K, 60))

    def noisy_frames(self, ch, F, seed=5):
        src = bsid.frame_source(self.cb, ch, 0, seed, outer=self.code)
        batch = src.generate(0, F)
        return batch, [batch.rx(k) for k in range(F)]

    def test_002_noisy_channel_equals_the_core(self):
        # substitutions as well: some frames need several passes
        ch = bsid.channel_params(0.02, 0.02, 0.06)
        batch, rx = self.noisy_frames(ch, 8)
        got, snk = self.run_graph(tagged_source(rx), self.decoder(0.02, 0.02, 0.06, max_batch=3))
        want = self.core_bits(rx, ch)
        got = got.reshape(8, self.K)
        for k, (bits, ok, passes) in enumerate(want):
            np.testing.assert_array_equal(got[k], bits)
        self.assertEqual(tags_of(snk, "bsid_frame_ok"),
                         [(k * self.K, w[1]) for k, w in enumerate(want)])
        self.assertEqual(tags_of(snk, "bsid_iterations"),
                         [(k * self.K, w[2]) for k, w in enumerate(want)])
        # the channel is noisy enough that some frame needs more than one pass,
        # and most frames decode to the information sent
        self.assertGreater(max(w[2] for w in want), 1)
        sent = np.array([info_bits(u, 16) for u in batch.info])
        self.assertGreaterEqual(int((got == sent).all(axis=1).sum()), 6)

    def test_003_soft_input_equals_the_core(self):
        ch = bsid.channel_params(0.015, 0.015, 0.0)
        _, rx = self.noisy_frames(ch, 4, seed=7)
        llr = [np.where(r > 0, 4.0, -4.0) for r in rx]
        bad = llr[1].copy()
        bad[7] = np.nan  # a NaN: that frame is an invalid_input erasure, the others decode
        dec = self.decoder(0.015, 0.015, 0.0, input="llr")
        got, snk = self.run_graph(tagged_source(llr[:1] + [bad] + llr[1:], floats=True), dec)
        want = self.core_bits(llr, ch, soft=True)
        got = got.reshape(5, self.K)
        np.testing.assert_array_equal(got[[0, 2, 3, 4]], np.array([w[0] for w in want]))
        self.assertFalse(got[1].any())
        self.assertEqual(tags_of(snk, "bsid_erasure"), [(self.K, "invalid_input")])
        self.assertEqual((dec.frames(), dec.erasures()), (5, 1))

    def test_004_erasures_in_the_middle_frames_in_equal_frames_out(self):
        ch = bsid.channel_params(0.01, 0.01, 0.0)
        batch, rx = self.noisy_frames(ch, 4, seed=3)
        frames = [rx[0], rx[1], np.zeros(0, dtype=np.uint8), rx[2], rx[3]]
        src = tagged_source(frames)
        # a length tag that is not a count on frame 3's first bit: its
        # frame's length tag is replaced, so it becomes an invalid_tag erasure
        data, tags, off = [], [], 0
        for k, f in enumerate(frames):
            value = pmt.from_double(1.5) if k == 3 else pmt.from_long(len(f))
            tags.append(gr.tag_utils.python_to_tag((off, pmt.intern("packet_len"), value)))
            data.extend(int(b) for b in f)
            off += len(f)
        src = blocks.vector_source_b(data, False, 1, tags)
        dec = self.decoder(max_batch=8)
        got, snk = self.run_graph(src, dec)
        self.assertEqual(len(got), 5 * self.K)
        got = got.reshape(5, self.K)
        self.assertEqual(tags_of(snk, "bsid_erasure"),
                         [(2 * self.K, "empty"), (3 * self.K, "invalid_tag")])
        self.assertEqual([v for _, v in tags_of(snk, "bsid_frame_ok")],
                         [True, True, False, False, True])
        self.assertFalse(got[2].any() or got[3].any())
        sent = [info_bits(u, 16) for u in batch.info]
        for k, j in ((0, 0), (1, 1), (4, 3)):
            np.testing.assert_array_equal(got[k], sent[j])
        self.assertEqual((dec.frames(), dec.erasures(), dec.frames_ok()), (5, 2, 3))
        self.assertEqual(dec.bits_discarded(), len(rx[2]))

    def test_005_truncated_and_lost_frames(self):
        ch = bsid.channel_params(0.01, 0.01, 0.0)
        _, rx = self.noisy_frames(ch, 2, seed=4)
        # frame 1 announces 50 more bits than the stream holds; 2 frames lost before it
        data = list(rx[0]) + list(rx[1])
        tags = [gr.tag_utils.python_to_tag((0, pmt.intern("packet_len"),
                                            pmt.from_long(len(rx[0])))),
                gr.tag_utils.python_to_tag((len(rx[0]), pmt.intern("bsid_frames_lost"),
                                            pmt.from_long(2))),
                gr.tag_utils.python_to_tag((len(rx[0]), pmt.intern("packet_len"),
                                            pmt.from_long(len(rx[1]) + 50)))]
        dec = self.decoder()
        got, snk = self.run_graph(blocks.vector_source_b([int(b) for b in data], False, 1,
                                                         tags), dec)
        self.assertEqual(len(got), 4 * self.K)
        self.assertEqual([v for _, v in tags_of(snk, "bsid_erasure")],
                         ["frame_lost", "frame_lost", "truncated"])
        self.assertEqual((dec.frames(), dec.erasures()), (4, 3))

    def test_006_stream_framing(self):
        # a plain bitstream: W then the frame's codewords, frame after frame,
        # through one channel; every frame decoded in sync and back
        W = "0110100110010110"
        F = 6
        src = bsid.frame_source(self.cb, bsid.channel_params(0.0, 0.0, 0.0), 0, 2,
                                sync_word=W, outer=self.code)
        batch = src.generate(0, F)
        tx = np.concatenate([np.frombuffer(bytes(src.frame(k)["tx"]), dtype=np.uint8)
                             for k in range(F)])
        rx, _ = bsid.transmit(bsid.channel_params(0.005, 0.005, 0.0), tx, 11, frame=0)
        dec = self.decoder(0.005, 0.005, 0.0, sync_word=W, framing="stream")
        got, snk = self.run_graph(blocks.vector_source_b([int(b) for b in rx], False), dec)
        self.assertIn(dec.frames(), (F, F + 1))  # and a partial frame at the end
        self.assertEqual(len(got), dec.frames() * self.K)
        got = got.reshape(-1, self.K)
        for k in range(F - 1):
            np.testing.assert_array_equal(got[k], info_bits(batch.info[k], 16))
        self.assertEqual([v for _, v in tags_of(snk, "bsid_frame_ok")][:F - 1],
                         [True] * (F - 1))
        self.assertEqual(len(tags_of(snk, "bsid_drift")), dec.frames() - dec.erasures())

    def test_007_bad_parameters_refused(self):
        with self.assertRaisesRegex(ValueError, "iterations = 0"):
            self.decoder(iterations=0)
        with self.assertRaisesRegex(ValueError, "bp_iterations = 0"):
            self.decoder(bp_iterations=0)
        with self.assertRaisesRegex(ValueError, "does not fit the codebook's q = 10"):
            bsid.concatenated_decoder(bsid.codebook.from_spec("random:5:10:4:1"), self.code,
                                      0.01, 0.01, 0.0, backend="cpu")
        with self.assertRaisesRegex(ValueError, "framing 'bursts'"):
            self.decoder(framing="bursts")
        with self.assertRaisesRegex(ValueError, "input 'ints'"):
            self.decoder(input="ints")
        with self.assertRaisesRegex(ValueError, "max_batch = 0"):
            self.decoder(max_batch=0)


if __name__ == '__main__':
    gr_unittest.run(qa_concatenated_decoder)
