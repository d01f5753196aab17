#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The MAP decoder block's devices parameter: "" (the default) decodes as
before, a device list with the CPU backend changes nothing, and a bad list is
refused (ValueError) as is, with backend "cuda", a device that does not
exist (RuntimeError)."""

import numpy as np
from gnuradio import blocks, gr, gr_unittest

from gnuradio import bsid
from qa_tagged_streams import tagged_source


class qa_map_decoder_devices(gr_unittest.TestCase):

    def setUp(self):
        self.cb = bsid.codebook.builtin("ld3-modvec6")
        self.N = 20
        self.ch = bsid.channel_params(0.01, 0.01, 0.01)
        rng = np.random.default_rng(5)
        self.frames = [bsid.transmit(self.ch, self.cb.encode(rng.integers(0, 16, self.N)), 6,
                                     frame=k)[0] for k in range(4)]

    def decode(self, **kw):
        tb = gr.top_block()
        snk = blocks.vector_sink_f(16)
        dec = bsid.map_decoder(self.cb, self.N, 0.01, 0.01, 0.01, backend="cpu", **kw)
        tb.connect(tagged_source(self.frames), dec, snk)
        tb.run()
        self.assertEqual((dec.frames(), dec.erasures()), (4, 0))
        return np.array(snk.data(), dtype=np.float32)

    def test_001_devices_accepted(self):
        want = self.decode()
        np.testing.assert_array_equal(self.decode(devices=""), want)
        np.testing.assert_array_equal(self.decode(devices="0,1"), want)
        np.testing.assert_array_equal(self.decode(devices="all"), want)

    def test_002_bad_devices_refused(self):
        for bad in ("0,0", "junk", "-1", "0,"):
            with self.assertRaises(ValueError, msg=bad):
                bsid.map_decoder(self.cb, self.N, 0.01, 0.01, 0.01, devices=bad)
        absent = f"0,{bsid.cuda_device_count() + 1}"
        with self.assertRaises(RuntimeError):
            bsid.map_decoder(self.cb, self.N, 0.01, 0.01, 0.01, backend="cuda", devices=absent)


if __name__ == "__main__":
    gr_unittest.run(qa_map_decoder_devices)
