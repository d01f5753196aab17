#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The Python decoder API (map_decoder_core): shapes, statuses, errors, and
the posteriors of a tiny code against a brute-force APP written here.

Every test runs on the CPU backend, and on the CUDA backend too where a GPU
is usable: backend "auto" would test the GPU alone there and leave the CPU
unchecked. Set BSID_TEST_BACKEND ("cpu" or "cuda") to test one backend only
(the tests are skipped when it cannot be built here)."""

import itertools
import os
import random
import sys
import threading
import unittest

import numpy as np

import bsid_core as bsid


def cuda_usable():
    """(True, "") where a decoder with backend "cuda" can be built, else (False, why)."""
    try:
        bsid.map_decoder_core(bsid.codebook.sparse(4, 4), bsid.channel_params(0.01, 0.01, 0), 2,
                              backend="cuda")
    except RuntimeError as e:
        return False, str(e)
    return True, ""


CUDA_USABLE, CUDA_WHY = cuda_usable()


def backends_under_test():
    """BSID_TEST_BACKEND if set, else "cpu", and "cuda" where a GPU is usable."""
    chosen = os.environ.get("BSID_TEST_BACKEND")
    if chosen:
        return [chosen]
    return ["cpu", "cuda"] if CUDA_USABLE else ["cpu"]


def lattice_R(ch, x, y):
    """R(y|x) over the full lattice (eqn:F, eqn:F_lastrow), plain Python."""
    n, L = len(x), len(y)
    F = [[0.0] * (L + 1) for _ in range(n + 1)]
    F[0][0] = 1.0
    for r in range(n + 1):
        for c in range(L + 1):
            if r == 0 and c == 0:
                continue
            v = 0.0
            if c > 0 and r < n:
                v += ch.Pi / 2 * F[r][c - 1]
            if r > 0:
                v += ch.Pd * F[r - 1][c]
            if r > 0 and c > 0:
                v += ch.Pt * ((1 - ch.Ps) if y[c - 1] == x[r - 1] else ch.Ps) * F[r - 1][c - 1]
            F[r][c] = v
    return F[n][L]


def brute_force(cb, ch, N, y, priors=None, extrinsic=False):
    """The APPs (or, with extrinsic, each symbol's posterior without its own prior)."""
    app = np.zeros((N, cb.q))
    for msg in itertools.product(range(cb.q), repeat=N):
        w = lattice_R(ch, list(cb.encode(list(msg))), list(y))
        for i, d in enumerate(msg):
            if priors is None:
                app[i, d] += w
            else:
                app[i, d] += w * np.prod([priors[j][e] for j, e in enumerate(msg)
                                          if j != i or not extrinsic])
    return app / app.sum(axis=1, keepdims=True)


class qa_map_decoder(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.backends = backends_under_test()
        for backend in cls.backends:
            try:
                bsid.map_decoder_core(bsid.codebook.sparse(4, 4),
                                      bsid.channel_params(0.01, 0.01, 0), 2, backend=backend)
            except RuntimeError as e:
                raise unittest.SkipTest("backend %s cannot be built here: %s" % (backend, e))
        # say which backends ran, and why not CUDA: never a silent CPU-only run
        note = ""
        if "cuda" not in cls.backends and not os.environ.get("BSID_TEST_BACKEND"):
            note = " (cuda not tested: %s)" % CUDA_WHY
        print("qa_map_decoder: backends %s%s" % (", ".join(cls.backends), note), file=sys.stderr)

    def decoder(self, backend, **kw):
        """The decoder of setUp's code, channel and N on one backend."""
        dec = bsid.map_decoder_core(self.cb, self.ch, self.N, backend=backend, **kw)
        if backend != "auto":
            self.assertEqual(dec.backend, backend)
        return dec

    def setUp(self):
        self.cb = bsid.codebook.builtin("ld3-modvec6")
        self.ch = bsid.channel_params(0.01, 0.01, 0.01)
        self.N = 40
        rng = np.random.default_rng(5)
        self.msg = rng.integers(0, 16, self.N)
        self.rx, _ = bsid.transmit(self.ch, self.cb.encode(self.msg), seed=3)

    def test_001_api_and_shapes(self):
        # "auto": the GPU where there is one, else the CPU
        auto = bsid.map_decoder_core(self.cb, self.ch, self.N)
        self.assertEqual(auto.backend, "cuda" if CUDA_USABLE else "cpu")
        for backend in self.backends:
            with self.subTest(backend=backend):
                dec = self.decoder(backend)
                self.assertEqual((dec.N, dec.n, dec.q, dec.tau), (40, 8, 16, 320))
                self.assertIn(dec.storage, ("global", "local"))
                self.assertEqual(dec.precision, "float")
                self.assertEqual(dec.limits, bsid.decoder_limits(self.N, 8, 0.01, 0.01))
                self.assertEqual(dec.codebook, self.cb)
                post = dec.decode(self.rx)
                self.assertEqual(post.shape, (40, 16))
                self.assertEqual(post.dtype, np.float64)
                np.testing.assert_allclose(post.sum(axis=1), 1.0, atol=1e-12)
                # a good channel: the MAP decisions recover the message
                np.testing.assert_array_equal(bsid.hard_decisions(post), self.msg)
                self.assertIn("map_decoder_core(N=40", repr(dec))
                self.assertIn("backend='%s'" % dec.backend, repr(dec))
                self.assertGreater(dec.cells_per_frame, 0)
                if dec.backend == auto.backend:
                    np.testing.assert_array_equal(auto.decode(self.rx), post)

    def test_002_matches_brute_force(self):
        rng = random.Random(7)
        compared = 0
        for trial in range(6):
            n, q, N = rng.choice([(3, 4, 2), (2, 3, 3), (4, 4, 2), (3, 2, 4)])
            cb = bsid.codebook.random(n, q, 2, rng.randrange(1000))
            ch = bsid.channel_params(rng.uniform(0, 0.2), rng.uniform(0, 0.2), rng.uniform(0, 0.1))
            msg = [rng.randrange(q) for _ in range(N)]
            y, _ = bsid.transmit(ch, cb.encode(msg), seed=trial)
            if len(y) == 0:
                continue
            priors = None
            if trial % 2:
                priors = np.array([[rng.uniform(0.1, 1) for _ in range(q)] for _ in range(N)])
            want = brute_force(cb, ch, N, y, priors)
            wide = dict(mtau=(-N * n, len(y)), mn=(-n, len(y)))
            for backend in self.backends:
                for precision, tol in (("double", 1e-9), ("float", 1e-4)):
                    for storage in ("global", "local"):
                        dec = bsid.map_decoder_core(cb, ch, N, backend=backend,
                                                    precision=precision, storage=storage, **wide)
                        self.assertEqual(dec.backend, backend)
                        got = dec.decode(y, priors)  # raises FrameRefused if refused
                        self.assertLess(np.abs(got - want).max(), tol,
                                        (trial, backend, precision, storage))
                        compared += 1
        # every trial but an empty frame's is compared: a test that compares
        # nothing tests nothing
        self.assertGreaterEqual(compared, 5 * len(self.backends) * 2 * 2)

    def test_003_refused_frames(self):
        for backend in self.backends:
            with self.subTest(backend=backend):
                self.refused_frames(backend)

    def refused_frames(self, backend):
        dec = self.decoder(backend, precision="double")
        # the frame itself decodes: the refusals below are the edits' doing
        np.testing.assert_array_equal(bsid.hard_decisions(dec.decode(self.rx)), self.msg)
        cases = {
            "empty": np.zeros(0, dtype=np.uint8),
            "invalid_input": np.concatenate([self.rx[:10], [2], self.rx[11:]]).astype(np.uint8),
            "drift_out_of_range": np.concatenate([self.rx, np.zeros(300, dtype=np.uint8)]),
        }
        for status, frame in cases.items():
            with self.subTest(status=status):
                with self.assertRaises(bsid.FrameRefused) as cm:
                    dec.decode(frame)
                self.assertEqual(cm.exception.status, status)
                self.assertIsInstance(cm.exception, ValueError)
        with self.assertRaisesRegex(ValueError, "received value 300 at position 1"):
            dec.decode([0, 300, 1])
        # probability 0: a perfect channel cannot produce a non-codeword
        cb = bsid.codebook(3, [[0, 7]])
        for precision in ("double", "float"):
            d0 = bsid.map_decoder_core(cb, bsid.channel_params(0, 0, 0), 2, backend=backend,
                                       precision=precision)
            with self.assertRaises(bsid.FrameRefused) as cm:
                d0.decode([1, 0, 1, 0, 0, 0])
            self.assertEqual(cm.exception.status, "impossible")
            np.testing.assert_array_equal(d0.decode([1, 1, 1, 0, 0, 0]), [[0, 1], [1, 0]])

    def test_004_batch(self):
        for backend in self.backends:
            with self.subTest(backend=backend):
                self.batch(backend)

    def batch(self, backend):
        dec = self.decoder(backend, threads=2)
        frames = [self.rx, np.zeros(0, dtype=np.uint8), self.rx.astype(np.int64), [0, 5, 1],
                  np.concatenate([self.rx, np.ones(500, dtype=np.uint8)])]
        posts = dec.decode_batch(frames)
        self.assertEqual(len(posts), 5)
        np.testing.assert_array_equal(posts[0], dec.decode(self.rx))
        np.testing.assert_array_equal(posts[2], posts[0])
        self.assertIsNone(posts[1])
        self.assertIsNone(posts[3])
        self.assertIsNone(posts[4])
        np.testing.assert_array_equal(bsid.hard_decisions(posts[0]), self.msg)
        posts, stats = dec.decode_batch(frames, statuses=True)
        self.assertEqual([s for s, _ in stats],
                         ["ok", "empty", "ok", "invalid_input", "drift_out_of_range"])
        self.assertEqual(stats[0][1], "")
        # priors: shared, or per frame
        pri = np.full((self.N, 16), 1.0)
        pri[0, :] = 0
        pri[0, self.msg[0]] = 1
        shared = dec.decode_batch([self.rx, self.rx], priors=pri)
        self.assertEqual(shared[0][0, self.msg[0]], 1.0)
        per = dec.decode_batch([self.rx, self.rx], priors=[pri, None])
        np.testing.assert_array_equal(per[0], shared[0])
        np.testing.assert_array_equal(per[1], posts[0])
        with self.assertRaisesRegex(ValueError, "2 entries for 1 frames"):
            dec.decode_batch([self.rx], priors=[None, None])

    def test_005_invalid_priors_and_limits(self):
        for backend in self.backends:
            with self.subTest(backend=backend):
                self.invalid_priors_and_limits(backend)

    def invalid_priors_and_limits(self, backend):
        dec = self.decoder(backend)
        good = np.ones((self.N, 16))
        for bad, fragment in ((np.ones((self.N, 15)), r"shape \(N, q\) = \(40, 16\)"),
                              (np.ones(16), r"got \(16,\)"),
                              (-good, "priors\\[0\\]\\[0\\] = -1"),
                              (np.where(np.eye(self.N, 16) > 0, np.nan, 1.0), "= nan"),
                              (np.zeros((self.N, 16)), "priors row 0 sums to 0")):
            with self.subTest(fragment=fragment):
                with self.assertRaisesRegex(ValueError, fragment):
                    dec.decode(self.rx, bad)
                with self.assertRaisesRegex(ValueError, fragment):
                    dec.decode_batch([self.rx], priors=[bad])
        post = dec.decode(self.rx, good * 3.0)  # not normalized: fine
        np.testing.assert_allclose(post, dec.decode(self.rx), atol=1e-6)
        np.testing.assert_array_equal(bsid.hard_decisions(post), self.msg)
        for kw in (dict(mtau=(-50, 50), mn=(1, 4)), dict(mtau=(-50, 50), mn=(-4, -1)),
                   dict(mtau=(3, -3)), dict(mtau=(1, 30)), dict(mtau=(-30, -1))):
            with self.subTest(kw=kw):
                with self.assertRaisesRegex(ValueError, r"limits m(tau|n) = \[-?\d+, -?\d+\] "
                                                        r"must hold 0 \(lo <= 0 <= hi\)"):
                    self.decoder(backend, **kw)
        # m_n bounds a drift change, not a drift: it may be wider than m_tau
        for mtau, mn in (((-5, 5), (-6, 2)), ((-5, 5), (-2, 9))):
            dec = self.decoder(backend, mtau=mtau, mn=mn)
            self.assertEqual(dec.limits, {"mtau": mtau, "mn": mn})
        with self.assertRaises(TypeError):
            self.decoder(backend, mtau=5)
        for kw in (dict(precision="half"), dict(storage="disk"),
                   dict(Pr=0.0), dict(Pr=2.0), dict(threads=-1)):
            with self.subTest(kw=kw):
                with self.assertRaises(ValueError):
                    self.decoder(backend, **kw)
        # the CUDA lanes: 0 (the default) to 8, refused outside on every backend
        for lanes in (-1, 9):
            with self.subTest(cuda_streams=lanes):
                with self.assertRaisesRegex(ValueError, "cuda_streams = %d" % lanes):
                    self.decoder(backend, cuda_streams=lanes)
        for lanes in (1, 8):
            np.testing.assert_array_equal(
                bsid.hard_decisions(self.decoder(backend, cuda_streams=lanes).decode(self.rx)),
                self.msg)
        # G by position or by index (CUDA; the CPU takes neither): the same posteriors
        by_index = self.decoder(backend, share_g=False).decode(self.rx)
        np.testing.assert_array_equal(self.decoder(backend, share_g=True).decode(self.rx),
                                      by_index)
        np.testing.assert_array_equal(bsid.hard_decisions(by_index), self.msg)
        with self.assertRaises(ValueError):
            bsid.map_decoder_core(self.cb, self.ch, self.N, backend="gpu")
        with self.assertRaises(ValueError):
            bsid.map_decoder_core(self.cb, self.ch, 0, backend=backend)
        dec = self.decoder(backend, mtau=(-30, 30), mn=(-4, 5))
        self.assertEqual(dec.limits, {"mtau": (-30, 30), "mn": (-4, 5)})
        np.testing.assert_array_equal(bsid.hard_decisions(dec.decode(self.rx)), self.msg)

    def test_006_threads_share_a_decoder(self):
        for backend in self.backends:
            with self.subTest(backend=backend):
                self.threads_share_a_decoder(backend)

    def threads_share_a_decoder(self, backend):
        dec = self.decoder(backend)
        want = dec.decode(self.rx)
        np.testing.assert_array_equal(bsid.hard_decisions(want), self.msg)
        errors = []

        def worker():
            try:
                for _ in range(5):
                    np.testing.assert_array_equal(dec.decode(self.rx), want)
            except Exception as e:  # pragma: no cover
                errors.append(e)

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])

    def test_007_hard_decisions(self):
        post = np.array([[0.1, 0.4, 0.4, 0.1], [0.25, 0.25 * (1 + 1e-13), 0.25, 0.25],
                         [0.1, 0.2, 0.3 * (1 + 1e-9), 0.3]])
        np.testing.assert_array_equal(bsid.hard_decisions(post), [1, 0, 2])

    def test_008_extrinsic(self):
        # decode(extrinsic=True) against the brute-force extrinsic (the
        # posterior without the symbol's own prior), with probability and log
        # priors, one frame and a batch; without priors it is the posterior
        rng = np.random.default_rng(11)
        cb = bsid.codebook.random(3, 4, 2, 21)
        ch = bsid.channel_params(0.05, 0.05, 0.02)
        N = 3
        msg = rng.integers(0, 4, N)
        y, _ = bsid.transmit(ch, cb.encode(msg), seed=4)
        priors = rng.uniform(0.05, 1, (N, 4))
        priors[1, 2] = 0  # a zero prior: the extrinsic is no 0/0
        want = brute_force(cb, ch, N, y, priors, extrinsic=True)
        post = brute_force(cb, ch, N, y, priors)
        # the test tells the two apart
        self.assertGreater(np.abs(want - post).max(), 0.05)
        with np.errstate(divide="ignore"):
            logs = np.log(priors) + 3.0
        for backend in self.backends:
            with self.subTest(backend=backend):
                dec = bsid.map_decoder_core(cb, ch, N, backend=backend, precision="double",
                                            mtau=(-N * 3, len(y)), mn=(-3, len(y)))
                np.testing.assert_allclose(dec.decode(y, priors, extrinsic=True), want, atol=1e-9)
                np.testing.assert_allclose(dec.decode(y, log_priors=logs, extrinsic=True), want,
                                           atol=1e-9)
                np.testing.assert_allclose(dec.decode(y, priors), post, atol=1e-9)
                got = dec.decode_batch([y, y], [priors, None], extrinsic=True)
                np.testing.assert_allclose(got[0], want, atol=1e-9)
                np.testing.assert_allclose(got[1], dec.decode(y), atol=1e-12)
                np.testing.assert_array_equal(dec.decode(y, extrinsic=True), dec.decode(y))


if __name__ == '__main__':
    unittest.main(verbosity=2)
