#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Code search (bsid_sim.code_search, bsid-design codebook; docs/capacity.md): the
training rate never falls, each kept book's rate is the core's on the same
frames, the search finds the optimum where it is known (on the BSC, two words
of 3 bits at distance 3: a repetition code and its shifts), the comparison
rows, the command and its errors."""

import itertools
import json
import os
import subprocess
import sys
import tempfile
import unittest

import bsid_core as bsid
from bsid_sim import code_search


def distance(a, b):
    return bin(a ^ b).count("1")


class qa_code_search(unittest.TestCase):

    def test_001_training_rate_rises_and_is_the_cores(self):
        ch = bsid.channel_params(0.03, 0.03, 0.01)
        seen = []
        found = code_search.search(4, 4, 2, ch, 12, iterations=25, frames=40, seed=5,
                                   backend="cpu", progress=lambda it, r, b: seen.append(b))
        self.assertEqual(found.evaluations, 26)
        self.assertEqual(len(seen), 25)
        self.assertEqual(seen, sorted(seen))  # the best so far never falls
        rates = [r for _, r in found.history]
        self.assertEqual(rates, sorted(rates))
        self.assertGreaterEqual(found.rate, found.start_rate)
        self.assertEqual((found.codebook.n, found.codebook.q, found.codebook.P), (4, 4, 2))
        again = bsid.information_rate(found.codebook, ch, 12, frames=40, seed=1,
                                      backend="cpu")
        self.assertEqual(again.rate, found.rate)
        start = bsid.information_rate(bsid.codebook.random(4, 4, 2, 5), ch, 12, frames=40,
                                      seed=1, backend="cpu")
        self.assertEqual(start.rate, found.start_rate)

    def test_002_finds_the_best_code_on_the_bsc(self):
        # two words of 3 bits on the BSC: the best pairs are at distance 3
        # ({000, 111}, {001, 110}, ...); the worst start is at distance 1
        ch = bsid.channel_params(0, 0, 0.1)
        start = bsid.codebook(3, [[0, 1]])
        found = code_search.search(3, 2, 1, ch, 20, iterations=40, frames=200, seed=2,
                                   start=start, backend="cpu")
        a, b = found.codebook.books[0]
        self.assertEqual(distance(a, b), 3)
        # and the best rate over every pair, on the same frames, is the one found
        best = max(bsid.information_rate(bsid.codebook(3, [[x, y]]), ch, 20, frames=200,
                                         seed=1, backend="cpu").rate
                   for x, y in itertools.combinations(range(8), 2))
        self.assertAlmostEqual(found.rate, best, places=12)

    def test_003_compare(self):
        ch = bsid.channel_params(0.01, 0.01, 0)
        rows = code_search.compare(bsid.codebook.builtin("ld3-modvec6"), ch, 10, frames=10,
                                   backend="cpu")
        names = [r["codebook"] for r in rows]
        self.assertEqual(names[0], "found")
        for want in ("random:8:16:6:1", "sparse:8:16", "watermark:8:16:6:1",
                     "builtin:ld3-modvec6"):
            self.assertIn(want, names)
        for r in rows:
            self.assertEqual(set(code_search.COLUMNS), set(r))
            self.assertTrue(r["rate_lo"] <= r["rate"] <= r["rate_hi"])
            self.assertLessEqual(r["rate"], r["code_rate"] + 1e-12)
        # the built-in book compared with itself: the same frames, the same rate
        by = {r["codebook"]: r["rate"] for r in rows}
        self.assertEqual(by["found"], by["builtin:ld3-modvec6"])

    def test_004_errors(self):
        ch = bsid.channel_params(0.01, 0.01, 0)
        with self.assertRaisesRegex(ValueError, "nothing to search"):
            code_search.search(2, 4, 1, ch, 10)
        with self.assertRaisesRegex(ValueError, r"\(n, q, P, A\)"):
            code_search.search(4, 4, 1, ch, 10, start="random:4:8:1:1")
        with self.assertRaisesRegex(ValueError, "alphabet"):
            code_search.search(4, 4, 1, ch, 10, alphabet=4)

    def test_005_command(self):
        cli = [sys.executable, "-c", "import sys, bsid_sim.design_cli as c; "
               "sys.exit(c.main(sys.argv[1:]))", "codebook"]
        with tempfile.TemporaryDirectory() as d:
            book = os.path.join(d, "found.txt")
            out = subprocess.run(cli + ["-n", "4", "-q", "4", "-P", "2", "-N", "10", "--Pi",
                                        "0.02", "--Pd", "0.02", "--iterations", "5",
                                        "--frames", "10", "--check-frames", "10",
                                        "--backend", "cpu", "-o", book, "--json", "-"],
                                 capture_output=True, text=True, env=os.environ, timeout=300)
            self.assertEqual(out.returncode, 0, out.stderr)
            rows = json.loads(out.stdout)
            self.assertEqual(rows[0]["codebook"], "found")
            cb = bsid.codebook.load(book)
            self.assertEqual((cb.n, cb.q, cb.P), (4, 4, 2))
            bad = subprocess.run(cli + ["-n", "4", "-q", "4", "-N", "10", "--frames", "1"],
                                 capture_output=True, text=True, env=os.environ)
            self.assertEqual(bad.returncode, 2)
            self.assertIn("--frames must be at least 2", bad.stderr)
            bad = subprocess.run(cli + ["-n", "2", "-q", "4", "-N", "10"],
                                 capture_output=True, text=True, env=os.environ)
            self.assertEqual(bad.returncode, 1)
            self.assertIn("nothing to search", bad.stderr)


if __name__ == "__main__":
    unittest.main()
