#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Stream framing in bsid-sim (docs/simulating.md, "Stream framing"): frames
sent back to back through one continuous channel and decoded by
bsid_core.stream_decoder with no genie, and the same frames decoded between
their true boundaries (genie framing), side by side.

`streams` independent streams run side by side (one thread each); frame k
of stream s is frame (s << 40) + k of the point's frame_source (its message), and
stream s's channel is continuous: its chunk c of `stream_frames` frames goes
through bsid_core.transmit(seed, STREAM_CHANNEL + (s << 40) + c), and the
BSID channel has no memory from bit to bit, so the chunks' outputs, one after
another, are one channel's. Optional garbage joins them: `lead` random bits
before the first frame, and after each frame, with probability `burst_rate`,
a burst of random bits (its length uniform in `burst_bits`), drawn from
numpy's PCG64 seeded with (seed, s, c, BURSTS).

The frames put out are matched to the frames sent by position: a frame out
lies at the sent frame whose true start is nearest to its start (an
erasure's: its nominal start), within half a frame length. A sent frame's
frame out is the first ok one there, else the first one there; the others
there and those at no sent frame lie over garbage (extra frames), except
that a second ok frame at one sent frame is a duplicate; a sent frame with
no frame out is missed (an erasure). The frames over garbage expected are,
from one frame out ok to the next, the garbage between them in frame
lengths, rounded to the nearest (the decoder's frame grid is anchored by
the frames it finds, so bursts on both sides of a lost frame add up).
Frames are counted in rows: row k is sent frame k of every stream, in stream
order, once every stream has put out every frame that could lie at it, so
that the counts and the stopping rules do not depend on threads or timing;
the extra frames and bursts before sent frame k count in row k."""

import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor

import bsid_core
import numpy as np

from . import counting, engine

__all__ = ["run_stream_point", "STREAM_CHANNEL", "BURSTS"]

# the channel draws of stream s, chunk c: transmit(frame = STREAM_CHANNEL + (s << 40) + c)
STREAM_CHANNEL = 1 << 62
# the garbage draws of stream s, chunk c: PCG64((seed, s, c, BURSTS))
BURSTS = 0xB5

STATUS = {name: k for k, name in enumerate(bsid_core.frame_status_names)}


class _Sent:
    """A sent frame not yet counted: where it lies in the stream, its
    message and received bits, the garbage just before it, and the frames
    out that belong to it or lie over that garbage."""
    __slots__ = ("start", "end", "msg", "genie", "garbage", "near", "match", "duplicates",
                 "extra", "extra_ok", "expected", "near_half")

    def __init__(self, start, end, msg, genie, garbage):
        self.start, self.end, self.msg, self.genie = start, end, msg, genie
        self.garbage = garbage  # garbage bits right before this frame
        self.near = []          # the frames out that lie at it
        self.match = None       # its frame out (None: missed)
        self.duplicates = 0     # further frames out ok at it
        self.extra = 0          # frames out over garbage before it, or at it besides its own
        self.extra_ok = 0       # ... of them, with status ok
        self.expected = 0       # frames out over garbage expected before it
        self.near_half = False  # ... from garbage near half a frame length (either way)

    def resolve(self):
        """Its frame out and the others (once no further one can lie at it)."""
        ok = [f for f in self.near if f.status == "ok"]
        if self.near:
            self.match = ok[0] if ok else self.near[0]
        self.duplicates = max(0, len(ok) - 1)
        self.extra += len(self.near) - 1 - self.duplicates if self.near else 0


def _sent_stream(c, src, s, chunk, W, ch):
    """The bits of stream s's chunk: (received bits, and per frame (start,
    end, message, its received bits, garbage bits before it)), positions
    counted from the chunk's first bit. Chunk 0 begins with `lead` bits."""
    C = c.stream_frames
    first = (s << 40) + chunk * C
    batch = src.generate(first, C, 1)
    sent = np.concatenate([np.concatenate([W, c.codebook.encode(m)]) for m in batch.symbols])
    rx, drift = bsid_core.transmit(ch, sent, seed=c.seed,
                                   frame=STREAM_CHANNEL + (s << 40) + chunk)
    F = len(sent) // C
    rng = np.random.Generator(np.random.PCG64([c.seed, s, chunk, BURSTS]))
    parts, frames, at = [], [], 0
    garbage = c.lead if chunk == 0 else 0
    if garbage:
        parts.append(rng.integers(0, 2, garbage).astype(np.uint8))
        at = garbage
    for j in range(C):
        a, b = j * F + int(drift[j * F]), (j + 1) * F + int(drift[(j + 1) * F])
        parts.append(rx[a:b])
        frames.append((at, at + b - a, np.asarray(batch.symbols[j], dtype=np.int64),
                       rx[a:b], garbage))
        at += b - a
        garbage = 0
        if c.burst_rate > 0 and rng.random() < c.burst_rate:
            lo, hi = c.burst_bits
            garbage = int(rng.integers(lo, hi + 1))
            parts.append(rng.integers(0, 2, garbage).astype(np.uint8))
            at += garbage
    return np.concatenate(parts), frames, garbage


