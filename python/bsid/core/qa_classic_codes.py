#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The classic inner codes from Python (docs/capacity.md): codebook.watermark
and codebook.marker against their definitions and specs, their errors, and
their information rates below their code rates. The C++ test
qa_classic_codes checks the watermark draw itself."""

import math
import unittest

import bsid_core as bsid


def digits(w, n, A):
    out = []
    for _ in range(n):
        out.append(w % A)
        w //= A
    return out[::-1]


class qa_classic_codes(unittest.TestCase):

    def test_001_watermark(self):
        for n, q, P, seed, A in ((6, 8, 5, 3, 2), (4, 10, 7, 1, 4)):
            cb = bsid.codebook.watermark(n, q, P, seed, alphabet=A)
            self.assertEqual((cb.n, cb.q, cb.P, cb.alphabet), (n, q, P, A))
            self.assertEqual(cb.spec, f"watermark:{n}:{q}:{P}:{seed}")
            self.assertEqual(bsid.codebook.from_spec(cb.spec, alphabet=A).books, cb.books)
            sparse = bsid.codebook.sparse(n, q, alphabet=A).books[0]
            for book in cb.books:
                # every word of a book is the sparse word plus one watermark word
                w = [(c - s) % A for c, s in zip(digits(book[0], n, A), digits(sparse[0], n, A))]
                for D in range(q):
                    want = [(s + m) % A for s, m in zip(digits(sparse[D], n, A), w)]
                    self.assertEqual(digits(book[D], n, A), want)

    def test_002_marker(self):
        cb = bsid.codebook.marker(4, "01")
        self.assertEqual((cb.n, cb.q, cb.P), (6, 16, 1))
        self.assertEqual(cb.books[0], [(D << 2) | 0b01 for D in range(16)])
        self.assertEqual(bsid.codebook.marker(4, [0, 1]).books, cb.books)
        self.assertEqual(bsid.codebook.from_spec("marker:4:01").books, cb.books)
        dna = bsid.codebook.marker(2, "GT", alphabet=4)
        self.assertEqual((dna.n, dna.q, dna.alphabet), (4, 16, 4))
        self.assertEqual(dna.books[0], [D * 16 + 2 * 4 + 3 for D in range(16)])
        with self.assertRaisesRegex(ValueError, "not in 0 .. 1"):
            bsid.codebook.marker(4, [0, 2])
        with self.assertRaisesRegex(ValueError, "at least one marker letter"):
            bsid.codebook.marker(4, "")
        with self.assertRaisesRegex(ValueError, "65536"):
            bsid.codebook.marker(20, "0")
        with self.assertRaisesRegex(ValueError, "the marker"):
            bsid.codebook.from_spec("marker:4:0x")

    def test_003_rates_below_the_code_rate(self):
        ch = bsid.channel_params(0.01, 0.01, 0.01)
        for cb in (bsid.codebook.marker(4, "01"), bsid.codebook.watermark(8, 16, 30, 1)):
            r = bsid.information_rate(cb, ch, 30, frames=20, backend="cpu")
            code_rate = math.log2(cb.q) / cb.n
            self.assertTrue((r.samples <= code_rate + 1e-12).all())
            self.assertGreater(r.rate, 0.5 * code_rate)


if __name__ == "__main__":
    unittest.main()
