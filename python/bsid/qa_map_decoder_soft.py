#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""bsid.map_decoder with input="llr" (float items, soft decisions): tagged
frames of LLRs of +-infinity give what the same frames of bits give; a stream
of noisy LLRs is decoded in stream framing with the start tags of GNU Radio's
correlate_access_code_tag_bb carried onto the float stream by tag_share;
a NaN makes its frame an invalid_input erasure and only that one; items of
the wrong type are refused when the flowgraph is connected."""

import numpy as np
import pmt
from gnuradio import blocks, digital, gr, gr_unittest

from gnuradio import bsid

SYNC = "0110100111010010"
N = 16


class qa_map_decoder_soft(gr_unittest.TestCase):

    def setUp(self):
        self.cb = bsid.codebook.from_spec("builtin:ld3-modvec6")
        self.rng = np.random.default_rng(7)

    def tagged_frames(self, frames, Pi=0.01, Pd=0.01, Ps=0.0, seed=3):
        """Frames through the channel block: (bits, tags)."""
        msgs = self.rng.integers(0, self.cb.q, frames * N)
        tb = gr.top_block()
        src = blocks.vector_source_i([int(m) for m in msgs], False)
        enc = bsid.codebook_encoder(self.cb, N, "packet_len")
        chan = bsid.channel(Pi, Pd, Ps, seed, "packet_len", False)
        snk = blocks.vector_sink_b()
        tb.connect(src, enc, chan, snk)
        tb.run()
        return np.array(snk.data(), dtype=np.uint8), snk.tags(), msgs.reshape(frames, N)

    def decode_tagged(self, items, tags, soft, output="posteriors", **kw):
        tb = gr.top_block()
        if soft:
            src = blocks.vector_source_f([float(x) for x in items], False, 1, tags)
        else:
            src = blocks.vector_source_b([int(x) for x in items], False, 1, tags)
        dec = bsid.map_decoder(self.cb, N, 0.01, 0.01, 0.0, output=output, backend="cpu",
                               precision="double", input="llr" if soft else "bits", **kw)
        snk = blocks.vector_sink_f(self.cb.q) if output == "posteriors" \
            else blocks.vector_sink_i()
        tb.connect(src, dec, snk)
        tb.run()
        erasures = [pmt.symbol_to_string(t.value) for t in snk.tags()
                    if pmt.symbol_to_string(t.key) == "bsid_erasure"]
        return np.array(snk.data()), erasures, dec

    def test_000_infinite_llrs_are_bits(self):
        bits, tags, _ = self.tagged_frames(8)
        want, e0, _ = self.decode_tagged(bits, tags, soft=False)
        for mag in (np.inf, 1e30):
            llr = np.where(bits == 1, mag, -mag).astype(np.float32)
            got, e1, dec = self.decode_tagged(llr, tags, soft=True)
            self.assertEqual(e1, e0)
            self.assertEqual(dec.frames(), 8)
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)

    def test_001_nan_erases_its_frame_only(self):
        bits, tags, msgs = self.tagged_frames(5)
        llr = np.where(bits == 1, 4.0, -4.0).astype(np.float32)
        starts = sorted(t.offset for t in tags if pmt.symbol_to_string(t.key) == "packet_len")
        llr[starts[2] + 9] = np.nan
        got, erasures, dec = self.decode_tagged(llr, tags, soft=True, output="hard")
        self.assertEqual(erasures, ["invalid_input"])
        self.assertEqual(dec.frames(), 5)
        got = got.reshape(5, N)
        np.testing.assert_array_equal(got[2], -1)
        for k in (0, 1, 3, 4):
            self.assertLessEqual(np.sum(got[k] != msgs[k]), 1)

    def test_002_stream_of_noisy_llrs_with_correlator_tags(self):
        # frames with a sync word, back to back through one channel; the
        # receiver's soft values are BPSK in Gaussian noise: LLR = 2 y / sigma^2
        frames, sigma = 12, 0.45
        msgs = self.rng.integers(0, self.cb.q, (frames, N))
        sent = np.concatenate([np.concatenate([np.array([int(c) for c in SYNC], np.uint8),
                                               self.cb.encode(m)]) for m in msgs])
        rx, _ = bsid.transmit(bsid.channel_params(0.01, 0.01, 0.0), sent, seed=4, frame=0)
        y = (2.0 * rx - 1.0) + self.rng.normal(0, sigma, len(rx))
        llr = (2 * y / sigma ** 2).astype(np.float32)
        hard = (llr > 0).astype(np.uint8)
        tb = gr.top_block()
        soft_src = blocks.vector_source_f(llr.tolist(), False)
        bit_src = blocks.vector_source_b(hard.tolist(), False)
        cor = digital.correlate_access_code_tag_bb(SYNC, 2, "bsid_start")
        share = blocks.tag_share(gr.sizeof_float, gr.sizeof_char)  # the tags onto the LLRs
        flips = float(np.mean(hard != rx))
        dec = bsid.map_decoder(self.cb, N, 0.01, 0.01, 0.0, output="hard", backend="cpu",
                               sync_word=SYNC, framing="stream", input="llr",
                               synchronized_at_start=False)
        snk = blocks.vector_sink_i()
        tb.connect(soft_src, (share, 0))
        tb.connect(bit_src, cor, (share, 1))
        tb.connect(share, dec, snk)
        tb.run()
        got = np.array(snk.data(), dtype=np.int64).reshape(-1, N)
        self.assertEqual(len(got), frames)  # frames in, frames out
        soft_ser = np.mean(got != msgs)
        self.assertGreater(flips, 0.005)  # the link really flips bits
        self.assertLess(soft_ser, 0.05)
        drift = [t for t in snk.tags() if pmt.symbol_to_string(t.key) == "bsid_drift"]
        self.assertEqual(len(drift), frames)

    def test_003_wrong_item_types_are_refused_when_connected(self):
        tb = gr.top_block()
        soft = bsid.map_decoder(self.cb, N, 0.01, 0.01, 0.0, input="llr", backend="cpu")
        hard = bsid.map_decoder(self.cb, N, 0.01, 0.01, 0.0, backend="cpu")
        with self.assertRaises(ValueError):
            tb.connect(blocks.vector_source_b([0, 1], False), soft)
        with self.assertRaises(ValueError):
            tb.connect(blocks.vector_source_f([0.0, 1.0], False), hard)
        with self.assertRaises(ValueError):
            bsid.map_decoder(self.cb, N, 0.01, 0.01, 0.0, input="soft")


if __name__ == "__main__":
    gr_unittest.run(qa_map_decoder_soft)