class _Stream:
    """One stream: its decoder, the frames sent and not yet resolved, the
    frames resolved and not yet counted."""

    def __init__(self, c, dec, src, s, W):
        self.c, self.src, self.s, self.W = c, src, s, W
        unsynchronized = c.unsynchronized or c.lead > 0
        self.sd = bsid_core.stream_decoder(dec, lookahead=c.lookahead,
                                           start=None if unsynchronized else 0)
        self.ch = dec.channel
        self.F = len(W) + c.N * c.codebook.n
        self.chunk = 0
        self.base = 0           # received bits so far
        self.carry = 0          # garbage after the last frame sent, before the next
        self.unanchored = 0     # garbage since the last frame out ok
        self.pending = deque()  # sent frames that frames out may still belong to
        self.done = []          # sent frames resolved, not yet counted
        self.out = deque()      # frames out not yet matched

    def feed(self):
        """Sends the next chunk of frames through the channel, decodes what
        the stream then holds and matches the frames out."""
        rx, frames, carry = _sent_stream(self.c, self.src, self.s, self.chunk, self.W, self.ch)
        for j, (a, b, msg, genie, garbage) in enumerate(frames):
            if j == 0:
                garbage += self.carry
            self.pending.append(_Sent(self.base + a, self.base + b, msg, genie, garbage))
        self.carry = carry
        self.out.extend(self.sd.push(rx))
        self.base += len(rx)
        self.chunk += 1
        self._match()

    def _match(self):
        half = self.F // 2
        while self.out:
            f = self.out[0]
            pos = f.start if f.start >= 0 else f.nominal_start
            # sent frames that no frame from here on can belong to
            while self.pending and self.pending[0].start + half < pos:
                self._resolve(self.pending.popleft())
            if not self.pending:
                return  # past every frame sent so far: wait for the next chunk
            p = self.pending[0]
            if abs(pos - p.start) <= half:
                p.near.append(f)
            else:  # before it, over the garbage
                p.extra += 1
                p.extra_ok += f.status == "ok"
            self.out.popleft()


    def _resolve(self, p):
        p.resolve()
        self.unanchored += p.garbage
        if p.match is not None and p.match.status == "ok":
            p.expected = expected_extra(self.unanchored, self.F)
            p.near_half = near_half(self.unanchored, self.F)
            self.unanchored = 0
        self.done.append(p)


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


def expected_extra(garbage, F):
    """Frames out over `garbage` bits: its length in frame lengths, rounded
    (docs/receiving.md, "Loss of sync")."""
    return (garbage + F // 2) // F


def near_half(garbage, F):
    """Whether `garbage` bits lie within F/8 of a whole number of frame
    lengths and a half: the channel's drift may round them either way."""
    return garbage > 0 and abs(2 * (garbage % F) - F) <= F // 4


def run_stream_point(c, progress=None):
    """engine.run_point for framing = "stream"; the same stopping rules, and
    the genie-framing counts and the stream's own (wrong MAP ends, sync
    losses, the frame accounting) beside them."""
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
            rows = min(len(st.done) for st in streams)
            rows = min(rows, -(-(c.max_frames - res.frames) // S))
            if rows == 0:
                continue
            # the sent frames of these rows, in row order, and their genie decodes
            sent = [st.done[k] for k in range(rows) for st in streams]
            for st in streams:
                del st.done[:rows]
            gpost, _ = dec.decode_batch([p.genie for p in sent], statuses=True)
            K = len(sent)
            se, be, status = np.zeros(K, np.int64), np.zeros(K, np.int64), np.zeros(K, np.uint8)
            gse, gbe = np.zeros(K, np.int64), np.zeros(K, np.int64)
            wrong_end, lost, ok = np.zeros(K, bool), np.zeros(K, bool), np.zeros(K, bool)
            extra, extra_ok, dup, missed, bursts, expect, half = (np.zeros(K, np.int64)
                                                                  for _ in range(7))
            for j, p in enumerate(sent):
                f = p.match
                status[j] = STATUS[f.status] if f is not None else STATUS["sync_lost"]
                ok[j] = f is not None and f.status == "ok"
                se[j], be[j] = _errors(f.posteriors if ok[j] else None, p.msg, c.N, m)
                gse[j], gbe[j] = _errors(gpost[j], p.msg, c.N, m)
                wrong_end[j] = f is None or f.end != p.end
                lost[j] = f is None or f.status in ("sync_lost", "sync_ambiguous")
                missed[j] = f is None
                extra[j], extra_ok[j], dup[j] = p.extra, p.extra_ok, p.duplicates
                bursts[j] = p.garbage > 0
                expect[j], half[j] = p.expected, p.near_half
            counts = {"symbol_errors": se, "bit_errors": be, "status": status}
            upto, reason = counting.stop_in_batch(res, counts)
            counting.add(res, counts, upto)
            u = slice(0, upto)
            res.frame_errors_genie += int((gse[u] > 0).sum())
            res.symbol_errors_genie += int(gse[u].sum())
            res.symbol_errors_genie_sq += int((gse[u] ** 2).sum())
            res.bit_errors_genie += int(gbe[u].sum())
            res.wrong_ends += int(wrong_end[u].sum())
            res.sync_lost += int(lost[u].sum())
            res.ok_frames += int(ok[u].sum())
            res.ok_symbol_errors += int(se[u][ok[u]].sum())
            res.ok_symbol_errors_genie += int(gse[u][ok[u]].sum())
            res.bursts += int(bursts[u].sum())
            res.extra_frames += int(extra[u].sum())
            res.extra_frames_expected += int(expect[u].sum())
            res.garbage_near_half += int(half[u].sum())
            res.false_ok += int(extra_ok[u].sum())
            res.duplicates += int(dup[u].sum())
            res.missed += int(missed[u].sum())
            if counting.end_batch(res, reason, t0, progress):
                break
    except KeyboardInterrupt:
        res.seconds = time.perf_counter() - t0
        res.stopped_by = "interrupted"
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return res
