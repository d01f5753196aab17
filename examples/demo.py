#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""
gr-bsid demo: encode random messages with a codebook, send the frames through
the BSID channel emulator, compare the measured event rates and drifts with
the channel model, then MAP-decode frames and report the symbol, frame and
bit error rates and the decoder's throughput.

    /usr/bin/python3 examples/demo.py [--codebook SPEC] [-N 500]
        [--frames 2000] [--decode-frames 200] [--Pi 0.01] [--Pd 0.01]
        [--Ps 0.01] [--precision float] [--storage auto] [--seed 1]

Works with `from gnuradio import bsid` (installed module) or, without GNU
Radio, with the core module alone (`import bsid_core as bsid`).
"""

import argparse
import math
import sys
import time

from bsid_sim.log_setup import add_log_level_argument, configure_from_argv  # noqa: E402

configure_from_argv()  # --log-level: GNU Radio's log to stderr, before it starts

import numpy as np

try:
    from gnuradio import bsid
except ImportError:
    import bsid_core as bsid


def main(argv=None):
    paragraphs = [" ".join(p.split()) for p in __doc__.strip().split("\n\n")]
    ap = argparse.ArgumentParser(description=paragraphs[0], epilog=paragraphs[-1])
    ap.add_argument("--codebook", default="builtin:ld3-modvec6",
                    help="codebook spec: builtin:NAME, file:PATH, random:n:q:P:seed or "
                         "sparse:n:q (default: %(default)s)")
    ap.add_argument("-N", type=int, default=500,
                    help="message symbols per frame (default: %(default)s)")
    ap.add_argument("--frames", type=int, default=2000,
                    help="frames sent through the channel emulator (default: %(default)s)")
    ap.add_argument("--Pi", type=float, default=0.01,
                    help="insertion probability (default: %(default)s)")
    ap.add_argument("--Pd", type=float, default=0.01,
                    help="deletion probability (default: %(default)s)")
    ap.add_argument("--Ps", type=float, default=0.01,
                    help="substitution probability (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=1,
                    help="seed of the messages and of the channel (default: %(default)s)")
    ap.add_argument("--decode-frames", type=int, default=200,
                    help="how many of the frames to decode, 0 for none (default: %(default)s)")
    ap.add_argument("--backend", default="auto",
                    help="decoder backend: cpu, cuda or auto (default: %(default)s)")
    ap.add_argument("--precision", default="float",
                    help="decoder arithmetic: float or double (default: %(default)s)")
    ap.add_argument("--storage", default="auto",
                    help="decoder storage: global, local or auto (default: %(default)s)")
    ap.add_argument("--threads", type=int, default=0,
                    help="decoder threads, 0 for all cores (default: %(default)s)")
    add_log_level_argument(ap)
    args = ap.parse_args(argv)

    try:
        cb = bsid.codebook.from_spec(args.codebook)
        ch = bsid.channel_params(args.Pi, args.Pd, args.Ps)
    except (ValueError, OSError) as e:
        ap.error(str(e))
    if args.N < 1 or args.frames < 1 or args.decode_frames < 0:
        ap.error("-N and --frames must be at least 1, --decode-frames at least 0")
    tau = cb.n * args.N
    limits = bsid.decoder_limits(args.N, cb.n, ch.Pi, ch.Pd)
    lo, hi = limits["mtau"]

    print(f"gr-bsid {bsid.__version__} demo")
    print(f"  codebook {cb!r}: N = {args.N} symbols -> tau = {tau} bits per frame")
    print(f"  channel  {ch!r}")
    print(f"  decoder state space: m_tau = [{lo}, {hi}] (M_tau = {hi - lo + 1}), "
          f"m_n = {list(limits['mn'])}")

    rng = np.random.default_rng(args.seed)
    messages = rng.integers(0, cb.q, size=(args.frames, args.N))
    frames = [cb.encode(m) for m in messages]

    ins = dels = subs = 0
    end_drift = np.empty(args.frames, dtype=np.int64)
    rx_bits = 0
    received = []
    t0 = time.perf_counter()
    for k, bits in enumerate(frames):
        em = bsid.channel_emulator(ch, args.seed, k)
        rx = em.process(bits)
        received.append(rx)
        ins += em.insertions
        dels += em.deletions
        subs += em.substitutions
        end_drift[k] = em.drift
        rx_bits += len(rx)
    elapsed = time.perf_counter() - t0

    sent = tau * args.frames
    Pi, Pd, Ps, Pt = ch.Pi, ch.Pd, ch.Ps, ch.Pt

    def row(name, count, rate):
        want = rate * sent
        sd = math.sqrt(want) if want > 0 else 0.0
        z = (count - want) / sd if sd > 0 else 0.0
        print(f"  {name:<14} {count:>10d} {count / sent:>12.6f} {rate:>12.6f}   z = {z:+.2f}")

    print(f"\n{args.frames} frames, {sent} bits sent, {rx_bits} received")
    print(f"  {'event':<14} {'count':>10} {'per bit':>12} {'model':>12}")
    row("insertions", ins, Pi / (1 - Pi))
    row("deletions", dels, Pd / (1 - Pi))
    row("substitutions", subs, Pt * Ps / (1 - Pi))

    mean = tau * (Pi - Pd) / (1 - Pi)
    var = tau * (Pi + Pd * Pt) / (1 - Pi) ** 2
    print(f"\nend drift rho - tau: mean {end_drift.mean():+.3f} (model {mean:+.3f}), "
          f"sd {end_drift.std():.3f} (model {math.sqrt(var):.3f})")
    outside = int(np.count_nonzero((end_drift < lo) | (end_drift > hi)))
    print(f"  frames outside the decoder's limits: {outside} (Pr = 1e-10 by design)")
    print(f"\nemulator throughput: {sent / elapsed / 1e6:.1f} Mbit/s through Python, one frame per "
          f"call (bsid_bench --bench channel measures the C++ emulator alone)")

    if args.decode_frames:
        decode(args, cb, ch, messages, received)
    return 0


def decode(args, cb, ch, messages, received):
    """MAP-decode the first frames; count symbol, frame and bit errors."""
    K = min(args.decode_frames, len(received))
    try:
        dec = bsid.map_decoder_core(cb, ch, args.N, backend=args.backend,
                                    precision=args.precision, storage=args.storage,
                                    threads=args.threads)
    except (ValueError, RuntimeError) as e:
        print(f"\ncannot build the decoder: {e}")
        return
    print(f"\ndecoding {K} frames: {dec!r}")
    t0 = time.perf_counter()
    posts, stats = dec.decode_batch(received[:K], statuses=True)
    elapsed = time.perf_counter() - t0

    bits_per_symbol = int(math.ceil(math.log2(cb.q)))
    symbol_errors = frame_errors = bit_errors = erasures = 0
    for msg, post in zip(messages[:K], posts):
        if post is None:
            erasures += 1
            continue
        decided = bsid.hard_decisions(post)
        wrong = decided != msg
        symbol_errors += int(wrong.sum())
        frame_errors += int(wrong.any())
        diff = np.bitwise_xor(decided[wrong], msg[wrong])
        bit_errors += int(sum(bin(int(d)).count("1") for d in diff))
    decoded = K - erasures
    symbols = max(decoded * args.N, 1)
    print(f"  SER {symbol_errors / symbols:.3e} ({symbol_errors} of {decoded * args.N} symbols)")
    print(f"  FER {frame_errors / max(decoded, 1):.3e} ({frame_errors} of {decoded} frames)")
    print(f"  BER {bit_errors / (symbols * bits_per_symbol):.3e} (symbol index bits, MSB first)")
    reasons = sorted({s for s, _ in stats if s != "ok"})
    print(f"  erasures (refused frames): {erasures}" + (f" ({', '.join(reasons)})" if reasons else ""))
    mbit = K * args.N * math.log2(cb.q) / elapsed / 1e6
    print(f"  decoded {mbit:.3f} Mbit/s of message ({K / elapsed:.1f} frames/s, backend "
          f"{dec.backend}, {dec.precision}, {dec.storage} storage, bsid_bench --bench decode "
          f"for benchmarks)")


if __name__ == "__main__":
    sys.exit(main())
