#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""
gr-bsid concatenated codes: random information symbols encoded by an LDPC
outer code over GF(q), mapped onto a time-varying inner codebook, sent through
the BSID channel, and decoded iteratively (inner MAP decoder and outer belief
propagation passing extrinsic information); prints the inner decoder's symbol
error rate on the first pass, the frame error rate after each pass and the
information bits decoded per second.

    /usr/bin/python3 examples/concatenated.py [--codebook random:5:16:1000:1]
        [--outer ldpc-regular:1000:125:16:3:1] [--Pi 0.009] [--Pd 0.009]
        [--frames 100] [--iterations 10] [--backend auto]

Works with `from gnuradio import bsid` (installed module) or, without GNU
Radio, with the core module alone (`import bsid_core as bsid`).
docs/concatenated.md describes the codes, the decoder and bsid-sim --outer.
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
    ap.add_argument("--codebook", default="random:5:16:1000:1",
                    help="inner codebook spec (default: %(default)s)")
    ap.add_argument("--outer", default="ldpc-regular:1000:125:16:3:1",
                    help="outer code: ldpc:FILE (alist) or ldpc-regular:n:M:q:wc:seed "
                         "(default: %(default)s)")
    ap.add_argument("--Pi", type=float, default=0.009,
                    help="insertion probability (default: %(default)s)")
    ap.add_argument("--Pd", type=float, default=0.009,
                    help="deletion probability (default: %(default)s)")
    ap.add_argument("--Ps", type=float, default=0.0,
                    help="substitution probability (default: %(default)s)")
    ap.add_argument("--frames", type=int, default=100,
                    help="frames to send and decode (default: %(default)s)")
    ap.add_argument("--iterations", type=int, default=10,
                    help="passes of inner MAP then outer BP (default: %(default)s)")
    ap.add_argument("--bp-iterations", type=int, default=50,
                    help="belief-propagation iterations per pass (default: %(default)s)")
    ap.add_argument("--backend", default="auto",
                    help="decoder backend: cpu, cuda or auto (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=1,
                    help="seed of the messages and of the channel (default: %(default)s)")
    add_log_level_argument(ap)
    a = ap.parse_args(argv)

    try:
        cb = bsid.codebook.from_spec(a.codebook)
        code = bsid.ldpc_code.from_spec(a.outer)
        ch = bsid.channel_params(a.Pi, a.Pd, a.Ps)
        N = bsid.symbol_mapping(code.q, code.n, cb.q).n_inner
        inner = bsid.map_decoder_core(cb, ch, N, backend=a.backend)
        dec = bsid.concatenated_decoder_core(inner, code, iterations=a.iterations,
                                        bp_iterations=a.bp_iterations)
    except (ValueError, OSError, RuntimeError) as e:
        print(f"concatenated.py: error: {e}", file=sys.stderr)
        return 2
    sent_bits = N * cb.n
    rate = code.k * math.log2(code.q) / sent_bits
    print(f"inner {cb.spec} (n={cb.n}, q={cb.q}), outer {code.spec} (n={code.n}, "
          f"k={code.k} over GF({code.q})): {sent_bits} bits a frame, rate {rate:.4g}")
    print(f"channel Pi={a.Pi:g} Pd={a.Pd:g} Ps={a.Ps:g}; decoder on {inner.backend}")

    src = bsid.frame_source(cb, ch, 0, a.seed, outer=code)
    batch = src.generate(0, a.frames)

    # the inner decoder alone, for comparison: its symbol decisions on the first pass
    post = inner.decode_batch([batch.rx(k) for k in range(len(batch))])
    inner_errors = sum(int((np.argmax(p, axis=1) != batch.symbols[k]).sum())
                       if p is not None else N for k, p in enumerate(post))

    t = time.perf_counter()
    counts = dec.count_errors(batch)
    seconds = time.perf_counter() - t
    frames = len(batch)
    fer_by_pass = counts["wrong_after"].mean(axis=0)
    print(f"inner decoder alone: SER {inner_errors / (frames * N):.3e}")
    print("FER after each pass: " + " ".join(f"{f:.3g}" for f in fer_by_pass))
    print(f"after the outer code: FER {counts['symbol_errors'].astype(bool).mean():.3e}, "
          f"BER {counts['bit_errors'].sum() / (frames * code.k * math.log2(code.q)):.3e}, "
          f"mean passes {counts['iterations'].mean():.2f}, "
          f"{frames * code.k * math.log2(code.q) / seconds / 1e6:.3g} Mbit/s of "
          f"information decoded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
