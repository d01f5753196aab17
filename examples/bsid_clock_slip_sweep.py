#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Measures the clock-slip flowgraph (bsid_clock_slip.grc) headless: the MAP
decoder's SER with soft input, and the same link's SER without the inner
decoder, against the clock offset and the noise; then the decoder's SER for
several choices of Pi = Pd at one offset. Prints CSV rows and, with --plot,
draws docs/clock_slip.png (docs/clock_slip.md)."""

import argparse
import gc
import os
import sys
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp())  # Qt wants its own
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bsid_sim.log_setup import add_log_level_argument, configure_from_argv  # noqa: E402

configure_from_argv()  # --log-level: GNU Radio's log to stderr, before it starts

import numpy as np  # noqa: E402
from PyQt5 import Qt  # noqa: E402

import bsid_clock_slip  # noqa: E402


def run(offset, noise, seed, frames, p=None):
    tb = bsid_clock_slip.bsid_clock_slip(frames=frames, offset=offset, noise=noise, seed=seed,
                                         symbol_rate=1e6)
    if p is not None:
        tb.decoder.set_channel(p, p, tb.get_ps_floor())
    tb.start()
    tb.wait()
    result = (float(np.mean(tb.ser.frame_sers)), float(np.mean(tb.naive.frame_sers)),
              tb.decoder.nitems_read(0) - tb.encoder.nitems_written(0), tb.decoder.erasures())
    # closed as the window is, and destroyed while the QApplication lives (GNU
    # Radio 3.10's plot sinks close their widget when destroyed: see the .grc)
    tb.close()
    del tb
    gc.collect()
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=60, help="frames per run (default 60)")
    ap.add_argument("--seeds", type=int, default=3, help="runs per point (default 3)")
    ap.add_argument("--offsets", default="5e-4,1e-3,2e-3,5e-3",
                    help="clock offsets (default 5e-4,1e-3,2e-3,5e-3)")
    ap.add_argument("--noises", default="0.3,0.5,0.7,1.0",
                    help="noise voltages (default 0.3,0.5,0.7,1.0)")
    ap.add_argument("--plot", help="write the figure to this PNG file")
    add_log_level_argument(ap)
    a = ap.parse_args()
    app = Qt.QApplication([])  # noqa: F841 (the Qt sinks need one)
    offsets = [float(x) for x in a.offsets.split(",")]
    noises = [float(x) for x in a.noises.split(",")]
    sps = 8
    print("kind,offset,noise,EbN0_dB,p,ser_map,ser_without,slip,erasures")
    grid = {}
    for off in offsets:
        for nv in noises:
            r = [run(off, nv, s, a.frames) for s in range(1, a.seeds + 1)]
            ser, naive = np.mean([x[0] for x in r]), np.mean([x[1] for x in r])
            # Eb/N0 of the matched filter's output: bit energy 1, sigma^2 = nv^2 / (2 sps)
            ebn0 = 10 * np.log10(1.0 / (2 * nv ** 2 / (2 * sps)))
            grid[(off, nv)] = (ser, naive, ebn0)
            print("grid,%g,%g,%.1f,%g,%.4f,%.4f,%d,%d" % (off, nv, ebn0, max(abs(off), 1e-4), ser,
                                                         naive, r[0][2], sum(x[3] for x in r)),
                  flush=True)
    off, nv = 2e-3, 0.5
    for mult in (0.25, 0.5, 1, 2, 5, 10):
        r = [run(off, nv, s, a.frames, p=mult * off) for s in range(1, a.seeds + 1)]
        print("pipd,%g,%g,,%g,%.4f,%.4f,%d,%d" % (off, nv, mult * off, np.mean([x[0] for x in r]),
                                                  np.mean([x[1] for x in r]), r[0][2],
                                                  sum(x[3] for x in r)), flush=True)
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for off in offsets:
            x = [grid[(off, nv)][2] for nv in noises]
            line, = ax.semilogy(x, [grid[(off, nv)][0] for nv in noises], "o-",
                                label="MAP decoder, offset %g" % off)
            ax.semilogy(x, [grid[(off, nv)][1] for nv in noises], "x--", color=line.get_color(),
                        alpha=0.5)
        ax.set_xlabel("Eb/N0 of the matched filter output (dB)")
        ax.set_ylabel("symbol error rate")
        ax.set_title("BPSK, fixed sampling on the receiver's clock (dashed: no inner decoder)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(a.plot, dpi=100)


if __name__ == "__main__":
    main()
