#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""
The decoder's drift limits (decoder_limits, boundary_limits, corridor_limits,
excluded_mass) against a 40-digit reference computed here with mpmath and
written independently of the C++ code:

  - phi_n, the drift pmf of one codeword, from the closed form of
    docs/design.md section 4, summed term by term;
  - the drift at every codeword boundary by repeated convolution with phi_n,
    codeword by codeword, and mu(m) = sum_i P(drift at boundary i = m);
  - the probability that a codeword's lattice path leaves a corridor by a
    dynamic program that follows the channel event by event (each insertion,
    deletion and transmission);

then the limits rules run on those. Also a decode-level check of the issue
that changed the rule: on an asymmetric channel the boundaries' limits must
follow the drift as it moves away from 0. The decode-level checks run on the
CPU backend, and on the CUDA backend too where a GPU is usable; set
BSID_TEST_BACKEND ("cpu" or "cuda") to run them on one backend only (they are
skipped when it cannot be built here).
"""

import itertools
import os
import unittest

import numpy as np

import bsid_core as bsid

try:
    import mpmath as mp
except ImportError:  # pragma: no cover
    mp = None

REQUIRE_MPMATH = os.environ.get("BSID_REQUIRE_MPMATH", "1") == "1"


def backend_usable(backend):
    """(True, "") where a decoder on `backend` can be built, else (False, why)."""
    try:
        bsid.map_decoder_core(bsid.codebook.sparse(4, 4), bsid.channel_params(0.01, 0.01, 0), 2,
                              backend=backend)
    except RuntimeError as e:
        return False, str(e)
    return True, ""


def backends_under_test():
    """BSID_TEST_BACKEND if set, else "cpu", and "cuda" where a GPU is usable."""
    chosen = os.environ.get("BSID_TEST_BACKEND")
    if chosen:
        return [chosen]
    return ["cpu", "cuda"] if backend_usable("cuda")[0] else ["cpu"]

# Boundary distributions drop entries below this (absolute, the total mass
# of each is 1): far below any excluded mass these tests look at (>= 1e-13).
FLOOR_EXP = -45

# The split of Pr that decoder_limits tries (docs/design.md section 4): the
# corridors get Pr / 2^k, k = 1..SPLIT_STEPS; the work counts boundary states
# in groups of STATE_GROUP.
SPLIT_STEPS = 8
STATE_GROUP = 32


def closed_form_pdf(T, Pi, Pd, m):
    """phi_T(m) = sum_{j >= max(0,-m)} Pt^(T-j) Pd^j Pi^(m+j) C(T, j) C(T+m+j-1, m+j),
    every term at 40 digits (0^0 = 1)."""
    Pi, Pd = mp.mpf(Pi), mp.mpf(Pd)
    Pt = 1 - Pi - Pd
    if T == 0:
        return mp.mpf(1 if m == 0 else 0)
    s = mp.mpf(0)
    for j in range(max(0, -m), T + 1):
        i = m + j
        s += (Pt ** (T - j) * Pd ** j * Pi ** i
              * mp.binomial(T, j) * mp.binomial(T + i - 1, i))
    return s


def codeword_pdf(n, Pi, Pd, floor):
    """phi_n over [-n, K]: K past the mode where phi_n falls below floor."""
    lo = -n
    out = []
    m = lo
    while True:
        v = closed_form_pdf(n, Pi, Pd, m)
        if m > 0 and v < floor and (v == 0 or v <= out[-1]):
            break
        out.append(v)
        m += 1
    return lo, out


def convolve(alo, a, klo, k, floor):
    """(alo, a) * (klo, k), each entry an mpmath dot product; entries below
    floor are dropped from both ends."""
    La, Lk = len(a), len(k)
    kr = k[::-1]
    out = []
    for c in range(La + Lk - 1):
        i0, i1 = max(0, c - Lk + 1), min(La - 1, c)
        out.append(mp.fdot(a[i0:i1 + 1], kr[Lk - 1 - c + i0:Lk - c + i1]))
    s, e = 0, len(out)
    while s < e and out[s] < floor:
        s += 1
    while e > s and out[e - 1] < floor:
        e -= 1
    return alo + klo + s, out[s:e]


class channel_reference:
    """Everything about one (N, n, Pi, Pd) at 40 digits."""

    def __init__(self, N, n, Pi, Pd):
        self.N, self.n, self.Pi, self.Pd = N, n, Pi, Pd
        floor = mp.mpf(10) ** FLOOR_EXP
        self.klo, self.k = codeword_pdf(n, Pi, Pd, floor)
        # mu(m): the expected number of boundaries i = 0..N at drift m
        self.mu = {0: mp.mpf(1)}
        plo, p = 0, [mp.mpf(1)]
        for _ in range(N):
            plo, p = convolve(plo, p, self.klo, self.k, floor)
            for t, v in enumerate(p):
                self.mu[plo + t] = self.mu.get(plo + t, 0) + v
        self.last = (plo, p)  # the drift after N codewords
        self.exits = {}

    def phi_n(self, m):
        t = m - self.klo
        return self.k[t] if 0 <= t < len(self.k) else mp.mpf(0)

    def mu_at(self, m):
        return self.mu.get(m, mp.mpf(0))

    def boundaries_outside(self, lo, hi):
        return mp.fsum(v for m, v in self.mu.items() if not lo <= m <= hi)

    def change_outside(self, lo, hi):
        """P(the drift change over one codeword lies outside [lo, hi])."""
        return mp.fsum(v for t, v in enumerate(self.k) if not lo <= self.klo + t <= hi)

    def exit(self, lo, hi):
        """(up, down): the probability that a codeword's path through the
        lattice first leaves [lo, hi] above / below, following the channel
        event by event: before each of the n bits, insertions (Pi each, the
        drift one up per insertion), then a deletion (Pd, one down) or a
        transmission (Pt, unchanged). Nothing is inserted after the last bit."""
        key = (lo, hi)
        if key in self.exits:
            return self.exits[key]
        Pi, Pd = mp.mpf(self.Pi), mp.mpf(self.Pd)
        Pt = 1 - Pi - Pd
        M = hi - lo + 1
        zero = mp.mpf(0)
        w = [zero] * M
        w[-lo] = mp.mpf(1)
        up = down = zero
        for _ in range(self.n):
            nxt = [zero] * M
            a = w  # mass that may still insert before this bit
            while any(a):
                ins = [zero] * M
                for x, v in enumerate(a):
                    if not v:
                        continue
                    # the bit is deleted
                    if x == 0:
                        down += v * Pd
                    else:
                        nxt[x - 1] += v * Pd
                    # the bit is transmitted
                    nxt[x] += v * Pt
                    # one more insertion first
                    if x + 1 == M:
                        up += v * Pi
                    else:
                        ins[x + 1] = v * Pi
                a = ins
            w = nxt
        self.exits[key] = (up, down)
        return up, down

    def corridor_greedy(self, Pr):
        """corridor_limits: from [0, 0], widen the side whose exit probability
        is larger (a tie: the lower side, never below -n) until N P(exit) < Pr."""
        lo = hi = 0
        while True:
            up, down = self.exit(lo, hi)
            if self.N * (up + down) < Pr:
                return lo, hi
            if down >= up and lo > -self.n:
                lo -= 1
            else:
                hi += 1

    def boundary_greedy(self, Pr):
        """boundary_limits: the limits rule on mu with budget Pr."""
        half = Pr / 2
        lo = hi = 0
        while self.mu_at(hi + 1) >= half:
            hi += 1
        while self.mu_at(lo - 1) >= half:
            lo -= 1
        while self.boundaries_outside(lo, hi) >= Pr:
            below, above = self.mu_at(lo - 1), self.mu_at(hi + 1)
            if below == 0 and above == 0:
                break
            if below >= above:
                lo -= 1
            else:
                hi += 1
        return lo, hi

    def decoder_limits(self, Pr):
        """decoder_limits: for k = 1..SPLIT_STEPS the corridors get Pr / 2^k and
        the boundaries what the corridor leaves; the least work wins (the
        first on a tie)."""
        Pr = mp.mpf(Pr)
        best = None
        for k in range(1, SPLIT_STEPS + 1):
            mn = self.corridor_greedy(Pr / 2 ** k)
            up, down = self.exit(*mn)
            mtau = self.boundary_greedy(Pr - self.N * (up + down))
            lo = mn[0]
            groups = -(-(mtau[1] - mtau[0] + 1) // STATE_GROUP)
            work = groups * (self.n * (mn[1] - mn[0] + 1) - lo * (lo - 1) // 2)
            if best is None or work < best[0]:
                best = (work, {"mtau": mtau, "mn": mn})
            if mn[0] == -self.n and up == 0:
                break
        return best[1]


CHANNELS = ((120, 8, 0.02, 0.002), (120, 8, 0.002, 0.02), (60, 8, 0.2, 0.0),
            (60, 8, 0.0, 0.2), (50, 8, 0.3, 0.01), (50, 8, 0.01, 0.3),
            (100, 8, 0.01, 0.01), (30, 16, 0.05, 0.1))


@unittest.skipIf(mp is None and not REQUIRE_MPMATH, "mpmath is not installed")
class qa_decoder_limits(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if mp is None:
            raise RuntimeError("mpmath is required for this test (Debian: python3-mpmath); "
                               "set BSID_REQUIRE_MPMATH=0 to skip it")
        mp.mp.dps = 40

    def assertClose(self, got, want, rtol, msg):
        if want == 0:
            self.assertEqual(got, 0.0, msg)
        else:
            self.assertLess(abs(mp.mpf(got) / want - 1), rtol,
                            f"{msg}: {got!r} vs {mp.nstr(want, 20)}")

    def test_001_reference_is_consistent(self):
        # the convolution of N codewords against the closed form at T = N n,
        # the boundary mass (N + 1 boundaries), and the corridor exit as an
        # upper bound of the codeword's drift change leaving it
        ref = channel_reference(30, 16, 0.05, 0.1)
        # (at values >= 1e-15, where the entries dropped below 1e-45 do not show)
        plo, p = ref.last
        big = [plo + t for t, v in enumerate(p) if v >= 1e-15]
        for m in (big[0], big[len(big) // 2], big[-1]):
            self.assertClose(p[m - plo], closed_form_pdf(30 * 16, 0.05, 0.1, m), 1e-25,
                             f"m={m}")
        self.assertLess(abs(mp.fsum(ref.mu.values()) - 31), 1e-35)
        self.assertLess(abs(mp.fsum(ref.k) - 1), 1e-40)
        for lo, hi in ((0, 0), (-3, 2), (-16, 0), (-5, 9)):
            up, down = ref.exit(lo, hi)
            self.assertGreaterEqual(up + down, ref.change_outside(lo, hi))
            self.assertLess(up + down, 1)
        # an exit the long way: a path can only leave [-16, hi] upwards
        self.assertEqual(ref.exit(-16, 3)[1], 0)

    def test_002_limits_against_the_reference(self):
        for N, n, Pi, Pd in CHANNELS:
            ref = channel_reference(N, n, Pi, Pd)
            for Pr in (1e-10, 1e-4):
                with self.subTest(N=N, n=n, Pi=Pi, Pd=Pd, Pr=Pr):
                    self.check(ref, Pr)

    def check(self, ref, Pr):
        N, n, Pi, Pd = ref.N, ref.n, ref.Pi, ref.Pd
        tag = f"N={N} n={n} Pi={Pi} Pd={Pd} Pr={Pr}"
        lim = bsid.decoder_limits(N, n, Pi, Pd, Pr)
        mtau, mn = lim["mtau"], lim["mn"]
        # the rule, followed exactly
        self.assertEqual(lim, ref.decoder_limits(Pr), tag)
        # what is left out
        boundaries = ref.boundaries_outside(*mtau)
        up, down = ref.exit(*mn)
        corridors = N * (up + down)
        self.assertLess(corridors, Pr / 2, tag)
        self.assertLess(boundaries, Pr - corridors, tag)
        self.assertLess(boundaries + corridors, Pr, tag)
        self.assertLess(boundaries + N * ref.change_outside(*mn), Pr, tag)
        self.assertGreaterEqual(corridors, N * ref.change_outside(*mn), tag)
        ex = bsid.excluded_mass(N, n, Pi, Pd, mtau, mn)
        self.assertClose(ex["boundaries"], boundaries, 1e-6, tag + " boundaries")
        self.assertClose(ex["corridors"], corridors, 1e-6, tag + " corridors")
        # the two parts, and their greedy rules, on their own
        self.assertEqual(bsid.corridor_limits(N, n, Pi, Pd, Pr / 2),
                         ref.corridor_greedy(mp.mpf(Pr) / 2), tag)
        self.assertEqual(bsid.boundary_limits(N, n, Pi, Pd, Pr / 2),
                         ref.boundary_greedy(mp.mpf(Pr) / 2), tag)
        # each holds 0, neither is clipped to the other, and every side the
        # channel can move to is open
        self.assertTrue(mtau[0] <= 0 <= mtau[1] and mn[0] <= 0 <= mn[1], tag)
        if Pd > 0:
            self.assertLess(mtau[0], 0, tag)
            self.assertLess(mn[0], 0, tag)
        if Pi > 0:
            self.assertGreater(mtau[1], 0, tag)
            self.assertGreater(mn[1], 0, tag)
        if Pi == 0:
            self.assertEqual(mtau[1], 0, tag)
            self.assertEqual(mn[1], 0, tag)
        if Pd == 0:
            self.assertEqual(mtau[0], 0, tag)
            self.assertEqual(mn[0], 0, tag)

    def backends(self):
        """The backends of the decode-level checks (skips the test if one cannot be built)."""
        backends = backends_under_test()
        for backend in backends:
            usable, why = backend_usable(backend)
            if not usable:
                self.skipTest("backend %s cannot be built here: %s" % (backend, why))
        return backends

    def decode_both(self, cb, ch, N, rx, backend, precision="double"):
        dec = bsid.map_decoder_core(cb, ch, N, backend=backend, precision=precision)
        self.assertEqual(dec.backend, backend)
        (lo, hi), (mlo, mhi) = dec.limits["mtau"], dec.limits["mn"]
        wide = bsid.map_decoder_core(cb, ch, N, backend=backend, precision=precision,
                                     mtau=(lo - 20, hi + 20), mn=(mlo - 2, mhi + 2))
        return dec, dec.decode(rx), wide.decode(rx)

    def test_003_asymmetric_channel_decodes(self):
        # The issue: with m_tau = drift_limits(n N, Pr) centred on the mode of
        # the *final* drift, the boundaries near the start of a frame on an
        # asymmetric channel fell outside m_tau, and a frame of 500 symbols at
        # Pi = 0.02, Pd = 0.002 decoded with 40 symbol errors.
        cb = bsid.codebook.from_spec("builtin:ld3-modvec6")
        N = 500
        msg = np.random.default_rng(0).integers(0, 16, N)
        for backend, (Pi, Pd) in itertools.product(self.backends(),
                                                   ((0.02, 0.002), (0.002, 0.02))):
            with self.subTest(backend=backend, Pi=Pi, Pd=Pd):
                ch = bsid.channel_params(Pi, Pd, 0)
                rx, drift = bsid.transmit(ch, cb.encode(msg), 5, frame=0)
                dec, post, wide = self.decode_both(cb, ch, N, rx, backend)
                lo, hi = dec.limits["mtau"]
                path = drift[::8]
                self.assertEqual(path.shape, (N + 1,))
                self.assertTrue(((path >= lo) & (path <= hi)).all(),
                                f"drift path [{path.min()}, {path.max()}] outside {(lo, hi)}")
                errors = int((bsid.hard_decisions(post) != msg).sum())
                self.assertLessEqual(errors, 2)
                self.assertLess(np.abs(post - wide).max(), 1e-6)
                # the frame is a witness: the old rule's limits (m_tau from the
                # final drift's pmf, m_n from Pr_n, clipped to m_tau) lose symbols
                old_t = bsid.drift_limits(8 * N, Pi, Pd, 1e-10)
                old_t = (min(old_t[0], 0), max(old_t[1], 0))
                old_n = bsid.drift_limits(8, Pi, Pd, bsid.Pr_n(1e-10, N))
                old_n = (max(old_n[0], old_t[0]), min(old_n[1], old_t[1]))
                old = bsid.map_decoder_core(cb, ch, N, backend=backend, precision="double",
                                            mtau=old_t, mn=old_n).decode(rx)
                self.assertGreaterEqual(int((bsid.hard_decisions(old) != msg).sum()), 10)

    def test_004_long_asymmetric_frame(self):
        cb = bsid.codebook.from_spec("builtin:ld3-modvec6")
        N = 2000
        msg = np.random.default_rng(1).integers(0, 16, N)
        ch = bsid.channel_params(0.02, 0.01, 0)
        rx, drift = bsid.transmit(ch, cb.encode(msg), 7, frame=0)
        for backend in self.backends():
            with self.subTest(backend=backend):
                dec = bsid.map_decoder_core(cb, ch, N, backend=backend, precision="float")
                self.assertEqual(dec.backend, backend)
                lo, hi = dec.limits["mtau"]
                self.assertTrue(lo <= drift[::8].min() and drift[::8].max() <= hi)
                post = dec.decode(rx)  # raises FrameRefused if refused
                ser = float((bsid.hard_decisions(post) != msg).mean())
                self.assertLess(ser, 0.03)


if __name__ == '__main__':
    unittest.main(verbosity=2)
