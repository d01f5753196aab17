#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Every block waits for slow neighbours rather than spin: with its upstream
giving a few items at a time, or its downstream taking a few, the flowgraph
uses next to no CPU, and what comes out is still right. A block that the
scheduler calls while it can make nothing (a forecast that asks for less input,
or a call given less room, than one step of its work needs) is called again at
once: a busy loop that takes a core from the decoder, or at the least a wasted
call each time a neighbour moves a few items."""

import time

import numpy as np
from gnuradio import blocks, gr, gr_unittest

from gnuradio import bsid
from qa_tagged_streams import tagged_source

# A flowgraph in which every block waits uses a few percent of a core here
# (the Python neighbours' own calls); a busy loop uses a whole one.
MAX_SHARE = 0.35


class trickle_sink(gr.basic_block):
    """Takes at most per_call items a call, pause_s apart, and keeps them."""

    def __init__(self, sig, per_call=5, pause_s=0.005):
        gr.basic_block.__init__(self, "trickle_sink", in_sig=[sig], out_sig=None)
        self.per_call, self.pause_s, self.items = per_call, pause_s, []

    def general_work(self, input_items, output_items):
        k = min(self.per_call, len(input_items[0]))
        self.items.extend(np.array(input_items[0][:k]).tolist())
        self.consume(0, k)
        time.sleep(self.pause_s)
        return 0


class trickle_pass(gr.sync_block):
    """Passes its input on (tags too) at most per_call items a call, pause_s
    apart: a slow upstream for the block after it."""

    def __init__(self, sig, per_call=5, pause_s=0.005):
        gr.sync_block.__init__(self, "trickle_pass", in_sig=[sig], out_sig=[sig])
        self.per_call, self.pause_s = per_call, pause_s

    def work(self, input_items, output_items):
        k = min(self.per_call, len(input_items[0]), len(output_items[0]))
        output_items[0][:k] = input_items[0][:k]
        time.sleep(self.pause_s)
        return k


def cpu_share(tb, settle_s=0.2, span_s=0.6):
    """Runs tb for settle_s, then span_s, and returns the process's CPU
    seconds (all threads) over span_s's wall seconds; stops tb."""
    tb.start()
    try:
        time.sleep(settle_s)
        c0, t0 = time.process_time(), time.perf_counter()
        time.sleep(span_s)
        return (time.process_time() - c0) / (time.perf_counter() - t0)
    finally:
        tb.stop()
        tb.wait()


