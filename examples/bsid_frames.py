#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Writes received frames in bsid_decode's input format (docs/bsid_decode.md):
random messages, encoded and sent through a BSID channel, one line of 0s and 1s
per frame on stdout (--stream: one line, the frames back to back through one
channel, for bsid_decode --framing stream). --messages FILE also writes each
frame's message (N symbols a line), to count the decoder's errors.

    python3 bsid_frames.py -N 500 --frames 20 > frames.txt
    bsid_decode --codebook builtin:ld3-modvec6 -N 500 --Pi 0.01 --Pd 0.01 --Ps 0 \\
        < frames.txt > posteriors.txt

Needs only bsid_core (either build)."""

import argparse
import sys

import numpy as np

import bsid_core as bsid


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--codebook", default="builtin:ld3-modvec6",
                    help="codebook spec (default builtin:ld3-modvec6)")
    ap.add_argument("-N", type=int, default=500, help="symbols a frame (default 500)")
    ap.add_argument("--Pi", type=float, default=0.01, help="insertion probability (default 0.01)")
    ap.add_argument("--Pd", type=float, default=0.01, help="deletion probability (default 0.01)")
    ap.add_argument("--Ps", type=float, default=0.0, help="substitution probability (default 0)")
    ap.add_argument("--frames", type=int, default=10, help="frames (default 10)")
    ap.add_argument("--seed", type=int, default=1, help="seed of messages and channel (default 1)")
    ap.add_argument("--sync-word", default="", help="a sync word before every frame (0s and 1s)")
    ap.add_argument("--stream", action="store_true",
                    help="one line: the frames back to back through one channel")
    ap.add_argument("--messages", metavar="FILE", help="also write the messages to FILE")
    a = ap.parse_args(argv)
    if a.N < 1 or a.frames < 0:
        ap.error("N must be at least 1 and --frames at least 0")
    try:
        cb = bsid.codebook.from_spec(a.codebook)
        ch = bsid.channel_params(a.Pi, a.Pd, a.Ps)
        sync = np.array([int(c) for c in a.sync_word], dtype=np.uint8)
        if any(c not in "01" for c in a.sync_word):
            raise ValueError("--sync-word holds a character other than 0 and 1")
    except ValueError as e:
        ap.error(str(e))
    rng = np.random.default_rng(a.seed)
    msgs = [rng.integers(0, cb.q, a.N) for _ in range(a.frames)]
    sent = [np.concatenate([sync, cb.encode(m)]) for m in msgs]
    out = sys.stdout
    if a.stream:
        rx, _ = bsid.transmit(ch, np.concatenate(sent) if sent else np.zeros(0, np.uint8),
                              seed=a.seed, frame=0)
        out.write("".join(map(str, rx.tolist())) + "\n")
    else:
        for k, x in enumerate(sent):
            rx, _ = bsid.transmit(ch, x, seed=a.seed, frame=k)
            out.write("".join(map(str, rx.tolist())) + "\n")
    if a.messages:
        with open(a.messages, "w") as f:
            for m in msgs:
                f.write(" ".join(map(str, m.tolist())) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
