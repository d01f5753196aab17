#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The simulator under GNU Radio's name: gnuradio.bsid.sim is bsid_sim."""

import unittest

from gnuradio import bsid


class qa_sim_module(unittest.TestCase):

    def test_001_same_module_under_both_names(self):
        from gnuradio.bsid import sim
        import bsid_sim
        self.assertIs(sim, bsid_sim)
        import gnuradio.bsid.sim as sim2
        self.assertIs(sim2, bsid_sim)

    def test_002_a_point_through_the_gnuradio_name(self):
        from gnuradio.bsid import sim
        cb = bsid.codebook.from_spec("builtin:ld3-modvec6")
        res = sim.simulate(cb, 10, Pi=0.02, Pd=0.02, max_frames=40, backend="cpu")
        row = res[0].row()
        self.assertEqual(row["frames"], 40)
        self.assertEqual(row["stopped_by"], "max-frames")
        self.assertLessEqual(row["ser_lo"], row["ser"])
        self.assertLessEqual(row["ser"], row["ser_hi"])


if __name__ == "__main__":
    unittest.main()
