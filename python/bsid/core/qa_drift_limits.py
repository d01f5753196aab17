#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""
drift_pdf and drift_limits against a 40-digit reference computed here with
mpmath, written independently of the C++ code: the pdf of docs/design.md section 4
summed term by term at 40 digits, and the limits rule run on it.
"""

import math
import os
import unittest
from fractions import Fraction


import bsid_core as bsid

try:
    import mpmath as mp
except ImportError:  # pragma: no cover
    mp = None

REQUIRE_MPMATH = os.environ.get("BSID_REQUIRE_MPMATH", "1") == "1"


class reference_pdf:
    """phi_T(m) at 40 digits:
        sum_{j >= max(0,-m)} Pt^(T-j) Pd^j Pi^(m+j) C(T, j) C(T+m+j-1, m+j)
    Terms are summed outwards from the largest one until they fall below
    2^-160 (7e-49) of the sum (the terms are unimodal in j)."""

    def __init__(self, T, Pi, Pd):
        self.T = T
        self.Pi, self.Pd = mp.mpf(Pi), mp.mpf(Pd)
        self.Pt = 1 - self.Pi - self.Pd
        fPi, fPd = Fraction(Pi), Fraction(Pd)
        self.c = fPi * fPd / (1 - fPi - fPd) if fPi and fPd else Fraction(0)
        self.cache = {}

    def log_term(self, m, j):
        T, i = self.T, m + j
        r = (mp.loggamma(T + 1) - mp.loggamma(j + 1) - mp.loggamma(T - j + 1)
             + mp.loggamma(T + i) - mp.loggamma(i + 1) - mp.loggamma(T))
        if T - j:
            r += (T - j) * mp.log(self.Pt)
        if j:
            r += j * mp.log(self.Pd)
        if i:
            r += i * mp.log(self.Pi)
        return r

    def __call__(self, m):
        if m not in self.cache:
            self.cache[m] = self._eval(m)
        return self.cache[m]

    def _eval(self, m):
        T = self.T
        if T == 0:
            return mp.mpf(1 if m == 0 else 0)
        if m < -T:
            return mp.mpf(0)
        j0 = max(0, -m)
        if self.Pi == 0 or self.Pd == 0:
            j = -m if self.Pi == 0 else 0
            if j < 0 or j > T or m + j < 0 or (self.Pi == 0 and self.Pd == 0 and m != 0):
                return mp.mpf(0)
            return mp.exp(self.log_term(m, j))
        # Terms relative to the largest, in fixed point with 200 fractional
        # bits; c = Pi Pd / Pt is an exact rational (the inputs are doubles),
        # so each step t_{j+1} = t_j c (T-j)(T+i) / ((j+1)(i+1)) loses at most
        # 2^-200 of the peak.
        cn, cd = self.c.numerator, self.c.denominator

        def num(j):
            return cn * (T - j) * (T + m + j)

        def den(j):
            return cd * (j + 1) * (m + j + 1)

        lo, hi = j0, T
        while lo < hi:  # first j with t_{j+1} < t_j
            mid = (lo + hi) // 2
            if num(mid) < den(mid):
                hi = mid
            else:
                lo = mid + 1
        peak = lo
        one = 1 << 200
        total = t = one
        for j in range(peak, T):
            t = t * num(j) // den(j)
            total += t
            if t < total >> 160:
                break
        t = one
        for j in range(peak - 1, j0 - 1, -1):
            t = t * den(j) // num(j)
            total += t
            if t < total >> 160:
                break
        return mp.exp(self.log_term(m, peak)) * mp.mpf(total) / one


def reference_limits(phi, T, Pi, Pd, Pr):
    """The rule of docs/design.md section 4, on the reference pdf."""
    Pr = mp.mpf(Pr)
    half = Pr / 2
    start = 0
    if phi(0) < half:
        start = max(-T, int(round(T * (Pi - Pd) / (1 - Pi))))
        while phi(start + 1) > phi(start):
            start += 1
        while start > -T and phi(start - 1) > phi(start):
            start -= 1
    lo = hi = start
    while phi(hi + 1) >= half:
        hi += 1
    while lo > -T and phi(lo - 1) >= half:
        lo -= 1
    # excluded mass, from the tails (summed until negligible at 40 digits)
    tiny = mp.mpf(10) ** -30  # relative to Pr: far below any decision's margin
    upper, m = mp.mpf(0), hi + 1
    while True:
        v = phi(m)
        upper += v
        if v == 0 or v < tiny * Pr:
            break
        m += 1
    lower, m = mp.mpf(0), lo - 1
    while m >= -T:
        v = phi(m)
        lower += v
        if v == 0 or v < tiny * Pr:
            break
        m -= 1
    while upper + lower >= Pr:
        below = phi(lo - 1) if lo > -T else mp.mpf(0)
        above = phi(hi + 1)
        if below >= above:
            lo -= 1
            lower -= below
        else:
            hi += 1
            upper -= above
    return lo, hi


@unittest.skipIf(mp is None and not REQUIRE_MPMATH, "mpmath is not installed")
class qa_drift_limits(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if mp is None:
            raise RuntimeError("mpmath is required for this test (Debian: python3-mpmath); "
                               "set BSID_REQUIRE_MPMATH=0 to skip it")
        mp.mp.dps = 40

    def check(self, T, Pi, Pd, Pr=1e-10, rtol=1e-11):
        phi = reference_pdf(T, Pi, Pd)
        lo, hi = reference_limits(phi, T, Pi, Pd, Pr)
        got = bsid.drift_limits(T, Pi, Pd, Pr)
        self.assertEqual(got, (lo, hi), f"T={T} Pi={Pi} Pd={Pd} Pr={Pr}")
        # the pdf itself over the limits and a little beyond
        a, b = max(-T, lo - 3), hi + 3
        pdf = bsid.drift_pdf(T, Pi, Pd, a, b)
        self.assertEqual(pdf.shape, (b - a + 1,))
        for k, m in enumerate(range(a, b + 1)):
            want = phi(m)
            if want == 0:
                self.assertEqual(pdf[k], 0.0, f"T={T} m={m}")
            else:
                err = abs(mp.mpf(float(pdf[k])) / want - 1)
                self.assertLess(err, rtol, f"T={T} Pi={Pi} Pd={Pd} m={m}: {pdf[k]!r} vs "
                                           f"{mp.nstr(want, 20)}")

    def test_001_symmetric_channels(self):
        for T in (8, 400, 10000, 190000):
            for p in (0.0, 1e-3, 1e-2, 0.1, 0.2):
                with self.subTest(T=T, p=p):
                    self.check(T, p, p)

    def test_002_asymmetric_channels(self):
        for T in (8, 400, 10000, 190000):
            for Pi, Pd in ((0.0, 1e-2), (1e-2, 0.0), (0.0, 0.2), (0.2, 0.0),
                           (1e-3, 1e-2), (0.1, 0.02)):
                with self.subTest(T=T, Pi=Pi, Pd=Pd):
                    self.check(T, Pi, Pd)

    def test_003_pdf_at_a_million_bits(self):
        # accurate up to T = 10^6, where single terms underflow every float type
        T = 10**6
        for Pi, Pd in ((0.2, 0.2), (0.01, 0.01), (0.1, 0.0), (0.05, 0.1)):
            phi = reference_pdf(T, Pi, Pd)
            mean = T * (Pi - Pd) / (1 - Pi)
            sd = math.sqrt(T * (Pi + Pd * (1 - Pi - Pd))) / (1 - Pi)
            for z in (-6.5, -3, 0, 0.5, 3, 6.5):
                m = int(round(mean + z * sd))
                want = phi(m)
                got = bsid.drift_pdf(T, Pi, Pd, m, m)[0]
                with self.subTest(Pi=Pi, Pd=Pd, m=m):
                    self.assertGreater(want, 0)
                    self.assertLess(abs(mp.mpf(float(got)) / want - 1), 1e-11)

    def test_004_other_exclusion_probabilities(self):
        for Pr in (0.5, 1e-3, 1e-6, 1e-15):
            with self.subTest(Pr=Pr):
                self.check(400, 0.05, 0.03, Pr)

    def test_005_pdf_shape_and_validation(self):
        self.assertEqual(bsid.drift_pdf(10, 0.1, 0.1, 3, 2).shape, (0,))
        self.assertAlmostEqual(float(bsid.drift_pdf(10, 0.1, 0.1, -10, 200).sum()), 1.0,
                               places=14)
        for bad in ((-1, 0.1, 0.1, 1e-10), (10, 0.6, 0.5, 1e-10), (10, -0.1, 0.1, 1e-10),
                    (10, 0.1, 0.1, 0.0), (10, 0.1, 0.1, 1.0), (10, 0.1, 0.1, float("nan"))):
            with self.subTest(args=bad):
                with self.assertRaises(ValueError):
                    bsid.drift_limits(*bad)

    def test_006_pr_n(self):
        # Pr_n = 1 - (1 - Pr)^(1/N) at 40 digits
        for Pr, N in ((1e-10, 500), (1e-3, 7), (0.5, 2), (1e-300, 1)):
            with mp.workdps(400):
                want = 1 - (1 - mp.mpf(Pr)) ** (mp.mpf(1) / N)
            self.assertLess(abs(bsid.Pr_n(Pr, N) / want - 1), 1e-14)
        # decoder_limits splits Pr (docs/design.md section 4): here the corridors'
        # share Pr / 4 needs the least work, and the boundaries get what it leaves
        lim = bsid.decoder_limits(500, 8, 0.01, 0.01)
        mn = bsid.corridor_limits(500, 8, 0.01, 0.01, 2.5e-11)
        left = 1e-10 - bsid.excluded_mass(500, 8, 0.01, 0.01, (0, 0), mn)["corridors"]
        self.assertEqual(lim, {"mtau": bsid.boundary_limits(500, 8, 0.01, 0.01, left), "mn": mn})
        self.assertEqual(lim, {"mtau": (-63, 64), "mn": (-7, 8)})


if __name__ == '__main__':
    unittest.main(verbosity=2)
