#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""A point's counts, batch by batch: where a stopping rule holds inside a
batch, the frames counted, and the end of a batch (time, rule, progress).
The point runners (engine.run_point, stream framing, the Dask cluster) share
them, so a point stops at the same frame whichever runs it."""

import time

import bsid_core
import numpy as np

from . import stats

__all__ = ["eta", "stop_in_batch", "add", "end_batch", "STATUS_OK", "STATUS_DRIFT",
           "REL_MIN_FRAMES", "REL_MIN_ERRORS"]

STATUS_OK = bsid_core.frame_status_names.index("ok")
STATUS_DRIFT = bsid_core.frame_status_names.index("drift_out_of_range")

# The --rel-error rule waits for this many frames and frame errors: the
# intervals rest on a normal approximation over frames, which needs a few.
REL_MIN_FRAMES = 30
REL_MIN_ERRORS = 10

def eta(res, elapsed):
    """Seconds until the first stopping rule is expected to hold (None: unknown)."""
    c = res.config
    F = res.frames
    if F == 0 or elapsed <= 0:
        return None
    rate = F / elapsed
    left = [c.max_frames - F]
    if c.max_time > 0:
        left.append((c.max_time - elapsed) * rate)
    if c.max_errors > 0 and res.frame_errors > 0:
        left.append((c.max_errors - res.frame_errors) * F / res.frame_errors)
    if c.rel_error > 0 and res.frame_errors > 0:
        # half-widths shrink as 1 / sqrt(frames)
        need = max(stats.rel_half_width(*res.fer()), stats.rel_half_width(*res.ser()))
        left.append(F * ((need / c.rel_error) ** 2 - 1.0))
    return max(0.0, min(left)) / rate


def stop_in_batch(res, counts):
    """The frames of this batch to keep and the rule that stops in it, if any.

    --rel-error and --max-errors are checked after every frame, so a point
    ends at the first frame where one holds, whatever the batching or the
    threads: the same seed gives the same counts.
    """
    c = res.config
    se = counts["symbol_errors"].astype(np.int64)
    K = len(se)
    stops = []
    bad = se > 0
    if c.max_errors > 0:
        need = c.max_errors - res.frame_errors
        hits = bad.nonzero()[0]
        if len(hits) >= need:
            stops.append((int(hits[need - 1]) + 1, "max-errors"))
    if c.rel_error > 0 and K:
        F = res.frames + np.arange(1, K + 1)
        fe = res.frame_errors + np.cumsum(bad)
        s1 = res.symbol_errors + np.cumsum(se)
        s2 = res.symbol_errors_sq + np.cumsum(se * se)
        flo, fhi = stats.wilson_arrays(fe, F, c.confidence)
        ser, slo, shi = stats.interval_arrays(F, s1, s2, c.symbols_per_frame, c.confidence)
        with np.errstate(divide="ignore", invalid="ignore"):
            ok = ((F >= REL_MIN_FRAMES) & (fe >= REL_MIN_ERRORS)
                  & ((fhi - flo) / 2 <= c.rel_error * (fe / F))
                  & ((shi - slo) / 2 <= c.rel_error * ser))
        hits = ok.nonzero()[0]
        if len(hits):
            stops.append((int(hits[0]) + 1, "rel-error"))
    if stops:
        return min(stops)
    return K, ""


def add(res, counts, upto):
    """Adds the first `upto` frames of a count_errors() result."""
    se = counts["symbol_errors"][:upto].astype("int64")
    be = counts["bit_errors"][:upto].astype("int64")
    st = counts["status"][:upto]
    res.frames += int(upto)
    res.frame_errors += int((se > 0).sum())
    res.symbol_errors += int(se.sum())
    res.symbol_errors_sq += int((se * se).sum())
    res.bit_errors += int(be.sum())
    res.bit_errors_sq += int((be * be).sum())
    drift = int((st == STATUS_DRIFT).sum())
    res.erasures_drift += drift
    res.erasures_other += int((st != STATUS_OK).sum()) - drift
    if "wrong_after" in counts:  # the outer code's passes
        by_pass = counts["wrong_after"][:upto].sum(axis=0).astype("int64")
        if not res.frame_errors_by_pass:
            res.frame_errors_by_pass = [0] * len(by_pass)
        res.frame_errors_by_pass = [a + int(b) for a, b in zip(res.frame_errors_by_pass, by_pass)]
        res.passes += int(counts["iterations"][:upto].astype("int64").sum())
        res.bp_iterations += int(counts["bp_iterations"][:upto].astype("int64").sum())
        res.undetected += int(((counts["syndrome_ok"][:upto] != 0) & (se > 0)).sum())


def end_batch(res, reason, t0, progress):
    """After a batch is counted: the time, the rule that stops the point (the
    one found in the batch, else max-frames or max-time), progress; returns
    that rule ("" to go on)."""
    c = res.config
    res.batches += 1
    elapsed = time.perf_counter() - t0
    res.seconds = elapsed
    if not reason and res.frames >= c.max_frames:
        reason = "max-frames"
    if not reason and c.max_time > 0 and elapsed >= c.max_time:
        reason = "max-time"
    res.stopped_by = reason
    if progress is not None:
        progress(res, elapsed, eta(res, elapsed))
    return reason
