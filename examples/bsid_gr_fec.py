#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""
gr-bsid inside a concatenated code with an outer code from gr-fec.

    info bits -> gr-fec convolutional encoder (k = 7, rate 1/2) -> 4-bit symbols
    -> bsid codebook encoder (built-in (8,16) code) -> BSID channel
    -> bsid MAP decoder -> gr-fec Viterbi decoder -> BER

The MAP decoder feeds the Viterbi decoder twice on the same channel output:
with its soft bit LLRs ("llr" output, scaled and clipped to [-1, 1] as gr-fec
expects), and with hard symbol decisions mapped to +-1. The soft outputs give
the outer code far fewer errors to face.

    /usr/bin/python3 examples/bsid_gr_fec.py [--frames 60] [--p 0.01] [--Ps 0.03]
"""

import argparse
import sys

from bsid_sim.log_setup import add_log_level_argument, configure_from_argv  # noqa: E402

configure_from_argv()  # --log-level: GNU Radio's log to stderr, before it starts

import numpy as np
from gnuradio import blocks, fec, gr

try:
    from gnuradio import bsid
except ImportError as e:  # pragma: no cover
    sys.exit("gnuradio.bsid is not installed: %s" % e)

N = 500                  # symbols per inner frame: 2000 coded bits
BITS_PER_SYMBOL = 4      # q = 16
INFO_BITS = N * BITS_PER_SYMBOL // 2   # one rate-1/2 outer frame per inner frame
K, RATE, POLYS = 7, 2, [109, 79]


class symbols_to_soft_bits(gr.interp_block):
    """Hard symbol decisions to +-1 per bit (MSB first; 1 -> +1), the soft
    input gr-fec expects; an erased symbol (-1) gives 0 (no information)."""

    def __init__(self, bits_per_symbol):
        gr.interp_block.__init__(self, name="symbols_to_soft_bits", in_sig=[np.int32],
                                      out_sig=[np.float32], interp=bits_per_symbol)
        self.B = bits_per_symbol
        self.shifts = np.arange(self.B - 1, -1, -1)

    def work(self, input_items, output_items):
        sym = input_items[0]
        n = len(output_items[0]) // self.B
        bits = (sym[:n, None] >> self.shifts) & 1
        soft = np.where(bits == 1, 1.0, -1.0).astype(np.float32)
        soft[sym[:n] < 0] = 0.0
        output_items[0][:n * self.B] = soft.ravel()
        return n * self.B


def run(info, args, soft):
    tb = gr.top_block()
    cb = bsid.codebook.builtin("ld3-modvec6")
    src = blocks.vector_source_b(info.tolist(), False)
    outer_enc = fec.extended_encoder(
        fec.cc_encoder_make(INFO_BITS, K, RATE, POLYS, 0, fec.CC_TRUNCATED, False),
        threading=None, puncpat="11")
    pack = blocks.pack_k_bits_bb(BITS_PER_SYMBOL)          # coded bits -> symbols 0..15
    to_int = [blocks.uchar_to_float(), blocks.float_to_int()]
    inner_enc = bsid.codebook_encoder(cb, N)
    channel = bsid.channel(args.p, args.p, args.Ps, args.seed)
    outer_dec = fec.extended_decoder(
        fec.cc_decoder.make(INFO_BITS, K, RATE, POLYS, 0, -1, fec.CC_TRUNCATED, False),
        threading=None, ann=None, puncpat="11", integration_period=10000)
    snk = blocks.vector_sink_b()
    tb.connect(src, outer_enc, pack, to_int[0], to_int[1], inner_enc, channel)
    if soft:
        inner_dec = bsid.map_decoder(cb, N, args.p, args.p, args.Ps, output="llr",
                                     llr_scale=args.llr_scale, llr_clip=1.0)
        tb.connect(channel, inner_dec, outer_dec, snk)
    else:
        inner_dec = bsid.map_decoder(cb, N, args.p, args.p, args.Ps, output="hard")
        to_soft = symbols_to_soft_bits(BITS_PER_SYMBOL)  # a Python block: keep a reference
        tb.connect(channel, inner_dec, to_soft, outer_dec, snk)
    tb.run()
    out = np.array(snk.data(), dtype=np.uint8)
    n = min(len(out), len(info))
    errors = int(np.count_nonzero(out[:n] != info[:n]))
    return errors, n, inner_dec.erasures()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--frames", type=int, default=60, help="outer (and inner) frames")
    ap.add_argument("--p", type=float, default=0.01, help="Pi = Pd")
    ap.add_argument("--Ps", type=float, default=0.03, help="substitution probability")
    ap.add_argument("--llr-scale", type=float, default=0.1,
                    help="LLR scale before the clip to [-1, 1]")
    ap.add_argument("--seed", type=int, default=1)
    add_log_level_argument(ap)
    args = ap.parse_args(argv)
    if args.frames < 1:
        ap.error("--frames must be at least 1")
    info = np.random.default_rng(args.seed).integers(0, 2, args.frames * INFO_BITS, dtype=np.uint8)
    print(f"{args.frames} frames of {INFO_BITS} info bits; channel Pi = Pd = {args.p}, "
          f"Ps = {args.Ps}; outer code: convolutional k = {K}, rate 1/{RATE} (gr-fec)")
    results = {}
    for name, soft in (("soft LLRs", True), ("hard decisions", False)):
        errors, n, erasures = run(info, args, soft)
        results[name] = errors / max(n, 1)
        print(f"  BER after the outer decoder with {name:>14}: {results[name]:.3e} "
              f"({errors} of {n} bits; {erasures} inner erasures)")
    if results["soft LLRs"] < results["hard decisions"]:
        print("  soft outputs help the outer code")
    elif results["hard decisions"] == 0:
        print("  both error free: raise --p or --Ps to see the difference")
    return 0


if __name__ == "__main__":
    sys.exit(main())
