#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
""""ok" means the frame the channel let through, through the block
(docs/receiving.md, "Loss of sync"): streams with bursts of random bits of many
lengths between frames, early and late unsynchronized starts, a code whose
books repeat within the frame (ld3-modvec6, period 6) and one whose books do
not, with and without a sync word and start tags, in float and double.

For each stream, bsid.map_decoder (framing "stream") puts out exactly what the
core stream decoder does with the same options; over all the streams of a
setup, the frames put out ok have no more symbol errors than genie framing
(each frame decoded between its true boundaries) within its 95 % binomial
interval, none reads its frame wrong, and the frames out are the frames sent
plus each burst's length in frame lengths, rounded to the nearest."""

import math

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import bsid

SYNC = "0110100111010010"
N = 20


def bits_of(text):
    return np.array([int(c) for c in text], dtype=np.uint8)


class burst_stream:
    """Frames sent one by one through the channel, `lead` random bits before
    the first (negative: the stream starts that far inside frame 0) and
    bursts[k] random bits after frame k."""

    def __init__(self, cb, ch, W, frames, lead, bursts, seed):
        rng = np.random.default_rng(seed)
        self.msgs, self.frames, self.starts, self.garbage = [], [], [], []
        parts, at = [], 0
        if lead > 0:
            parts.append(rng.integers(0, 2, lead).astype(np.uint8))
            self.garbage.append(lead)
            at = lead
        for k in range(frames):
            m = rng.integers(0, cb.q, N)
            rx, _ = bsid.transmit(ch, np.concatenate([W, cb.encode(m)]), seed=seed, frame=k)
            self.msgs.append(m)
            self.frames.append(rx)
            self.starts.append(at)
            parts.append(rx)
            at += len(rx)
            g = bursts.get(k, 0)
            if g:
                parts.append(rng.integers(0, 2, g).astype(np.uint8))
                self.garbage.append(g)
                at += g
        self.rx = np.concatenate(parts)
        self.cut = 0
        if lead < 0:  # a late start: the stream begins inside frame 0
            self.cut = -lead
            self.rx = self.rx[self.cut:]
            self.starts = [s - self.cut for s in self.starts]


