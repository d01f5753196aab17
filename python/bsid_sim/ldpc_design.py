#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Outer codes designed for the inner decoder (docs/capacity.md, "Designing
the outer code"): irregular GF(q) LDPC codes by progressive edge growth,
their degree distributions ranked by a Monte-Carlo threshold on the EXIT
charts' a priori channel, against the inner decoder's measured EXIT curve.

The inner decoder on channel p turns a priori information I_A into
extrinsic information T_p(I_A) (bsid_core.inner_exit_curve); its first pass,
without priors, gives the outer code T_p(0). An outer code of a candidate
degree distribution decodes a word seen through the a priori model when its
information is at least its threshold I* (the smallest I_A at which half the
words decode, by bisection over the same words). A candidate whose I* lies
below T_p(0) decodes at channel p in one pass; the iterations then add what
the outer code's extrinsic output gives the inner decoder. The candidates are
ranked by I* and by the largest p whose first pass reaches it; the simulator
(bsid-sim --outer) then measures the schemes' FER.

    from bsid_sim import ldpc_design
    rows = ldpc_design.design("random:5:16:1000:1", 1000, 125, ps=[0.012, 0.013, 0.014])
"""

import math

import numpy as np

import bsid_core

__all__ = ["DEFAULT_CANDIDATES", "outer_threshold", "first_pass", "trajectory", "design",
           "COLUMNS"]

# degree distributions tried by default (fractions of the columns)
DEFAULT_CANDIDATES = [
    "2=1", "2=0.9,3=0.1", "2=0.8,3=0.2", "2=0.7,3=0.3", "2=0.6,3=0.4", "2=0.5,3=0.5",
    "2=0.3,3=0.7", "3=1", "2=0.8,4=0.2", "2=0.9,6=0.1", "2=0.85,8=0.15",
    "2=0.7,3=0.2,6=0.1",
]

COLUMNS = ["degrees", "spec", "mean_degree", "rate", "threshold_ia", "p_first_pass"]


def outer_threshold(code, frames=40, iterations=50, seed=0, lo=0.2, hi=0.995, steps=10,
                    backend="cpu", threads=0):
    """The smallest I_A (normalized) at which at least half of `frames` words of
    `code` decode, seen through the EXIT a priori model: bisection over the same
    words (common random numbers), `steps` halvings of [lo, hi]. Returns
    (I*, [(I_A, fraction decoded), ...])."""
    tried = []

    def decoded(ia):
        p = bsid_core.outer_exit_curve(code, [ia], frames=frames, seed=seed,
                                       iterations=iterations, backend=backend,
                                       threads=threads)[0]
        tried.append((ia, p.decoded))
        return p.decoded

    if decoded(hi) < 0.5:
        return math.inf, tried
    if decoded(lo) >= 0.5:
        return lo, tried
    for _ in range(steps):
        mid = (lo + hi) / 2
        if decoded(mid) >= 0.5:
            hi = mid
        else:
            lo = mid
    return hi, tried


def first_pass(codebook, N, ps, frames=50, seed=0, backend="auto", precision="double",
               Pi_only=False, Ps=None, threads=0):
    """T_p(0) for each p of ps: the inner decoder's extrinsic information without
    priors (normalized), on the channel Pi = Pd = p (Ps = 0, or the given Ps, or
    p with Ps="p"). Returns [(p, I_E, (lo, hi)), ...]."""
    if isinstance(codebook, str):
        codebook = bsid_core.codebook.from_spec(codebook)
    out = []
    for p in ps:
        ps_value = p if Ps == "p" else (Ps or 0.0)
        ch = bsid_core.channel_params(p, p, ps_value, alphabet=codebook.alphabet)
        e = bsid_core.inner_exit_curve(codebook, ch, N, [0.0], frames=frames, seed=seed,
                                       backend=backend, precision=precision,
                                       threads=threads)[0]
        out.append((p, e.ie, e.ie_ci))
    return out


def trajectory(inner, outer, target=0.999, max_steps=200):
    """The EXIT chart's staircase between an inner curve and an outer curve
    (lists of exit points, or (I_A, I_E) pairs): from I_A = 0, the inner's I_E
    is the outer's I_A and the outer's I_E the inner's next I_A. Returns
    (reaches target, [(x, y), ...]), by linear interpolation of each curve."""
    def xy(curve):
        pts = sorted((p.ia, p.ie) if hasattr(p, "ia") else tuple(p) for p in curve)
        return np.array([a for a, _ in pts]), np.array([b for _, b in pts])
    ix, iy = xy(inner)
    ox, oy = xy(outer)
    x, steps = 0.0, []
    for _ in range(max_steps):
        y = float(np.interp(x, ix, iy))
        nx = float(np.interp(y, ox, oy))
        steps.append((x, y))
        if nx >= target:
            steps.append((nx, y))
            return True, steps
        if nx <= x + 1e-6:
            return False, steps
        x = nx
    return False, steps


def design(codebook, n, M, ps, candidates=None, seed=1, frames=40, inner_frames=50,
           iterations=50, backend="auto", precision="double", threads=0, Ps=None,
           progress=None):
    """Ranks degree distributions for an outer GF(q) LDPC code of n symbols and M
    checks over the inner codebook (q its symbols; N = n inner symbols), on the
    channels Pi = Pd = p for p in ps. Each candidate (text "2=0.8,3=0.2") becomes
    ldpc-peg:n:M:q:DEGREES:seed. Returns (rows sorted best first, first-pass
    points). progress(row) is called after each candidate."""
    if isinstance(codebook, str):
        codebook = bsid_core.codebook.from_spec(codebook)
    q = codebook.q
    if q & (q - 1) or q < 2 or q > 256:
        raise ValueError(f"the inner code's q = {q} must be a power of two up to 256 (the "
                         f"outer code is over GF(q), one outer symbol per inner symbol)")
    first = first_pass(codebook, n, sorted(ps), frames=inner_frames, seed=seed,
                       backend=backend, precision=precision, Ps=Ps, threads=threads)
    rows = []
    for text in candidates or DEFAULT_CANDIDATES:
        code = bsid_core.ldpc_code.peg(n, M, q, text, seed)
        mean = sum(d * f for d, f in _parse(text))
        ia_star, _ = outer_threshold(code, frames=frames, iterations=iterations, seed=seed,
                                     threads=threads)
        reached = [p for p, ie, _ in first if ie >= ia_star]
        row = {"degrees": text, "spec": code.spec, "mean_degree": mean, "rate": code.k / code.n,
               "threshold_ia": ia_star, "p_first_pass": max(reached) if reached else 0.0}
        rows.append(row)
        if progress is not None:
            progress(row)
    rows.sort(key=lambda r: (r["threshold_ia"], -r["mean_degree"]))
    return rows, first


def _parse(text):
    out = []
    for item in text.split(","):
        d, f = item.split("=")
        out.append((int(d), float(f)))
    return out
