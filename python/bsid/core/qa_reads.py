#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Several reads of one frame from Python (docs/reads.md):
map_decoder_core.decode_reads and decode_reads_batch. The exactness of the
joint decoder against a brute force is lib/core/tests/qa_reads.cc's; here,
the API: one read is decode(), reads left out with their statuses, a channel
per read, the combiner's options, batches, and the errors."""

import unittest

import numpy as np

import bsid_core as bsid


def sent_frame(cb, N, seed):
    rng = np.random.default_rng(seed)
    msg = rng.integers(0, cb.q, N)
    return msg, cb.encode(msg)


class qa_decode_reads(unittest.TestCase):

    def setUp(self):
        self.cb = bsid.codebook.random(6, 8, 3, 5)
        self.ch = bsid.channel_params(0.02, 0.02, 0.01)
        self.N = 10
        self.dec = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu",
                                         precision="double")
        self.msg, self.x = sent_frame(self.cb, self.N, 1)
        self.reads = [bsid.transmit(self.ch, self.x, seed=s)[0] for s in range(4)]

    def test_001_one_read_is_decode(self):
        pri = np.random.default_rng(2).random((self.N, 8)) + 0.1
        for method in ("joint", "combine"):
            for kw in ({}, {"priors": pri}, {"priors": pri, "extrinsic": True},
                       {"log_priors": np.log(pri)}):
                got = self.dec.decode_reads([self.reads[0]], method=method, **kw)
                ref = self.dec.decode(self.reads[0], **kw)
                self.assertTrue(np.array_equal(got, ref), (method, kw))

    def test_002_joint_and_combined(self):
        for method, M in (("joint", 2), ("joint", 3), ("combine", 4)):
            post, info = self.dec.decode_reads(self.reads[:M], method=method, statuses=True)
            self.assertEqual(post.shape, (self.N, 8))
            self.assertEqual(post.dtype, np.float64)
            np.testing.assert_allclose(post.sum(axis=1), 1.0, atol=1e-12)
            self.assertEqual(info["status"], "ok")
            self.assertEqual(info["used"], M)
            self.assertEqual(info["reads"], [("ok", "")] * M)
            self.assertTrue(np.array_equal(post.argmax(axis=1), self.msg))
            if method == "combine":
                self.assertGreaterEqual(info["rounds"], 2)
                self.assertTrue(info["converged"])

    def test_003_reads_left_out(self):
        bad = self.reads[2].copy()
        bad[5] = 2
        post, info = self.dec.decode_reads([np.zeros(0, np.uint8), self.reads[1], bad],
                                           statuses=True)
        self.assertEqual(info["status"], "ok")
        self.assertEqual(info["used"], 1)
        self.assertEqual(info["reads"][0][0], "empty")
        self.assertEqual(info["reads"][1], ("ok", ""))
        self.assertEqual(info["reads"][2][0], "invalid_input")
        self.assertTrue(np.array_equal(post, self.dec.decode(self.reads[1])))
        # none left: FrameRefused, or None with the statuses
        with self.assertRaises(bsid.FrameRefused) as cm:
            self.dec.decode_reads([np.zeros(0, np.uint8), np.ones(200, np.uint8)])
        self.assertEqual(cm.exception.status, "empty")
        self.assertIn("no read of the frame", str(cm.exception))
        post, info = self.dec.decode_reads([np.ones(200, np.uint8)], statuses=True)
        self.assertIsNone(post)
        self.assertEqual(info["reads"][0][0], "drift_out_of_range")

    def test_004_a_channel_per_read(self):
        clean = bsid.channel_params(0.001, 0.001, 0.001)
        noisy = bsid.channel_params(0.05, 0.05, 0.05)
        r0 = bsid.transmit(clean, self.x, seed=7)[0]
        r1 = bsid.transmit(noisy, self.x, seed=8)[0]
        a = self.dec.decode_reads([r0, r1], channels=[clean, noisy])
        b = self.dec.decode_reads([r0, r1])
        self.assertFalse(np.allclose(a, b))
        self.assertTrue(np.array_equal(a.argmax(axis=1), self.msg))
        with self.assertRaisesRegex(ValueError, "2 reads; the decoder has a channel for 1"):
            self.dec.decode_reads([r0, r1], channels=[clean])
        with self.assertRaisesRegex(ValueError, "alphabet"):
            self.dec.decode_reads([r0], channels=[bsid.channel_params(0, 0, 0, 4)])

    def test_005_batch(self):
        clusters = [self.reads[:2], self.reads[1:3], [np.zeros(0, np.uint8)], self.reads[:1]]
        for method in ("joint", "combine"):
            posts, infos = self.dec.decode_reads_batch(clusters, method=method)
            self.assertEqual(len(posts), 4)
            self.assertIsNone(posts[2])
            self.assertEqual(infos[2]["status"], "empty")
            for k in (0, 1, 3):
                one = self.dec.decode_reads(clusters[k], method=method)
                self.assertTrue(np.array_equal(posts[k], one), (method, k))
        pri = np.full((self.N, 8), 1.0)
        posts, _ = self.dec.decode_reads_batch(clusters[:2], priors=[pri, None])
        self.assertTrue(np.array_equal(posts[1], self.dec.decode_reads(clusters[1])))
        with self.assertRaisesRegex(ValueError, "priors has 1 entries for 2 clusters"):
            self.dec.decode_reads_batch(clusters[:2], priors=[pri])

    def test_006_errors(self):
        with self.assertRaisesRegex(ValueError, "at most 3 reads"):
            self.dec.decode_reads(self.reads, method="joint")
        with self.assertRaisesRegex(ValueError, "read method 'vote'"):
            self.dec.decode_reads(self.reads, method="vote")
        with self.assertRaisesRegex(ValueError, "iterations applies to method 'combine'"):
            self.dec.decode_reads(self.reads[:2], iterations=3)
        with self.assertRaisesRegex(ValueError, "at least 1"):
            self.dec.decode_reads(self.reads[:2], method="combine", iterations=0)
        with self.assertRaises(TypeError):
            self.dec.decode_reads(self.reads[0])
        with self.assertRaisesRegex(ValueError, "priors"):
            self.dec.decode_reads(self.reads[:2], priors=-np.ones((self.N, 8)))
        wide = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu",
                                     mtau=(-700, 700))
        with self.assertRaisesRegex(ValueError, "joint states"):
            wide.decode_reads(self.reads[:2])
        sync = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu",
                                     sync_word="0110")
        with self.assertRaisesRegex(ValueError, "sync word"):
            sync.decode_reads(self.reads[:2])

    def test_007_letters_and_soft_items(self):
        cb = bsid.codebook.random(1, 4, 1, 3, 4)
        ch = bsid.channel_params(0.02, 0.02, 0.02, alphabet=4)
        N = 40
        msg, x = sent_frame(cb, N, 3)
        reads = [bsid.transmit(ch, x, seed=s)[0] for s in range(5)]
        dec = bsid.map_decoder_core(cb, ch, N, backend="cpu")
        joint = dec.decode_reads(reads[:3])
        comb = dec.decode_reads(reads, method="combine")
        self.assertLessEqual((joint.argmax(axis=1) != msg).sum(), 2)
        self.assertLessEqual((comb.argmax(axis=1) != msg).sum(), 2)
        # log-probabilities of hard letters decode as the letters
        soft = bsid.map_decoder_core(cb, ch, N, backend="cpu", input="logprob")
        lp = [np.where(np.eye(4)[r] > 0, 0.0, -np.inf) for r in reads[:2]]
        np.testing.assert_allclose(soft.decode_reads(lp), dec.decode_reads(reads[:2]),
                                   atol=1e-6)


if __name__ == "__main__":
    unittest.main()
