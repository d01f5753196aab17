#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""bsid-sim --estimate: channel estimation on simulated frames (docs/simulating.md,
"Channel estimation"): the simulator's frames of each point, sent through the
point's channel, and the channel estimated from them as a receiver would, from an
initial point, against the true channel."""

import time

import bsid_core

__all__ = ["COLUMNS", "estimate_point", "summary"]

# the CSV columns of an estimate (the JSON rows add log_likelihoods and notes)
COLUMNS = ["label", "N", "frames", "seed", "backend", "precision",
           "Pi", "Pi_estimate", "Pi_error", "Pd", "Pd_estimate", "Pd_error",
           "Ps", "Ps_estimate", "Ps_error", "iterations", "converged", "frames_used",
           "frames_refused", "seconds"]


def estimate_point(config, frames, initial, iterations, tolerance, fix=None, progress=None):
    """Estimates the channel of one point (a sweep.point_config) from `frames` of
    its frame_source (frames 0 .. frames-1 of its seed): a dict with the true and
    estimated Pi, Pd, Ps, their relative errors (the absolute error where the truth
    is 0), the iterations, whether they converged, the frames used and refused, the
    log-likelihoods and the time. progress: called after each EM iteration
    (iteration, log-likelihood, estimate), or None."""
    truth = bsid_core.channel_params(config.Pi, config.Pd, config.Ps,
                                     alphabet=config.codebook.alphabet)
    src = bsid_core.frame_source(config.codebook, truth, config.N, config.seed,
                                 sync_word=config.sync_word)
    rx = [src.frame(k)["rx"] for k in range(frames)]
    t0 = time.monotonic()
    ch, ll, info = bsid_core.estimate_channel(
        config.codebook, config.N, rx, initial=initial, iterations=iterations,
        tolerance=tolerance, fix=fix, backend=config.backend, precision=config.precision,
        Pr=config.Pr, threads=config.threads, details=True, sync_word=config.sync_word,
        progress=progress)
    seconds = time.monotonic() - t0
    row = {"label": config.label, "N": config.N, "frames": frames, "seed": config.seed,
           "backend": config.backend, "precision": config.precision}
    for name in ("Pi", "Pd", "Ps"):
        t, est = getattr(truth, name), getattr(ch, name)
        row[name] = t
        row[name + "_estimate"] = est
        row[name + "_error"] = abs(est - t) / t if t > 0 else abs(est)
    row["iterations"] = info["iterations"]
    row["converged"] = info["converged"]
    row["frames_used"] = info["frames_used"]
    row["frames_refused"] = info["frames_refused"]
    row["log_likelihoods"] = ll
    row["seconds"] = seconds
    row["notes"] = info["notes"]
    return row


def summary(row):
    """Lines for the console."""
    def err(name):
        e = row[name + "_error"]
        return f"{e:.1%}" if row[name] > 0 else f"{e:.2g} absolute"
    return (f"estimate from {row['frames_used']} frames ({row['frames_refused']} refused), "
            f"{row['iterations']} iterations{'' if row['converged'] else ' (not converged)'} "
            f"in {row['seconds']:.1f} s:\n" +
            "\n".join(f"    {n} {row[n + '_estimate']:.6g}  (true {row[n]:.6g}, error "
                      f"{err(n)})" for n in ("Pi", "Pd", "Ps")) +
            "".join(f"\n    note: {n}" for n in row["notes"]))
