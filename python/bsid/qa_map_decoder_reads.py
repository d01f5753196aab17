#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""bsid.map_decoder with reads=M (docs/reads.md, "In a flowgraph"): M inputs
of tagged frames, the k-th frame of each a read of the same frame. Each
output frame equals decode_reads of its reads (joint and combine); a read
lost, cut short or missing because its input ended is left out, the frame
decoded from the others and flagged in its bsid_reads tag; each input
follows its own bsid_channel tags; make() refuses what cannot work."""

import time

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


class late_start(gr.sync_block):
    """Passes its items through, the first only `delay` seconds after its
    first call (a receiver that starts late)."""

    def __init__(self, delay):
        gr.sync_block.__init__(self, "late_start", [np.uint8], [np.uint8])
        self.delay, self.t0 = delay, None

    def work(self, input_items, output_items):
        self.t0 = self.t0 or time.monotonic()
        if time.monotonic() - self.t0 < self.delay:
            time.sleep(0.01)
            return 0
        n = len(output_items[0])
        output_items[0][:] = input_items[0][:n]
        return n


class qa_map_decoder_reads(gr_unittest.TestCase):

    def setUp(self):
        self.cb = bsid.codebook.builtin("ld3-modvec6")
        self.q = self.cb.q
        self.ch = bsid.channel_params(0.03, 0.03, 0.01)
        self.core = bsid.map_decoder_core(self.cb, self.ch, N, backend="cpu",
                                          precision="double")

    def clusters(self, count, M, seed=3, ch=None):
        """count frames, each through M channel realizations: messages and reads[k][r]."""
        ch = ch or self.ch
        rng = np.random.default_rng(seed)
        msgs = rng.integers(0, self.q, (count, N))
        reads = [[bsid.transmit(ch, self.cb.encode(m), seed=seed, frame=64 * k + r)[0]
                  for r in range(M)] for k, m in enumerate(msgs)]
        return msgs, reads

    def run_block(self, inputs, M, extra_tags=None, garbage=None, late=None, **kw):
        """inputs[r]: the list of input r's frames (bit arrays; None: a lost
        frame, reported by a bsid_frames_lost tag before the next; a string:
        a bsid_frames_lost tag with that symbol, not a count). garbage[r]:
        the untagged items put before each of input r's frames; late: the
        inputs whose items start 0.3 s late.
        Returns (rows (frames, N, q), the output tags by frame, the block)."""
        tb = gr.top_block()
        dec = bsid.map_decoder(self.cb, N, self.ch.Pi, self.ch.Pd, self.ch.Ps,
                               backend="cpu", precision="double", reads=M, **kw)
        for r, frames in enumerate(inputs):
            bits, tags, lost = [], [], 0
            junk = (garbage or {}).get(r)
            for f in frames:
                if f is None:
                    lost += 1
                    continue
                if isinstance(f, str):
                    tags.append(tag(len(bits), "bsid_frames_lost", pmt.intern(f)))
                    continue
                if lost:
                    tags.append(tag(len(bits), "bsid_frames_lost", pmt.from_long(lost)))
                    lost = 0
                if junk is not None:
                    bits.extend(int(b) for b in junk)
                tags.append(tag(len(bits), KEY, pmt.from_long(len(f))))
                bits.extend(int(b) for b in f)
            if lost:
                tags.append(tag(len(bits), "bsid_frames_lost", pmt.from_long(lost)))
            tags += (extra_tags or {}).get(r, [])
            src = blocks.vector_source_b(bits, False, 1, tags)
            if late and r in late:
                tb.gate = late_start(0.3)  # (a Python block must stay referenced)
                tb.connect(src, tb.gate, (dec, r))
            else:
                tb.connect(src, (dec, r))
        snk = blocks.vector_sink_f(self.q)
        tb.connect(dec, snk)
        tb.run()
        rows = np.array(snk.data()).reshape(-1, N, self.q)
        by_frame = {}
        for t in snk.tags():
            by_frame.setdefault(t.offset // N, {})[pmt.symbol_to_string(t.key)] = t.value
        return rows, by_frame, dec

    @staticmethod
    def reads_of(tags):
        d = tags["bsid_reads"]
        used = pmt.to_long(pmt.dict_ref(d, pmt.intern("used"), pmt.PMT_NIL))
        st = pmt.dict_ref(d, pmt.intern("reads"), pmt.PMT_NIL)
        return used, [pmt.symbol_to_string(pmt.vector_ref(st, i))
                      for i in range(pmt.length(st))]

    def test_001_each_frame_is_decode_reads_of_its_reads(self):
        for method, M in (("joint", 2), ("combine", 4)):
            msgs, reads = self.clusters(6, M)
            rows, tags, dec = self.run_block([[c[r] for c in reads] for r in range(M)], M,
                                             read_method=method)
            self.assertEqual(rows.shape, (6, N, self.q))
            for k, c in enumerate(reads):
                ref = self.core.decode_reads(c, method=method)
                np.testing.assert_allclose(rows[k], ref, atol=1e-6, err_msg=method)
                used, st = self.reads_of(tags[k])
                self.assertEqual((used, st), (M, ["ok"] * M))
                self.assertEqual(pmt.to_long(tags[k][KEY]), N)
                self.assertNotIn("bsid_erasure", tags[k])
            self.assertEqual((dec.frames(), dec.erasures()), (6, 0))
            self.assertGreater(dec.batches(), 0)

    def test_002_missing_reads_are_left_out_and_flagged(self):
        msgs, reads = self.clusters(5, 2, seed=5)
        in0 = [c[0] for c in reads]
        in1 = [c[1] for c in reads]
        in1[1] = None          # lost on input 1
        in1 = in1[:4]          # input 1 ends before frame 4
        rows, tags, dec = self.run_block([in0, in1], 2)
        self.assertEqual(rows.shape[0], 5)
        for k in (1, 4):
            used, st = self.reads_of(tags[k])
            self.assertEqual((used, st), (1, ["ok", "frame_lost"]))
            np.testing.assert_allclose(rows[k], self.core.decode(in0[k]), atol=1e-6)
        for k in (0, 2, 3):
            self.assertEqual(self.reads_of(tags[k])[0], 2)
        self.assertEqual(dec.erasures(), 0)
        # a read far too short for the frame: its drift leaves the limits
        short = [reads[0][1][:40], reads[1][1]]
        rows, tags, _ = self.run_block([[reads[0][0], reads[1][0]], short], 2)
        self.assertEqual(self.reads_of(tags[0]), (1, ["ok", "drift_out_of_range"]))
        np.testing.assert_allclose(rows[0], self.core.decode(reads[0][0]), atol=1e-6)

    def test_003_no_read_left_is_an_erasure(self):
        msgs, reads = self.clusters(2, 2, seed=7)
        rows, tags, dec = self.run_block([[None, reads[1][0]], [None, reads[1][1]]], 2)
        self.assertEqual(rows.shape[0], 2)
        self.assertEqual(pmt.symbol_to_string(tags[0]["bsid_erasure"]), "frame_lost")
        np.testing.assert_allclose(rows[0], 1.0 / self.q)
        self.assertEqual(self.reads_of(tags[0]), (0, ["frame_lost", "frame_lost"]))
        self.assertEqual(dec.erasures(), 1)

    def test_004_each_input_follows_its_own_channel_tags(self):
        clean = bsid.channel_params(0.005, 0.005, 0.005)
        noisy = bsid.channel_params(0.06, 0.06, 0.02)
        rng = np.random.default_rng(9)
        msgs = rng.integers(0, self.q, (3, N))
        in0 = [bsid.transmit(clean, self.cb.encode(m), seed=1, frame=k)[0]
               for k, m in enumerate(msgs)]
        in1 = [bsid.transmit(noisy, self.cb.encode(m), seed=2, frame=k)[0]
               for k, m in enumerate(msgs)]
        chtag = {0: [tag(0, "bsid_channel", pmt.init_f64vector(3, [clean.Pi, clean.Pd,
                                                                      clean.Ps]))],
                 1: [tag(0, "bsid_channel", pmt.init_f64vector(3, [noisy.Pi, noisy.Pd,
                                                                      noisy.Ps]))]}
        rows, tags, _ = self.run_block([in0, in1], 2, extra_tags=chtag)
        for k in range(3):
            ref = self.core.decode_reads([in0[k], in1[k]], channels=[clean, noisy])
            np.testing.assert_allclose(rows[k], ref, atol=1e-6)

    def test_005_refused_setups(self):
        def make(**kw):
            return bsid.map_decoder(self.cb, N, 0.01, 0.01, 0.01, backend="cpu", **kw)
        for kw, what in (({"framing": "stream"}, "tagged frames"),
                         ({"priors_input": True}, "priors"),
                         ({"sync_word": "0110"}, "sync word"),
                         ({"estimate_every": 10}, "estimate"),
                         ({"reads": 4}, "at most 3 reads")):
            with self.assertRaisesRegex(ValueError, what):
                make(**dict({"reads": 2}, **kw))
        with self.assertRaisesRegex(ValueError, "at least 1"):
            make(reads=0)
        with self.assertRaisesRegex(ValueError, "read method 'vote'"):
            make(reads=2, read_method="vote")
        make(reads=4, read_method="combine")  # any number combined

    def test_006_garbage_between_frames_and_a_late_input(self):
        """Bursts of untagged garbage before every frame of input 0, and input 1
        starting late: the decoder waits for it, and every frame is still
        decoded from both of its own reads, and the garbage is counted."""
        msgs, reads = self.clusters(5, 2, seed=11)
        junk = np.random.default_rng(4).integers(0, 2, 37)
        rows, tags, dec = self.run_block([[c[0] for c in reads], [c[1] for c in reads]],
                                         2, garbage={0: junk}, late=[1])
        self.assertEqual(rows.shape[0], 5)
        for k, c in enumerate(reads):
            self.assertEqual(self.reads_of(tags[k]), (2, ["ok", "ok"]))
            np.testing.assert_allclose(rows[k], self.core.decode_reads(c), atol=1e-6)
        self.assertEqual(dec.bits_discarded(), 5 * len(junk))

    def test_007_an_input_that_loses_count_is_left_out_from_there(self):
        """A bsid_frames_lost tag that is not a count: how many frames input 1
        lost is unknown, so its later frames cannot be paired; they are left
        out (invalid_tag), never decoded with another frame's reads."""
        msgs, reads = self.clusters(4, 2, seed=13)
        in1 = [reads[0][1], "many", reads[2][1], reads[3][1]]
        rows, tags, dec = self.run_block([[c[0] for c in reads], in1], 2)
        self.assertEqual(rows.shape[0], 4)
        self.assertEqual(self.reads_of(tags[0]), (2, ["ok", "ok"]))
        np.testing.assert_allclose(rows[0], self.core.decode_reads(reads[0]), atol=1e-6)
        for k in (1, 2, 3):
            self.assertEqual(self.reads_of(tags[k]), (1, ["ok", "invalid_tag"]))
            np.testing.assert_allclose(rows[k], self.core.decode(reads[k][0]), atol=1e-6)
        self.assertEqual(dec.erasures(), 0)


if __name__ == "__main__":
    gr_unittest.run(qa_map_decoder_reads)
