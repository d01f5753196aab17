#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The clock-slip flowgraph (bsid_clock_slip.grc, as GRC generated it) run
headless: BPSK through GNU Radio's channel model with a sample clock offset,
a receiver sampling on its own clock, soft bits into the MAP decoder in
stream framing. Asserted: the link really slips (received minus sent bits,
about the offset times the bits sent, and the decoder's drift track agrees),
frames in equal frames out, the decoder's SER under a bound measured with
margin (docs/clock_slip.md: at most 0.025 over 20 runs of this setup), and
the same link without the inner decoder losing nearly every symbol."""

import gc
import os
import sys
import tempfile
import unittest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp())  # Qt wants its own
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
from PyQt5 import Qt  # noqa: E402

import bsid_clock_slip  # noqa: E402

FRAMES = 150


class qa_bsid_clock_slip(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.app = Qt.QApplication.instance() or Qt.QApplication([])

    def run_link(self, offset, noise, seed):
        tb = bsid_clock_slip.bsid_clock_slip(frames=FRAMES, offset=offset, noise=noise,
                                             seed=seed, symbol_rate=1e6)
        tb.start()
        tb.wait()
        sent = tb.encoder.nitems_written(0)
        received = tb.decoder.nitems_read(0)
        result = dict(frames_out=tb.decoder.frames(), erasures=tb.decoder.erasures(),
                      ser=float(np.mean(tb.ser.frame_sers)),
                      naive=float(np.mean(tb.naive.frame_sers)),
                      slip=received - sent, track=tb.drift.track[-1], sent=sent,
                      ser_frames=len(tb.ser.frame_sers), warnings=tb.decoder.warnings())
        # closed as a user closes the window, and destroyed now, while the
        # QApplication lives: GNU Radio 3.10's plot sinks close their widget
        # when destroyed, which crashes once Qt is gone (at exit) or the
        # window has deleted the widget (the .grc's main_after_stop snippet)
        tb.close()
        del tb
        gc.collect()
        return result

    def check(self, offset, seed):
        r = self.run_link(offset, 0.3, seed)
        what = "offset %g seed %d: %r" % (offset, seed, r)
        # the link slips: one bit every 1 / |offset| bits, in the offset's direction
        expected = -offset * r["sent"]
        self.assertGreater(abs(r["slip"]), 0.5 * abs(expected), what)
        self.assertLess(abs(r["slip"]), 1.5 * abs(expected) + 4, what)
        self.assertEqual(np.sign(r["slip"]), np.sign(expected), what)
        # the decoder followed it: its drift track is the slip
        self.assertLessEqual(abs(r["track"] - r["slip"]), 2, what)
        # frames in, frames out, and scored
        self.assertEqual(r["frames_out"], FRAMES, what)
        self.assertEqual(r["ser_frames"], FRAMES, what)
        self.assertLessEqual(r["erasures"], 1, what)
        self.assertLess(r["ser"], 0.06, what)
        self.assertGreater(r["naive"], 0.5, what)
        # a real clock offset is not a wrong setup (docs/receiving.md, "A setup
        # that does not fit the frames")
        self.assertEqual(r["warnings"], [], what)

    def test_000_deletions(self):
        self.check(2e-3, 1)

    def test_001_insertions(self):
        self.check(-2e-3, 2)

    def test_002_the_largest_offset_of_the_sweep(self):
        # 5e-3: 4.1 bits a frame, half a codeword; frames still follow it,
        # and no warning calls it a wrong N
        for offset, seed in ((5e-3, 3), (-5e-3, 4)):
            r = self.run_link(offset, 0.3, seed)
            self.assertEqual(r["frames_out"], FRAMES, r)
            self.assertEqual(r["warnings"], [], r)


if __name__ == "__main__":
    unittest.main(verbosity=2)
