#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""bsid-sim --outer: concatenated schemes (docs/concatenated.md): the error
rates of the information symbols after the iterative decoder, the FER by
pass, the CSV/JSON columns, failure dumps and their replay, the Python API,
and clear errors."""

import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import bsid_core as bsid
from bsid_sim import simulate
from bsid_sim.results import COLUMNS, read_results

EXE = os.environ.get("BSID_SIM")
CODE = "ldpc-regular:60:30:16:3:1"
SCHEME = ["--codebook", "random:6:16:3:11", "--outer", CODE, "--backend", "cpu",
          "--threads", "2", "--progress", "none"]


def run(args, timeout=300):
    cmd = ([EXE] if EXE else [sys.executable, "-m", "bsid_sim"]) + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


class qa_sim_outer(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_counts_match_an_independent_decode(self):
        """The point's counts equal those of the frames decoded here, frame by
        frame, through the Python API of the same decoder."""
        js = os.path.join(self.dir, "o.json")
        r = run(SCHEME + ["--Pi", "0.05", "--Pd", "0.05", "--Ps", "0.01", "--iterations", "3",
                          "--max-frames", "60", "--rel-error", "0", "--json", js])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(js) as fh:
            row = json.load(fh)[0]
        code = bsid.ldpc_code.from_spec(CODE)
        cb = bsid.codebook.from_spec("random:6:16:3:11")
        ch = bsid.channel_params(0.05, 0.05, 0.01)
        self.assertEqual(row["N"], 60)
        self.assertEqual((row["outer"], row["outer_n"], row["outer_k"], row["outer_q"]),
                         (CODE, 60, code.k, 16))
        self.assertAlmostEqual(row["rate"], code.k * 4 / (60 * 6))
        inner = bsid.map_decoder_core(cb, ch, 60, backend="cpu", precision="float")
        dec = bsid.concatenated_decoder_core(inner, code, iterations=3, bp_iterations=50)
        src = bsid.frame_source(cb, ch, 0, 1, outer=code)
        batch = src.generate(0, 60)
        got = dec.decode([batch.rx(k) for k in range(60)])
        wrong = [bool((g["info"] != batch.info[k]).any()) for k, g in enumerate(got)]
        self.assertEqual(row["frames"], 60)
        self.assertEqual(row["frame_errors"], sum(wrong))
        self.assertEqual(row["symbols"], 60 * code.k)
        self.assertEqual(row["symbol_errors"],
                         sum(int((g["info"] != batch.info[k]).sum()) for k, g in enumerate(got)))
        self.assertAlmostEqual(row["mean_iterations"],
                               sum(g["iterations"] for g in got) / 60)
        fer = row["fer_by_iteration"]
        self.assertEqual(len(fer), 3)
        self.assertAlmostEqual(fer[-1], row["fer"])
        self.assertGreater(fer[0], 0.0, "this channel must need the passes")
        self.assertTrue(all(b <= a for a, b in zip(fer, fer[1:])), fer)

    def test_csv_round_trip_and_columns(self):
        path = os.path.join(self.dir, "o.csv")
        r = run(SCHEME + ["--sweep", "p", "--values", "0.01,0.04", "--Ps", "0.01",
                          "--iterations", "2", "--max-frames", "30", "--csv", path])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(path) as fh:
            header = next(csv.reader(fh))
        self.assertEqual(header, COLUMNS)
        rows = read_results(path)
        self.assertEqual(len(rows), 2)
        for row in rows:
            self.assertEqual(row["outer"], CODE)
            self.assertEqual(len(row["fer_by_iteration"]), 2)
            self.assertAlmostEqual(row["fer_by_iteration"][-1], row["fer"])
        self.assertIn("after the outer code: FER by pass", r.stdout)

    def test_failure_dump_replays(self):
        dumps = os.path.join(self.dir, "fails")
        r = run(SCHEME + ["--Pi", "0.06", "--Pd", "0.06", "--Ps", "0.01", "--iterations", "2",
                          "--max-frames", "30", "--dump-failures", dumps, "--dump-max", "2"])
        self.assertEqual(r.returncode, 0, r.stderr)
        files = sorted(os.listdir(dumps))
        self.assertTrue(files, "this channel must fail some frames")
        with open(os.path.join(dumps, files[0])) as fh:
            doc = json.load(fh)
        self.assertEqual(doc["outer"], CODE)
        self.assertEqual(len(doc["info"]), len(doc["decisions"]))
        self.assertNotEqual(doc["info"], doc["decisions"])
        r = run(["--replay", os.path.join(dumps, files[0])])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("decisions reproduced: yes", r.stdout)

    def test_python_api(self):
        res = simulate("random:6:16:3:11", 0, Pi=0.01, Pd=0.01, outer=CODE, iterations=2,
                       backend="cpu", threads=2, max_frames=20, rel_error=0)
        self.assertEqual(res[0].frames, 20)
        self.assertEqual(res[0].config.N, 60)
        self.assertEqual(len(res[0].fer_by_pass()), 2)

    def test_several_reads(self):
        """--reads M with --outer: every pass decodes each frame from all its
        reads. The point's counts equal the Python API's on the same frames,
        read 0 is the frame of one read, and two reads decode what one cannot."""
        rows = {}
        for M, method in ((1, None), (2, "joint"), (3, "combine")):
            js = os.path.join(self.dir, f"r{M}.json")
            extra = ["--reads", str(M)] + (["--read-method", method] if method else [])
            r = run(SCHEME + ["--Pi", "0.05", "--Pd", "0.05", "--Ps", "0.01",
                              "--iterations", "3", "--max-frames", "40", "--rel-error", "0",
                              "--json", js] + extra)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(js) as fh:
                rows[M] = json.load(fh)[0]
            self.assertEqual((rows[M]["reads"], rows[M]["frames"]), (M, 40))
        self.assertEqual((rows[2]["read_method"], rows[3]["read_method"]), ("joint", "combine"))
        self.assertGreater(rows[1]["fer"], 0.2, "one read must fail often here")
        self.assertLess(rows[2]["fer"], rows[1]["fer"] / 4)
        self.assertLess(rows[3]["fer"], rows[1]["fer"] / 4)
        # the same counts through the Python API
        code = bsid.ldpc_code.from_spec(CODE)
        cb = bsid.codebook.from_spec("random:6:16:3:11")
        ch = bsid.channel_params(0.05, 0.05, 0.01)
        inner = bsid.map_decoder_core(cb, ch, 60, backend="cpu", precision="float")
        dec = bsid.concatenated_decoder_core(inner, code, iterations=3, bp_iterations=50)
        batch = bsid.frame_source(cb, ch, 0, 1, outer=code, reads=2).generate(0, 40)
        self.assertEqual(batch.reads, 2)
        one = bsid.frame_source(cb, ch, 0, 1, outer=code).generate(0, 40)
        for k in range(40):
            np.testing.assert_array_equal(batch.rx(k), one.rx(k))
        c = dec.count_errors(batch, read_method="joint")
        self.assertEqual(int((c["symbol_errors"] > 0).sum()), rows[2]["frame_errors"])
        self.assertEqual(int(c["symbol_errors"].sum()), rows[2]["symbol_errors"])
        self.assertEqual(int(c["bit_errors"].sum()), rows[2]["bit_errors"])
        with self.assertRaisesRegex(ValueError, "several reads per frame"):
            dec.count_errors(one, read_method="joint")

    def test_bad_input_is_a_clear_error(self):
        for extra, words in (
                (["-N", "50"], "leave N out"),
                (["--outer", "ldpc:/nonexistent.alist"], "--outer"),
                (["--framing", "stream"], "genie framing"),
                (["--estimate"], "no --outer"),
                (["--iterations", "0"], "must be at least 1"),
                (["--bp-iterations", "0"], "must be at least 1")):
            args = list(SCHEME) + ["--Pi", "0.01", "--max-frames", "5"]
            if extra[0] == "--outer":
                args[args.index("--outer") + 1] = extra[1]
            else:
                args += extra
            r = run(args)
            self.assertEqual(r.returncode, 2, (extra, r.stderr))
            self.assertIn(words, r.stderr, extra)
        # an inner code whose q is no power of two cannot carry GF(16) symbols bitwise
        r = run(["--codebook", "random:6:10:2:1", "--outer", CODE, "--Pi", "0.01",
                 "--max-frames", "5", "--backend", "cpu"])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("power of two", r.stderr)


if __name__ == "__main__":
    unittest.main()
