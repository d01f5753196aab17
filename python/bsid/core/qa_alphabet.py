#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The q-ary channel's Python API (docs/dna.md): channel parameters and
codebooks over an alphabet of A letters, the emulator on letters, and the
clear errors for letters outside the alphabet, bad matrices and codes and
channels of other alphabets."""

import os
import pickle
import tempfile
import unittest

import numpy as np

import bsid_core as bsid

# DNA-like: transitions (A<->G, C<->T) likelier than transversions
S_DNA = np.array([[0.97, 0.005, 0.02, 0.005],
                  [0.005, 0.97, 0.005, 0.02],
                  [0.02, 0.005, 0.97, 0.005],
                  [0.005, 0.02, 0.005, 0.97]])


class qa_channel_params_alphabet(unittest.TestCase):

    def test_001_alphabet_and_uniform_substitutions(self):
        ch = bsid.channel_params(0.01, 0.02, 0.03, alphabet=4)
        self.assertEqual(ch.alphabet, 4)
        self.assertIsNone(ch.substitution)
        self.assertEqual(repr(ch), "channel_params(Pi=0.01, Pd=0.02, Ps=0.03, alphabet=4)")
        self.assertEqual(eval("bsid." + repr(ch)), ch)
        self.assertEqual(pickle.loads(pickle.dumps(ch)), ch)
        self.assertEqual(bsid.channel_params(0.1, 0.1, 0.1).alphabet, 2)
        self.assertEqual(bsid.channel_params(0.1, 0.1, 0.1, 2), bsid.channel_params(0.1, 0.1, 0.1))
        self.assertNotEqual(bsid.channel_params(0.1, 0.1, 0.1, 3),
                            bsid.channel_params(0.1, 0.1, 0.1))
        for bad in (1, 0, 257, -2):
            with self.assertRaisesRegex(ValueError, "alphabet = %d must be in \\[2, 256\\]" % bad):
                bsid.channel_params(0, 0, 0, alphabet=bad)

    def test_002_substitution_matrix(self):
        ch = bsid.channel_params(0.01, 0.01, substitution=S_DNA, alphabet=4)
        self.assertTrue(np.array_equal(ch.substitution, S_DNA))
        self.assertEqual(ch.substitution.shape, (4, 4))
        self.assertAlmostEqual(ch.Ps, 0.03, places=15)  # the mean of 1 - S[x][x]
        self.assertEqual(pickle.loads(pickle.dumps(ch)), ch)
        self.assertEqual(eval("bsid." + repr(ch), {"bsid": bsid}), ch)
        # Ps is not used with a matrix: the same channel whatever Ps was given
        self.assertEqual(bsid.channel_params(0.01, 0.01, 0.2, 4, S_DNA.tolist()), ch)
        self.assertNotEqual(bsid.channel_params(0.01, 0.01, 0.03, 4), ch)

    def test_003_bad_matrices_are_refused_clearly(self):
        with self.assertRaisesRegex(ValueError, r"A x A matrix with A = alphabet = 4, got shape \(3, 3\)"):
            bsid.channel_params(0, 0, 0, 4, np.eye(3))
        with self.assertRaisesRegex(ValueError, r"got shape \(16,\)"):
            bsid.channel_params(0, 0, 0, 4, np.eye(4).ravel())
        with self.assertRaisesRegex(ValueError, "row 1 of the substitution matrix sums to 1.5"):
            bsid.channel_params(0, 0, 0, 2, [[1, 0], [0.5, 1]])
        with self.assertRaisesRegex(ValueError, r"substitution\[0\]\[1\] = nan"):
            bsid.channel_params(0, 0, 0, 2, [[1, float("nan")], [0, 1]])
        with self.assertRaisesRegex(TypeError, "array of numbers"):
            bsid.channel_params(0, 0, 0, 2, [["a", "b"], ["c", "d"]])


class qa_codebook_alphabet(unittest.TestCase):

    def test_001_words_are_base_A_digits(self):
        cb = bsid.codebook(3, [[27, 0, 63, 4]], alphabet=4)
        self.assertEqual(cb.alphabet, 4)
        letters = cb.encode([0, 2, 3, 1])
        self.assertEqual(letters.dtype, np.uint8)
        self.assertEqual(letters.tolist(), [1, 2, 3, 3, 3, 3, 0, 1, 0, 0, 0, 0])
        self.assertEqual(repr(cb), "codebook(n=3, q=4, P=1, alphabet=4)")
        self.assertEqual(pickle.loads(pickle.dumps(cb)), cb)
        self.assertNotEqual(bsid.codebook(2, [[0, 1]], alphabet=3), bsid.codebook(2, [[0, 1]]))
        self.assertEqual(bsid.codebook(2, [[0, 1]]).alphabet, 2)

    def test_002_specs_take_the_alphabet(self):
        cb = bsid.codebook.from_spec("random:4:16:2:7", alphabet=4)
        self.assertEqual((cb.n, cb.q, cb.P, cb.alphabet), (4, 16, 2, 4))
        self.assertEqual(cb, bsid.codebook.random(4, 16, 2, 7, alphabet=4))
        self.assertTrue(all(0 <= w < 4 ** 4 for book in cb.books for w in book))
        sp = bsid.codebook.from_spec("sparse:3:7", alphabet=3)
        self.assertEqual(sp.books[0], [0, 1, 2, 3, 6, 9, 18])
        with self.assertRaisesRegex(ValueError, "built-in codebooks .* are binary"):
            bsid.codebook.from_spec("builtin:ld3-modvec6", alphabet=4)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "dna.txt")
            cb.save(path)
            self.assertEqual(bsid.codebook.from_spec("file:" + path, alphabet=4), cb)
            with self.assertRaisesRegex(ValueError, "the code's alphabet is 4, not alphabet = 2"):
                bsid.codebook.from_spec("file:" + path)
        with self.assertRaisesRegex(ValueError, "more than 2\\^32 words"):
            bsid.codebook.random(17, 16, 1, 0, alphabet=4)


class qa_transmit_letters(unittest.TestCase):

    def test_001_letters_through_the_channel(self):
        ch = bsid.channel_params(0.03, 0.03, 0.03, alphabet=4)
        x = np.random.default_rng(1).integers(0, 4, 5000).astype(np.uint8)
        rx, drift = bsid.transmit(ch, x, 11, 2)
        self.assertEqual(rx.dtype, np.uint8)
        self.assertTrue(rx.max() < 4)
        self.assertEqual(len(rx) - len(x), drift[-1])
        rx2, _ = bsid.transmit(ch, x.tolist(), seed=11, frame=2)
        self.assertTrue(np.array_equal(rx, rx2))
        em = bsid.channel_emulator(ch, 11, 2)
        got = np.concatenate([em.process(x[:1234]), em.process(x[1234:])])
        self.assertTrue(np.array_equal(got, rx))

    def test_002_a_letter_outside_the_alphabet_is_named(self):
        ch = bsid.channel_params(0.01, 0.01, 0.01, alphabet=4)
        with self.assertRaisesRegex(ValueError, "value 4 at position 2 is not a letter of the "
                                                "alphabet \\(expected 0 to 3\\)"):
            bsid.transmit(ch, [0, 3, 4, 1], 1)
        with self.assertRaisesRegex(ValueError, "input byte 7 at position 1 is not a letter"):
            bsid.transmit(ch, np.array([0, 7], dtype=np.uint8), 1)
        with self.assertRaisesRegex(ValueError, "not a bit"):
            bsid.transmit(bsid.channel_params(0.01, 0.01, 0.01), [0, 2], 1)

    def test_003_the_matrix_channel(self):
        ch = bsid.channel_params(0, 0, 0, 4, S_DNA)
        x = np.random.default_rng(2).integers(0, 4, 200000).astype(np.uint8)
        rx, _ = bsid.transmit(ch, x, 5)
        self.assertEqual(len(rx), len(x))
        counts = np.zeros((4, 4))
        np.add.at(counts, (x, rx), 1)
        freq = counts / counts.sum(axis=1, keepdims=True)
        # 5 sigma of a binomial frequency at ~50000 letters a row
        self.assertTrue(np.all(np.abs(freq - S_DNA) < 5 * np.sqrt(S_DNA * (1 - S_DNA) / 50000) + 1e-12),
                        freq)

    def test_004_decoders_refuse_mismatched_alphabets(self):
        cb = bsid.codebook.from_spec("random:4:16:1:1", alphabet=4)
        with self.assertRaisesRegex(ValueError, "codebook's alphabet is 4 letters but the channel's is 2"):
            bsid.map_decoder_core(cb, bsid.channel_params(0.01, 0.01, 0), 10)

    def test_005_parts_that_work_on_bits_say_so(self):
        # map_decoder_core frames its input (sync words, boundaries): bits for now
        cb = bsid.codebook.from_spec("random:4:16:1:1", alphabet=4)
        with self.assertRaisesRegex(ValueError, "the channel's alphabet has 4 letters; this "
                                                "part works on bits"):
            bsid.map_decoder_core(cb, bsid.channel_params(0.01, 0.01, 0, alphabet=4), 10)


if __name__ == "__main__":
    unittest.main()
