#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Stream framing in bsid-sim (docs/simulating.md, "Stream framing"): frames
sent back to back through one continuous channel and decoded by
bsid_core.stream_decoder with no genie, and the same frames decoded between
their true boundaries (genie framing), side by side.

`streams` independent streams run side by side (one thread each); frame k of
stream s is frame (s << 40) + k of the point's frame_source (its message), and
stream s's channel is continuous: its chunk c of `stream_frames` frames goes
through bsid_core.transmit(seed, STREAM_CHANNEL + (s << 40) + c), and the
BSID channel has no memory from bit to bit, so the chunks' outputs, one after
another, are one channel's. Frames are counted in rows: row k is frame k of
every stream, in stream order, once every stream has put its frame k out, so
that the counts and the stopping rules do not depend on threads or timing."""

import time
from concurrent.futures import ThreadPoolExecutor

import bsid_core
import numpy as np

from . import engine

__all__ = ["run_stream_point", "STREAM_CHANNEL"]

# the channel draws of stream s, chunk c: transmit(frame = STREAM_CHANNEL + (s << 40) + c)
STREAM_CHANNEL = 1 << 62

STATUS = {name: k for k, name in enumerate(bsid_core.frame_status_names)}


class _Stream:
    """One stream: its decoder, the frames sent and not yet counted, and the
    frames put out and not yet counted."""

    def __init__(self, c, dec, src, s, W):
        self.c, self.src, self.s, self.W = c, src, s, W
        self.sd = bsid_core.stream_decoder(dec, lookahead=c.lookahead)
        self.ch = dec.channel
        self.F = len(W) + c.N * c.codebook.n
        self.chunk = 0
        self.base = 0       # received bits so far
        self.msgs = []      # per sent frame not yet counted: its message
        self.ends = []      # ... where it ends in the stream
        self.genie = []     # ... its received bits between its true boundaries
        self.out = []       # frames put out, not yet counted

    def feed(self):
        """Sends the next chunk of frames through the channel and decodes what
        the stream then holds."""
        c, C, F = self.c, self.c.stream_frames, self.F
        first = (self.s << 40) + self.chunk * C
        batch = self.src.generate(first, C, 1)
        sent = np.concatenate([np.concatenate([self.W, c.codebook.encode(m)])
                               for m in batch.symbols])
        rx, drift = bsid_core.transmit(self.ch, sent, seed=c.seed,
                                       frame=STREAM_CHANNEL + (self.s << 40) + self.chunk)
        for j in range(C):
            a, b = j * F + int(drift[j * F]), (j + 1) * F + int(drift[(j + 1) * F])
            self.msgs.append(np.asarray(batch.symbols[j], dtype=np.int64))
            self.ends.append(self.base + b)
            self.genie.append(rx[a:b])
        self.out.extend(self.sd.push(rx))
        self.base += len(rx)
        self.chunk += 1


def _popcount(x):
    """Set bits of each non-negative integer of x (int64)."""
    x = np.asarray(x, dtype=np.int64)
    count = np.zeros(x.shape, dtype=np.int64)
    while np.any(x):
        count += x & 1
        x = x >> 1
    return count


def _errors(post, msg, N, m):
    """(symbol errors, bit errors) of a frame's posteriors, or of an erasure (None)."""
    if post is None:
        return N, N * m
    d = np.asarray(bsid_core.hard_decisions(post), dtype=np.int64)
    wrong = d != msg
    return int(wrong.sum()), int(_popcount(d[wrong] ^ msg[wrong]).sum())


def run_stream_point(c, progress=None):
    """engine.run_point for framing = "stream"; the same stopping rules, and
    the genie-framing counts and the stream's own (wrong MAP ends, sync
    losses) beside them."""
    dec = engine.make_decoder(c)
    src = bsid_core.frame_source(c.codebook, dec.channel, c.N, c.seed, sync_word=c.sync_word)
    res = engine.PointResult(config=c, backend=dec.backend, storage=dec.storage,
                             threads=engine.resolved_threads(c.threads),
                             mtau=tuple(dec.limits["mtau"]), mn=tuple(dec.limits["mn"]))
    W = np.array([int(b) for b in c.sync_word], dtype=np.uint8)
    S = c.streams
    streams = [_Stream(c, dec, src, s, W) for s in range(S)]
    res.lookahead = streams[0].sd.lookahead
    m = engine.bits_per_symbol(c.codebook.q)
    pool = ThreadPoolExecutor(max_workers=max(1, min(S, res.threads)))
    t0 = time.perf_counter()
    try:
        while True:
            # one chunk more on every stream, side by side
            for f in [pool.submit(st.feed) for st in streams]:
                f.result()
            rows = min(len(st.out) for st in streams)
            rows = min(rows, -(-(c.max_frames - res.frames) // S))
            if rows == 0:
                continue
            # the frames of these rows, in row order, and their genie decodes
            frames, msgs, ends, genie = [], [], [], []
            for k in range(rows):
                for st in streams:
                    frames.append(st.out[k])
                    msgs.append(st.msgs[k] if k < len(st.msgs) else None)
                    ends.append(st.ends[k] if k < len(st.ends) else -2)
                    genie.append(st.genie[k] if k < len(st.genie) else np.zeros(0, np.uint8))
            for st in streams:
                del st.out[:rows], st.msgs[:rows], st.ends[:rows], st.genie[:rows]
            gpost, _ = dec.decode_batch(genie, statuses=True)
            K = len(frames)
            se, be, status = np.zeros(K, np.int64), np.zeros(K, np.int64), np.zeros(K, np.uint8)
            gse, gbe = np.zeros(K, np.int64), np.zeros(K, np.int64)
            wrong_end, lost = np.zeros(K, bool), np.zeros(K, bool)
            for j, f in enumerate(frames):
                msg = msgs[j] if msgs[j] is not None else np.full(c.N, -1, np.int64)
                status[j] = STATUS[f.status]
                se[j], be[j] = _errors(f.posteriors if f.status == "ok" else None, msg,
                                       c.N, m)
                gse[j], gbe[j] = _errors(gpost[j], msg, c.N, m)
                wrong_end[j] = f.end != ends[j]
                lost[j] = f.status in ("sync_lost", "sync_ambiguous")
            counts = {"symbol_errors": se, "bit_errors": be, "status": status}
            upto, reason = engine._stop_in_batch(res, counts)
            engine._add(res, counts, upto)
            res.frame_errors_genie += int((gse[:upto] > 0).sum())
            res.symbol_errors_genie += int(gse[:upto].sum())
            res.symbol_errors_genie_sq += int((gse[:upto] ** 2).sum())
            res.bit_errors_genie += int(gbe[:upto].sum())
            res.wrong_ends += int(wrong_end[:upto].sum())
            res.sync_lost += int(lost[:upto].sum())
            if engine._end_batch(res, reason, t0, progress):
                break
    except KeyboardInterrupt:
        res.seconds = time.perf_counter() - t0
        res.stopped_by = "interrupted"
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return res
