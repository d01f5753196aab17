#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""decode_frame / decode_frames through Python (docs/frame_boundaries.md):
the names, the default request against decode, start priors as a dict or a
pair, free ends and look-ahead on a real code, the sync word, and bad input.
The exact references (brute force over every message, start and end) are the
C++ tests lib/core/tests/qa_frame_decoder.cc and lib/cuda/qa_frame_decoder_cuda.cc.
Runs on the CPU, and on CUDA too where a GPU is usable (BSID_TEST_BACKEND
picks one)."""

import math
import unittest

import numpy as np

import bsid_core as bsid
from qa_backends import backends  # this directory

W = "0110100111010010"


class qa_frame_boundaries(unittest.TestCase):

    def setUp(self):
        self.cb = bsid.codebook.builtin("ld3-modvec6")
        self.ch = bsid.channel_params(0.01, 0.01, 0.0)
        self.N = 30
        rng = np.random.default_rng(8)
        self.msgs = [rng.integers(0, 16, self.N) for _ in range(3)]
        self.rng = rng

    def frame(self, k, sync=""):
        bits = np.concatenate([np.array([int(c) for c in sync], dtype=np.uint8),
                               self.cb.encode(self.msgs[k])]) if sync else self.cb.encode(self.msgs[k])
        return bsid.transmit(self.ch, bits, 4, frame=k)[0]

    def test_001_default_request_is_decode(self):
        for backend in backends():
            for precision in ("float", "double"):
                dec = bsid.map_decoder_core(self.cb, self.ch, self.N, backend=backend,
                                            precision=precision)
                for k in range(3):
                    rx = self.frame(k)
                    res = dec.decode_frame(rx)
                    self.assertEqual(res.status, "ok", res.reason)
                    np.testing.assert_array_equal(res.posteriors, dec.decode(rx))
                    np.testing.assert_array_equal(res.start_positions, [0])
                    np.testing.assert_array_equal(res.start_posterior, [1.0])
                    np.testing.assert_array_equal(res.end_positions, [len(rx)])
                    np.testing.assert_array_equal(res.end_posterior, [1.0])
                    np.testing.assert_array_equal(res.end_forward, [1.0])

    def test_002_a_stream_cut_anywhere(self):
        # garbage, a frame, the next frame: the start, the end and the symbols
        for backend in backends():
            dec = bsid.map_decoder_core(self.cb, self.ch, self.N, backend=backend,
                                        precision="double", sync_word=W)
            rx0, rx1 = self.frame(0, W), self.frame(1, W)
            seg = np.concatenate([np.array([1, 1, 0, 1, 0], np.uint8), rx0, rx1])
            starts = np.arange(0, 11)
            for prior in ({int(s): 1.0 for s in starts}, (starts, np.ones(len(starts)))):
                for K in (0, 1, 3):
                    res = dec.decode_frame(seg, start_prior=prior, end="free", lookahead=K)
                    self.assertEqual(res.status, "ok", res.reason)
                    np.testing.assert_array_equal(res.start_positions, starts)
                    self.assertEqual(starts[np.argmax(res.start_posterior)], 5)
                    # the end: where the channel put it, up to the shifts that
                    # an insertion or deletion at the boundary makes equally likely
                    true_end = 5 + len(rx0)
                    near = np.abs(res.end_positions - true_end) <= 2
                    self.assertGreater(res.end_posterior[near].sum(), 0.99)
                    self.assertAlmostEqual(res.start_posterior.sum(), 1.0, places=12)
                    self.assertAlmostEqual(res.end_posterior.sum(), 1.0, places=12)
                    self.assertAlmostEqual(res.end_forward.sum(), 1.0, places=12)
                    np.testing.assert_array_equal(bsid.hard_decisions(res.posteriors),
                                                  self.msgs[0])

    def test_003_sync_word_in_decode_and_batches(self):
        for backend in backends():
            dec = bsid.map_decoder_core(self.cb, self.ch, self.N, backend=backend,
                                        precision="double", sync_word=W)
            self.assertEqual(dec.sync_word, W)
            rxs = [self.frame(k, W) for k in range(3)]
            for rx, post in zip(rxs, dec.decode_batch(rxs)):
                np.testing.assert_array_equal(post, dec.decode_frame(rx).posteriors)
                np.testing.assert_array_equal(post, dec.decode(rx))
            got = dec.decode_frames(rxs, start_priors=[None, {0: 1.0}, (np.array([0]), [2.0])])
            for rx, res in zip(rxs, got):
                np.testing.assert_array_equal(res.posteriors, dec.decode(rx))
            # the sync word is weighed: without it, these frames decode worse or not at all
            plain = bsid.map_decoder_core(self.cb, self.ch, self.N, backend=backend,
                                          precision="double")
            res = plain.decode_frame(rxs[0])
            self.assertTrue(res.status != "ok" or
                            not np.allclose(res.posteriors, dec.decode(rxs[0]), atol=1e-3))
            # the simulator's frames with the sync word, counted through the frame decoder
            src = bsid.frame_source(self.cb, self.ch, self.N, 1, sync_word=W)
            f = src.frame(2)
            np.testing.assert_array_equal(f["tx"][:len(W)], [int(c) for c in W])
            self.assertEqual(len(f["tx"]), len(W) + self.N * self.cb.n)
            batch = src.generate(0, 4)
            counts = dec.count_errors(batch)
            for k in range(4):
                want = bsid.hard_decisions(dec.decode_frame(batch.rx(k)).posteriors)
                np.testing.assert_array_equal(counts["decisions"][k], want)
            with self.assertRaisesRegex(ValueError, "not 0 or 1"):
                bsid.frame_source(self.cb, self.ch, self.N, 1, sync_word="012")

    def test_004_bad_input(self):
        dec = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu")
        rx = self.frame(0)
        L = len(rx)
        for prior, words in (({}, "no positions"), ({0: 0.0, 1: 0.0}, "every weight is 0"),
                             ({0: -1.0}, "finite non-negative"),
                             ({0: math.nan}, "finite non-negative"),
                             ({0: math.inf}, "finite non-negative"),
                             ({L + 1: 1.0}, "outside the segment"),
                             ({-1: 1.0}, "outside the segment"),
                             (([0, 0], [1.0, 1.0]), "given twice"),
                             (([0, 1], [1.0]), "2 positions but 1 weights")):
            with self.subTest(prior=prior):
                with self.assertRaisesRegex(ValueError, words):
                    dec.decode_frame(rx, start_prior=prior)
        for prior in ({0: 1 + 1j}, {0: "1"}, {0.5: 1.0}, {True: 1.0}, (["a"], [1.0]),
                      ([0], [1 + 0j]), "01"):
            with self.subTest(prior=prior):
                with self.assertRaises(TypeError):
                    dec.decode_frame(rx, start_prior=prior)
        for K in (-1, self.N + 1):
            with self.assertRaisesRegex(ValueError, "lookahead"):
                dec.decode_frame(rx, end="free", lookahead=K)
        with self.assertRaisesRegex(ValueError, "end = free"):
            dec.decode_frame(rx, lookahead=1)
        with self.assertRaisesRegex(ValueError, "not one of known, free"):
            dec.decode_frame(rx, end="open")
        with self.assertRaisesRegex(ValueError, "not 0 or 1"):
            bsid.map_decoder_core(self.cb, self.ch, self.N, sync_word="01a1")
        # refusals are statuses, never exceptions, with uniform posteriors
        res = dec.decode_frame(rx[:5])
        self.assertEqual(res.status, "drift_out_of_range")
        np.testing.assert_array_equal(res.posteriors, np.full((self.N, 16), 1 / 16))
        res = dec.decode_frame(np.array([0, 1, 7, 1] * 60))
        self.assertEqual(res.status, "invalid_input")
        self.assertEqual(res.end_posterior.sum(), 0.0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
