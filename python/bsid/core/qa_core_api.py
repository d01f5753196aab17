#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The Python core API of docs/design.md section 2: codebooks, channel parameters
and the channel emulator, including every bad input raising a clear error."""

import math
import os
import pickle
import tempfile
import unittest

import numpy as np

import bsid_core as bsid

SOURCE_DIR = os.environ.get(
    "BSID_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
LD3_FILE = os.path.join(SOURCE_DIR, "codebooks", "ld3-modvec6_n8_q16.txt")


class qa_channel_params(unittest.TestCase):

    def test_001_values(self):
        ch = bsid.channel_params(0.01, 0.02, 0.03)
        self.assertEqual((ch.Pi, ch.Pd, ch.Ps), (0.01, 0.02, 0.03))
        self.assertAlmostEqual(ch.Pt, 0.97)
        self.assertEqual(repr(ch), "channel_params(Pi=0.01, Pd=0.02, Ps=0.03)")
        self.assertEqual(bsid.channel_params(0.1, 0.1).Ps, 0.0)
        self.assertEqual(pickle.loads(pickle.dumps(ch)), ch)

    def test_002_rejects_bad_values_by_name(self):
        cases = [((-0.1, 0, 0), "Pi = -0.1"), ((0, -0.2, 0), "Pd = -0.2"),
                 ((0, 0, -1e-3), "Ps = -0.001"), ((math.nan, 0, 0), "Pi = nan"),
                 ((0, math.inf, 0), "Pd = inf"), ((0, 0, math.nan), "Ps = nan"),
                 ((0, 0, 1.5), "Ps = 1.5"), ((0.5, 0.5, 0), "Pi + Pd = 1"),
                 ((0.6, 0.6, 0), "Pi + Pd = 1.2")]
        for args, fragment in cases:
            with self.subTest(args=args):
                with self.assertRaises(ValueError) as cm:
                    bsid.channel_params(*args)
                self.assertIn(fragment, str(cm.exception))


class qa_codebook(unittest.TestCase):

    def test_001_construct_encode(self):
        cb = bsid.codebook(3, [[0, 5, 3, 6], [7, 1, 2, 4]])
        self.assertEqual((cb.n, cb.q, cb.P, cb.spec), (3, 4, 2, ""))
        self.assertEqual(cb.books, [[0, 5, 3, 6], [7, 1, 2, 4]])
        bits = cb.encode(np.array([1, 1, 3]))
        self.assertEqual(bits.dtype, np.uint8)
        # C_0(1) = 101, C_1(1) = 001, C_2(3) = C_0(3) = 110: MSB first
        self.assertEqual(bits.tolist(), [1, 0, 1, 0, 0, 1, 1, 1, 0])
        self.assertEqual(cb.word(2, 3), 6)
        # numpy books and list symbols are fine too
        cb2 = bsid.codebook(3, np.array([[0, 5, 3, 6], [7, 1, 2, 4]], dtype=np.int64))
        self.assertEqual(cb2, cb)
        self.assertEqual(cb.encode([]).shape, (0,))
        self.assertEqual(pickle.loads(pickle.dumps(cb)), cb)

    def test_002_encode_rejects_bad_symbols(self):
        cb = bsid.codebook.sparse(4, 5)
        with self.assertRaisesRegex(ValueError, "symbol 5 at position 2"):
            cb.encode([0, 4, 5])
        with self.assertRaisesRegex(ValueError, "symbol -3 at position 0"):
            cb.encode(np.array([-3], dtype=np.int8))
        with self.assertRaises(TypeError):
            cb.encode(np.array([0.5, 1.0]))
        with self.assertRaises(ValueError):
            cb.encode(np.zeros((2, 2), dtype=int))

    def test_003_validation(self):
        cases = [((0, [[0, 1]]), "n = 0"), ((33, [[0, 1]]), "n = 33"),
                 ((4, []), "P = 0"), ((4, [[]]), "q = 0"), ((4, [[3]]), "q = 1"),
                 ((2, [[0, 1, 2, 3, 0]]), "cannot fit in n = 2 bits"),
                 ((3, [[0, 1, 2, 8]]), "word 8 does not fit in n = 3 bits"),
                 ((3, [[0, 1, 2, 1]]), "repeats word 1"),
                 ((3, [[0, 1], [2, 3, 4]]), "book 1 has 3 words"),
                 ((3, [[0, -1]]), "word -1 is not an unsigned 32-bit value"),
                 ((32, [[0, 2**32]]), "is not an unsigned 32-bit value")]
        for args, fragment in cases:
            with self.subTest(args=args):
                with self.assertRaises(ValueError) as cm:
                    bsid.codebook(*args)
                self.assertIn(fragment, str(cm.exception))
        with self.assertRaises(TypeError):
            bsid.codebook(3, [[0, "a"]])
        with self.assertRaises(TypeError):
            bsid.codebook(3, [[0, 1.5]])
        with self.assertRaises(TypeError):
            bsid.codebook(3, 7)

    def test_004_builtin(self):
        cb = bsid.codebook.builtin("ld3-modvec6")
        self.assertEqual((cb.n, cb.q, cb.P), (8, 16, 6))
        self.assertEqual(cb.spec, "builtin:ld3-modvec6")
        self.assertEqual(cb, bsid.codebook.load(LD3_FILE))
        self.assertEqual(cb, bsid.codebook.from_spec("builtin:ld3-modvec6"))
        self.assertIn("ld3-modvec6", bsid.codebook.builtin_names())
        with self.assertRaisesRegex(ValueError, "available: ld3-modvec6"):
            bsid.codebook.builtin("nosuch")

    def test_005_save_load_round_trip(self):
        with tempfile.TemporaryDirectory() as d:
            for cb in (bsid.codebook.random(12, 100, 3, 42), bsid.codebook.sparse(20, 1024),
                       bsid.codebook(32, [[2**32 - 1, 0, 12345]])):
                path = os.path.join(d, "cb.txt")
                cb.save(path)
                back = bsid.codebook.load(path)
                self.assertEqual(back, cb)
                self.assertEqual(back.spec, "file:" + path)
                self.assertEqual(bsid.codebook.from_spec(path), cb)
                self.assertEqual(bsid.codebook.from_spec("file:" + path), cb)
            with self.assertRaises(OSError):
                cb.save(os.path.join(d, "no", "such", "dir.txt"))

    def test_006_malformed_files(self):
        cases = [(b"3 4\n0 1 2 3\n", "line 1: expected the header"),
                 (b"3 4 1\n0 1 x 3\n", "line 2: 'x' is not"),
                 (b"3 4 1\n0 1 2\n", "has 3 words, expected q = 4"),
                 (b"3 4 2\n0 1 2 3\n", "promises P = 2 books but the file has 1"),
                 (b"3 4 1\n0 1 2 3\n4 5 6 7\n", "line 3: unexpected data"),
                 (b"3 4 1\n0 1 2 9\n", "word 9 does not fit"),
                 (b"3 4 1\n0 1 2 2\n", "repeats word 2"),
                 (b"40 4 1\n0 1 2 3\n", "n = 40"),
                 (b"# nothing\n", "no header"),
                 (b"", "no header"),
                 (b"\x7fELF\x02\x01\x01\x00\x00", "not a text codebook file"),
                 (bytes(range(256)), "not a text codebook file")]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bad.txt")
            for content, fragment in cases:
                with self.subTest(content=content[:20]):
                    with open(path, "wb") as f:
                        f.write(content)
                    with self.assertRaises(ValueError) as cm:
                        bsid.codebook.load(path)
                    self.assertIn(fragment, str(cm.exception))
                    self.assertIn(path, str(cm.exception))
        with self.assertRaises(OSError):
            bsid.codebook.load("/nonexistent/cb.txt")

    def test_007_generators(self):
        # sparse: lowest weight first, ties by increasing value
        self.assertEqual(bsid.codebook.sparse(4, 8).books, [[0, 1, 2, 4, 8, 3, 5, 6]])
        self.assertEqual(bsid.codebook.sparse(4, 8).spec, "sparse:4:8")
        # random: deterministic per seed, distinct per seed, documented spec
        a = bsid.codebook.random(8, 16, 2, 1)
        self.assertEqual(a.spec, "random:8:16:2:1")
        self.assertEqual(a, bsid.codebook.random(8, 16, 2, 1))
        self.assertNotEqual(a, bsid.codebook.random(8, 16, 2, 2))
        self.assertEqual(a, bsid.codebook.from_spec("random:8:16:2:1"))
        # frozen output: these words must never change (saved results name specs)
        self.assertEqual(bsid.codebook.random(8, 4, 1, 0).books, FROZEN_RANDOM_8_4_1_0)
        full = bsid.codebook.random(6, 64, 1, 3)
        self.assertEqual(sorted(full.books[0]), list(range(64)))

    def test_008_specs(self):
        for spec, fragment in (("random:8:16:3", "four fields"), ("random:8:x:3:1", "q = 'x'"),
                               ("sparse:4", "two fields"), ("sparse:2:5", "cannot fit"),
                               ("", "empty codebook spec")):
            with self.subTest(spec=spec):
                with self.assertRaisesRegex(ValueError, fragment):
                    bsid.codebook.from_spec(spec)
        with self.assertRaisesRegex(OSError, "expected builtin:NAME"):
            bsid.codebook.from_spec("nosuch:thing")


# random:8:4:1:0, recorded when the generator was written.
FROZEN_RANDOM_8_4_1_0 = [[221, 131, 179, 62]]


class qa_transmit(unittest.TestCase):

    def bits(self, n, seed=1):
        return np.random.default_rng(seed).integers(0, 2, n, dtype=np.uint8)

    def test_001_shapes_and_identity(self):
        x = self.bits(1000)
        rx, drift = bsid.transmit(bsid.channel_params(0, 0, 0), x, seed=3)
        self.assertEqual(rx.dtype, np.uint8)
        self.assertEqual(drift.dtype, np.int32)
        np.testing.assert_array_equal(rx, x)
        self.assertEqual(drift.shape, (1001,))
        self.assertFalse(drift.any())

    def test_002_reproducible(self):
        ch = bsid.channel_params(0.05, 0.05, 0.05)
        x = self.bits(4000)
        rx1, d1 = bsid.transmit(ch, x, 11, frame=7)
        rx2, d2 = bsid.transmit(ch, x, seed=11, frame=7)
        np.testing.assert_array_equal(rx1, rx2)
        np.testing.assert_array_equal(d1, d2)
        self.assertFalse(np.array_equal(bsid.transmit(ch, x, 11, frame=8)[0], rx1))
        self.assertEqual(len(rx1) - len(x), d1[-1])
        # drift[::n] gives the codeword boundaries
        cb = bsid.codebook.builtin("ld3-modvec6")
        msg = np.arange(50) % 16
        rx, drift = bsid.transmit(ch, cb.encode(msg), 5)
        self.assertEqual(drift[::8].shape, (51,))

    def test_003_input_types(self):
        ch = bsid.channel_params(0.01, 0.01, 0.01)
        x = self.bits(300)
        want = bsid.transmit(ch, x, 1)[0]
        for conv in (lambda a: a.astype(np.int64), lambda a: a.astype(bool), list):
            np.testing.assert_array_equal(bsid.transmit(ch, conv(x), 1)[0], want)
        for bad in (np.array([0, 1, 2], dtype=np.uint8), np.array([0, 257]), [0, -1]):
            with self.assertRaisesRegex(ValueError, "not a bit"):
                bsid.transmit(ch, bad, 1)
        with self.assertRaises(TypeError):
            bsid.transmit(ch, np.array([0.0, 1.0]), 1)
        with self.assertRaisesRegex(ValueError, "2\\^63"):
            bsid.transmit(ch, x, 1, frame=2**63)
        rx, drift = bsid.transmit(ch, np.zeros(0, dtype=np.uint8), 1)
        self.assertEqual((rx.shape, drift.tolist()), ((0,), [0]))

    def test_004_event_rates(self):
        # received length: E[rho] = tau (1 + (Pi - Pd)/(1 - Pi))
        ch = bsid.channel_params(0.1, 0.05, 0.0)
        x = self.bits(200000)
        rx, drift = bsid.transmit(ch, x, 2)
        want = len(x) * (1 + 0.05 / 0.9)
        # sd of the drift per bit: sqrt(Pi/(1-Pi)^2 + Pd Pt/(1-Pi)^2)
        sd = math.sqrt(len(x) * (0.1 + 0.05 * 0.85) / 0.81)
        self.assertLess(abs(len(rx) - want), 5 * sd)

    def test_005_streaming_emulator(self):
        ch = bsid.channel_params(0.05, 0.03, 0.02)
        x = self.bits(10000)
        em = bsid.channel_emulator(ch, seed=9, frame=4)
        parts = [em.process(x[a:b]) for a, b in ((0, 1), (1, 5000), (5000, 5000), (5000, 10000))]
        rx, drift = bsid.transmit(ch, x, 9, 4)
        np.testing.assert_array_equal(np.concatenate(parts), rx)
        self.assertEqual(em.drift, drift[-1])
        self.assertEqual(em.bits_in, 10000)
        self.assertEqual(em.insertions - em.deletions, em.drift)
        self.assertGreater(em.substitutions, 0)
        em.set_params(bsid.channel_params(0, 0, 0))
        np.testing.assert_array_equal(em.process(x[:100]), x[:100])
        with self.assertRaisesRegex(ValueError, "not a bit"):
            em.process([3])


class qa_cpu_isa(unittest.TestCase):

    def test_001_the_cpu_backends_instruction_set(self):
        isa = bsid.cpu_isa()
        self.assertIn(isa, ("avx512", "avx2", "baseline"))
        cap = os.environ.get("BSID_CPU_ISA")
        order = ("baseline", "avx2", "avx512")
        if cap in order:  # the cap holds: never above what it names
            self.assertLessEqual(order.index(isa), order.index(cap))


if __name__ == '__main__':
    unittest.main(verbosity=2)
