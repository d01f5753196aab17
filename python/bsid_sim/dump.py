#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Failure dumps (bsid-sim --dump-failures DIR) and their replay
(bsid-sim --replay FILE). The file format is documented in
docs/simulating.md, "Failure dumps"."""

import json
import os
import sys

import numpy as np

import bsid_core

__all__ = ["FORMAT", "write_failure", "read_failure", "replay"]

FORMAT = "bsid-sim failure 1"


def _bits(a):
    return "".join("1" if b else "0" for b in np.asarray(a).tolist())


def write_failure(c, res, src, k, counts, j):
    """Writes frame k (row j of the batch's counts) to c.dump_dir; returns the path."""
    os.makedirs(c.dump_dir, exist_ok=True)
    f = src.frame(k)  # recomputed in full: same frame, with its true drift path
    cb = c.codebook
    status = bsid_core.frame_status_names[int(counts["status"][j])]
    doc = {
        "format": FORMAT,
        "version": bsid_core.__version__,
        "codebook": c.spec, "n": cb.n, "q": cb.q, "P": cb.P, "books": cb.books,
        "alphabet": cb.alphabet,
        "N": c.N, "Pi": c.Pi, "Pd": c.Pd, "Ps": c.Ps, "Pr": c.Pr,
        "mtau": list(res.mtau), "mn": list(res.mn), "sync_word": c.sync_word,
        "backend": res.backend, "precision": c.precision, "storage": res.storage,
        "seed": c.seed, "frame": int(k), "point": c.point, "sweep": c.sweep,
        "status": status,
        "symbol_errors": int(counts["symbol_errors"][j]),
        "bit_errors": int(counts["bit_errors"][j]),
        "message": f["symbols"].tolist(),
        # the decided message symbols; with an outer code, its information symbols
        "decisions": counts["info" if c.outer is not None else "decisions"][j].tolist(),
        "tx": _bits(f["tx"]),
        "rx": _bits(f["rx"]),
        "drift": f["drift"].tolist(),
    }
    if c.outer is not None:
        # a concatenated scheme: "decisions" are the information symbols'
        doc.update({"outer": c.outer.spec, "iterations": c.iterations,
                    "bp_iterations": c.bp_iterations, "info": f["info"].tolist(),
                    "passes": int(counts["iterations"][j]),
                    "syndrome_ok": bool(counts["syndrome_ok"][j])})
    path = os.path.join(c.dump_dir, f"point{c.point:03d}-frame{k:09d}.json")
    with open(path, "w") as fh:
        json.dump(doc, fh, separators=(",", ":"))
        fh.write("\n")
    return path


def read_failure(path):
    """Reads a failure dump; raises ValueError if it is not one."""
    try:
        with open(path) as fh:
            doc = json.load(fh)
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not a failure dump (invalid JSON: {e})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f"{path}: not a failure dump (expected \"format\": \"{FORMAT}\")")
    missing = [k for k in ("n", "books", "N", "Pi", "Pd", "Ps", "mtau", "mn", "precision",
                           "message", "decisions", "rx", "status") if k not in doc]
    if missing:
        raise ValueError(f"{path}: failure dump without {', '.join(missing)}")
    return doc


def _decoder(doc, backend, storage):
    A = doc.get("alphabet", 2)
    cb = bsid_core.codebook(doc["n"], doc["books"], alphabet=A)
    ch = bsid_core.channel_params(doc["Pi"], doc["Pd"], doc["Ps"], alphabet=A)
    return bsid_core.map_decoder_core(cb, ch, doc["N"], backend=backend,
                                      precision=doc["precision"], storage=storage,
                                      mtau=tuple(doc["mtau"]), mn=tuple(doc["mn"]),
                                      sync_word=doc.get("sync_word", ""))


