#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The simulator's C++ parts from Python: frame_source (random messages,
encoded, through the channel) and map_decoder_core.count_errors."""

import unittest

import numpy as np

import bsid_core as bsid


class qa_frame_source(unittest.TestCase):

    def setUp(self):
        self.cb = bsid.codebook.builtin("ld3-modvec6")
        self.ch = bsid.channel_params(0.02, 0.02, 0.01)
        self.N = 25
        self.src = bsid.frame_source(self.cb, self.ch, self.N, 6)

    def test_001_frames_are_encoded_messages_through_the_channel(self):
        batch = self.src.generate(10, 6, threads=2)
        self.assertEqual((len(batch), batch.first, batch.N), (6, 10, self.N))
        self.assertEqual(batch.symbols.shape, (6, self.N))
        for j in range(6):
            k = 10 + j
            msg = self.src.message(k)
            np.testing.assert_array_equal(batch.symbols[j], msg)
            rx, drift = bsid.transmit(self.ch, self.cb.encode(msg), 6, k)
            np.testing.assert_array_equal(batch.rx(j), rx)
            self.assertEqual(batch.rx_lengths[j], len(rx))
            f = self.src.frame(k)
            self.assertEqual(f["frame"], k)
            np.testing.assert_array_equal(f["symbols"], msg)
            np.testing.assert_array_equal(f["tx"], self.cb.encode(msg))
            np.testing.assert_array_equal(f["rx"], rx)
            np.testing.assert_array_equal(f["drift"], drift)

    def test_002_a_batch_is_refilled_in_place(self):
        a = self.src.generate(0, 8)
        b = self.src.generate(3, 2, out=a)
        self.assertIs(a, b)
        self.assertEqual((len(a), a.first), (2, 3))
        np.testing.assert_array_equal(a.symbols[0], self.src.message(3))

    def test_003_count_errors_matches_decode(self):
        dec = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu", precision="double")
        batch = self.src.generate(0, 10)
        c = dec.count_errors(batch)
        self.assertEqual(set(c), {"status", "symbol_errors", "bit_errors", "decisions"})
        for j in range(10):
            post = dec.decode(batch.rx(j))
            d = bsid.hard_decisions(post)
            np.testing.assert_array_equal(c["decisions"][j], d)
            sent = batch.symbols[j]
            self.assertEqual(c["symbol_errors"][j], int(np.sum(d != sent)))
            bits = sum(bin(int(x) ^ int(y)).count("1") for x, y in zip(d, sent))
            self.assertEqual(c["bit_errors"][j], bits)
            self.assertEqual(bsid.frame_status_names[c["status"][j]], "ok")

    def test_004_bad_arguments(self):
        self.assertRaises(ValueError, bsid.frame_source, self.cb, self.ch, 0, 1)
        self.assertRaises(ValueError, self.src.generate, 2 ** 62 - 1, 2)
        self.assertRaises(ValueError, self.src.frame, 2 ** 62)
        batch = self.src.generate(0, 2)
        self.assertRaises(IndexError, batch.rx, 2)
        other = bsid.map_decoder_core(self.cb, self.ch, self.N + 1, backend="cpu")
        self.assertRaises(ValueError, other.count_errors, batch)


if __name__ == "__main__":
    unittest.main()
