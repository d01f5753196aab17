#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""bsid.map_decoder with priors_input (a second port of N log-prior vectors
of q floats per frame) and output="extrinsic": true priors lower the symbol
error rate and uniform ones change nothing; the extrinsic output is the core
decoder's extrinsic, row by row; the priors stay aligned with the frames
through erasures, lost frames, a priors length tag of the wrong value, NaN
priors and a priors stream that ends early; make() refuses what cannot work."""

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import bsid

N = 12
KEY = "packet_len"


def tag(offset, key, value):
    t = gr.tag_t()
    t.offset = offset
    t.key = pmt.intern(key)
    t.value = value
    return t


def log_floor(p):
    return np.log(np.maximum(p, 1e-300))


class qa_map_decoder_priors(gr_unittest.TestCase):

    def setUp(self):
        self.cb = bsid.codebook.builtin("ld3-modvec6")
        self.q = self.cb.q
        self.ch = bsid.channel_params(0.04, 0.04, 0.04)
        self.rng = np.random.default_rng(17)
        self.core = bsid.map_decoder_core(self.cb, self.ch, N, backend="cpu",
                                          precision="double")

    def frames(self, count, seed=1):
        """count frames through the channel: messages (count, N) and received bit arrays."""
        msgs = self.rng.integers(0, self.q, (count, N))
        rx = [bsid.transmit(self.ch, self.cb.encode(m), seed=seed + k)[0]
              for k, m in enumerate(msgs)]
        return msgs, rx

    def true_priors(self, msgs):
        """ln 0.9 on each sent symbol, ln(0.1 / (q - 1)) elsewhere: (frames, N, q)."""
        lp = np.full(msgs.shape + (self.q,), np.log(0.1 / (self.q - 1)))
        for k, m in enumerate(msgs):
            lp[k, np.arange(N), m] = np.log(0.9)
        return lp

    def decode(self, rx, priors=None, output="posteriors", bit_tags=None, prior_tags=None,
            lengths=None, **kw):
        """Decodes the frames rx (a list of bit arrays, each tagged with its
        length or lengths[k], unless bit_tags has a length tag there; plus bit_tags) with priors (a (frames, N, q) array, or a flat
        (items, q) array) on the second port: (rows, erasures by output
        frame, block)."""
        bits, tags = [], []
        for k, r in enumerate(rx):
            if bit_tags is None or not any(t.offset == len(bits) and
                                           pmt.symbol_to_string(t.key) == KEY
                                           for t in bit_tags):
                length = len(r) if lengths is None else lengths[k]
                tags.append(tag(len(bits), KEY, pmt.from_long(length)))
            bits.extend(int(b) for b in r)
        tb = gr.top_block()
        src = blocks.vector_source_b(bits, False, 1, tags + (bit_tags or []))
        dec = bsid.map_decoder(self.cb, N, self.ch.Pi, self.ch.Pd, self.ch.Ps, output=output,
                               backend="cpu", precision="double",
                               priors_input=priors is not None, **kw)
        width = 1 if output in ("hard", "llr") else self.q
        snk = blocks.vector_sink_i() if output == "hard" else blocks.vector_sink_f(width)
        tb.connect(src, (dec, 0))
        if priors is not None:
            flat = np.asarray(priors, dtype=np.float32).reshape(-1, self.q)
            psrc = blocks.vector_source_f(flat.ravel().tolist(), False, self.q,
                                          prior_tags or [])
            tb.connect(psrc, (dec, 1))
        tb.connect(dec, snk)
        tb.run()
        per_frame = N * (1 if output == "hard" else width)
        rows = np.array(snk.data()).reshape(-1, N, per_frame // N)
        frame_of = {t.offset // N: pmt.symbol_to_string(t.value) for t in snk.tags()
                    if pmt.symbol_to_string(t.key) == "bsid_erasure"}
        lengths = [t for t in snk.tags() if pmt.symbol_to_string(t.key) == KEY]
        self.assertEqual(len(lengths), len(rows))  # every output frame tagged
        return rows, [frame_of.get(k) for k in range(len(rows))], dec

    def test_000_true_priors_lower_errors_uniform_priors_change_nothing(self):
        msgs, rx = self.frames(30)
        hard0, e0, _ = self.decode(rx, output="hard", max_batch=7)
        hard1, e1, dec = self.decode(rx, self.true_priors(msgs), output="hard", max_batch=7)
        self.assertEqual(dec.frames(), 30)
        self.assertEqual(e0, [None] * 30)
        self.assertEqual(e1, [None] * 30)
        ser0 = np.mean(hard0[:, :, 0] != msgs)
        ser1 = np.mean(hard1[:, :, 0] != msgs)
        self.assertGreater(ser0, 0.02)  # the channel makes errors without priors
        self.assertLess(ser1, ser0 / 2)
        # uniform priors (any constant per row) give the posteriors without priors
        post0, _, _ = self.decode(rx)
        post1, _, _ = self.decode(rx, np.full((30, N, self.q), -3.5))
        np.testing.assert_allclose(post1, post0, rtol=0, atol=1e-7)
        # "posteriors" include the prior: they move towards the true symbols
        post2, _, _ = self.decode(rx, self.true_priors(msgs))
        sent = np.take_along_axis(post2, msgs[:, :, None], axis=2)
        sent0 = np.take_along_axis(post0, msgs[:, :, None], axis=2)
        self.assertGreater(sent.mean(), sent0.mean())

    def test_001_extrinsic_is_the_core_extrinsic(self):
        msgs, rx = self.frames(8, seed=40)
        lp = self.true_priors(msgs) + self.rng.normal(0, 1.0, (8, N, self.q))
        lp[2, 3, :] = -np.inf  # a row where every symbol but the sent one is impossible
        lp[2, 3, msgs[2, 3]] = 0.0
        got, erasures, _ = self.decode(rx, lp, output="extrinsic", max_batch=3)
        self.assertEqual(erasures, [None] * 8)
        self.assertTrue(np.all(np.isfinite(got)))
        for k in range(8):
            want = log_floor(self.core.decode(rx[k], log_priors=lp[k].astype(np.float32),
                                              extrinsic=True))
            np.testing.assert_allclose(got[k], want, rtol=0, atol=1e-5)
            # and not the log posterior: the test tells the two apart
            post = log_floor(self.core.decode(rx[k], log_priors=lp[k].astype(np.float32)))
            self.assertGreater(np.abs(post - want).max(), 1e-3)
        # rows normalized in the log domain
        lse = np.log(np.exp(got.astype(np.float64)).sum(axis=2))
        np.testing.assert_allclose(lse, 0.0, atol=1e-5)
        # without priors, the extrinsic output is the log of the posteriors
        ext0, _, _ = self.decode(rx, output="extrinsic")
        post0, _, _ = self.decode(rx)
        np.testing.assert_allclose(ext0, log_floor(post0.astype(np.float64)), rtol=0,
                                   atol=1e-5)

    def test_002_alignment_through_erasures_and_bad_priors(self):
        # received frames 0..7 and a lost frame before frame 5: nine output
        # frames and nine frames of priors, tagged. Frame 1 is cut short (its
        # length tag says twice the bits that follow: truncated); output
        # frame 3's priors tag says N - 3 (and those items follow); the lost
        # frame takes its priors; output frame 7's priors hold a NaN.
        msgs, rx = self.frames(8, seed=70)
        lp = self.true_priors(msgs)
        lengths = [len(r) for r in rx]
        lengths[1] *= 2
        source = [0, 1, 2, 3, 4, None, 5, 6, 7]  # the received frame of each output frame
        flat, ptags = [], []
        for j, k in enumerate(source):
            rows = lp[0] if k is None else lp[k].copy()
            if j == 3:
                rows = rows[:N - 3]
            if j == 7:
                rows[4, 2] = np.nan
            ptags.append(tag(len(flat), KEY, pmt.from_long(len(rows))))
            flat.extend(rows)
        start5 = sum(len(r) for r in rx[:5])
        lost = [tag(start5, "bsid_frames_lost", pmt.from_long(1))]
        got, erasures, dec = self.decode(rx, np.array(flat), output="hard", bit_tags=lost,
                                      prior_tags=ptags, lengths=lengths, max_batch=2)
        got = got[:, :, 0]
        self.assertEqual(len(got), 9)  # frames in (and lost) == frames out
        self.assertEqual(dec.frames(), 9)
        self.assertEqual(erasures, [None, "truncated", None, "invalid_input", None,
                                    "frame_lost", None, "invalid_input", None])
        for j in (1, 3, 5, 7):
            np.testing.assert_array_equal(got[j], -1)
        # the frames after the bad ones are decoded with their own priors:
        # the alignment is kept (a slip would decode with a wrong prior)
        decoded = 0
        for j in (0, 2, 4, 6, 8):
            k = source[j]
            want = bsid.hard_decisions(self.core.decode(rx[k], log_priors=lp[k]))
            np.testing.assert_array_equal(got[j], want, "frame %d" % j)
            decoded += 1
        self.assertEqual(decoded, 5)
        # and with a frame's priors shifted by one the decisions differ
        wrong = bsid.hard_decisions(self.core.decode(rx[7], log_priors=lp[6]))
        self.assertTrue(np.any(wrong != got[8]))

    def test_003_untagged_priors_with_erasures_and_an_early_end(self):
        # untagged priors: N items a frame, counted; a cut frame and an
        # invalid length tag still take theirs; the priors end two frames early
        msgs, rx = self.frames(6, seed=90)
        lp = self.true_priors(msgs)
        bits_tags = []
        pos = 0
        starts = []
        for r in rx:
            starts.append(pos)
            pos += len(r)
        # frame 2's length tag is not a count: that frame is an invalid_tag erasure
        bits_tags.append(tag(starts[2], KEY, pmt.intern("twelve")))
        got, erasures, dec = self.decode(rx, lp[:4], output="hard", bit_tags=bits_tags)
        got = got[:, :, 0]
        self.assertEqual(len(got), 6)
        self.assertEqual(erasures, [None, None, "invalid_tag", None, "invalid_input",
                                    "invalid_input"])
        for k in (0, 1, 3):
            want = bsid.hard_decisions(self.core.decode(rx[k], log_priors=lp[k]))
            np.testing.assert_array_equal(got[k], want)
        # an extrinsic erasure is a row of ln(1/q)
        ext, e2, _ = self.decode(rx, lp[:4], output="extrinsic", bit_tags=bits_tags)
        self.assertEqual(e2, erasures)
        np.testing.assert_allclose(ext[4], np.log(1.0 / self.q), atol=1e-6)

    def test_004_bad_log_priors_rows(self):
        msgs, rx = self.frames(4, seed=120)
        lp = self.true_priors(msgs)
        lp[1, 0, 5] = np.inf
        lp[2, 7, :] = -np.inf
        got, erasures, _ = self.decode(rx, lp, output="posteriors")
        self.assertEqual(erasures, [None, "invalid_input", "invalid_input", None])
        np.testing.assert_allclose(got[1], 1.0 / self.q, atol=1e-7)
        self.assertTrue(np.all(np.isfinite(got)))

    def test_005_many_frames_across_buffers(self):
        # more priors than one buffer holds (512 items of 16 floats), frames
        # of priors split across work calls, tagged and untagged: each frame
        # still decoded with its own priors
        msgs, rx = self.frames(120, seed=200)
        lp = self.true_priors(msgs) + self.rng.normal(0, 2.0, (120, N, self.q))
        want = np.array([bsid.hard_decisions(self.core.decode(rx[k], log_priors=lp[k]))
                         for k in range(120)])
        ptags = [tag(k * N, KEY, pmt.from_long(N)) for k in range(120)]
        for prior_tags in (None, ptags):
            got, erasures, dec = self.decode(rx, lp, output="hard", prior_tags=prior_tags,
                                             max_batch=5)
            self.assertEqual(erasures, [None] * 120)
            np.testing.assert_array_equal(got[:, :, 0], want)
            self.assertEqual(dec.priors_discarded(), 0)

    def test_006_priors_tags_at_other_positions(self):
        # frame 1's priors tag says N - 3 but N items follow: that frame is an
        # erasure and the 3 items after its N - 3 belong to no frame; frame
        # 3's tag says N + 2 and the next tag comes after N: cut, an erasure;
        # a tag inside frame 5's items cuts it and starts frame 6's priors
        msgs, rx = self.frames(8, seed=150)
        lp = self.true_priors(msgs)
        flat, ptags = [], []
        for k in range(8):
            if k == 6:
                continue  # frame 6's tag falls inside frame 5's items, below
            value = {1: N - 3, 3: N + 2}.get(k, N)
            ptags.append(tag(len(flat), KEY, pmt.from_long(value)))
            flat.extend(lp[k][:N - 4] if k == 5 else lp[k])
            if k == 5:
                ptags.append(tag(len(flat), KEY, pmt.from_long(N)))
                flat.extend(lp[6])
        got, erasures, dec = self.decode(rx, np.array(flat), output="hard", prior_tags=ptags)
        got = got[:, :, 0]
        self.assertEqual(erasures, [None, "invalid_input", None, "invalid_input", None,
                                    "invalid_input", None, None])
        self.assertEqual(dec.priors_discarded(), 3)
        for k in (0, 2, 4, 6, 7):
            want = bsid.hard_decisions(self.core.decode(rx[k], log_priors=lp[k]))
            np.testing.assert_array_equal(got[k], want, "frame %d" % k)

    def test_007_make_refusals(self):
        mk = lambda **kw: bsid.map_decoder(self.cb, N, 0.01, 0.01, 0.0, backend="cpu", **kw)
        with self.assertRaisesRegex(ValueError, "priors_input.*stream.*cannot be aligned"):
            mk(priors_input=True, framing="stream")
        for name in ("extrinsic_hard", "hard_extrinsic"):
            with self.assertRaisesRegex(ValueError, "hard decisions are taken on the posterior"):
                mk(output=name)
        with self.assertRaisesRegex(ValueError,
                                    "'soft' is not one of posteriors, llr, hard, extrinsic"):
            mk(output="soft")
        # the port shapes
        dec = mk(output="extrinsic", priors_input=True)
        self.assertEqual(dec.input_signature().max_streams(), 2)
        self.assertEqual(dec.input_signature().sizeof_stream_item(1), 4 * self.q)
        self.assertEqual(dec.output_signature().sizeof_stream_item(0), 4 * self.q)
        self.assertEqual(mk().input_signature().max_streams(), 1)


    def test_010_soft_input_with_priors(self):
        # LLR input and a priors port together: the extrinsic rows equal the
        # core's for the same LLRs and priors, and "llr" output carries the prior
        msgs, rx = self.frames(5, seed=70)
        lp = self.true_priors(msgs) + self.rng.normal(0, 1.0, (5, N, self.q))
        llrs = [np.where(r > 0, 3.0, -3.0) + self.rng.normal(0, 1.0, len(r)) for r in rx]
        data, tags = [], []
        for x in llrs:
            tags.append(tag(len(data), KEY, pmt.from_long(len(x))))
            data.extend(float(v) for v in x)
        soft_core = bsid.map_decoder_core(self.cb, self.ch, N, backend="cpu",
                                          precision="double", input="llr")
        for output in ("extrinsic", "llr"):
            tb = gr.top_block()
            src = blocks.vector_source_f(data, False, 1, tags)
            psrc = blocks.vector_source_f(lp.astype(np.float32).ravel().tolist(), False,
                                          self.q)
            dec = bsid.map_decoder(self.cb, N, self.ch.Pi, self.ch.Pd, self.ch.Ps,
                                   output=output, backend="cpu", precision="double",
                                   input="llr", priors_input=True, max_batch=2)
            width = self.q if output == "extrinsic" else 1
            snk = blocks.vector_sink_f(width)
            tb.connect(src, (dec, 0))
            tb.connect(psrc, (dec, 1))
            tb.connect(dec, snk)
            tb.run()
            self.assertEqual((dec.frames(), dec.erasures()), (5, 0))
            got = np.array(snk.data())
            if output == "extrinsic":
                got = got.reshape(5, N, self.q)
                for k in range(5):
                    want = log_floor(soft_core.decode(
                        np.asarray(llrs[k], np.float32).astype(np.float64),
                        log_priors=lp[k].astype(np.float32), extrinsic=True))
                    np.testing.assert_allclose(got[k], want, rtol=0, atol=1e-5)
            else:
                # 4 bit LLRs per symbol (q = 16), MSB first, from the posterior with
                # the prior: their hard decisions are the true priors' strong pull
                bits = (got.reshape(5, N, 4) > 0).astype(int)
                sym = (bits * np.array([8, 4, 2, 1])).sum(axis=2)
                self.assertGreater(np.mean(sym == msgs), 0.9)

if __name__ == '__main__':
    gr_unittest.run(qa_map_decoder_priors)
