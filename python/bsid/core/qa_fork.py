#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The CPU decoders in processes made by fork(), as multiprocessing makes its
workers on Linux by default: a parent that has decoded on several threads
forks, and its children decode, simulate and count errors on several threads
of their own. A child must neither hang (waiting for the parent's threads,
which it does not have: an OpenMP runtime's thread pool did exactly that) nor
give other results than the parent."""

import multiprocessing
import unittest

import numpy as np

import bsid_core as bsid

CB = bsid.codebook.builtin("ld3-modvec6")  # n = 8, q = 16
CH = bsid.channel_params(0.02, 0.02, 0.01)
N = 20
# set in the parent before the fork; the children inherit them
DEC = None
SRC = None


def work(first):
    """In a child: a batch of frames simulated, decoded and counted, on two
    threads each."""
    batch = SRC.generate(first, 6, threads=2)
    posts = DEC.decode_batch([batch.rx(j) for j in range(len(batch))])
    counts = DEC.count_errors(batch)
    return (np.asarray(posts), np.asarray(counts["symbol_errors"]),
            [batch.rx(j).tolist() for j in range(len(batch))])


class qa_fork(unittest.TestCase):

    def test_001_children_of_a_parent_that_decoded(self):
        global DEC, SRC
        DEC = bsid.map_decoder_core(CB, CH, N, backend="cpu", threads=2)
        SRC = bsid.frame_source(CB, CH, N, 3)
        # the parent uses every threaded loop first, so that its threads exist
        want = [work(first) for first in (0, 6, 12)]
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(2) as pool:
            job = pool.map_async(work, (0, 6, 12))
            try:
                got = job.get(timeout=60)
            except multiprocessing.TimeoutError:
                pool.terminate()
                self.fail("a forked child hung in the decoder")
        for (wp, we, wr), (gp, ge, gr) in zip(want, got):
            self.assertEqual(wr, gr)
            np.testing.assert_array_equal(wp, gp)
            np.testing.assert_array_equal(we, ge)
        # and the parent's threads still work after the fork
        again = work(6)
        np.testing.assert_array_equal(again[0], want[1][0])


if __name__ == "__main__":
    unittest.main()
