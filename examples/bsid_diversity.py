#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""
A diversity receiver (docs/reads.md, "A diversity receiver"): one BPSK
transmission received by two receivers, each through GNU Radio's channel
model with its own sample clock offset and noise, each sampling on its own
clock with no timing recovery, so that each slips bits (insertions or
deletions) at its own rate. Each receiver finds its frames with the stream
receiver (bsid.map_decoder, framing "stream", output "received"); one
bsid.map_decoder with reads=2 decodes every frame from both receivers
together, and each receiver's frames are also decoded alone. The script
prints the symbol error rate of each receiver alone and of both:

    /usr/bin/python3 examples/bsid_diversity.py --frames 40

    transmitter: symbols -> bsid.codebook_encoder (N, no sync word)
                 -> chunks_to_symbols_bf -> interp_fir_filter_fff (sps)
    receiver r:  -> float_to_complex -> channels.channel_model (epsilon =
                 1 + offset r, noise r) -> complex_to_real -> matched filter
                 -> delay -> keep_one_in_n (sps) -> LLRs
                 -> bsid.map_decoder (stream, output "received")
    decoders:    both receivers' frames -> bsid.map_decoder (reads=2) -> SER
                 each receiver's frames -> bsid.map_decoder -> SER alone
"""

import argparse

import numpy as np
from gnuradio import blocks, bsid, channels, digital, filter, gr

CODEBOOK = "builtin:ld3-modvec6"
SPS = 8


class bsid_diversity(gr.top_block):
    """The flowgraph; after run(), ser() gives the symbol error rates."""

    def __init__(self, frames=40, N=100, offsets=(2e-3, -1.5e-3), noise=(0.45, 0.45),
                 seed=1, read_method="joint", backend="auto"):
        gr.top_block.__init__(self, "bsid diversity receiver")
        self.N, self.frames = int(N), int(frames)
        cb = bsid.codebook.from_spec(CODEBOOK)
        self.q = cb.q
        rng = np.random.default_rng(seed)
        self.sent = rng.integers(0, cb.q, self.frames * self.N)
        # the decoders' channel: a slip every 1/|offset| bits, and the
        # samples taken between two bits as substitutions (docs/clock_slip.md)
        slip = max(max(abs(o) for o in offsets), 1e-4)
        ps = 0.02

        src = blocks.vector_source_i(self.sent.tolist(), False)
        enc = bsid.codebook_encoder(cb, self.N, "packet_len", "")
        bpsk = digital.chunks_to_symbols_bf([-1.0, 1.0], 1)
        pulse = filter.interp_fir_filter_fff(SPS, [1.0] * SPS)
        to_complex = blocks.float_to_complex(1)
        self.connect(src, enc, bpsk, pulse, to_complex)

        self.joint = bsid.map_decoder(cb, self.N, slip, slip, ps, input="llr",
                                      output="hard", backend=backend, reads=2,
                                      read_method=read_method)
        self.joint_sink = blocks.vector_sink_i()
        self.connect(self.joint, self.joint_sink)
        self.receivers, self.alone, self.alone_sinks = [], [], []
        for r, (offset, nv) in enumerate(zip(offsets, noise)):
            channel = channels.channel_model(noise_voltage=nv, frequency_offset=0.0,
                                             epsilon=1.0 + offset, taps=[1.0 + 0.0j],
                                             noise_seed=seed + 17 * (r + 1),
                                             block_tags=False)
            sigma2 = max(nv, 1e-3) ** 2 / (2 * SPS)  # per matched-filter output
            chain = [channel, blocks.complex_to_real(1),
                     filter.fir_filter_fff(1, [1.0 / SPS] * SPS),
                     blocks.delay(gr.sizeof_float, 3),  # the best phase for bit 0
                     blocks.keep_one_in_n(gr.sizeof_float, SPS),
                     blocks.multiply_const_ff(2.0 / sigma2, 1)]
            frontend = bsid.map_decoder(cb, self.N, slip, slip, ps, input="llr",
                                        output="received", framing="stream",
                                        backend=backend)
            alone = bsid.map_decoder(cb, self.N, slip, slip, ps, input="llr",
                                     output="hard", backend=backend)
            sink = blocks.vector_sink_i()
            self.connect(to_complex, *chain, frontend)
            self.connect(frontend, (self.joint, r))
            self.connect(frontend, alone, sink)
            self.receivers.append(frontend)
            self.alone.append(alone)
            self.alone_sinks.append(sink)

    def _ser(self, sink):
        """SER of a decoder's hard output against the sent symbols: erased
        frames (-1) and frames never put out count as all wrong."""
        got = np.full(self.sent.size, -1, dtype=np.int64)
        data = np.array(sink.data(), dtype=np.int64)[:self.sent.size]
        got[:data.size] = data
        return float(np.mean(got != self.sent))

    def ser(self):
        """{"receiver r": SER alone, ..., "both": SER of the reads=2 decoder}."""
        out = {f"receiver {r}": self._ser(s) for r, s in enumerate(self.alone_sinks)}
        out["both"] = self._ser(self.joint_sink)
        return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--frames", type=int, default=40, help="frames sent [%(default)s]")
    p.add_argument("--N", type=int, default=100, help="symbols a frame [%(default)s]")
    p.add_argument("--offsets", type=float, nargs=2, default=[2e-3, -1.5e-3],
                   help="each receiver's clock offset [%(default)s]")
    p.add_argument("--noise", type=float, nargs=2, default=[0.45, 0.45],
                   help="each receiver's noise voltage [%(default)s]")
    p.add_argument("--seed", type=int, default=1, help="symbols and noise [%(default)s]")
    p.add_argument("--read-method", default="joint", choices=["joint", "combine"])
    p.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"])
    a = p.parse_args()
    tb = bsid_diversity(a.frames, a.N, a.offsets, a.noise, a.seed, a.read_method,
                        a.backend)
    tb.run()
    for name, ser in tb.ser().items():
        print(f"SER {name:>10}: {ser:.4f}")
    lost = [rx.erasures() for rx in tb.receivers]
    print(f"frames sent {a.frames}; lost by the receivers' framing: {lost}; "
          f"erasures after joint decoding: {tb.joint.erasures()}")


if __name__ == "__main__":
    main()
