#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""One simulation point: frames made in C++ (bsid_core.frame_source) while the
previous batch is decoded and counted (map_decoder_core.count_errors), until
a stopping rule holds."""

import math
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import bsid_core

from . import counting, stats

__all__ = ["PointConfig", "PointResult", "run_point", "bits_per_symbol", "resolved_threads"]

# A batch aims at this many seconds: short enough for live progress and a
# close --max-time, long enough that the per-batch cost vanishes.
BATCH_SECONDS = 0.5
# The smallest batch of a concatenated scheme on a GPU (frames).
GPU_OUTER_BATCH = 512


def bits_per_symbol(q):
    """ceil(log2 q): the bits of a symbol in the symbol-to-bit map."""
    return max(1, (int(q) - 1).bit_length())


def resolved_threads(threads):
    """The thread count that 0 ('all cores') stands for, as OpenMP resolves it."""
    if threads > 0:
        return threads
    env = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def sync_length(w):
    """The letters of a sync word as text: "0110" (one a character) or, over more
    letters, comma-separated integers."""
    return 0 if not w else w.count(",") + 1 if "," in w else len(w)


@dataclass
class PointConfig:
    """Everything that defines one point of a sweep."""
    codebook: object                 # bsid_core.codebook
    N: int
    Pi: float = 0.0
    Pd: float = 0.0
    Ps: float = 0.0
    sweep: str = "none"              # p, Pi, Pd, Ps or none
    backend: str = "auto"
    precision: str = "float"
    storage: str = "auto"
    Pr: float = 1e-10
    threads: int = 0
    batch: int = 0                   # largest batch; 0: automatic
    seed: int = 1
    confidence: float = 0.95
    rel_error: float = 0.1           # 0: off
    max_errors: int = 0              # frame errors; 0: no limit
    max_frames: int = 100000
    max_time: float = 0.0            # seconds; 0: no limit
    dump_dir: str = ""
    dump_max: int = 1000
    label: str = ""
    point: int = 0                   # index in the sweep (for dump names)
    sync_word: str = ""              # W before every frame's codewords ("" for none)
    framing: str = "genie"           # genie: each frame alone; stream: back to back (stream.py)
    lookahead: object = None         # stream framing: the stream decoder's K (None: auto)
    streams: int = 4                 # stream framing: independent streams side by side
    stream_frames: int = 8           # stream framing: frames per chunk of a stream
    unsynchronized: bool = False     # stream framing: the decoder acquires the first frame
    lead: int = 0                    # stream framing: random bits before the first frame
    burst_rate: float = 0.0          # stream framing: P(a burst of random bits after a frame)
    burst_bits: tuple = (32, 32)     # stream framing: a burst's length, uniform in [lo, hi]
    outer: object = None             # bsid_core.ldpc_code: a concatenated scheme (N is its inner length)
    iterations: int = 10             # outer: passes of inner MAP then outer BP
    bp_iterations: int = 50          # outer: belief-propagation iterations per pass
    reads: int = 1                   # each frame through this many channel realizations
    read_method: str = ""            # joint | combine; "": joint up to 3 reads, else combine

    @property
    def spec(self):
        return self.codebook.spec or "(lists)"

    @property
    def symbols_per_frame(self):
        """The symbols counted per frame: the outer code's k information symbols,
        or the N message symbols."""
        return self.outer.k if self.outer is not None else self.N

    @property
    def rate(self):
        """Information bits per transmitted bit (the sync word included)."""
        o = self.outer
        info = (o.k * math.log2(o.q) if o is not None
                else self.N * math.log2(self.codebook.q))
        return info / (self.N * self.codebook.n + sync_length(self.sync_word))

    @property
    def bits_per_symbol(self):
        return bits_per_symbol(self.outer.q if self.outer is not None else self.codebook.q)

    @property
    def value(self):
        """The swept value (Pi for 'p' and 'none')."""
        return {"Pd": self.Pd, "Ps": self.Ps, "reads": self.reads}.get(self.sweep, self.Pi)

    @property
    def method(self):
        """How the reads are decoded: read_method, or joint up to 3 reads and
        combine beyond ("none" for one read)."""
        if self.reads == 1:
            return "none"
        return self.read_method or ("joint" if self.reads <= 3 else "combine")


@dataclass
class PointResult:
    """Counts and intervals of one point; row() gives its CSV/JSON row."""
    config: PointConfig
    backend: str = ""
    storage: str = ""
    threads: int = 1
    mtau: tuple = (0, 0)
    mn: tuple = (0, 0)
    frames: int = 0
    frame_errors: int = 0
    symbol_errors: int = 0
    symbol_errors_sq: int = 0        # sum over frames of symbol_errors^2
    bit_errors: int = 0
    bit_errors_sq: int = 0
    erasures_drift: int = 0
    erasures_other: int = 0
    seconds: float = 0.0
    stopped_by: str = ""
    dumped: int = 0
    batches: int = 0
    dump_files: list = field(default_factory=list)
    # stream framing: the same frames decoded with genie framing, and the stream's own
    frame_errors_genie: int = 0
    symbol_errors_genie: int = 0
    symbol_errors_genie_sq: int = 0
    bit_errors_genie: int = 0
    lookahead: int = 0               # stream framing: K as resolved
    wrong_ends: int = 0              # MAP end not the frame's true end (erasures included)
    sync_lost: int = 0
    # stream framing: the frames marked ok and their errors, and the frame
    # accounting (stream.py): bursts, frames out over garbage (how many the
    # garbage calls for, and the runs of it near half a frame length, which
    # the drift may round either way), those marked ok, duplicates, missed frames
    ok_frames: int = 0
    ok_symbol_errors: int = 0
    ok_symbol_errors_genie: int = 0
    bursts: int = 0
    extra_frames: int = 0
    extra_frames_expected: int = 0
    garbage_near_half: int = 0
    false_ok: int = 0
    duplicates: int = 0
    missed: int = 0
    # outer code: frame errors after each pass, passes and BP iterations summed,
    # frames whose decisions formed another codeword
    frame_errors_by_pass: list = field(default_factory=list)
    passes: int = 0
    bp_iterations: int = 0
    undetected: int = 0

    @property
    def m(self):
        return self.config.bits_per_symbol

    def fer(self):
        F = self.frames
        lo, hi = stats.wilson_interval(self.frame_errors, F, self.config.confidence)
        return self.frame_errors / F, lo, hi

    def ser(self):
        return stats.interval_from_sums(self.frames, self.symbol_errors, self.symbol_errors_sq,
                                        self.config.symbols_per_frame, self.config.confidence)

    def ber(self):
        return stats.interval_from_sums(self.frames, self.bit_errors, self.bit_errors_sq,
                                        self.config.symbols_per_frame * self.m,
                                        self.config.confidence)

    def fer_by_pass(self):
        """The FER after each pass of the iterative decoder (outer code only)."""
        F = self.frames
        return [e / F if F else 0.0 for e in self.frame_errors_by_pass]

    def genie(self):
        """FER and SER of the same frames with genie framing: this point's own
        for genie framing, the side-by-side decode for stream framing."""
        if self.config.framing != "stream":
            return self.fer(), self.ser()
        F = self.frames
        lo, hi = stats.wilson_interval(self.frame_errors_genie, F, self.config.confidence)
        fer = (self.frame_errors_genie / F if F else 0.0, lo, hi)
        ser = stats.interval_from_sums(F, self.symbol_errors_genie,
                                       self.symbol_errors_genie_sq, self.config.N,
                                       self.config.confidence)
        return fer, ser

    def frames_per_s(self):
        return self.frames / self.seconds if self.seconds > 0 else 0.0

    def mbit_per_s(self):
        c = self.config
        q = c.outer.q if c.outer is not None else c.codebook.q
        return self.frames_per_s() * c.symbols_per_frame * math.log2(q) / 1e6

    def row(self):
        c = self.config
        cb = c.codebook
        fer, ser, ber = self.fer(), self.ser(), self.ber()
        stream = c.framing == "stream"
        gfer, gser = self.genie()
        return {
            "label": c.label, "codebook": c.spec, "n": cb.n, "q": cb.q, "P": cb.P, "N": c.N,
            "sweep": c.sweep, "Pi": c.Pi, "Pd": c.Pd, "Ps": c.Ps, "Pr": c.Pr, "seed": c.seed,
            "backend": self.backend, "precision": c.precision, "storage": self.storage,
            "threads": self.threads,
            "mtau_lo": self.mtau[0], "mtau_hi": self.mtau[1],
            "mn_lo": self.mn[0], "mn_hi": self.mn[1],
            "frames": self.frames, "frame_errors": self.frame_errors,
            "symbols": self.frames * c.symbols_per_frame, "symbol_errors": self.symbol_errors,
            "bits": self.frames * c.symbols_per_frame * self.m, "bit_errors": self.bit_errors,
            "erasures_drift": self.erasures_drift, "erasures_other": self.erasures_other,
            "fer": fer[0], "fer_lo": fer[1], "fer_hi": fer[2],
            "ser": ser[0], "ser_lo": ser[1], "ser_hi": ser[2],
            "ber": ber[0], "ber_lo": ber[1], "ber_hi": ber[2],
            "confidence": c.confidence, "rel_error": c.rel_error, "max_errors": c.max_errors,
            "max_frames": c.max_frames, "max_time": c.max_time, "stopped_by": self.stopped_by,
            "seconds": round(self.seconds, 6), "frames_per_s": round(self.frames_per_s(), 3),
            "mbit_per_s": round(self.mbit_per_s(), 6), "version": bsid_core.__version__,
            "sync_word": c.sync_word,
            "framing": c.framing,
            "lookahead": self.lookahead if stream else 0,
            "streams": c.streams if stream else 0,
            "fer_genie": gfer[0], "ser_genie": gser[0],
            "frame_errors_genie": self.frame_errors_genie if stream else self.frame_errors,
            "symbol_errors_genie": self.symbol_errors_genie if stream else self.symbol_errors,
            "wrong_ends": self.wrong_ends, "sync_lost": self.sync_lost,
            "wrong_end_rate": self.wrong_ends / self.frames if self.frames else 0.0,
            "sync_lost_rate": self.sync_lost / self.frames if self.frames else 0.0,
            "lead": c.lead if stream else 0,
            "burst_rate": c.burst_rate if stream else 0.0,
            "burst_bits": "%d:%d" % tuple(c.burst_bits) if stream and c.burst_rate else "none",
            "ok_frames": self.ok_frames,
            "ok_symbol_errors": self.ok_symbol_errors,
            "ok_symbol_errors_genie": self.ok_symbol_errors_genie,
            "bursts": self.bursts, "extra_frames": self.extra_frames,
            "extra_frames_expected": self.extra_frames_expected,
            "garbage_near_half": self.garbage_near_half,
            "false_ok": self.false_ok, "duplicates": self.duplicates, "missed": self.missed,
            **self._outer_columns(),
            "alphabet": c.codebook.alphabet,
            "reads": c.reads, "read_method": c.method,
        }

    def _outer_columns(self):
        """The concatenated scheme's columns (empty values without an outer code)."""
        c = self.config
        o = c.outer
        F = self.frames
        return {
            "outer": o.spec if o is not None else "none",
            "outer_n": o.n if o is not None else 0,
            "outer_k": o.k if o is not None else 0,
            "outer_q": o.q if o is not None else 0,
            "rate": c.rate,
            "iterations": c.iterations if o is not None else 0,
            "bp_iterations": c.bp_iterations if o is not None else 0,
            "mean_iterations": self.passes / F if o is not None and F else 0.0,
            "mean_bp_iterations": self.bp_iterations / F if o is not None and F else 0.0,
            "undetected": self.undetected,
            # without an outer code, the decoder's one pass
            "fer_by_iteration": self.fer_by_pass() if o is not None else [self.fer()[0]],
        }


