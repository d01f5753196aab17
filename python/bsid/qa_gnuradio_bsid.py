#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""gnuradio.bsid must offer the whole core API of bsid_core, unchanged."""

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


if __name__ == '__main__':
    gr_unittest.run(qa_gnuradio_bsid)
