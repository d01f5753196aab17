#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Soft input from Python (map_decoder_core(..., input="llr"); docs/design.md
section 3, "Soft input"): the APPs of tiny codes against a reference written
here in plain Python, the identities that tie LLRs to hard bits (decode,
decode_batch, decode_frame with a sync word and a free end, stream_decoder),
and bad input (NaN, wrong dtypes and shapes, +-1e30).

The reference: received item j is an LLR l_j; w_j(1) = 1 / (1 + e^-l_j),
w_j(0) = 1 / (1 + e^l_j); sending bit x and receiving item j weighs
Pt ((1 - Ps) w_j(x) + Ps w_j(1 - x)), an insertion Pi / 2 and a deletion Pd.
"""

import itertools
import math
import unittest

import numpy as np

import bsid_core as bsid
from qa_backends import backends  # this directory


def item_weights(llr):
    """(w(0), w(1)) of each LLR, each computed directly."""
    with np.errstate(over="ignore"):
        w1 = 1.0 / (1.0 + np.exp(-llr))
        w0 = 1.0 / (1.0 + np.exp(llr))
    return w0, w1


def soft_channel(x, llr, Pi, Pd, Ps):
    """P(x received as the items llr), the lattice with soft diagonal weights."""
    Pt = 1.0 - Pi - Pd
    w0, w1 = item_weights(np.asarray(llr, dtype=np.float64))
    R = len(llr)
    f = np.zeros(R + 1)
    f[0] = 1.0
    for xb in x:
        h = np.empty(R + 1)
        acc = 0.0
        for j in range(R + 1):  # insertions before this bit
            acc = f[j] + 0.5 * Pi * acc
            h[j] = acc
        g = Pd * h
        if R:
            wx, wn = (w1, w0) if xb else (w0, w1)
            g[1:] += Pt * ((1 - Ps) * wx + Ps * wn) * h[:-1]
        f = g
    return f[R]


def soft_app(books, n, N, chp, llr):
    """The exact APPs of a tagged frame (start 0, known end) by enumeration."""
    q = len(books[0])
    post = np.zeros((N, q))
    for D in itertools.product(range(q), repeat=N):
        x = []
        for i, d in enumerate(D):
            w = books[i % len(books)][d]
            x.extend((w >> (n - 1 - b)) & 1 for b in range(n))
        p = soft_channel(x, llr, *chp)
        for i, d in enumerate(D):
            post[i, d] += p
    return post / post.sum(axis=1, keepdims=True)


class qa_soft_input(unittest.TestCase):

    def test_000_tiny_codes_against_the_reference(self):
        rng = np.random.default_rng(11)
        cases = 0
        for trial in range(12):
            n = int(rng.integers(2, 4))
            q = int(rng.integers(2, 4))
            P = int(rng.integers(1, 3))
            N = int(rng.integers(1, 4))
            books = [list(rng.choice(1 << n, q, replace=False)) for _ in range(P)]
            cb = bsid.codebook(n, [[int(w) for w in b] for b in books])
            chp = (0.25 * rng.random(), 0.25 * rng.random(),
                   0.0 if trial % 3 == 0 else 0.2 * rng.random())
            rho = N * n + int(rng.integers(-1, 3))
            llr = rng.normal(0, 3, rho)
            hard = rng.random(rho) < 0.1  # a few hard items
            llr[hard] = np.where(llr[hard] > 0, np.inf, -np.inf)
            ref = soft_app(books, n, N, chp, llr)
            for backend in backends():
                for precision, tol in (("double", 1e-9), ("float", 1e-4)):
                    dec = bsid.map_decoder_core(cb, bsid.channel_params(*chp), N,
                                                backend=backend, precision=precision,
                                                mtau=(-N * n, rho), mn=(-n, rho),
                                                input="llr")
                    for arr in (llr, llr.astype(np.float32)):
                        if arr.dtype == np.float32 and precision == "double":
                            continue  # the reference is exact on float64 LLRs
                        got = dec.decode(arr)
                        np.testing.assert_allclose(got, ref, rtol=0, atol=tol,
                                                   err_msg="trial %d %s %s" %
                                                   (trial, backend, precision))
                        cases += 1
        self.assertGreater(cases, 20)

    def test_001_infinite_llrs_are_hard_bits(self):
        cb = bsid.codebook.from_spec("builtin:ld3-modvec6")
        ch = bsid.channel_params(0.01, 0.01, 0.01)
        N = 30
        src = bsid.frame_source(cb, ch, N, 3)
        batch = src.generate(0, 4)
        for backend in backends():
            for precision, tol in (("double", 1e-12), ("float", 1e-6)):
                hard = bsid.map_decoder_core(cb, ch, N, backend=backend, precision=precision)
                soft = bsid.map_decoder_core(cb, ch, N, backend=backend, precision=precision,
                                             input="llr")
                self.assertEqual(soft.input, "llr")
                self.assertEqual(hard.input, "bits")
                rx = [batch.rx(k) for k in range(4)]
                llr = [np.where(r == 1, np.inf, -np.inf) for r in rx]
                big = [np.where(r == 1, 1e30, -1e30).astype(np.float32) for r in rx]
                want = hard.decode_batch(rx)
                for got in (soft.decode_batch(llr), soft.decode_batch(big)):
                    for g, w in zip(got, want):
                        np.testing.assert_allclose(g, w, rtol=0, atol=tol)
                np.testing.assert_allclose(soft.decode(llr[0]), want[0], rtol=0, atol=tol)

    def test_002_crossover_identity(self):
        # hard bits through Ps equal LLRs of +-ln((1 - Ps) / Ps) through Ps = 0
        cb = bsid.codebook.from_spec("builtin:ld3-modvec6")
        N = 20
        for Ps in (0.02, 0.1):
            ch = bsid.channel_params(0.02, 0.01, Ps)
            rx = bsid.frame_source(cb, ch, N, 5).generate(0, 1).rx(0)
            llr = np.where(rx == 1, 1.0, -1.0) * math.log((1 - Ps) / Ps)
            for backend in backends():
                a = bsid.map_decoder_core(cb, ch, N, backend=backend, precision="double",
                                          mtau=(-10, 10), mn=(-3, 4)).decode(rx)
                b = bsid.map_decoder_core(cb, bsid.channel_params(0.02, 0.01, 0.0), N,
                                          backend=backend, precision="double",
                                          mtau=(-10, 10), mn=(-3, 4),
                                          input="llr").decode(llr)
                np.testing.assert_allclose(b, a, rtol=0, atol=1e-12)

    def test_003_frame_boundaries_and_streams(self):
        cb = bsid.codebook.from_spec("builtin:ld3-modvec6")
        ch = bsid.channel_params(0.01, 0.01, 0.0)
        W = "0110100111010010"
        N = 20
        src = bsid.frame_source(cb, ch, N, 9, sync_word=W)
        batch = src.generate(0, 6)
        stream = np.concatenate([batch.rx(k) for k in range(6)])
        llr = np.where(stream == 1, 7.5, -7.5)  # confident, not hard
        hard = bsid.map_decoder_core(cb, ch, N, sync_word=W, backend="cpu",
                                     precision="double")
        soft = bsid.map_decoder_core(cb, ch, N, sync_word=W, backend="cpu",
                                     precision="double", input="llr")
        seg = stream[:400]
        kw = dict(start_prior={0: 1, 1: 1}, end="free", lookahead=1)
        r = soft.decode_frame(np.where(seg == 1, np.inf, -np.inf), **kw)
        self.assertEqual(r.status, "ok", r.reason)
        h = hard.decode_frame(seg, **kw)
        np.testing.assert_allclose(r.posteriors, h.posteriors, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(r.end_positions, h.end_positions)
        np.testing.assert_allclose(r.end_posterior, h.end_posterior, rtol=0, atol=1e-12)
        np.testing.assert_allclose(r.start_posterior, h.start_posterior, rtol=0, atol=1e-12)
        # a stream of LLRs, in chunks of 1 and 97 items: the same frames
        outs = []
        for chunk in (1, 97):
            sd = bsid.stream_decoder(soft)
            got = []
            for at in range(0, len(llr), chunk):
                got += sd.push(llr[at:at + chunk].astype(np.float32))
            got += sd.flush()
            self.assertEqual(len(got), 6)
            self.assertTrue(all(f.status == "ok" for f in got), [f.status for f in got])
            outs.append(got)
        for a, b in zip(*outs):
            np.testing.assert_array_equal(a.posteriors, b.posteriors)
        with self.assertRaises(TypeError):
            bsid.stream_decoder(soft).push(np.array([1 + 2j]))

    def test_004_bad_input(self):
        cb = bsid.codebook.from_spec("builtin:ld3-modvec6")
        ch = bsid.channel_params(0.01, 0.01, 0.01)
        N = 10
        soft = bsid.map_decoder_core(cb, ch, N, backend="cpu", input="llr")
        rx = bsid.frame_source(cb, ch, N, 1).generate(0, 1).rx(0)
        good = np.where(rx == 1, 3.0, -3.0)
        bad = good.copy()
        bad[7] = np.nan
        with self.assertRaises(bsid.FrameRefused) as cm:
            soft.decode(bad)
        self.assertEqual(cm.exception.status, "invalid_input")
        self.assertIn("NaN", str(cm.exception))
        posts, stats = soft.decode_batch([good, bad, good], statuses=True)
        self.assertIsNone(posts[1])
        self.assertEqual(stats[1][0], "invalid_input")
        np.testing.assert_array_equal(posts[0], posts[2])
        res = soft.decode_frame(bad)
        self.assertEqual(res.status, "invalid_input")
        self.assertTrue(np.all(np.isfinite(res.posteriors)))
        for wrong in (np.array([1 + 1j, 2.0]), np.array([True, False]), np.array(["a"])):
            with self.assertRaises(TypeError):
                soft.decode(wrong)
        with self.assertRaises(ValueError):
            soft.decode(np.zeros((2, 40)))
        with self.assertRaises(ValueError):
            bsid.map_decoder_core(cb, ch, N, input="soft")
        # an empty frame is refused as it is with bits
        with self.assertRaises(bsid.FrameRefused):
            soft.decode(np.zeros(0))
        # LLRs where bits are expected: the bits decoder refuses non-integers
        hard = bsid.map_decoder_core(cb, ch, N, backend="cpu")
        with self.assertRaises(TypeError):
            hard.decode(good)


if __name__ == "__main__":
    unittest.main()
