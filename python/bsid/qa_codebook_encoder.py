#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The codebook encoder block: output equals codebook.encode, frames and tags."""

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import bsid
from qa_tagged_streams import tags_of


class qa_codebook_encoder(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()
        self.cb = bsid.codebook.builtin("ld3-modvec6")  # n = 8, q = 16, P = 6
        self.N = 10
        self.msg = np.random.default_rng(1).integers(0, 16, 5 * self.N).astype(np.int32)

    def run_encoder(self, src, N=None):
        enc = bsid.codebook_encoder(self.cb, N or self.N)
        snk = blocks.vector_sink_b()
        self.tb.connect(src, enc, snk)
        self.tb.run()
        return enc, snk

    def expected(self):
        # each frame restarts the codebook index at 0
        return np.concatenate([self.cb.encode(self.msg[k:k + self.N])
                               for k in range(0, len(self.msg), self.N)])

    def test_001_untagged_stream_is_cut_every_N(self):
        enc, snk = self.run_encoder(blocks.vector_source_i(self.msg.tolist(), False))
        np.testing.assert_array_equal(np.array(snk.data()), self.expected())
        self.assertEqual(tags_of(snk, "packet_len"), [(k * 80, 80) for k in range(5)])
        self.assertEqual(enc.frames(), 5)
        self.assertEqual(enc.error(), "")

    def test_002_tagged_stream_and_other_tags(self):
        src = blocks.vector_source_i(self.msg.tolist(), False)
        s2ts = blocks.stream_to_tagged_stream(gr.sizeof_int, 1, self.N, "packet_len")
        mark = gr.tag_utils.python_to_tag((13, pmt.intern("mark"), pmt.from_long(7)))
        src.set_data(self.msg.tolist(), [mark])
        enc = bsid.codebook_encoder(self.cb, self.N)
        snk = blocks.vector_sink_b()
        self.tb.connect(src, s2ts, enc, snk)
        self.tb.run()
        np.testing.assert_array_equal(np.array(snk.data()), self.expected())
        self.assertEqual(tags_of(snk, "packet_len"), [(k * 80, 80) for k in range(5)])
        # a tag on symbol 13 lands on that symbol's first bit
        self.assertEqual(tags_of(snk, "mark"), [(13 * 8, 7)])

    def test_003_a_frame_with_a_bad_symbol_is_dropped_whole(self):
        # every position of the bad symbol in its frame, any bad value: that
        # frame alone is dropped, the next one carries bsid_frames_lost = 1
        for pos, value, tagged in ((23, 16, False), (20, -1, True), (29, 99, False),
                                   (0, 16, True), (49, 17, False)):
            with self.subTest(pos=pos, value=value, tagged=tagged):
                self.tb = gr.top_block()
                bad = self.msg.copy()
                bad[pos] = value
                src = blocks.vector_source_i(bad.tolist(), False)
                enc = bsid.codebook_encoder(self.cb, self.N)
                snk = blocks.vector_sink_b()
                if tagged:
                    s2ts = blocks.stream_to_tagged_stream(gr.sizeof_int, 1, self.N,
                                                          "packet_len")
                    self.tb.connect(src, s2ts, enc, snk)
                else:
                    self.tb.connect(src, enc, snk)
                self.tb.run()
                k = pos // self.N
                kept = [j for j in range(5) if j != k]
                want = np.concatenate([self.cb.encode(self.msg[j * self.N:(j + 1) * self.N])
                                       for j in kept])
                np.testing.assert_array_equal(np.array(snk.data()), want)
                self.assertEqual(enc.frames(), 4)
                self.assertEqual(enc.frames_dropped(), 1)
                self.assertIn("symbol %d at input item %d" % (value, pos), enc.error())
                self.assertEqual(tags_of(snk, "packet_len"), [(j * 80, 80) for j in range(4)])
                # the frame after the dropped one says so (none after the last)
                self.assertEqual(tags_of(snk, "bsid_frames_lost"),
                                 [(k * 80, 1)] if k < 4 else [])

    def test_004_wrong_frame_length_tag(self):
        # tagged frames of 25 symbols for an encoder of N = 10: each is
        # dropped whole (up to the next length tag); then a right one is sent
        # with the count
        msg = np.concatenate([self.msg, self.msg[:self.N]])
        src = blocks.vector_source_i(msg.tolist(), False)
        lens = [25, 25, self.N]
        tags, at = [], 0
        for n in lens:
            tags.append(gr.tag_utils.python_to_tag((at, pmt.intern("packet_len"),
                                                    pmt.from_long(n))))
            at += n
        src.set_data(msg.tolist(), tags)
        enc = bsid.codebook_encoder(self.cb, self.N)
        snk = blocks.vector_sink_b()
        self.tb.connect(src, enc, snk)
        self.tb.run()
        self.assertIn("has 25 symbols, but the encoder was built for N = 10", enc.error())
        self.assertEqual(enc.frames_dropped(), 2)
        self.assertEqual(enc.frames(), 1)
        np.testing.assert_array_equal(np.array(snk.data()), self.cb.encode(msg[50:60]))
        self.assertEqual(tags_of(snk, "bsid_frames_lost"), [(0, 2)])

    def test_004b_a_bad_frame_through_channel_and_decoder_is_an_erasure(self):
        # encoder -> channel -> decoder (tagged framing): the dropped frame
        # comes out as a frame_lost erasure, in its place
        W = "0110100111010010"
        msg = np.random.default_rng(4).integers(0, 16, 6 * self.N).astype(np.int32)
        bad = msg.copy()
        bad[2 * self.N + 4] = 16
        src = blocks.vector_source_i(bad.tolist(), False)
        enc = bsid.codebook_encoder(self.cb, self.N, sync_word=W)
        chan = bsid.channel(0.005, 0.005, 0.0, seed=2)
        dec = bsid.map_decoder(self.cb, self.N, 0.005, 0.005, 0.0, output="hard",
                               backend="cpu", sync_word=W)
        snk = blocks.vector_sink_i()
        self.tb.connect(src, enc, chan, dec, snk)
        self.tb.run()
        got = np.array(snk.data()).reshape(-1, self.N)
        self.assertEqual(len(got), 6)
        self.assertEqual(tags_of(snk, "bsid_erasure"), [(2 * self.N, "frame_lost")])
        for k in (0, 1, 3, 4, 5):
            self.assertLessEqual((got[k] != msg[k * self.N:(k + 1) * self.N]).sum(), 2)

    def test_005_sync_word_before_each_frame(self):
        W = "0110100111"
        wbits = np.array([int(c) for c in W], dtype=np.uint8)
        for tagged in (False, True):
            with self.subTest(tagged=tagged):
                self.tb = gr.top_block()
                src = blocks.vector_source_i(self.msg.tolist(), False)
                mark = gr.tag_utils.python_to_tag((13, pmt.intern("mark"), pmt.from_long(7)))
                src.set_data(self.msg.tolist(), [mark])
                enc = bsid.codebook_encoder(self.cb, self.N, sync_word=W)
                snk = blocks.vector_sink_b()
                if tagged:
                    s2ts = blocks.stream_to_tagged_stream(gr.sizeof_int, 1, self.N, "packet_len")
                    self.tb.connect(src, s2ts, enc, snk)
                else:
                    self.tb.connect(src, enc, snk)
                self.tb.run()
                want = np.concatenate([np.concatenate([wbits, self.cb.encode(self.msg[k:k + self.N])])
                                       for k in range(0, len(self.msg), self.N)])
                np.testing.assert_array_equal(np.array(snk.data()), want)
                flen = len(W) + 80
                self.assertEqual(tags_of(snk, "packet_len"), [(k * flen, flen) for k in range(5)])
                # symbol 13 is symbol 3 of frame 1: after frame 0, W and three codewords
                self.assertEqual(tags_of(snk, "mark"), [(flen + len(W) + 3 * 8, 7)])
                self.assertEqual(enc.frames(), 5)
        with self.assertRaises(ValueError):
            bsid.codebook_encoder(self.cb, self.N, sync_word="01x")

    def test_006_sync_word_loopback(self):
        # encoder with W -> channel -> decoder with W: every frame decodes
        W = "0110100111010010"
        msg = np.random.default_rng(3).integers(0, 16, 20 * self.N).astype(np.int32)
        src = blocks.vector_source_i(msg.tolist(), False)
        enc = bsid.codebook_encoder(self.cb, self.N, sync_word=W)
        chan = bsid.channel(0.01, 0.01, 0.0, seed=5)
        dec = bsid.map_decoder(self.cb, self.N, 0.01, 0.01, 0.0, output="hard", backend="cpu",
                               sync_word=W)
        snk = blocks.vector_sink_i()
        self.tb.connect(src, enc, chan, dec, snk)
        self.tb.run()
        got = np.array(snk.data()).reshape(-1, self.N)
        self.assertEqual(len(got), 20)
        self.assertEqual(tags_of(snk, "bsid_erasure"), [])
        self.assertLessEqual((got != msg.reshape(-1, self.N)).sum(), 4)
        # the same frames through a decoder that ignores W decode worse or not at all
        self.tb = gr.top_block()
        src = blocks.vector_source_i(msg.tolist(), False)
        enc = bsid.codebook_encoder(self.cb, self.N, sync_word=W)
        chan = bsid.channel(0.01, 0.01, 0.0, seed=5)
        plain = bsid.map_decoder(self.cb, self.N, 0.01, 0.01, 0.0, output="hard", backend="cpu")
        snk2 = blocks.vector_sink_i()
        self.tb.connect(src, enc, chan, plain, snk2)
        self.tb.run()
        worse = np.array(snk2.data()).reshape(-1, self.N)
        self.assertGreater((worse != msg.reshape(-1, self.N)).sum(), (got != msg.reshape(-1, self.N)).sum())

if __name__ == '__main__':
    gr_unittest.run(qa_codebook_encoder)
