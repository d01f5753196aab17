#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA of bsid_core.stream_decoder: each frame is the frame decoder's decode of
the segment the documented rules give, under the previous frame's trimmed
forward end metric; chunks of any size; start tags; erasures; bad input."""

import unittest

import numpy as np

import bsid_core as bsid

SYNC = "0110100111010010"


def bits_of(text):
    return np.array([int(c) for c in text], dtype=np.uint8)


def make_stream(cb, ch, N, sync, frames, seed):
    """Frames (sync word, then N symbols) back to back through one channel."""
    rng = np.random.default_rng(seed)
    msgs = [rng.integers(0, cb.q, N) for _ in range(frames)]
    sent = np.concatenate([np.concatenate([bits_of(sync), cb.encode(m)]) for m in msgs])
    rx, drift = bsid.transmit(ch, sent, seed=seed, frame=0)
    F = len(sync) + N * cb.n
    starts = [k * F + int(drift[k * F]) for k in range(frames + 1)]
    return rx, msgs, starts


def trimmed(positions, weights, Pr):
    """Drop the lighter tail (the left on a tie) while the mass dropped stays <= Pr."""
    a, b, dropped = 0, len(weights), 0.0
    while b - a > 1:
        left, right = weights[a], weights[b - 1]
        m = left if left <= right else right
        if dropped + m > Pr:
            break
        dropped += m
        if left <= right:
            a += 1
        else:
            b -= 1
    w = np.asarray(weights[a:b], dtype=float)
    return np.asarray(positions[a:b]), w / w.sum()


class qa_stream_decoder(unittest.TestCase):

    def setUp(self):
        self.cb = bsid.codebook.from_spec("builtin:ld3-modvec6")
        self.ch = bsid.channel_params(0.01, 0.01, 0.0)

    def decoder(self, N, sync=SYNC, precision="double"):
        return bsid.map_decoder_core(self.cb, self.ch, N, backend="cpu",
                                     precision=precision, threads=2, sync_word=sync)

    def test_000_frames_chain_through_the_forward_end_metric(self):
        # each frame equals decode_frame on [s_min, s_max + F + m+ + G + K n +
        # the drift limit over G + K n), under the previous frame's trimmed
        # forward end metric
        N, K = 15, 2
        dec = self.decoder(N)
        rx, _, _ = make_stream(self.cb, self.ch, N, SYNC, 6, 4)
        sd = bsid.stream_decoder(dec, lookahead=K)
        frames = sd.push(rx) + sd.flush()
        self.assertEqual(len(frames), 6)
        G, F = len(SYNC), sd.frame_bits
        hi = dec.limits["mtau"][1]
        tail = G + K * self.cb.n + bsid.drift_limits(G + K * self.cb.n, 0.01, 0.01, 1e-10)[1]
        positions, weights = np.array([0]), np.array([1.0])
        for k in range(4):  # frames whose segment the stream does not cut
            # the spread padded to 2^k - 1 (k >= 2) with a weight-0 position
            s_min, spread = positions[0], 3
            while spread < positions[-1] - s_min:
                spread = 2 * spread + 1
            top = s_min + spread
            end = top + F + hi + tail
            self.assertEqual(frames[k].segment, (s_min, end))
            if top > positions[-1]:
                positions, weights = np.append(positions, top), np.append(weights, 0.0)
            # (the stream weighs a gap: random bits after the end, 1e-3)
            res = dec.decode_frame(rx[s_min:end], start_prior=(positions - s_min, weights),
                                   end="free", lookahead=K, gap=1e-3)
            self.assertEqual(frames[k].status, "ok")
            np.testing.assert_array_equal(frames[k].posteriors, res.posteriors)
            self.assertEqual(frames[k].log_likelihood_ratio, res.log_likelihood_ratio)
            self.assertEqual(frames[k].end, s_min + res.end_positions[np.argmax(res.end_posterior)])
            self.assertEqual(frames[k].start,
                             s_min + res.start_positions[np.argmax(res.start_posterior)])
            positions, weights = trimmed(s_min + res.end_positions, res.end_forward, 1e-10)

    def test_001_chunks_of_any_size(self):
        N = 10
        dec = self.decoder(N, precision="float")
        rx, _, _ = make_stream(self.cb, self.ch, N, SYNC, 8, 9)
        runs = []
        for chunk in (1, 5, 64, len(rx)):
            sd = bsid.stream_decoder(dec)
            out = []
            for at in range(0, len(rx), chunk):
                out += sd.push(rx[at:at + chunk])
            out += sd.flush()
            runs.append(out)
        for out in runs[1:]:
            self.assertEqual(len(out), len(runs[0]))
            for a, b in zip(out, runs[0]):
                self.assertEqual((a.status, a.start, a.end), (b.status, b.start, b.end))
                np.testing.assert_array_equal(a.posteriors, b.posteriors)

    def test_002_acquisition_at_a_start_tag(self):
        # unsynchronized at first; the tag on the bit after the first sync word
        # acquires (tag_offset -G by default); frames carry drift from it
        N = 12
        dec = self.decoder(N)
        rx, msgs, starts = make_stream(self.cb, self.ch, N, SYNC, 5, 2)
        lead = np.random.default_rng(0).integers(0, 2, 21).astype(np.uint8)
        stream = np.concatenate([lead, rx])
        sd = bsid.stream_decoder(dec, start=None, search=False)
        frames = sd.push(stream, tags=[21 + starts[0] + len(SYNC)]) + sd.flush()
        self.assertEqual([f.status for f in frames], ["ok"] * 5)
        self.assertTrue(frames[0].acquired)
        self.assertEqual(frames[0].nominal_start, 21 + starts[0])
        for k, f in enumerate(frames):
            self.assertEqual(f.start, 21 + starts[k])
            self.assertEqual(f.start_drift, f.start - f.nominal_start)
            self.assertEqual(f.nominal_start, 21 + starts[0] + k * sd.frame_bits)
            np.testing.assert_array_equal(bsid.hard_decisions(f.posteriors), msgs[k])
        # the same with the tag on the frame's first bit
        sd = bsid.stream_decoder(dec, start=None, search=False, tag_offset=0)
        frames = sd.push(stream, tags=[21 + starts[0]]) + sd.flush()
        self.assertEqual([f.status for f in frames], ["ok"] * 5)

    def test_003_erasures_keep_frames_in_equal_frames_out(self):
        N = 12
        dec = self.decoder(N)
        rx, _, starts = make_stream(self.cb, self.ch, N, SYNC, 6, 7)
        F = len(SYNC) + N * self.cb.n
        # a value that is not a bit in frame 3: an invalid_input erasure, then
        # re-acquisition by search
        bad = rx.astype(np.int64)
        bad[starts[3] + 50] = 5
        sd = bsid.stream_decoder(dec)
        frames = sd.push(bad) + sd.flush()
        self.assertEqual([f.status for f in frames],
                         ["ok", "ok", "ok", "invalid_input", "ok", "ok"])
        self.assertTrue(frames[4].acquired)
        # two frame lengths of random bits: two sync_lost erasures
        noise = np.random.default_rng(3).integers(0, 2, 2 * F).astype(np.uint8)
        stream = np.concatenate([rx[:starts[3]], noise, rx[starts[3]:]])
        sd = bsid.stream_decoder(dec)
        frames = sd.push(stream) + sd.flush()
        self.assertEqual([f.status for f in frames],
                         ["ok"] * 3 + ["sync_lost"] * 2 + ["ok"] * 3)
        for f in frames:
            self.assertEqual(f.posteriors.shape, (N, 16))
            self.assertTrue(np.all(np.isfinite(f.posteriors)))
            np.testing.assert_allclose(f.posteriors.sum(axis=1), 1.0)
        # cut inside the last frame: truncated
        sd = bsid.stream_decoder(dec)
        frames = sd.push(rx[:starts[5] + 60]) + sd.flush()
        self.assertEqual([f.status for f in frames], ["ok"] * 5 + ["truncated"])
        # an empty stream
        sd = bsid.stream_decoder(dec)
        self.assertEqual(sd.push(np.zeros(0, np.uint8)) + sd.flush(), [])

    def test_004_bad_arguments(self):
        dec = self.decoder(10)
        for kw in ({"lookahead": -1}, {"lookahead": 11}, {"acquire_window": -2},
                   {"sync_threshold": float("nan")}, {"start": -3},
                   {"start": {0: 0.0}}, {"start": {}}):
            with self.assertRaises(ValueError, msg=str(kw)):
                bsid.stream_decoder(dec, **kw)
        with self.assertRaises(TypeError):
            bsid.stream_decoder(dec, tag_offset=True)
        with self.assertRaises(TypeError):
            bsid.stream_decoder(dec, start="0")
        sd = bsid.stream_decoder(dec)
        with self.assertRaises(ValueError):
            sd.push(np.zeros(4, np.uint8), tags=[4])  # outside the chunk
        with self.assertRaises(ValueError):
            sd.push(np.zeros(4, np.uint8), tags=[-1])
        with self.assertRaises(TypeError):
            sd.push(np.zeros(4, np.float64))
        sd.flush()
        with self.assertRaises(ValueError):
            sd.push(np.zeros(4, np.uint8))  # after the end of the stream


if __name__ == "__main__":
    unittest.main(verbosity=2)
