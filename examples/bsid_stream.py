#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Stream decoding in a flowgraph (docs/receiving.md): frames with a sync word,
sent back to back through the BSID channel, arrive as one plain bitstream;
GNU Radio's correlate_access_code_tag_bb tags each sync word it finds, and the
MAP decoder in stream framing acquires at the first tag and follows the drift
from frame to frame. A burst of random bits in the middle of the stream shows
the loss of sync and the re-acquisition. Prints the SER, the erasures and the
drift the decoder tracked (bsid_drift tags)."""

import argparse

from bsid_sim.log_setup import add_log_level_argument, configure_from_argv  # noqa: E402

configure_from_argv()  # --log-level: GNU Radio's log to stderr, before it starts

import numpy as np
import pmt
from gnuradio import blocks, digital, gr

from gnuradio import bsid

SYNC = "0110100111010010"


def run(frames, N, Pi, Pd, Ps, burst, seed):
    cb = bsid.codebook.from_spec("builtin:ld3-modvec6")
    rng = np.random.default_rng(seed)
    msgs = rng.integers(0, cb.q, (frames, N))
    F = len(SYNC) + N * cb.n

    # the transmitter: frames with a sync word, one continuous channel
    tb = gr.top_block()
    src = blocks.vector_source_i(msgs.ravel().tolist(), False)
    enc = bsid.codebook_encoder(cb, N, "packet_len", SYNC)
    chan = bsid.channel(Pi, Pd, Ps, seed, "packet_len", False)
    sent = blocks.vector_sink_b()
    tb.connect(src, enc, chan, sent)
    tb.run()
    rx = np.array(sent.data(), dtype=np.uint8)
    # a burst of `burst` frame lengths of random bits before the middle frame
    # (where it begins: the channel's length tag on its first bit)
    starts = sorted(t.offset for t in sent.tags()
                    if pmt.symbol_to_string(t.key) == "packet_len")
    cut = starts[len(starts) // 2]
    rx = np.concatenate([rx[:cut], rng.integers(0, 2, burst * F).astype(np.uint8),
                         rx[cut:]])

    # the receiver: a plain bitstream, start tags from GNU Radio's correlator
    rb = gr.top_block()
    bits = blocks.vector_source_b(rx.tolist(), False)
    cor = digital.correlate_access_code_tag_bb(SYNC, 1, "bsid_start")
    dec = bsid.map_decoder(cb, N, Pi, Pd, Ps, output="hard", sync_word=SYNC,
                           framing="stream", synchronized_at_start=False)
    out = blocks.vector_sink_i()
    rb.connect(bits, cor, dec, out)
    rb.run()

    got = np.array(out.data(), dtype=np.int64).reshape(-1, N)
    erased = np.all(got == -1, axis=1)
    # one frame out per frame length in: the frames sent, with the burst's
    # erasures before frame m; an erasure counts as N symbol errors
    m = len(starts) // 2
    ours = np.concatenate([got[:m], got[m + burst:frames + burst]])
    n = min(len(ours), frames)
    ser = float(np.mean(ours[:n] != msgs[:n])) if n else float("nan")
    drift = []
    for t in out.tags():
        if pmt.symbol_to_string(t.key) == "bsid_drift":
            drift.append(pmt.to_long(pmt.dict_ref(t.value, pmt.intern("start"), pmt.PMT_NIL)))
    print("frames sent %d, frames out %d (%d erasures, the burst was %d frame lengths), "
          "SER %.3e" % (frames, len(got), int(erased.sum()), burst, ser))
    if drift:
        print("start drift from the last acquisition: min %d, max %d bits" %
              (min(drift), max(drift)))
    return len(got), int(erased.sum()), ser


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--frames", type=int, default=40, help="frames sent (default 40)")
    p.add_argument("-N", type=int, default=100, help="symbols per frame (default 100)")
    p.add_argument("--Pi", type=float, default=0.01, help="insertion probability (default 0.01)")
    p.add_argument("--Pd", type=float, default=0.01, help="deletion probability (default 0.01)")
    p.add_argument("--Ps", type=float, default=0.0, help="substitution probability (default 0)")
    p.add_argument("--burst", type=int, default=2,
                   help="frame lengths of random bits inserted half way (default 2)")
    p.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    add_log_level_argument(p)
    a = p.parse_args()
    run(a.frames, a.N, a.Pi, a.Pd, a.Ps, a.burst, a.seed)


if __name__ == "__main__":
    main()
