#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""bsid.information_rate (docs/capacity.md): the result's shape, the exact
rates of channels without synchronization errors, and clear errors. The
rate against enumeration and brute force over every (x, y) is
qa_information_rate (C++)."""

import math
import unittest

import numpy as np

import bsid_core as bsid


def h2(p):
    return -p * math.log2(p) - (1 - p) * math.log2(1 - p)


class qa_information_rate(unittest.TestCase):

    def test_001_result(self):
        cb = bsid.codebook.builtin("ld3-modvec6")
        ch = bsid.channel_params(0.01, 0.01, 0.0)
        r = bsid.information_rate(cb, ch, 20, frames=30, seed=3, backend="cpu")
        self.assertEqual(r.frames, 30)
        self.assertEqual(r.excluded, 0)
        self.assertEqual(r.samples.shape, (30,))
        self.assertAlmostEqual(r.rate, float(np.mean(r.samples)), places=12)
        lo, hi = r.ci
        se = float(np.std(r.samples, ddof=1)) / math.sqrt(30)
        self.assertAlmostEqual(lo, r.rate - 1.96 * se, places=12)
        self.assertAlmostEqual(hi, r.rate + 1.96 * se, places=12)
        # no frame carries more than the code's rate, 4 bits per 8 channel bits
        self.assertTrue(np.all(r.samples <= 0.5 + 1e-12))
        self.assertGreater(r.rate, 0.4)
        self.assertIn("information_rate_result(rate=", repr(r))
        # the same seed, the same frames; another seed, other frames
        again = bsid.information_rate(cb, ch, 20, frames=30, seed=3, backend="cpu",
                                      batch=7, threads=1)
        np.testing.assert_array_equal(again.samples, r.samples)
        other = bsid.information_rate(cb, ch, 20, frames=30, seed=4, backend="cpu")
        self.assertFalse(np.array_equal(other.samples, r.samples))

    def test_002_noiseless_channels_carry_log2_A(self):
        # no errors at all: every frame carries log2(A) bits per letter
        for A in (2, 4):
            cb = bsid.codebook.sparse(1, A, alphabet=A)
            ch = bsid.channel_params(0, 0, 0, alphabet=A)
            r = bsid.information_rate(cb, ch, 12, frames=5, backend="cpu")
            np.testing.assert_allclose(r.samples, math.log2(A), rtol=0, atol=1e-12)

    def test_003_substitution_channel(self):
        # no insertions or deletions: the BSC's 1 - h(Ps), frame by frame
        # exactly 1 + (d log2 Ps + (N - d) log2(1 - Ps)) / N
        Ps, N = 0.05, 100
        cb = bsid.codebook.sparse(1, 2)
        ch = bsid.channel_params(0, 0, Ps)
        r = bsid.information_rate(cb, ch, N, frames=400, seed=8, backend="cpu")
        src = bsid.frame_source(cb, ch, N, 8)
        for k in range(20):
            f = src.frame(k)
            d = int(np.sum(f["rx"] != f["symbols"]))
            want = 1 + (d * math.log2(Ps) + (N - d) * math.log2(1 - Ps)) / N
            self.assertAlmostEqual(r.samples[k], want, places=10)
        lo, hi = r.ci
        se = (hi - lo) / (2 * 1.96)
        self.assertLess(abs(r.rate - (1 - h2(Ps))), 3 * se)

    def test_004_synchronization_errors_cost_rate(self):
        # insertions and deletions take rate away from the substitution channel
        cb = bsid.codebook.sparse(1, 2)
        bsc = bsid.information_rate(cb, bsid.channel_params(0, 0, 0.01), 200,
                                    frames=60, backend="cpu")
        bsid_ = bsid.information_rate(cb, bsid.channel_params(0.05, 0.05, 0.01), 200,
                                      frames=60, backend="cpu")
        self.assertLess(bsid_.ci[1], bsc.ci[0])

    def test_005_errors(self):
        cb = bsid.codebook.sparse(1, 2)
        ch = bsid.channel_params(0.01, 0.01, 0)
        with self.assertRaisesRegex(ValueError, "at least 2"):
            bsid.information_rate(cb, ch, 8, frames=1)
        with self.assertRaisesRegex(ValueError, "batch"):
            bsid.information_rate(cb, ch, 8, frames=4, batch=0)
        with self.assertRaises(ValueError):
            bsid.information_rate(cb, ch, 0, frames=4)
        with self.assertRaises(ValueError):
            bsid.information_rate(cb, ch, 8, backend="gpu")
        with self.assertRaises(ValueError):
            # a codebook of letters on a binary channel
            bsid.information_rate(bsid.codebook.sparse(1, 4, alphabet=4), ch, 8)


if __name__ == "__main__":
    unittest.main()
