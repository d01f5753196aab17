#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Soak test: many frames of a small code through codebook encoder -> BSID
channel -> MAP decoder (hard decisions, CPU backend) in one GNU Radio
flowgraph, with the resident memory of the process sampled as it runs.

Checks (docs/testing.md, "Soak"); any failure gives exit status 1:

* accounting: every frame sent comes out, as a decoded frame or as a flagged
  erasure (a `bsid_erasure` tag), in order, with one length tag per frame;
  frames the channel lost at the very end of the stream (no next frame to
  report them) are taken from the channel's counter. The encoder's, channel's
  and decoder's counters agree with what the sink saw.
* content: every output frame sits at its place. Every --check-every-th frame
  is decoded again outside the flowgraph (bsid.transmit with the channel's seed
  and frame index, then map_decoder_core) and must give the same hard
  decisions; all frames are compared with the symbols sent and the frame error
  rate must stay below --max-fer (a misaligned or mixed-up stream gives a
  frame error rate near 1).
* memory: VmRSS (/proc/self/status) is sampled --samples times over the run.
  After the warm-up (the first --warmup fraction of the frames) it must stay
  flat: no sample more than --rss-tol-mib above the sample at the end of the
  warm-up, and the least-squares slope of the samples after the warm-up,
  projected over the whole run, below --rss-tol-mib as well.
