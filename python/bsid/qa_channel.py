#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The BSID channel block: equal to bsid.transmit frame by frame, tags moved to
their true offsets, lost frames reported, rates, run-time settings."""

import numpy as np
from gnuradio import blocks, gr, gr_unittest

from gnuradio import bsid
from qa_tagged_streams import tagged_source, tags_of


class qa_channel(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()
        rng = np.random.default_rng(3)
        self.frames = [rng.integers(0, 2, 400, dtype=np.uint8) for _ in range(6)]

    def run_channel(self, src, ch):
        snk = blocks.vector_sink_b()
        self.tb.connect(src, ch, snk)
        self.tb.run()
        return snk

    def test_001_perfect_channel_is_identity(self):
        data = np.concatenate(self.frames)
        snk = self.run_channel(blocks.vector_source_b(data.tolist(), False), bsid.channel(0, 0, 0, 1))
        np.testing.assert_array_equal(np.array(snk.data()), data)
        snk = self.run_channel(tagged_source(self.frames), bsid.channel(0, 0, 0, 1))
        np.testing.assert_array_equal(np.array(snk.data()), data)

    def test_002_equals_transmit_per_frame_with_tags(self):
        ch = bsid.channel(0.05, 0.05, 0.02, seed=11, drift_tags=True)
        # a marker on bit 17 of frame 2 (input offset 817)
        snk = self.run_channel(tagged_source(self.frames, [(817, "mark", 5)]), ch)
        params = bsid.channel_params(0.05, 0.05, 0.02)
        want, starts, drifts, pos = [], [], [], 0
        for k, f in enumerate(self.frames):
            rx, drift = bsid.transmit(params, f, 11, frame=k)
            starts.append((pos, len(rx)))
            drifts.append((pos, int(drift[-1])))
            if k == 2:
                mark = pos + 17 + int(drift[17])  # where bit 17's events begin
            want.append(rx)
            pos += len(rx)
        np.testing.assert_array_equal(np.array(snk.data()), np.concatenate(want))
        self.assertEqual(tags_of(snk, "packet_len"), starts)
        self.assertEqual(tags_of(snk, "bsid_drift"), drifts)
        self.assertEqual(tags_of(snk, "mark"), [(mark, 5)])
        self.assertEqual((ch.frames(), ch.frames_lost()), (6, 0))

    def test_003_lost_frames_are_reported_on_the_next_frame(self):
        # two-bit frames at Pd = 0.6: many lose both bits
        frames = [np.array([1, 0], dtype=np.uint8)] * 40
        ch = bsid.channel(0.0, 0.6, 0.0, seed=5)
        snk = self.run_channel(tagged_source(frames), ch)
        params = bsid.channel_params(0.0, 0.6, 0.0)
        lens = [len(bsid.transmit(params, f, 5, frame=k)[0]) for k, f in enumerate(frames)]
        expect_len, expect_lost, pos, pending = [], [], 0, 0
        for n in lens:
            if n == 0:
                pending += 1
                continue
            expect_len.append((pos, n))
            if pending:
                expect_lost.append((pos, pending))
                pending = 0
            pos += n
        self.assertGreater(lens.count(0), 3)
        self.assertEqual(tags_of(snk, "packet_len"), expect_len)
        self.assertEqual(tags_of(snk, "bsid_frames_lost"), expect_lost)
        self.assertEqual(ch.frames_lost(), lens.count(0))

    def test_004_rates_on_an_untagged_stream(self):
        data = np.random.default_rng(4).integers(0, 2, 400000, dtype=np.uint8)
        snk = self.run_channel(blocks.vector_source_b(data.tolist(), False), bsid.channel(0, 0, 0.05, 2))
        out = np.array(snk.data())
        self.assertEqual(len(out), len(data))
        flips = int((out != data).sum())
        self.assertLess(abs(flips - 20000), 5 * np.sqrt(20000))
        self.tb = gr.top_block()
        snk = self.run_channel(blocks.vector_source_b(data.tolist(), False), bsid.channel(0.05, 0.02, 0, 2))
        # E[rho]/tau = 1 + (Pi - Pd)/(1 - Pi); sd per bit sqrt(Pi + Pd Pt)/(1 - Pi)
        want = len(data) * (1 + 0.03 / 0.95)
        sd = np.sqrt(len(data) * (0.05 + 0.02 * 0.93)) / 0.95
        self.assertLess(abs(len(snk.data()) - want), 5 * sd)
        # the untagged stream is frame 0 of the seed
        rx, _ = bsid.transmit(bsid.channel_params(0.05, 0.02, 0), data, 2, frame=0)
        np.testing.assert_array_equal(np.array(snk.data()), rx)

    def test_005_settings_at_run_time(self):
        ch = bsid.channel(0.1, 0.1, 0.1, seed=1)
        ch.set_Pi(0.0)
        ch.set_Pd(0.0)
        ch.set_Ps(0.0)
        self.assertEqual((ch.Pi(), ch.Pd(), ch.Ps()), (0.0, 0.0, 0.0))
        with self.assertRaises(ValueError):
            ch.set_channel(0.6, 0.5, 0.0)
        with self.assertRaises(ValueError):
            ch.set_Ps(-1)
        self.assertEqual((ch.Pi(), ch.Pd(), ch.Ps()), (0.0, 0.0, 0.0))  # unchanged
        snk = self.run_channel(tagged_source(self.frames), ch)
        np.testing.assert_array_equal(np.array(snk.data()), np.concatenate(self.frames))
        ch.set_channel(0.01, 0.02, 0.03)
        self.assertEqual((ch.Pi(), ch.Pd(), ch.Ps()), (0.01, 0.02, 0.03))

    def test_006_long_frame_across_buffers(self):
        # one frame ten times the default buffer (32 kB of items)
        frame = np.random.default_rng(6).integers(0, 2, 330000, dtype=np.uint8)
        ch = bsid.channel(0.01, 0.01, 0.01, seed=9)
        snk = self.run_channel(tagged_source([frame]), ch)
        rx, _ = bsid.transmit(bsid.channel_params(0.01, 0.01, 0.01), frame, 9, frame=0)
        np.testing.assert_array_equal(np.array(snk.data()), rx)
        self.assertEqual(tags_of(snk, "packet_len"), [(0, len(rx))])

    def test_007_non_bits_stop_with_an_error(self):
        ch = bsid.channel(0, 0, 0, seed=1)
        snk = self.run_channel(blocks.vector_source_b([0, 1, 1, 2, 0], False), ch)
        self.assertIn("byte 2", ch.error())
        self.assertEqual(list(snk.data()), [])


if __name__ == '__main__':
    gr_unittest.run(qa_channel)