class qa_stream_bursts(gr_unittest.TestCase):

    def setUp(self):
        self.ch = bsid.channel_params(0.01, 0.01, 0.0)

    def run_both(self, cb, W, s, precision, tags, unsynchronized):
        """The block's frames (status, decisions) and the core's, for stream s."""
        G = len(W)
        tag_at = [t + G for t in s.starts if t >= 0] if tags else []
        src_tags = [gr.tag_utils.python_to_tag((t, pmt.intern("bsid_start"), pmt.PMT_T))
                    for t in tag_at]
        tb = gr.top_block()
        src = blocks.vector_source_b(s.rx.tolist(), False, 1, src_tags)
        dec = bsid.map_decoder(cb, N, 0.01, 0.01, 0.0, output="hard", backend="cpu",
                               precision=precision, sync_word=SYNC if G else "",
                               framing="stream", synchronized_at_start=not unsynchronized)
        snk = blocks.vector_sink_i()
        tb.connect(src, dec, snk)
        tb.run()
        out = np.array(snk.data(), dtype=np.int64).reshape(-1, N)
        erased = {t.offset // N: pmt.symbol_to_string(t.value) for t in snk.tags()
                  if pmt.symbol_to_string(t.key) == "bsid_erasure"}
        block = [(erased.get(k, "ok"), out[k]) for k in range(len(out))]
        core = bsid.map_decoder_core(cb, self.ch, N, backend="cpu", precision=precision,
                                     sync_word=SYNC if G else "")
        sd = bsid.stream_decoder(core, start=None if unsynchronized else 0)
        frames = sd.push(s.rx, tags=tag_at) + sd.flush()
        return block, frames, sd.frame_bits

    def check_setup(self, name, cb, W, cases, precision="float", tags=False,
                    unsynchronized=True):
        """Runs every (frames, lead, bursts, seed) case; checks the block
        against the core and the rules over all of them."""
        core = bsid.map_decoder_core(cb, self.ch, N, backend="cpu", precision="double",
                                     sync_word=SYNC if len(W) else "")
        ok = errs = genie = symbols = 0
        for frames, lead, bursts, seed in cases:
            what = "%s: lead %d, bursts %r, seed %d" % (name, lead, bursts, seed)
            s = burst_stream(cb, self.ch, W, frames, lead, bursts, seed)
            block, core_frames, F = self.run_both(cb, W, s, precision, tags, lead != 0)
            # the block is the core stream decoder
            self.assertEqual(len(block), len(core_frames), what)
            for (status, dec), f in zip(block, core_frames):
                self.assertEqual(status, f.status, what)
                if status == "ok":
                    np.testing.assert_array_equal(dec, bsid.hard_decisions(f.posteriors),
                                                  what)
            # the frames out: the frames sent (a late start loses frame 0 to
            # its cut: an erasure or nothing, either way one frame length at
            # most) plus each burst in frame lengths, rounded
            expect = frames + sum(int((g + F // 2) // F) for g in s.garbage)
            near_half = any(abs(2 * (g % F) - F) <= 24 for g in s.garbage)
            if not near_half:
                self.assertIn(len(block), (expect, expect - 1) if s.cut else (expect,), what)
            for f in core_frames:
                if f.status != "ok":
                    continue
                k = int(np.argmin([abs(st - f.start) for st in s.starts]))
                if k == 0 and s.cut:
                    continue  # frame 0 was cut: no genie for it
                e = int(np.sum(bsid.hard_decisions(f.posteriors) != s.msgs[k]))
                g = int(np.sum(bsid.hard_decisions(core.decode(s.frames[k])) != s.msgs[k]))
                self.assertLess(e, N // 2, "%s: frame %d at %d read wrong" % (what, k, f.start))
                ok += 1
                errs += e
                genie += g
                symbols += N
        # the ok frames' SER within the 95 % binomial interval of genie framing's
        p = genie / max(1, symbols)
        hi = symbols * p + 1.96 * math.sqrt(symbols * p * (1 - p)) + 1
        self.assertLessEqual(errs, hi, "%s: %d errors in %d frames ok, genie %d"
                             % (name, errs, ok, genie))
        self.assertGreater(ok, 0, name)

    def cases(self, seed0):
        # bursts of many lengths (a few bits to two frame lengths), early and
        # late starts
        F = len(SYNC) + N * 8
        return [(10, 0, {3: 32}, seed0),
                (10, 37, {2: 5, 6: F + 11}, seed0 + 1),
                (10, -21, {4: 2 * F - 9}, seed0 + 2),
                (10, 3 * F // 2, {1: 77, 5: F // 3}, seed0 + 3),
                (10, 0, {0: 1, 7: 200}, seed0 + 4)]

    def test_000_sync_word_repeating_code(self):
        cb = bsid.codebook.builtin("ld3-modvec6")
        self.check_setup("W, ld3-modvec6", cb, bits_of(SYNC), self.cases(10))
        self.check_setup("W, ld3-modvec6, double, tags", cb, bits_of(SYNC), self.cases(20),
                         precision="double", tags=True)

    def test_001_no_sync_word_repeating_code(self):
        # period 6 does not divide N = 20: shifts by whole periods are told apart
        cb = bsid.codebook.builtin("ld3-modvec6")
        self.check_setup("no W, ld3-modvec6", cb, np.zeros(0, np.uint8), self.cases(30))

    def test_002_codes_that_do_not_repeat(self):
        cb = bsid.codebook.from_spec("random:8:16:%d:5" % N)
        self.check_setup("no W, random books", cb, np.zeros(0, np.uint8), self.cases(40),
                         precision="double")
        self.check_setup("W, random books, tags", cb, bits_of(SYNC), self.cases(50),
                         tags=True)


if __name__ == "__main__":
    gr_unittest.run(qa_stream_bursts)
