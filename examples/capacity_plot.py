#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Draws docs/capacity.png: information rates against Pi = Pd (bsid-sim
--information-rate result files, one curve per label), with Ps = 0 on the
left and Ps = Pi on the right, and the points where concatenated schemes
reach FER 1e-2 (docs/capacity.md, docs/concatenated.md).

    examples/capacity_plot.py docs/data/capacity/*.csv --plot docs/capacity.png
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from bsid_sim import plot, results  # noqa: E402

# (name, rate, Pi = Pd at FER 1e-2, Ps = 0): docs/concatenated.md
SCHEMES = [
    ("scheme A (rate 0.7, 5000 bits)", 0.7, 0.0104),
    ("scheme B (rate 3/14, 4592 bits)", 3 / 14, 0.091),
    ("Davey and MacKay, rate 0.7", 0.7, 0.003),
    ("Davey and MacKay, rate 3/14", 3 / 14, 0.049),
]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="+", help="bsid-sim --information-rate CSV or JSON files")
    p.add_argument("--plot", required=True, help="the figure to write")
    a = p.parse_args(argv)
    plt = plot.require_matplotlib()
    curves = {}
    for f in a.files:
        for r in results.read_results(f):
            if r.get("sweep") in ("p", "all"):
                curves.setdefault(r["label"], []).append(r)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6), dpi=100, sharey=True)
    for ax, with_ps in zip(axes, (False, True)):
        k = 0
        for label, rows in curves.items():
            rows = [r for r in rows if (float(r["Ps"]) > 0) == with_ps]
            if not rows:
                continue
            rows.sort(key=lambda r: float(r["Pi"]))
            iid = label.startswith("i.i.d.")
            ax.plot([float(r["Pi"]) for r in rows], [float(r["rate"]) for r in rows],
                    "-" if iid else "o-", color="black" if iid else f"C{k}",
                    linewidth=2 if iid else 1.2, markersize=3, label=label)
            k += 0 if iid else 1
        if not with_ps:
            for j, (name, rate, pr) in enumerate(SCHEMES):
                ax.plot([pr], [rate], "*" if "scheme" in name else "^", markersize=11,
                        color=f"C{6 + j % 4}", label=name + f": Pi = Pd = {pr:g}")
        ax.set_xscale("log")
        ax.set_xlabel("Pi = Pd" + (" = Ps" if with_ps else "  (Ps = 0)"))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="lower left")
        ax.set_ylim(0, 1)
    axes[0].set_ylabel("information rate (bits per channel bit)")
    fig.tight_layout()
    fig.savefig(a.plot)
    plt.close(fig)
    return 0


if __name__ == "__main__":
    sys.exit(main())
