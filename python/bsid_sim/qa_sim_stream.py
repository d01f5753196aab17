#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""bsid-sim --framing stream: the frames of each stream are those of a single
stream_decoder over one continuous channel, counted beside genie framing of
the same frames; the counts do not depend on the threads; clear errors."""

import csv
import os
import sys
import tempfile
import unittest

import numpy as np

import bsid_core as bsid

from bsid_sim import engine, stream
from bsid_sim.sweep import point_configs, simulate

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_sim_cli import run  # noqa: E402

SYNC = "0110100111010010"
TINY = ["--codebook", "builtin:ld3-modvec6", "-N", "12", "--backend", "cpu"]


class qa_sim_stream(unittest.TestCase):

    def setUp(self):
        self.cb = bsid.codebook.from_spec("builtin:ld3-modvec6")

    def test_000_counts_match_an_independent_count(self):
        # the point's counts, recomputed here from the documented construction:
        # stream s's frame k is frame (s << 40) + k of the frame source, its
        # channel chunk c is transmit(seed, STREAM_CHANNEL + (s << 40) + c)
        N, S, C, K = 10, 2, 4, 1
        (c,) = point_configs(self.cb, N, Pi=0.02, Pd=0.02, Ps=0.01, backend="cpu",
                             precision="double", seed=7, rel_error=0, max_frames=24,
                             sync_word=SYNC, framing="stream", lookahead=K, streams=S,
                             stream_frames=C)
        res = engine.run_point(c)
        self.assertEqual(res.frames, 24)
        dec = engine.make_decoder(c)
        src = bsid.frame_source(self.cb, dec.channel, N, 7, sync_word=SYNC)
        W = np.array([int(b) for b in SYNC], np.uint8)
        F = len(SYNC) + N * 8
        rows = 24 // S
        chunks = -(-rows // C) + 2  # enough bits for every counted frame to be out
        se = fe = ge = wrong = 0
        per_stream = []
        for s in range(S):
            sd = bsid.stream_decoder(dec, lookahead=K)
            out, msgs, ends, genie, base = [], [], [], [], 0
            for ch in range(chunks):
                batch = src.generate((s << 40) + ch * C, C, 1)
                sent = np.concatenate([np.concatenate([W, self.cb.encode(m)])
                                       for m in batch.symbols])
                rx, drift = bsid.transmit(dec.channel, sent, seed=7,
                                          frame=stream.STREAM_CHANNEL + (s << 40) + ch)
                for j in range(C):
                    a, b = j * F + drift[j * F], (j + 1) * F + drift[(j + 1) * F]
                    msgs.append(batch.symbols[j])
                    ends.append(base + b)
                    genie.append(rx[a:b])
                out += sd.push(rx)
                base += len(rx)
            per_stream.append((out, msgs, ends, genie))
        for k in range(rows):
            for s in range(S):
                out, msgs, ends, genie = per_stream[s]
                f = out[k]
                e = N if f.status != "ok" else int(
                    np.sum(bsid.hard_decisions(f.posteriors) != msgs[k]))
                se += e
                fe += e > 0
                ge += int(np.sum(bsid.hard_decisions(dec.decode(genie[k])) != msgs[k]))
                wrong += f.end != ends[k]
        self.assertEqual((res.symbol_errors, res.frame_errors), (se, fe))
        self.assertEqual(res.symbol_errors_genie, ge)
        self.assertEqual(res.wrong_ends, wrong)

    def test_001_threads_do_not_change_the_counts(self):
        rows = []
        for threads in ("1", "2"):
            path = os.path.join(self.tmp, f"t{threads}.csv")
            out = run(TINY + ["--Pi", "0.02", "--Pd", "0.02", "--framing", "stream",
                              "--max-frames", "60", "--streams", "3", "--stream-frames", "5",
                              "--sync-word", SYNC, "--threads", threads, "--csv", path,
                              "--progress", "none"])
            self.assertEqual(out.returncode, 0, out.stderr)
            with open(path) as fh:
                rows.append(next(csv.DictReader(fh)))
        keys = ("frames", "frame_errors", "symbol_errors", "bit_errors", "ser_genie",
                "wrong_ends", "sync_lost", "framing", "lookahead", "streams")
        self.assertEqual([rows[0][k] for k in keys], [rows[1][k] for k in keys])
        self.assertEqual(rows[0]["framing"], "stream")
        self.assertEqual(int(rows[0]["frames"]), 60)
        self.assertEqual(int(rows[0]["sync_lost"]), 0)
        self.assertIn("genie framing of the same frames", out.stdout)

    def test_002_the_api_and_genie_rows(self):
        res = simulate(self.cb, 12, Pi=0.01, Pd=0.01, backend="cpu", rel_error=0,
                       max_frames=30, framing="stream", streams=2, stream_frames=3)
        row = res[0].row()
        self.assertEqual((row["framing"], row["streams"], row["lookahead"]), ("stream", 2, 2))
        self.assertEqual(row["frames"], 30)
        self.assertGreaterEqual(row["wrong_end_rate"], 0.0)
        # genie framing: the genie columns are its own counts
        g = simulate(self.cb, 12, Pi=0.01, Pd=0.01, backend="cpu", rel_error=0,
                     max_frames=30)[0].row()
        self.assertEqual((g["framing"], g["ser_genie"], g["wrong_ends"]),
                         ("genie", g["ser"], 0))

    def check_bursts(self, cb, N, what, burst_bits, **kw):
        """The rules of a receiver over bursts, through bsid-sim's own counts:
        every sent frame gets one frame out, no frame over garbage is ok, the
        frames over garbage are the garbage's length in frame lengths, rounded
        (either way for a run near half a frame length), and the frames marked
        ok read no worse than genie framing of them."""
        (r,) = simulate(cb, N, Pi=0.01, Pd=0.01, backend="cpu", rel_error=0,
                        max_frames=kw.pop("frames", 600), framing="stream", streams=2,
                        burst_rate=kw.pop("burst_rate", 0.25), burst_bits=burst_bits,
                        seed=kw.pop("seed", 3), **kw)
        row = r.row()
        what = f"{what}: {row}"
        self.assertGreater(row["bursts"], 0.5 * row["burst_rate"] * row["frames"], what)
        self.assertEqual((row["false_ok"], row["duplicates"], row["missed"]), (0, 0, 0), what)
        self.assertLessEqual(abs(row["extra_frames"] - row["extra_frames_expected"]),
                             row["garbage_near_half"], what)
        # ok frames: the SER within the 95 % binomial interval of genie framing's
        symbols = row["ok_frames"] * N
        p = row["ok_symbol_errors_genie"] / symbols
        hi = symbols * p + 1.96 * (symbols * p * (1 - p)) ** 0.5 + 1
        self.assertLessEqual(row["ok_symbol_errors"], hi, what)
        self.assertGreater(row["ok_frames"], 0.9 * row["frames"], what)
        return row

    def test_003_bursts_of_many_lengths(self):
        # bursts from 1 bit to 2 frame lengths, early and late starts, with and
        # without a sync word, float and double
        F = len(SYNC) + 20 * 8
        short, long_ = (1, F // 2 - 30), (2 * F - F // 2 + 30, 2 * F + F // 2 - 30)
        for bits in (short, long_):
            self.check_bursts(self.cb, 20, "W", bits, sync_word=SYNC)
            self.check_bursts(self.cb, 20, "W, acquired after 300 bits", bits,
                              sync_word=SYNC, lead=300, precision="double")
        # no sync word: ld3-modvec6 (period 6 does not divide N = 20) and
        # books that do not repeat, blind from the first bit. Nothing but the
        # codewords marks where a burst begins or ends, so the frames next to
        # one read worse than between their true boundaries (docs/receiving.md,
        # "Loss of sync"): bursts after one frame in ten
        self.check_bursts(self.cb, 20, "no W", short, unsynchronized=True, burst_rate=0.1)
        rnd = bsid.codebook.from_spec("random:8:16:20:5")
        self.check_bursts(rnd, 20, "no W, random books", long_, lead=77, precision="double",
                          burst_rate=0.1)
        # any length, a frame shorter than the sync word's fit can anchor
        self.check_bursts(self.cb, 20, "W, any length", (1, 3 * F), sync_word=SYNC)
        self.check_bursts(self.cb, 6, "W, N = 6", (1, 3 * F), sync_word=SYNC, lead=5)

    def test_004_bursts_through_the_cli(self):
        path = os.path.join(self.tmp, "b.csv")
        out = run(TINY + ["--Pi", "0.01", "--Pd", "0.01", "--framing", "stream",
                          "--max-frames", "40", "--burst-rate", "0.5", "--burst-bits", "5:40",
                          "--lead", "9", "--sync-word", SYNC, "--csv", path,
                          "--progress", "none"])
        self.assertEqual(out.returncode, 0, out.stderr)
        with open(path) as fh:
            row = next(csv.DictReader(fh))
        self.assertEqual((row["lead"], row["burst_rate"], row["burst_bits"]), ("9", "0.5", "5:40"))
        self.assertGreater(int(row["bursts"]), 0)
        self.assertEqual(row["false_ok"], "0")
        self.assertIn("frames out over garbage", out.stdout)

    def test_005_errors(self):
        for extra, msg in ((["--lookahead", "2"], "needs --framing stream"),
                           (["--streams", "2"], "needs --framing stream"),
                           (["--framing", "stream", "--lookahead", "13"], "lookahead"),
                           (["--framing", "stream", "--dump-failures",
                             os.path.join(self.tmp, "d")], "stream framing"),
                           (["--framing", "packets"], "invalid choice"),
                           (["--burst-rate", "0.1"], "needs --framing stream"),
                           (["--lead", "5"], "needs --framing stream"),
                           (["--framing", "stream", "--burst-bits", "8"], "needs --burst-rate"),
                           (["--framing", "stream", "--burst-rate", "1.5"], "probability"),
                           (["--framing", "stream", "--burst-rate", "0.1", "--burst-bits",
                             "9:3"], "LO <= HI"),
                           (["--framing", "stream", "--lead", "-3"], "--lead")):
            out = run(TINY + ["--Pi", "0.01", "--Pd", "0.01"] + extra)
            self.assertEqual(out.returncode, 2, extra)
            self.assertIn(msg, out.stderr, extra)

    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.tmp = cls._tmp.name

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()


if __name__ == "__main__":
    unittest.main(verbosity=2)
