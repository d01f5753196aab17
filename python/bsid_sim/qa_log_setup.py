#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""bsid_sim.log_setup: --log-level, and the log kept off stdout (Debian's GNU
Radio logs to stdout by default), with GNU Radio and without."""

import argparse
import os
import subprocess
import sys
import unittest

from bsid_sim import log_setup


class qa_log_setup(unittest.TestCase):

    def test_001_the_argument(self):
        ap = argparse.ArgumentParser()
        log_setup.add_log_level_argument(ap)
        self.assertIsNone(ap.parse_args([]).log_level)  # warning, or BSID_LOG_LEVEL
        self.assertEqual(ap.parse_args(["--log-level", "debug"]).log_level, "debug")
        with self.assertRaises(SystemExit):
            ap.parse_args(["--log-level", "loud"])
        with self.assertRaisesRegex(ValueError, "not one of"):
            log_setup.configure_logging("loud")

    def test_002_blocks_log_to_stderr_at_the_level(self):
        # a block that logs at info when made: nothing on stdout but the data;
        # on stderr at info, not at warning
        try:
            import gnuradio.bsid  # noqa: F401
            from gnuradio import gr  # noqa: F401
            has_blocks = hasattr(gnuradio.bsid, "map_decoder")
        except ImportError:
            has_blocks = False
        if not has_blocks:
            self.skipTest("no GNU Radio blocks in this build")
        code = ("import sys\n"
                "from bsid_sim.log_setup import configure_logging\n"
                "configure_logging(sys.argv[1])\n"
                "from gnuradio import bsid\n"
                "cb = bsid.codebook.builtin('ld3-modvec6')\n"
                "bsid.map_decoder(cb, 10, 0.01, 0.01, 0.0, framing='stream', "
                "sync_word='0110', backend='cpu')\n"
                "print('DATA')\n")
        for level, chatty in (("warning", False), ("info", True)):
            with self.subTest(level=level):
                out = subprocess.run([sys.executable, "-c", code, level], capture_output=True,
                                     text=True, timeout=120, env=dict(os.environ))
                self.assertEqual(out.returncode, 0, out.stderr)
                self.assertEqual(out.stdout, "DATA\n")
                self.assertEqual("stream framing" in out.stderr, chatty, out.stderr)


if __name__ == "__main__":
    unittest.main()