def replay(path, backend=None, context=2, top=3, out=sys.stdout):
    """Decodes a dumped frame again and prints the posteriors around its errors.

    Uses the dump's codebook, channel, drift limits and precision; backend
    defaults to the dump's (the CPU when that one is not available here).
    Returns (same, decisions): whether the decisions equal the dumped ones,
    and the new decisions.
    """
    doc = read_failure(path)
    want = backend or doc.get("backend", "auto")
    storage = doc.get("storage", "auto")
    try:
        dec = _decoder(doc, want, storage)
    except RuntimeError as e:
        if backend:  # asked for explicitly: no fallback
            raise
        print(f"note: backend '{want}' is not available here ({e}); using the CPU", file=out)
        dec = _decoder(doc, "cpu", storage)
    rx = np.frombuffer(doc["rx"].encode("ascii"), dtype=np.uint8) - ord("0")
    if doc.get("outer"):
        return _replay_outer(path, doc, dec, rx, out)
    N, q = doc["N"], dec.q
    sent = np.asarray(doc["message"], dtype=np.int64)
    old = np.asarray(doc["decisions"], dtype=np.int64)
    drift = np.asarray(doc.get("drift", []), dtype=np.int64)
    n = doc["n"]
    print(f"{path}: frame {doc.get('frame', '?')} of seed {doc.get('seed', '?')}, "
          f"{doc.get('codebook', '')} (n={n}, q={q}), N={N}, "
          f"Pi={doc['Pi']:g} Pd={doc['Pd']:g} Ps={doc['Ps']:g}", file=out)
    print(f"decoder: {dec.backend}, {dec.precision}, {dec.storage} storage, "
          f"mtau={tuple(doc['mtau'])}, mn={tuple(doc['mn'])}; received {len(rx)} bits "
          f"(end drift {len(rx) - n * N:+d})", file=out)
    try:
        post = dec.decode(rx)
        status = "ok"
        new = bsid_core.hard_decisions(post).astype(np.int64)
    except bsid_core.FrameRefused as e:
        post = None
        status = e.status
        new = np.full(N, -1, dtype=np.int64)
        print(f"the decoder refuses the frame: {e}", file=out)
    same = status == doc["status"] and np.array_equal(new, old)
    wrong = np.nonzero(new != sent)[0]
    print(f"status {status} (dumped: {doc['status']}); {len(wrong)} symbol errors"
          + (f" at positions {', '.join(str(int(i)) for i in wrong[:20])}"
             + (" ..." if len(wrong) > 20 else "") if len(wrong) else ""), file=out)
    print(f"decisions reproduced: {'yes' if same else 'NO'}", file=out)
    if not same:
        diff = np.nonzero(new != old)[0]
        print(f"  they differ from the dump at {len(diff)} positions: "
              f"{', '.join(str(int(i)) for i in diff[:20])}", file=out)
    if post is not None and len(wrong):
        # positions to show: each error with `context` neighbours, merged
        show = sorted({int(i) + d for i in wrong[:50] for d in range(-context, context + 1)
                       if 0 <= int(i) + d < N})
        print(f"\n  {'i':>5} {'drift':>6} {'sent':>5} {'dec':>5} {'P(sent)':>9}  "
              f"top {top} posteriors", file=out)
        prev = None
        for i in show:
            if prev is not None and i != prev + 1:
                print("  " + "." * 5, file=out)
            prev = i
            row = post[i]
            best = np.argsort(-row, kind="stable")[:top]
            d0 = f"{int(drift[i * n]):+d}" if drift.size > i * n else ""
            mark = ">" if new[i] != sent[i] else " "
            tops = "  ".join(f"{int(D)}:{row[D]:.3g}" for D in best)
            print(f"{mark} {i:>5} {d0:>6} {int(sent[i]):>5} {int(new[i]):>5} "
                  f"{row[sent[i]]:>9.3g}  {tops}", file=out)
        print("\n  drift: the true drift at the start of codeword i; '>' marks an error",
              file=out)
    return same, new


def _replay_outer(path, doc, dec, rx, out):
    """Replays a frame of a concatenated scheme: the iterative decoder again,
    its information symbols against the dumped decisions."""
    code = bsid_core.ldpc_code.from_spec(doc["outer"])
    cdec = bsid_core.concatenated_decoder_core(dec, code, iterations=doc["iterations"],
                                          bp_iterations=doc["bp_iterations"])
    r = cdec.decode([rx])[0]
    new = np.asarray(r["info"], dtype=np.int64)
    old = np.asarray(doc["decisions"], dtype=np.int64)
    sent = np.asarray(doc["info"], dtype=np.int64)
    print(f"{path}: frame {doc.get('frame', '?')} of seed {doc.get('seed', '?')}, "
          f"{doc.get('codebook', '')} + {doc['outer']} (k={code.k}, n={code.n} over "
          f"GF({code.q})), Pi={doc['Pi']:g} Pd={doc['Pd']:g} Ps={doc['Ps']:g}", file=out)
    same = r["status"] == doc["status"] and np.array_equal(new, old)
    wrong = np.nonzero(new != sent)[0]
    print(f"status {r['status']} (dumped: {doc['status']}); {r['iterations']} passes, "
          f"{r['bp_iterations']} BP iterations, syndrome "
          f"{'satisfied' if r['syndrome_ok'] else 'not satisfied'}; {len(wrong)} wrong "
          f"information symbols"
          + (f" at {', '.join(str(int(i)) for i in wrong[:20])}"
             + (" ..." if len(wrong) > 20 else "") if len(wrong) else ""), file=out)
    print(f"decisions reproduced: {'yes' if same else 'NO'}", file=out)
    return same, new
