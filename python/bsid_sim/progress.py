#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Live progress of bsid-sim: a tqdm bar on a terminal, plain lines elsewhere
(or where tqdm is not installed)."""

import sys
import time

from . import stats

__all__ = ["make_progress", "describe", "point_name"]


def point_name(c):
    if c.sweep in ("p", "all"):
        return f"p={c.Pi:.4g}"
    if c.sweep in ("Pi", "Pd", "Ps"):
        return f"{c.sweep}={c.value:.4g}"
    if c.sweep == "reads":
        return f"reads={c.reads}"
    return f"Pi={c.Pi:.4g} Pd={c.Pd:.4g} Ps={c.Ps:.4g}"


def _rate(name, est, lo, hi):
    return f"{name} {est:.3e} [{lo:.2e}, {hi:.2e}]"


def describe(res, eta=None):
    """One line: frames, FER and SER with their intervals, speed, ETA."""
    if res.frames == 0:
        return "no frame yet"
    parts = [f"{res.frames} frames", _rate("FER", *res.fer()), _rate("SER", *res.ser())]
    er = res.erasures_drift + res.erasures_other
    if er:
        parts.append(f"{er} erasures")
    parts.append(f"{res.mbit_per_s():.3g} Mbit/s")
    if eta is not None:
        parts.append(f"eta {_seconds(eta)}")
    return ", ".join(parts)


def _seconds(s):
    if s < 90:
        return f"{s:.0f}s"
    if s < 5400:
        return f"{s / 60:.0f}min"
    return f"{s / 3600:.1f}h"


class _Lines:
    """A line every `every` seconds, and one when a point ends."""

    def __init__(self, stream, every):
        self.stream = stream
        self.every = every
        self.last = 0.0

    def start(self, c, index, total):
        self.prefix = f"[{index + 1}/{total}] {point_name(c)}"
        self.last = time.monotonic()

    def __call__(self, res, elapsed, eta):
        now = time.monotonic()
        if now - self.last >= self.every:
            self.last = now
            print(f"{self.prefix}: {describe(res, eta)}", file=self.stream, flush=True)

    def end(self, res):
        pass

    def close(self):
        pass


class _Bar:
    """A tqdm bar per point; its total is the frame count expected at the stop."""

    def __init__(self, stream, tqdm):
        self.stream = stream
        self.tqdm = tqdm
        self.bar = None

    def start(self, c, index, total):
        self.bar = self.tqdm(total=c.max_frames, desc=f"[{index + 1}/{total}] {point_name(c)}",
                             unit="fr", file=self.stream, dynamic_ncols=True, leave=False,
                             bar_format="{desc}: {percentage:3.0f}%|{bar:12}| {n_fmt}/{total_fmt} "
                                        "[{elapsed}<{remaining}]{postfix}")

    def __call__(self, res, elapsed, eta):
        b = self.bar
        if eta is not None and elapsed > 0:
            b.total = max(res.frames, int(res.frames + eta * res.frames / elapsed))
        b.n = res.frames
        fer, ser = res.fer(), res.ser()
        b.set_postfix_str(f"FER {fer[0]:.2e} ±{_half(fer)}, SER {ser[0]:.2e} ±{_half(ser)}, "
                          f"{res.mbit_per_s():.3g} Mbit/s", refresh=False)
        b.refresh()

    def end(self, res):
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def close(self):
        self.end(None)


def _half(r):
    h = stats.rel_half_width(*r)
    return "inf" if h == float("inf") else f"{100 * h:.0f}%"


class _Quiet:
    def start(self, c, index, total):
        pass

    def __call__(self, res, elapsed, eta):
        pass

    def end(self, res):
        pass

    def close(self):
        pass


def make_progress(mode="auto", stream=None, every=10.0):
    """mode: auto (a bar on a terminal when tqdm is installed, else lines),
    bar, lines or none."""
    stream = stream or sys.stderr
    if mode == "none":
        return _Quiet()
    tqdm = None
    if mode in ("auto", "bar"):
        try:
            from tqdm import tqdm
        except ImportError:
            tqdm = None
    if mode == "bar" or (mode == "auto" and stream.isatty()):
        if tqdm is not None:
            return _Bar(stream, tqdm)
        return _Lines(stream, 2.0 if stream.isatty() else every)
    return _Lines(stream, every)
