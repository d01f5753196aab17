#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The simulator against exact error rates: with Pi = Pd = 0 the channel is a
binary symmetric channel, each codeword is received alone, and MAP symbol
decisions under uniform priors are ML decisions for the codebook. The exact
SER, FER and BER follow by enumerating every received word, with the
decoder's tie rule (the lowest index); the simulator's intervals must
contain them. Also: runs are reproducible per seed, whatever the threads and
batches."""

import unittest

import bsid_core as bsid
import bsid_sim


def exact_rates(cb, N, Ps):
    """Exact (SER, FER, BER) of N symbols over the BSC(Ps) by enumeration."""
    n, q = cb.n, cb.q
    m = bsid_sim.bits_per_symbol(q)
    per_book = []
    for book in cb.books:
        ser = ber = 0.0
        for D, x in enumerate(book):
            for y in range(1 << n):
                d = bin(x ^ y).count("1")
                p = Ps ** d * (1 - Ps) ** (n - d)
                # ML: nearest codeword, ties to the lowest index
                dist = [bin(w ^ y).count("1") for w in book]
                best = dist.index(min(dist))
                if best != D:
                    ser += p / q
                    ber += p / q * bin(best ^ D).count("1") / m
        per_book.append((ser, ber))
    sers = [per_book[i % cb.P][0] for i in range(N)]
    bers = [per_book[i % cb.P][1] for i in range(N)]
    ok = 1.0
    for s in sers:
        ok *= 1 - s  # positions are independent on the BSC
    return sum(sers) / N, 1 - ok, sum(bers) / N


class qa_sim_bsc(unittest.TestCase):

    def check(self, spec, N, Ps):
        cb = bsid.codebook.from_spec(spec)
        ser, fer, ber = exact_rates(cb, N, Ps)
        res = bsid_sim.simulate(cb, N, Ps=Ps, backend="cpu", precision="double", seed=3,
                                confidence=0.99, rel_error=0.03, max_frames=200000)
        r = res[0]
        row = r.row()
        self.assertEqual(row["stopped_by"], "rel-error")
        self.assertEqual((row["mtau_lo"], row["mtau_hi"]), (0, 0))
        for name, exact in (("ser", ser), ("fer", fer), ("ber", ber)):
            self.assertLessEqual(row[name + "_lo"], exact, f"{spec}: {name} {row}")
            self.assertLessEqual(exact, row[name + "_hi"], f"{spec}: {name} {row}")
        self.assertEqual(row["erasures_drift"] + row["erasures_other"], 0)
        return row

    def test_001_sparse_code_with_many_ties(self):
        # words 0000, 0001, 0010, 0100: minimum distance 1, ties everywhere
        self.check("sparse:4:4", 12, 0.05)

    def test_002_time_varying_random_code(self):
        self.check("random:4:4:2:3", 15, 0.1)

    def test_003_reproducible_per_seed_on_any_threads(self):
        rows = []
        for threads, batch in ((1, 0), (2, 7)):
            res = bsid_sim.simulate("builtin:ld3-modvec6", 12, Pi=0.02, Pd=0.02, Ps=0.01,
                                    backend="cpu", seed=9, max_frames=300, rel_error=0,
                                    threads=threads, batch=batch)
            rows.append(res[0].row())
        for k in ("frames", "frame_errors", "symbol_errors", "bit_errors", "ser", "ser_lo",
                  "ser_hi", "fer_lo", "ber_hi"):
            self.assertEqual(rows[0][k], rows[1][k], k)
        self.assertEqual(rows[0]["frames"], 300)
        self.assertGreater(rows[0]["symbol_errors"], 0)

    def test_004_stops_at_the_same_frame_whatever_the_batches(self):
        # --rel-error and --max-errors are checked after every frame
        for rule in ({"rel_error": 0.15}, {"rel_error": 0, "max_errors": 33}):
            rows = []
            for threads, batch in ((1, 0), (2, 5), (2, 64)):
                res = bsid_sim.simulate("builtin:ld3-modvec6", 10, Pi=0.03, Pd=0.03,
                                        backend="cpu", seed=4, threads=threads, batch=batch,
                                        **rule)
                rows.append(res[0].row())
            self.assertEqual(rows[0]["stopped_by"],
                             "rel-error" if rule["rel_error"] else "max-errors")
            for r in rows[1:]:
                for k in ("frames", "frame_errors", "symbol_errors", "bit_errors", "stopped_by"):
                    self.assertEqual(rows[0][k], r[k], f"{rule} {k}")


if __name__ == "__main__":
    unittest.main()
