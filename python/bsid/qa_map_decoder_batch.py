#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""bsid.map_decoder decodes through its frame batcher: frames that arrive one
per work() call are decoded in batches (mean_batch() > 1) with the same output
as the core decoder, frame by frame and in order; max_delay_ms bounds how long
a frame waits for others (with 0, every frame still comes out); the end of the
stream sends every frame at once (frames in equal frames out, without waiting
for a long max_delay_ms); a frame with bad priors inside a batch is its only
erasure; a bad max_delay_ms is refused."""

import math
import time

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import bsid

N = 12
KEY = "packet_len"


def tag(offset, key, value):
    t = gr.tag_t()
    t.offset = offset
    t.key = pmt.intern(key)
    t.value = value
    return t


class frame_source(gr.sync_block):
    """Received frames, at most one per work() call (the call pauses
    `pause` seconds first), each tagged with its length. After `hold_after`
    frames it sends nothing until `hold` seconds have passed since the first
    call. lost: {frame: count} of bsid_frames_lost tags on frames' first bits."""

    def __init__(self, rx, pause=0.002, hold_after=None, hold=0.0, lost=None):
        gr.sync_block.__init__(self, "frame_source", in_sig=None, out_sig=[np.uint8])
        self.rx = [np.asarray(r, dtype=np.uint8) for r in rx]
        self.pause = pause
        self.hold_after = hold_after
        self.hold = hold
        self.lost = lost or {}
        self.frame = 0  # the frame being sent
        self.pos = 0    # its bits sent
        self.t0 = None

    def work(self, input_items, output_items):
        if self.t0 is None:
            self.t0 = time.monotonic()
        if self.frame == len(self.rx):
            return -1  # WORK_DONE
        if self.frame == self.hold_after and time.monotonic() - self.t0 < self.hold:
            time.sleep(0.01)
            return 0
        time.sleep(self.pause)
        r = self.rx[self.frame]
        out = output_items[0]
        n = min(len(out), len(r) - self.pos)
        if self.pos == 0:
            self.add_item_tag(0, self.nitems_written(0), pmt.intern(KEY),
                              pmt.from_long(len(r)))
            if self.frame in self.lost:
                self.add_item_tag(0, self.nitems_written(0), pmt.intern("bsid_frames_lost"),
                                  pmt.from_long(self.lost[self.frame]))
        out[:n] = r[self.pos:self.pos + n]
        self.pos += n
        if self.pos == len(r):
            self.frame += 1
            self.pos = 0
        return n


