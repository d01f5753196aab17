#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Several GPUs in one decoder from Python (devices=, docs/design.md section 5):
bad device lists refused, a device that does not exist an error for backend
"cuda" and the CPU for "auto", and, on a machine with two GPUs or more,
devices="all" decoding as one GPU does, bit for bit."""

import unittest

import numpy as np

import bsid_core as bsid

N = 20


class qa_devices(unittest.TestCase):

    def setUp(self):
        self.cb = bsid.codebook.builtin("ld3-modvec6")
        self.ch = bsid.channel_params(0.02, 0.02, 0.01)
        rng = np.random.default_rng(3)
        self.frames = [bsid.transmit(self.ch, self.cb.encode(rng.integers(0, 16, N)), 5,
                                     frame=k)[0] for k in range(9)]

    def make(self, **kw):
        return bsid.map_decoder_core(self.cb, self.ch, N, **kw)

    def test_001_bad_lists_are_refused(self):
        for backend in ("cpu", "cuda", "auto"):
            for bad in ("0,0", "junk", "0,", "-1", "1,a", [0, 0], [2, -1]):
                with self.assertRaises(ValueError, msg=repr(bad)) as cm:
                    self.make(backend=backend, devices=bad)
                if isinstance(bad, str):
                    self.assertIn(repr(bad), str(cm.exception))
        for bad in (1.5, b"0,1", bytearray(b"1")):
            with self.assertRaises(TypeError, msg=repr(bad)):
                self.make(backend="cpu", devices=bad)
        with self.assertRaises(ValueError):
            bsid.estimate_channel(self.cb, N, self.frames, self.ch, iterations=1, backend="cpu",
                                  devices="0,0")

    def test_002_device_count(self):
        count = bsid.cuda_device_count()
        self.assertIsInstance(count, int)
        self.assertGreaterEqual(count, 0)

    def test_003_absent_devices(self):
        count = bsid.cuda_device_count()
        absent = f"0,{count + 1}"  # device count + 1 does not exist
        with self.assertRaises(RuntimeError) as cm:
            self.make(backend="cuda", devices=absent)
        self.assertIn("CUDA", str(cm.exception))
        want = self.make(backend="cpu").decode_batch(self.frames)
        got = self.make(backend="auto", devices=absent).decode_batch(self.frames)
        for a, b in zip(want, got):
            np.testing.assert_array_equal(a, b)
        if count == 0:
            # "all" is no device here: "cuda" says so, "auto" decodes on the CPU
            with self.assertRaises(RuntimeError):
                self.make(backend="cuda", devices="all")
            dec = self.make(backend="auto", devices="all")
            for a, b in zip(want, dec.decode_batch(self.frames)):
                np.testing.assert_array_equal(a, b)

    def test_004_cpu_takes_no_device(self):
        want = self.make(backend="cpu").decode_batch(self.frames)
        for devices in ("", None, "0,1", [3, 1]):
            got = self.make(backend="cpu", devices=devices).decode_batch(self.frames)
            for a, b in zip(want, got):
                np.testing.assert_array_equal(a, b)

    @unittest.skipUnless(bsid.cuda_device_count() >= 2, "fewer than two GPUs")
    def test_005_all_devices_equal_one(self):
        for precision in ("float", "double"):
            one = self.make(backend="cuda", precision=precision)
            many = self.make(backend="cuda", precision=precision, devices="all")
            want = one.decode_batch(self.frames)
            got = many.decode_batch(self.frames)
            for a, b in zip(want, got):
                self.assertIsNotNone(a)
                np.testing.assert_array_equal(a, b)


if __name__ == "__main__":
    unittest.main()
