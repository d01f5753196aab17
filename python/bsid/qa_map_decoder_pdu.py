#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""map_decoder_pdu: the message (PDU) variant of the MAP decoder.

Its outputs must equal those of bsid_core.map_decoder_core on the same
frames, with the conventions of docs/design.md section 2 (posteriors, LLRs,
hard symbols, erasures).
"""

import os
import sys
import time

import numpy as np
import pmt
from gnuradio import gr, gr_unittest, blocks, pdu

import bsid_core

try:
    from gnuradio.bsid.map_decoder_pdu import map_decoder_pdu, posteriors_to_llr
except ImportError:
    # before installation: the source file next to this test
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from map_decoder_pdu import map_decoder_pdu, posteriors_to_llr

PORT = pmt.intern("pdus")
SPEC = "builtin:ld3-modvec6"
N = 30
CHANNEL = (0.01, 0.01, 0.01)
POST_TOL = 1e-6   # float32 rounding of posteriors in [0, 1]


def naive_llr(post, q, scale=1.0, clip=0.0):
    """Bit LLRs by the definition, one bit at a time (reference)."""
    post = np.asarray(post, dtype=np.float64).reshape(-1, q)
    m = int(np.ceil(np.log2(q)))
    out = []
    for row in post:
        for j in range(m):
            shift = m - 1 - j
            p1 = sum(row[D] for D in range(q) if (D >> shift) & 1)
            p0 = sum(row[D] for D in range(q) if not (D >> shift) & 1)
            llr = (np.log(max(p1, 1e-300)) - np.log(max(p0, 1e-300))) * scale
            if clip > 0:
                llr = min(max(llr, -clip), clip)
            out.append(llr)
    return np.array(out)


def make_pdu(bits, **meta):
    d = pmt.make_dict()
    for k, v in meta.items():
        d = pmt.dict_add(d, pmt.intern(k), pmt.to_pmt(v))
    bits = [int(b) for b in bits]
    return pmt.cons(d, pmt.init_u8vector(len(bits), bits))


class qa_map_decoder_pdu(gr_unittest.TestCase):

    def setUp(self):
        self.cb = bsid_core.codebook.from_spec(SPEC)
        self.q = self.cb.q
        self.m = int(np.ceil(np.log2(self.q)))

    # ------------------------------------------------------------ helpers
    def frames(self, K, ch=CHANNEL, seed=7):
        """K (message, received bits) pairs sent through the channel."""
        rng = np.random.default_rng(seed)
        chp = bsid_core.channel_params(*ch)
        out = []
        for k in range(K):
            msg = rng.integers(0, self.q, N)
            rx, _ = bsid_core.transmit(chp, self.cb.encode(msg), seed, frame=k)
            out.append((msg, rx))
        return out

    def post_all(self, blk, msgs, timeout=30.0):
        """Posts msgs to a running block; waits until it has handled them all."""
        target = blk.frames() + blk.invalid_pdus() + len(msgs)
        for msg in msgs:
            blk.to_basic_block()._post(PORT, msg)
        deadline = time.time() + timeout
        while blk.frames() + blk.invalid_pdus() < target and time.time() < deadline:
            time.sleep(0.01)
        self.assertEqual(blk.frames() + blk.invalid_pdus(), target, "timed out")

    def run_block(self, blk, msgs, between=None):
        """Runs blk in a flowgraph on msgs; returns the output PDUs.

        between: optional (count, fn): fn() is called once the first count
        messages have been handled, before the others are posted."""
        tb = gr.top_block()
        dbg = blocks.message_debug()
        tb.msg_connect((blk, "pdus"), (dbg, "store"))
        tb.start()
        try:
            if between is None:
                self.post_all(blk, msgs)
            else:
                count, fn = between
                self.post_all(blk, msgs[:count])
                fn()
                self.post_all(blk, msgs[count:])
            # the outputs reach message_debug shortly after being published
            deadline = time.time() + 10
            while dbg.num_messages() < blk.frames() and time.time() < deadline:
                time.sleep(0.01)
        finally:
            tb.stop()
            tb.wait()
        return [dbg.get_message(i) for i in range(dbg.num_messages())]

    def make(self, output="posteriors", ch=CHANNEL, **kw):
        return map_decoder_pdu(self.cb, N, ch[0], ch[1], ch[2], output=output, **kw)

    def reference(self, rxs, ch=CHANNEL):
        dec = bsid_core.map_decoder_core(self.cb, bsid_core.channel_params(*ch), N)
        return [dec.decode(rx) for rx in rxs]

    def check_outputs(self, output, outs, refs, metas, llr_scale=1.0, llr_clip=0.0):
        self.assertEqual(len(outs), len(refs))
        for out, ref, meta in zip(outs, refs, metas):
            self.assertTrue(pmt.is_pair(out))
            self.assertTrue(pmt.equal(pmt.car(out), meta), "metadata not preserved")
            self.assertFalse(pmt.dict_has_key(pmt.car(out), pmt.intern("bsid_erasure")))
            vec = pmt.cdr(out)
            if output == "posteriors":
                self.assertTrue(pmt.is_f32vector(vec))
                got = np.array(pmt.f32vector_elements(vec))
                self.assertEqual(got.size, N * self.q)
                self.assertLess(np.max(np.abs(got - ref.ravel())), POST_TOL)
            elif output == "llr":
                self.assertTrue(pmt.is_f32vector(vec))
                got = np.array(pmt.f32vector_elements(vec), dtype=np.float64)
                self.assertEqual(got.size, N * self.m)
                want = naive_llr(ref, self.q, llr_scale, llr_clip)
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
                if llr_clip > 0:
                    self.assertLessEqual(np.max(np.abs(got)), llr_clip * (1 + 1e-6))
            else:
                self.assertTrue(pmt.is_s32vector(vec))
                got = np.array(pmt.s32vector_elements(vec))
                self.assertEqual(list(got), list(bsid_core.hard_decisions(ref)))

    # ------------------------------------------------------------ tests
    def test_001_outputs_equal_core_decoder(self):
        data = self.frames(6)
        rxs = [rx for _, rx in data]
        refs = self.reference(rxs)
        cases = [("posteriors", {}), ("llr", {}), ("hard", {}),
                 ("llr", dict(llr_scale=0.25, llr_clip=2.0))]
        for output, kw in cases:
            with self.subTest(output=output, **kw):
                msgs = [make_pdu(rx, frame=k, rho=len(rx)) for k, rx in enumerate(rxs)]
                blk = self.make(output, **kw)
                outs = self.run_block(blk, msgs)
                self.check_outputs(output, outs, refs, [pmt.car(m) for m in msgs], **kw)
                self.assertEqual(blk.frames(), len(rxs))
                self.assertEqual(blk.erasures(), 0)
                self.assertEqual(blk.invalid_pdus(), 0)
                if output == "hard":
                    # and the decoder does its job on this easy channel
                    sent = np.concatenate([msg for msg, _ in data])
                    got = np.concatenate([pmt.s32vector_elements(pmt.cdr(o)) for o in outs])
                    self.assertGreater(np.mean(sent == got), 0.9)

    def test_002_erasures(self):
        cb_tau = N * self.cb.n
        cases = [
            ("empty", []),
            ("drift_out_of_range", [0, 1] * (2 * cb_tau)),
            ("invalid_input", [0, 1, 2] + [0] * (cb_tau - 3)),
        ]
        msgs = [make_pdu(bits, frame=k) for k, (_, bits) in enumerate(cases)]
        for output in ("posteriors", "llr", "hard"):
            with self.subTest(output=output):
                blk = self.make(output)
                outs = self.run_block(blk, msgs)
                self.assertEqual(len(outs), len(cases))
                self.assertEqual(blk.frames(), len(cases))
                self.assertEqual(blk.erasures(), len(cases))
                self.assertEqual(blk.invalid_pdus(), 0)
                for out, msg, (status, _) in zip(outs, msgs, cases):
                    meta = pmt.car(out)
                    flag = pmt.dict_ref(meta, pmt.intern("bsid_erasure"), pmt.PMT_NIL)
                    self.assertTrue(pmt.is_symbol(flag))
                    self.assertEqual(pmt.symbol_to_string(flag), status)
                    # the rest of the metadata is kept
                    self.assertTrue(pmt.equal(pmt.dict_ref(meta, pmt.intern("frame"), pmt.PMT_NIL),
                                              pmt.dict_ref(pmt.car(msg), pmt.intern("frame"),
                                                           pmt.PMT_NIL)))
                    vec = pmt.cdr(out)
                    if output == "posteriors":
                        got = np.array(pmt.f32vector_elements(vec))
                        self.assertEqual(got.size, N * self.q)
                        self.assertLess(np.max(np.abs(got - 1.0 / self.q)), 1e-7)
                    elif output == "llr":
                        got = np.array(pmt.f32vector_elements(vec))
                        self.assertEqual(got.size, N * self.m)
                        self.assertTrue(np.all(got == 0))
                    else:
                        got = np.array(pmt.s32vector_elements(vec))
                        self.assertEqual(got.size, N)
                        self.assertTrue(np.all(got == -1))

    def test_003_invalid_pdus_are_logged_and_counted(self):
        good = self.frames(1)[0][1]
        msgs = [
            pmt.intern("not a pdu"),
            pmt.cons(pmt.make_dict(), pmt.init_f32vector(3, [0.0, 1.0, 0.0])),
            pmt.cons(pmt.intern("not a dict"), pmt.init_u8vector(2, [0, 1])),
            make_pdu(good, frame=0),
        ]
        blk = self.make("hard")
        outs = self.run_block(blk, msgs)
        self.assertEqual(blk.invalid_pdus(), 3)
        self.assertEqual(blk.frames(), 1)
        self.assertEqual(blk.erasures(), 0)
        self.assertEqual(len(outs), 1)
        self.assertTrue(pmt.equal(pmt.car(outs[0]), pmt.car(msgs[3])))

    def test_003b_soft_input(self):
        # input="llr": f32vector and f64vector PDUs of LLRs; +-inf are the bits;
        # a NaN erases its frame; u8vector PDUs are refused
        data = self.frames(3)
        rxs = [rx for _, rx in data]
        refs = self.reference(rxs)
        msgs = [pmt.cons(pmt.make_dict(), pmt.init_f32vector(
                    len(rx), [float("inf") if b else float("-inf") for b in rx])) for rx in rxs]
        msgs.append(pmt.cons(pmt.make_dict(), pmt.init_f64vector(
            len(rxs[0]), [1e30 if b else -1e30 for b in rxs[0]])))
        nan = [4.0 if b else -4.0 for b in rxs[1]]
        nan[5] = float("nan")
        msgs.append(pmt.cons(pmt.make_dict(), pmt.init_f32vector(len(nan), nan)))
        msgs.append(make_pdu(rxs[2]))  # bits to a decoder of LLRs
        blk = self.make("posteriors", input="llr")
        outs = self.run_block(blk, msgs)
        self.assertEqual(blk.invalid_pdus(), 1)
        self.assertEqual(blk.frames(), 5)
        self.assertEqual(blk.erasures(), 1)
        self.check_outputs("posteriors", outs[:4], refs + refs[:1],
                           [pmt.car(m) for m in msgs[:4]])
        self.assertEqual(pmt.symbol_to_string(
            pmt.dict_ref(pmt.car(outs[4]), pmt.intern("bsid_erasure"), pmt.PMT_NIL)),
            "invalid_input")
        with self.assertRaises(ValueError):
            self.make("hard", input="soft")

    def test_003c_log_probabilities_over_letters(self):
        # input="logprob" over four letters: A log-probabilities an item,
        # item after item; a length that is not a multiple of A is an erasure
        cb = bsid_core.codebook.from_spec("random:4:16:2:3", alphabet=4)
        ch = bsid_core.channel_params(0.01, 0.01, 0.01, alphabet=4)
        core = bsid_core.map_decoder_core(cb, ch, 12, input="logprob")
        rng = np.random.default_rng(4)
        lps, msgs = [], []
        for k in range(3):
            y = bsid_core.transmit(ch, cb.encode(rng.integers(0, 16, 12)), 2, frame=k)[0]
            lp = np.full((len(y), 4), np.log(0.02 / 3))
            lp[np.arange(len(y)), y] = np.log(0.98)
            lps.append(lp)
            msgs.append(pmt.cons(pmt.make_dict(),
                                 pmt.init_f32vector(lp.size, lp.ravel().tolist())))
        msgs.append(pmt.cons(pmt.make_dict(), pmt.init_f32vector(5, [0.0] * 5)))
        blk = map_decoder_pdu(cb, 12, 0.01, 0.01, 0.01, input="logprob")
        outs = self.run_block(blk, msgs)
        self.assertEqual(blk.frames(), 4)
        self.assertEqual(blk.erasures(), 1)
        for out, lp in zip(outs[:3], lps):
            np.testing.assert_allclose(
                np.array(pmt.f32vector_elements(pmt.cdr(out))).reshape(12, 16),
                core.decode(lp.astype(np.float32).astype(np.float64)), atol=1e-6)
        self.assertEqual(pmt.symbol_to_string(
            pmt.dict_ref(pmt.car(outs[3]), pmt.intern("bsid_erasure"), pmt.PMT_NIL)),
            "invalid_input")

    def test_004_posteriors_to_llr(self):
        # q = 4: symbol 3 is binary 11, symbol 2 is 10 (MSB first)
        post = np.array([[0.0, 0.0, 0.0, 1.0],
                         [0.0, 0.0, 1.0, 0.0],
                         [0.25, 0.25, 0.25, 0.25],
                         [0.1, 0.2, 0.3, 0.4]])
        llr = posteriors_to_llr(post, 4)
        self.assertEqual(llr.dtype, np.float32)
        self.assertEqual(llr.shape, (8,))
        self.assertTrue(np.all(np.isfinite(llr)))
        big = np.log(1e-300)  # the floor: ln 1 - ln 1e-300 = 690.78
        np.testing.assert_allclose(llr[0:2], [-big, -big], rtol=1e-6)
        self.assertTrue(np.all(llr[0:2] > 0))          # positive means 1
        np.testing.assert_allclose(llr[2:4], [-big, big], rtol=1e-6)
        np.testing.assert_allclose(llr[4:6], [0, 0], atol=1e-7)
        np.testing.assert_allclose(llr[6:8], [np.log(0.7 / 0.3), np.log(0.6 / 0.4)],
                                   rtol=1e-6)
        # a flat array gives the same
        np.testing.assert_array_equal(posteriors_to_llr(post.ravel(), 4), llr)
        # scale, then clip
        np.testing.assert_allclose(posteriors_to_llr(post, 4, scale=2.0), 2.0 * llr, rtol=1e-6)
        clipped = posteriors_to_llr(post, 4, scale=0.5, clip=1.0)
        np.testing.assert_allclose(clipped, np.clip(0.5 * llr.astype(np.float64), -1, 1),
                                   rtol=1e-6)
        self.assertEqual(np.max(np.abs(clipped)), 1.0)
        # q = 3, not a power of 2: 2 bits, symbols 00, 01, 10
        p3 = np.array([0.5, 0.3, 0.2])
        np.testing.assert_allclose(posteriors_to_llr(p3, 3),
                                   [np.log(0.2 / 0.8), np.log(0.3 / 0.7)], rtol=1e-6)
        # agrees with the definition on random posteriors of the test codebook
        rng = np.random.default_rng(3)
        p = rng.dirichlet(np.ones(self.q) * 0.3, size=N)
        np.testing.assert_allclose(posteriors_to_llr(p, self.q), naive_llr(p, self.q),
                                   rtol=1e-5, atol=1e-4)
        with self.assertRaises(ValueError):
            posteriors_to_llr(np.ones(5), 4)

    def test_005_set_channel(self):
        ch_a = CHANNEL
        ch_b = (0.04, 0.03, 0.02)
        data = self.frames(4, ch=ch_b, seed=11)
        rxs = [rx for _, rx in data]
        msgs = [make_pdu(rx, frame=k) for k, rx in enumerate(rxs)]
        blk = self.make("posteriors", ch=ch_a)
        limits_a = blk.limits()
        dec_b = bsid_core.map_decoder_core(self.cb, bsid_core.channel_params(*ch_b), N)
        # the first two frames decoded for channel A, the others for channel B
        outs = self.run_block(blk, msgs, between=(2, lambda: blk.set_channel(*ch_b)))
        self.assertEqual(blk.limits(), dec_b.limits)
        self.assertNotEqual(limits_a, dec_b.limits)
        refs = self.reference(rxs[:2], ch=ch_a) + self.reference(rxs[2:], ch=ch_b)
        self.check_outputs("posteriors", outs, refs, [pmt.car(m) for m in msgs])
        # a bad channel is refused and leaves the decoder as it was
        with self.assertRaises(ValueError):
            blk.set_channel(0.6, 0.6, 0.0)
        self.assertEqual(blk.limits(), dec_b.limits)

    def test_006_bad_arguments(self):
        with self.assertRaises(ValueError):
            self.make("soft")
        with self.assertRaises(ValueError):
            self.make("llr", llr_clip=-1.0)
        with self.assertRaises(ValueError):
            self.make("hard", ch=(0.6, 0.6, 0.0))
        blk = self.make("llr", llr_scale=0.5)
        self.assertIn(blk.backend(), ("cpu", "cuda"))
        self.assertEqual(blk.output(), "llr")

    def test_007_with_gr_pdu_blocks(self):
        # tagged stream -> gr-pdu -> decoder -> gr-pdu -> tagged stream
        rxs = [rx for _, rx in self.frames(3, seed=5)]
        refs = self.reference(rxs)
        bits = np.concatenate(rxs)
        tags, offset = [], 0
        for rx in rxs:
            tags.append(gr.tag_utils.python_to_tag(
                (offset, pmt.intern("packet_len"), pmt.from_long(len(rx)))))
            offset += len(rx)
        src = blocks.vector_source_b([int(b) for b in bits], False, 1, tags)
        to_pdu = pdu.tagged_stream_to_pdu(gr.types.byte_t, "packet_len")
        blk = self.make("llr")
        to_stream = pdu.pdu_to_tagged_stream(gr.types.float_t, "packet_len")
        sink = blocks.vector_sink_f()
        tb = gr.top_block()
        tb.connect(src, to_pdu)
        tb.msg_connect((to_pdu, "pdus"), (blk, "pdus"))
        tb.msg_connect((blk, "pdus"), (to_stream, "pdus"))
        tb.connect(to_stream, sink)
        tb.start()
        want = N * self.m * len(rxs)
        deadline = time.time() + 30
        while len(sink.data()) < want and time.time() < deadline:
            time.sleep(0.01)
        tb.stop()
        tb.wait()
        got = np.array(sink.data(), dtype=np.float64)
        self.assertEqual(got.size, want)
        np.testing.assert_allclose(got, np.concatenate([naive_llr(r, self.q) for r in refs]),
                                   rtol=1e-5, atol=1e-4)
        lens = [pmt.to_long(t.value) for t in sink.tags()
                if pmt.symbol_to_string(t.key) == "packet_len"]
        self.assertEqual(lens, [N * self.m] * len(rxs))
        self.assertEqual(blk.frames(), len(rxs))


if __name__ == '__main__':
    gr_unittest.run(qa_map_decoder_pdu)
