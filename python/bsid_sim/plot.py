#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""SER and FER against the swept parameter, on log axes, with the intervals
as error bars (matplotlib, optional)."""

import os

__all__ = ["require_matplotlib", "format_problem", "plot_results"]

_NEED = ("--plot needs matplotlib, which is not installed "
         "(Debian: apt-get install python3-matplotlib)")


def require_matplotlib():
    """Imports matplotlib with a file backend; raises RuntimeError if it is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise RuntimeError(_NEED) from None
    return plt


def format_problem(path):
    """Why matplotlib cannot write a plot to `path` (its file name's extension
    names no format it writes), or None; checked before any simulation runs."""
    plt = require_matplotlib()
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if not ext:
        return None  # matplotlib's default format (PNG), with ".png" added
    fig = plt.figure()
    try:
        formats = fig.canvas.get_supported_filetypes()
    finally:
        plt.close(fig)
    if ext in formats:
        return None
    return (f"--plot {path}: matplotlib cannot write .{ext} files; give a file name "
            f"ending in one of {', '.join('.' + f for f in sorted(formats))} "
            f"(result tables go to --csv or --json)")


def _x(row):
    s = row.get("sweep", "none")
    return float(row[s]) if s in ("Pi", "Pd", "Ps", "reads") else float(row["Pi"])


def _label(row):
    if row.get("label"):
        return str(row["label"])
    return f"{row.get('codebook', '?')} N={row.get('N', '?')}"


def plot_results(path, groups, title=None, metrics=("ser", "fer")):
    """Draws the rows of each group; groups: a list of row lists (one per run
    or file). Rows with different labels within a group are separate curves."""
    plt = require_matplotlib()
    fig, ax = plt.subplots(figsize=(7.0, 4.6), dpi=100)
    curves = {}
    for rows in groups:
        for r in rows:
            curves.setdefault(_label(r), []).append(r)
    sweeps = set()
    styles = {"ser": ("o", "-", "SER"), "fer": ("s", "--", "FER"), "ber": ("^", ":", "BER")}
    for idx, (label, rows) in enumerate(curves.items()):
        rows = sorted(rows, key=_x)
        sweeps.update(r.get("sweep", "none") for r in rows)
        colour = f"C{idx % 10}"
        for metric in metrics:
            marker, line, name = styles[metric]
            xs, ys, lo, hi, ux, uy = [], [], [], [], [], []
            for r in rows:
                y = float(r[metric])
                if y > 0:
                    xs.append(_x(r))
                    ys.append(y)
                    lo.append(y - float(r[metric + "_lo"]))
                    hi.append(float(r[metric + "_hi"]) - y)
                else:  # no error seen: the interval's upper end, as a bound
                    ux.append(_x(r))
                    uy.append(float(r[metric + "_hi"]))
            if xs:
                ax.errorbar(xs, ys, yerr=[lo, hi], fmt=marker + line, color=colour,
                            markersize=4, linewidth=1.2, capsize=2.5,
                            label=f"{name}, {label}")
            if ux:
                ax.plot(ux, uy, "v", color=colour, markersize=5, markerfacecolor="none",
                        label=None if xs else f"{name}, {label} (upper bound)")
    if sweeps != {"reads"}:
        ax.set_xscale("log")
    ax.set_yscale("log")
    names = {"p": "p = Pi = Pd", "all": "p = Pi = Pd = Ps", "Pi": "Pi", "Pd": "Pd", "Ps": "Ps", "none": "Pi",
             "reads": "reads per frame"}
    ax.set_xlabel(" / ".join(sorted(names.get(s, s) for s in sweeps)) or "p")
    ax.set_ylabel("error rate")
    ax.grid(True, which="major", alpha=0.4)
    ax.grid(True, which="minor", alpha=0.12)
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
