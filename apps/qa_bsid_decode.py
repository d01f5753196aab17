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
        # each bad value, in place of the good one, with the words the error must hold
        for extra, words in (
                (["--mtau", "5"], "not LO:HI"), (["--mn", "3:4"], "mn = [3, 4]"),
                (["--precision", "half"], "half"), (["--Pi", "x"], "not a number"),
                (["--codebook", "nosuch:spec"], "nosuch"), (["--bogus", "1"], "unknown"),
                (["-N", "0"], "-N"), (["--Pi", "0.7", "--Pd", "0.4"], "Pi"),
                # out of range: refused, never truncated to a smaller type
                (["--mtau", "2147483648:5"], "out of range"),
                (["--mtau", "-2147483648:2147483647"], "too wide"),
                (["--threads", "4294967297"], "out of range"),
                (["--batch", "-1"], "out of range"),
                (["-N", "99999999999999999999"], "out of range"),
                # the range at fault is named: mtau, not mn
                (["--mtau", "5:-5"], "mtau = [5, -5]")):
            with self.subTest(extra=extra):
                out = run(self.with_options(extra), "")
                self.assertEqual(out.returncode, 2, out.stderr)
                self.assertTrue(out.stderr.startswith("bsid_decode: "), out.stderr)
                self.assertIn(words, out.stderr)
        out = run(self.args + ["--Pi", "0.02"], "")
        self.assertEqual(out.returncode, 2)
        self.assertIn("given twice", out.stderr)
        self.assertEqual(run(["--help"], "").returncode, 0)

    def with_options(self, extra):
        """self.args with the options in extra replacing (or adding to) its own."""
        args, given = list(self.args), dict(zip(extra[::2], extra[1::2]))
        for k in range(0, len(args), 2):
            if args[k] in given:
                args[k + 1] = given.pop(args[k])
        for k, v in given.items():
            args += [k, v]
        return args

    def test_005_option_equals_value(self):
        # --opt=value reads like --opt value
        joined = [a + "=" + b if a.startswith("--") else None
                  for a, b in zip(self.args[::2], self.args[1::2])]
        args = []
        for k, j in enumerate(joined):
            args += [j] if j else self.args[2 * k:2 * k + 2]
        a = run(args, self.text(self.frames[:2]))
        b = run(self.args, self.text(self.frames[:2]))
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(a.stdout, b.stdout)
        self.assertIn("--Pi=0.02", args)

    def test_006_memory(self):
        # Address-space limits count the program's own mapping too: with the
        # CUDA kernels linked in, the program and the core library it loads
        # (libgnuradio-bsid-core, in the full build) are about 100 MB, and
        # under a limit of that size it cannot even start. Each limit is
        # therefore the size of the executable and of its gr-bsid libraries
        # plus the memory the case allows.
        import resource
        own = os.path.getsize(EXE)
        for line in subprocess.run(["ldd", EXE], capture_output=True, text=True).stdout.splitlines():
            name, arrow, where = line.partition("=>")
            path = where.split("(")[0].strip()
            if arrow and "libgnuradio-bsid" in name and os.path.isfile(path):
                own += os.path.getsize(path)

        def allowing(mib):
            def limit():
                lim = own + (mib << 20)
                resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
            return limit

        # erasures cost no posterior memory: a million-symbol frame's
        # posteriors (128 MiB) are never allocated for frames refused by
        # length, even with a batch of them (8 GiB), with 400 MiB to spare
        args = self.with_options(["-N", "1000000", "--precision", "float", "--batch", "64"])
        out = subprocess.run([EXE] + args, input="0101\n" * 64 + "\n" * 64, capture_output=True,
                             text=True, timeout=300, preexec_fn=allowing(400))
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.splitlines()
        self.assertEqual(len(lines), 128)
        self.assertTrue(all(line.startswith("erasure ") for line in lines))
        # a frame that is decoded but whose posteriors cannot fit: a clear
        # error (exit 2), not an abort
        rx = "01" * 4000000  # tau = 8e6 bits: N q = 16e6 posteriors, 128 MiB, in 100 MiB
        args = self.with_options(["-N", "1000000", "--precision", "float", "--storage", "local"])
        out = subprocess.run([EXE] + args, input=rx + "\n", capture_output=True, text=True,
                             timeout=300, preexec_fn=allowing(100))
        self.assertEqual(out.returncode, 2, out.stderr)
        self.assertIn("out of memory", out.stderr)
        # a line too long even to be read (80 MB in 100 MiB): out of memory
        # too, never taken for the end of the input
        out = subprocess.run([EXE] + args, input="01" * 40000000 + "\n", capture_output=True,
                             text=True, timeout=300, preexec_fn=allowing(100))
        self.assertEqual(out.returncode, 2, out.stderr)
        self.assertIn("out of memory", out.stderr)
        self.assertEqual(out.stdout, "")


    def test_008_sync_word_alone(self):
        # frames that begin with W, one per line: the plain format, W weighed
        W = "01101001"
        dec = bsid.map_decoder_core(self.cb, self.ch, self.N, precision="double", backend="cpu",
                                    sync_word=W)
        rng = np.random.default_rng(6)
        frames = []
        for k in range(3):
            bits = np.concatenate([np.array([int(c) for c in W], np.uint8),
                                   self.cb.encode(rng.integers(0, 16, self.N))])
            frames.append(bsid.transmit(self.ch, bits, seed=3, frame=k)[0])
        out = run(self.args + ["--sync-word", W], self.text(frames + [np.ones(4, np.uint8)]))
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.splitlines()
        self.assertEqual(len(lines), 4)
        for rx, line in zip(frames, lines):
            np.testing.assert_array_equal(
                np.array(line.split(), dtype=float).reshape(self.N, 16), dec.decode(rx))
        self.assertTrue(lines[3].startswith("erasure end drift rho - G - tau"), lines[3])

    def test_007_frame_boundaries(self):
        # a sync word, start priors, a free end with look-ahead, and the
        # boundary posteriors, against decode_frame of the Python decoder
        W = "01101001"
        dec = bsid.map_decoder_core(self.cb, self.ch, self.N, precision="double", backend="cpu",
                                    sync_word=W)
        rng = np.random.default_rng(4)
        segs = []
        for k in range(3):
            msg = rng.integers(0, 16, self.N)
            bits = np.concatenate([np.array([int(c) for c in W], np.uint8), self.cb.encode(msg)])
            rx, _ = bsid.transmit(self.ch, bits, seed=2, frame=k)
            segs.append(np.concatenate([rng.integers(0, 2, k + 1), rx,
                                        rng.integers(0, 2, 30)]).astype(np.uint8))
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("0:1 1:1 2:1 3:2\n")
            path = f.name
        try:
            args = self.args + ["--sync-word", W, "--end", "free", "--lookahead", "2",
                                "--start-prior", path, "--boundaries"]
            out = run(args, self.text(segs))
            self.assertEqual(out.returncode, 0, out.stderr)
            lines = out.stdout.splitlines()
            self.assertEqual(len(lines), 4 * len(segs))
            for k, seg in enumerate(segs):
                want = dec.decode_frame(seg, start_prior={0: 1, 1: 1, 2: 1, 3: 2}, end="free",
                                        lookahead=2)
                self.assertEqual(want.status, "ok")
                post = np.array(lines[4 * k].split(), dtype=float).reshape(self.N, 16)
                np.testing.assert_array_equal(post, want.posteriors)
                for name, pos, val, line in (
                        ("start", want.start_positions, want.start_posterior, lines[4 * k + 1]),
                        ("end", want.end_positions, want.end_posterior, lines[4 * k + 2]),
                        ("forward", want.end_positions, want.end_forward, lines[4 * k + 3])):
                    words = line.split()
                    self.assertEqual(words[0], name)
                    got = [w.split(":") for w in words[1:]]
                    np.testing.assert_array_equal([int(p) for p, _ in got], pos)
                    np.testing.assert_array_equal([float(v) for _, v in got], val)
            # bad start prior files and option combinations are clear errors
            with open(path, "w") as f:
                f.write("0:1 x\n")
            out = run(args, self.text(segs))
            self.assertEqual(out.returncode, 2)
            self.assertIn("is not POSITION:WEIGHT", out.stderr)
            with open(path, "w") as f:
                f.write("0:0 1:0\n")
            out = run(args, self.text(segs))
            self.assertEqual(out.returncode, 2)
            self.assertIn("every weight is 0", out.stderr)
            for extra, words in ((["--lookahead", "1"], "--end free"),
                                 (["--end", "open"], "known, free"),
                                 (["--sync-word", "01a"], "not 0 or 1"),
                                 (["--boundaries=yes"], "takes no value")):
                out = run(self.args + extra, "")
                self.assertEqual(out.returncode, 2, out.stderr)
                self.assertIn(words, out.stderr)
        finally:
            os.unlink(path)

    def test_009_stream_framing(self):
        # one continuous stream (line breaks ignored): the frames of the core
        # stream decoder, to the last digit, and the boundary lines
        W = "0110100111010010"
        Wb = np.array([int(c) for c in W], dtype=np.uint8)
        rng = np.random.default_rng(4)
        sent = np.concatenate([np.concatenate([Wb, self.cb.encode(rng.integers(0, 16, self.N))])
                               for _ in range(6)])
        rx, _ = bsid.transmit(self.ch, sent, seed=6, frame=0)
        text = "".join(str(b) for b in rx)
        text = text[:333] + "\n" + text[333:700] + " \r\n" + text[700:] + "\n"
        args = self.args + ["--sync-word", W, "--framing", "stream", "--boundaries"]
        out = run(args, text)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.splitlines()
        dec = bsid.map_decoder_core(self.cb, self.ch, self.N, precision="double", backend="cpu",
                                    sync_word=W)
        sd = bsid.stream_decoder(dec)
        frames = sd.push(rx) + sd.flush()
        self.assertEqual(len(lines), 2 * len(frames))
        for f, post, bounds in zip(frames, lines[0::2], lines[1::2]):
            np.testing.assert_array_equal(
                np.array([float(v) for v in post.split(" ")]).reshape(self.N, 16), f.posteriors)
            w = bounds.split(" ")
            self.assertEqual(w[:8], ["frame", str(f.index), f.status, str(f.start), str(f.end),
                                     str(f.start_drift), str(f.end_drift), w[7]])
            self.assertEqual(float(w[7]), f.end_probability)
            self.assertEqual(float(w[8]), f.log_likelihood_ratio)
        # unsynchronized with a start tags file, K = 0, a character that is not a bit
        bad = text[:300] + "x" + text[301:]  # in frame 1
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as t:
            t.write("%d\n" % (len(W) + 0))
            path = t.name
        try:
            out = run(self.args + ["--sync-word", W, "--framing", "stream", "--unsynchronized",
                                   "--start-tags", path, "--lookahead", "0", "--no-search"], bad)
            self.assertEqual(out.returncode, 0, out.stderr)
            lines = out.stdout.splitlines()
            self.assertEqual(len(lines), len(frames))
            self.assertTrue(lines[1].startswith("erasure invalid_input: "), lines[1])
            # without search, and no tag after the bad frame: sync_lost to the end
            for line in lines[2:]:
                self.assertTrue(line.startswith("erasure sync_lost"), line)
            self.assertEqual(len(lines[0].split(" ")), self.N * 16)
        finally:
            os.unlink(path)
        # options that do not apply
        for extra in (["--end", "free"], ["--batch", "4"], ["--priors", "x"]):
            out = run(self.args + ["--framing", "stream"] + extra, "")
            self.assertEqual(out.returncode, 2, extra)
            self.assertIn("does not apply to --framing stream", out.stderr)
        for extra in (["--start", "3"], ["--no-search"], ["--start-tags", "x"]):
            out = run(self.args + extra, "")
            self.assertEqual(out.returncode, 2, extra)
            self.assertIn("needs --framing stream", out.stderr)
        out = run(self.args + ["--framing", "packets"], "")
        self.assertEqual(out.returncode, 2)
        out = run(self.args + ["--framing", "stream", "--start", "2", "--unsynchronized"], "")
        self.assertEqual(out.returncode, 2)
        # an empty stream: no frames, no error
        out = run(self.args + ["--framing", "stream"], "")
        self.assertEqual((out.returncode, out.stdout), (0, ""))

    def test_010_soft_input(self):
        # --input llr: lines of LLRs, decoded as the Python decoder decodes them
        rng = np.random.default_rng(3)
        llrs = [np.where(rx == 1, 1.0, -1.0) * rng.uniform(0.5, 9, len(rx)) for rx in self.frames]
        llrs[1][:3] = [np.inf, -np.inf, 1e30]
        text = "".join(" ".join(repr(float(v)) for v in l) + "\n" for l in llrs)
        out = run(self.args + ["--input", "llr"], text)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.splitlines()
        soft = bsid.map_decoder_core(self.cb, self.ch, self.N, precision="double",
                                     backend="cpu", input="llr")
        self.assertEqual(len(lines), len(llrs))
        for l, line in zip(llrs, lines):
            np.testing.assert_array_equal(
                np.array([float(v) for v in line.split(" ")]).reshape(self.N, 16), soft.decode(l))
        # LLRs of +-inf are the bits themselves
        inf_text = "".join(" ".join("inf" if b else "-inf" for b in rx) + "\n"
                           for rx in self.frames)
        a = run(self.args + ["--input", "llr"], inf_text)
        b = run(self.args, self.text(self.frames))
        self.assertEqual(a.stdout, b.stdout)
        # NaN and a token that is not a number: that frame only is an erasure
        bad = [" ".join(repr(float(v)) for v in llrs[0]).replace(repr(float(llrs[0][4])), "nan", 1),
               " ".join(repr(float(v)) for v in llrs[2]).replace(repr(float(llrs[2][6])), "x", 1),
               " ".join(repr(float(v)) for v in llrs[3])]
        out = run(self.args + ["--input", "llr"], "\n".join(bad) + "\n")
        lines = out.stdout.splitlines()
        self.assertEqual(len(lines), 3)
        self.assertIn("NaN", lines[0])
        self.assertTrue(lines[1].startswith("erasure 'x' at position"), lines[1])
        self.assertEqual(len(lines[2].split(" ")), self.N * 16)
        # a stream of LLRs: the stream decoder's frames
        W = "0110100111010010"
        Wb = np.array([int(c) for c in W], dtype=np.uint8)
        sent = np.concatenate([np.concatenate([Wb, self.cb.encode(rng.integers(0, 16, self.N))])
                               for _ in range(4)])
        rx, _ = bsid.transmit(self.ch, sent, seed=8, frame=0)
        sl = np.where(rx == 1, 1.0, -1.0) * rng.uniform(1, 6, len(rx))
        out = run(self.args + ["--sync-word", W, "--framing", "stream", "--input", "llr"],
                  "\n".join(" ".join(repr(float(v)) for v in sl[k:k + 50])
                            for k in range(0, len(sl), 50)) + "\n")
        self.assertEqual(out.returncode, 0, out.stderr)
        dec = bsid.map_decoder_core(self.cb, self.ch, self.N, precision="double", backend="cpu",
                                    sync_word=W, input="llr")
        sd = bsid.stream_decoder(dec)
        frames = sd.push(sl) + sd.flush()
        lines = out.stdout.splitlines()
        self.assertEqual(len(lines), len(frames))
        for f, line in zip(frames, lines):
            self.assertEqual(f.status, "ok")
            np.testing.assert_array_equal(
                np.array([float(v) for v in line.split(" ")]).reshape(self.N, 16), f.posteriors)
        out = run(self.args + ["--input", "soft"], "")
        self.assertEqual(out.returncode, 2)

    def test_010b_streams_with_bursts_are_the_core_stream_decoders(self):
        # bursts of random bits of many lengths between frames, early and late
        # unsynchronized starts, with and without a sync word, start tags or
        # not, both precisions: every frame (status, bounds, posteriors) the
        # core stream decoder's, so the rules the core's tests check hold here
        # (the block's: python/bsid/qa_stream_bursts.py)
        W = "0110100111010010"
        F = len(W) + self.N * 8
        rng = np.random.default_rng(12)
        for sync, lead, bursts, tags, precision in (
                (W, 37, {2: 5, 5: F + 11}, False, "double"),
                (W, -21, {3: 2 * F - 9}, True, "float"),
                ("", 0, {1: 77, 4: F // 3}, False, "double"),
                ("", 3 * F // 2, {3: 200}, False, "float")):
            with self.subTest(sync=bool(sync), lead=lead, tags=tags):
                Wb = np.array([int(c) for c in sync], dtype=np.uint8)
                parts, starts, at = [], [], 0
                if lead > 0:
                    parts.append(rng.integers(0, 2, lead).astype(np.uint8))
                    at = lead
                for k in range(7):
                    msg = rng.integers(0, 16, self.N)
                    rx, _ = bsid.transmit(self.ch, np.concatenate([Wb, self.cb.encode(msg)]),
                                          seed=3, frame=k)
                    parts.append(rx)
                    starts.append(at)
                    at += len(rx)
                    if k in bursts:
                        parts.append(rng.integers(0, 2, bursts[k]).astype(np.uint8))
                        at += bursts[k]
                stream = np.concatenate(parts)
                if lead < 0:
                    stream = stream[-lead:]
                    starts = [s + lead for s in starts if s + lead >= 0]
                tag_at = [s + len(sync) for s in starts] if tags else []
                args = list(self.args)
                args[args.index("--precision") + 1] = precision
                args += ["--framing", "stream", "--unsynchronized", "--boundaries"]
                if sync:
                    args += ["--sync-word", sync]
                path = None
                if tags:
                    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as t:
                        t.write(" ".join(map(str, tag_at)) + "\n")
                        path = t.name
                    args += ["--start-tags", path]
                try:
                    out = run(args, "".join(map(str, stream.tolist())) + "\n")
                finally:
                    if path:
                        os.unlink(path)
                self.assertEqual(out.returncode, 0, out.stderr)
                lines = out.stdout.splitlines()
                dec = bsid.map_decoder_core(self.cb, self.ch, self.N, precision=precision,
                                            backend="cpu", sync_word=sync)
                sd = bsid.stream_decoder(dec, start=None)
                frames = sd.push(stream, tags=tag_at) + sd.flush()
                self.assertEqual(len(lines), 2 * len(frames))
                self.assertTrue(any(f.status == "ok" for f in frames))
                for f, post, bounds in zip(frames, lines[0::2], lines[1::2]):
                    w = bounds.split(" ")
                    self.assertEqual(w[:5], ["frame", str(f.index), f.status, str(f.start),
                                             str(f.end)])
                    if f.status == "ok":
                        np.testing.assert_array_equal(
                            np.array([float(v) for v in post.split(" ")]).reshape(self.N, 16),
                            f.posteriors)
                    else:
                        self.assertTrue(post.startswith("erasure " + f.status), post)

    def test_011_bits_given_as_llrs_are_refused(self):
        # bits written one per token, or a line of 0s and 1s without spaces
        # (one huge number), into --input llr: refused before any decode, in
        # every mode, with a message that says what the input looks like
        spaced = "".join(" ".join(str(b) for b in f) + "\n" for f in self.frames)
        unspaced = self.text(self.frames)
        stream = " ".join(str(b) for f in self.frames for b in f) + "\n"
        for extra, text, says in (([], spaced, "these are bits"),
                                  ([], unspaced, "without spaces"),
                                  (["--framing", "stream"], stream, "these are bits"),
                                  (["--framing", "stream"], unspaced, "without spaces"),
                                  (["--estimate"], spaced, "these are bits"),
                                  (["--estimate"], unspaced, "without spaces")):
            with self.subTest(extra=extra, says=says):
                out = run(self.args + ["--input", "llr"] + extra, text)
                self.assertEqual(out.returncode, 2, out.stdout[:200])
                self.assertEqual(out.stdout, "")
                self.assertIn(says, out.stderr)
                self.assertIn("leave out --input llr", out.stderr)
        # LLRs that happen to be small integers among others are LLRs
        mixed = "".join(" ".join(("2" if b else "-1.5") for b in f) + "\n" for f in self.frames)
        out = run(self.args + ["--input", "llr"], mixed)
        self.assertEqual(out.returncode, 0, out.stderr)

    def test_012_a_wrong_n_is_reported_on_stderr(self):
        # frames of N = 20 into -N 19 and -N 21: decoded, with a warning on
        # stderr that names N = 20 (stdout stays the frames alone); -N 20: none
        frames = []
        for k in range(48):
            msg = np.random.default_rng(100 + k).integers(0, 16, self.N)
            rx, _ = bsid.transmit(self.ch, self.cb.encode(msg), seed=2, frame=k)
            frames.append(rx)
        for Nd in (self.N - 1, self.N + 1, self.N):
            with self.subTest(N=Nd):
                args = list(self.args)
                args[args.index("-N") + 1] = str(Nd)
                out = run(args, self.text(frames))
                self.assertEqual(out.returncode, 0, out.stderr)
                self.assertEqual(len(out.stdout.splitlines()), len(frames))
                if Nd == self.N:
                    self.assertNotIn("codeword", out.stderr)
                else:
                    self.assertIn("= %d symbols?" % self.N, out.stderr)
                    # --log-level error: the frames alone, no warning
                    quiet = run(args + ["--log-level", "error"], self.text(frames))
                    self.assertEqual((quiet.stdout, quiet.stderr), (out.stdout, ""))
        bad = run(self.args + ["--log-level", "loud"], "")
        self.assertEqual(bad.returncode, 2)
        self.assertIn("'loud' is not one of debug, info, warning, error, off", bad.stderr)


class qa_bsid_decode_letters(unittest.TestCase):
    """--alphabet: lines of letters (ACGT, integers), log-probabilities,
    sync words of letters and streams, as the library decodes them."""

    N = 10
    spec = "random:4:16:2:3"

    def setUp(self):
        self.cb = bsid.codebook.from_spec(self.spec, alphabet=4)
        self.ch = bsid.channel_params(0.01, 0.01, 0.01, alphabet=4)
        self.args = ["--codebook", self.spec, "-N", str(self.N), "--Pi", "0.01", "--Pd", "0.01",
                     "--Ps", "0.01", "--alphabet", "4", "--backend", "cpu",
                     "--precision", "double"]
        rng = np.random.default_rng(1)
        self.msgs, self.frames = [], []
        for k in range(4):
            msg = rng.integers(0, 16, self.N)
            rx, _ = bsid.transmit(self.ch, self.cb.encode(msg), k)
            self.msgs.append(msg)
            self.frames.append(rx)

    def posteriors(self, out):
        return [np.array([float(v) for v in line.split()]).reshape(self.N, 16)
                for line in out.strip().split("\n")]

    def test_001_letters_and_integers_as_the_library(self):
        dec = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu", precision="double")
        text = "".join("".join("ACGT"[v] for v in f) + "\n" for f in self.frames)
        ints = "".join(" ".join(str(v) for v in f) + "\n" for f in self.frames)
        for given in (text, text.lower(), ints):
            r = run(self.args, given)
            self.assertEqual(r.returncode, 0, r.stderr)
            for got, f in zip(self.posteriors(r.stdout), self.frames):
                self.assertTrue(np.array_equal(got, dec.decode(f)))
        r = run(self.args, "ACGU\n0 1 4\n")
        self.assertEqual(r.stdout.splitlines(),
                         ["erasure character 0x55 at position 3 is not a letter of the alphabet "
                          "of 4",
                          "erasure '4' at position 2 is not a letter of the alphabet (an "
                          "integer 0 to 3)"])

    def test_002_log_probabilities(self):
        soft = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu", precision="double",
                                     input="logprob")
        lps = []
        for f in self.frames:
            lp = np.log(np.full((len(f), 4), 0.05))
            lp[np.arange(len(f)), f] = np.log(0.85)
            lps.append(lp)
        r = run(self.args + ["--input", "logprob"],
                "".join(" ".join("%.17g" % v for v in lp.ravel()) + "\n" for lp in lps) +
                "0 0 0\n")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.strip().split("\n")
        for got, lp in zip(self.posteriors("\n".join(lines[:4])), lps):
            self.assertTrue(np.array_equal(got, soft.decode(lp)))
        self.assertEqual(lines[4], "erasure 3 log-probabilities are not a whole number of "
                                   "items of 4")
        r = run(self.args[:-6] + ["--input", "logprob"], "")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("--input logprob is for --alphabet > 2", r.stderr)

    def test_003_a_stream_with_a_sync_word_of_letters(self):
        W = [0, 1, 2, 3, 3, 2, 1, 0]
        rng = np.random.default_rng(2)
        msgs, sent = [], []
        for k in range(8):
            m = rng.integers(0, 16, self.N)
            msgs.append(m)
            sent += W + self.cb.encode(m).tolist()
        rx, _ = bsid.transmit(self.ch, np.array(sent, np.uint8), 5)
        r = run(self.args + ["--framing", "stream", "--sync-word", "ACGTTGCA"],
                "".join("ACGT"[v] for v in rx) + "\n")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.strip().split("\n")
        self.assertEqual(len(lines), 8)
        ok = [k for k, l in enumerate(lines) if not l.startswith("erasure")]
        self.assertGreaterEqual(len(ok), 7)
        for k in ok:
            post = self.posteriors(lines[k])[0]
            self.assertLessEqual(int(np.sum(post.argmax(axis=1) != msgs[k])), self.N // 2)
        r = run(self.args + ["--sync-word", "ACGU"], "")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("not one of A, C, G, T", r.stderr)

    def test_004_estimate_over_letters(self):
        import json
        text = "".join("".join("ACGT"[v] for v in f) + "\n" for f in self.frames)
        init = bsid.channel_params(0.01, 0.01, 0.01, alphabet=4)
        for extra, matrix in (([], False), (["--substitution-matrix"], True)):
            r = run(self.args + ["--estimate", "--iterations", "5"] + extra, text + "ACGU\n")
            self.assertEqual(r.returncode, 0, r.stderr)
            got = json.loads(r.stdout)
            ch, ll, info = bsid.estimate_channel(self.cb, self.N, self.frames, init,
                                                 iterations=5, details=True, backend="cpu",
                                                 substitution_matrix=matrix)
            self.assertEqual(got["alphabet"], 4)
            self.assertEqual(got["frames_refused"], 1)  # the line with U
            self.assertEqual((got["Pi"], got["Pd"], got["Ps"]), (ch.Pi, ch.Pd, ch.Ps))
            self.assertEqual(got["log_likelihoods"], ll)
            if matrix:
                self.assertEqual(got["substitution"], [list(r) for r in ch.substitution])
                self.assertEqual(got["substitution_counts"], info["substitution_counts"])
            else:
                self.assertNotIn("substitution", got)
        r = run(self.args + ["--substitution-matrix"], "")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("--substitution-matrix needs --estimate", r.stderr)


class qa_bsid_decode_estimate(unittest.TestCase):
    """--estimate: one JSON line, the library's estimate_channel on the same frames."""

    def setUp(self):
        self.cb = bsid.codebook.builtin("ld3-modvec6")
        self.N = 20
        truth = bsid.channel_params(0.03, 0.01, 0.01)
        self.frames = [bsid.transmit(truth, self.cb.encode(
            np.random.default_rng(k).integers(0, 16, self.N)), seed=3, frame=k)[0]
            for k in range(8)]
        self.args = ["--codebook", "builtin:ld3-modvec6", "-N", str(self.N), "--Pi", "0.01",
                     "--Pd", "0.01", "--Ps", "0.01", "--precision", "double", "--backend", "cpu",
                     "--estimate"]

    def test_001_the_library_estimate(self):
        import json
        text = "".join("".join(str(b) for b in f) + "\n" for f in self.frames)
        out = run(self.args + ["--iterations", "5"], text + "01x1\n")
        self.assertEqual(out.returncode, 0, out.stderr)
        got = json.loads(out.stdout)
        ch, ll, info = bsid.estimate_channel(self.cb, self.N, self.frames,
                                             initial=bsid.channel_params(0.01, 0.01, 0.01),
                                             iterations=5, backend="cpu", details=True)
        for name in ("Pi", "Pd", "Ps"):
            self.assertAlmostEqual(got[name], getattr(ch, name), delta=1e-15)
        self.assertEqual(got["iterations"], 5)
        self.assertEqual((got["frames_used"], got["frames_refused"]), (8, 1))
        np.testing.assert_allclose(got["log_likelihoods"], ll, rtol=1e-15)
        self.assertAlmostEqual(got["events"]["insertions"], info["events"]["insertions"],
                               delta=1e-9)

    def test_002_llr_input_and_fixed_values(self):
        import json
        text = "".join(" ".join("%g" % (6 * b - 3) for b in f) + "\n" for f in self.frames)
        out = run(self.args + ["--input", "llr", "--fix", "Ps", "--iterations", "2"], text)
        self.assertEqual(out.returncode, 0, out.stderr)
        got = json.loads(out.stdout)
        self.assertEqual(got["Ps"], 0.01)
        self.assertGreater(got["llr_scale"], 0)

    def test_003_stream_with_a_sync_word(self):
        import json
        W = "0110100111010010"
        tx = []
        for k in range(6):
            tx += [int(c) for c in W] + list(self.cb.encode(
                np.random.default_rng(k).integers(0, 16, self.N)))
        rx, _ = bsid.transmit(bsid.channel_params(0.03, 0.01, 0.01), np.array(tx, np.uint8),
                              seed=4, frame=0)
        text = "".join(str(b) for b in rx)
        text = "\n".join(text[i:i + 70] for i in range(0, len(text), 70)) + "\n"
        out = run(self.args + ["--framing", "stream", "--sync-word", W, "--iterations", "4"],
                  text)
        self.assertEqual(out.returncode, 0, out.stderr)
        got = json.loads(out.stdout)
        ch, ll = bsid.estimate_channel(self.cb, self.N, rx,
                                       initial=bsid.channel_params(0.01, 0.01, 0.01),
                                       iterations=4, backend="cpu", framing="stream",
                                       sync_word=W)
        self.assertAlmostEqual(got["Pi"], ch.Pi, delta=1e-15)
        self.assertEqual(got["frames_used"], 6)
        np.testing.assert_allclose(got["log_likelihoods"], ll, rtol=1e-15)

    def test_004_bad_arguments(self):
        text = "".join("".join(str(b) for b in f) + "\n" for f in self.frames)
        for extra, why in ((["--fix", "Pq"], "'Pq' is not one of Pi"),
                           (["--boundaries"], "does not apply to --estimate"),
                           (["--lookahead", "2"], "needs --framing stream"),
                           (["--iterations", "0"], "out of range")):
            out = run(self.args + extra, text)
            self.assertEqual(out.returncode, 2, extra)
            self.assertIn(why, out.stderr)
        out = run(self.args[:-1] + ["--iterations", "3"], text)
        self.assertEqual(out.returncode, 2)
        self.assertIn("--iterations needs --estimate", out.stderr)
        out = run(self.args, "")
        self.assertEqual(out.returncode, 2)
        self.assertIn("no frames", out.stderr)
        out = run(self.args, "\n\n")  # empty frames only: every frame refused
        self.assertEqual(out.returncode, 2)
        self.assertIn("refused every frame", out.stderr)


if __name__ == '__main__':
    unittest.main(verbosity=2)