def channel_of(c):
    """The point's channel, over its codebook's alphabet (2: bits)."""
    return bsid_core.channel_params(c.Pi, c.Pd, c.Ps, alphabet=c.codebook.alphabet)


def make_decoder(c):
    ch = channel_of(c)
    return bsid_core.map_decoder_core(c.codebook, ch, c.N, backend=c.backend,
                                      precision=c.precision, storage=c.storage, Pr=c.Pr,
                                      threads=c.threads, sync_word=c.sync_word)


def run_point(c, progress=None):
    """Simulates one point until a stopping rule holds; returns a PointResult.

    progress, if given, is called as progress(result, elapsed_s, eta_s) after
    every batch. A KeyboardInterrupt ends the point early: the result so far
    is returned with stopped_by = "interrupted".
    """
    from . import dump  # noqa: avoid a cycle at import time

    if c.framing == "stream":
        from .stream import run_stream_point
        return run_stream_point(c, progress)
    dec = make_decoder(c)
    if c.outer is not None:
        counter = bsid_core.concatenated_decoder_core(dec, c.outer, iterations=c.iterations,
                                                 bp_iterations=c.bp_iterations,
                                                 threads=c.threads)
    else:
        counter = dec
    src = bsid_core.frame_source(c.codebook, dec.channel, c.N, c.seed, sync_word=c.sync_word,
                                 outer=c.outer, reads=c.reads)
    if c.reads > 1:
        # each frame from all its reads (with an outer code: the reads decoder
        # as the inner decoder of every pass)
        count_errors = lambda batch, threads: counter.count_errors(  # noqa: E731
            batch, threads, read_method=c.method)
    else:
        count_errors = counter.count_errors
    res = PointResult(config=c, backend=dec.backend, storage=dec.storage,
                      threads=resolved_threads(c.threads),
                      mtau=tuple(dec.limits["mtau"]), mn=tuple(dec.limits["mn"]))
    T = res.threads
    gpu = dec.backend == "cuda"
    max_batch = c.batch if c.batch > 0 else (1024 if gpu else 4096)
    size = min(max_batch, 256 if gpu else 2 * T)
    spare = [bsid_core.frame_batch(), bsid_core.frame_batch()]
    next_first = 0

    def plan(first, size):
        return max(0, min(size, c.max_frames - first))

    pool = ThreadPoolExecutor(max_workers=1)
    t0 = time.perf_counter()
    try:
        count = plan(next_first, size)
        pending = pool.submit(src.generate, next_first, count, c.threads, spare[0])
        next_first += count
        turn = 0
        while True:
            batch = pending.result()
            # the next batch is made while this one is decoded
            elapsed = time.perf_counter() - t0
            per_frame = elapsed / res.frames if res.frames else None
            if per_frame:
                target = BATCH_SECONDS / per_frame
                if c.max_time > 0:
                    target = min(target, max(1.0, (c.max_time - elapsed) / per_frame))
                size = int(min(max_batch, max(1, min(target, 8 * len(batch)))))
                if gpu and c.outer is not None:
                    # the iterative decoder's passes keep a GPU busy only in large
                    # batches (scheme A of docs/concatenated.md: 111 frames/s in
                    # batches of about 60, 383 in batches of 1024)
                    size = max(size, min(max_batch, GPU_OUTER_BATCH))
                if not gpu and size > T:
                    size -= size % T  # whole rounds of the decoder's threads
            turn ^= 1
            count = plan(next_first, size)
            pending = pool.submit(src.generate, next_first, count, c.threads, spare[turn]) \
                if count > 0 else None
            next_first += count

            counts = count_errors(batch, c.threads)
            upto, reason = counting.stop_in_batch(res, counts)
            if c.dump_dir and res.dumped < c.dump_max:
                for j in (counts["symbol_errors"][:upto] > 0).nonzero()[0]:
                    if res.dumped >= c.dump_max:
                        break
                    res.dump_files.append(dump.write_failure(c, res, src, batch.first + int(j),
                                                             counts, int(j)))
                    res.dumped += 1
            counting.add(res, counts, upto)
            if not reason and pending is None:
                reason = "max-frames"  # (not reached: a full batch ends at max_frames)
            if counting.end_batch(res, reason, t0, progress):
                break
    except KeyboardInterrupt:
        res.seconds = time.perf_counter() - t0
        res.stopped_by = "interrupted"
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return res
