#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""bsid.map_decoder with framing="stream" and output="received": each frame
the stream receiver decodes in sync, put out as received (its items from its
decoded start to its decoded end) with a length tag; an erasure puts out
nothing and is counted by a bsid_frames_lost tag on the next frame, so that a
decoder of tagged frames downstream (reads=M from several receivers) keeps
frame k as frame k."""

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import bsid

SYNC = "0110100111010010"
N = 16


def bits_of(text):
    return np.array([int(c) for c in text], dtype=np.uint8)


def frames_of(items, tags, key="packet_len"):
    """A tagged stream's frames: [(items, {key: value})] in order."""
    starts = sorted((t.offset, t) for t in tags if pmt.symbol_to_string(t.key) == key)
    out = []
    for off, t in starts:
        n = pmt.to_long(t.value)
        info = {pmt.symbol_to_string(u.key): u.value for u in tags if u.offset == off}
        out.append((np.asarray(items[off:off + n]), info))
    return out


class qa_map_decoder_received(gr_unittest.TestCase):

    def setUp(self):
        self.cb = bsid.codebook.from_spec("builtin:ld3-modvec6")
        self.ch = bsid.channel_params(0.01, 0.01, 0.0)

    def stream(self, frames, seed, sync=SYNC, ch=None):
        """A stream of frames (each W + n N bits), its messages and where each
        frame was received (starts[k], starts[frames] = the stream's end)."""
        rng = np.random.default_rng(seed)
        F = len(sync) + N * self.cb.n
        msgs = [rng.integers(0, 16, N) for _ in range(frames)]
        sent = np.concatenate([np.concatenate([bits_of(sync), self.cb.encode(m)])
                               for m in msgs])
        rx, drift = bsid.transmit(ch or self.ch, sent, seed=seed, frame=0)
        starts = [k * F + int(drift[k * F]) for k in range(frames)] + [len(rx)]
        return rx, msgs, starts

    def receive(self, rx, soft=False, sync=SYNC, **kw):
        tb = gr.top_block()
        if soft:
            src = blocks.vector_source_f([float(v) for v in rx], False)
            snk = blocks.vector_sink_f()
        else:
            src = blocks.vector_source_b([int(b) for b in rx], False)
            snk = blocks.vector_sink_b()
        dec = bsid.map_decoder(self.cb, N, self.ch.Pi, self.ch.Pd, self.ch.Ps,
                               input="llr" if soft else "bits", output="received",
                               backend="cpu", sync_word=sync, framing="stream", **kw)
        tb.connect(src, dec, snk)
        tb.run()
        return dec, frames_of(snk.data(), snk.tags())

    def test_000_frames_as_received(self):
        """In sync, each frame's output is the received stream from its decoded
        start to its decoded end (the bsid_drift tag's positions), which here
        are where it was received."""
        rx, msgs, starts = self.stream(10, 3)
        F = len(SYNC) + N * self.cb.n
        dec, frames = self.receive(rx)
        self.assertEqual(len(frames), 10)
        self.assertEqual((dec.frames(), dec.erasures()), (10, 0))
        for k, (items, tags) in enumerate(frames):
            d = tags["bsid_drift"]
            s = k * F + pmt.to_long(pmt.dict_ref(d, pmt.intern("start"), pmt.PMT_NIL))
            e = (k + 1) * F + pmt.to_long(pmt.dict_ref(d, pmt.intern("end"), pmt.PMT_NIL))
            np.testing.assert_array_equal(items, rx[s:e])
            self.assertEqual((s, e), (starts[k], starts[k + 1]), msg=f"frame {k}")
            self.assertNotIn("bsid_frames_lost", tags)
        # each decodes as a tagged frame (with its sync word) to its message
        core = bsid.map_decoder_core(self.cb, self.ch, N, backend="cpu", sync_word=SYNC)
        got = [bsid.hard_decisions(core.decode(items)) for items, _ in frames]
        self.assertLessEqual(np.mean(np.array(got) != np.array(msgs)), 0.05)

    def test_001_soft_items_pass_as_they_came(self):
        rx, _, starts = self.stream(6, 5)
        llr = (2.0 * rx.astype(np.float64) - 1.0) * 3.5
        llr[::7] *= -0.25  # some weak and wrong
        dec, frames = self.receive(llr.astype(np.float32), soft=True)
        self.assertEqual(len(frames), 6)
        for k, (items, tags) in enumerate(frames):
            np.testing.assert_array_equal(items.astype(np.float32),
                                          llr.astype(np.float32)[starts[k]:starts[k + 1]])

    def test_002_erasures_are_counted_on_the_next_frame(self):
        """A burst of noise two frames long: the frames there are erasures,
        put out as a bsid_frames_lost count of 2 on the first frame after it;
        the frames in and out still add up."""
        rx, _, starts = self.stream(8, 8)
        rng = np.random.default_rng(9)
        burst = rng.integers(0, 2, 2 * (len(SYNC) + N * self.cb.n)).astype(np.uint8)
        stream = np.concatenate([rx[:starts[3]], burst, rx[starts[3]:]])
        dec, frames = self.receive(stream)
        lost = [pmt.to_long(t["bsid_frames_lost"]) if "bsid_frames_lost" in t else 0
                for _, t in frames]
        self.assertEqual(len(frames) + sum(lost), dec.frames())
        self.assertEqual(sum(lost), dec.erasures())
        self.assertGreaterEqual(sum(lost), 2)
        for items, _ in frames:
            self.assertGreater(len(items), 0)
        # the stream ends inside a frame: that frame is lost, nothing after it
        dec, frames = self.receive(rx[:starts[5] + 50])
        self.assertEqual((len(frames), dec.frames(), dec.erasures()), (5, 6, 1))

    def test_003_needs_stream_framing(self):
        with self.assertRaisesRegex(ValueError, "received.*stream"):
            bsid.map_decoder(self.cb, N, 0.01, 0.01, 0.0, output="received", backend="cpu")

    def test_004_two_receivers_into_one_decoder(self):
        """Two stream receivers' frames, without a sync word, into reads=2: a
        frame one receiver lost comes with a bsid_frames_lost count, so frame
        k stays frame k; each output frame is decode_reads of the reads it has
        (decode of the one left), flagged in its bsid_reads tag."""
        ch = bsid.channel_params(0.01, 0.01, 0.01)
        self.ch = ch
        rng = np.random.default_rng(21)
        msgs = [rng.integers(0, 16, N) for _ in range(8)]
        sent = np.concatenate([self.cb.encode(m) for m in msgs])
        tb = gr.top_block()
        joint = bsid.map_decoder(self.cb, N, ch.Pi, ch.Pd, ch.Ps, backend="cpu",
                                 precision="double", reads=2)
        sinks = []
        for r in range(2):
            rx, _ = bsid.transmit(ch, sent, seed=100 + r, frame=0)
            src = blocks.vector_source_b([int(b) for b in rx], False)
            front = bsid.map_decoder(self.cb, N, ch.Pi, ch.Pd, ch.Ps, output="received",
                                     backend="cpu", framing="stream")
            sinks.append(blocks.vector_sink_b())
            tb.connect(src, front, sinks[-1])
            tb.connect(front, (joint, r))
        post = blocks.vector_sink_f(16)
        tb.connect(joint, post)
        tb.run()
        # each receiver's frames by index: its items, or None where it lost one
        reads = []
        for s in sinks:
            slots = []
            for items, tags in frames_of(s.data(), s.tags()):
                if "bsid_frames_lost" in tags:
                    slots += [None] * pmt.to_long(tags["bsid_frames_lost"])
                slots.append(items)
            slots += [None] * (8 - len(slots))
            self.assertEqual(len(slots), 8)
            reads.append(slots)
        rows = np.array(post.data()).reshape(-1, N, 16)
        self.assertEqual(rows.shape[0], 8)
        used = {}
        for t in post.tags():
            if pmt.symbol_to_string(t.key) == "bsid_reads":
                used[t.offset // N] = pmt.to_long(
                    pmt.dict_ref(t.value, pmt.intern("used"), pmt.PMT_NIL))
        core = bsid.map_decoder_core(self.cb, ch, N, backend="cpu", precision="double")
        both = 0
        for k in range(8):
            have = [rd[k] for rd in reads if rd[k] is not None]
            self.assertEqual(used[k], len(have), msg=f"frame {k}")
            if len(have) == 2:
                both += 1
                np.testing.assert_allclose(rows[k], core.decode_reads(have), atol=1e-6)
            elif len(have) == 1:
                np.testing.assert_allclose(rows[k], core.decode(have[0]), atol=1e-6)
        self.assertGreaterEqual(both, 6)
        self.assertLessEqual(np.mean(rows.argmax(axis=2) != np.array(msgs)), 0.05)

if __name__ == "__main__":
    gr_unittest.run(qa_map_decoder_received)
