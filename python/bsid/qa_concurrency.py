#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Concurrency (docs/testing.md, "Concurrency"): two decoder blocks in one
flowgraph, set_channel called from another thread while the flowgraph runs (on
the channel and on the decoder), and one core decoder object used from several
Python threads at once. Results must equal those of the same work done serially,
and no frame may be lost or mixed up."""

import threading
import time

import numpy as np
from gnuradio import blocks, gr, gr_unittest

from gnuradio import bsid
from qa_tagged_streams import tags_of

CH_A = (0.01, 0.01, 0.005)
CH_B = (0.02, 0.005, 0.01)


def run_with_timeout(tb, seconds=120):
    done = threading.Event()

    def run():
        tb.run()
        done.set()

    threading.Thread(target=run, daemon=True).start()
    return done


def frames_of(sink, key="packet_len"):
    """The frames that reached a byte or int sink, cut at its length tags."""
    data = np.array(sink.data())
    tags = tags_of(sink, key)
    return [data[off:off + length] for off, length in tags]


def run_in_threads(worker, count):
    """worker(w) for w = 0 .. count - 1, each in its own thread, all at once."""
    threads = [threading.Thread(target=worker, args=(w,)) for w in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

class qa_concurrency(gr_unittest.TestCase):

    def setUp(self):
        self.cb = bsid.codebook.builtin("ld3-modvec6")
        self.N = 12
        self.seed = 5
        self.tb = gr.top_block()

    def message(self, frames, seed=1):
        return np.random.default_rng(seed).integers(0, self.cb.q, (frames, self.N)).astype(np.int32)

    def received(self, msg, ch):
        return [bsid.transmit(bsid.channel_params(*ch), self.cb.encode(m), self.seed, frame=k)[0]
                for k, m in enumerate(msg)]

    def core(self, ch, **kw):
        return bsid.map_decoder_core(self.cb, bsid.channel_params(*ch), self.N, backend="cpu", **kw)

    @staticmethod
    def hard_or_erasure(core, rx):
        try:
            return bsid.hard_decisions(core.decode(rx))
        except ValueError:
            return None

    # ------------------------------------------------------------ flowgraphs

    def test_001_two_decoders_in_one_flowgraph(self):
        # one channel feeds two decoders (hard and posteriors) in two branches;
        # a third decoder runs on its own branch with a second channel
        frames = 300
        msg = self.message(frames)
        src = blocks.vector_source_i(msg.ravel().tolist(), False)
        enc = bsid.codebook_encoder(self.cb, self.N)
        chan = bsid.channel(*CH_A, self.seed)
        dec_hard = bsid.map_decoder(self.cb, self.N, *CH_A, output="hard", backend="cpu",
                                    max_batch=7)
        dec_post = bsid.map_decoder(self.cb, self.N, *CH_A, output="posteriors", backend="cpu",
                                    max_batch=64)
        chan2 = bsid.channel(*CH_B, self.seed)
        dec2 = bsid.map_decoder(self.cb, self.N, *CH_B, output="hard", backend="cpu")
        snk_hard, snk_post, snk2 = (blocks.vector_sink_i(), blocks.vector_sink_f(self.cb.q),
                                    blocks.vector_sink_i())
        self.tb.connect(src, enc, chan, dec_hard, snk_hard)
        self.tb.connect(chan, dec_post, snk_post)
        self.tb.connect(enc, chan2, dec2, snk2)
        self.assertTrue(run_with_timeout(self.tb).wait(120), "the flowgraph hung")

        for ch, dec, snk, c in ((CH_A, dec_hard, snk_hard, chan), (CH_B, dec2, snk2, chan2)):
            self.assertEqual(c.frames_lost(), 0)
            core = self.core(ch)
            want = [self.hard_or_erasure(core, rx) for rx in self.received(msg, ch)]
            got = np.array(snk.data()).reshape(-1, self.N)
            self.assertEqual(len(got), frames)
            self.assertEqual(dec.frames(), frames)
            erased = {off // self.N for off, _ in tags_of(snk, "bsid_erasure")}
            self.assertEqual(dec.erasures(), len(erased))
            for k in range(frames):
                if want[k] is None:
                    self.assertIn(k, erased)
                else:
                    np.testing.assert_array_equal(got[k], want[k], err_msg=f"frame {k}")
        # the posteriors branch: same frames, float posteriors of the core decoder
        core = self.core(CH_A)
        post = np.array(snk_post.data(), dtype=np.float64).reshape(frames, self.N, self.cb.q)
        self.assertEqual(dec_post.frames(), frames)
        for k, rx in enumerate(self.received(msg, CH_A)):
            try:
                ref = core.decode(rx)
            except ValueError:
                np.testing.assert_allclose(post[k], 1.0 / self.cb.q)
                continue
            np.testing.assert_allclose(post[k], ref, atol=1e-6, err_msg=f"frame {k}")

    def test_002_set_channel_from_another_thread(self):
        # A setter thread flips the channel block and the decoder block between
        # two channels while the flowgraph runs. Each frame the channel puts
        # out must be that frame under one of the two channels (a change takes
        # effect at a frame boundary), and each decoded frame must be the
        # core decoder's output for one of the two channels.
        frames = 2000
        msg = self.message(frames, seed=2)
        src = blocks.vector_source_i(msg.ravel().tolist(), False)
        enc = bsid.codebook_encoder(self.cb, self.N)
        chan = bsid.channel(*CH_A, self.seed)
        dec = bsid.map_decoder(self.cb, self.N, *CH_A, output="hard", backend="cpu",
                               max_batch=4)
        dec2 = bsid.map_decoder(self.cb, self.N, *CH_B, output="hard", backend="cpu",
                                max_batch=1)
        rx_snk, snk, snk2 = blocks.vector_sink_b(), blocks.vector_sink_i(), blocks.vector_sink_i()
        # throttle the source a little so that the flowgraph outlives many setter calls
        thr = blocks.throttle(gr.sizeof_int, 40000)
        self.tb.connect(src, thr, enc, chan, dec, snk)
        self.tb.connect(chan, rx_snk)
        self.tb.connect(chan, dec2, snk2)
        stop = threading.Event()
        calls = [0]
        errors = []

        def setter():
            try:
                k = 0
                while not stop.is_set():
                    ch = (CH_A, CH_B)[k % 2]
                    chan.set_channel(*ch)
                    dec.set_channel(*ch)
                    dec2.set_channel(*(CH_B, CH_A)[k % 2])
                    chan.set_Ps(ch[2])
                    assert dec.frames() >= 0 and chan.frames() >= 0
                    k += 1
                    calls[0] += 1
                    time.sleep(0.0005)
            except Exception as e:  # reported by the main thread
                errors.append(e)

        t = threading.Thread(target=setter)
        t.start()
        done = run_with_timeout(self.tb)
        finished = done.wait(120)
        stop.set()
        t.join()
        self.assertTrue(finished, "the flowgraph hung")
        self.assertEqual(errors, [])
        self.assertGreater(calls[0], 20)

        lost = chan.frames_lost()
        self.assertEqual(chan.frames(), frames)
        rx = frames_of(rx_snk)
        self.assertEqual(len(rx) + lost, frames)
        if lost == 0:
            ref = {ch: self.received(msg, ch) for ch in (CH_A, CH_B)}
            for k in range(frames):
                self.assertTrue(any(np.array_equal(rx[k], ref[ch][k]) for ch in ref),
                                f"received frame {k} is neither channel's")
            cores = [self.core(CH_A), self.core(CH_B)]
            for d, s in ((dec, snk), (dec2, snk2)):
                got = np.array(s.data()).reshape(-1, self.N)
                self.assertEqual(len(got), frames)
                self.assertEqual(d.frames(), frames)
                erased = {off // self.N for off, _ in tags_of(s, "bsid_erasure")}
                self.assertEqual(d.erasures(), len(erased))
                for k in range(frames):
                    want = [self.hard_or_erasure(c, rx[k]) for c in cores]
                    if k in erased:
                        self.assertTrue((got[k] == -1).all())
                        continue
                    self.assertTrue(any(w is not None and np.array_equal(got[k], w)
                                        for w in want), f"decoded frame {k} is neither channel's")
        for d, s in ((dec, snk), (dec2, snk2)):
            self.assertEqual(len(s.data()) % self.N, 0)
            self.assertEqual(d.frames(), len(s.data()) // self.N)
            self.assertEqual(d.frames() + (lost - sum(
                1 for _, why in tags_of(s, "bsid_erasure") if why == "frame_lost")), frames)

    # ------------------------------------------------------------ core objects

    def test_003_core_decoder_from_many_threads(self):
        # One map_decoder_core (its decode and decode_batch release the GIL)
        # used by several Python threads at once gives what it gives serially.
        frames = 160
        msg = self.message(frames, seed=3)
        rx = self.received(msg, CH_A)
        rx[7] = rx[7][:3]                        # refused: drift out of range
        for kw in ({"threads": 1}, {"threads": 2, "storage": "local", "precision": "double"}):
            with self.subTest(**kw):
                dec = self.core(CH_A, **kw)
                serial = []
                for r in rx:
                    try:
                        serial.append(dec.decode(r))
                    except ValueError:
                        serial.append(None)
                serial_batch = dec.decode_batch(rx)
                for a, b in zip(serial, serial_batch):
                    self.assertEqual(a is None, b is None)
                    if a is not None:
                        np.testing.assert_array_equal(a, b)

                results, errors = {}, []

                def worker(w):
                    try:
                        order = np.random.default_rng(w).permutation(frames)
                        if w % 2:
                            out = {}
                            for k in order:
                                try:
                                    out[int(k)] = dec.decode(rx[k])
                                except ValueError:
                                    out[int(k)] = None
                        else:
                            chunks = np.array_split(order, 5)
                            out = {}
                            for c in chunks:
                                for k, p in zip(c, dec.decode_batch([rx[k] for k in c])):
                                    out[int(k)] = p
                        results[w] = out
                    except Exception as e:
                        errors.append(e)

                run_in_threads(worker, 6)
                self.assertEqual(errors, [])
                self.assertEqual(len(results), 6)
                for w, out in results.items():
                    for k in range(frames):
                        if serial[k] is None:
                            self.assertIsNone(out[k])
                        else:
                            np.testing.assert_array_equal(out[k], serial[k],
                                                          err_msg=f"thread {w}, frame {k}")

    def test_004_count_errors_and_channels_from_many_threads(self):
        # count_errors on one decoder, and channel emulators / transmit, from
        # several threads: each equals the serial result.
        ch = bsid.channel_params(*CH_A)
        dec = self.core(CH_A, threads=1)
        src = bsid.frame_source(self.cb, ch, self.N, 9)
        batches = [src.generate(64 * i, 64, threads=1) for i in range(6)]
        serial = [dec.count_errors(b, threads=1) for b in batches]
        msg = self.message(40, seed=4)
        bits = [self.cb.encode(m) for m in msg]
        tx_serial = [bsid.transmit(ch, b, 11, frame=k)[0] for k, b in enumerate(bits)]
        results, errors = {}, []

        def worker(w):
            try:
                got = []
                for r in range(4):
                    i = (w + r) % len(batches)
                    got.append((i, dec.count_errors(batches[i], threads=1 + (w % 2))))
                emu = [bsid.channel_emulator(ch, 11, k) for k in range(len(bits))]
                rx = [emu[k].process(b) for k, b in enumerate(bits)]
                tx = [bsid.transmit(ch, b, 11, frame=k)[0] for k, b in enumerate(bits)]
                results[w] = (got, rx, tx)
            except Exception as e:
                errors.append(e)

        run_in_threads(worker, 6)
        self.assertEqual(errors, [])
        for w, (got, rx, tx) in results.items():
            for i, d in got:
                for key in ("status", "symbol_errors", "bit_errors", "decisions"):
                    np.testing.assert_array_equal(d[key], serial[i][key],
                                                  err_msg=f"thread {w}, batch {i}, {key}")
            for k in range(len(bits)):
                np.testing.assert_array_equal(rx[k], tx_serial[k])
                np.testing.assert_array_equal(tx[k], tx_serial[k])


if __name__ == '__main__':
    gr_unittest.run(qa_concurrency)
