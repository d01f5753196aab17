#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Trace reconstruction (bsid_sim.traces, bsid-traces; docs/reads.md): the
clusters' text format (separators, blank and bad lines, empty clusters), the
estimates against decode_reads of the uncoded strand, and the command with
--truth on simulated clusters."""

import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import bsid_core as bsid
from bsid_sim import traces


def simulated_clusters(K, N, M, p, seed):
    """K strands of N letters, each read M times through the channel (p each)."""
    ch = bsid.channel_params(p, p, p, alphabet=4)
    rng = np.random.default_rng(seed)
    strands, clusters = [], []
    for k in range(K):
        x = rng.integers(0, 4, N).astype(np.uint8)
        strands.append("".join("ACGT"[v] for v in x))
        clusters.append([bsid.transmit(ch, x, seed=seed, frame=k * 64 + r)[0]
                         for r in range(M)])
    return strands, clusters


def as_text(clusters):
    lines = []
    for c in clusters:
        lines.append("=" * 20)
        lines += ["".join("ACGT"[v] for v in r) for r in c]
    return "\n".join(lines) + "\n"


class qa_sim_traces(unittest.TestCase):

    def test_001_format(self):
        text = ("ACGT\nacgt\n\n=====\nAAAA\nANNA\n=\n===\nCCCC\n  \nGGGG\n")
        clusters, bad = traces.parse_clusters(text, "x")
        self.assertEqual([len(c) for c in clusters], [2, 1, 0, 2])
        self.assertTrue(np.array_equal(clusters[0][1], [0, 1, 2, 3]))
        self.assertEqual(len(bad), 1)
        self.assertEqual(bad[0][0], 6)
        self.assertIn("'N' at column 2", bad[0][1])
        # a file that begins with a separator has no empty first cluster
        clusters, _ = traces.parse_clusters("====\nACGT\n====\nTTTT\n")
        self.assertEqual([len(c) for c in clusters], [1, 1])

    def test_002_estimates_are_decode_reads_of_the_uncoded_strand(self):
        strands, clusters = simulated_clusters(12, 40, 3, 0.01, 4)
        clusters[5] = []  # refused: no reads
        est = traces.reconstruct(clusters, 40, 0.01, 0.01, 0.01, backend="cpu",
                                 precision="double", batch=5)
        cb = bsid.codebook.from_spec("sparse:1:4", alphabet=4)
        self.assertEqual([cb.word(0, D) for D in range(4)], [0, 1, 2, 3])
        dec = bsid.map_decoder_core(cb, bsid.channel_params(0.01, 0.01, 0.01, alphabet=4), 40,
                                    backend="cpu", precision="double")
        for k, c in enumerate(clusters):
            if not c:
                self.assertIsNone(est.strands[k])
                self.assertEqual(est.infos[k]["status"], "empty")
                continue
            post = dec.decode_reads(c)
            self.assertTrue(np.array_equal(est.posteriors[k], post))
            self.assertEqual(est.strands[k], "".join("ACGT"[d] for d in post.argmax(axis=1)))
        right = sum(s == t for s, t in zip(est.strands, strands))
        self.assertGreaterEqual(right, 9)
        # auto: the combiner beyond three reads
        many = traces.reconstruct([clusters[0] * 2], 40, 0.01, 0.01, 0.01, backend="cpu")
        self.assertEqual(many.infos[0]["used"], 6)
        self.assertGreater(many.infos[0]["rounds"], 0)
        refused = traces.reconstruct([clusters[0] * 2], 40, 0.01, 0.01, 0.01,
                                     method="joint", backend="cpu")
        self.assertIsNone(refused.strands[0])
        self.assertIn("at most 3", refused.infos[0]["reason"])

    def test_003_command(self):
        strands, clusters = simulated_clusters(20, 30, 5, 0.01, 6)
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "clusters.txt")
            truth = os.path.join(d, "centers.txt")
            out = os.path.join(d, "estimates.txt")
            with open(src, "w") as fh:
                fh.write(as_text(clusters))
            with open(truth, "w") as fh:
                fh.write("\n".join(strands) + "\n")
            cmd = [sys.executable, "-m", "bsid_sim.traces", src, "-N", "30", "--Pi", "0.01",
                   "--Pd", "0.01", "--Ps", "0.01", "--backend", "cpu", "--truth", truth,
                   "-o", out]
            r = subprocess.run(cmd, capture_output=True, text=True, env=os.environ)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("20 clusters, 0 refused", r.stderr)
            self.assertIn("strands recovered exactly", r.stderr)
            with open(out) as fh:
                got = fh.read().splitlines()
            self.assertEqual(len(got), 20)
            self.assertGreaterEqual(sum(g == t for g, t in zip(got, strands)), 14)
            bad = subprocess.run(cmd[:4] + ["-N", "0", "--Pi", "0", "--Pd", "0", "--Ps", "0"],
                                 capture_output=True, text=True, env=os.environ)
            self.assertEqual(bad.returncode, 2)


if __name__ == "__main__":
    unittest.main()
