#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The q-ary channel's Python API (docs/dna.md): channel parameters and
codebooks over an alphabet of A letters, the emulator on letters, and the
clear errors for letters outside the alphabet, bad matrices and codes and
channels of other alphabets."""

import os
import pickle
import tempfile
import unittest

import numpy as np

import bsid_core as bsid

# DNA-like: transitions (A<->G, C<->T) likelier than transversions
S_DNA = np.array([[0.97, 0.005, 0.02, 0.005],
                  [0.005, 0.97, 0.005, 0.02],
                  [0.02, 0.005, 0.97, 0.005],
                  [0.005, 0.02, 0.005, 0.97]])


class qa_channel_params_alphabet(unittest.TestCase):

    def test_001_alphabet_and_uniform_substitutions(self):
        ch = bsid.channel_params(0.01, 0.02, 0.03, alphabet=4)
        self.assertEqual(ch.alphabet, 4)
        self.assertIsNone(ch.substitution)
        self.assertEqual(repr(ch), "channel_params(Pi=0.01, Pd=0.02, Ps=0.03, alphabet=4)")
        self.assertEqual(eval("bsid." + repr(ch)), ch)
        self.assertEqual(pickle.loads(pickle.dumps(ch)), ch)
        self.assertEqual(bsid.channel_params(0.1, 0.1, 0.1).alphabet, 2)
        self.assertEqual(bsid.channel_params(0.1, 0.1, 0.1, 2), bsid.channel_params(0.1, 0.1, 0.1))
        self.assertNotEqual(bsid.channel_params(0.1, 0.1, 0.1, 3),
                            bsid.channel_params(0.1, 0.1, 0.1))
        for bad in (1, 0, 257, -2):
            with self.assertRaisesRegex(ValueError, "alphabet = %d must be in \\[2, 256\\]" % bad):
                bsid.channel_params(0, 0, 0, alphabet=bad)

    def test_002_substitution_matrix(self):
        ch = bsid.channel_params(0.01, 0.01, substitution=S_DNA, alphabet=4)
        self.assertTrue(np.array_equal(ch.substitution, S_DNA))
        self.assertEqual(ch.substitution.shape, (4, 4))
        self.assertAlmostEqual(ch.Ps, 0.03, places=15)  # the mean of 1 - S[x][x]
        self.assertEqual(pickle.loads(pickle.dumps(ch)), ch)
        self.assertEqual(eval("bsid." + repr(ch), {"bsid": bsid}), ch)
        # Ps is not used with a matrix: the same channel whatever Ps was given
        self.assertEqual(bsid.channel_params(0.01, 0.01, 0.2, 4, S_DNA.tolist()), ch)
        self.assertNotEqual(bsid.channel_params(0.01, 0.01, 0.03, 4), ch)

    def test_003_bad_matrices_are_refused_clearly(self):
        with self.assertRaisesRegex(ValueError, r"A x A matrix with A = alphabet = 4, got shape \(3, 3\)"):
            bsid.channel_params(0, 0, 0, 4, np.eye(3))
        with self.assertRaisesRegex(ValueError, r"got shape \(16,\)"):
            bsid.channel_params(0, 0, 0, 4, np.eye(4).ravel())
        with self.assertRaisesRegex(ValueError, "row 1 of the substitution matrix sums to 1.5"):
            bsid.channel_params(0, 0, 0, 2, [[1, 0], [0.5, 1]])
        with self.assertRaisesRegex(ValueError, r"substitution\[0\]\[1\] = nan"):
            bsid.channel_params(0, 0, 0, 2, [[1, float("nan")], [0, 1]])
        with self.assertRaisesRegex(TypeError, "array of numbers"):
            bsid.channel_params(0, 0, 0, 2, [["a", "b"], ["c", "d"]])


class qa_codebook_alphabet(unittest.TestCase):

    def test_001_words_are_base_A_digits(self):
        cb = bsid.codebook(3, [[27, 0, 63, 4]], alphabet=4)
        self.assertEqual(cb.alphabet, 4)
        letters = cb.encode([0, 2, 3, 1])
        self.assertEqual(letters.dtype, np.uint8)
        self.assertEqual(letters.tolist(), [1, 2, 3, 3, 3, 3, 0, 1, 0, 0, 0, 0])
        self.assertEqual(repr(cb), "codebook(n=3, q=4, P=1, alphabet=4)")
        self.assertEqual(pickle.loads(pickle.dumps(cb)), cb)
        self.assertNotEqual(bsid.codebook(2, [[0, 1]], alphabet=3), bsid.codebook(2, [[0, 1]]))
        self.assertEqual(bsid.codebook(2, [[0, 1]]).alphabet, 2)

    def test_002_specs_take_the_alphabet(self):
        cb = bsid.codebook.from_spec("random:4:16:2:7", alphabet=4)
        self.assertEqual((cb.n, cb.q, cb.P, cb.alphabet), (4, 16, 2, 4))
        self.assertEqual(cb, bsid.codebook.random(4, 16, 2, 7, alphabet=4))
        self.assertTrue(all(0 <= w < 4 ** 4 for book in cb.books for w in book))
        sp = bsid.codebook.from_spec("sparse:3:7", alphabet=3)
        self.assertEqual(sp.books[0], [0, 1, 2, 3, 6, 9, 18])
        with self.assertRaisesRegex(ValueError, "built-in codebooks .* are binary"):
            bsid.codebook.from_spec("builtin:ld3-modvec6", alphabet=4)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "dna.txt")
            cb.save(path)
            self.assertEqual(bsid.codebook.from_spec("file:" + path, alphabet=4), cb)
            with self.assertRaisesRegex(ValueError, "the code's alphabet is 4, not alphabet = 2"):
                bsid.codebook.from_spec("file:" + path)
        with self.assertRaisesRegex(ValueError, "more than 2\\^32 words"):
            bsid.codebook.random(17, 16, 1, 0, alphabet=4)


class qa_transmit_letters(unittest.TestCase):

    def test_001_letters_through_the_channel(self):
        ch = bsid.channel_params(0.03, 0.03, 0.03, alphabet=4)
        x = np.random.default_rng(1).integers(0, 4, 5000).astype(np.uint8)
        rx, drift = bsid.transmit(ch, x, 11, 2)
        self.assertEqual(rx.dtype, np.uint8)
        self.assertTrue(rx.max() < 4)
        self.assertEqual(len(rx) - len(x), drift[-1])
        rx2, _ = bsid.transmit(ch, x.tolist(), seed=11, frame=2)
        self.assertTrue(np.array_equal(rx, rx2))
        em = bsid.channel_emulator(ch, 11, 2)
        got = np.concatenate([em.process(x[:1234]), em.process(x[1234:])])
        self.assertTrue(np.array_equal(got, rx))

    def test_002_a_letter_outside_the_alphabet_is_named(self):
        ch = bsid.channel_params(0.01, 0.01, 0.01, alphabet=4)
        with self.assertRaisesRegex(ValueError, "value 4 at position 2 is not a letter of the "
                                                "alphabet \\(expected 0 to 3\\)"):
            bsid.transmit(ch, [0, 3, 4, 1], 1)
        with self.assertRaisesRegex(ValueError, "input byte 7 at position 1 is not a letter"):
            bsid.transmit(ch, np.array([0, 7], dtype=np.uint8), 1)
        with self.assertRaisesRegex(ValueError, "not a bit"):
            bsid.transmit(bsid.channel_params(0.01, 0.01, 0.01), [0, 2], 1)

    def test_003_the_matrix_channel(self):
        ch = bsid.channel_params(0, 0, 0, 4, S_DNA)
        x = np.random.default_rng(2).integers(0, 4, 200000).astype(np.uint8)
        rx, _ = bsid.transmit(ch, x, 5)
        self.assertEqual(len(rx), len(x))
        counts = np.zeros((4, 4))
        np.add.at(counts, (x, rx), 1)
        freq = counts / counts.sum(axis=1, keepdims=True)
        # 5 sigma of a binomial frequency at ~50000 letters a row
        self.assertTrue(np.all(np.abs(freq - S_DNA) < 5 * np.sqrt(S_DNA * (1 - S_DNA) / 50000) + 1e-12),
                        freq)

    def test_004_decoders_refuse_mismatched_alphabets(self):
        cb = bsid.codebook.from_spec("random:4:16:1:1", alphabet=4)
        with self.assertRaisesRegex(ValueError, "codebook's alphabet is 4 letters but the channel's is 2"):
            bsid.map_decoder_core(cb, bsid.channel_params(0.01, 0.01, 0), 10)

    def test_005_a_binary_matrix_estimate_is_refused(self):
        cb = bsid.codebook.from_spec("builtin:ld3-modvec6")
        with self.assertRaisesRegex(ValueError, "more than two letters"):
            bsid.estimate_channel(cb, 10, [np.zeros(60, np.uint8)],
                                  initial=bsid.channel_params(0.01, 0.01, 0.01),
                                  substitution_matrix=True)


class qa_decode_letters(unittest.TestCase):
    """map_decoder_core over four letters: hard letters, log-probabilities,
    sync words of letters, and the clear refusals."""

    cb = bsid.codebook.from_spec("random:4:16:2:3", alphabet=4)
    ch = bsid.channel_params(0.01, 0.01, 0.01, alphabet=4)
    N = 40

    def sent(self, seed):
        msg = np.random.default_rng(seed).integers(0, 16, self.N)
        return msg, self.cb.encode(msg)

    def test_001_letters_decode_to_the_message(self):
        dec = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu")
        for seed in range(5):
            msg, x = self.sent(seed)
            rx, _ = bsid.transmit(self.ch, x, seed, 0)
            post = dec.decode(rx)
            self.assertEqual(post.shape, (self.N, 16))
            self.assertTrue(np.allclose(post.sum(axis=1), 1))
            self.assertGreaterEqual(np.mean(post.argmax(axis=1) == msg), 0.9)
        # the clean frame: every symbol right, and int lists as well as bytes
        msg, x = self.sent(9)
        self.assertTrue(np.array_equal(dec.decode(x.tolist()).argmax(axis=1), msg))

    def test_002_a_value_outside_the_alphabet_is_refused(self):
        dec = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu")
        _, x = self.sent(1)
        bad = x.astype(np.int64)
        bad[7] = 4
        with self.assertRaisesRegex(bsid.FrameRefused, "value 4 at position 7 is not a letter "
                                                       "of the alphabet \\(expected 0 to 3\\)"):
            dec.decode(bad)
        with self.assertRaisesRegex(bsid.FrameRefused, "byte 4 at position 7 is not a letter"):
            dec.decode(bad.astype(np.uint8))
        posts, stats = dec.decode_batch([x, bad.astype(np.uint8)], statuses=True)
        self.assertIsNotNone(posts[0])
        self.assertIsNone(posts[1])
        self.assertEqual(stats[1][0], "invalid_input")

    def test_003_log_probabilities(self):
        hard = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu", precision="double")
        soft = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu", precision="double",
                                     input="logprob")
        self.assertEqual(soft.input, "logprob")
        msg, x = self.sent(3)
        rx, _ = bsid.transmit(self.ch, x, 3, 0)
        # certain items (0 and -inf) are the hard letters, whatever constant per row
        lp = np.full((len(rx), 4), -np.inf)
        lp[np.arange(len(rx)), rx] = 0.0
        lp += np.arange(len(rx))[:, None] * 0.37
        self.assertTrue(np.allclose(soft.decode(lp), hard.decode(rx), atol=1e-12))
        # uncertain items: an item that says nothing leaves the frame decodable
        lp2 = np.log(np.full((len(rx), 4), 0.02))
        lp2[np.arange(len(rx)), rx] = np.log(0.94)
        lp2[5] = 0.0
        post = soft.decode(lp2)
        self.assertGreaterEqual(np.mean(post.argmax(axis=1) == msg), 0.9)
        for bad, says in ((np.nan, "is nan"), (np.inf, "is inf")):
            b = lp2.copy()
            b[4, 2] = bad
            with self.assertRaisesRegex(bsid.FrameRefused, says):
                soft.decode(b)
        b = lp2.copy()
        b[4] = -np.inf
        with self.assertRaisesRegex(bsid.FrameRefused, "every letter's log-probability is -inf"):
            soft.decode(b)
        with self.assertRaisesRegex(ValueError, "\\(L, A\\) array with A = 4"):
            soft.decode(lp2[:, :3])
        with self.assertRaisesRegex(TypeError, "floating-point"):
            soft.decode(np.zeros((10, 4), dtype=np.int64))

    def test_004_log_probabilities_over_bits_are_the_llr_path(self):
        cb = bsid.codebook.from_spec("random:6:8:2:1")
        ch = bsid.channel_params(0.02, 0.02, 0.02)
        llr_dec = bsid.map_decoder_core(cb, ch, 20, input="llr", backend="cpu")
        lp_dec = bsid.map_decoder_core(cb, ch, 20, input="logprob", backend="cpu")
        rng = np.random.default_rng(4)
        x = cb.encode(rng.integers(0, 8, 20))
        rx, _ = bsid.transmit(ch, x, 4)
        llr = (2.0 * rx - 1) * rng.uniform(0.5, 6, len(rx))
        lp = np.stack([-np.logaddexp(0, llr), -np.logaddexp(0, -llr)], axis=1)
        self.assertTrue(np.allclose(lp_dec.decode(lp), llr_dec.decode(llr), atol=1e-6))
        with self.assertRaisesRegex(bsid.FrameRefused, "every letter's log-probability is -inf"):
            lp_dec.decode(np.full((len(rx), 2), -np.inf))

    def test_005_sync_words_of_letters(self):
        msg, x = self.sent(5)
        for W in ("ACGTTG", [0, 1, 2, 3, 3, 2], "0,1,2,3,3,2", "acgttg"):
            dec = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu", sync_word=W)
            self.assertEqual(dec.sync_word, [0, 1, 2, 3, 3, 2])
            sent = np.concatenate([np.array([0, 1, 2, 3, 3, 2], np.uint8), x])
            rx, _ = bsid.transmit(self.ch, sent, 5)
            self.assertGreaterEqual(np.mean(dec.decode(rx).argmax(axis=1) == msg), 0.9)
            # the frame somewhere in a segment of random letters, found by its start prior
            junk = np.random.default_rng(6).integers(0, 4, 17).astype(np.uint8)
            res = dec.decode_frame(np.concatenate([junk, rx]), start_prior={s: 1 for s in range(30)},
                                   random_before=True)
            self.assertEqual(res.status, "ok")
            self.assertEqual(int(np.argmax(res.start_posterior)), 17)
        with self.assertRaisesRegex(ValueError, "not one of A, C, G, T"):
            bsid.map_decoder_core(self.cb, self.ch, self.N, sync_word="ACGU")
        with self.assertRaisesRegex(ValueError, "value 4 at position 1 is not a letter"):
            bsid.map_decoder_core(self.cb, self.ch, self.N, sync_word=[0, 4])
        ch3 = bsid.channel_params(0.01, 0.01, 0.01, alphabet=3)
        cb3 = bsid.codebook.from_spec("random:3:8:1:3", alphabet=3)
        self.assertEqual(bsid.map_decoder_core(cb3, ch3, 4, sync_word="2,0,1").sync_word, [2, 0, 1])
        self.assertEqual(bsid.map_decoder_core(cb3, ch3, 4, sync_word="201").sync_word, [2, 0, 1])
        with self.assertRaisesRegex(ValueError, "character 0 is not a letter 0 to 2"):
            bsid.map_decoder_core(cb3, ch3, 4, sync_word="AC")
        # bits keep their text
        cb2 = bsid.codebook.from_spec("random:6:8:2:1")
        self.assertEqual(bsid.map_decoder_core(cb2, bsid.channel_params(0, 0, 0), 4,
                                               sync_word="0110").sync_word, "0110")

    def test_006_stream_of_letters(self):
        """A stream of four-letter frames with a sync word, a burst of random
        letters in the middle: every frame but the burst's is found, and an ok
        frame is the frame sent there."""
        W = [0, 1, 2, 3, 3, 2, 1, 0]
        rng = np.random.default_rng(8)
        sent, msgs, at = [], [], []
        for f in range(16):
            msg, x = self.sent(100 + f)
            at.append(len(sent))
            sent.extend(W)
            sent.extend(x.tolist())
            msgs.append(msg)
            if f == 7:
                sent.extend(rng.integers(0, 4, 41).tolist())
        rx, drift = bsid.transmit(self.ch, np.array(sent, np.uint8), 8)
        starts = [a + drift[a] for a in at]
        for soft in (False, True):
            dec = bsid.map_decoder_core(self.cb, self.ch, self.N, backend="cpu", sync_word=W,
                                        input="logprob" if soft else "bits")
            sd = bsid.stream_decoder(dec)
            items = rx
            if soft:
                items = np.full((len(rx), 4), np.log(0.1 / 3))
                items[np.arange(len(rx)), rx] = np.log(0.9)
            out = []
            for k in range(0, len(rx), 250):
                out += sd.push(items[k:k + 250])
            out += sd.flush()
            ok = [f for f in out if f.status == "ok"]
            self.assertGreaterEqual(len(ok), 15, [f.status for f in out])
            for f in ok:
                k = int(np.argmin([abs(s - f.start) for s in starts]))
                self.assertLessEqual(abs(starts[k] - f.start), 2)
                # the channel's errors only (read at a wrong alignment, about
                # 15/16 of the symbols are wrong)
                self.assertLessEqual(int(np.sum(f.posteriors.argmax(axis=1) != msgs[k])),
                                     self.N // 2)


class qa_concatenated_letters(unittest.TestCase):
    """The concatenated decoder over four letters: the outer code's GF(16)
    symbols are the inner code's message symbols, whatever letters the inner
    codewords are made of (docs/dna.md)."""

    code = bsid.ldpc_code.from_spec("ldpc-regular:60:30:16:3:1")
    cb = bsid.codebook.random(4, 16, 2, 3, alphabet=4)
    ch = bsid.channel_params(0.01, 0.01, 0.01, alphabet=4)

    def test_001_frames_of_letters_decode_to_their_information(self):
        src = bsid.frame_source(self.cb, self.ch, 0, 5, outer=self.code)
        batch = src.generate(0, 12, threads=2)
        self.assertTrue(all(int(batch.rx(j).max()) < 4 for j in range(len(batch))))
        inner = bsid.map_decoder_core(self.cb, self.ch, src.N, backend="cpu")
        dec = bsid.concatenated_decoder_core(inner, self.code, iterations=4,
                                             bp_iterations=30, threads=2)
        r = dec.count_errors(batch, threads=2)
        good = np.sum((r["status"] == 0) & (r["symbol_errors"] == 0))
        self.assertGreaterEqual(good, 11, r)
        for j in range(len(batch)):
            if r["status"][j] == 0 and r["symbol_errors"][j] == 0:
                np.testing.assert_array_equal(r["info"][j], batch.info[j])

    def test_002_log_probabilities(self):
        src = bsid.frame_source(self.cb, self.ch, 0, 6, outer=self.code)
        soft = bsid.map_decoder_core(self.cb, self.ch, src.N, backend="cpu",
                                     input="logprob")
        dec = bsid.concatenated_decoder_core(soft, self.code, iterations=4,
                                             bp_iterations=30)
        frames = []
        for j in range(4):
            rx = src.frame(j)["rx"]
            lp = np.full((len(rx), 4), np.log(0.05 / 3))
            lp[np.arange(len(rx)), rx] = np.log(0.95)
            frames.append(lp)
        out = dec.decode(frames)
        for j, r in enumerate(out):
            self.assertEqual(r["status"], "ok", r["reason"])
            np.testing.assert_array_equal(r["info"], src.info(j))


class qa_estimate_letters(unittest.TestCase):
    """estimate_channel over four letters: hard letters, log-probabilities and
    their scale, a full substitution matrix, a sync word of letters (the exact
    E-step is checked against a brute force in the C++ tests)."""

    cb = bsid.codebook.from_spec("random:3:16:4:5", alphabet=4)
    truth = bsid.channel_params(0.03, 0.02, 0.02, alphabet=4)
    initial = bsid.channel_params(0.01, 0.01, 0.05, alphabet=4)
    N = 40

    def frames(self, count, sync=()):
        rng = np.random.default_rng(11)
        out = []
        for k in range(count):
            x = np.concatenate([np.array(sync, np.uint8),
                                self.cb.encode(rng.integers(0, 16, self.N))])
            out.append(bsid.transmit(self.truth, x, seed=7, frame=k)[0])
        return out

    def test_001_hard_letters(self):
        ch, ll, info = bsid.estimate_channel(self.cb, self.N, self.frames(80), self.initial,
                                             details=True, backend="cpu", threads=2)
        self.assertEqual(ch.alphabet, 4)
        self.assertTrue(info["converged"])
        self.assertTrue(all(b >= a - 1e-9 * abs(a) for a, b in zip(ll, ll[1:])))
        for name in ("Pi", "Pd", "Ps"):
            self.assertLess(abs(getattr(ch, name) / getattr(self.truth, name) - 1), 0.25,
                            f"{name}: {ch}")
        self.assertNotIn("substitution_counts", info)

    def test_002_log_probabilities_and_their_scale(self):
        frames = []
        for y in self.frames(80):
            lp = np.full((len(y), 4), 0.5 * np.log(0.01 / 3))
            lp[np.arange(len(y)), y] = 0.5 * np.log(0.99)
            frames.append(lp)
        ch, ll, info = bsid.estimate_channel(self.cb, self.N, frames, self.initial,
                                             input="logprob", details=True, backend="cpu",
                                             threads=2)
        self.assertGreater(info["llr_scale"], 1.5)  # the halved confidence, undone
        self.assertLess(abs(ch.Pd / self.truth.Pd - 1), 0.25, str(ch))

    def test_003_substitution_matrix(self):
        ch, ll, info = bsid.estimate_channel(self.cb, self.N, self.frames(80), self.initial,
                                             iterations=15, details=True, backend="cpu",
                                             threads=2, substitution_matrix=True)
        self.assertTrue(ch.substitution is not None and len(ch.substitution) == 4)
        counts = np.array(info["substitution_counts"])
        self.assertEqual(counts.shape, (4, 4))
        self.assertAlmostEqual(counts.sum(), info["events"]["transmissions"],
                               delta=1e-6 * counts.sum())
        self.assertAlmostEqual(counts.sum() - np.trace(counts),
                               info["events"]["substitutions"], delta=1e-6 * counts.sum())
        for x in range(4):
            self.assertGreater(ch.substitution[x][x], 0.95, str(ch))

    def test_004_sync_word_of_letters(self):
        W = [0, 1, 2, 3, 3, 2, 1, 0]
        ch = bsid.estimate_channel(self.cb, self.N, self.frames(60, W), self.initial,
                                   sync_word=W, backend="cpu", threads=2)[0]
        same = bsid.estimate_channel(self.cb, self.N, self.frames(60, W), self.initial,
                                     sync_word="ACGTTGCA", backend="cpu", threads=2)[0]
        self.assertEqual(ch, same)
        self.assertLess(abs(ch.Pd / self.truth.Pd - 1), 0.3, str(ch))


if __name__ == "__main__":
    unittest.main()