class qa_map_decoder_batch(gr_unittest.TestCase):

    def setUp(self):
        self.cb = bsid.codebook.builtin("ld3-modvec6")
        self.q = self.cb.q
        self.ch = bsid.channel_params(0.02, 0.02, 0.01)
        self.rng = np.random.default_rng(5)
        self.core = bsid.map_decoder_core(self.cb, self.ch, N, backend="cpu",
                                          precision="double")

    def frames(self, count):
        msgs = self.rng.integers(0, self.q, (count, N))
        return [bsid.transmit(self.ch, self.cb.encode(m), seed=100 + k)[0]
                for k, m in enumerate(msgs)]

    def decoder(self, **kw):
        return bsid.map_decoder(self.cb, N, self.ch.Pi, self.ch.Pd, self.ch.Ps,
                                backend="cpu", precision="double", **kw)

    def run_slow(self, rx, dec, **src_kw):
        """rx through a source of one frame per call into dec: (posteriors
        (frames, N, q), erasure reasons by frame)."""
        tb = gr.top_block()
        src = frame_source(rx, **src_kw)
        snk = blocks.vector_sink_f(self.q)
        tb.connect(src, dec, snk)
        tb.run()
        return self.output(snk)

    def output(self, snk):
        rows = np.array(snk.data()).reshape(-1, N, self.q)
        erased = {t.offset // N: pmt.symbol_to_string(t.value) for t in snk.tags()
                  if pmt.symbol_to_string(t.key) == "bsid_erasure"}
        lengths = [t.offset for t in snk.tags() if pmt.symbol_to_string(t.key) == KEY]
        self.assertEqual(lengths, [k * N for k in range(len(rows))])
        return rows, [erased.get(k) for k in range(len(rows))]

    def assert_core(self, rows, rx, skip=()):
        """Each output frame is the core decoder's posteriors of its frame."""
        self.assertEqual(len(rows), len(rx))
        for k, r in enumerate(rx):
            if k not in skip:
                np.testing.assert_allclose(rows[k], self.core.decode(r), atol=1e-6,
                                           err_msg="frame {}".format(k))

    def test_000_batches_across_work_calls(self):
        rx = self.frames(48)
        dec = self.decoder(max_batch=16, max_delay_ms=5000.0)
        rows, erased = self.run_slow(rx, dec)
        self.assertEqual(dec.frames(), 48)
        self.assertEqual(erased, [None] * 48)
        self.assert_core(rows, rx)
        # the frames came one per call, yet were decoded 16 at a time
        self.assertGreater(dec.mean_batch(), 1.0)
        self.assertEqual(dec.batches(), 3)
        self.assertAlmostEqual(dec.mean_batch(), 16.0)

    def test_001_max_delay_zero_still_puts_out_every_frame(self):
        rx = self.frames(20)
        dec = self.decoder(max_batch=16, max_delay_ms=0.0)
        rows, erased = self.run_slow(rx, dec)
        self.assertEqual(dec.frames(), 20)
        self.assertEqual(erased, [None] * 20)
        self.assert_core(rows, rx)
        self.assertGreaterEqual(dec.batches(), 1)
        self.assertLessEqual(dec.mean_batch(), 16.0)
        self.assertAlmostEqual(dec.mean_batch() * dec.batches(), 20.0)

    def test_002_max_delay_bounds_the_wait(self):
        # three frames, then the source holds for 4 s before its last frame:
        # with max_delay_ms = 50 the three come out during the hold; with a
        # delay longer than the hold they wait for the fourth (or the end)
        rx = self.frames(4)
        for delay, out_during_hold in ((50.0, 3), (60000.0, 0)):
            dec = self.decoder(max_batch=16, max_delay_ms=delay)
            tb = gr.top_block()
            src = frame_source(rx, hold_after=3, hold=4.0)
            snk = blocks.vector_sink_f(self.q)
            tb.connect(src, dec, snk)
            tb.start()
            time.sleep(2.0)
            during = dec.frames()
            tb.wait()
            self.assertEqual(during, out_during_hold, "max_delay_ms {}".format(delay))
            rows, erased = self.output(snk)
            self.assertEqual(erased, [None] * 4)
            self.assert_core(rows, rx)

    def test_002b_a_full_flight_does_not_wait_out_the_delay(self):
        # frame 0, then 100 lost frames: the flight (4 max_batch = 16 output
        # frames) fills with frame 0 and erasures behind it, and takes no
        # more input; frame 0 is decoded at once, not after max_delay_ms, and
        # the erasures follow it out while the source holds
        rx = self.frames(3)
        dec = self.decoder(max_batch=4, max_delay_ms=60000.0)
        tb = gr.top_block()
        src = frame_source(rx, hold_after=2, hold=4.0, lost={1: 100})
        snk = blocks.vector_sink_f(self.q)
        tb.connect(src, dec, snk)
        tb.start()
        time.sleep(2.0)
        during = dec.frames()
        tb.wait()
        self.assertEqual(during, 101)  # frame 1 waits in its batch for more
        rows, erased = self.output(snk)
        self.assertEqual(erased, [None] + ["frame_lost"] * 100 + [None, None])
        self.assert_core(rows[[0, 101, 102]], rx)

    def test_003_the_end_of_the_stream_flushes(self):
        # a vector source ends at once: the last, partial batch is decoded
        # without waiting out max_delay_ms; frames in equal frames out
        rx = self.frames(37)
        bits, tags = [], []
        for r in rx:
            tags.append(tag(len(bits), KEY, pmt.from_long(len(r))))
            bits.extend(int(b) for b in r)
        dec = self.decoder(max_batch=16, max_delay_ms=60000.0)
        tb = gr.top_block()
        snk = blocks.vector_sink_f(self.q)
        tb.connect(blocks.vector_source_b(bits, False, 1, tags), dec, snk)
        t0 = time.monotonic()
        tb.run()
        self.assertLess(time.monotonic() - t0, 30.0)
        rows, erased = self.output(snk)
        self.assertEqual(dec.frames(), 37)
        self.assertEqual(erased, [None] * 37)
        self.assert_core(rows, rx)
        self.assertAlmostEqual(dec.mean_batch() * dec.batches(), 37.0)

    def test_004_erasures_keep_their_place_among_batched_frames(self):
        # a lost-frames count, an empty frame and a frame of bad priors,
        # among frames decoded in one batch: each is its own erasure, in order
        rx = self.frames(8)
        lp = np.zeros((9, N, self.q), dtype=np.float32)
        lp[5, 3, 2] = np.nan  # the priors of output frame 5 (input frame 4)
        bits, tags = [], []
        for k, r in enumerate(rx):
            tags.append(tag(len(bits), KEY, pmt.from_long(len(r))))
            if k == 2:
                tags.append(tag(len(bits), "bsid_frames_lost", pmt.from_long(1)))
            bits.extend(int(b) for b in r)
        tb = gr.top_block()
        dec = self.decoder(max_batch=16, max_delay_ms=60000.0, priors_input=True,
                           output="extrinsic")
        snk = blocks.vector_sink_f(self.q)
        tb.connect(blocks.vector_source_b(bits, False, 1, tags), (dec, 0))
        tb.connect(blocks.vector_source_f(lp.ravel().tolist(), False, self.q), (dec, 1))
        tb.connect(dec, snk)
        tb.run()
        rows, erased = self.output(snk)
        want = [None] * 9
        want[2] = "frame_lost"
        want[5] = "invalid_input"
        self.assertEqual(erased, want)
        self.assertEqual(dec.erasures(), 2)
        self.assertEqual(dec.mean_batch() * dec.batches(), 7)  # the others decoded
        for k in range(9):
            if want[k] is None:
                r = rx[k if k < 2 else k - 1]
                np.testing.assert_allclose(rows[k], np.log(self.core.decode(r)),
                                           atol=1e-5, err_msg="frame {}".format(k))
            else:
                np.testing.assert_allclose(rows[k], -math.log(self.q), atol=1e-6)

    def test_005_bad_max_delay_refused(self):
        for bad in (-1.0, float("nan"), float("inf")):
            with self.assertRaises(ValueError) as cm:
                self.decoder(max_delay_ms=bad)
            self.assertIn("max_delay_ms", str(cm.exception))
        # the parameter is the last one: every earlier one positionally, as before
        dec = bsid.map_decoder(self.cb, N, 0.01, 0.01, 0.0, "posteriors", "cpu", "float",
                               "auto", 1e-10, 8, 1.0, 0.0, "packet_len", True, "", "tagged",
                               -1, "bsid_start", 4, True, 0.0, True, True, "bits", 0, False,
                               0.0)
        self.assertEqual(dec.batches(), 0)
        self.assertEqual(dec.mean_batch(), 0.0)


if __name__ == "__main__":
    gr_unittest.run(qa_map_decoder_batch)
