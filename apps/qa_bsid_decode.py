#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""bsid_decode's fixed text format, against the Python decoder."""

import os
import subprocess
import tempfile
import unittest

import numpy as np

import bsid_core as bsid

EXE = os.environ["BSID_DECODE"]


def run(args, stdin):
    return subprocess.run([EXE] + args, input=stdin, capture_output=True, text=True, timeout=300)


class qa_bsid_decode(unittest.TestCase):

    def setUp(self):
        self.cb = bsid.codebook.builtin("ld3-modvec6")
        self.ch = bsid.channel_params(0.02, 0.01, 0.01)
        self.N = 20
        self.frames = []
        for k in range(5):
            msg = np.random.default_rng(k).integers(0, 16, self.N)
            rx, _ = bsid.transmit(self.ch, self.cb.encode(msg), seed=1, frame=k)
            self.frames.append(rx)
        self.args = ["--codebook", "builtin:ld3-modvec6", "-N", str(self.N), "--Pi", "0.02",
                     "--Pd", "0.01", "--Ps", "0.01", "--precision", "double", "--backend", "cpu"]
        self.dec = bsid.map_decoder_core(self.cb, self.ch, self.N, precision="double",
                                         backend="cpu")

    def text(self, frames):
        return "".join("".join(str(b) for b in f) + "\n" for f in frames)

    def test_001_posteriors_match_the_library(self):
        out = run(self.args, self.text(self.frames))
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.splitlines()
        self.assertEqual(len(lines), 5)
        for rx, line in zip(self.frames, lines):
            values = np.array([float(v) for v in line.split(" ")])
            self.assertEqual(values.size, self.N * 16)
            # %.17g round-trips a double exactly; symbol-major order
            np.testing.assert_array_equal(values.reshape(self.N, 16), self.dec.decode(rx))

    def test_002_erasures_and_continuation(self):
        frames = [self.frames[0], [], "01x10", np.ones(400, dtype=np.uint8), self.frames[1]]
        text = "".join((f if isinstance(f, str) else "".join(str(b) for b in f)) + "\n"
                       for f in frames)
        out = run(self.args, text.replace("\n", "\r\n", 1))  # a CRLF line too
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.splitlines()
        self.assertEqual(len(lines), 5)
        self.assertFalse(lines[0].startswith("erasure"))
        self.assertEqual(lines[1], "erasure empty frame: no bits were received (rho = 0)")
        self.assertEqual(lines[2], "erasure character 0x78 at position 2 is not '0' or '1'")
        self.assertTrue(lines[3].startswith("erasure end drift rho - tau = 400 - 160 = 240"))
        np.testing.assert_array_equal(np.array(lines[4].split(" "), dtype=float).reshape(self.N, 16),
                                      self.dec.decode(self.frames[1]))

    def test_003_priors(self):
        pri = np.random.default_rng(9).uniform(0.1, 1.0, (2, self.N, 16))
        with tempfile.TemporaryDirectory() as d:
            one = os.path.join(d, "one.txt")
            with open(one, "w") as f:
                f.write(" ".join("%.17g" % v for v in pri[0].ravel()) + "\n")
            per = os.path.join(d, "per.txt")
            with open(per, "w") as f:
                for p in pri:
                    f.write(" ".join("%.17g" % v for v in p.ravel()) + "\n")
            out = run(self.args + ["--priors", one], self.text(self.frames[:2]))
            self.assertEqual(out.returncode, 0, out.stderr)
            for rx, line in zip(self.frames, out.stdout.splitlines()):
                np.testing.assert_array_equal(np.array(line.split(), dtype=float).reshape(self.N, 16),
                                              self.dec.decode(rx, pri[0]))
            out = run(self.args + ["--priors", per], self.text(self.frames[:2]))
            for k, line in enumerate(out.stdout.splitlines()):
                np.testing.assert_array_equal(np.array(line.split(), dtype=float).reshape(self.N, 16),
                                              self.dec.decode(self.frames[k], pri[k]))
            # more frames than per-frame priors, a short line, a negative prior
            self.assertEqual(run(self.args + ["--priors", per], self.text(self.frames[:3])).returncode, 2)
            bad = os.path.join(d, "bad.txt")
            with open(bad, "w") as f:
                f.write("0.5 0.5\n")
            out = run(self.args + ["--priors", bad], self.text(self.frames[:1]))
            self.assertEqual(out.returncode, 2)
            self.assertIn("expected N*q = 320", out.stderr)
            with open(bad, "w") as f:
                f.write(" ".join(["-1"] + ["1"] * 319) + "\n")
            out = run(self.args + ["--priors", bad], self.text(self.frames[:1]))
            self.assertEqual(out.returncode, 2)
            self.assertIn("priors[0][0] = -1", out.stderr)

    def test_003b_log_priors(self):
        # natural logs at full range: -200 (a prior of 1e-87) and -inf (a zero prior)
        lp = np.log(np.random.default_rng(10).uniform(0.1, 1.0, (self.N, 16)))
        lp[:, 3] = -200.0
        lp[0, 5] = -np.inf
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "log.txt")
            with open(path, "w") as f:
                f.write(" ".join("%.17g" % v for v in lp.ravel()) + "\n")
            out = run(self.args + ["--log-priors", path], self.text(self.frames[:2]))
            self.assertEqual(out.returncode, 0, out.stderr)
            for rx, line in zip(self.frames, out.stdout.splitlines()):
                got = np.array(line.split(), dtype=float).reshape(self.N, 16)
                np.testing.assert_array_equal(got, self.dec.decode(rx, log_priors=lp))
                self.assertTrue((got[:, 3] > 0).all())  # not a hard zero
                self.assertEqual(got[0, 5], 0.0)
            # both kinds at once, and a NaN, are errors
            out = run(self.args + ["--log-priors", path, "--priors", path], self.text(self.frames[:1]))
            self.assertEqual(out.returncode, 2)
            self.assertIn("not both", out.stderr)
            with open(path, "w") as f:
                f.write(" ".join(["nan"] + ["0"] * (self.N * 16 - 1)) + "\n")
            out = run(self.args + ["--log-priors", path], self.text(self.frames[:1]))
            self.assertEqual(out.returncode, 2)
            self.assertIn("log priors[0][0] = nan", out.stderr)

    def test_004_limits_and_bad_arguments(self):
        out = run(self.args + ["--mtau", "-40:40", "--mn", "-8:12"], self.text(self.frames[:1]))
        self.assertEqual(out.returncode, 0, out.stderr)
        want = bsid.map_decoder_core(self.cb, self.ch, self.N, precision="double", backend="cpu",
                                     mtau=(-40, 40), mn=(-8, 12)).decode(self.frames[0])
        np.testing.assert_array_equal(np.array(out.stdout.split(), dtype=float).reshape(self.N, 16),
                                      want)
        for extra in (["--mtau", "5"], ["--mn", "3:4"], ["--precision", "half"], ["--Pi", "x"],
                      ["--codebook", "nosuch:spec"], ["--bogus", "1"], ["-N", "0"], ["--Pi", "0.7",
                      "--Pd", "0.4"]):
            with self.subTest(extra=extra):
                out = run(self.args + extra, "")
                self.assertEqual(out.returncode, 2, out.stderr)
                self.assertTrue(out.stderr.startswith("bsid_decode: "), out.stderr)
        self.assertEqual(run(["--help"], "").returncode, 0)


if __name__ == '__main__':
    unittest.main(verbosity=2)
