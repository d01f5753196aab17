#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""bsid.map_decoder with framing="stream": a plain bitstream in, one output
frame per frame length out, bsid_drift tags, acquisition at the start tags of
GNU Radio's own correlate_access_code_tag_bb, erasures for noise and the end
of the stream, and the same frames as the core stream decoder."""

import numpy as np
import pmt
from gnuradio import blocks, digital, gr, gr_unittest

from gnuradio import bsid

SYNC = "0110100111010010"
N = 16


def bits_of(text):
    return np.array([int(c) for c in text], dtype=np.uint8)


class qa_map_decoder_stream(gr_unittest.TestCase):

    def setUp(self):
        self.cb = bsid.codebook.from_spec("builtin:ld3-modvec6")
        self.ch = bsid.channel_params(0.01, 0.01, 0.0)
        self.F = len(SYNC) + N * self.cb.n

    def stream(self, frames, seed):
        rng = np.random.default_rng(seed)
        msgs = [rng.integers(0, 16, N) for _ in range(frames)]
        sent = np.concatenate([np.concatenate([bits_of(SYNC), self.cb.encode(m)])
                               for m in msgs])
        rx, drift = bsid.transmit(self.ch, sent, seed=seed, frame=0)
        starts = [k * self.F + int(drift[k * self.F]) for k in range(frames + 1)]
        return rx, msgs, starts

    def run_block(self, rx, correlate=False, **kw):
        tb = gr.top_block()
        src = blocks.vector_source_b([int(b) for b in rx], False)
        dec = bsid.map_decoder(self.cb, N, 0.01, 0.01, 0.0, output="hard", backend="cpu",
                               sync_word=SYNC, framing="stream", **kw)
        snk = blocks.vector_sink_i()
        if correlate:
            cor = digital.correlate_access_code_tag_bb(SYNC, 0, "bsid_start")
            tb.connect(src, cor, dec, snk)
        else:
            tb.connect(src, dec, snk)
        tb.run()
        out = np.array(snk.data(), dtype=np.int64).reshape(-1, N)
        tags = {}
        for t in snk.tags():
            tags.setdefault(t.offset // N, {})[pmt.symbol_to_string(t.key)] = t.value
        return dec, out, tags

    def test_000_frames_and_drift_tags(self):
        rx, msgs, starts = self.stream(12, 3)
        dec, out, tags = self.run_block(rx)
        self.assertEqual(out.shape, (12, N))
        self.assertEqual((dec.frames(), dec.erasures()), (12, 0))
        self.assertLessEqual(np.mean(out != np.array(msgs)), 0.05)
        for k in range(12):
            self.assertEqual(pmt.to_long(tags[k]["packet_len"]), N)
            d = tags[k]["bsid_drift"]
            start = pmt.to_long(pmt.dict_ref(d, pmt.intern("start"), pmt.PMT_NIL))
            end = pmt.to_long(pmt.dict_ref(d, pmt.intern("end"), pmt.PMT_NIL))
            p = pmt.to_double(pmt.dict_ref(d, pmt.intern("end_probability"), pmt.PMT_NIL))
            # the nominal start of frame k is k F: the drift is where it was received
            self.assertEqual(start, starts[k] - k * self.F)
            if k < 11:
                self.assertEqual(end, starts[k + 1] - (k + 1) * self.F)
            self.assertTrue(0.0 < p <= 1.0)
        # the same frames as the core stream decoder
        core = bsid.map_decoder_core(self.cb, self.ch, N, backend="cpu", sync_word=SYNC)
        sd = bsid.stream_decoder(core)
        frames = sd.push(rx) + sd.flush()
        np.testing.assert_array_equal(out, [bsid.hard_decisions(f.posteriors) for f in frames])

    def test_001_acquires_at_correlate_access_code_tags(self):
        # unsynchronized, no search: only GNU Radio's correlator tags acquire,
        # after a lead of noise and after a burst of noise two frames long
        rx, msgs, starts = self.stream(10, 8)
        # (with seed 8 the sync words of frames 0 and 5, where the decoder must
        # acquire, are received intact, so that a correlator without errors tags them)
        for k in (0, 5):
            self.assertTrue(np.array_equal(rx[starts[k]:starts[k] + len(SYNC)], bits_of(SYNC)))
        rng = np.random.default_rng(9)
        lead = rng.integers(0, 2, 40).astype(np.uint8)
        burst = rng.integers(0, 2, 2 * self.F).astype(np.uint8)
        cut = starts[5]
        stream = np.concatenate([lead, rx[:cut], burst, rx[cut:]])
        dec, out, tags = self.run_block(stream, correlate=True, search=False,
                                        synchronized_at_start=False)
        # the lead (under half a frame) gives no frame; the burst two erasures
        self.assertEqual(out.shape[0], 12)
        erased = [k for k in range(12) if "bsid_erasure" in tags.get(k, {})]
        self.assertEqual(erased, [5, 6])
        for k in erased:
            self.assertEqual(pmt.symbol_to_string(tags[k]["bsid_erasure"]), "sync_lost")
            np.testing.assert_array_equal(out[k], -1)
        good = [k for k in range(12) if k not in erased]
        want = np.array(msgs)
        self.assertLessEqual(np.mean(out[good] != want), 0.05)
        # drift is measured from the last start tag: 0 at each acquisition
        for k in (0, 7):
            d = tags[k]["bsid_drift"]
            self.assertEqual(pmt.to_long(pmt.dict_ref(d, pmt.intern("start"), pmt.PMT_NIL)), 0)

    def test_002_erasures_and_the_end_of_the_stream(self):
        rx, _, starts = self.stream(6, 7)
        bad = rx.copy()
        bad[starts[2] + 30] = 9  # not a bit: its frame is an invalid_input erasure
        cut = bad[:starts[5] + 50]  # the stream ends inside frame 5: truncated
        dec, out, tags = self.run_block(cut)
        self.assertEqual(out.shape[0], 6)
        status = [pmt.symbol_to_string(tags[k]["bsid_erasure"]) if "bsid_erasure" in tags[k]
                  else "ok" for k in range(6)]
        self.assertEqual(status, ["ok", "ok", "invalid_input", "ok", "ok", "truncated"])
        self.assertEqual(dec.erasures(), 2)
        # an empty stream: nothing, and no error
        dec, out, _ = self.run_block(np.zeros(0, np.uint8))
        self.assertEqual(out.shape[0], 0)

    def test_003_bad_parameters(self):
        for kw in ({"framing": "packets"}, {"lookahead": -2}, {"lookahead": N + 1},
                   {"acquire_window": -1}, {"sync_threshold": float("nan")}):
            args = dict(output="hard", backend="cpu", sync_word=SYNC, framing="stream")
            args.update(kw)
            with self.assertRaises(ValueError, msg=str(kw)):
                bsid.map_decoder(self.cb, N, 0.01, 0.01, 0.0, **args)

    def test_004_set_channel_in_stream_framing(self):
        rx, msgs, _ = self.stream(8, 11)
        tb = gr.top_block()
        src = blocks.vector_source_b([int(b) for b in rx], False)
        dec = bsid.map_decoder(self.cb, N, 0.02, 0.02, 0.0, output="hard", backend="cpu",
                               sync_word=SYNC, framing="stream")
        dec.set_channel(0.01, 0.01, 0.0)
        snk = blocks.vector_sink_i()
        tb.connect(src, dec, snk)
        tb.run()
        out = np.array(snk.data()).reshape(-1, N)
        self.assertEqual(out.shape[0], 8)
        self.assertLessEqual(np.mean(out != np.array(msgs)), 0.05)


if __name__ == "__main__":
    gr_unittest.run(qa_map_decoder_stream)
