#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The --values syntax of bsid-sim."""

import math

__all__ = ["parse_values"]

MAX_POINTS = 10000



def _walk(value, stop, tol, spec):
    """value(0), value(1), ... up to STOP (STOP itself when a value lands on it
    within tol)."""
    out = []
    k = 0
    while True:
        v = value(k)
        if abs(v - stop) <= tol:
            out.append(stop)
            return out
        if v > stop:
            return out
        out.append(v)
        k += 1
        if k > MAX_POINTS:
            raise ValueError(f"--values '{spec}': more than {MAX_POINTS} points")

def _number(text, what, spec):
    try:
        v = float(text)
    except ValueError:
        raise ValueError(f"--values '{spec}': {what} '{text}' is not a number") from None
    if not math.isfinite(v):
        raise ValueError(f"--values '{spec}': {what} '{text}' is not a finite number")
    return v


def parse_values(spec):
    """The list of values that a --values string names.

    START:STOP:xFACTOR   START, START FACTOR, START FACTOR^2, ... up to STOP
    START:STOP:+STEP     START, START + STEP, START + 2 STEP, ... up to STOP
    V1,V2,...            these values, in this order

    Value k is computed as START FACTOR^k (or START + k STEP), not by
    accumulation; STOP is included when a value lands on it within a
    relative 1e-9 (and that value is then STOP exactly). Raises ValueError
    with a message that names the problem.
    """
    s = spec.strip()
    if not s:
        raise ValueError("--values is empty")
    if ":" not in s:
        vals = [_number(t.strip(), "value", spec) for t in s.split(",")]
        return vals
    parts = s.split(":")
    if len(parts) != 3:
        raise ValueError(f"--values '{spec}': expected START:STOP:xFACTOR, START:STOP:+STEP "
                         "or a comma-separated list")
    start = _number(parts[0], "START", spec)
    stop = _number(parts[1], "STOP", spec)
    step = parts[2].strip()
    if stop < start:
        raise ValueError(f"--values '{spec}': STOP {stop:g} is below START {start:g}")
    tol = 1e-9 * abs(stop)
    if step[:1] in ("x", "X", "*"):
        factor = _number(step[1:], "FACTOR", spec)
        if factor <= 1.0:
            raise ValueError(f"--values '{spec}': FACTOR must be above 1, got {factor:g}")
        if start <= 0.0:
            raise ValueError(f"--values '{spec}': a geometric sweep needs START > 0")
        out = _walk(lambda k: start * factor ** k, stop, tol, spec)
    elif step[:1] == "+":
        inc = _number(step[1:], "STEP", spec)
        if inc <= 0.0:
            raise ValueError(f"--values '{spec}': STEP must be positive, got {inc:g}")
        out = _walk(lambda k: start + k * inc, stop, tol, spec)
    else:
        raise ValueError(f"--values '{spec}': the step '{step}' must be xFACTOR "
                         "(geometric) or +STEP (linear)")
    return out