"""

import argparse
import os
import sys
import time

import numpy as np
import pmt
from gnuradio import blocks, gr

from gnuradio import bsid


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


class frame_checker(gr.sync_block):
    """The sink: hard decisions in (int32), frames counted and compared with
    the periodic message that was sent; samples the resident memory every
    `sample_every` frames. Keeps counters only, so its memory is constant."""

    def __init__(self, msg, N, frames, sample_every, check_every):
        gr.sync_block.__init__(self, name="frame_checker", in_sig=[np.int32], out_sig=None)
        self.msg = np.asarray(msg, dtype=np.int32).ravel()   # period * N symbols
        self.N = N
        self.frames_expected = frames
        self.sample_every = sample_every
        self.check_every = check_every
        self.items = 0
        self.symbol_errors = 0
        self.error_frames = 0
        self.last_error_frame = -1
        self.erasures = {}           # reason -> count
        self.erased_frames = set()   # only while a frame is being read
        self.length_tag_errors = 0
        self.bad_erasure_frames = 0
        self.sampled = {}            # frame index -> hard decisions (every check_every-th)
        self.rss = []                # (frames out, VmRSS in KiB, seconds)
        self.t0 = None
        self.next_sample = 0

    def work(self, input_items, output_items):
        x = input_items[0]
        n = len(x)
        if self.t0 is None:
            self.t0 = time.monotonic()
        start = self.items
        N = self.N
        for t in self.get_tags_in_window(0, 0, n):
            key = pmt.symbol_to_string(t.key)
            if key == "packet_len":
                if t.offset % N or pmt.to_long(t.value) != N:
                    self.length_tag_errors += 1
            elif key == "bsid_erasure":
                if t.offset % N:
                    self.length_tag_errors += 1
                why = pmt.symbol_to_string(t.value)
                self.erasures[why] = self.erasures.get(why, 0) + 1
                self.erased_frames.add(t.offset // N)
        idx = np.arange(start, start + n)
        ref = self.msg[idx % len(self.msg)]
        frame = idx // N
        erased = x == -1
        if self.erased_frames:
            in_erased = np.isin(frame, list(self.erased_frames))
            if (erased != in_erased).any():
                self.bad_erasure_frames += 1
        elif erased.any():
            self.bad_erasure_frames += 1
        wrong = (x != ref) & ~erased
        if wrong.any():
            self.symbol_errors += int(wrong.sum())
            for k in np.unique(frame[wrong]):
                if k != self.last_error_frame:
                    self.error_frames += 1
                    self.last_error_frame = int(k)
        # keep the sampled frames for the reference check
        first, last = start // N, (start + n - 1) // N
        c = self.check_every
        for k in range((first + c - 1) // c * c, last + 1, c):
            lo, hi = max(k * N, start), min((k + 1) * N, start + n)
            if lo < hi:
                self.sampled.setdefault(k, []).append(x[lo - start:hi - start].copy())
        self.items += n
        done = self.items // N
        self.erased_frames = {k for k in self.erased_frames if k >= done}
        while done >= self.next_sample:
            self.rss.append((done, rss_kib(), time.monotonic() - self.t0))
            self.next_sample += self.sample_every
        return n


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--frames", type=int, default=10**6, help="frames to send (default 10^6)")
    p.add_argument("--codebook", default="builtin:ld3-modvec6")
    p.add_argument("-N", type=int, default=10, help="symbols per frame (default 10)")
    p.add_argument("--Pi", type=float, default=0.002)
    p.add_argument("--Pd", type=float, default=0.002)
    p.add_argument("--Ps", type=float, default=0.002)
    p.add_argument("--Pr", type=float, default=1e-3,
                   help="the decoder's drift exclusion probability (default 1e-3: narrow "
                        "limits, so that some frames are refused and erasures are exercised)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--period", type=int, default=1009,
                   help="frames of random message, sent over and over (default 1009)")
    p.add_argument("--samples", type=int, default=100, help="RSS samples over the run")
    p.add_argument("--warmup", type=float, default=0.1,
                   help="fraction of the frames counted as warm-up (default 0.1)")
    p.add_argument("--rss-tol-mib", type=float, default=4.0,
                   help="allowed RSS growth after the warm-up, in MiB (default 4)")
    p.add_argument("--check-every", type=int, default=0,
                   help="decode every k-th frame again outside the flowgraph "
                        "(default: about 1000 frames in all)")
    p.add_argument("--max-fer", type=float, default=0.05,
                   help="largest frame error rate accepted (default 0.05)")
    p.add_argument("--max-batch", type=int, default=64)
    a = p.parse_args(argv)
    if a.frames < 10 or not 0 < a.warmup < 1:
        p.error("--frames must be at least 10 and --warmup in (0, 1)")

    cb = bsid.codebook.from_spec(a.codebook)
    N = a.N
    rng = np.random.default_rng(a.seed)
    period = min(a.period, a.frames)
    msg = rng.integers(0, cb.q, (period, N)).astype(np.int32)
    sample_every = max(1, a.frames // a.samples)
    check_every = a.check_every or max(1, a.frames // 1000)

    tb = gr.top_block()
    src = blocks.vector_source_i(msg.ravel().tolist(), True)
    head = blocks.head(gr.sizeof_int, a.frames * N)
    enc = bsid.codebook_encoder(cb, N)
    chan = bsid.channel(a.Pi, a.Pd, a.Ps, a.seed)
    dec = bsid.map_decoder(cb, N, a.Pi, a.Pd, a.Ps, output="hard", backend="cpu",
                           Pr=a.Pr, max_batch=a.max_batch)
    snk = frame_checker(msg, N, a.frames, sample_every, check_every)
    tb.connect(src, head, enc, chan, dec, snk)

    rss_start = rss_kib()
    t0 = time.monotonic()
    tb.run()
    seconds = time.monotonic() - t0
    rss_end = rss_kib()

    frames_out = snk.items // N
    erasures = sum(snk.erasures.values())
    lost_reported = snk.erasures.get("frame_lost", 0)
    lost_at_end = chan.frames_lost() - lost_reported
    failures = []

    # ---- accounting
    if snk.items % N:
        failures.append(f"the last output frame is incomplete ({snk.items % N} of {N} items)")
    if enc.frames() != a.frames:
        failures.append(f"the encoder started {enc.frames()} frames, not {a.frames}")
    if chan.frames() != a.frames:
        failures.append(f"the channel passed {chan.frames()} frames, not {a.frames}")
    if lost_at_end < 0 or frames_out + lost_at_end != a.frames:
        failures.append(f"frames in {a.frames} != frames out {frames_out} "
                        f"+ lost at the end {lost_at_end}")
    if (dec.frames(), dec.erasures()) != (frames_out, erasures):
        failures.append(f"decoder counters (frames {dec.frames()}, erasures {dec.erasures()}) "
                        f"!= sink (frames {frames_out}, erasures {erasures})")
    if dec.bits_discarded():
        failures.append(f"the decoder discarded {dec.bits_discarded()} bits")
    if snk.length_tag_errors:
        failures.append(f"{snk.length_tag_errors} length or erasure tags off a frame boundary")
    if snk.bad_erasure_frames:
        failures.append(f"{snk.bad_erasure_frames} chunks where -1 symbols and erasure tags disagree")

    # ---- content: sampled frames against the core decoder, all against the message
    core = bsid.map_decoder_core(cb, bsid.channel_params(a.Pi, a.Pd, a.Ps), N, backend="cpu",
                                 precision="float", Pr=a.Pr)
    checked = mismatched = 0
    for k, parts in sorted(snk.sampled.items()):
        got = np.concatenate(parts)
        if len(got) != N:
            continue
        rx, _ = bsid.transmit(core.channel, cb.encode(msg[k % period]), a.seed, frame=k)
        try:
            want = bsid.hard_decisions(core.decode(rx))
        except ValueError:           # refused by the decoder: an erasure
            want = np.full(N, -1)
        checked += 1
        if not np.array_equal(got, want):
            mismatched += 1
    if mismatched:
        failures.append(f"{mismatched} of {checked} sampled frames differ from the core decoder")
    decoded = frames_out - erasures
    fer = snk.error_frames / max(1, decoded)
    if fer > a.max_fer:
        failures.append(f"frame error rate {fer:.4f} above {a.max_fer} (misaligned frames?)")

    # ---- memory
    samples = snk.rss
    warm = a.frames * a.warmup
    after = [(f, r) for f, r, _ in samples if f >= warm]
    tol_kib = a.rss_tol_mib * 1024
    growth_kib = slope_mib = None
    if len(after) < 3:
        failures.append(f"only {len(after)} RSS samples after the warm-up")
    else:
        base = after[0][1]
        growth_kib = max(r for _, r in after) - base
        f_arr = np.array([f for f, _ in after], dtype=float)
        r_arr = np.array([r for _, r in after], dtype=float)
        slope = np.polyfit(f_arr, r_arr, 1)[0]          # KiB per frame
        slope_mib = slope * a.frames / 1024              # projected over the run
        if growth_kib > tol_kib:
            failures.append(f"RSS grew {growth_kib / 1024:.1f} MiB after the warm-up "
                            f"(limit {a.rss_tol_mib} MiB)")
        if slope_mib > a.rss_tol_mib:
            failures.append(f"RSS slope after the warm-up projects to {slope_mib:.1f} MiB "
                            f"over {a.frames} frames (limit {a.rss_tol_mib} MiB)")

    # ---- summary
    print(f"soak: {a.codebook} N={N} (tau={N * cb.n} bits), Pi={a.Pi} Pd={a.Pd} Ps={a.Ps}, Pr={a.Pr}, "
          f"seed {a.seed}, backend {dec.backend()}, OMP_NUM_THREADS="
          f"{os.environ.get('OMP_NUM_THREADS', 'unset')}")
    print(f"frames in {a.frames}, out {frames_out}, lost at the end {lost_at_end}; "
          f"erasures {erasures} {dict(sorted(snk.erasures.items()))}; "
          f"channel lost {chan.frames_lost()}")
    print(f"decoded {decoded}: frame errors {snk.error_frames} (FER {fer:.2e}), "
          f"symbol errors {snk.symbol_errors}; sampled frames equal to the core decoder "
          f"{checked - mismatched}/{checked}")
    print(f"time {seconds:.1f} s, {a.frames / seconds:.0f} frames/s, "
          f"{a.frames * N * cb.n / seconds / 1e6:.3f} Mbit/s sent")
    print(f"RSS (MiB): start {rss_start / 1024:.1f}, end {rss_end / 1024:.1f}; "
          f"samples every {sample_every} frames:")
    shown = samples if len(samples) <= 12 else \
        [samples[i] for i in np.linspace(0, len(samples) - 1, 11).round().astype(int)]
    print("  " + ", ".join(f"{f}:{r / 1024:.1f}" for f, r, _ in shown))
    if growth_kib is not None:
        print(f"after the warm-up ({a.warmup:.0%} of the frames): base {after[0][1] / 1024:.1f} "
              f"MiB, max growth {growth_kib / 1024:.2f} MiB, slope projected over the run "
              f"{slope_mib:+.2f} MiB (limit {a.rss_tol_mib} MiB)")
    if failures:
        for f in failures:
            print("FAIL:", f)
        return 1
    print("soak: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
