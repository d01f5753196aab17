#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""
Flowgraph benchmark of bsid.map_decoder: random message symbols ->
bsid.codebook_encoder -> bsid.channel -> bsid.map_decoder -> null sink, for a
fixed number of frames; prints one JSON line (frames in and out, frames/s,
message Mbit/s, the decoder's batches and mean batch). Compare frames_per_s
with the raw decoder of the same configuration and threads, for instance
bsid_bench --bench decode -N 500 --codebook builtin:ld3-modvec6 --Pi 0.01
--Pd 0.01 --Ps 0 --backend cpu --precision float --storage global
--threads 2 --batch 64 (docs/benchmarks.md, "The map_decoder block through
the frame batcher").

    /usr/bin/python3 examples/bench_flowgraph.py [--frames 256] [-N 500]
        [--codebook builtin:ld3-modvec6] [--Pi 0.01] [--Pd 0.01] [--Ps 0]
        [--backend cpu] [--precision float] [--storage global]
        [--max-batch 64] [--max-delay-ms 10] [--output posteriors] [--seed 1]

The decoder decodes on all cores (as the block does); the script exits with
an error when the frames out differ from the frames in, or a rate is not a
positive number.
"""

import argparse
import json
import math
import sys
import time

from bsid_sim.log_setup import add_log_level_argument, configure_from_argv  # noqa: E402

configure_from_argv()  # --log-level: GNU Radio's log to stderr, before it starts

import numpy as np
from gnuradio import blocks, gr

from gnuradio import bsid


def main(argv=None):
    paragraphs = [" ".join(p.split()) for p in __doc__.strip().split("\n\n")]
    ap = argparse.ArgumentParser(description=paragraphs[0], epilog=paragraphs[-1])
    ap.add_argument("--frames", type=int, default=256,
                    help="frames sent (default: %(default)s)")
    ap.add_argument("-N", type=int, default=500,
                    help="message symbols per frame (default: %(default)s)")
    ap.add_argument("--codebook", default="builtin:ld3-modvec6",
                    help="codebook spec (default: %(default)s)")
    ap.add_argument("--Pi", type=float, default=0.01,
                    help="insertion probability (default: %(default)s)")
    ap.add_argument("--Pd", type=float, default=0.01,
                    help="deletion probability (default: %(default)s)")
    ap.add_argument("--Ps", type=float, default=0.0,
                    help="substitution probability (default: %(default)s)")
    ap.add_argument("--backend", default="cpu",
                    help="decoder backend: cpu, cuda or auto (default: %(default)s)")
    ap.add_argument("--precision", default="float",
                    help="decoder arithmetic: float or double (default: %(default)s)")
    ap.add_argument("--storage", default="global",
                    help="decoder storage: global, local or auto (default: %(default)s)")
    ap.add_argument("--max-batch", type=int, default=64,
                    help="the decoder's max_batch (default: %(default)s)")
    ap.add_argument("--max-delay-ms", type=float, default=10.0,
                    help="the decoder's max_delay_ms (default: %(default)s)")
    ap.add_argument("--output", default="posteriors",
                    help="the decoder's output: posteriors, llr, hard or extrinsic "
                         "(default: %(default)s)")
    ap.add_argument("--seed", type=int, default=1,
                    help="seed of the messages and of the channel (default: %(default)s)")
    add_log_level_argument(ap)
    args = ap.parse_args(argv)
    if args.frames < 1:
        ap.error("--frames must be at least 1")

    cb = bsid.codebook.from_spec(args.codebook)
    msg = np.random.default_rng(args.seed).integers(0, cb.q, args.N * args.frames)
    tb = gr.top_block()
    src = blocks.vector_source_i(msg.tolist(), False)
    enc = bsid.codebook_encoder(cb, args.N)
    chan = bsid.channel(args.Pi, args.Pd, args.Ps, args.seed)
    dec = bsid.map_decoder(cb, args.N, args.Pi, args.Pd, args.Ps, output=args.output,
                           backend=args.backend, precision=args.precision,
                           storage=args.storage, max_batch=args.max_batch,
                           max_delay_ms=args.max_delay_ms)
    if args.output in ("posteriors", "extrinsic"):
        snk = blocks.null_sink(4 * cb.q)
    else:
        snk = blocks.null_sink(4)
    tb.connect(src, enc, chan, dec, snk)
    t0 = time.perf_counter()
    tb.run()
    seconds = time.perf_counter() - t0

    frames_out = dec.frames()
    rate = frames_out / seconds if seconds > 0 else float("nan")
    result = {
        "bench": "flowgraph",
        "frames_in": args.frames,
        "frames_out": frames_out,
        "erasures": dec.erasures(),
        "frames_lost": chan.frames_lost(),
        "seconds": round(seconds, 4),
        "frames_per_s": round(rate, 3),
        "mbit_per_s": round(rate * args.N * math.log2(cb.q) / 1e6, 6),
        "batches": dec.batches(),
        "mean_batch": round(dec.mean_batch(), 3),
        "N": args.N,
        "codebook": args.codebook,
        "Pi": args.Pi,
        "Pd": args.Pd,
        "Ps": args.Ps,
        "backend": dec.backend(),
        "precision": args.precision,
        "storage": args.storage,
        "max_batch": args.max_batch,
        "max_delay_ms": args.max_delay_ms,
        "output": args.output,
    }
    print(json.dumps(result), flush=True)
    # a benchmark that loses frames, or has no rate, measures nothing
    problems = []
    if frames_out != args.frames:
        problems.append("{} frames out for {} in".format(frames_out, args.frames))
    if not (rate > 0 and math.isfinite(rate)):
        problems.append("frames_per_s = {}".format(rate))
    if not 1 <= dec.mean_batch() <= args.max_batch:
        problems.append("mean batch {} outside [1, {}]".format(dec.mean_batch(),
                                                              args.max_batch))
    if dec.batches() * dec.mean_batch() + 0.5 < frames_out - dec.erasures():
        problems.append("{} batches of mean {} for {} decoded frames".format(
            dec.batches(), dec.mean_batch(), frames_out - dec.erasures()))
    if problems:
        print("bench_flowgraph: " + "; ".join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
