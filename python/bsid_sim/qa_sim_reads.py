#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The simulator with several reads per frame (docs/reads.md) against exact
error rates: with Pi = Pd = 0 each read is the codeword through its own
binary symmetric channel, and the MAP decision from M reads is the codeword
nearest to all of them (the sum of the Hamming distances; ties to the
lowest index). The exact SER, FER and BER follow by enumerating every M-tuple
of received words; the simulator's intervals must contain them, for the
joint decoder and for the combiner (which is exact here: without insertions
and deletions the reads' outputs are their likelihoods). Also: the rows'
columns, the reads sweep, reproducibility and the refused setups."""

import itertools
import os
import subprocess
import sys
import unittest

import bsid_core as bsid
import bsid_sim


def exact_rates(cb, N, Ps, M):
    """Exact (SER, FER, BER) of N symbols from M BSC(Ps) reads, by enumeration."""
    n, q = cb.n, cb.q
    m = bsid_sim.bits_per_symbol(q)
    per_book = []
    for book in cb.books:
        ser = ber = 0.0
        for D, x in enumerate(book):
            for ys in itertools.product(range(1 << n), repeat=M):
                p = 1.0
                for y in ys:
                    d = bin(x ^ y).count("1")
                    p *= Ps ** d * (1 - Ps) ** (n - d)
                dist = [sum(bin(w ^ y).count("1") for y in ys) for w in book]
                best = dist.index(min(dist))
                if best != D:
                    ser += p / q
                    ber += p / q * bin(best ^ D).count("1") / m
        per_book.append((ser, ber))
    sers = [per_book[i % cb.P][0] for i in range(N)]
    bers = [per_book[i % cb.P][1] for i in range(N)]
    ok = 1.0
    for s in sers:
        ok *= 1 - s
    return sum(sers) / N, 1 - ok, sum(bers) / N


class qa_sim_reads(unittest.TestCase):

    def test_001_exact_on_the_bsc(self):
        cb = bsid.codebook.from_spec("random:4:8:2:7")
        N, Ps = 6, 0.12
        for M, method in ((2, "joint"), (3, "joint"), (3, "combine")):
            ser, fer, ber = exact_rates(cb, N, Ps, M)
            res = bsid_sim.simulate(cb, N, Ps=Ps, backend="cpu", precision="double",
                                    seed=5, confidence=0.99, rel_error=0.05,
                                    max_frames=100000, reads=M, read_method=method)
            row = res[0].row()
            self.assertEqual((row["reads"], row["read_method"]), (M, method))
            self.assertEqual(row["stopped_by"], "rel-error")
            for name, exact in (("ser", ser), ("fer", fer), ("ber", ber)):
                self.assertLessEqual(row[name + "_lo"], exact, f"M={M} {method}: {name} {row}")
                self.assertLessEqual(exact, row[name + "_hi"], f"M={M} {method}: {name} {row}")
        # more reads, fewer errors: the exact rates fall with M
        self.assertLess(exact_rates(cb, N, Ps, 3)[0], exact_rates(cb, N, Ps, 1)[0] / 3)

    def test_002_sweep_and_reproducible(self):
        common = dict(Pi=0.02, Pd=0.02, backend="cpu", seed=9, max_frames=40,
                      rel_error=0)
        res = bsid_sim.simulate("builtin:ld3-modvec6", 12, sweep="reads", values=[1, 2, 4],
                                read_method="combine", **common)
        rows = [r.row() for r in res]
        self.assertEqual([r["reads"] for r in rows], [1, 2, 4])
        self.assertEqual([r["read_method"] for r in rows], ["none", "combine", "combine"])
        self.assertEqual([r["sweep"] for r in rows], ["reads"] * 3)
        self.assertGreaterEqual(rows[0]["symbol_errors"], rows[2]["symbol_errors"])
        again = bsid_sim.simulate("builtin:ld3-modvec6", 12, reads=2, read_method="combine",
                                  threads=1, batch=7, **common)[0].row()
        for k in ("frames", "frame_errors", "symbol_errors", "bit_errors"):
            self.assertEqual(again[k], rows[1][k], k)
        # the default method: joint up to three reads
        r = bsid_sim.simulate("builtin:ld3-modvec6", 12, reads=2, **common)[0].row()
        self.assertEqual(r["read_method"], "joint")

    def test_003_refused_setups(self):
        cb = "builtin:ld3-modvec6"
        with self.assertRaisesRegex(ValueError, "at most 3 reads"):
            bsid_sim.simulate(cb, 12, Pi=0.01, reads=4, read_method="joint", max_frames=1)
        with self.assertRaisesRegex(ValueError, "genie framing"):
            bsid_sim.simulate(cb, 12, Pi=0.01, reads=2, framing="stream", max_frames=1)
        with self.assertRaisesRegex(ValueError, "genie framing"):
            bsid_sim.simulate(cb, 12, Pi=0.01, reads=2, sync_word="0110", max_frames=1)
        with self.assertRaisesRegex(ValueError, "a count of reads"):
            bsid_sim.simulate(cb, 12, Pi=0.01, sweep="reads", values=[1.5], max_frames=1)
        cli = [sys.executable, "-m", "bsid_sim", "--codebook", cb, "-N", "12", "--Pi", "0.01",
               "--max-frames", "1", "--progress", "none", "-q"]
        out = subprocess.run(cli + ["--read-method", "joint"], capture_output=True, text=True,
                             env=os.environ)
        self.assertEqual(out.returncode, 2)
        self.assertIn("--read-method needs --reads", out.stderr)


if __name__ == "__main__":
    unittest.main()
