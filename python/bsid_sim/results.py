#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Result files of bsid-sim: CSV and JSON, one row per point (the columns are
listed in docs/simulating.md, "Result files")."""

import csv
import io
import json
import math
import os

__all__ = ["COLUMNS", "write_csv", "write_columns_csv", "write_json", "read_results"]

COLUMNS = [
    "label", "codebook", "n", "q", "P", "N", "sweep", "Pi", "Pd", "Ps", "Pr", "seed",
    "backend", "precision", "storage", "threads", "mtau_lo", "mtau_hi", "mn_lo", "mn_hi",
    "frames", "frame_errors", "symbols", "symbol_errors", "bits", "bit_errors",
    "erasures_drift", "erasures_other",
    "fer", "fer_lo", "fer_hi", "ser", "ser_lo", "ser_hi", "ber", "ber_lo", "ber_hi",
    "confidence", "rel_error", "max_errors", "max_frames", "max_time", "stopped_by",
    "seconds", "frames_per_s", "mbit_per_s", "version", "sync_word",
    "framing", "lookahead", "streams", "fer_genie", "ser_genie", "frame_errors_genie",
    "symbol_errors_genie", "wrong_ends", "sync_lost", "wrong_end_rate", "sync_lost_rate",
    "lead", "burst_rate", "burst_bits", "ok_frames", "ok_symbol_errors",
    "ok_symbol_errors_genie", "bursts", "extra_frames", "extra_frames_expected",
    "garbage_near_half", "false_ok", "duplicates", "missed",
    "outer", "outer_n", "outer_k", "outer_q", "rate", "iterations", "bp_iterations",
    "mean_iterations", "mean_bp_iterations", "undetected", "fer_by_iteration",
    "alphabet", "reads", "read_method",
]

_TEXT = {"label", "codebook", "sweep", "backend", "precision", "storage", "stopped_by",
         "version", "sync_word", "framing", "outer", "burst_bits", "read_method"}
# lists: ';'-separated in CSV, read back as lists of numbers
_LISTS = {"fer_by_iteration"}


def _check(rows):
    for r in rows:
        for k, v in r.items():
            for x in (v if isinstance(v, list) else [v]):
                if isinstance(x, float) and not math.isfinite(x):
                    raise ValueError(f"result column {k} is {v!r}: refusing to write it")


def _atomic_write(path, text):
    # a finished sweep never leaves a half-written file behind
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", newline="") as fh:
        fh.write(text)
    os.replace(tmp, path)


def _csv_text(rows, columns=None):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns or COLUMNS, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: (repr(v) if isinstance(v, float)
                        else ";".join(repr(float(x)) for x in v) if isinstance(v, list)
                        else v) for k, v in r.items()})
    return buf.getvalue()


def _json_text(rows):
    return json.dumps(rows, indent=1) + "\n"


def _write(path, text):
    if path == "-":
        print(text, end="", flush=True)
    else:
        _atomic_write(path, text)


def write_csv(path, rows):
    """Writes rows (dicts with the COLUMNS keys) as CSV; '-' is stdout."""
    _check(rows)
    _write(path, _csv_text(rows))


def write_columns_csv(path, rows, columns):
    """Writes rows (dicts with the given keys) as CSV; '-' is stdout."""
    _check(rows)
    _write(path, _csv_text(rows, columns))


def write_json(path, rows):
    """Writes rows as a JSON array of objects; '-' is stdout."""
    _check(rows)
    _write(path, _json_text(rows))


def _convert(k, v):
    if k in _TEXT:
        return v
    if k in _LISTS:
        return [float(x) for x in v.split(";")] if v else []
    for kind in (int, float):
        try:
            return kind(v)
        except (TypeError, ValueError):
            pass
    return v


def read_results(path):
    """Rows of a CSV or JSON result file (by content), as dicts of numbers and text:
    error rates (ser, fer, ...) or information rates (rate, rate_lo, rate_hi)."""
    with open(path) as fh:
        text = fh.read()
    if text.lstrip().startswith("["):
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: invalid JSON ({e})") from None
    else:
        rows = [{k: _convert(k, v) for k, v in r.items()}
                for r in csv.DictReader(io.StringIO(text))]
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise ValueError(f"{path}: not a bsid-sim result file (expected rows of columns)")
    for r in rows:
        measured = (("rate", "rate_lo", "rate_hi") if "rate" in r and "ser" not in r else
                    ("ser", "ser_lo", "ser_hi", "fer", "fer_lo", "fer_hi"))
        missing = [k for k in ("sweep", "Pi", "Pd", "Ps") + measured if k not in r]
        if missing:
            raise ValueError(f"{path}: not a bsid-sim result file (no column "
                             f"{', '.join(missing)})")
    return rows
