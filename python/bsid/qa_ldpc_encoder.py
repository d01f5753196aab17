#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The LDPC encoder block: every output frame is a codeword of the outer code
holding the input bits, the same symbols as frame_source's encoding, frames
and tags, bad input stopped with an error."""

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import bsid
from qa_tagged_streams import tags_of


def info_bits(info, q):
    """k symbols over GF(q) to their bits, MSB first (the block's input)."""
    a = int(np.log2(q))
    return np.array([(int(u) >> (a - 1 - b)) & 1 for u in info for b in range(a)],
                    dtype=np.uint8)


def outer_word(symbols, code, q_inner):
    """N inner symbols back to the n outer symbols (through bits, MSB first),
    written here independently of symbol_mapping; the pad bits must be 0."""
    a, b = int(np.log2(code.q)), int(np.log2(q_inner))
    bits = [(int(s) >> (b - 1 - j)) & 1 for s in symbols for j in range(b)]
    assert not any(bits[code.n * a:]), "a pad bit is set"
    return np.array([int("".join(map(str, bits[i * a:(i + 1) * a])), 2)
                     for i in range(code.n)], dtype=np.int32)


class qa_ldpc_encoder(gr_unittest.TestCase):

    def setUp(self):
        self.tb = gr.top_block()
        self.cb = bsid.codebook.builtin("ld3-modvec6")  # q = 16

    def encode(self, code, q_inner, bits, tagged=True, extra_tags=()):
        enc = bsid.ldpc_encoder(code, q_inner)
        K = enc.bits_per_frame()
        src = blocks.vector_source_b([int(b) for b in bits], False, 1, list(extra_tags))
        snk = blocks.vector_sink_i()
        if tagged:
            s2ts = blocks.stream_to_tagged_stream(gr.sizeof_char, 1, K, "packet_len")
            self.tb.connect(src, s2ts, enc, snk)
        else:
            self.tb.connect(src, enc, snk)
        self.tb.run()
        return enc, np.array(snk.data(), dtype=np.int32), snk

    def check_codewords(self, code, q_inner, frames=5, tagged=True):
        rng = np.random.default_rng(3)
        info = rng.integers(0, code.q, (frames, code.k))
        bits = np.concatenate([info_bits(u, code.q) for u in info])
        enc, out, snk = self.encode(code, q_inner, bits, tagged)
        N = bsid.symbol_mapping(code.q, code.n, q_inner).n_inner
        self.assertEqual(enc.symbols_per_frame(), N)
        self.assertEqual(enc.bits_per_frame(), code.k * int(np.log2(code.q)))
        self.assertEqual(len(out), frames * N)
        self.assertTrue(((out >= 0) & (out < q_inner)).all())
        for f in range(frames):
            c = outer_word(out[f * N:(f + 1) * N], code, q_inner)
            self.assertTrue(code.is_codeword(c))  # H c = 0 over GF(q)
            np.testing.assert_array_equal(c[np.array(code.info_positions)], info[f])
        self.assertEqual(tags_of(snk, "packet_len"), [(f * N, N) for f in range(frames)])
        self.assertEqual((enc.frames(), enc.error()), (frames, ""))

    def test_001_same_q_codewords(self):
        self.check_codewords(bsid.ldpc_code.from_spec("ldpc-regular:60:24:16:3:1"), 16)

    def test_002_through_bits_with_pad_bits(self):
        # GF(8) to q = 16: 40 x 3 = 120 bits make 30 symbols; GF(16) to q = 8: pad bits
        self.check_codewords(bsid.ldpc_code.from_spec("ldpc-regular:40:20:8:3:2"), 16)
        self.tb = gr.top_block()
        code = bsid.ldpc_code.from_spec("ldpc-regular:32:16:16:3:2")
        self.assertEqual(bsid.symbol_mapping(16, 32, 8).pad_bits, 1)
        self.check_codewords(code, 8)

    def test_003_untagged_binary_code(self):
        self.check_codewords(bsid.ldpc_code.from_spec("ldpc-regular:48:24:2:3:1"), 16,
                             tagged=False)

    def test_004_same_symbols_as_frame_source(self):
        code = bsid.ldpc_code.from_spec("ldpc-regular:32:16:16:3:2")
        cb8 = bsid.codebook.from_spec("random:5:8:4:1")
        batch = bsid.frame_source(cb8, bsid.channel_params(0.0, 0.0, 0.0), 0, 9,
                                  outer=code).generate(0, 4)
        bits = np.concatenate([info_bits(u, code.q) for u in batch.info])
        _, out, _ = self.encode(code, 8, bits)
        np.testing.assert_array_equal(out, batch.symbols.reshape(-1))

    def test_005_other_tags_move_to_the_frames_first_symbol(self):
        code = bsid.ldpc_code.from_spec("ldpc-regular:60:24:16:3:1")  # K = 144
        bits = np.zeros(3 * 144, dtype=np.uint8)
        mark = gr.tag_utils.python_to_tag((150, pmt.intern("mark"), pmt.from_long(7)))
        _, out, snk = self.encode(code, 16, bits, extra_tags=[mark])
        self.assertEqual(tags_of(snk, "mark"), [(60, 7)])
        self.assertFalse(out.any())  # the all-zero word

    def test_006_bad_input_stops_with_an_error(self):
        code = bsid.ldpc_code.from_spec("ldpc-regular:60:24:16:3:1")
        bits = np.zeros(3 * 144, dtype=np.uint8)
        bits[144 + 5] = 2
        enc, out, _ = self.encode(code, 16, bits)
        self.assertEqual(len(out), 60)  # the frame before it
        self.assertIn("byte 2 at input item 149 is not a bit", enc.error())

    def test_007_stream_ending_inside_a_frame(self):
        code = bsid.ldpc_code.from_spec("ldpc-regular:60:24:16:3:1")
        enc, out, _ = self.encode(code, 16, np.zeros(144 + 100, dtype=np.uint8),
                                  tagged=False)
        self.assertEqual((len(out), enc.frames()), (60, 1))
        self.assertIn("ends inside a frame: 100 of its 144 bits", enc.error())

    def test_008_bad_length_tag(self):
        code = bsid.ldpc_code.from_spec("ldpc-regular:60:24:16:3:1")
        tags = [gr.tag_utils.python_to_tag((0, pmt.intern("packet_len"), pmt.from_long(144))),
                gr.tag_utils.python_to_tag((144, pmt.intern("packet_len"),
                                            pmt.from_long(100)))]
        enc, out, _ = self.encode(code, 16, np.zeros(2 * 144, dtype=np.uint8), tagged=False,
                                  extra_tags=tags)
        self.assertEqual(len(out), 60)
        self.assertIn("has 100 bits, but the outer code takes K = k log2(q) = 144",
                      enc.error())

    def test_009_bad_parameters(self):
        code = bsid.ldpc_code.from_spec("ldpc-regular:60:24:16:3:1")
        with self.assertRaisesRegex(ValueError, "inner_q = 1"):
            bsid.ldpc_encoder(code, 1)
        with self.assertRaises(ValueError):
            bsid.ldpc_encoder(code, 12)  # not a power of two
        with self.assertRaisesRegex(ValueError, "inner_q = 131072"):
            bsid.ldpc_encoder(code, 1 << 17)  # beyond any codebook's q

    def test_010_length_tag_that_is_not_a_count(self):
        code = bsid.ldpc_code.from_spec("ldpc-regular:60:24:16:3:1")
        tags = [gr.tag_utils.python_to_tag((0, pmt.intern("packet_len"),
                                            pmt.from_double(144.0)))]
        enc, out, _ = self.encode(code, 16, np.zeros(144, dtype=np.uint8), tagged=False,
                                  extra_tags=tags)
        self.assertEqual(len(out), 0)
        self.assertIn("the length tag at input item 0 (144) is not a frame length",
                      enc.error())
        self.assertNotIn("but the outer code takes", enc.error())


if __name__ == '__main__':
    gr_unittest.run(qa_ldpc_encoder)
