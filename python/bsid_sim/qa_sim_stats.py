#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The simulator's arithmetic: confidence intervals against published binomial
cases, the frame-clustered intervals, and the --values syntax."""

import math
import unittest

import numpy as np

from bsid_sim import stats
from bsid_sim.values import parse_values


class qa_intervals(unittest.TestCase):

    def test_001_wilson_against_published_values(self):
        # Newcombe, "Two-sided confidence intervals for the single proportion:
        # comparison of seven methods", Stat. Med. 17 (1998) 857-872, Table II,
        # method 3 (Wilson score interval, 95 %), to four decimals
        cases = [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605),
                 (0, 20, 0.0000, 0.1611), (1, 29, 0.0061, 0.1718),
                 (29, 29, 0.8830, 1.0000)]
        for k, n, lo, hi in cases:
            got = stats.wilson_interval(k, n, 0.95)
            self.assertAlmostEqual(got[0], lo, delta=5e-5, msg=f"{k}/{n}")
            self.assertAlmostEqual(got[1], hi, delta=5e-5, msg=f"{k}/{n}")

    def test_002_wilson_closed_forms(self):
        z = stats.z_value(0.95)
        self.assertAlmostEqual(z, 1.959963985, places=8)
        self.assertAlmostEqual(stats.z_value(0.99), 2.575829304, places=8)
        # no success: [0, z^2 / (n + z^2)]; all successes: [n / (n + z^2), 1]
        self.assertEqual(stats.wilson_interval(0, 50)[0], 0.0)
        self.assertAlmostEqual(stats.wilson_interval(0, 50)[1], z * z / (50 + z * z), places=14)
        self.assertAlmostEqual(stats.wilson_interval(50, 50)[0], 50 / (50 + z * z), places=14)
        self.assertEqual(stats.wilson_interval(50, 50)[1], 1.0)
        # symmetric about 1/2
        lo, hi = stats.wilson_interval(5, 10)
        self.assertAlmostEqual(lo + hi, 1.0, places=14)
        # wider at a higher confidence
        self.assertLess(stats.wilson_interval(5, 10, 0.99)[0], lo)

    def test_003_bad_arguments(self):
        for c in (0.0, 1.0, 1.5, -0.1):
            self.assertRaises(ValueError, stats.z_value, c)
        self.assertRaises(ValueError, stats.wilson_interval, 0, 0)
        self.assertRaises(ValueError, stats.wilson_interval, 3, 2)
        self.assertRaises(ValueError, stats.clustered_interval, [], 10)

    def test_004_one_symbol_per_frame_is_wilson(self):
        counts = [0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0]
        r, lo, hi = stats.clustered_interval(counts, 1)
        self.assertEqual(r, 4 / 12)
        self.assertEqual((lo, hi), stats.wilson_interval(4, 12))

    def test_005_errors_in_whole_frames_weigh_as_frames(self):
        # every frame in error is wholly wrong: SER = FER, and its interval is
        # the Wilson interval of the frame count, not of the symbol count
        N = 40
        counts = [N] * 7 + [0] * 93
        r, lo, hi = stats.clustered_interval(counts, N)
        self.assertAlmostEqual(r, 0.07, places=15)
        w = stats.wilson_interval(7, 100)
        self.assertAlmostEqual(lo, w[0], places=14)
        self.assertAlmostEqual(hi, w[1], places=14)
        self.assertEqual(stats.design_effect(counts, N), N)
        # no error at all: the cautious bound of the frame count
        r, lo, hi = stats.clustered_interval([0] * 100, N)
        self.assertEqual((r, lo), (0.0, 0.0))
        self.assertAlmostEqual(hi, stats.wilson_interval(0, 100)[1], places=15)

    def test_006_independent_errors_are_nearly_binomial(self):
        rng = np.random.default_rng(1)
        N, F, p = 50, 4000, 0.02
        counts = rng.binomial(N, p, F)
        deff = stats.design_effect(counts, N)
        self.assertLess(deff, 1.15)
        r, lo, hi = stats.clustered_interval(counts, N)
        w = stats.wilson_interval(int(counts.sum()), N * F)
        self.assertAlmostEqual((hi - lo) / (w[1] - w[0]), math.sqrt(deff), delta=0.02)

    def test_007_sums_and_arrays_agree(self):
        counts = np.array([0, 3, 0, 0, 12, 1, 0, 0, 0, 5])
        a = stats.clustered_interval(counts, 20, 0.9)
        b = stats.interval_from_sums(10, int(counts.sum()), int((counts ** 2).sum()), 20, 0.9)
        self.assertEqual(a, b)

    def test_008_coverage_of_clustered_errors(self):
        # bursts: a frame fails with probability f and then loses a burst of
        # 1..N/2 symbols; the 95 % interval must cover the true SER about 95 %
        # of the time (the naive symbol-wise interval covers far less)
        rng = np.random.default_rng(7)
        N, F, f, reps = 100, 400, 0.05, 1500
        true = f * (1 + N / 2) / 2 / N
        fails = rng.random((reps, F)) < f
        bursts = rng.integers(1, N // 2 + 1, (reps, F)) * fails
        covered = naive = 0
        for e in bursts:
            s1, s2 = int(e.sum()), int((e * e).sum())
            _, lo, hi = stats.interval_from_sums(F, s1, s2, N)
            covered += lo <= true <= hi
            wl, wh = stats.wilson_interval(s1, N * F)
            naive += wl <= true <= wh
        self.assertGreater(covered / reps, 0.925)
        self.assertLess(covered / reps, 0.975)
        self.assertLess(naive / reps, 0.6)

    def test_009_rel_half_width(self):
        self.assertEqual(stats.rel_half_width(0.0, 0.0, 0.1), math.inf)
        self.assertAlmostEqual(stats.rel_half_width(0.2, 0.18, 0.22), 0.1)


class qa_values(unittest.TestCase):

    def test_001_geometric(self):
        v = parse_values("1:8:x2")
        self.assertEqual(v, [1.0, 2.0, 4.0, 8.0])
        v = parse_values("0.001:0.05:x1.25")
        self.assertEqual(len(v), 18)
        self.assertAlmostEqual(v[-1], 0.001 * 1.25 ** 17)
        self.assertLessEqual(v[-1], 0.05)
        # STOP within a relative 1e-9 of a step is included, exactly
        v = parse_values("0.001:0.009:x3")
        self.assertEqual(v, [0.001, 0.001 * 3, 0.009])
        self.assertEqual(parse_values("0.001:0.009000000005:x3")[-1], 0.009000000005)
        self.assertEqual(parse_values("0.001:0.0089999999:x3"), [0.001, 0.001 * 3])

    def test_002_linear(self):
        # 0.1 + 2 * 0.1 is 0.30000000000000004: STOP is taken
        self.assertEqual(parse_values("0.1:0.3:+0.1"), [0.1, 0.2, 0.3])
        self.assertEqual(parse_values("0:0.02:+0.01"), [0.0, 0.01, 0.02])
        self.assertEqual(parse_values("0:0.025:+0.01"), [0.0, 0.01, 0.02])
        self.assertEqual(parse_values("0.5:0.5:+1"), [0.5])

    def test_003_list(self):
        self.assertEqual(parse_values("0.01, 0.02,0.05"), [0.01, 0.02, 0.05])
        self.assertEqual(parse_values("3e-3"), [0.003])

    def test_004_errors_name_the_problem(self):
        for spec, words in [("", "empty"), ("a:1:x2", "START"), ("1:b:x2", "STOP"),
                            ("1:2:x1", "FACTOR"), ("1:2:x0.5", "FACTOR"),
                            ("1:2:y3", "xFACTOR"), ("2:1:x2", "below"),
                            ("0:1:x2", "START > 0"), ("0:1:+0", "STEP"), ("1:2", "expected"),
                            ("1,,2", "value"), ("nan", "finite"), ("1:2:3:4", "expected"),
                            ("1e-300:1:x1.0000000001", "more than")]:
            with self.assertRaises(ValueError, msg=spec) as cm:
                parse_values(spec)
            self.assertIn(words, str(cm.exception), spec)


if __name__ == "__main__":
    unittest.main()
