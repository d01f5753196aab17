#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Inputs that once crashed, hung or passed silently, through the Python API:
limits whose widths overflow an int, priors that are not real numbers, the
status vocabulary, batches whose frames fail, and a CUDA backend asked for on
a machine without a GPU (docs/testing.md, "Bad input")."""

import unittest

import numpy as np

import bsid_core as bsid


class qa_input_errors(unittest.TestCase):

    def setUp(self):
        self.cb = bsid.codebook.builtin("ld3-modvec6")
        self.ch = bsid.channel_params(0.01, 0.01, 0.0)
        self.N = 10
        rng = np.random.default_rng(3)
        self.msg = rng.integers(0, 16, self.N)
        self.rx, _ = bsid.transmit(self.ch, self.cb.encode(self.msg), 1)

    def test_001_limits_that_overflow_an_int(self):
        for name in ("mtau", "mn"):
            for bounds in ((-2**31, 2**31 - 1), (-2**40, 3), (0, 2**63), (-2**70, 0)):
                with self.subTest(name=name, bounds=bounds):
                    with self.assertRaisesRegex(ValueError, name + ".*too wide"):
                        bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu",
                                              **{name: bounds})
        # the range at fault is named, and lo > hi is not "too wide"
        with self.assertRaisesRegex(ValueError, r"mtau = \[5, -5\] must hold 0"):
            bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu", mtau=(5, -5))
        with self.assertRaisesRegex(TypeError, "mn must be None or a pair"):
            bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu", mn=(1.5, "x"))

    def test_002_priors_must_be_real(self):
        dec = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu")
        for bad in (np.full((self.N, 16), 0.5 + 0.1j), np.full((self.N, 16), 1 + 0j),
                    np.full((self.N, 16), "1"), np.full((self.N, 16), None),
                    np.full((self.N, 16), True)):
            with self.subTest(dtype=bad.dtype):
                with self.assertRaisesRegex(TypeError, "real numbers"):
                    dec.decode(self.rx, bad)
                with self.assertRaisesRegex(TypeError, "real numbers"):
                    dec.decode_batch([self.rx], bad)
                with self.assertRaisesRegex(TypeError, "real numbers"):
                    dec.decode(self.rx, log_priors=bad)
        # integers and floats are real
        ones = np.ones((self.N, 16), dtype=np.int32)
        np.testing.assert_array_equal(dec.decode(self.rx, ones), dec.decode(self.rx))

    def test_003_subnormal_priors_in_a_batch(self):
        # they pass validation; a batch decodes them as decode() does
        for precision in ("float", "double"):
            dec = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu",
                                        precision=precision, threads=2)
            pri = np.full((self.N, 16), 1e-320)
            one = dec.decode(self.rx, pri)
            posts, stats = dec.decode_batch([self.rx] * 4, pri, statuses=True)
            self.assertEqual([s for s, _ in stats], ["ok"] * 4)
            for p in posts:
                np.testing.assert_array_equal(p, one)

    def test_004_one_status_vocabulary(self):
        names = bsid.frame_status_names
        self.assertEqual(names[:5], ("ok", "empty", "invalid_input", "drift_out_of_range",
                                     "impossible"))
        for n in ("decoder_error", "truncated", "frame_lost", "invalid_tag", "sync_lost"):
            self.assertIn(n, names)
        self.assertEqual(len(set(names)), len(names))
        # every status decode_batch gives is one of them
        dec = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu")
        _, stats = dec.decode_batch([self.rx, np.zeros(0, np.uint8), np.array([0, 2, 1]),
                                     np.zeros(3 * self.N * 8, np.uint8)], statuses=True)
        self.assertEqual([s for s, _ in stats],
                         ["ok", "empty", "invalid_input", "drift_out_of_range"])

    def test_005_cuda_without_a_gpu_says_so(self):
        try:
            dec = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cuda")
        except RuntimeError as e:
            msg = str(e)
            # no driver: the message says there is no GPU driver, not that the
            # driver "version is insufficient"; a build without CUDA says that
            self.assertNotIn("insufficient", msg.lower().replace("older than", ""))
            self.assertRegex(msg, "GPU|not available in this build")
            return
        self.assertEqual(dec.backend, "cuda")

    def test_006_bits_into_an_llr_decoder_are_a_type_error(self):
        # integer arrays of any kind (bits, hard decisions) are not LLRs:
        # every entry point of input="llr" refuses them, with what to do
        soft = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu", input="llr")
        sd = bsid.stream_decoder(soft)
        for rx in (self.rx, self.rx.astype(np.int64), self.rx.astype(bool),
                   self.rx.astype(np.int8) * 2 - 1, self.rx.tolist()):
            with self.subTest(dtype=np.asarray(rx).dtype):
                for call in (lambda: soft.decode(rx),
                             lambda: soft.decode_batch([rx]),
                             lambda: soft.decode_frame(rx),
                             lambda: sd.push(rx),
                             lambda: bsid.estimate_channel(self.cb, self.N, [rx],
                                                           initial=self.ch, input="llr")):
                    with self.assertRaisesRegex(TypeError, "integer items look like bits"):
                        call()
        # real LLRs decode; an empty frame has no type to check
        post = soft.decode(np.where(self.rx == 1, 4.0, -4.0))
        self.assertEqual(np.argmax(post, axis=1).tolist(), self.msg.tolist())
        self.assertEqual(soft.decode_batch([np.zeros(0, np.int64)], statuses=True)[1][0][0],
                         "empty")

    def test_007_a_wrong_n_warns(self):
        # frames of N = 40 decoded with N = 39: decoded, but the decoder warns
        # (once, latest last), and counts it; N = 40: silent
        rng = np.random.default_rng(8)
        frames = [bsid.transmit(self.ch, self.cb.encode(rng.integers(0, 16, 40)), 4,
                                frame=k)[0] for k in range(40)]
        for N in (39, 40, 41):
            with self.subTest(N=N):
                dec = bsid.map_decoder_core(self.cb, self.ch, N, backend="cpu")
                for f in frames[:20]:
                    dec.decode(f)
                dec.decode_batch(frames[20:])
                dec.decode_batch(frames[20:])  # more of the same: no second warning
                if N == 40:
                    self.assertEqual((dec.warnings, dec.warning_count), ([], 0))
                else:
                    self.assertEqual(dec.warning_count, 1)
                    self.assertIn("= 40 symbols?", dec.warnings[0])


if __name__ == "__main__":
    unittest.main(verbosity=2)
