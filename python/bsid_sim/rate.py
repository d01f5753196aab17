#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""bsid-sim --information-rate: each point's information rate in bits per
transmitted channel symbol (bsid_core.information_rate, docs/capacity.md),
with its 95 % interval, beside the code's own rate; rows for CSV and JSON and
a plot of rate against the swept parameter."""

import math
import time

import bsid_core

__all__ = ["COLUMNS", "rate_point", "summary", "plot_rates"]

COLUMNS = ["label", "codebook", "n", "q", "alphabet", "N", "sweep", "Pi", "Pd", "Ps",
           "frames", "excluded", "rate", "rate_lo", "rate_hi", "code_rate", "seed",
           "backend", "precision", "seconds"]


def rate_point(config, frames):
    """The information rate of one point (a sweep.point_config) over frames
    0 .. frames-1 of its seed: a row (dict of COLUMNS). The code's rate is
    log2(q) / n bits per channel symbol."""
    cb = config.codebook
    ch = bsid_core.channel_params(config.Pi, config.Pd, config.Ps, alphabet=cb.alphabet)
    t0 = time.monotonic()
    r = bsid_core.information_rate(cb, ch, config.N, frames=frames, seed=config.seed,
                                   backend=config.backend, precision=config.precision,
                                   Pr=config.Pr, threads=config.threads,
                                   batch=config.batch or 256)
    lo, hi = r.ci
    return {"label": config.label, "codebook": config.spec, "n": cb.n, "q": cb.q,
            "alphabet": cb.alphabet, "N": config.N, "sweep": config.sweep,
            "Pi": config.Pi, "Pd": config.Pd, "Ps": config.Ps, "frames": r.frames,
            "excluded": r.excluded, "rate": r.rate, "rate_lo": lo, "rate_hi": hi,
            "code_rate": math.log2(cb.q) / cb.n, "seed": config.seed,
            "backend": config.backend, "precision": config.precision,
            "seconds": time.monotonic() - t0}


def summary(row):
    """One line for the console."""
    ex = f", {row['excluded']} left the drift limits" if row["excluded"] else ""
    return (f"information rate {row['rate']:.5f} [{row['rate_lo']:.5f}, "
            f"{row['rate_hi']:.5f}] bits per channel symbol (code rate "
            f"{row['code_rate']:.4g}) from {row['frames']} frames{ex} in "
            f"{row['seconds']:.1f} s")


def _x(row):
    s = row.get("sweep", "none")
    return float(row[s]) if s in ("Pi", "Pd", "Ps", "N") else float(row["Pi"])


def plot_rates(path, groups, title=None):
    """Rate against the swept parameter, one curve per label, the intervals as
    error bars and each code's rate as a dotted line."""
    from .plot import require_matplotlib
    plt = require_matplotlib()
    fig, ax = plt.subplots(figsize=(7.0, 4.6), dpi=100)
    curves = {}
    for rows in groups:
        for r in rows:
            curves.setdefault(r.get("label") or f"{r['codebook']} N={r['N']}", []).append(r)
    sweeps = set()
    for idx, (label, rows) in enumerate(curves.items()):
        rows = sorted(rows, key=_x)
        sweeps.update(r.get("sweep", "none") for r in rows)
        colour = f"C{idx % 10}"
        xs = [_x(r) for r in rows]
        ys = [float(r["rate"]) for r in rows]
        err = [[y - float(r["rate_lo"]) for y, r in zip(ys, rows)],
               [float(r["rate_hi"]) - y for y, r in zip(ys, rows)]]
        ax.errorbar(xs, ys, yerr=err, fmt="o-", color=colour, markersize=4, linewidth=1.2,
                    capsize=2.5, label=label)
        ax.axhline(float(rows[0]["code_rate"]), color=colour, linestyle=":", linewidth=1)
    if sweeps == {"N"}:
        ax.set_xscale("log")
    names = {"p": "p = Pi = Pd", "all": "p = Pi = Pd = Ps", "Pi": "Pi", "Pd": "Pd", "Ps": "Ps", "none": "Pi",
             "N": "N (message symbols per frame)"}
    ax.set_xlabel(" / ".join(sorted(names.get(s, s) for s in sweeps)) or "p")
    ax.set_ylabel("information rate (bits per channel symbol)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.4)
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
