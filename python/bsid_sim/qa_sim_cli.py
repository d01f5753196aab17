#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The bsid-sim command: a small sweep with its CSV, JSON and PNG, stopping
rules, failure dumps and their replay, plots of several result files, clear
errors, and life without tqdm or matplotlib."""

import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import unittest

import numpy as np

import bsid_core as bsid
from bsid_sim.results import COLUMNS

EXE = os.environ.get("BSID_SIM")
try:
    import matplotlib  # noqa: F401
    HAVE_MPL = True
except ImportError:
    HAVE_MPL = False


def command(args, pre=None):
    """The command line of bsid-sim (the build tree's script, else python -m bsid_sim)."""
    if pre is not None:
        # a prelude before main(): e.g. hide an optional module
        return [sys.executable, "-c",
                pre + "\nimport sys, bsid_sim\nsys.exit(bsid_sim.main(sys.argv[1:]))"] + args
    if EXE:
        return [EXE] + args
    return [sys.executable, "-m", "bsid_sim"] + args


def run(args, timeout=120, pre=None):
    """Runs bsid-sim; returns the CompletedProcess, stdout and stderr as text."""
    return subprocess.run(command(args, pre), capture_output=True, text=True, timeout=timeout)


TINY = ["--codebook", "builtin:ld3-modvec6", "-N", "12", "--backend", "cpu", "--threads", "2"]


class qa_sim_cli(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def test_001_sweep_of_three_points_writes_csv_json_png(self):
        t0 = time.monotonic()
        args = TINY + ["--sweep", "p", "--values", "0.01:0.04:x2", "--Ps", "0.001",
                       "--max-frames", "400", "--max-time", "10", "--seed", "5",
                       "--csv", self.path("r.csv"), "--json", self.path("r.json"),
                       "--progress", "lines"]
        if HAVE_MPL:
            args += ["--plot", self.path("r.png")]
        out = run(args)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertLess(time.monotonic() - t0, 60)
        with open(self.path("r.csv")) as fh:
            rows = list(csv.DictReader(fh))
        with open(self.path("r.json")) as fh:
            jrows = json.load(fh)
        self.assertEqual(len(rows), 3)
        self.assertEqual(len(jrows), 3)
        self.assertEqual(list(rows[0].keys()), COLUMNS)
        for r, j, p in zip(rows, jrows, (0.01, 0.02, 0.04)):
            self.assertEqual(list(j.keys()), COLUMNS)
            self.assertEqual((r["sync_word"], j["sync_word"]), ("", ""))  # none given
            for k in COLUMNS:
                if k == "sync_word":
                    continue
                self.assertNotIn(str(r[k]).lower(), ("nan", "inf", "-inf", ""), k)
                if isinstance(j[k], float):
                    self.assertTrue(math.isfinite(j[k]), k)
                    self.assertEqual(float(r[k]), j[k], k)  # CSV keeps every digit
            self.assertEqual((j["Pi"], j["Pd"], j["Ps"], j["sweep"]), (p, p, 0.001, "p"))
            self.assertEqual((j["codebook"], j["n"], j["q"], j["P"], j["N"]),
                             ("builtin:ld3-modvec6", 8, 16, 6, 12))
            self.assertEqual((j["seed"], j["backend"]), (5, "cpu"))
            lim = bsid.decoder_limits(12, 8, p, p)
            self.assertEqual((j["mtau_lo"], j["mtau_hi"]), lim["mtau"])
            self.assertEqual((j["mn_lo"], j["mn_hi"]), lim["mn"])
            self.assertEqual(j["symbols"], 12 * j["frames"])
            self.assertEqual(j["bits"], 48 * j["frames"])
            for m in ("fer", "ser", "ber"):
                self.assertLessEqual(j[m + "_lo"], j[m])
                self.assertLessEqual(j[m], j[m + "_hi"])
            self.assertAlmostEqual(j["ser"], j["symbol_errors"] / j["symbols"])
            self.assertGreater(j["frames_per_s"], 0)
            self.assertIn(j["stopped_by"], ("rel-error", "max-frames", "max-time"))
            # every result is printed with its interval
            self.assertIn(f"SER {j['ser']:.4e}  [{j['ser_lo']:.4e}, {j['ser_hi']:.4e}]",
                          out.stdout)
        # more errors at a worse channel
        self.assertLess(jrows[0]["ser"], jrows[2]["ser"])
        if HAVE_MPL:
            with open(self.path("r.png"), "rb") as fh:
                self.assertEqual(fh.read(8), b"\x89PNG\r\n\x1a\n")

    def test_002_stopping_rules(self):
        out = run(TINY + ["--Pi", "0.03", "--Pd", "0.03", "--max-errors", "17",
                          "--json", "-", "--progress", "none"])
        self.assertEqual(out.returncode, 0, out.stderr)
        j = json.loads(out.stdout)[0]
        self.assertEqual((j["frame_errors"], j["stopped_by"]), (17, "max-errors"))
        out = run(TINY + ["--Pi", "0.01", "--Pd", "0.01", "--max-frames", "123",
                          "--rel-error", "0", "--json", "-"])
        j = json.loads(out.stdout)[0]
        self.assertEqual((j["frames"], j["stopped_by"]), (123, "max-frames"))
        out = run(TINY + ["--Pi", "0.03", "--Pd", "0.03", "--rel-error", "0.2",
                          "--json", "-"])
        j = json.loads(out.stdout)[0]
        self.assertEqual(j["stopped_by"], "rel-error")
        self.assertGreaterEqual(j["frames"], 30)
        self.assertGreaterEqual(j["frame_errors"], 10)
        for m in ("fer", "ser"):
            self.assertLessEqual((j[m + "_hi"] - j[m + "_lo"]) / 2, 0.2 * j[m])
        out = run(TINY + ["--Pi", "0.001", "--Pd", "0.001", "--max-time", "1.5",
                          "--max-frames", "100000000", "--json", "-"])
        j = json.loads(out.stdout)[0]
        self.assertEqual(j["stopped_by"], "max-time")
        self.assertGreaterEqual(j["seconds"], 1.5)
        self.assertLess(j["seconds"], 3.0)

    def test_003_dumped_failures_replay_to_the_same_decisions(self):
        dump = self.path("fails")
        out = run(TINY + ["--Pi", "0.04", "--Pd", "0.04", "--Ps", "0.01", "--max-frames", "40",
                          "--dump-failures", dump, "--dump-max", "5", "--json",
                          self.path("d.json")])
        self.assertEqual(out.returncode, 0, out.stderr)
        files = sorted(os.listdir(dump))
        self.assertEqual(len(files), 5)
        cb = bsid.codebook.builtin("ld3-modvec6")
        for name in files:
            with open(os.path.join(dump, name)) as fh:
                d = json.load(fh)
            self.assertEqual(d["format"], "bsid-sim failure 1")
            msg = np.array(d["message"])
            tx = np.array([int(c) for c in d["tx"]], dtype=np.uint8)
            rx = np.array([int(c) for c in d["rx"]], dtype=np.uint8)
            self.assertEqual(list(tx), list(cb.encode(msg)))
            # the frame is frame `frame` of the seed, with its true drift path
            rx2, drift = bsid.transmit(bsid.channel_params(0.04, 0.04, 0.01), tx, d["seed"],
                                       d["frame"])
            self.assertEqual(list(rx), list(rx2))
            self.assertEqual(d["drift"], list(drift))
            self.assertEqual(d["drift"][-1], len(rx) - len(tx))
            self.assertGreater(d["symbol_errors"], 0)
            self.assertEqual(d["symbol_errors"], int(np.sum(np.array(d["decisions"]) != msg)))
            self.assertEqual(name, f"point000-frame{d['frame']:09d}.json")
        # replay reproduces the decisions and shows the posteriors at the errors
        first = os.path.join(dump, files[0])
        out = run(["--replay", first])
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("decisions reproduced: yes", out.stdout)
        self.assertIn("top 3 posteriors", out.stdout)
        # a tampered dump does not replay to its decisions
        with open(first) as fh:
            d = json.load(fh)
        d["decisions"][0] = (d["decisions"][0] + 1) % 16
        with open(self.path("tampered.json"), "w") as fh:
            json.dump(d, fh)
        out = run(["--replay", self.path("tampered.json"), "--backend", "cpu"])
        self.assertEqual(out.returncode, 1)
        self.assertIn("decisions reproduced: NO", out.stdout)
        # not a dump
        out = run(["--replay", self.path("d.json")])
        self.assertEqual(out.returncode, 1)
        self.assertIn("not a failure dump", out.stderr)

    @unittest.skipUnless(HAVE_MPL, "matplotlib is not installed")
    def test_004_several_result_files_on_one_plot(self):
        for N, fmt in ((8, "csv"), (16, "json")):
            out = run(TINY[:2] + ["-N", str(N), "--backend", "cpu", "--sweep", "p",
                                  "--values", "0.01,0.03", "--max-frames", "100",
                                  "--" + fmt, self.path(f"n{N}.{fmt}")])
            self.assertEqual(out.returncode, 0, out.stderr)
        out = run(["--plot", self.path("both.png"), "--results", self.path("n8.csv"),
                   self.path("n16.json"), "--title", "two lengths", "--ber"])
        self.assertEqual(out.returncode, 0, out.stderr)
        with open(self.path("both.png"), "rb") as fh:
            self.assertEqual(fh.read(4), b"\x89PNG")
        out = run(["--plot", self.path("x.png"), "--results", self.path("nothing.csv")])
        self.assertEqual(out.returncode, 1)
        self.assertIn("nothing.csv", out.stderr)

    def test_005_bad_arguments_are_clear_errors(self):
        cases = [
            (["--codebook", "nosuch:1", "-N", "5"], "--codebook"),
            (["--codebook", "builtin:nosuch", "-N", "5"], "nosuch"),
            (["--codebook", "builtin:ld3-modvec6"], "-N is required"),
            (["--codebook", "builtin:ld3-modvec6", "-N", "0"], "at least 1"),
            (TINY + ["--sweep", "p"], "--sweep and --values"),
            (TINY + ["--sweep", "p", "--values", "0.2:0.8:x2"], "Pi + Pd"),
            (TINY + ["--sweep", "p", "--values", "0.1:0.05:x2"], "below START"),
            (TINY + ["--sweep", "Ps", "--values", "0.1,1.5"], "Ps"),
            (TINY + ["--sweep", "p", "--values", "0.01", "--Pi", "0.01"], "--Pi cannot"),
            (TINY + ["--sweep", "q", "--values", "0.01"], "invalid choice"),
            (TINY + ["--Pi", "-0.1"], "must not be negative"),
            (TINY + ["--Pi", "nan"], "finite"),
            (TINY + ["--confidence", "1.5"], "--confidence"),
            (TINY + ["--max-frames", "0"], "at least 1"),
            ([], "--codebook is required"),
            (["--replay", "/nonexistent/x.json"], "x.json"),
        ]
        for args, words in cases:
            out = run(args)
            self.assertIn(out.returncode, (1, 2), args)
            self.assertIn(words, out.stderr, args)
            self.assertNotIn("Traceback", out.stderr, args)

    def test_006_without_tqdm_and_matplotlib(self):
        hide = "import sys\nsys.modules['tqdm'] = None\nsys.modules['matplotlib'] = None"
        out = run(TINY + ["--Pi", "0.02", "--Pd", "0.02", "--max-frames", "50",
                          "--progress", "bar", "--progress-every", "0", "--csv",
                          self.path("a.csv")], pre=hide)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("frames, FER", out.stderr)  # plain progress lines instead of a bar
        out = run(TINY + ["--max-frames", "5", "--plot", self.path("a.png")], pre=hide)
        self.assertEqual(out.returncode, 2)
        self.assertIn("--plot needs matplotlib", out.stderr)
        self.assertFalse(os.path.exists(self.path("a.png")))

    def test_007_json_on_stdout_reports_the_speed(self):
        out = run(TINY + ["--Pi", "0.01", "--Pd", "0.01", "--max-frames", "64", "--json", "-"])
        self.assertEqual(out.returncode, 0, out.stderr)
        j = json.loads(out.stdout)
        self.assertEqual(len(j), 1)
        self.assertGreater(j[0]["frames_per_s"], 0)
        self.assertGreater(j[0]["mbit_per_s"], 0)
        self.assertIn("SER", out.stderr)  # the summary moved to stderr

    def test_008_bad_output_paths_fail_before_simulating(self):
        with open(self.path("file"), "w") as fh:
            fh.write("a regular file\n")
        missing = self.path("no/such/dir")
        cases = [
            (["--csv", os.path.join(missing, "r.csv")], "--csv", "does not exist"),
            (["--json", self.dir], "--json", "is a directory"),
            (["--csv", self.path("file/r.csv")], "--csv", "is not a directory"),
            (["--json", "/dev/null"], "--json", "not a regular file"),
            (["--dump-failures", self.path("file")], "--dump-failures",
             "is not a directory"),
            (["--dump-failures", self.path("file/fails")], "--dump-failures",
             "is not a directory"),
        ]
        if HAVE_MPL:
            cases.append((["--plot", os.path.join(missing, "r.png")], "--plot",
                          "does not exist"))
            # a file name whose extension matplotlib cannot write
            for name in ("r.txt", "r.csv", "r.PNGX"):
                cases.append((["--plot", self.path(name)], "--plot",
                              "matplotlib cannot write"))
        if os.geteuid() != 0:  # root may write anywhere
            os.mkdir(self.path("ro"))
            os.chmod(self.path("ro"), 0o555)
            cases += [(["--csv", self.path("ro/r.csv")], "--csv", "not writable"),
                      (["--dump-failures", self.path("ro")], "--dump-failures",
                       "not writable"),
                      (["--dump-failures", self.path("ro/fails")], "--dump-failures",
                       "not writable")]
        before = sorted(os.listdir(self.dir))
        for extra, option, words in cases:
            # a long point: had it started, the run would take minutes
            out = run(TINY + ["--Pi", "0.01", "--Pd", "0.01", "--rel-error", "0",
                              "--max-frames", "100000000", "--max-time", "300",
                              "--progress", "lines", "--progress-every", "0"] + extra,
                      timeout=60)
            self.assertEqual(out.returncode, 2, (extra, out.stderr))
            self.assertIn(f"bsid-sim: error: {option} {extra[1]}", out.stderr, extra)
            self.assertIn(words, out.stderr, extra)
            self.assertNotIn("Traceback", out.stderr, extra)
            # nothing ran: no banner, no progress, no summary
            self.assertEqual(out.stdout, "", extra)
            self.assertNotIn("FER", out.stderr, extra)
            self.assertEqual(sorted(os.listdir(self.dir)), before, extra)  # nothing left

    def test_009_dump_folder_of_an_earlier_run_is_reported(self):
        fails = self.path("fails")
        args = TINY + ["--Pi", "0.04", "--Pd", "0.04", "--max-frames", "20", "--dump-max",
                       "3", "--dump-failures", fails, "--progress", "none"]
        out = run(args)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertNotIn("warning", out.stderr)  # a new folder: nothing to say
        first = sorted(os.listdir(fails))
        self.assertEqual(len(first), 3)
        with open(os.path.join(fails, "notes.txt"), "w") as fh:
            fh.write("not a dump\n")
        # the same run again: the same frames fail and replace their files
        out = run(args)
        self.assertEqual(out.returncode, 0, out.stderr)
        warnings = [ln for ln in out.stderr.splitlines() if "warning" in ln]
        self.assertEqual(len(warnings), 1, out.stderr)
        self.assertIn(f"bsid-sim: warning: --dump-failures {fails} already holds 3 failure "
                      "dumps from an earlier run", warnings[0])
        self.assertIn("overwrit", warnings[0])
        self.assertEqual(sorted(os.listdir(fails)), sorted(first + ["notes.txt"]))
        # another seed: other frames fail, and their dumps go beside the old ones
        out = run(args + ["--seed", "2"])
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("already holds 3 failure dumps", out.stderr)
        self.assertGreater(len(os.listdir(fails)), 4)
        # an empty folder is no warning
        os.mkdir(self.path("empty"))
        out = run(TINY + ["--max-frames", "5", "--dump-failures", self.path("empty")])
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertNotIn("warning", out.stderr)

    def test_010_a_closed_pipe_ends_the_run_quietly(self):
        for extra in (["--Pi", "0.01"], ["--Pi", "0.01", "--json", "-"],
                      ["--sweep", "p", "--values", "0.01,0.02", "--csv", "-"]):
            # as `bsid-sim ... | head -1` where head has gone: the reader closes at once
            proc = subprocess.Popen(command(TINY + ["--max-frames", "10"] + extra),
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            proc.stdout.close()
            _, err = proc.communicate(timeout=120)
            self.assertEqual(proc.returncode, 0, (extra, err))
            self.assertNotIn("Traceback", err, extra)
            self.assertNotIn("BrokenPipeError", err, extra)
            self.assertNotIn("Exception ignored", err, extra)
            self.assertNotIn("error", err, extra)

    def test_011_sweep_and_values_only_once(self):
        base = TINY + ["--max-frames", "20"]
        for extra, option in (
                (["--sweep", "p", "--values", "0.01", "--sweep", "Pi"], "--sweep"),
                (["--sweep", "p", "--sweep", "p", "--values", "0.01"], "--sweep"),
                (["--sweep", "p", "--values", "0.01", "--values", "0.02,0.03"], "--values")):
            out = run(base + extra)
            self.assertEqual(out.returncode, 2, (extra, out.stdout, out.stderr))
            self.assertIn(f"bsid-sim: error: argument {option}: given twice", out.stderr)
            self.assertEqual(out.stdout, "", extra)
            self.assertNotIn("Traceback", out.stderr, extra)


    def test_012_sync_word(self):
        # frames that begin with a sync word, decoded with it: the JSON says so
        out = run(TINY + ["--Pi", "0.01", "--Pd", "0.01", "--max-frames", "40",
                          "--rel-error", "0", "--progress", "none", "--json", "-",
                          "--sync-word", "0110100111010010"])
        self.assertEqual(out.returncode, 0, out.stderr)
        row = json.loads(out.stdout)[0]
        self.assertEqual(row["sync_word"], "0110100111010010")
        self.assertEqual(row["frames"], 40)
        self.assertLess(row["ser"], 0.05)
        bad = run(TINY + ["--Pi", "0.01", "--sync-word", "01x"])
        self.assertEqual(bad.returncode, 2)
        self.assertIn("--sync-word", bad.stderr)

    def test_013_letters(self):
        # --alphabet 4: the code, channel and sync word over four letters; the
        # errors are those of the same frames decoded by the library
        args = ["--codebook", "random:4:16:2:3", "-N", "20", "--alphabet", "4", "--backend",
                "cpu", "--threads", "2", "--Pi", "0.02", "--Pd", "0.02", "--Ps", "0.02",
                "--max-frames", "60", "--rel-error", "0", "--progress", "none", "--json", "-",
                "--seed", "3", "--sync-word", "ACGTTGCA"]
        out = run(args)
        self.assertEqual(out.returncode, 0, out.stderr)
        row = json.loads(out.stdout)[0]
        self.assertEqual((row["alphabet"], row["sync_word"], row["frames"]),
                         (4, "0,1,2,3,3,2,1,0", 60))
        cb = bsid.codebook.from_spec("random:4:16:2:3", alphabet=4)
        ch = bsid.channel_params(0.02, 0.02, 0.02, alphabet=4)
        W = [0, 1, 2, 3, 3, 2, 1, 0]
        dec = bsid.map_decoder_core(cb, ch, 20, backend="cpu", sync_word=W)
        batch = bsid.frame_source(cb, ch, 20, 3, sync_word=W).generate(0, 60)
        counts = dec.count_errors(batch)
        self.assertEqual(row["symbol_errors"], int(counts["symbol_errors"].sum()))
        self.assertGreater(row["symbol_errors"], 0)
        self.assertLess(row["ser"], 0.2)
        for bad_args, says in ((["--alphabet", "1"], "--alphabet 1"),
                               (["--sync-word", "ACGU"], "not one of A, C, G, T"),
                               (["--codebook", "builtin:ld3-modvec6"], "binary")):
            bad = run(args + bad_args)
            self.assertEqual(bad.returncode, 2, bad.stderr)
            self.assertIn(says, bad.stderr)

class qa_sim_estimate(unittest.TestCase):
    """bsid-sim --estimate: the library's estimate_channel on the point's frames."""

    def test_001_estimate_of_two_points(self):
        with tempfile.TemporaryDirectory() as d:
            j, c = os.path.join(d, "e.json"), os.path.join(d, "e.csv")
            r = run(TINY + ["--sweep", "Pi", "--values", "0.02,0.03", "--Pd", "0.01",
                            "--Ps", "0.01", "--precision", "double", "--estimate",
                            "--estimate-frames", "6", "--iterations", "3", "--json", j,
                            "--csv", c])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("Pi 0.0", r.stdout)
            with open(j) as fh:
                rows = json.load(fh)
            with open(c) as fh:
                self.assertEqual(len(list(csv.DictReader(fh))), 2)
        self.assertEqual([row["Pi"] for row in rows], [0.02, 0.03])
        cb = bsid.codebook.builtin("ld3-modvec6")
        for row in rows:
            truth = bsid.channel_params(row["Pi"], 0.01, 0.01)
            src = bsid.frame_source(cb, truth, 12, 1)
            frames = [src.frame(k)["rx"] for k in range(6)]
            ch, ll = bsid.estimate_channel(cb, 12, frames,
                                           initial=bsid.channel_params(0.01, 0.01, 0.01),
                                           iterations=3, backend="cpu")
            self.assertAlmostEqual(row["Pi_estimate"], ch.Pi, delta=1e-15)
            self.assertAlmostEqual(row["Pi_error"], abs(ch.Pi - row["Pi"]) / row["Pi"],
                                   delta=1e-12)
            self.assertEqual(row["log_likelihoods"], ll)
            self.assertEqual(row["iterations"], 3)

    def test_002_frames_with_a_sync_word(self):
        W = "0110100111010010"
        r = run(TINY + ["--Pi", "0.03", "--Pd", "0.01", "--Ps", "0.01", "--precision",
                        "double", "--estimate", "--estimate-frames", "5", "--iterations", "2",
                        "--sync-word", W, "--json", "-", "-q"])
        self.assertEqual(r.returncode, 0, r.stderr)
        row = json.loads(r.stdout)[0]
        cb = bsid.codebook.builtin("ld3-modvec6")
        src = bsid.frame_source(cb, bsid.channel_params(0.03, 0.01, 0.01), 12, 1, sync_word=W)
        ch, ll = bsid.estimate_channel(cb, 12, [src.frame(k)["rx"] for k in range(5)],
                                       initial=bsid.channel_params(0.01, 0.01, 0.01),
                                       iterations=2, backend="cpu", sync_word=W)
        self.assertAlmostEqual(row["Pd_estimate"], ch.Pd, delta=1e-15)
        self.assertEqual(row["log_likelihoods"], ll)

    def test_002b_four_letters(self):
        # --alphabet 4: the frames' letters, a sync word of letters, the
        # initial point over the same alphabet
        W = "ACGTTGCA"
        r = run(["--codebook", "random:3:16:4:5", "--alphabet", "4", "-N", "12",
                 "--backend", "cpu", "--seed", "1", "--Pi", "0.03", "--Pd", "0.01",
                 "--Ps", "0.01", "--precision", "double", "--estimate",
                 "--estimate-frames", "5", "--iterations", "2", "--sync-word", W,
                 "--json", "-", "-q"])
        self.assertEqual(r.returncode, 0, r.stderr)
        row = json.loads(r.stdout)[0]
        cb = bsid.codebook.from_spec("random:3:16:4:5", alphabet=4)
        truth = bsid.channel_params(0.03, 0.01, 0.01, alphabet=4)
        src = bsid.frame_source(cb, truth, 12, 1, sync_word="0,1,2,3,3,2,1,0")
        ch, ll = bsid.estimate_channel(cb, 12, [src.frame(k)["rx"] for k in range(5)],
                                       initial=bsid.channel_params(0.01, 0.01, 0.01,
                                                                   alphabet=4),
                                       iterations=2, backend="cpu", sync_word=W)
        self.assertEqual(ch.alphabet, 4)
        self.assertAlmostEqual(row["Pd_estimate"], ch.Pd, delta=1e-15)
        self.assertEqual(row["log_likelihoods"], ll)

    def test_003_bad_arguments(self):
        r = run(TINY + ["--Pi", "0.01", "--estimate", "--initial", "0.01,0.01"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--initial", r.stderr)
        r = run(TINY + ["--Pi", "0.01", "--estimate", "--framing", "stream"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("genie framing", r.stderr)
        r = run(TINY + ["--Pi", "0.01", "--Pd", "0.01", "--estimate", "--initial",
                        "0,0.01,0.01", "--estimate-frames", "2"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("would stay 0", r.stderr)


if __name__ == "__main__":
    unittest.main()
