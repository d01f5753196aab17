#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Confidence intervals of the simulator (docs/simulating.md, "Confidence
intervals").

Frames are the independent unit. The frame error rate is a binomial
proportion over frames, with the Wilson score interval. The symbol and bit
error rates are ratio estimators over frames (errors summed over frames,
divided by the symbols or bits sent); their interval is the Wilson interval
taken at the effective sample size n / deff, where the design effect deff
compares the variance estimated from the per-frame counts with the binomial
variance that independent symbols would have (Kish's design effect, as
Korn and Graubard (1998) use it for clustered proportions). So a lost
synchronization that spoils 40 symbols of one frame weighs as one unlucky
frame, not as 40 independent errors.
"""

import math
from statistics import NormalDist

import numpy as np

__all__ = ["z_value", "wilson_interval", "clustered_interval", "design_effect",
           "design_effect_from_sums", "interval_from_sums", "rel_half_width",
           "wilson_arrays", "interval_arrays"]


def z_value(confidence):
    """The two-sided standard normal quantile z with P(|Z| <= z) = confidence."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence = {confidence!r} must lie strictly between 0 and 1")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson_interval(k, n, confidence=0.95):
    """Wilson score interval (lo, hi) for k successes in n trials.

    Wilson, "Probable inference, the law of succession, and statistical
    inference", JASA 22 (1927) 209-212:
        centre = (p + z^2 / 2n) / (1 + z^2 / n)
        half   = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / 4n^2)
    with p = k / n. k and n may be fractional (an effective sample size).
    It never leaves [0, 1], and with k = 0 its upper end is z^2 / (n + z^2)
    rather than 0.
    """
    if n <= 0:
        raise ValueError(f"wilson_interval: n = {n!r} must be positive")
    if not 0 <= k <= n:
        raise ValueError(f"wilson_interval: k = {k!r} must lie in [0, n = {n!r}]")
    z = z_value(confidence)
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z / denom * math.sqrt(max(p * (1.0 - p) / n + z2 / (4.0 * n * n), 0.0))
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k == n else min(1.0, centre + half)
    return lo, hi


def design_effect_from_sums(F, s1, s2, per_frame):
    """design_effect() from F frames, s1 = sum(e_k) and s2 = sum(e_k^2)."""
    m = float(per_frame)
    if F < 2 or s1 <= 0 or s1 >= F * per_frame:
        return m
    r = s1 / (F * m)
    # sum (e_k - r m)^2 = s2 - s1^2 / F, exact in integers when the sums are
    ss = (F * s2 - s1 * s1) / F
    var_hat = ss / (F * (F - 1.0) * m * m)
    var_bin = r * (1.0 - r) / (F * m)
    return float(min(max(var_hat / var_bin, 1.0), m))


def interval_from_sums(F, s1, s2, per_frame, confidence=0.95):
    """clustered_interval() from F frames, s1 = sum(e_k) and s2 = sum(e_k^2)."""
    if F <= 0:
        raise ValueError("interval_from_sums: no frames")
    m = float(per_frame)
    deff = design_effect_from_sums(F, s1, s2, per_frame)
    n_eff = F * m / deff
    r = s1 / (F * m)
    lo, hi = wilson_interval(min(r * n_eff, n_eff), n_eff, confidence)
    return r, lo, hi


def design_effect(counts, per_frame):
    """Kish's design effect of a ratio estimator over frames.

    counts: errors in each frame (each in [0, per_frame]); per_frame: units
    (symbols or bits) per frame. Returns the variance of the estimate from
    the per-frame counts, sum (e_k - r m)^2 / (F (F - 1) m^2), divided by the
    binomial variance r (1 - r) / (F m), and clipped to [1, m]: never
    narrower than independent units, never wider than whole-frame clusters.
    With no information on the clustering (fewer than two frames, or r = 0
    or 1) it is m, the cautious value.
    """
    e = [int(x) for x in np.asarray(counts).ravel()]
    return design_effect_from_sums(len(e), sum(e), sum(x * x for x in e), per_frame)


def clustered_interval(counts, per_frame, confidence=0.95):
    """(estimate, lo, hi) of an error rate measured in frames of per_frame units.

    estimate = sum(counts) / (F per_frame), the ratio estimator; the interval
    is wilson_interval at the effective sample size F per_frame / deff. With
    per_frame = 1 (or errors that are independent across units, deff = 1)
    it is the plain Wilson interval; with errors that always fill whole
    frames it is the Wilson interval of the frame count.
    """
    e = [int(x) for x in np.asarray(counts).ravel()]
    if not e:
        raise ValueError("clustered_interval: no frames")
    return interval_from_sums(len(e), sum(e), sum(x * x for x in e), per_frame, confidence)


def rel_half_width(estimate, lo, hi):
    """Half the interval's width relative to the estimate (inf when it is 0)."""
    if estimate <= 0.0:
        return math.inf
    return (hi - lo) / (2.0 * estimate)


def wilson_arrays(k, n, confidence=0.95):
    """wilson_interval() elementwise over numpy arrays k and n (n > 0)."""
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    z = z_value(confidence)
    z2 = z * z
    p = k / n
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z / denom * np.sqrt(np.maximum(p * (1.0 - p) / n + z2 / (4.0 * n * n), 0.0))
    lo = np.where(k <= 0, 0.0, np.maximum(0.0, centre - half))
    hi = np.where(k >= n, 1.0, np.minimum(1.0, centre + half))
    return lo, hi


def interval_arrays(F, s1, s2, per_frame, confidence=0.95):
    """interval_from_sums() elementwise over numpy arrays F (>= 1), s1 and s2.
    Returns (estimate, lo, hi) arrays."""
    F = np.asarray(F, dtype=np.float64)
    s1 = np.asarray(s1, dtype=np.float64)
    s2 = np.asarray(s2, dtype=np.float64)
    m = float(per_frame)
    r = s1 / (F * m)
    with np.errstate(divide="ignore", invalid="ignore"):
        ss = s2 - s1 * s1 / F
        var_hat = ss / (F * (F - 1.0) * m * m)
        var_bin = r * (1.0 - r) / (F * m)
        deff = np.clip(var_hat / var_bin, 1.0, m)
    deff = np.where((F < 2) | (r <= 0.0) | (r >= 1.0) | ~np.isfinite(deff), m, deff)
    n_eff = F * m / deff
    lo, hi = wilson_arrays(np.minimum(r * n_eff, n_eff), n_eff, confidence)
    return r, lo, hi
