#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""bsid-sim --information-rate (docs/capacity.md): its rows against
bsid_core.information_rate on the same frames, the N sweep, the CSV, JSON and
plot, and the setups it refuses."""

import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

import bsid_core as bsid

try:
    import matplotlib  # noqa: F401
    HAVE_MPL = True
except ImportError:
    HAVE_MPL = False


def run(args):
    cli = [sys.executable, "-m", "bsid_sim", "--progress", "none"] + args
    return subprocess.run(cli, capture_output=True, text=True, env=os.environ, timeout=300)


class qa_sim_rate(unittest.TestCase):

    def test_001_sweep_rows_are_the_core_rates(self):
        with tempfile.TemporaryDirectory() as d:
            csv_path, json_path = os.path.join(d, "r.csv"), os.path.join(d, "r.json")
            out = run(["--codebook", "builtin:ld3-modvec6", "-N", "10", "--sweep", "p",
                       "--values", "0.01,0.05", "--Ps", "0.01", "--information-rate",
                       "--rate-frames", "20", "--seed", "3", "--backend", "cpu",
                       "--precision", "double", "--csv", csv_path, "--json", json_path])
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("information rate", out.stdout)
            with open(json_path) as f:
                rows = json.load(f)
            with open(csv_path) as f:
                table = list(csv.DictReader(f))
        self.assertEqual(len(rows), 2)
        self.assertEqual(len(table), 2)
        cb = bsid.codebook.builtin("ld3-modvec6")
        for row, line, p in zip(rows, table, (0.01, 0.05)):
            want = bsid.information_rate(cb, bsid.channel_params(p, p, 0.01), 10, frames=20,
                                         seed=3, backend="cpu")
            self.assertEqual(row["rate"], want.rate)
            self.assertEqual((row["rate_lo"], row["rate_hi"]), want.ci)
            self.assertEqual(row["frames"], 20)
            self.assertEqual(row["code_rate"], 0.5)
            self.assertEqual((row["Pi"], row["Pd"], row["Ps"]), (p, p, 0.01))
            self.assertAlmostEqual(float(line["rate"]), want.rate, places=12)
        # more synchronization errors, less rate
        self.assertLess(rows[1]["rate_hi"], rows[0]["rate_lo"])

    def test_002_sweep_N(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "n.json")
            args = ["--codebook", "sparse:1:2", "--Pi", "0.05", "--Pd", "0.05",
                    "--sweep", "N", "--values", "20,80", "--information-rate",
                    "--rate-frames", "30", "--backend", "cpu", "--json", path, "-q"]
            if HAVE_MPL:
                args += ["--plot", os.path.join(d, "n.png")]
            out = run(args)
            self.assertEqual(out.returncode, 0, out.stderr)
            with open(path) as f:
                rows = json.load(f)
            if HAVE_MPL:
                self.assertGreater(os.path.getsize(os.path.join(d, "n.png")), 1000)
        self.assertEqual([r["N"] for r in rows], [20, 80])
        self.assertEqual([r["sweep"] for r in rows], ["N", "N"])
        for r in rows:
            self.assertTrue(0 < r["rate"] < 1)
            self.assertEqual(r["code_rate"], 1.0)

    def test_003_sweep_all_sets_every_probability(self):
        out = run(["--codebook", "sparse:1:2", "-N", "30", "--sweep", "all", "--values",
                   "0.01,0.03", "--information-rate", "--rate-frames", "10", "--backend", "cpu",
                   "--json", "-", "-q"])
        self.assertEqual(out.returncode, 0, out.stderr)
        rows = json.loads(out.stdout)
        self.assertEqual([(r["Pi"], r["Pd"], r["Ps"]) for r in rows],
                         [(0.01, 0.01, 0.01), (0.03, 0.03, 0.03)])
        cb = bsid.codebook.sparse(1, 2)
        want = bsid.information_rate(cb, bsid.channel_params(0.03, 0.03, 0.03), 30, frames=10,
                                     seed=1, backend="cpu", precision="float")
        self.assertEqual(rows[1]["rate"], want.rate)

    def test_004_refused(self):
        base = ["--codebook", "sparse:1:2", "-N", "10", "--Pi", "0.01", "--information-rate"]
        for extra, msg in ((["--outer", "ldpc-regular:60:30:2:3:1"], "no --estimate or --outer"),
                           (["--framing", "stream"], "known ends"),
                           (["--reads", "2"], "known ends"),
                           (["--sync-word", "0110"], "known ends"),
                           (["--rate-frames", "1"], "must be at least"),
                           ):
            out = run(base + extra)
            self.assertEqual(out.returncode, 2, extra)
            self.assertIn(msg, out.stderr, extra)
        out = run(["--codebook", "sparse:1:2", "--Pi", "0.01", "--sweep", "N",
                   "--values", "10,20", "--max-frames", "1"])
        self.assertEqual(out.returncode, 2)
        self.assertIn("--sweep N goes with --information-rate", out.stderr)
        out = run(base[:-1] + ["--sweep", "N", "--values", "10", "--information-rate"])
        self.assertEqual(out.returncode, 2)
        self.assertIn("cannot be given with --sweep N", out.stderr)


if __name__ == "__main__":
    unittest.main()
