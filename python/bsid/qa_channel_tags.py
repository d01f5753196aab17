#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Run-time channel changes: the channel block announces the settings each
frame went through (bsid_channel tags) and the decoder decodes every frame
with them, whatever the delay between the two blocks (docs/design.md section
2, "Tagged streams"); without the tags, set_channel applies to frames that
begin after the call."""

import threading
import time

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import bsid
from qa_tagged_streams import tags_of


def tag(offset, key, value):
    return gr.tag_utils.python_to_tag((offset, pmt.intern(key), value))


def channel_tag(offset, Pi, Pd, Ps):
    return tag(offset, "bsid_channel", pmt.init_f64vector(3, [Pi, Pd, Ps]))


class qa_channel_tags(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()
        self.cb = bsid.codebook.builtin("ld3-modvec6")
        self.N = 20
        rng = np.random.default_rng(5)
        self.msgs = [rng.integers(0, 16, self.N) for _ in range(6)]
        # frames 0-2 through a clean channel, 3-5 through a noisy one
        self.chs = [(0.0, 0.0, 0.0)] * 3 + [(0.03, 0.03, 0.01)] * 3
        self.frames = [bsid.transmit(bsid.channel_params(*c), self.cb.encode(m), 9, frame=k)[0]
                       for k, (m, c) in enumerate(zip(self.msgs, self.chs))]
        self.assertTrue(any(len(f) != self.N * self.cb.n for f in self.frames[3:]),
                        "the noisy frames need some drift")

    def source(self, with_channel_tags):
        data, tags, off = [], [], 0
        for k, f in enumerate(self.frames):
            tags.append(tag(off, "packet_len", pmt.from_long(len(f))))
            if with_channel_tags and (k == 0 or self.chs[k] != self.chs[k - 1]):
                tags.append(channel_tag(off, *self.chs[k]))
            data += f.tolist()
            off += len(f)
        return blocks.vector_source_b(data, False, 1, tags)

    def decode(self, src, **kw):
        # the decoder is made for the clean channel: m_tau = [0, 0]
        dec = bsid.map_decoder(self.cb, self.N, 0.0, 0.0, 0.0, output="hard", backend="cpu",
                               max_batch=2, **kw)
        snk = blocks.vector_sink_i()
        self.tb.connect(src, dec, snk)
        self.tb.run()
        rows = np.array(snk.data(), dtype=np.int64).reshape(-1, self.N)
        return rows, tags_of(snk, "bsid_erasure")

    def core(self, k):
        dec = bsid.map_decoder_core(self.cb, bsid.channel_params(*self.chs[k]), self.N,
                                    backend="cpu")
        return bsid.hard_decisions(dec.decode(self.frames[k]))

    def test_001_each_frame_decoded_with_its_tagged_channel(self):
        rows, erasures = self.decode(self.source(True))
        self.assertEqual(erasures, [])
        self.assertEqual(len(rows), 6)
        for k in range(6):
            np.testing.assert_array_equal(rows[k], self.core(k))

    def test_002_without_following_the_decoder_keeps_its_channel(self):
        rows, erasures = self.decode(self.source(True), follow_channel_tags=False)
        drifted = [k for k in range(3, 6) if len(self.frames[k]) != self.N * self.cb.n]
        self.assertEqual([k for k, _ in erasures], [k * self.N for k in drifted])
        self.assertTrue(all(why == "drift_out_of_range" for _, why in erasures))
        for k in range(3):
            np.testing.assert_array_equal(rows[k], self.msgs[k])

    def test_003_bad_channel_tags_are_ignored(self):
        data = self.frames[0].tolist()
        tags = [tag(0, "packet_len", pmt.from_long(len(data))),
                tag(0, "bsid_channel", pmt.init_f64vector(3, [0.7, 0.6, 0.0])),
                tag(0, "bsid_channel", pmt.from_double(0.1))]
        rows, erasures = self.decode(blocks.vector_source_b(data, False, 1, tags))
        self.assertEqual(erasures, [])
        np.testing.assert_array_equal(rows[0], self.msgs[0])

    def test_004_channel_block_announces_its_settings(self):
        # the first frame carries the settings; a change shows on the first
        # frame sent with it; the decoder follows, so no frame is erased,
        # wherever the change falls
        bits = np.concatenate([self.cb.encode(m) for m in self.msgs * 40])
        tau = self.N * self.cb.n
        tags = [tag(k * tau, "packet_len", pmt.from_long(tau)) for k in range(len(bits) // tau)]
        src = blocks.vector_source_b(bits.tolist(), False, 1, tags)
        thr = blocks.throttle(gr.sizeof_char, 40000)
        chan = bsid.channel(0.0, 0.0, 0.0, seed=4)
        mid = blocks.vector_sink_b()
        dec = bsid.map_decoder(self.cb, self.N, 0.0, 0.0, 0.0, output="hard", backend="cpu")
        snk = blocks.vector_sink_i()
        self.tb.connect(src, thr, chan, dec, snk)
        self.tb.connect(chan, mid)
        self.tb.start()
        deadline = time.monotonic() + 30
        while not mid.data() and time.monotonic() < deadline:  # the first frame is out
            time.sleep(0.005)
        chan.set_channel(0.02, 0.02, 0.0)
        dec.set_channel(0.05, 0.0, 0.0)  # tags set the channel: no effect
        self.tb.wait()
        announced = [tuple(v) for _, v in sorted(tags_of(mid, "bsid_channel"))]
        self.assertEqual(announced, [(0.0, 0.0, 0.0), (0.02, 0.02, 0.0)])
        self.assertEqual(tags_of(snk, "bsid_erasure"), [])
        self.assertEqual(len(snk.data()), len(tags) * self.N)

    def test_006_first_frame_carries_the_settings(self):
        tau = self.N * self.cb.n
        bits = np.concatenate([self.cb.encode(m) for m in self.msgs])
        tags = [tag(k * tau, "packet_len", pmt.from_long(tau)) for k in range(6)]
        chan = bsid.channel(0.01, 0.02, 0.03, seed=4)
        mid = blocks.vector_sink_b()
        self.tb.connect(blocks.vector_source_b(bits.tolist(), False, 1, tags), chan, mid)
        self.tb.run()
        self.assertEqual([(o, tuple(v)) for o, v in tags_of(mid, "bsid_channel")],
                         [(0, (0.01, 0.02, 0.03))])

    def test_005_set_channel_applies_to_frames_that_begin_after_it(self):
        # no channel tags: frames received before the call keep the old channel
        dec = bsid.map_decoder(self.cb, self.N, 0.0, 0.0, 0.0, output="hard", backend="cpu")
        dec.set_channel(0.03, 0.03, 0.01)
        snk = blocks.vector_sink_i()
        self.tb.connect(self.source(False), dec, snk)
        self.tb.run()
        self.assertEqual(tags_of(snk, "bsid_erasure"), [])
        rows = np.array(snk.data(), dtype=np.int64).reshape(-1, self.N)
        core = bsid.map_decoder_core(self.cb, bsid.channel_params(0.03, 0.03, 0.01), self.N,
                                     backend="cpu")
        for k in range(6):
            np.testing.assert_array_equal(rows[k], bsid.hard_decisions(core.decode(self.frames[k])))


if __name__ == '__main__':
    gr_unittest.run(qa_channel_tags)
