#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""decode_frame / decode_frames against an exact reference written here in
plain Python (docs/design.md section 3, "Frame boundaries as probabilities"),
on the corners of the model: a time-varying code (P = 2) with a look-ahead
longer than the code's period, sync words of 1 and 5 bits, start priors with
zero weights and starts at the very end of the segment, an empty segment with
a free end, log priors with -inf entries, channels with Ps = 0, Pi = 0 or
Pd = 0 (paths of probability 0), and decode_frames with a start prior per
frame. Then invariants on a real code: rows and boundary posteriors that sum
to 1, float against double, global against local storage.

The reference: the weight of message D, start s and end e is
    P(D) pi(s) P(rx[s:e] | W || X(D)) T(e),
T(e) the weight of rx[e:L] (the next frame's W and first K symbols, books
0..K-1 with uniform priors, then random bits of 1/2 each; T = 1 at e = L for
a known end). P(y | x) is the lattice over (transmitted bits consumed,
received bits consumed): before each transmitted bit k >= 0 insertions of
weight Pi/2 each, then a deletion (Pd) or a transmission (Pt, flipped with
probability Ps); nothing is inserted after the last bit. Every message, start
and end is enumerated; the decoder gets drift limits that cover every path.
"""

import itertools
import math
import unittest

import numpy as np

import bsid_core as bsid

TOL = 1e-9

from qa_backends import backends  # this directory


# --- the reference -----------------------------------------------------------

def bits_of(text):
    return [int(c) for c in text]


def encode(books, n, symbols):
    """Codeword i = books[i mod P][D_i], n bits, the most significant first."""
    out = []
    for i, d in enumerate(symbols):
        w = books[i % len(books)][d]
        out.extend((w >> (n - 1 - b)) & 1 for b in range(n))
    return out


def channel_prefix(x, y, Pi, Pd, Ps):
    """f[j] = P(x is received as exactly y[0:j]), j = 0..len(y).

    The lattice over (i transmitted bits consumed, j received bits consumed):
    bit x_i is preceded by k >= 0 insertions (Pi/2 each: an insertion, and a
    uniform random bit), then deleted (Pd) or transmitted (Pt), a transmitted
    bit received flipped with probability Ps. No insertion after the last bit.
    """
    Pt = 1.0 - Pi - Pd
    y = np.asarray(y, dtype=np.int64)
    R = len(y)
    f = np.zeros(R + 1)
    f[0] = 1.0
    for xb in x:
        # h[j]: any number of insertions before this bit, ending at j
        h = np.empty(R + 1)
        acc = 0.0
        for j in range(R + 1):
            acc = f[j] + 0.5 * Pi * acc
            h[j] = acc
        g = Pd * h
        if R:
            g[1:] += Pt * np.where(y == xb, 1.0 - Ps, Ps) * h[:-1]
        f = g
    return f


def reference(books, n, N, chp, sync, rx, start=None, end="known", K=0, prior_rows=None):
    """Exact marginals of the frame model by enumeration.

    chp: (Pi, Pd, Ps); start: {position: weight} or None (pi(0) = 1);
    prior_rows: N x q symbol probabilities (rows need not be normalized).
    Returns a dict with the total weight, posteriors (N, q), start {s: p},
    end (L + 1,) and forward (L + 1,) over every position 0..L.
    """
    Pi, Pd, Ps = chp
    rx = [int(b) for b in rx]
    L = len(rx)
    q = len(books[0])
    W = bits_of(sync)
    start = {0: 1.0} if start is None else dict(start)
    if prior_rows is None:
        prior_rows = np.ones((N, q))
    # T(e): the weight of rx[e:L]
    T = np.zeros(L + 1)
    if end == "known":
        T[L] = 1.0
    else:
        for e in range(L + 1):
            for Dn in itertools.product(range(q), repeat=K):
                f = channel_prefix(W + encode(books, n, Dn), rx[e:], Pi, Pd, Ps)
                j = np.arange(len(f))
                T[e] += q ** -K * np.sum(f * 0.5 ** (L - e - j))
    post = np.zeros((N, q))
    spost = {s: 0.0 for s in start}
    lam = np.zeros(L + 1)
    fwd = np.zeros(L + 1)
    for D in itertools.product(range(q), repeat=N):
        pD = float(np.prod([prior_rows[i][d] for i, d in enumerate(D)]))
        if pD == 0.0:
            continue
        x = W + encode(books, n, D)
        wD = 0.0
        for s, ws in start.items():
            if ws == 0.0:
                continue
            f = channel_prefix(x, rx[s:], Pi, Pd, Ps)
            a = np.zeros(L + 1)
            a[s:] = pD * ws * f  # a[e] = P(D) pi(s) P(rx[s:e] | W || X(D))
            w = a * T
            fwd += a
            lam += w
            spost[s] += w.sum()
            wD += w.sum()
        for i, d in enumerate(D):
            post[i, d] += wD
    total = lam.sum()
    out = {"total": total}
    # the evidence with P(D) and pi(s) normalized, and against random bits
    norm = np.sum(np.log(np.sum(prior_rows, axis=1))) + np.log(sum(start.values()))
    if total > 0:
        out["log_evidence"] = np.log(total) - norm
        out["log_lr"] = np.log(sum(v * 2.0 ** (L - s) for s, v in spost.items())) - norm
    if total > 0:
        out["posteriors"] = post / total
        out["start"] = {s: v / total for s, v in spost.items()}
        out["end"] = lam / total
        if end == "known":
            fwd = np.where(np.arange(L + 1) == L, fwd, 0.0)
        out["forward"] = fwd / fwd.sum()
    return out


def covering(cb, chp, N, sync, L, backend="cpu", precision="double", storage="global"):
    """A decoder whose drift limits hold every path of a segment of L bits."""
    G = len(sync)
    return bsid.map_decoder_core(cb, bsid.channel_params(*chp), N, backend=backend,
                                 precision=precision, storage=storage,
                                 mtau=(-(N * cb.n + G), L), mn=(-cb.n, L), sync_word=sync)


def on_positions(positions, values, L):
    full = np.zeros(L + 1)
    full[np.asarray(positions, dtype=np.int64)] = values
    return full


# --- the tests ---------------------------------------------------------------

CODE_A = (3, [[3, 4]])          # n = 3, q = 2, P = 1
CODE_B = (3, [[1, 6], [2, 5]])  # n = 3, q = 2, P = 2


class qa_frame_boundaries_edge(unittest.TestCase):

    def make_code(self, spec):
        n, books = spec
        return bsid.codebook(n, books), n, books

    def check(self, res, ref, L, start=None, end="known", tol=TOL, what=""):
        """The decoder's result against the reference, over every position."""
        msg = what
        if ref["total"] == 0:
            self.assertNotEqual(res.status, "ok", msg)
            self.assertEqual(np.sum(res.end_posterior), 0.0, msg)
            self.assertEqual(np.sum(res.start_posterior), 0.0, msg)
            np.testing.assert_array_equal(res.posteriors,
                                          np.full(res.posteriors.shape,
                                                  1.0 / res.posteriors.shape[1]))
            return
        self.assertEqual(res.status, "ok", msg + " " + res.reason)
        np.testing.assert_allclose(res.posteriors, ref["posteriors"], rtol=0, atol=tol,
                                   err_msg=msg + " posteriors")
        # the evidence, and against random bits (in logs)
        etol = 10 * max(tol, 1e-9)
        self.assertAlmostEqual(res.log_evidence, ref["log_evidence"], delta=etol,
                               msg=msg + " log evidence")
        self.assertAlmostEqual(res.log_likelihood_ratio, ref["log_lr"], delta=etol,
                               msg=msg + " log-likelihood ratio")
        # the start posterior over the start prior's positions
        want_pos = sorted(ref["start"]) if start is not None else [0]
        np.testing.assert_array_equal(res.start_positions, want_pos, err_msg=msg)
        np.testing.assert_allclose(res.start_posterior, [ref["start"][s] for s in want_pos],
                                   rtol=0, atol=tol, err_msg=msg + " start posterior")
        # the end posterior and the forward end metric over 0..L: any position
        # the decoder leaves out must have no mass in the reference
        pos = np.asarray(res.end_positions)
        self.assertTrue(np.all(np.diff(pos) > 0), msg)
        self.assertTrue(np.all((pos >= 0) & (pos <= L)), msg)
        if end == "known":
            np.testing.assert_array_equal(pos, [L], err_msg=msg)
        np.testing.assert_allclose(on_positions(pos, res.end_posterior, L), ref["end"],
                                   rtol=0, atol=tol, err_msg=msg + " end posterior")
        np.testing.assert_allclose(on_positions(pos, res.end_forward, L), ref["forward"],
                                   rtol=0, atol=tol, err_msg=msg + " end forward")

    def run_case(self, spec, N, chp, sync, rx, start=None, end="known", K=0,
                 prior_rows=None, log_priors=None, what=""):
        cb, n, books = self.make_code(spec)
        L = len(rx)
        ref = reference(books, n, N, chp, sync, rx, start, end, K, prior_rows)
        rx = np.asarray(rx, dtype=np.uint8)
        for backend in backends():
            for storage in ("global", "local"):
                dec = covering(cb, chp, N, sync, L, backend=backend, storage=storage)
                kw = dict(end=end)
                if end == "free":
                    kw["lookahead"] = K
                if start is not None:
                    kw["start_prior"] = start
                if log_priors is not None:
                    kw["log_priors"] = log_priors
                elif prior_rows is not None:
                    kw["priors"] = np.asarray(prior_rows, dtype=np.float64)
                res = dec.decode_frame(rx, **kw)
                self.check(res, ref, L, start, end,
                           what="%s [%s %s]" % (what, backend, storage))
        return ref

    def segment(self, spec, N, chp, sync, msg, before, K_after, seed):
        """Garbage bits, the frame (W || X(msg)) and the next frame's W and
        K_after codewords, each through the channel."""
        cb, n, books = self.make_code(spec)
        rng = np.random.default_rng(seed)
        ch = bsid.channel_params(*chp)
        tx = np.array(bits_of(sync) + encode(books, n, msg), dtype=np.uint8)
        rx = bsid.transmit(ch, tx, seed, frame=0)[0]
        nxt = bits_of(sync) + encode(books, n, list(rng.integers(0, len(books[0]), K_after)))
        rxn = bsid.transmit(ch, np.array(nxt, dtype=np.uint8), seed, frame=1)[0] \
            if nxt else np.zeros(0, np.uint8)
        pre = rng.integers(0, 2, before).astype(np.uint8)
        return [int(b) for b in np.concatenate([pre, rx, rxn, rng.integers(0, 2, 1)])]

    # -- the reference itself ------------------------------------------------

    def test_000_reference_is_right(self):
        # the channel is a distribution over received words: with Pi = 0 it sums
        # to 1 over every length; with Pi > 0, up to a tail that shrinks fast
        # the channel is a distribution over received words: summed over every
        # word of each length R, it gives the law of the received length, which
        # is that of a sum of independent per-bit lengths (k insertions, then a
        # deletion with Pi^k Pd or a transmission with Pi^k Pt)
        for chp in ((0.0, 0.2, 0.1), (0.15, 0.1, 0.05), (0.2, 0.0, 0.0), (0.1, 0.1, 0.0)):
            Pi, Pd, Ps = chp
            x = [1, 0, 1]
            Rmax = 12
            one = np.zeros(Rmax + 1)
            for r in range(Rmax + 1):
                one[r] = Pi ** r * Pd + (Pi ** (r - 1) * (1 - Pi - Pd) if r else 0.0)
            law = np.array([1.0])
            for _ in x:
                law = np.convolve(law, one)[:Rmax + 1]
            for R in range(Rmax + 1):
                total = sum(channel_prefix(x, list(y), *chp)[R]
                            for y in itertools.product((0, 1), repeat=R))
                self.assertAlmostEqual(total, law[R], delta=1e-15)
        # the encoder
        for spec in (CODE_A, CODE_B):
            cb, n, books = self.make_code(spec)
            for D in itertools.product(range(2), repeat=3):
                np.testing.assert_array_equal(cb.encode(np.array(D)), encode(books, n, D))
        # the plain case (no sync word, start 0, known end) is decode
        for spec in (CODE_A, CODE_B):
            cb, n, books = self.make_code(spec)
            chp = (0.1, 0.08, 0.05)
            for seed in range(3):
                rx = self.segment(spec, 3, chp, "", [1, 0, 1], 0, 0, seed)[:-1]
                ref = reference(books, n, 3, chp, "", rx)
                dec = covering(cb, chp, 3, "", len(rx))
                np.testing.assert_allclose(dec.decode(np.array(rx, np.uint8)),
                                           ref["posteriors"], rtol=0, atol=TOL)

    # -- the corners -----------------------------------------------------------

    def test_001_time_varying_code_lookahead_beyond_period(self):
        # P = 2 books, K = 0..3 (K = 3 > P: the next frame's books wrap around)
        chp = (0.1, 0.08, 0.05)
        N = 3
        for sync in ("", "1", "01101"):
            rx = self.segment(CODE_B, N, chp, sync, [1, 0, 1], 2, 3, 5 + len(sync))
            start = {0: 1.0, 1: 2.0, 2: 0.0, 3: 0.5}
            for K in (0, 1, 2, 3):
                self.run_case(CODE_B, N, chp, sync, rx, start, "free", K,
                              what="P=2 sync=%r K=%d" % (sync, K))

    def test_002_sync_words_known_end(self):
        chp = (0.1, 0.1, 0.03)
        for spec in (CODE_A, CODE_B):
            for sync in ("1", "0", "01101"):
                rx = self.segment(spec, 2, chp, sync, [0, 1], 1, 0, 11)[:-1]
                self.run_case(spec, 2, chp, sync, rx, {0: 1.0, 1: 1.0}, "known",
                              what="known end sync=%r" % sync)
                self.run_case(spec, 2, chp, sync, rx, None, "known",
                              what="known end start 0 sync=%r" % sync)

    def test_003_starts_at_the_end_of_the_segment(self):
        # s = L (every bit of the frame deleted) and s = L - 1, zero weights between
        chp = (0.1, 0.2, 0.05)
        for spec in (CODE_A, CODE_B):
            for sync in ("", "1", "01101"):
                rx = self.segment(spec, 2, chp, sync, [1, 1], 0, 1, 3)
                L = len(rx)
                for start in ({L: 1.0}, {L - 1: 1.0}, {L - 1: 1.0, L: 3.0},
                              {0: 1e-3, L - 2: 0.0, L - 1: 1.0, L: 1.0}):
                    for end, K in (("known", 0), ("free", 0), ("free", 1), ("free", 2)):
                        self.run_case(spec, 2, chp, sync, rx, start, end, K,
                                      what="late start %s %s K=%d sync=%r" %
                                      (start, end, K, sync))

    def test_004_empty_segment(self):
        # L = 0: the frame and the look-ahead are all deleted
        chp = (0.1, 0.3, 0.05)
        for spec in (CODE_A, CODE_B):
            for sync in ("", "1", "01101"):
                for K in (0, 1, 2):
                    ref = self.run_case(spec, 2, chp, sync, [], None, "free", K,
                                        what="empty K=%d sync=%r" % (K, sync))
                    self.assertGreater(ref["total"], 0)
        # with no deletions an empty segment is impossible: a status, not an error
        cb, n, books = self.make_code(CODE_A)
        dec = covering(cb, (0.1, 0.0, 0.0), 2, "", 0)
        res = dec.decode_frame(np.zeros(0, np.uint8), end="free")
        self.assertNotEqual(res.status, "ok")
        self.assertEqual(np.sum(res.end_posterior), 0.0)

    def test_005_log_priors_with_minus_infinity(self):
        chp = (0.1, 0.08, 0.05)
        N = 3
        rng = np.random.default_rng(2)
        for spec in (CODE_A, CODE_B):
            for sync in ("", "01101"):
                rx = self.segment(spec, N, chp, sync, [0, 1, 1], 1, 2, 21)
                for trial in range(3):
                    lp = rng.normal(0, 2, (N, 2)) + rng.normal(0, 50, (N, 1))
                    # a -inf in some rows (never a whole row)
                    lp[trial % N, trial % 2] = -np.inf
                    if trial == 2:
                        lp[0, 1] = -np.inf
                        lp[0, 0] = 700.0  # a constant per row is nothing
                    rows = np.exp(lp - lp.max(axis=1, keepdims=True))
                    for end, K in (("known", 0), ("free", 0), ("free", 2)):
                        seg = rx[:-1] if end == "known" else rx
                        self.run_case(spec, N, chp, sync, seg, {0: 1.0, 1: 1.0, 2: 1.0},
                                      end, K, prior_rows=rows, log_priors=lp,
                                      what="log priors trial %d %s K=%d" % (trial, end, K))
                    # the same priors as probabilities
                    self.run_case(spec, N, chp, sync, rx, {0: 1.0, 2: 1.0}, "free", 1,
                                  prior_rows=rows, what="priors trial %d" % trial)

    def test_006_zero_probability_paths(self):
        # Ps = 0 (a mismatch is impossible), Pi = 0 (no insertion), Pd = 0 (no deletion)
        N = 2
        for chp in ((0.1, 0.1, 0.0), (0.0, 0.15, 0.05), (0.15, 0.0, 0.05),
                    (0.0, 0.2, 0.0), (0.2, 0.0, 0.0)):
            for spec in (CODE_A, CODE_B):
                for sync in ("", "1", "01101"):
                    rx = self.segment(spec, N, chp, sync, [1, 0], 2, 2, 31)
                    L = len(rx)
                    start = {0: 1.0, 1: 1.0, 2: 1.0, 3: 0.0, L - 1: 0.5}
                    for end, K in (("known", 0), ("free", 0), ("free", 1), ("free", 2)):
                        self.run_case(spec, N, chp, sync, rx, start, end, K,
                                      what="channel %s %s K=%d sync=%r" % (chp, end, K, sync))
        # an impossible frame: no deletions, and a start too late for any end
        cb, n, books = self.make_code(CODE_A)
        rx = [0, 1, 1, 0, 1]
        ref = self.run_case(CODE_A, 2, (0.1, 0.0, 0.0), "1", rx, {4: 1.0}, "free", 0,
                            what="impossible")
        self.assertEqual(ref["total"], 0.0)

    def test_007_decode_frames_per_frame_start_priors(self):
        chp = (0.1, 0.08, 0.05)
        N = 3
        for spec in (CODE_A, CODE_B):
            cb, n, books = self.make_code(spec)
            for sync in ("1", "01101"):
                segs = [self.segment(spec, N, chp, sync, list(m), b, 1, 40 + k)
                        for k, (m, b) in enumerate((([1, 0, 0], 0), ([0, 1, 1], 2),
                                                    ([1, 1, 0], 1), ([0, 0, 1], 0)))]
                Lmax = max(len(s) for s in segs)
                priors = [None, {0: 1.0, 1: 0.0, 2: 4.0},
                          (np.array([3, 0, 1]), np.array([1.0, 2.0, 0.0])),
                          {len(segs[3]): 1.0, len(segs[3]) - 1: 1.0, 0: 1.0}]
                starts = [None, priors[1], {3: 1.0, 0: 2.0, 1: 0.0}, priors[3]]
                for backend in backends():
                    for storage in ("global", "local"):
                        dec = covering(cb, chp, N, sync, Lmax, backend=backend,
                                       storage=storage)
                        for K in (0, 1):
                            got = dec.decode_frames([np.array(s, np.uint8) for s in segs],
                                                    start_priors=priors, end="free",
                                                    lookahead=K)
                            self.assertEqual(len(got), len(segs))
                            for k, (seg, st, res) in enumerate(zip(segs, starts, got)):
                                ref = reference(books, n, N, chp, sync, seg, st, "free", K)
                                self.check(res, ref, len(seg), st, "free",
                                           what="decode_frames frame %d K=%d sync=%r"
                                           % (k, K, sync))
                                one = dec.decode_frame(np.array(seg, np.uint8),
                                                       start_prior=priors[k], end="free",
                                                       lookahead=K)
                                np.testing.assert_array_equal(one.posteriors, res.posteriors)
                                np.testing.assert_array_equal(one.end_posterior,
                                                              res.end_posterior)

    def test_008_float_near_double_on_the_corners(self):
        chp = (0.1, 0.08, 0.05)
        N = 3
        rx = self.segment(CODE_B, N, chp, "01101", [1, 0, 1], 2, 3, 9)
        cb, n, books = self.make_code(CODE_B)
        L = len(rx)
        start = {0: 1.0, 1: 1.0, 2: 0.0, 3: 1.0, L: 1.0}
        for K in (0, 3):
            ref = reference(books, n, N, chp, "01101", rx, start, "free", K)
            for backend in backends():
                dec = covering(cb, chp, N, "01101", L, backend=backend, precision="float")
                res = dec.decode_frame(np.array(rx, np.uint8), start_prior=start,
                                       end="free", lookahead=K)
                self.check(res, ref, L, start, "free", tol=1e-4, what="float K=%d" % K)

    # -- a real code -------------------------------------------------------------

    def test_009_invariants_on_a_real_code(self):
        cb = bsid.codebook.builtin("ld3-modvec6")
        ch = bsid.channel_params(0.01, 0.01, 0.0)
        N = 20
        sync = "0110100111010010"
        rng = np.random.default_rng(17)
        segs, msgs = [], []
        for k in range(3):
            m = rng.integers(0, cb.q, N)
            tx = np.concatenate([np.array(bits_of(sync), np.uint8), cb.encode(m)])
            nxt = np.concatenate([np.array(bits_of(sync), np.uint8),
                                  cb.encode(rng.integers(0, cb.q, N))])
            rx = bsid.transmit(ch, tx, 23, frame=2 * k)[0]
            rxn = bsid.transmit(ch, nxt, 23, frame=2 * k + 1)[0]
            segs.append(np.concatenate([rng.integers(0, 2, 4).astype(np.uint8), rx, rxn]))
            msgs.append(m)
        starts = {s: 1.0 for s in range(0, 9)}
        starts[2] = 0.0
        lp = rng.normal(0, 1, (N, cb.q))
        lp[3, :5] = -np.inf
        for backend in backends():
            outs = {}
            for precision in ("float", "double"):
                for storage in ("global", "local"):
                    dec = bsid.map_decoder_core(cb, ch, N, backend=backend,
                                                precision=precision, storage=storage,
                                                sync_word=sync)
                    for K in (0, 2):
                        for use_priors in (False, True):
                            for k, seg in enumerate(segs):
                                kw = dict(start_prior=starts, end="free", lookahead=K)
                                if use_priors:
                                    kw["log_priors"] = lp
                                res = dec.decode_frame(seg, **kw)
                                what = "%s %s %s K=%d priors=%s frame %d" % (
                                    backend, precision, storage, K, use_priors, k)
                                self.assertEqual(res.status, "ok", what + " " + res.reason)
                                np.testing.assert_allclose(res.posteriors.sum(axis=1), 1.0,
                                                           rtol=0, atol=1e-12, err_msg=what)
                                self.assertTrue(np.all(res.posteriors >= 0), what)
                                for v in (res.start_posterior, res.end_posterior,
                                          res.end_forward):
                                    self.assertTrue(np.all(v >= 0), what)
                                    self.assertAlmostEqual(float(np.sum(v)), 1.0, places=12,
                                                           msg=what)
                                np.testing.assert_array_equal(res.start_positions,
                                                              sorted(starts))
                                self.assertEqual(res.start_posterior[2], 0.0, what)
                                if use_priors:
                                    np.testing.assert_array_equal(res.posteriors[3, :5], 0.0)
                                else:
                                    np.testing.assert_array_equal(
                                        bsid.hard_decisions(res.posteriors), msgs[k])
                                    self.assertEqual(
                                        res.start_positions[np.argmax(res.start_posterior)],
                                        4, what)
                                outs[(precision, storage, K, use_priors, k)] = res
            for (precision, storage, K, use_priors, k), res in outs.items():
                what = "%s %s %s K=%d priors=%s frame %d" % (backend, precision, storage,
                                                              K, use_priors, k)
                if storage == "local":
                    g = outs[(precision, "global", K, use_priors, k)]
                    np.testing.assert_array_equal(res.posteriors, g.posteriors, err_msg=what)
                    np.testing.assert_array_equal(res.start_posterior, g.start_posterior,
                                                  err_msg=what)
                    np.testing.assert_array_equal(res.end_positions, g.end_positions,
                                                  err_msg=what)
                    np.testing.assert_array_equal(res.end_posterior, g.end_posterior,
                                                  err_msg=what)
                    np.testing.assert_array_equal(res.end_forward, g.end_forward,
                                                  err_msg=what)
                if precision == "float":
                    d = outs[("double", storage, K, use_priors, k)]
                    np.testing.assert_allclose(res.posteriors, d.posteriors, rtol=0,
                                               atol=1e-4, err_msg=what)
                    np.testing.assert_allclose(res.start_posterior, d.start_posterior,
                                               rtol=0, atol=1e-4, err_msg=what)
                    np.testing.assert_array_equal(res.end_positions, d.end_positions,
                                                  err_msg=what)
                    np.testing.assert_allclose(res.end_posterior, d.end_posterior, rtol=0,
                                               atol=1e-4, err_msg=what)
                    np.testing.assert_allclose(res.end_forward, d.end_forward, rtol=0,
                                               atol=1e-4, err_msg=what)


if __name__ == "__main__":
    unittest.main(verbosity=2)