class qa_block_waiting(gr_unittest.TestCase):

    def setUp(self):
        self.cb = bsid.codebook.builtin("ld3-modvec6")  # n = 8, q = 16
        self.N = 10
        self.msg = np.random.default_rng(1).integers(0, 16, 5 * self.N).astype(np.int32)

    def assert_waits(self, tb):
        share = cpu_share(tb)
        self.assertLess(share, MAX_SHARE, "the flowgraph used %.2f of a core" % share)

    def out_of(self, src, block, slow, sink_sig, fast_sink, pause_s=0.005):
        """src -> block -> a sink, with its upstream or its downstream slow:
        asserts that the flowgraph waits, returns the items that came out."""
        tb = gr.top_block()
        if slow == "upstream":
            mid = trickle_pass(np.uint8)  # held here: the flowgraph does not keep a Python block alive
            tb.connect(src, mid, block, fast_sink)
            snk = fast_sink
        else:
            snk = trickle_sink(sink_sig, pause_s=pause_s)
            tb.connect(src, block, snk)
        self.assert_waits(tb)
        return snk.data() if slow == "upstream" else snk.items

    def test_001_codebook_encoder_slow_downstream(self):
        # Less room than a codeword (and its frame's sync word) most of the
        # time. A call given that room would make nothing; the scheduler must
        # not make it. Such calls cost a little at each item the downstream
        # takes (not a lasting loop: in a flowgraph benchmark they were a fifth
        # of the samples), too little for the CPU share to tell from the
        # scheduler's own work per item, so the room asked for is checked too.
        for W in ("", "0110100111"):
            with self.subTest(sync_word=W):
                tb = gr.top_block()
                src = blocks.vector_source_i(self.msg.tolist(), True)
                enc = bsid.codebook_encoder(self.cb, self.N, sync_word=W)
                self.assertEqual(enc.min_noutput_items(), self.cb.n + len(W))
                snk = trickle_sink(np.uint8)
                tb.connect(src, enc, snk)
                self.assert_waits(tb)
                wbits = np.array([int(c) for c in W], dtype=np.uint8)
                frames = np.concatenate([np.concatenate([wbits, self.cb.encode(self.msg[k:k + self.N])])
                                         for k in range(0, len(self.msg), self.N)])
                got = np.array(snk.items, dtype=np.uint8)
                self.assertGreater(len(got), 100)
                want = np.tile(frames, len(got) // len(frames) + 1)[:len(got)]
                np.testing.assert_array_equal(got, want)

    def test_002_ldpc_encoder_slow_upstream(self):
        # a frame's bits trickle in: the encoder waits for the rest of the frame
        code = bsid.ldpc_code.from_spec("ldpc-regular:60:24:16:3:1")  # K = 144
        bits = np.random.default_rng(5).integers(0, 2, 40 * 144).astype(np.uint8)
        enc = bsid.ldpc_encoder(code, 16)
        out = np.array(self.out_of(blocks.vector_source_b(bits.tolist(), False), enc, "upstream",
                                   np.int32, blocks.vector_sink_i()), dtype=np.int32)
        N = enc.symbols_per_frame()
        self.assertEqual(len(out) % N, 0)
        self.assertGreaterEqual(len(out) // N, 2)
        # the same frames as the block makes from the whole input at once
        tb = gr.top_block()
        ref = blocks.vector_sink_i()
        tb.connect(blocks.vector_source_b(bits.tolist(), False), bsid.ldpc_encoder(code, 16), ref)
        tb.run()
        np.testing.assert_array_equal(out, np.array(ref.data(), dtype=np.int32)[:len(out)])
        self.assertEqual(enc.error(), "")

    def test_003_channel_slow_upstream_and_downstream(self):
        frames = [self.cb.encode(self.msg[k:k + self.N]) for k in range(0, len(self.msg), self.N)]
        want = np.tile(np.concatenate(frames), 40)
        for slow in ("upstream", "downstream"):
            with self.subTest(slow=slow):
                chan = bsid.channel(0.0, 0.0, 0.0, 1)  # passes the bits as they are
                # 40 copies outlast the measurement either way
                got = np.array(self.out_of(tagged_source(frames * 40), chan, slow, np.uint8,
                                           blocks.vector_sink_b()), dtype=np.uint8)
                self.assertGreater(len(got), 100)
                np.testing.assert_array_equal(got, want[:len(got)])

    def test_004_map_decoder_slow_upstream_and_downstream(self):
        ch = bsid.channel_params(0.01, 0.01, 0.01)
        msgs = [self.msg[k:k + self.N] for k in range(0, len(self.msg), self.N)]
        frames = [bsid.transmit(ch, self.cb.encode(m), 4, frame=k)[0] for k, m in enumerate(msgs)]
        core = bsid.map_decoder_core(self.cb, ch, self.N, backend="cpu")
        want = np.tile(np.concatenate([core.decode(rx).astype(np.float32) for rx in frames]),
                       (40, 1))
        for slow in ("upstream", "downstream"):
            with self.subTest(slow=slow):
                dec = bsid.map_decoder(self.cb, self.N, 0.01, 0.01, 0.01, output="posteriors",
                                       backend="cpu", max_batch=4)
                # a slow downstream takes 25 frames a second: the decoding
                # itself a small share
                got = np.array(self.out_of(tagged_source(frames * 40), dec, slow, (np.float32, 16),
                                           blocks.vector_sink_f(16), pause_s=0.02),
                               dtype=np.float32).reshape(-1, 16)
                self.assertGreaterEqual(len(got), self.N)
                np.testing.assert_array_equal(got, want[:len(got)])

if __name__ == '__main__':
    gr_unittest.run(qa_block_waiting)
