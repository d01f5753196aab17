#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Outer-code design (bsid_sim.ldpc_design, bsid-design ldpc and exit;
docs/capacity.md): the EXIT staircase on curves whose answer is known, the
outer threshold's bisection against the decoded fractions it measured, the
ranking, and the commands."""

import json
import os
import subprocess
import sys
import unittest

import bsid_core as bsid
from bsid_sim import ldpc_design


def cli(*args):
    cmd = [sys.executable, "-c", "import sys, bsid_sim.design_cli as c; "
           "sys.exit(c.main(sys.argv[1:]))"] + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, env=os.environ, timeout=600)


class qa_ldpc_design(unittest.TestCase):

    def test_001_trajectory(self):
        # an inner line above the outer's inverse: the staircase reaches 1
        inner = [(0.0, 0.5), (1.0, 1.0)]
        outer = [(0.0, 0.0), (0.5, 0.2), (0.8, 0.7), (1.0, 1.0)]
        ok, steps = ldpc_design.trajectory(inner, outer)
        self.assertTrue(ok)
        # each step: y = inner(x), then x = outer(y), rising
        xs = [x for x, _ in steps]
        self.assertEqual(xs, sorted(xs))
        self.assertAlmostEqual(steps[1][0], 0.2, places=12)  # outer(inner(0)) = outer(0.5)
        self.assertAlmostEqual(steps[2][0], 0.2 + (0.6 - 0.5) / 0.3 * 0.5, places=12)
        # an outer code that needs more than the inner ever gives: stuck
        outer = [(0.0, 0.0), (0.6, 0.05), (0.9, 0.5), (1.0, 1.0)]
        ok, steps = ldpc_design.trajectory([(0.0, 0.5), (1.0, 0.7)], outer)
        self.assertFalse(ok)
        self.assertLess(steps[-1][0], 0.5)

    def test_002_outer_threshold(self):
        code = bsid.ldpc_code.peg(120, 40, 16, "2=0.5,3=0.5", 1)
        star, tried = ldpc_design.outer_threshold(code, frames=10, steps=6)
        self.assertTrue(0.3 < star < 0.995)
        # the threshold is a point measured to decode half the words, and every
        # point tried below it (after the ends) decoded fewer
        by = dict(tried)
        self.assertGreaterEqual(by[star], 0.5)
        for ia, frac in tried:
            if ia < star and ia not in (0.2, 0.995):
                self.assertLess(frac, 0.5)
        # against the curve itself, the same words
        p = bsid.outer_exit_curve(code, [star], frames=10)[0]
        self.assertEqual(p.decoded, by[star])

    def test_003_design_ranks(self):
        rows, first = ldpc_design.design("random:3:8:4:1", 60, 20, [0.0, 0.02],
                                         candidates=["2=1", "3=1"], frames=10,
                                         inner_frames=10, backend="cpu")
        self.assertEqual(len(rows), 2)
        self.assertEqual({r["degrees"] for r in rows}, {"2=1", "3=1"})
        self.assertLessEqual(rows[0]["threshold_ia"], rows[1]["threshold_ia"])
        for r in rows:
            self.assertEqual(set(r), set(ldpc_design.COLUMNS))
            self.assertTrue(r["spec"].startswith("ldpc-peg:60:20:8:"))
            self.assertAlmostEqual(r["rate"], 40 / 60)
        self.assertEqual([p for p, _, _ in first], [0.0, 0.02])
        # no synchronization errors and no substitutions: the inner decoder
        # knows every symbol
        self.assertAlmostEqual(first[0][1], 1.0, places=9)
        with self.assertRaisesRegex(ValueError, "power of two"):
            ldpc_design.design("random:3:6:1:1", 60, 20, [0.01])

    def test_004_commands(self):
        out = cli("exit", "--codebook", "builtin:ld3-modvec6", "-N", "12", "--Pi", "0.02",
                  "--Pd", "0.02", "--outer", "ldpc-regular:60:30:16:3:1", "--ia", "0,0.5",
                  "--frames", "6", "--backend", "cpu", "--json", "-")
        self.assertEqual(out.returncode, 0, out.stderr)
        rows = json.loads(out.stdout)
        self.assertEqual([r["curve"] for r in rows], ["inner", "inner", "outer", "outer"])
        self.assertEqual(rows[0]["sigma"], 0)
        out = cli("ldpc", "--codebook", "random:3:8:4:1", "--outer-n", "60", "--outer-M", "20",
                  "--p", "0.01", "--candidates", "2=1;2=0.5,3=0.5", "--frames", "6",
                  "--inner-frames", "6", "--backend", "cpu", "--json", "-", "--quiet")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(len(json.loads(out.stdout)), 2)
        bad = cli("exit", "--frames", "4")
        self.assertEqual(bad.returncode, 2)
        self.assertIn("--codebook", bad.stderr)
        bad = cli("ldpc", "--codebook", "random:3:8:4:1", "--outer-n", "60", "--outer-M",
                  "20", "--p", "0.01", "--candidates", "2=0.5")
        self.assertEqual(bad.returncode, 1)
        self.assertIn("sum to 0.5", bad.stderr)


if __name__ == "__main__":
    unittest.main()
