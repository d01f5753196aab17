#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Concatenated codes from Python (docs/concatenated.md): ldpc_code (properties,
encoding checked against H computed here over GF(2^m), the alist format,
errors), ldpc_decoder (the extrinsic output of a single check against brute
force, batches, errors, a noisy codeword), symbol_mapping (bit layout, product
distributions) and the iterative concatenated_decoder over simulated frames
(frame_source(..., outer=code))."""

import itertools
import os
import tempfile
import unittest

import numpy as np

import bsid_core as bsid


def gf_mul(a, b, m, poly):
    """a b in GF(2^m): carry-less multiply, reduced mod the primitive polynomial."""
    r = 0
    for t in range(m):
        if (b >> t) & 1:
            r ^= a << t
    for t in range(2 * m - 2, m - 1, -1):
        if (r >> t) & 1:
            r ^= poly << (t - m)
    return r


def xor_all(values):
    """The sum of GF(2^m) elements: their XOR."""
    acc = 0
    for v in values:
        acc ^= v
    return acc


POLY = {1: 0b11, 2: 0b111, 3: 0b1011, 4: 0b10011}


def syndrome(H, c, q):
    """H c over GF(q), written here independently of the module."""
    m = q.bit_length() - 1
    s = np.zeros(H.shape[0], dtype=np.int64)
    for r in range(H.shape[0]):
        acc = 0
        for j in range(H.shape[1]):
            if H[r, j]:
                acc ^= gf_mul(int(H[r, j]), int(c[j]), m, POLY[m])
        s[r] = acc
    return s


def normalize_logs(x):
    """Rows of log-probabilities to probabilities."""
    x = np.asarray(x, dtype=float)
    p = np.exp(x - x.max(axis=-1, keepdims=True))
    return p / p.sum(axis=-1, keepdims=True)


class qa_ldpc_code(unittest.TestCase):

    SPEC = "ldpc-regular:60:30:16:3:1"

    def setUp(self):
        self.code = bsid.ldpc_code.from_spec(self.SPEC)
        self.rng = np.random.default_rng(5)

    def test_001_gf_multiply_of_the_test(self):
        # the test's own field: x * x^3 = x^4 = x + 1 in GF(16), and a
        # nonzero element has an inverse
        self.assertEqual(gf_mul(2, 8, 4, POLY[4]), 3)
        for a in range(1, 16):
            self.assertEqual(sum(gf_mul(a, b, 4, POLY[4]) == 1 for b in range(16)), 1)

    def test_002_regular_code_properties(self):
        c = self.code
        self.assertEqual((c.n, c.M, c.k, c.q, c.rank), (60, 30, 30, 16, 30))
        self.assertAlmostEqual(c.rate, 0.5)
        self.assertEqual(c.spec, self.SPEC)
        H = c.H()
        self.assertEqual(H.shape, (30, 60))
        self.assertTrue(np.all((H >= 0) & (H < 16)))
        # column weight 3, rows of weight 6, coefficients nonzero where present
        np.testing.assert_array_equal((H != 0).sum(axis=0), np.full(60, 3))
        np.testing.assert_array_equal((H != 0).sum(axis=1), np.full(30, 6))
        # no length-4 cycle: no two columns share two rows
        B = (H != 0).astype(int)
        overlap = B.T @ B
        np.fill_diagonal(overlap, 0)
        self.assertLessEqual(overlap.max(), 1)
        info = c.info_positions
        self.assertEqual(len(info), c.k)
        self.assertTrue(np.all(np.diff(info) > 0))
        self.assertIn("q=16", repr(c))

    def test_003_encode_is_a_codeword_of_H(self):
        c = self.code
        H = c.H()
        for _ in range(5):
            u = self.rng.integers(0, c.q, c.k)
            w = c.encode(u)
            self.assertEqual(w.shape, (c.n,))
            self.assertTrue(c.is_codeword(w))
            self.assertEqual(c.unsatisfied(w), 0)
            np.testing.assert_array_equal(syndrome(H, w, c.q), np.zeros(c.M))
            np.testing.assert_array_equal(c.extract(w), u)
            # systematic: the information symbols sit at info_positions
            np.testing.assert_array_equal(w[c.info_positions], u)
            # one symbol changed: not a codeword, and H says so too
            bad = w.copy()
            bad[7] ^= 5
            self.assertFalse(c.is_codeword(bad))
            self.assertGreater(c.unsatisfied(bad), 0)
            self.assertEqual(c.unsatisfied(bad),
                             int(np.count_nonzero(syndrome(H, bad, c.q))))

    def test_004_alist_round_trip(self):
        c = self.code
        text = c.alist()
        self.assertEqual(text.split("\n")[0].split(), ["60", "30", "16"])
        again = bsid.ldpc_code.parse_alist(text)
        np.testing.assert_array_equal(again.H(), c.H())
        self.assertEqual((again.n, again.M, again.k, again.q), (c.n, c.M, c.k, c.q))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "H.alist")
            c.write_alist(path)
            read = bsid.ldpc_code.read_alist(path)
            np.testing.assert_array_equal(read.H(), c.H())
            u = self.rng.integers(0, c.q, c.k)
            self.assertTrue(c.is_codeword(read.encode(u)))
            via_spec = bsid.ldpc_code.from_spec("ldpc:" + path)
            np.testing.assert_array_equal(via_spec.H(), c.H())

    def test_005_from_entries_hamming(self):
        H = np.array([[1, 1, 0, 1, 1, 0, 0],
                      [1, 0, 1, 1, 0, 1, 0],
                      [0, 1, 1, 1, 0, 0, 1]])
        rows, cols = np.nonzero(H)
        ham = bsid.ldpc_code(2, 7, 3, rows, cols)
        self.assertEqual((ham.n, ham.M, ham.k, ham.q), (7, 3, 4, 2))
        np.testing.assert_array_equal(ham.H(), H)
        words = set()
        for u in itertools.product(range(2), repeat=4):
            w = ham.encode(np.array(u))
            self.assertTrue(ham.is_codeword(w))
            np.testing.assert_array_equal(H @ w % 2, np.zeros(3))
            np.testing.assert_array_equal(ham.extract(w), u)
            words.add(tuple(w))
        self.assertEqual(len(words), 16)
        # binary alist round trip
        self.assertEqual(ham.alist().split("\n")[0].split(), ["7", "3"])
        np.testing.assert_array_equal(bsid.ldpc_code.parse_alist(ham.alist()).H(), H)
        # coefficients over GF(4)
        coefs = np.array([1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3])
        g = bsid.ldpc_code(4, 7, 3, rows, cols, coefs)
        G = np.zeros((3, 7), int)
        G[rows, cols] = coefs
        np.testing.assert_array_equal(g.H(), G)
        u = np.array([3, 1, 0, 2])
        np.testing.assert_array_equal(syndrome(G, g.encode(u), 4), np.zeros(3))

    def test_006_errors(self):
        c = self.code
        with self.assertRaises(ValueError):
            bsid.ldpc_code.parse_alist("this is not\nan alist\n")
        with self.assertRaises(ValueError):
            bsid.ldpc_code.parse_alist("")
        with self.assertRaises(OSError):
            bsid.ldpc_code.read_alist("/nonexistent/dir/H.alist")
        with self.assertRaises(ValueError):
            bsid.ldpc_code.from_spec("ldpc-bogus:60:30:16:3:1")
        with self.assertRaises(ValueError):
            bsid.ldpc_code.from_spec("ldpc-regular:60:30")
        with self.assertRaises(ValueError):
            bsid.ldpc_code.from_spec("ldpc-regular:60:30:12:3:1")  # q not 2^m
        u = self.rng.integers(0, c.q, c.k)
        u[3] = c.q
        with self.assertRaises(ValueError):
            c.encode(u)
        with self.assertRaises(ValueError):
            c.encode(np.zeros(c.k - 1, int))
        with self.assertRaises(ValueError):
            c.encode(np.zeros(c.k + 1, int))
        with self.assertRaises(ValueError):
            c.extract(np.zeros(c.n - 1, int))
        # entries: a coefficient outside GF(q), an entry outside H, a dependent row
        with self.assertRaises(ValueError):
            bsid.ldpc_code(4, 3, 1, [0, 0, 0], [0, 1, 2], [1, 4, 1])
        with self.assertRaises(ValueError):
            bsid.ldpc_code(4, 3, 1, [0, 0, 0], [0, 1, 3])
        with self.assertRaises(ValueError):
            bsid.ldpc_code(2, 3, 2, [0, 0, 1, 1], [0, 1, 0, 1])

    def test_007_peg_code(self):
        # progressive edge growth: the degrees asked for, from a dict or text
        c = bsid.ldpc_code.peg(120, 60, 16, {2: 0.5, 3: 0.25, 6: 0.25}, 4)
        self.assertEqual(c.spec, "ldpc-peg:120:60:16:2=0.5,3=0.25,6=0.25:4")
        self.assertEqual(bsid.ldpc_code.peg(120, 60, 16, "2=0.5,3=0.25,6=0.25", 4).alist(),
                         c.alist())
        self.assertEqual(bsid.ldpc_code.from_spec(c.spec).alist(), c.alist())
        self.assertEqual(c.k, 60)
        lines = c.alist().split("\n")
        col_weights = [int(v) for v in lines[2].split()]  # the alist's column weights
        self.assertEqual(sorted(col_weights), [2] * 60 + [3] * 30 + [6] * 30)
        u = self.rng.integers(0, 16, c.k)
        self.assertTrue(c.is_codeword(c.encode(u)))
        with self.assertRaisesRegex(ValueError, "sum to"):
            bsid.ldpc_code.peg(120, 60, 16, {3: 0.5}, 1)
        with self.assertRaisesRegex(ValueError, "DEGREE=FRACTION"):
            bsid.ldpc_code.peg(120, 60, 16, "3:1", 1)


class qa_ldpc_decoder(unittest.TestCase):

    def single_check(self):
        # one check over GF(8): 3 x0 + 5 x1 + x2 + 7 x3 = 0
        coefs = [3, 5, 1, 7]
        return bsid.ldpc_code(8, 4, 1, [0, 0, 0, 0], [0, 1, 2, 3], coefs), coefs

    def test_000_backends(self):
        """The CPU backend by default; CUDA where there is a GPU (the same
        decisions on a decodable word), a clear RuntimeError where there is
        none; bad backend or precision names are ValueErrors."""
        code = bsid.ldpc_code.from_spec("ldpc-regular:60:30:16:3:1")
        cpu = bsid.ldpc_decoder(code)
        self.assertEqual((cpu.backend, cpu.precision), ("cpu", "double"))
        rng = np.random.default_rng(4)
        c = code.encode(rng.integers(0, 16, code.k))
        L = np.full((code.n, 16), -4.0)
        L[np.arange(code.n), c] = 0.0
        L[3], L[11] = -4.0, -4.0  # two erased symbols
        L[3, 5] = L[11, 9] = 0.5
        want = cpu.decode(L, 20)
        self.assertTrue(want["syndrome_ok"])
        try:
            gpu = bsid.ldpc_decoder(code, backend="cuda", precision="float")
        except RuntimeError as e:
            self.assertIn("CUDA", str(e))
        else:
            self.assertEqual((gpu.backend, gpu.precision), ("cuda", "float"))
            got = gpu.decode(L, 20)
            np.testing.assert_array_equal(got["decisions"], want["decisions"])
            np.testing.assert_allclose(np.exp(got["post"]), np.exp(want["post"]), atol=1e-4)
        for kw in ({"backend": "tpu"}, {"precision": "half"}):
            with self.assertRaises(ValueError):
                bsid.ldpc_decoder(code, **kw)

    def test_001_single_check_extrinsic_against_brute_force(self):
        code, coefs = self.single_check()
        q, n = 8, 4
        self.assertEqual(code.k, 3)
        bp = bsid.ldpc_decoder(code, threads=1)
        words = np.array(list(itertools.product(range(q), repeat=n)))
        ok = np.array([xor_all([gf_mul(h, int(x), 3, POLY[3]) for h, x in zip(coefs, w)]) == 0
                       for w in words])
        cw = words[ok]
        self.assertEqual(len(cw), q ** (n - 1))
        rng = np.random.default_rng(11)
        runs = 0
        while runs < 6:
            logp = rng.normal(0, 1.5, (n, q))
            if runs == 5:
                logp[2, 4] = -np.inf  # a zero probability
            if code.is_codeword(logp.argmax(axis=1)):
                continue  # an input that already decodes stops at once
            p = normalize_logs(logp)
            want = np.zeros((n, q))
            for j in range(n):
                others = np.prod([p[l, cw[:, l]] for l in range(n) if l != j], axis=0)
                np.add.at(want[j], cw[:, j], others)
            want /= want.sum(axis=1, keepdims=True)
            r = bp.decode(logp, max_iterations=3)
            self.assertGreaterEqual(r["iterations"], 1)
            np.testing.assert_allclose(np.exp(r["ext"]), want, rtol=0, atol=1e-9)
            # both outputs normalized; the posterior is input plus extrinsic
            np.testing.assert_allclose(np.exp(r["ext"]).sum(axis=1), 1, atol=1e-12)
            np.testing.assert_allclose(np.exp(r["post"]).sum(axis=1), 1, atol=1e-12)
            post = p * want
            post /= post.sum(axis=1, keepdims=True)
            np.testing.assert_allclose(np.exp(r["post"]), post, rtol=0, atol=1e-9)
            np.testing.assert_array_equal(r["decisions"], post.argmax(axis=1))
            runs += 1

    def test_002_input_that_decodes_stops_at_once(self):
        code, _ = self.single_check()
        bp = bsid.ldpc_decoder(code)
        c = code.encode([1, 2, 3])
        logp = np.full((4, 8), -3.0)
        logp[np.arange(4), c] = 0.0
        r = bp.decode(logp)
        self.assertEqual(r["iterations"], 0)
        self.assertTrue(r["syndrome_ok"])
        np.testing.assert_array_equal(r["decisions"], c)
        np.testing.assert_allclose(np.exp(r["post"]), normalize_logs(logp), atol=1e-12)
        np.testing.assert_allclose(r["ext"], np.full((4, 8), -np.log(8)), atol=1e-12)

    def test_003_batch_equals_word_by_word(self):
        code = bsid.ldpc_code.from_spec("ldpc-regular:60:30:16:3:1")
        bp = bsid.ldpc_decoder(code, threads=2)
        rng = np.random.default_rng(3)
        W = 5
        logs = rng.normal(0, 1, (W, code.n, code.q))
        for j in range(W):
            c = code.encode(rng.integers(0, code.q, code.k))
            logs[j, np.arange(code.n), c] += 1.0 + 0.5 * j
        many = bp.decode(logs, max_iterations=20)
        self.assertEqual(many["post"].shape, (W, code.n, code.q))
        self.assertEqual(many["ext"].shape, (W, code.n, code.q))
        self.assertEqual(many["decisions"].shape, (W, code.n))
        self.assertEqual(many["iterations"].shape, (W,))
        self.assertEqual(many["syndrome_ok"].shape, (W,))
        for j in range(W):
            one = bp.decode(logs[j], max_iterations=20)
            np.testing.assert_array_equal(many["post"][j], one["post"])
            np.testing.assert_array_equal(many["ext"][j], one["ext"])
            np.testing.assert_array_equal(many["decisions"][j], one["decisions"])
            self.assertEqual(many["iterations"][j], one["iterations"])
            self.assertEqual(bool(many["syndrome_ok"][j]), one["syndrome_ok"])

    def test_004_errors(self):
        code, _ = self.single_check()
        bp = bsid.ldpc_decoder(code)
        good = np.zeros((4, 8))
        bad = good.copy()
        bad[1, 2] = np.nan
        with self.assertRaises(ValueError):
            bp.decode(bad)
        bad = good.copy()
        bad[0, 0] = np.inf
        with self.assertRaises(ValueError):
            bp.decode(bad)
        bad = good.copy()
        bad[3, :] = -np.inf
        with self.assertRaises(ValueError):
            bp.decode(bad)
        with self.assertRaises(ValueError):
            bp.decode(good, max_iterations=0)
        with self.assertRaises(ValueError):
            bp.decode(np.zeros((4, 7)))
        # a NaN in one word of a batch refuses the whole call
        batch = np.zeros((3, 4, 8))
        batch[2, 0, 0] = np.nan
        with self.assertRaises(ValueError):
            bp.decode(batch)

    def test_005_noisy_codeword_decodes(self):
        code = bsid.ldpc_code.from_spec("ldpc-regular:60:30:16:3:1")
        bp = bsid.ldpc_decoder(code)
        rng = np.random.default_rng(2)
        c = code.encode(rng.integers(0, code.q, code.k))
        logp = rng.normal(0, 1, (code.n, code.q))
        logp[np.arange(code.n), c] += 3.0
        wrong = np.count_nonzero(logp.argmax(axis=1) != c)
        self.assertGreater(wrong, 2)  # the channel made errors to correct
        r = bp.decode(logp, max_iterations=50)
        self.assertTrue(r["syndrome_ok"])
        self.assertGreaterEqual(r["iterations"], 1)
        np.testing.assert_array_equal(r["decisions"], c)
        np.testing.assert_array_equal(r["decisions"], np.exp(r["post"]).argmax(axis=1))


class qa_symbol_mapping(unittest.TestCase):

    def test_001_bit_layout_and_sizes(self):
        m = bsid.symbol_mapping(16, 5, 8)
        self.assertEqual(m.n_inner, 7)
        self.assertEqual(m.pad_bits, 1)
        self.assertFalse(m.identity)
        # bits 1010 0011 1111 0000 1001 + 0 -> 101 000 111 111 000 010 010
        np.testing.assert_array_equal(m.to_inner([0xA, 0x3, 0xF, 0x0, 0x9]),
                                      [5, 0, 7, 7, 0, 2, 2])
        same = bsid.symbol_mapping(16, 10, 16)
        self.assertTrue(same.identity)
        self.assertEqual((same.n_inner, same.pad_bits), (10, 0))
        u = np.arange(10)
        np.testing.assert_array_equal(same.to_inner(u), u)
        w = bsid.symbol_mapping(4, 6, 16)  # two outer symbols per inner one
        self.assertEqual((w.n_inner, w.pad_bits), (3, 0))
        np.testing.assert_array_equal(w.to_inner([1, 2, 3, 0, 0, 3]), [6, 12, 3])
        with self.assertRaises(ValueError):
            bsid.symbol_mapping(16, 5, 10)
        with self.assertRaises(ValueError):
            bsid.symbol_mapping(16, 0, 16)
        with self.assertRaises(ValueError):
            m.to_inner([0xA, 0x3, 0x10, 0x0, 0x9])  # not below q_outer
        with self.assertRaises(ValueError):
            m.to_inner([1, 2, 3])

    def test_002_product_distributions_are_exact(self):
        rng = np.random.default_rng(19)
        for qo, n, qi in [(16, 5, 8), (4, 6, 16), (8, 4, 2), (16, 3, 16)]:
            m = bsid.symbol_mapping(qo, n, qi)
            a, b = qo.bit_length() - 1, qi.bit_length() - 1
            N = m.n_inner
            self.assertEqual(N, -(-n * a // b))
            self.assertEqual(m.pad_bits, N * b - n * a)
            p1 = np.where(np.arange(N * b) < n * a, rng.uniform(0.02, 0.98, N * b), 0.0)

            def product(nsym, bits):
                out = np.ones((nsym, 1 << bits))
                for s in range(nsym):
                    for x in range(1 << bits):
                        for t in range(bits):
                            v = (x >> (bits - 1 - t)) & 1
                            g = s * bits + t
                            out[s, x] *= p1[g] if v else 1 - p1[g]
                return out

            inner = product(N, b)
            outer = product(n, a)
            got = normalize_logs(m.inner_to_outer(inner))
            np.testing.assert_allclose(got, outer, rtol=0, atol=1e-12)
            with np.errstate(divide="ignore"):
                back = normalize_logs(m.outer_to_inner(np.log(outer)))
            np.testing.assert_allclose(back, inner, rtol=0, atol=1e-12)
            if m.pad_bits:
                # a symbol with a pad bit set is impossible on the way in
                lp = m.outer_to_inner(np.log(outer))
                self.assertEqual(lp[N - 1, 1], -np.inf)


class qa_concatenated_decoder(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.code = bsid.ldpc_code.from_spec("ldpc-regular:60:30:16:3:1")
        cls.cb = bsid.codebook.random(6, 16, 3, 11)
        cls.ch = bsid.channel_params(0.005, 0.005)
        cls.N = bsid.symbol_mapping(cls.code.q, cls.code.n, cls.cb.q).n_inner
        cls.inner = bsid.map_decoder_core(cls.cb, cls.ch, cls.N, backend="cpu", threads=2)
        cls.dec = bsid.concatenated_decoder_core(cls.inner, cls.code, iterations=4,
                                            bp_iterations=30, threads=2)
        cls.src = bsid.frame_source(cls.cb, cls.ch, 0, 21, outer=cls.code)
        cls.batch = cls.src.generate(0, 12, threads=2)

    def test_001_frame_source_with_an_outer_code(self):
        self.assertEqual(self.N, 60)
        self.assertEqual(self.src.N, self.N)
        self.assertEqual(self.src.outer.spec, self.code.spec)
        b = self.batch
        self.assertEqual(len(b), 12)
        self.assertEqual((b.N, b.k), (self.N, self.code.k))
        self.assertEqual(b.info.shape, (12, self.code.k))
        self.assertTrue(np.all((b.info >= 0) & (b.info < self.code.q)))
        # the sent symbols are the codewords of the information symbols
        for j in range(len(b)):
            np.testing.assert_array_equal(b.symbols[j], self.code.encode(b.info[j]))
            np.testing.assert_array_equal(self.src.info(j), b.info[j])
            f = self.src.frame(j)
            self.assertIn("info", f)
            np.testing.assert_array_equal(f["info"], b.info[j])
            np.testing.assert_array_equal(f["rx"], b.rx(j))
        self.assertFalse(np.array_equal(b.info[0], b.info[1]))
        # N = 0 means "from the code"; another N is refused
        with self.assertRaises(ValueError):
            bsid.frame_source(self.cb, self.ch, self.N + 1, 21, outer=self.code)
        same = bsid.frame_source(self.cb, self.ch, self.N, 21, outer=self.code)
        np.testing.assert_array_equal(same.info(3), b.info[3])
        # without an outer code: no information symbols
        plain = bsid.frame_source(self.cb, self.ch, self.N, 21)
        self.assertIsNone(plain.outer)
        self.assertNotIn("info", plain.frame(0))
        with self.assertRaises(ValueError):
            plain.info(0)
        # through bits: GF(16) into a q = 8 inner code
        cb8 = bsid.codebook.random(5, 8, 1, 2)
        mapped = bsid.frame_source(cb8, self.ch, 0, 21, outer=self.code)
        sm = bsid.symbol_mapping(16, 60, 8)
        self.assertEqual(mapped.N, sm.n_inner)
        np.testing.assert_array_equal(mapped.message(2),
                                      sm.to_inner(self.code.encode(mapped.info(2))))

    def test_002_count_errors(self):
        r = self.dec.count_errors(self.batch, threads=2)
        K, I = len(self.batch), 4
        self.assertLessEqual({"status", "symbol_errors", "bit_errors", "iterations",
                              "bp_iterations", "syndrome_ok", "wrong_after"}, set(r))
        for key in ("status", "symbol_errors", "bit_errors", "iterations",
                    "bp_iterations", "syndrome_ok"):
            self.assertEqual(r[key].shape, (K,), key)
        self.assertEqual(r["wrong_after"].shape, (K, I))
        self.assertEqual(bsid.frame_status_names[0], "ok")
        np.testing.assert_array_equal(r["status"], np.zeros(K))
        np.testing.assert_array_equal(r["symbol_errors"], np.zeros(K))
        np.testing.assert_array_equal(r["bit_errors"], np.zeros(K))
        np.testing.assert_array_equal(r["syndrome_ok"], np.ones(K))
        np.testing.assert_array_equal(r["wrong_after"], np.zeros((K, I)))
        self.assertTrue(np.all((r["iterations"] >= 1) & (r["iterations"] <= I)))
        self.assertTrue(np.all(r["bp_iterations"] >= 0))
        self.assertTrue(np.all(r["bp_iterations"] <= r["iterations"] * 30))
        # the decided information symbols
        np.testing.assert_array_equal(r["info"], self.batch.info)

    def test_003_decode_frames(self):
        b = self.batch
        rx = [b.rx(j) for j in range(4)]
        out = self.dec.decode(rx)
        self.assertEqual(len(out), 4)
        for j, d in enumerate(out):
            self.assertEqual(d["status"], "ok", d["reason"])
            self.assertTrue(d["syndrome_ok"])
            self.assertGreaterEqual(d["iterations"], 1)
            np.testing.assert_array_equal(d["info"], b.info[j])
            np.testing.assert_array_equal(d["decisions"], b.symbols[j])
            self.assertTrue(self.code.is_codeword(d["decisions"]))
            self.assertEqual(d["posteriors"].shape, (self.code.n, self.code.q))
            np.testing.assert_allclose(np.exp(d["posteriors"]).sum(axis=1), 1, atol=1e-9)
            np.testing.assert_array_equal(d["posteriors"].argmax(axis=1), d["decisions"])
        self.assertEqual(self.dec.N, self.N)
        self.assertEqual(self.dec.code.n, self.code.n)
        self.assertEqual((self.dec.iterations, self.dec.bp_iterations), (4, 30))

    def test_006_device_loop(self):
        """The device loop runs on the CUDA backend without a sync word only;
        where there is a GPU it decodes as the host loop does."""
        self.assertFalse(self.dec.device_loop)  # the CPU backend
        host = bsid.concatenated_decoder_core(self.inner, self.code, iterations=4,
                                              bp_iterations=30, threads=2,
                                              device_loop=False)
        self.assertFalse(host.device_loop)
        try:
            gpu = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cuda",
                                        precision="double")
        except RuntimeError:
            return  # no GPU here
        dev = bsid.concatenated_decoder_core(gpu, self.code, iterations=4, bp_iterations=30)
        self.assertTrue(dev.device_loop)
        off = bsid.concatenated_decoder_core(gpu, self.code, iterations=4, bp_iterations=30,
                                             device_loop=False)
        self.assertFalse(off.device_loop)
        a, b = dev.count_errors(self.batch), off.count_errors(self.batch)
        for key in ("status", "iterations", "bp_iterations", "syndrome_ok", "info"):
            np.testing.assert_array_equal(a[key], b[key], key)
        synced = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cuda",
                                       sync_word="0110")
        self.assertFalse(bsid.concatenated_decoder_core(synced, self.code).device_loop)

    def test_004_erasure_among_good_frames(self):
        b = self.batch
        rx = [b.rx(0), np.ones(2000, np.uint8), b.rx(1)]
        out = self.dec.decode(rx)
        self.assertEqual(out[1]["status"], "drift_out_of_range")
        self.assertTrue(out[1]["reason"])
        np.testing.assert_array_equal(out[1]["info"], np.full(self.code.k, -1))
        self.assertFalse(out[1]["syndrome_ok"])
        for j, d in ((0, out[0]), (1, out[2])):
            self.assertEqual(d["status"], "ok", d["reason"])
            np.testing.assert_array_equal(d["info"], b.info[j])
        # an empty frame and one with a byte that is not a bit: erasures too
        bad = b.rx(2).copy()
        bad[3] = 5
        out = self.dec.decode([np.zeros(0, np.uint8), b.rx(1), bad])
        self.assertEqual([d["status"] for d in out], ["empty", "ok", "invalid_input"])
        np.testing.assert_array_equal(out[1]["info"], b.info[1])
        for d in (out[0], out[2]):
            np.testing.assert_array_equal(d["info"], np.full(self.code.k, -1))

    def test_005_bad_arguments(self):
        with self.assertRaises(ValueError):
            bsid.concatenated_decoder_core(self.inner, self.code, iterations=0)
        with self.assertRaises(ValueError):
            bsid.concatenated_decoder_core(self.inner, self.code, bp_iterations=0)
        wrong = bsid.map_decoder_core(self.cb, self.ch, self.N + 1, backend="cpu")
        with self.assertRaises(ValueError):
            bsid.concatenated_decoder_core(wrong, self.code)
        # a batch without this outer code's information symbols
        plain = bsid.frame_source(self.cb, self.ch, self.N, 21).generate(0, 2, threads=2)
        with self.assertRaises(ValueError):
            self.dec.count_errors(plain)

    def test_006_llr_input(self):
        soft = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu", threads=2,
                                     input="llr")
        dec = bsid.concatenated_decoder_core(soft, self.code, iterations=4, bp_iterations=30,
                                        threads=2)
        b = self.batch
        bits = [b.rx(j) for j in range(3)]
        llrs = [(2.0 * r.astype(float) - 1.0) * 30.0 for r in bits]
        hard = self.dec.decode(bits)
        out = dec.decode(llrs)
        for j in range(3):
            self.assertEqual(out[j]["status"], "ok", out[j]["reason"])
            np.testing.assert_array_equal(out[j]["info"], hard[j]["info"])
            np.testing.assert_array_equal(out[j]["info"], b.info[j])


if __name__ == "__main__":
    unittest.main()
