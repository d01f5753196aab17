#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""gnuradio.bsid must offer the whole core API of bsid_core, unchanged."""

import os
import subprocess
import sys

from gnuradio import gr_unittest

import bsid_core
from gnuradio import bsid


class qa_gnuradio_bsid(gr_unittest.TestCase):

    def test_001_reexports_core(self):
        # every public name of the core module is reachable, as the same object
        public = [name for name in dir(bsid_core) if not name.startswith('_')]
        self.assertIn('codebook', public)
        for name in public:
            self.assertIs(getattr(bsid, name), getattr(bsid_core, name), name)
        self.assertEqual(bsid.__version__, bsid_core.__version__)

    def test_002_core_api_in_flowgraph_scripts(self):
        # encode -> transmit through the gnuradio.bsid names
        cb = bsid.codebook.from_spec("builtin:ld3-modvec6")
        bits = cb.encode([3, 1, 4, 1, 5])
        rx, drift = bsid.transmit(bsid.channel_params(0.0, 0.0, 0.0), bits, seed=1)
        self.assertEqual(list(rx), list(bits))
        self.assertEqual(len(drift), len(bits) + 1)


    def test_003_core_log_reaches_gnuradio_logger(self):
        # the core's messages (backend choice, storage) come out through GNU
        # Radio's logger once a block exists, not on their own stderr path
        script = ("from gnuradio import bsid\n"
                  "cb = bsid.codebook.builtin('ld3-modvec6')\n"
                  "bsid.map_decoder(cb, 10, 0.01, 0.01, 0.0, backend='auto')\n")
        env = dict(os.environ)
        env.pop("BSID_LOG_LEVEL", None)
        env["GR_CONF_LOG_LOG_LEVEL"] = "info"  # GNU Radio's level decides what shows
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             env=env, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        text = out.stdout + out.stderr  # GNU Radio's log file may be either (its config)
        lines = [l for l in text.splitlines() if "backend auto ->" in l]
        self.assertEqual(len(lines), 1, text)
        self.assertTrue(lines[0].startswith("bsid_core :info:"), lines[0])
        self.assertNotIn("gr-bsid info:", text)  # the core's own stderr format

if __name__ == '__main__':
    gr_unittest.run(qa_gnuradio_bsid)
