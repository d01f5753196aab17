#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""
gr-bsid DNA storage: a file's bytes written into strands of the four letters
A, C, G, T and read back. Each strand carries a fixed number of bytes as
GF(16) symbols (two a byte), protected by an LDPC code over GF(16) (the outer
code); each code symbol becomes an inner codeword of a few letters (a random
time-varying code over four letters, so that the decoder can find where
letters were inserted and deleted); the strand then goes through the q-ary
insertion/deletion/substitution channel (Pi, Pd and Ps per letter) and is
decoded iteratively (the inner MAP decoder and the outer belief propagation).
Prints, for each channel, the strands that failed, the bytes in error and
whether the file came back exactly; --plot draws the strand and byte error
rates over a sweep of the channel.

    /usr/bin/python3 examples/dna_storage.py [--file PATH] [--p 0.01,0.03]
        [--inner-n 3] [--outer ldpc-regular:48:24:16:3:1] [--plot dna.png]

The first strand's first four bytes hold the file's length. Strands are read
once each, all of them, in order: strand loss, ordering (an index) and
several reads of a strand are not modelled here (docs/dna.md).
Works with `from gnuradio import bsid` (installed module) or, without GNU
Radio, with the core module alone (`import bsid_core as bsid`).
"""

import argparse
import sys

from bsid_sim.log_setup import add_log_level_argument, configure_from_argv  # noqa: E402

configure_from_argv()  # --log-level: GNU Radio's log to stderr, before it starts

import numpy as np

try:
    from gnuradio import bsid
except ImportError:
    import bsid_core as bsid

LETTERS = "ACGT"


def to_symbols(data, k):
    """The file's length (4 bytes, big-endian) and bytes as GF(16) symbols,
    high nibble first, cut into strands of k symbols (the last padded)."""
    raw = len(data).to_bytes(4, "big") + data
    nib = np.frombuffer(raw, np.uint8)
    sym = np.stack([nib >> 4, nib & 15], axis=1).reshape(-1).astype(np.int64)
    strands = -(-len(sym) // k)
    out = np.zeros(strands * k, np.int64)
    out[:len(sym)] = sym
    return out.reshape(strands, k)


def from_symbols(sym):
    """The inverse of to_symbols: the bytes, cut to the length in the header
    (None where the header itself is not a plausible length)."""
    s = np.asarray(sym, np.int64).reshape(-1)
    s = np.where(s < 0, 0, s)  # a strand that failed decodes as zeros
    b = ((s[0::2] << 4) | s[1::2]).astype(np.uint8).tobytes()
    n = int.from_bytes(b[:4], "big")
    return b[4:4 + n] if n <= len(b) - 4 else None


class pipeline:
    """The code and one decoder per channel: write, send, read."""

    def __init__(self, a):
        self.code = bsid.ldpc_code.from_spec(a.outer)
        if self.code.q != 16:
            raise ValueError(f"the outer code is over GF({self.code.q}); this example "
                             "puts two GF(16) symbols in a byte")
        self.cb = bsid.codebook.random(a.inner_n, 16, a.books, a.seed, alphabet=4)
        self.a = a

    def decoder(self, p):
        ch = bsid.channel_params(p, p, p, alphabet=4)
        inner = bsid.map_decoder_core(self.cb, ch, self.code.n, backend=self.a.backend)
        dec = bsid.concatenated_decoder_core(inner, self.code, iterations=self.a.iterations,
                                             bp_iterations=50)
        return ch, inner, dec

    def strands(self, info):
        """Each row of information symbols as a strand of letters."""
        return [self.cb.encode(self.code.encode(row)) for row in info]

    def read(self, p, strands, info):
        """Sends every strand through the channel at Pi = Pd = Ps = p and
        decodes them: the decoded information symbols (-1 where a strand
        failed) and the strands that failed."""
        ch, inner, dec = self.decoder(p)
        reads = [bsid.transmit(ch, s, self.a.seed, j)[0] for j, s in enumerate(strands)]
        out = dec.decode(reads)
        got = np.full(info.shape, -1, np.int64)
        failed = 0
        for j, r in enumerate(out):
            if r["status"] == "ok" and r["syndrome_ok"]:
                got[j] = r["info"]
            failed += not np.array_equal(got[j], info[j])
        return got, failed, inner.backend, reads


def byte_errors(data, back):
    if back is None:
        return len(data)
    n = min(len(data), len(back))
    return int(np.sum(np.frombuffer(data[:n], np.uint8) !=
                      np.frombuffer(back[:n], np.uint8))) + abs(len(data) - len(back))


def main(argv=None):
    paragraphs = [" ".join(p.split()) for p in __doc__.strip().split("\n\n")]
    ap = argparse.ArgumentParser(description=paragraphs[0], epilog=paragraphs[-1])
    ap.add_argument("--file", default=__file__,
                    help="the file to store (default: this script)")
    ap.add_argument("--bytes", type=int, default=0,
                    help="store only the file's first BYTES bytes (default: 0, all)")
    ap.add_argument("--p", default="0.01,0.03",
                    help="channels to read through, Pi = Pd = Ps = p per letter, "
                         "comma-separated (default: %(default)s)")
    ap.add_argument("--inner-n", type=int, default=3,
                    help="letters per inner codeword, 16 codewords a book (default: "
                         "%(default)s)")
    ap.add_argument("--books", type=int, default=8,
                    help="books of the time-varying inner code (default: %(default)s)")
    ap.add_argument("--outer", default="ldpc-regular:48:24:16:3:1",
                    help="outer code over GF(16): ldpc:FILE or ldpc-regular:n:M:16:wc:seed "
                         "(default: %(default)s)")
    ap.add_argument("--iterations", type=int, default=10,
                    help="passes of inner MAP then outer BP (default: %(default)s)")
    ap.add_argument("--backend", default="auto",
                    help="decoder backend: cpu, cuda or auto (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=1,
                    help="seed of the inner code and of the channel (default: %(default)s)")
    ap.add_argument("--out", default="",
                    help="write the file read back at the first channel here")
    ap.add_argument("--plot", default="",
                    help="also sweep Pi = Pd = Ps and plot the strand and byte error rates "
                         "into this image (matplotlib)")
    ap.add_argument("--sweep", default="0.01,0.02,0.03,0.04,0.05,0.06,0.07",
                    help="the channels of --plot (default: %(default)s)")
    add_log_level_argument(ap)
    a = ap.parse_args(argv)

    try:
        ps = [float(v) for v in a.p.split(",") if v]
        sweep = [float(v) for v in a.sweep.split(",") if v] if a.plot else []
        with open(a.file, "rb") as f:
            data = f.read()
        if a.bytes > 0:
            data = data[:a.bytes]
        pl = pipeline(a)
        info = to_symbols(data, pl.code.k)
        strands = pl.strands(info)
    except (ValueError, OSError, RuntimeError) as e:
        print(f"dna_storage.py: error: {e}", file=sys.stderr)
        return 2
    L = len(strands[0])
    print(f"{len(data)} bytes into {len(strands)} strands of {L} letters "
          f"({pl.code.k // 2} bytes a strand, {8 * pl.code.k // 2 / L:.3f} bits a letter): "
          f"inner {pl.cb.spec} over ACGT (n={pl.cb.n}, q=16, {pl.cb.P} books), "
          f"outer {pl.code.spec} (k={pl.code.k} of n={pl.code.n} over GF(16))")
    print("strand 0: " + "".join(LETTERS[v] for v in strands[0]))

    rows = []
    for p in sorted(set(ps) | set(sweep)):
        try:
            got, failed, backend, reads = pl.read(p, strands, info)
        except (ValueError, RuntimeError) as e:
            print(f"dna_storage.py: error: {e}", file=sys.stderr)
            return 2
        back = from_symbols(got)
        errors = byte_errors(data, back)
        rows.append((p, failed / len(strands), errors / max(len(data), 1)))
        if p not in ps:
            continue
        exact = back == data
        print(f"Pi = Pd = Ps = {p:g} ({backend}): strand 0 read as "
              f"{len(reads[0])} letters; {failed} of {len(strands)} strands failed, "
              f"{errors} of {len(data)} bytes in error: "
              + ("recovered exactly" if exact else "NOT recovered"))
        if a.out and p == ps[0] and back is not None:
            with open(a.out, "wb") as f:
                f.write(back)
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 4))
        # a rate of 0 has no place on a log scale: those points are open
        # triangles at half of one error, apart from the measured ones
        for col, name, mark, floor in ((1, "strands failed", "o-", 0.5 / len(strands)),
                                       (2, "bytes in error", "s--",
                                        0.5 / max(len(data), 1))):
            seen = [(r[0], r[col]) for r in rows if r[col] > 0]
            none = [r[0] for r in rows if r[col] == 0]
            line = ax.semilogy([v[0] for v in seen], [v[1] for v in seen], mark, label=name)
            if none:
                ax.semilogy(none, [floor] * len(none), "v", mfc="none",
                            color=line[0].get_color(), label=f"{name}: none")
        ax.set_xlabel("Pi = Pd = Ps (per letter)")
        ax.set_ylabel("error rate")
        ax.set_title(f"{len(data)} bytes in {len(strands)} strands of {L} letters")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(a.plot)
        print(f"plot: {a.plot}")
        for p, fs, fb in rows:
            print(f"  p = {p:g}: strands failed {fs:.3g}, bytes in error {fb:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
