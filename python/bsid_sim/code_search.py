#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Code search (docs/capacity.md, "Code search"): a codebook of given (n, q, P)
over an alphabet of A letters with a high information rate on a target
channel, by local search with common random numbers.

Every candidate is scored by bsid_core.information_rate on the same frames
(the same message symbols and the same channel random numbers: frame k of
the training seed), so that two books are compared on one noise realization
and a small difference in rate is a real one for those frames. A move
replaces one word of one book by another word: a random one not in the book,
or the word with one letter changed. A move is kept when the training rate
grows (hill climbing). The result is then measured again on frames of another
seed, beside random, sparse, watermark and built-in codebooks of the same
(n, q), so that the report is not biased by the selection.

    from bsid_sim import code_search
    found = code_search.search(n=5, q=16, P=4, channel=(0.02, 0.02, 0), N=40,
                               iterations=300)
    found.codebook.save("found.txt")

The command: bsid-design codebook -n 5 -q 16 -P 4 --Pi 0.02 --Pd 0.02 -N 40
[--iterations I] [--frames F] [-o FILE] [--csv FILE] [--json FILE]."""

import math
import random
import time
from dataclasses import dataclass, field

import bsid_core

__all__ = ["SearchResult", "search", "compare", "COLUMNS"]


@dataclass
class SearchResult:
    codebook: object                       # bsid_core.codebook: the best book found
    rate: float                            # its rate on the training frames
    start_rate: float                      # the starting book's, on the same frames
    history: list = field(default_factory=list)   # (iteration, rate) at each kept move
    evaluations: int = 0
    seconds: float = 0.0


def _word_count(n, A):
    return A ** n


def _propose(books, n, A, rng):
    """A copy of books with one word of one book replaced (a random unused word,
    or the word with one letter changed to another letter not making a repeat)."""
    b = rng.randrange(len(books))
    book = books[b]
    used = set(book)
    D = rng.randrange(len(book))
    total = _word_count(n, A)
    for _ in range(64):
        if rng.random() < 0.5:
            w = rng.randrange(total)
        else:
            r = rng.randrange(n)
            place = A ** (n - 1 - r)
            old = (book[D] // place) % A
            new = (old + 1 + rng.randrange(A - 1)) % A
            w = book[D] + (new - old) * place
        if w not in used:
            out = [list(x) for x in books]
            out[b][D] = w
            return out
    return None  # (a book holding nearly every word: no free word found)


def _rate(cb, ch, N, frames, seed, backend, precision, threads):
    return bsid_core.information_rate(cb, ch, N, frames=frames, seed=seed, backend=backend,
                                      precision=precision, threads=threads)


def search(n, q, P, channel, N, alphabet=2, iterations=200, frames=200, seed=0,
           train_seed=1, start=None, backend="auto", precision="double", threads=0,
           progress=None):
    """Hill-climbs from `start` (a codebook or spec; default random:n:q:P:seed) to a
    codebook of higher information rate on `channel` (a bsid_core.channel_params or
    (Pi, Pd, Ps)) for frames of N symbols, scored on frames 0 .. frames-1 of
    train_seed. seed drives the moves. progress(iteration, rate, best) is called
    after every evaluation. Returns a SearchResult."""
    if isinstance(channel, (tuple, list)):
        channel = bsid_core.channel_params(*channel, alphabet=alphabet)
    if channel.alphabet != alphabet:
        raise ValueError(f"the channel's alphabet is {channel.alphabet}, not {alphabet}")
    if iterations < 0:
        raise ValueError(f"iterations = {iterations} must not be negative")
    if start is None:
        start = bsid_core.codebook.random(n, q, P, seed, alphabet=alphabet)
    elif isinstance(start, str):
        start = bsid_core.codebook.from_spec(start, alphabet=alphabet)
    if (start.n, start.q, start.P, start.alphabet) != (n, q, P, alphabet):
        raise ValueError(f"the starting codebook has (n, q, P, A) = ({start.n}, {start.q}, "
                         f"{start.P}, {start.alphabet}), not ({n}, {q}, {P}, {alphabet})")
    if q == _word_count(n, alphabet):
        raise ValueError(f"q = {q} takes every word of {n} letters: every such book has "
                         f"the same rate, there is nothing to search")
    rng = random.Random(seed)
    t0 = time.monotonic()
    best_books = [list(b) for b in start.books]
    best = start
    best_rate = _rate(best, channel, N, frames, train_seed, backend, precision, threads).rate
    out = SearchResult(codebook=best, rate=best_rate, start_rate=best_rate,
                       history=[(0, best_rate)], evaluations=1)
    for it in range(1, iterations + 1):
        books = _propose(best_books, n, alphabet, rng)
        if books is None:
            continue
        cb = bsid_core.codebook(n, books, alphabet=alphabet)
        r = _rate(cb, channel, N, frames, train_seed, backend, precision, threads).rate
        out.evaluations += 1
        if r > best_rate:
            best, best_books, best_rate = cb, books, r
            out.history.append((it, r))
        if progress is not None:
            progress(it, r, best_rate)
    out.codebook, out.rate = best, best_rate
    out.seconds = time.monotonic() - t0
    return out


def compare(found, channel, N, frames=400, seed=2, backend="auto", precision="double",
            threads=0, seeds=(1, 2, 3)):
    """The found codebook's rate on fresh frames (seed), beside random codebooks
    of the same (n, q, P) (each of `seeds`), the sparse code, a watermark code
    and any built-in code of the same n and q: rows (dicts)."""
    n, q, P, A = found.n, found.q, found.P, found.alphabet
    entries = [("found", found)]
    entries += [(f"random:{n}:{q}:{P}:{s}",
                 bsid_core.codebook.random(n, q, P, s, alphabet=A)) for s in seeds]
    entries.append((f"sparse:{n}:{q}", bsid_core.codebook.sparse(n, q, alphabet=A)))
    entries.append((f"watermark:{n}:{q}:{P}:1",
                    bsid_core.codebook.watermark(n, q, P, 1, alphabet=A)))
    for name in bsid_core.codebook.builtin_names():
        cb = bsid_core.codebook.builtin(name)
        if (cb.n, cb.q, cb.alphabet) == (n, q, A):
            entries.append((f"builtin:{name}", cb))
    rows = []
    for name, cb in entries:
        r = _rate(cb, channel, N, frames, seed, backend, precision, threads)
        lo, hi = r.ci
        rows.append({"codebook": name, "n": cb.n, "q": cb.q, "P": cb.P, "alphabet": cb.alphabet,
                     "N": N, "Pi": channel.Pi, "Pd": channel.Pd, "Ps": channel.Ps,
                     "frames": r.frames, "seed": seed, "rate": r.rate, "rate_lo": lo,
                     "rate_hi": hi, "code_rate": math.log2(cb.q) / cb.n})
    return rows


COLUMNS = ["codebook", "n", "q", "P", "alphabet", "N", "Pi", "Pd", "Ps", "frames", "seed",
           "rate", "rate_lo", "rate_hi", "code_rate"]
