#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The bad-input matrix at the flowgraph level (docs/testing.md): length tags
missing, duplicated, of length 0 or not a number, a stream that ends inside a
frame, frames far too long, and channel parameters set to invalid values while
the flowgraph runs. Every received frame gives exactly one output frame, or a
flagged erasure, and every bit outside a frame is counted: nothing is lost
without saying so."""

import math
import threading
import time

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import bsid
from qa_tagged_streams import tagged_source, tags_of

BAD_CHANNELS = ((-0.01, 0.01, 0.0), (math.nan, 0.01, 0.0), (0.01, math.inf, 0.0),
                (0.5, 0.5, 0.0), (0.01, 0.01, 1.5), (0.01, 0.01, -math.inf))


def length_tag(offset, value):
    return gr.tag_utils.python_to_tag((offset, pmt.intern("packet_len"), value))


class qa_bad_input_blocks(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()
        self.cb = bsid.codebook.builtin("ld3-modvec6")
        self.N = 20
        self.ch = bsid.channel_params(0.01, 0.01, 0.01)
        rng = np.random.default_rng(21)
        self.msgs = [rng.integers(0, 16, self.N) for _ in range(4)]
        self.frames = [bsid.transmit(self.ch, self.cb.encode(m), 6, frame=k)[0]
                       for k, m in enumerate(self.msgs)]
        self.core = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu")

    def hard(self, rx):
        return bsid.hard_decisions(self.core.decode(rx))

    def run_decoder(self, src, **kw):
        """Runs src -> decoder (hard output) -> sink; returns (decoder, frames
        as rows, erasure tags as (frame index, reason))."""
        dec = bsid.map_decoder(self.cb, self.N, 0.01, 0.01, 0.01, output="hard", backend="cpu",
                               **kw)
        snk = blocks.vector_sink_i()
        self.tb.connect(src, dec, snk)
        done = threading.Event()

        def run():
            self.tb.run()
            done.set()

        threading.Thread(target=run, daemon=True).start()
        self.assertTrue(done.wait(60), "the flowgraph hung")
        got = np.array(snk.data(), dtype=np.int64)
        self.assertEqual(len(got) % self.N, 0, "an output frame is incomplete")
        rows = got.reshape(-1, self.N)
        # one length tag per output frame, each on a frame boundary
        self.assertEqual(tags_of(snk, "packet_len"), [(k * self.N, self.N) for k in range(len(rows))])
        erasures = [(off // self.N, why) for off, why in tags_of(snk, "bsid_erasure")]
        for k, _ in erasures:
            self.assertTrue((rows[k] == -1).all())
        self.assertEqual((dec.frames(), dec.erasures()), (len(rows), len(erasures)))
        return dec, rows, erasures

    def test_001_missing_tag_bits_are_counted(self):
        # frame 1 has no length tag: its bits belong to no frame
        f = self.frames
        data = np.concatenate(f)
        tags = [length_tag(0, pmt.from_long(len(f[0]))),
                length_tag(len(f[0]) + len(f[1]), pmt.from_long(len(f[2])))]
        dec, rows, erasures = self.run_decoder(blocks.vector_source_b(data.tolist(), False, 1, tags))
        self.assertEqual(erasures, [])
        self.assertEqual(len(rows), 2)
        np.testing.assert_array_equal(rows[0], self.hard(f[0]))
        np.testing.assert_array_equal(rows[1], self.hard(f[2]))
        self.assertEqual(dec.bits_discarded(), len(f[1]) + len(f[3]))
        # no tag at all: everything is counted, nothing is put out
        self.tb = gr.top_block()
        dec, rows, _ = self.run_decoder(blocks.vector_source_b(data.tolist(), False))
        self.assertEqual(len(rows), 0)
        self.assertEqual(dec.bits_discarded(), len(data))

    def test_002_duplicated_tag(self):
        # the same length tag twice on frame 1: the first copy starts a frame
        # that receives nothing before the second copy, a flagged erasure
        f = self.frames
        off1 = len(f[0])
        src = tagged_source(f[:3], [(off1, "packet_len", len(f[1]))])
        _, rows, erasures = self.run_decoder(src)
        self.assertEqual(len(rows), 4)
        self.assertEqual([why for _, why in erasures], ["truncated"])
        k0 = erasures[0][0]
        decoded = [r for k, r in enumerate(rows) if k != k0]
        for r, rx in zip(decoded, f[:3]):
            np.testing.assert_array_equal(r, self.hard(rx))

    def test_003_zero_negative_and_non_integer_lengths(self):
        f = self.frames
        off = len(f[0])
        # frame 0, then three empty frames on one item, then frame 1
        tags = [length_tag(0, pmt.from_long(len(f[0]))),
                length_tag(off, pmt.from_long(0)),
                length_tag(off, pmt.from_long(-5)),
                length_tag(off, pmt.intern("many")),
                length_tag(off, pmt.from_long(len(f[1])))]
        data = np.concatenate(f[:2])
        dec, rows, erasures = self.run_decoder(blocks.vector_source_b(data.tolist(), False, 1, tags))
        self.assertEqual(len(rows), 5)
        # zero is a length (an empty frame); -5 and a symbol are not lengths:
        # each is put out as an invalid_tag erasure (no bits follow them here)
        self.assertEqual(erasures, [(1, "empty"), (2, "invalid_tag"), (3, "invalid_tag")])
        np.testing.assert_array_equal(rows[0], self.hard(f[0]))
        np.testing.assert_array_equal(rows[4], self.hard(f[1]))
        self.assertEqual(dec.bits_discarded(), 0)
        # a zero length at the very end of the stream
        self.tb = gr.top_block()
        tags = [length_tag(0, pmt.from_long(len(f[0]))), length_tag(off - 1, pmt.from_long(0))]
        _, rows, erasures = self.run_decoder(
            blocks.vector_source_b(f[0].tolist(), False, 1, tags))
        # the empty frame starts inside frame 0, which is cut short
        self.assertEqual([why for _, why in erasures], ["truncated", "empty"])
        self.assertEqual(len(rows), 2)

    def test_004_stream_ends_inside_a_frame(self):
        # the last frame promises more bits than the stream holds: it is put
        # out as a truncated erasure, not lost
        f = self.frames
        for missing in (1, 50, len(f[2]) - 1):
            with self.subTest(missing=missing):
                self.tb = gr.top_block()
                cut = f[2][:len(f[2]) - missing]
                data = np.concatenate([f[0], f[1], cut])
                tags = [length_tag(0, pmt.from_long(len(f[0]))),
                        length_tag(len(f[0]), pmt.from_long(len(f[1]))),
                        length_tag(len(f[0]) + len(f[1]), pmt.from_long(len(f[2])))]
                dec, rows, erasures = self.run_decoder(
                    blocks.vector_source_b(data.tolist(), False, 1, tags), max_batch=1)
                self.assertEqual(len(rows), 3)
                self.assertEqual(erasures, [(2, "truncated")])
                np.testing.assert_array_equal(rows[0], self.hard(f[0]))
                np.testing.assert_array_equal(rows[1], self.hard(f[1]))
        # a length tag far larger than any frame (the bits are counted, not kept)
        self.tb = gr.top_block()
        tags = [length_tag(0, pmt.from_long(len(f[0]))),
                length_tag(len(f[0]), pmt.from_long(10**12))]
        data = np.concatenate([f[0], f[1]])
        _, rows, erasures = self.run_decoder(blocks.vector_source_b(data.tolist(), False, 1, tags))
        self.assertEqual(len(rows), 2)
        self.assertEqual(erasures, [(1, "truncated")])

    def test_005_frame_lengths(self):
        # empty, a single bit, exactly tau, ten times tau, not bits
        tau = self.N * self.cb.n
        exact = self.cb.encode(self.msgs[0])
        self.assertEqual(len(exact), tau)
        bad = exact.copy()
        bad[3] = 7
        frames = [np.zeros(0, dtype=np.uint8), np.ones(1, dtype=np.uint8), exact,
                  np.tile(exact, 10), bad, self.frames[1]]
        _, rows, erasures = self.run_decoder(tagged_source(frames))
        self.assertEqual(len(rows), 6)
        self.assertEqual(erasures, [(0, "empty"), (1, "drift_out_of_range"),
                                    (3, "drift_out_of_range"), (4, "invalid_input")])
        np.testing.assert_array_equal(rows[2], self.msgs[0])
        np.testing.assert_array_equal(rows[5], self.hard(self.frames[1]))

    def test_006_invalid_channel_at_run_time(self):
        # a slow source, so that the setter calls fall while frames flow
        frames = self.frames * 5
        dec = bsid.map_decoder(self.cb, self.N, 0.01, 0.01, 0.01, output="hard", backend="cpu",
                               max_batch=1)
        src = tagged_source(frames)
        thr = blocks.throttle(gr.sizeof_char, 20000)
        snk = blocks.vector_sink_i()
        self.tb.connect(src, thr, dec, snk)
        self.tb.start()
        try:
            for Pi, Pd, Ps in BAD_CHANNELS:
                with self.subTest(ch=(Pi, Pd, Ps)):
                    with self.assertRaises(ValueError):
                        dec.set_channel(Pi, Pd, Ps)
                time.sleep(0.01)
        finally:
            self.tb.wait()
        got = np.array(snk.data()).reshape(-1, self.N)
        self.assertEqual(len(got), len(frames))
        self.assertEqual(tags_of(snk, "bsid_erasure"), [])
        for k, rx in enumerate(frames):  # decoded with the channel it had
            np.testing.assert_array_equal(got[k], self.hard(rx))

    def test_007_channel_block_rejects_invalid_parameters(self):
        for Pi, Pd, Ps in BAD_CHANNELS:
            with self.subTest(ch=(Pi, Pd, Ps)):
                with self.assertRaises(ValueError):
                    bsid.channel(Pi, Pd, Ps, seed=1)
                with self.assertRaises(ValueError):
                    bsid.map_decoder(self.cb, self.N, Pi, Pd, Ps)
        chan = bsid.channel(0.01, 0.02, 0.03, seed=1)
        for Pi, Pd, Ps in BAD_CHANNELS:
            with self.subTest(ch=(Pi, Pd, Ps)):
                with self.assertRaises(ValueError):
                    chan.set_channel(Pi, Pd, Ps)
        for setter, value in ((chan.set_Pi, -1.0), (chan.set_Pd, math.nan), (chan.set_Ps, 2.0),
                              (chan.set_Pi, 0.99)):
            with self.subTest(setter=setter.__name__, value=value):
                with self.assertRaises(ValueError):
                    setter(value)
        # left as it was
        self.assertEqual((chan.Pi(), chan.Pd(), chan.Ps()), (0.01, 0.02, 0.03))

    def test_008_length_tags_of_every_integer_type(self):
        # a uint64 length is a length; a double (even 300.0) is not: a clear
        # invalid_tag erasure, its bits discarded and counted, never "empty"
        f = self.frames
        off1, off2 = len(f[0]), len(f[0]) + len(f[1])
        tags = [length_tag(0, pmt.from_uint64(len(f[0]))),
                length_tag(off1, pmt.from_double(float(len(f[1])))),
                length_tag(off2, pmt.from_long(len(f[2])))]
        data = np.concatenate(f[:3])
        dec, rows, erasures = self.run_decoder(blocks.vector_source_b(data.tolist(), False, 1, tags))
        self.assertEqual(len(rows), 3)
        self.assertEqual(erasures, [(1, "invalid_tag")])
        np.testing.assert_array_equal(rows[0], self.hard(f[0]))
        np.testing.assert_array_equal(rows[2], self.hard(f[2]))
        self.assertEqual(dec.bits_discarded(), len(f[1]))

    def lost_run(self, count):
        f = self.frames
        tags = [length_tag(0, pmt.from_long(len(f[0]))),
                gr.tag_utils.python_to_tag((0, pmt.intern("bsid_frames_lost"), pmt.from_long(count)))]
        return self.run_decoder(blocks.vector_source_b(f[0].tolist(), False, 1, tags))

    def test_009_huge_lost_counts_stream_out_or_are_refused(self):
        # 200000 lost frames are put out as they drain (memory bounded), in
        # order, before the frame that carries the count
        count = 200000
        dec, rows, erasures = self.lost_run(count)
        self.assertEqual(len(rows), count + 1)
        self.assertEqual(len(erasures), count)
        self.assertEqual(erasures[0], (0, "frame_lost"))
        self.assertEqual(erasures[-1], (count - 1, "frame_lost"))
        np.testing.assert_array_equal(rows[count], self.hard(self.frames[0]))
        # a count beyond what one tag may report is one invalid_tag erasure,
        # not a flowgraph that never ends
        self.tb = gr.top_block()
        dec, rows, erasures = self.lost_run(2**62)
        self.assertEqual(erasures, [(0, "invalid_tag")])
        self.assertEqual(len(rows), 2)

    def test_009b_lost_counts_that_are_not_counts_are_invalid_tag_erasures(self):
        # a double or a negative count: frames were lost, how many is not
        # known; one invalid_tag erasure before the frame that carries it
        f = self.frames
        for value in (pmt.from_double(2.0), pmt.from_long(-1), pmt.from_double(-3.5),
                      pmt.intern("two")):
            self.tb = gr.top_block()
            tags = [length_tag(0, pmt.from_long(len(f[0]))),
                    gr.tag_utils.python_to_tag((0, pmt.intern("bsid_frames_lost"), value))]
            dec, rows, erasures = self.run_decoder(
                blocks.vector_source_b(f[0].tolist(), False, 1, tags))
            self.assertEqual(erasures, [(0, "invalid_tag")], pmt.write_string(value))
            self.assertEqual(len(rows), 2)
            np.testing.assert_array_equal(rows[1], self.hard(f[0]))

    def test_010_channel_puts_out_a_short_final_frame(self):
        # an encoder input that is not a multiple of N: the last frame is
        # shorter than its length tag. The channel puts out what it received,
        # tagged bsid_truncated, and the decoder flags it: nothing is dropped
        tau = self.N * self.cb.n
        bits = np.concatenate([self.cb.encode(self.msgs[0]), self.cb.encode(self.msgs[1])[:tau // 3]])
        tags = [length_tag(0, pmt.from_long(tau)), length_tag(tau, pmt.from_long(tau))]
        src = blocks.vector_source_b(bits.tolist(), False, 1, tags)
        chan = bsid.channel(0.0, 0.0, 0.0, seed=3)
        mid = blocks.vector_sink_b()
        self.tb.connect(src, chan, mid)
        dec, rows, erasures = self.run_decoder(chan)
        self.assertEqual(len(rows), 2)
        self.assertEqual(erasures, [(1, "truncated")])
        np.testing.assert_array_equal(rows[0], self.msgs[0])
        self.assertEqual(tags_of(mid, "packet_len"), [(0, tau), (tau, tau // 3)])
        self.assertEqual(tags_of(mid, "bsid_truncated"), [(tau, tau - tau // 3)])
        self.assertEqual(len(mid.data()), tau + tau // 3)

    def test_011_a_decoder_one_symbol_off_warns(self):
        # frames of N = 40 into decoders of 39, 41 (and 40: silent), tagged
        # and stream framing, with and without a sync word: a wrong N decodes
        # (each frame ends a codeword off) but never silently
        N, frames = 40, 60
        rng = np.random.default_rng(5)
        msg = rng.integers(0, 16, N * frames).astype(np.int32)
        for framing, W in (("tagged", ""), ("stream", "0110100111010010")):
            for Nd in (N - 1, N + 1, N):
                with self.subTest(framing=framing, N=Nd):
                    self.tb = gr.top_block()
                    src = blocks.vector_source_i(msg.tolist(), False)
                    enc = bsid.codebook_encoder(self.cb, N, sync_word=W)
                    chan = bsid.channel(0.01, 0.01, 0.0, seed=7)
                    dec = bsid.map_decoder(self.cb, Nd, 0.01, 0.01, 0.0, output="hard",
                                           backend="cpu", sync_word=W, framing=framing)
                    snk = blocks.vector_sink_i()
                    self.tb.connect(src, enc, chan, dec, snk)
                    self.tb.run()
                    if Nd == N:
                        self.assertEqual(dec.warnings(), [])
                        self.assertEqual(dec.warning_count(), 0)
                        continue
                    self.assertEqual(dec.warning_count(), len(dec.warnings()))
                    self.assertTrue(any("= %d symbols?" % N in w for w in dec.warnings()),
                                    dec.warnings())

    def test_012_a_wrong_argument_type_gets_a_short_message(self):
        # not pybind11's whole signature: the argument at fault, and the fix
        cb, ch = self.cb, self.ch
        cases = [
            (lambda: bsid.map_decoder(cb, 500.0, 0.01, 0.01, 0.0), "N = 500.0 must be an int (write 500)"),
            (lambda: bsid.map_decoder("builtin:ld3-modvec6", 50, 0.01, 0.01, 0.0),
             "bsid.codebook.from_spec('builtin:ld3-modvec6')"),
            (lambda: bsid.map_decoder(cb, 50, 0.01, 0.01, 0.0, framing=3),
             "framing = 3 must be a string"),
            (lambda: bsid.map_decoder(cb, 50, 0.01, 0.01, 0.0, Framing="stream"),
             "no parameter named 'Framing' (did you mean framing?)"),
            (lambda: bsid.map_decoder(cb, 50, 0.01), "missing Pd, Ps"),
            (lambda: bsid.codebook_encoder(cb, 10.0), "N = 10.0 must be an int (write 10)"),
            (lambda: bsid.channel(0.01, 0.01, 0.0, seed=1.5), "seed = 1.5 must be an int"),
            (lambda: bsid.map_decoder_core(cb, ch, 500.0), "N = 500.0 must be an int"),
            (lambda: bsid.map_decoder_core(cb, (0.01, 0.01, 0.0), 50),
             "must be a bsid.channel_params, not tuple"),
        ]
        for call, says in cases:
            with self.assertRaises(TypeError) as cm:
                call()
            msg = str(cm.exception)
            self.assertIn(says, msg)
            self.assertLess(len(msg), 300, msg)
            self.assertNotIn("incompatible constructor arguments", msg)
        # right arguments still make the block (and it is still the class)
        dec = bsid.map_decoder(cb, 50, 0.01, 0.01, 0.0)
        self.assertIsInstance(dec, bsid.map_decoder)

    def test_013_receiver_options_by_position_and_by_name(self):
        # the options after the fixed parameters are read through the core's
        # option table: by position in the block's order or by name, each once
        cb = self.cb
        dec = bsid.map_decoder(cb, 50, 0.01, 0.01, 0.0, "hard", "cpu")
        self.assertEqual(dec.backend(), "cpu")
        self.assertEqual(dec.output_signature().sizeof_stream_item(0), 4)  # int32: "hard"
        dec = bsid.map_decoder(cb, 50, 0.01, 0.01, 0.0, output="hard", backend="cpu")
        self.assertEqual(dec.output_signature().sizeof_stream_item(0), 4)
        cases = [
            (lambda: bsid.map_decoder(cb, 50, 0.01, 0.01, 0.0, "hard", output="llr"),
             "output given twice"),
            (lambda: bsid.map_decoder(cb, 50, 0.01, 0.01, 0.0, *(["x"] * 27)),
             "at most 26 taken"),
            (lambda: bsid.map_decoder(cb, 50, 0.01, 0.01, 0.0, search=1),
             "search = 1 must be a bool"),
            (lambda: bsid.map_decoder(cb, 50, 0.01, 0.01, 0.0, Pr="1e-9"),
             "Pr = '1e-9' must be a number"),
            (lambda: bsid.map_decoder(cb, 50, 0.01, 0.01, 0.0, sync_threshold=None),
             "sync_threshold = None must be a number"),
            (lambda: bsid.concatenated_decoder(cb, bsid.ldpc_code.from_spec(
                "ldpc-regular:60:24:16:3:1"), 0.01, 0.01, 0.0, output="hard"),
             "no parameter named 'output'"),
        ]
        for call, says in cases:
            with self.assertRaises(TypeError) as cm:
                call()
            self.assertIn(says, str(cm.exception))
        # a value of the right type out of range is a ValueError naming it
        with self.assertRaises(ValueError) as cm:
            bsid.map_decoder(cb, 50, 0.01, 0.01, 0.0, max_batch=0)
        self.assertIn("max_batch", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            bsid.map_decoder(cb, 50, 0.01, 0.01, 0.0, max_batch=1 << 40)
        self.assertIn("max_batch", str(cm.exception))


if __name__ == '__main__':
    gr_unittest.run(qa_bad_input_blocks)
