#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Trace reconstruction (docs/reads.md, "Trace reconstruction"): the strand of
N letters behind each cluster of noisy reads, as the symbol-wise MAP
estimate of the uncoded strand (each letter uniform and independent) under
the insertion/deletion/substitution channel: exact with the joint decoder
(up to 3 reads), approximate with the combiner (any number).

Clusters come as text, the way public nanopore datasets store them: one read
per line (letters A, C, G, T in either case), clusters separated by a line of
'=' signs. The estimates go out one strand per line, in the clusters' order.

    from bsid_sim import traces
    clusters = traces.read_clusters("Clusters.txt")
    est = traces.reconstruct(clusters, N=110, Pi=0.01, Pd=0.01, Ps=0.01)
    traces.write_estimates("estimates.txt", est.strands)

The command: bsid-traces CLUSTERS -N 110 --Pi 0.01 --Pd 0.01 --Ps 0.01
[--method joint|combine] [--truth CENTERS] [-o FILE]."""

import argparse
import re
import sys
from dataclasses import dataclass, field

import numpy as np

import bsid_core

__all__ = ["LETTERS", "read_clusters", "parse_clusters", "reconstruct", "write_estimates",
           "Reconstruction", "main"]

LETTERS = "ACGT"
_SEPARATOR = re.compile(r"\s*=+\s*\Z")


def _letters(line, where):
    """A read's letters as uint8 (A, C, G, T = 0, 1, 2, 3), or None with why."""
    codes = np.frombuffer(line.upper().encode("ascii", "replace"), dtype=np.uint8)
    table = np.full(256, 255, dtype=np.uint8)
    for k, c in enumerate(LETTERS):
        table[ord(c)] = k
    out = table[codes]
    bad = np.nonzero(out == 255)[0]
    if bad.size:
        return None, f"{where}: {line[bad[0]]!r} at column {bad[0] + 1} is not one of " \
                     f"{', '.join(LETTERS)}"
    return out, None


def parse_clusters(text, where="<text>"):
    """Clusters from text: a list with one list of reads (uint8 arrays) per
    cluster, and a list of (line, why) for each line that is not a read (it
    is left out of its cluster). A line of '=' signs ends a cluster; blank
    lines are skipped; reads before the first separator are a cluster of
    their own if there are any, and so are reads after the last one; two
    separators in a row make an empty cluster (its estimate is refused)."""
    clusters, bad = [], []
    current, seen_separator = [], False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if _SEPARATOR.match(line):
            if current or seen_separator:
                clusters.append(current)
            current, seen_separator = [], True
            continue
        read, why = _letters(line, f"{where}:{number}")
        if read is None:
            bad.append((number, why))
        else:
            current.append(read)
    if current:
        clusters.append(current)
    return clusters, bad


def read_clusters(path):
    """parse_clusters of the file `path` ('-': stdin); its lines that are not
    reads are reported on stderr."""
    text = sys.stdin.read() if path == "-" else open(path, encoding="ascii",
                                                      errors="replace").read()
    clusters, bad = parse_clusters(text, path)
    for _, why in bad[:10]:
        print(f"bsid-traces: warning: {why} (the line is left out)", file=sys.stderr)
    if len(bad) > 10:
        print(f"bsid-traces: warning: {len(bad) - 10} more lines are not reads",
              file=sys.stderr)
    return clusters


@dataclass
class Reconstruction:
    """What reconstruct gives: per cluster the estimated strand (None where
    refused), its posteriors ((N, 4) float64, None where refused) and the
    decoder's info dict (decode_reads: status, reason, reads, used, rounds,
    converged)."""
    strands: list = field(default_factory=list)
    posteriors: list = field(default_factory=list)
    infos: list = field(default_factory=list)
    method: str = ""


