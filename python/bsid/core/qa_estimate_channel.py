#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""bsid.estimate_channel (docs/receiving.md, "Channel estimation"): the returned
estimate and log-likelihoods, details, LLR input, known data as priors, and clear
errors for bad input."""

import unittest

import numpy as np

import bsid_core as bsid


class qa_estimate_channel(unittest.TestCase):

    def setUp(self):
        self.cb = bsid.codebook.builtin("ld3-modvec6")
        self.N = 30
        self.truth = bsid.channel_params(0.03, 0.02, 0.01)
        rng = np.random.default_rng(4)
        self.msgs = [rng.integers(0, 16, self.N) for _ in range(10)]
        self.frames = [bsid.transmit(self.truth, self.cb.encode(m), 2, frame=k)[0]
                       for k, m in enumerate(self.msgs)]
        self.initial = bsid.channel_params(0.01, 0.01, 0.01)

    def test_001_estimate_and_log_likelihoods(self):
        ch, ll = bsid.estimate_channel(self.cb, self.N, self.frames, initial=self.initial,
                                       iterations=6, backend="cpu")
        self.assertIsInstance(ch, bsid.channel_params)
        self.assertEqual(len(ll), 6)
        # EM: never decreasing, up to the rounding of the sum
        for a, b in zip(ll, ll[1:]):
            self.assertGreaterEqual(b, a - 1e-12 * abs(a))
        self.assertGreater(ch.Pi, 0.015)  # moved towards the truth

    def test_002_details(self):
        ch, ll, info = bsid.estimate_channel(self.cb, self.N, self.frames, initial=self.initial,
                                             iterations=3, backend="cpu", details=True)
        self.assertEqual(info["iterations"], 3)
        self.assertFalse(info["converged"])
        self.assertEqual((info["frames_used"], info["frames_refused"]), (10, 0))
        ev = info["events"]
        # every sent bit was deleted or transmitted
        self.assertAlmostEqual(ev["deletions"] + ev["transmissions"], 10 * self.N * 8,
                               delta=1e-6)
        self.assertEqual(info["llr_scale"], 1.0)
        lo, hi = info["mtau"]
        self.assertLessEqual(lo, 0)
        self.assertGreaterEqual(hi, 0)

    def test_003_llr_input_and_scale(self):
        rng = np.random.default_rng(2)
        llrs = [((2.0 * f - 1.0) * 4 + rng.standard_normal(len(f)) * 2).astype(np.float32)
                for f in self.frames]
        ch, ll, info = bsid.estimate_channel(self.cb, self.N, llrs, initial=self.initial,
                                             input="llr", iterations=4, backend="cpu",
                                             details=True)
        self.assertGreater(info["llr_scale"], 0)
        self.assertNotEqual(info["llr_scale"], 1.0)
        # a fixed scale stays
        _, _, fixed = bsid.estimate_channel(self.cb, self.N, llrs, initial=self.initial,
                                            input="llr", iterations=2, backend="cpu",
                                            fix=["llr_scale"], llr_scale=0.7, details=True)
        self.assertEqual(fixed["llr_scale"], 0.7)

    def test_004_sync_word_tagged_and_stream(self):
        W = "0110100111010010"
        w = [int(c) for c in W]
        tx = [w + list(self.cb.encode(m)) for m in self.msgs]
        tagged = [bsid.transmit(self.truth, np.array(t, np.uint8), 3, frame=k)[0]
                  for k, t in enumerate(tx)]
        ch, ll, info = bsid.estimate_channel(self.cb, self.N, tagged, initial=self.initial,
                                             iterations=4, backend="cpu", sync_word=W,
                                             details=True)
        # the sync word's bits are counted with the codewords'
        ev = info["events"]
        self.assertAlmostEqual(ev["deletions"] + ev["transmissions"],
                               10 * (16 + self.N * 8), delta=1e-6)
        for a, b in zip(ll, ll[1:]):
            self.assertGreaterEqual(b, a - 1e-12 * abs(a))
        stream, _ = bsid.transmit(self.truth, np.array(sum(tx, []), np.uint8), 3, frame=99)
        ch, ll, info = bsid.estimate_channel(self.cb, self.N, stream, initial=self.initial,
                                             iterations=4, backend="cpu", sync_word=W,
                                             framing="stream", details=True)
        # the frames used are those the stream decoder puts out in sync (one
        # of these 10, damaged at Pi = 0.03, is an erasure: its sync word
        # fits worse than a chance one inside the data, and it reads far
        # below what the channel predicts); each counts its W and codewords
        used = info["frames_used"]
        self.assertGreaterEqual(used, 9)
        ev = info["events"]
        self.assertAlmostEqual(ev["deletions"] + ev["transmissions"],
                               used * (16 + self.N * 8), delta=1e-3)
        self.assertGreater(ch.Pi, 0.015)
        with self.assertRaisesRegex(ValueError, "framing 'lines'"):
            bsid.estimate_channel(self.cb, self.N, stream, initial=self.initial,
                                  framing="lines")

    def test_005_bad_input(self):
        with self.assertRaisesRegex(ValueError, "no frames"):
            bsid.estimate_channel(self.cb, self.N, [], initial=self.initial)
        with self.assertRaisesRegex(ValueError, "'Px' is not one of Pi, Pd, Ps"):
            bsid.estimate_channel(self.cb, self.N, self.frames, initial=self.initial,
                                  fix=["Px"])
        with self.assertRaisesRegex(ValueError, "Ps = 0 would stay 0"):
            bsid.estimate_channel(self.cb, self.N, self.frames,
                                  initial=bsid.channel_params(0.01, 0.01, 0.0))
        with self.assertRaisesRegex(RuntimeError, "refused every frame"):
            bsid.estimate_channel(self.cb, self.N, [np.zeros(3, np.uint8), [0, 5, 1]],
                                  initial=self.initial, backend="cpu")
        with self.assertRaises(ValueError):
            bsid.estimate_channel(self.cb, self.N, self.frames, initial=self.initial,
                                  iterations=0)
        with self.assertRaises(ValueError):
            bsid.channel_params(0.6, 0.5, 0.0)  # an initial point out of range
        # a frame that is not bits is refused and counted; the others estimate
        _, _, info = bsid.estimate_channel(self.cb, self.N, self.frames + [[0, 7, 1]],
                                           initial=self.initial, iterations=1, backend="cpu",
                                           details=True)
        self.assertEqual((info["frames_used"], info["frames_refused"]), (10, 1))

    def test_006_frames_that_do_not_fit_the_setup_say_so_in_the_notes(self):
        # frames of another codebook: a fit worse than random items (a
        # log-likelihood below 0); frames of N = 40 estimated with N = 39 or
        # 41: the lengths say so; the right setup: no notes
        rng = np.random.default_rng(9)
        ch = bsid.channel_params(0.01, 0.01, 0.01)
        other = bsid.codebook.from_spec("random:8:16:3:7")
        foreign = [bsid.transmit(ch, other.encode(rng.integers(0, 16, 40)), 3, frame=k)[0]
                   for k in range(24)]
        _, ll, info = bsid.estimate_channel(self.cb, 40, foreign, initial=ch, backend="cpu",
                                            details=True)
        self.assertLess(ll[-1], 0)
        self.assertTrue(any("worse than random items" in n for n in info["notes"]),
                        info["notes"])
        own = [bsid.transmit(ch, self.cb.encode(rng.integers(0, 16, 40)), 3, frame=k)[0]
               for k in range(40)]
        for N, says in ((39, "N + 1 = 40 symbols?"), (41, "N - 1 = 40 symbols?"), (40, None)):
            with self.subTest(N=N):
                _, ll, info = bsid.estimate_channel(self.cb, N, own, initial=ch,
                                                    backend="cpu", details=True,
                                                    iterations=3)
                if says is None:
                    self.assertEqual(info["notes"], [])
                    self.assertGreater(ll[-1], 0)
                else:
                    self.assertTrue(any(says in n for n in info["notes"]), info["notes"])


    def test_007_progress(self):
        # a callable sees every iteration, in order, with the log-likelihood
        # the estimate reports; one that raises ends the estimate
        seen = []
        ch, ll = bsid.estimate_channel(self.cb, self.N, self.frames, initial=self.initial,
                                       iterations=4, backend="cpu",
                                       progress=lambda it, l, c: seen.append((it, l, c.Pi)))
        self.assertEqual([s[0] for s in seen], list(range(len(ll))))
        self.assertEqual([s[1] for s in seen], ll)
        self.assertEqual(seen[-1][2], ch.Pi)

        def stop(it, l, c):
            raise KeyError("stop here")
        with self.assertRaisesRegex(KeyError, "stop here"):
            bsid.estimate_channel(self.cb, self.N, self.frames, initial=self.initial,
                                  iterations=4, backend="cpu", progress=stop)
        with self.assertRaisesRegex(TypeError, "progress must be callable"):
            bsid.estimate_channel(self.cb, self.N, self.frames, initial=self.initial,
                                  progress=3)

if __name__ == "__main__":
    unittest.main()
