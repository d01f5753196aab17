#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The MAP decoder block's channel estimation (estimate_every): each estimate is
estimate_channel on the block's last frames, from the channel in use (the one
before it applied), posted on the "channel_estimate" port and applied to the
frames after it; bad settings are refused."""

import time

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import bsid
from qa_tagged_streams import tagged_source


class late_end_source(gr.sync_block):
    """Frames of bits with a packet_len tag on each first bit, then a pause
    before the end: the decoder's last call with input comes while its
    upstream is still running."""

    def __init__(self, frames, pause):
        gr.sync_block.__init__(self, "late_end_source", None, [np.uint8])
        self.data = np.concatenate([np.asarray(f, np.uint8) for f in frames])
        self.starts = np.cumsum([0] + [len(f) for f in frames[:-1]])
        self.lengths = [len(f) for f in frames]
        self.pause = pause
        self.pos = 0

    def work(self, input_items, output_items):
        out = output_items[0]
        if self.pos >= len(self.data):
            time.sleep(self.pause)
            return -1
        n = min(len(out), len(self.data) - self.pos)
        out[:n] = self.data[self.pos:self.pos + n]
        for s, L in zip(self.starts, self.lengths):
            if self.pos <= s < self.pos + n:
                self.add_item_tag(0, self.nitems_written(0) + int(s) - self.pos,
                                  pmt.intern("packet_len"), pmt.from_long(L))
        self.pos += n
        return n


def messages(dbg):
    out = []
    for k in range(dbg.num_messages()):
        d = pmt.to_python(dbg.get_message(k))
        out.append(d)
    return out


class qa_map_decoder_estimate(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()
        self.cb = bsid.codebook.builtin("ld3-modvec6")
        self.N = 40
        self.truth = bsid.channel_params(0.02, 0.01, 0.01)
        rng = np.random.default_rng(5)
        self.frames = [bsid.transmit(self.truth, self.cb.encode(rng.integers(0, 16, self.N)),
                                     9, frame=k)[0] for k in range(24)]

    def run_block(self, frames, every, soft=False, **kw):
        src = tagged_source(frames, floats=soft)
        dec = bsid.map_decoder(self.cb, self.N, 0.01, 0.01, 0.01, output="hard",
                               backend="cpu", precision="double", max_batch=4,
                               estimate_every=every, input="llr" if soft else "bits", **kw)
        snk = blocks.null_sink(gr.sizeof_int)
        dbg = blocks.message_debug()
        self.tb.connect(src, dec, snk)
        self.tb.msg_connect(dec, "channel_estimate", dbg, "store")
        self.tb.start()
        # the estimates are posted before the decoder's input ends; wait for
        # them to arrive before the flowgraph (and the message queue) stops.
        # The deadline only guards against a hang (test_006)
        expected = len(frames) // every if every else 0
        deadline = time.monotonic() + 600
        while dbg.num_messages() < expected and time.monotonic() < deadline:
            time.sleep(0.05)
        self.tb.wait()
        return dec, messages(dbg)

    def test_001_estimates_are_estimate_channel_from_the_channel_in_use(self):
        dec, msgs = self.run_block(self.frames, 12)
        self.assertEqual((dec.frames(), dec.erasures()), (24, 0))
        self.assertEqual(dec.estimates(), 2)
        self.assertEqual(len(msgs), 2)
        initial = bsid.channel_params(0.01, 0.01, 0.01)
        for k, m in enumerate(msgs):
            ch, ll, info = bsid.estimate_channel(self.cb, self.N, self.frames[12 * k:12 * k + 12],
                                                 initial=initial, backend="cpu",
                                                 precision="double", details=True)
            for name in ("Pi", "Pd", "Ps"):
                self.assertAlmostEqual(m[name], getattr(ch, name), delta=1e-12)
            self.assertEqual(m["iterations"], info["iterations"])
            self.assertAlmostEqual(m["log_likelihood"], ll[-1], delta=1e-9 * abs(ll[-1]))
            self.assertEqual((m["frames"], m["frames_seen"], m["applied"]), (12, 12 * k + 12,
                                                                            True))
            self.assertEqual(m["llr_scale"], 1.0)
            initial = ch  # applied: the next estimate starts from it
        # and it moved towards the truth from the wrong start
        self.assertGreater(msgs[-1]["Pi"], 0.013)

    def test_002_soft_input_estimates_and_applies_the_llr_scale(self):
        rng = np.random.default_rng(1)
        sigma = 0.6
        llrs = [(2.0 * (2.0 * f - 1.0 + sigma * rng.standard_normal(len(f))) / sigma ** 2
                 * 0.5).astype(np.float32) for f in self.frames]
        dec, msgs = self.run_block(llrs, 12, soft=True)
        self.assertEqual(len(msgs), 2)
        ch, ll, info = bsid.estimate_channel(self.cb, self.N, llrs[:12], input="llr",
                                             initial=bsid.channel_params(0.01, 0.01, 0.01),
                                             backend="cpu", details=True)
        self.assertAlmostEqual(msgs[0]["llr_scale"], info["llr_scale"], delta=1e-12)
        self.assertAlmostEqual(msgs[0]["Pi"], ch.Pi, delta=1e-12)
        # the LLRs were halved: the scale comes back near 2
        self.assertGreater(msgs[0]["llr_scale"], 1.5)

    def test_003_stream_framing_estimates_from_the_frames_cut_at_their_map_ends(self):
        W = "0110100111010010"
        rng = np.random.default_rng(6)
        tx = []
        for k in range(14):
            tx += [int(c) for c in W] + list(self.cb.encode(rng.integers(0, 16, self.N)))
        rx, _ = bsid.transmit(self.truth, np.array(tx, np.uint8), 12, frame=0)
        src = blocks.vector_source_b([int(b) for b in rx], False)
        dec = bsid.map_decoder(self.cb, self.N, 0.01, 0.01, 0.01, output="hard",
                               backend="cpu", precision="double", framing="stream",
                               sync_word=W, estimate_every=6)
        snk = blocks.null_sink(gr.sizeof_int)
        dbg = blocks.message_debug()
        self.tb.connect(src, dec, snk)
        self.tb.msg_connect(dec, "channel_estimate", dbg, "store")
        self.tb.start()
        deadline = time.monotonic() + 120
        while dbg.num_messages() < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        self.tb.wait()
        msgs = messages(dbg)
        self.assertGreaterEqual(len(msgs), 2)
        self.assertEqual(dec.estimates(), len(msgs))
        # the first: the first 6 frames as the stream decoder finds them at the
        # initial channel, cut at their most probable start and end
        core = bsid.map_decoder_core(self.cb, bsid.channel_params(0.01, 0.01, 0.01), self.N,
                                     backend="cpu", precision="double", sync_word=W)
        frames = bsid.stream_decoder(core).push(rx)[:6]
        self.assertTrue(all(f.status == "ok" for f in frames))
        segs = [rx[f.start:f.end] for f in frames]
        ch, ll = bsid.estimate_channel(self.cb, self.N, segs,
                                       initial=bsid.channel_params(0.01, 0.01, 0.01),
                                       backend="cpu", sync_word=W)
        for name in ("Pi", "Pd", "Ps"):
            self.assertAlmostEqual(msgs[0][name], getattr(ch, name), delta=1e-12)
        self.assertEqual((msgs[0]["frames"], msgs[0]["applied"]), (6, True))

    def test_006_estimates_posted_when_the_input_ends_late(self):
        # the upstream ends well after its last item: the estimates must still
        # be posted while the flowgraph runs, not when it is stopped
        src = late_end_source(self.frames[:12], pause=1.0)
        dec = bsid.map_decoder(self.cb, self.N, 0.01, 0.01, 0.01, output="hard",
                               backend="cpu", precision="double", max_batch=4,
                               estimate_every=12)
        snk = blocks.null_sink(gr.sizeof_int)
        dbg = blocks.message_debug()
        self.tb.connect(src, dec, snk)
        self.tb.msg_connect(dec, "channel_estimate", dbg, "store")
        self.tb.start()
        deadline = time.monotonic() + 300  # a hang guard only
        while dbg.num_messages() < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        before_stop = dbg.num_messages()
        self.tb.wait()
        self.assertEqual(before_stop, 1)
        self.assertEqual((dec.frames(), dec.estimates()), (12, 1))

    def test_005_bad_settings_are_refused(self):
        with self.assertRaises(ValueError):
            bsid.map_decoder(self.cb, self.N, 0.01, 0.01, 0.01, estimate_every=-1)

    def test_004_off_by_default(self):
        dec, msgs = self.run_block(self.frames[:6], 0)
        self.assertEqual((dec.estimates(), len(msgs)), (0, 0))


if __name__ == "__main__":
    gr_unittest.run(qa_map_decoder_estimate)