def reconstruct(clusters, N, Pi, Pd, Ps, method="auto", backend="auto", precision="float",
                batch=4096, iterations=None, Pr=1e-10, threads=0):
    """The symbol-wise MAP strand of N letters behind each cluster of reads
    (docs/reads.md). method: "joint" (exact; clusters of more than 3 reads
    are refused), "combine", or "auto": joint where a cluster has at most 3
    reads, combine beyond. Clusters go to the decoder in batches of `batch`."""
    if method not in ("auto", "joint", "combine"):
        raise ValueError(f"method '{method}' is not one of auto, joint, combine")
    cb = bsid_core.codebook.from_spec("sparse:1:4", alphabet=4)  # the letters themselves
    ch = bsid_core.channel_params(Pi, Pd, Ps, alphabet=4)
    dec = bsid_core.map_decoder_core(cb, ch, int(N), backend=backend, precision=precision,
                                     Pr=Pr, threads=threads)
    out = Reconstruction(strands=[None] * len(clusters), posteriors=[None] * len(clusters),
                         infos=[None] * len(clusters), method=method)
    groups = {}
    for k, c in enumerate(clusters):
        m = method if method != "auto" else ("joint" if len(c) <= 3 else "combine")
        if m == "joint" and len(c) > 3:
            out.infos[k] = {"status": "invalid_input", "used": 0, "rounds": 0,
                            "reason": f"{len(c)} reads: joint decoding takes at most 3",
                            "reads": [], "converged": False}
            continue
        groups.setdefault(m, []).append(k)
    for m, ks in groups.items():
        for at in range(0, len(ks), max(1, int(batch))):
            part = ks[at:at + batch]
            kw = {"iterations": iterations} if m == "combine" and iterations else {}
            posts, infos = dec.decode_reads_batch([clusters[k] for k in part], method=m, **kw)
            for k, p, info in zip(part, posts, infos):
                out.infos[k] = info
                if p is not None:
                    out.posteriors[k] = p
                    out.strands[k] = "".join(LETTERS[d] for d in
                                             bsid_core.hard_decisions(p))
    return out


def write_estimates(path, strands):
    """One strand per line ('-': stdout); a refused cluster's line is empty."""
    text = "".join((s or "") + "\n" for s in strands)
    if path == "-":
        sys.stdout.write(text)
    else:
        with open(path, "w") as fh:
            fh.write(text)


def _read_truth(path):
    with open(path) as fh:
        return [line.strip().upper() for line in fh if line.strip()]


def build_parser():
    p = argparse.ArgumentParser(
        prog="bsid-traces",
        description="Trace reconstruction: the strand behind each cluster of noisy reads "
                    "(docs/reads.md). Clusters: one read per line, clusters separated by a "
                    "line of '=' signs.")
    p.add_argument("clusters", metavar="CLUSTERS", help="the clusters' file ('-': stdin)")
    p.add_argument("-N", type=int, required=True, help="letters per strand")
    for name in ("Pi", "Pd", "Ps"):
        p.add_argument("--" + name, type=float, required=True,
                       help=f"the channel's {name} (each read's)")
    p.add_argument("--method", choices=("auto", "joint", "combine"), default="auto",
                   help="joint (exact, up to 3 reads), combine, or auto (default): joint up "
                        "to 3 reads, combine beyond")
    p.add_argument("--iterations", type=int, default=None,
                   help="the combiner's rounds at most (default 8)")
    p.add_argument("--backend", choices=("auto", "cpu", "cuda"), default="auto")
    p.add_argument("--precision", choices=("float", "double"), default="float")
    p.add_argument("--batch", type=int, default=4096, help="clusters per decoder call")
    p.add_argument("-o", "--output", default="-", help="the estimates' file (default stdout)")
    p.add_argument("--truth", metavar="FILE",
                   help="the true strands, one per line in the clusters' order: report the "
                        "letter error rate and the strands recovered exactly")
    return p


def main(argv=None):
    p = build_parser()
    a = p.parse_args(argv)
    if a.N < 1:
        p.error(f"-N {a.N}: at least 1")
    try:
        clusters = read_clusters(a.clusters)
        est = reconstruct(clusters, a.N, a.Pi, a.Pd, a.Ps, method=a.method,
                          backend=a.backend, precision=a.precision, batch=a.batch,
                          iterations=a.iterations)
        write_estimates(a.output, est.strands)
    except (OSError, ValueError, RuntimeError) as e:
        print(f"bsid-traces: error: {e}", file=sys.stderr)
        return 1
    refused = sum(s is None for s in est.strands)
    print(f"bsid-traces: {len(clusters)} clusters, {refused} refused", file=sys.stderr)
    if a.truth:
        truth = _read_truth(a.truth)
        if len(truth) != len(clusters):
            print(f"bsid-traces: error: {a.truth} has {len(truth)} strands for "
                  f"{len(clusters)} clusters", file=sys.stderr)
            return 1
        errors = exact = 0
        for s, t in zip(est.strands, truth):
            e = len(t) if s is None else sum(x != y for x, y in zip(s, t)) + abs(len(s) - len(t))
            errors += e
            exact += e == 0
        letters = sum(len(t) for t in truth)
        print(f"bsid-traces: letter error rate {errors / max(1, letters):.4e}, strands "
              f"recovered exactly {exact} of {len(truth)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
