#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""bsid-design: codes against capacity (docs/capacity.md). Three commands:

    bsid-design codebook  search codebooks of given (n, q, P) for the highest
                          information rate on a channel (code_search.py)
    bsid-design ldpc      rank degree distributions of outer GF(q) LDPC codes
                          against the inner decoder (ldpc_design.py)
    bsid-design exit      measure EXIT curves of the inner decoder and of an
                          outer code (CSV, JSON, plot)
"""

import argparse
import sys
import time

import bsid_core

from . import code_search, ldpc_design, results
from .values import parse_values

__all__ = ["main", "build_parser"]

EXIT_COLUMNS = ["curve", "spec", "Pi", "Pd", "Ps", "N", "target_ia", "sigma", "ia", "ie",
                "ie_lo", "ie_hi", "frames", "decoded"]


def _common(p, channel=True):
    if channel:
        for name in ("Pi", "Pd", "Ps"):
            p.add_argument("--" + name, type=float, default=0.0, help=f"the channel's {name}")
    p.add_argument("--seed", type=int, default=0, help="the frames' (and moves') seed")
    p.add_argument("--backend", choices=("auto", "cpu", "cuda"), default="auto")
    p.add_argument("--precision", choices=("float", "double"), default="double")
    p.add_argument("--threads", type=int, default=0, help="CPU threads (0: all cores)")
    p.add_argument("--csv", metavar="FILE", help="the rows ('-': stdout)")
    p.add_argument("--json", metavar="FILE", help="the rows as JSON ('-': stdout)")
    p.add_argument("--quiet", action="store_true", help="no progress or summary lines")


def build_parser():
    p = argparse.ArgumentParser(
        prog="bsid-design",
        description="Codes against capacity (docs/capacity.md): search inner codebooks for "
                    "information rate, rank outer LDPC degree distributions against the inner "
                    "decoder, measure EXIT curves.")
    sub = p.add_subparsers(dest="command", required=True)

    c = sub.add_parser("codebook", help="search codebooks for the highest information rate")
    c.add_argument("-n", type=int, required=True, help="letters per codeword")
    c.add_argument("-q", type=int, required=True, help="symbols (words per book)")
    c.add_argument("-P", type=int, default=1, help="books, used cyclically (default 1)")
    c.add_argument("--alphabet", type=int, default=2, help="letters (default 2, bits)")
    c.add_argument("-N", type=int, required=True, help="message symbols per frame")
    c.add_argument("--iterations", type=int, default=200, help="moves tried (default 200)")
    c.add_argument("--frames", type=int, default=200,
                   help="frames scoring each candidate (default 200)")
    c.add_argument("--check-frames", type=int, default=400,
                   help="fresh frames measuring the result and the others (default 400)")
    c.add_argument("--start", metavar="SPEC",
                   help="the starting codebook (default random:n:q:P:SEED)")
    c.add_argument("-o", "--output", metavar="FILE", help="write the codebook found here")
    _common(c)

    d = sub.add_parser("ldpc", help="rank outer LDPC degree distributions")
    d.add_argument("--codebook", required=True, metavar="SPEC",
                   help="the inner codebook (q a power of two: one GF(q) symbol per inner "
                        "symbol)")
    d.add_argument("--outer-n", type=int, required=True, help="the outer code's symbols")
    d.add_argument("--outer-M", type=int, required=True, help="the outer code's checks")
    d.add_argument("--p", metavar="V", required=True,
                   help="the channels Pi = Pd = p to weigh (START:STOP:+STEP or a list)")
    d.add_argument("--Ps", default=None, help="the channels' Ps (a number, or 'p': Ps = p)")
    d.add_argument("--candidates", metavar="LIST",
                   help="degree distributions separated by ';' (default: a family of "
                        "degree-2/3 mixtures with some higher degrees)")
    d.add_argument("--frames", type=int, default=40,
                   help="outer words per threshold point (default 40)")
    d.add_argument("--inner-frames", type=int, default=50,
                   help="inner frames per first-pass point (default 50)")
    d.add_argument("--iterations", type=int, default=50,
                   help="belief-propagation iterations (default 50)")
    _common(d, channel=False)

    e = sub.add_parser("exit", help="measure EXIT curves")
    e.add_argument("--codebook", metavar="SPEC", help="the inner codebook (an inner curve)")
    e.add_argument("-N", type=int, help="message symbols per frame (inner curve)")
    e.add_argument("--alphabet", type=int, default=2, help="letters (default 2, bits)")
    e.add_argument("--outer", metavar="SPEC", help="an outer code (an outer curve)")
    e.add_argument("--ia", metavar="V", default="0:0.9:+0.1",
                   help="the target a priori informations (default 0:0.9:+0.1)")
    e.add_argument("--frames", type=int, default=100, help="frames per point (default 100)")
    e.add_argument("--iterations", type=int, default=50,
                   help="the outer decoder's iterations (default 50)")
    e.add_argument("--plot", metavar="PNG", help="draw the curves (the outer one mirrored)")
    _common(e)
    return p


def main(argv=None):
    p = build_parser()
    a = p.parse_args(argv)
    for name in ("threads",):
        if getattr(a, name) < 0:
            p.error(f"--{name} must not be negative")
    for name in ("frames", "check_frames", "inner_frames"):
        if getattr(a, name, 2) < 2:
            p.error(f"--{name.replace('_', '-')} must be at least 2")
    if getattr(a, "N", 1) is not None and getattr(a, "N", 1) < 1:
        p.error(f"-N {a.N}: at least 1")
    text = sys.stderr if "-" in (a.csv, a.json) else sys.stdout
    try:
        rows, columns = {"codebook": _codebook, "ldpc": _ldpc, "exit": _exit}[a.command](
            a, p, text)
    except (OSError, ValueError, RuntimeError) as e:
        print(f"bsid-design: error: {e}", file=sys.stderr)
        return 1
    if a.csv:
        results.write_columns_csv(a.csv, rows, columns)
    if a.json:
        results.write_json(a.json, rows)
    return 0


def _codebook(a, p, text):
    if a.iterations < 0:
        p.error("--iterations must not be negative")
    ch = bsid_core.channel_params(a.Pi, a.Pd, a.Ps, alphabet=a.alphabet)
    last = [time.monotonic()]

    def tick(it, r, best):
        if not a.quiet and time.monotonic() - last[0] >= 10:
            last[0] = time.monotonic()
            print(f"bsid-design: iteration {it}: best rate {best:.5f}", file=sys.stderr,
                  flush=True)
    found = code_search.search(a.n, a.q, a.P, ch, a.N, alphabet=a.alphabet,
                               iterations=a.iterations, frames=a.frames, seed=a.seed,
                               start=a.start, backend=a.backend, precision=a.precision,
                               threads=a.threads, progress=tick)
    if a.output:
        found.codebook.save(a.output)
    rows = code_search.compare(found.codebook, ch, a.N, frames=a.check_frames,
                               backend=a.backend, precision=a.precision, threads=a.threads)
    if not a.quiet:
        print(f"bsid-design: {found.evaluations} books scored in {found.seconds:.1f} s; "
              f"training rate {found.start_rate:.5f} -> {found.rate:.5f} "
              f"({len(found.history) - 1} moves kept)", file=text)
        for r in rows:
            print(f"  {r['codebook']:<28} {r['rate']:.5f} [{r['rate_lo']:.5f}, "
                  f"{r['rate_hi']:.5f}]", file=text)
    return rows, code_search.COLUMNS


def _ldpc(a, p, text):
    ps = parse_values(a.p)
    Ps = None if a.Ps is None else ("p" if a.Ps == "p" else float(a.Ps))
    cands = [c.strip() for c in a.candidates.split(";")] if a.candidates else None

    def tick(row):
        if not a.quiet:
            print(f"bsid-design: {row['degrees']}: threshold I_A {row['threshold_ia']:.4f}",
                  file=sys.stderr, flush=True)
    rows, first = ldpc_design.design(a.codebook, a.outer_n, a.outer_M, ps, candidates=cands,
                                     seed=a.seed, frames=a.frames,
                                     inner_frames=a.inner_frames, iterations=a.iterations,
                                     backend=a.backend, precision=a.precision,
                                     threads=a.threads, Ps=Ps, progress=tick)
    if not a.quiet:
        print("bsid-design: the inner decoder's first pass (I_E at I_A = 0): " +
              ", ".join(f"p={pp:g}: {ie:.4f}" for pp, ie, _ in first), file=text)
        for r in rows:
            print(f"  {r['degrees']:<22} mean degree {r['mean_degree']:.2f}  threshold I_A "
                  f"{r['threshold_ia']:.4f}  first pass to p = {r['p_first_pass']:g}",
                  file=text)
    return rows, ldpc_design.COLUMNS


def _exit(a, p, text):
    if not a.codebook and not a.outer:
        p.error("give --codebook (an inner curve), --outer (an outer curve) or both")
    if a.codebook and a.N is None:
        p.error("-N is required with --codebook")
    ia = parse_values(a.ia)
    rows = []
    if a.codebook:
        cb = bsid_core.codebook.from_spec(a.codebook, alphabet=a.alphabet)
        ch = bsid_core.channel_params(a.Pi, a.Pd, a.Ps, alphabet=a.alphabet)
        pts = bsid_core.inner_exit_curve(cb, ch, a.N, ia, frames=a.frames, seed=a.seed,
                                         backend=a.backend, precision=a.precision,
                                         threads=a.threads)
        rows += [_exit_row("inner", cb.spec, a, t, e) for t, e in zip(ia, pts)]
    if a.outer:
        code = bsid_core.ldpc_code.from_spec(a.outer)
        pts = bsid_core.outer_exit_curve(code, ia, frames=a.frames, seed=a.seed,
                                         iterations=a.iterations, threads=a.threads,
                                         backend="cpu" if a.backend == "auto" else a.backend,
                                         precision=a.precision)
        rows += [_exit_row("outer", code.spec, a, t, e) for t, e in zip(ia, pts)]
    if not a.quiet:
        for r in rows:
            print(f"  {r['curve']:<5} I_A {r['ia']:.4f} -> I_E {r['ie']:.4f} "
                  f"[{r['ie_lo']:.4f}, {r['ie_hi']:.4f}]"
                  + (f"  decoded {r['decoded']:.3f}" if r["curve"] == "outer" else ""),
                  file=text)
    if a.plot:
        _plot_exit(a.plot, rows)
    return rows, EXIT_COLUMNS


def _exit_row(curve, spec, a, target, e):
    lo, hi = e.ie_ci
    return {"curve": curve, "spec": spec, "Pi": a.Pi, "Pd": a.Pd, "Ps": a.Ps, "N": a.N or 0,
            "target_ia": target, "sigma": e.sigma, "ia": e.ia, "ie": e.ie, "ie_lo": lo,
            "ie_hi": hi, "frames": e.frames, "decoded": e.decoded}


def _plot_exit(path, rows):
    from .plot import require_matplotlib
    plt = require_matplotlib()
    fig, ax = plt.subplots(figsize=(5.2, 5.0), dpi=100)
    for curve, style in (("inner", "o-"), ("outer", "s--")):
        pts = [r for r in rows if r["curve"] == curve]
        if not pts:
            continue
        if curve == "inner":
            ax.plot([r["ia"] for r in pts], [r["ie"] for r in pts], style,
                    label=f"inner {pts[0]['spec']}")
        else:  # mirrored: its I_A on the vertical axis
            ax.plot([max(0.0, r["ie"]) for r in pts], [r["ia"] for r in pts], style,
                    label=f"outer {pts[0]['spec']} (axes swapped)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("I_A inner, I_E outer")
    ax.set_ylabel("I_E inner, I_A outer")
    ax.grid(True, alpha=0.4)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
