"""
The same link without the inner decoder: the received hard bits (in1) are
taken at the positions the bits were sent at (in0), and each codeword is
decided by the least Hamming distance within its book. After the first clock
slip every later bit sits in the wrong place. Keeps every frame's SER
(frame_sers); puts out the SERs of the last `window` frames as one vector.
"""

import numpy as np
from gnuradio import bsid, gr


class naive_ser(gr.decim_block):
    """Per-frame SER of position-by-position hard decisions (no inner decoder)."""

    def __init__(self, codebook="builtin:ld3-modvec6", N=100, sync_word="", window=200):
        cb = bsid.codebook.from_spec(codebook)
        self.n, self.N, self.G = cb.n, int(N), len(sync_word)
        self.F = self.G + self.N * self.n
        gr.decim_block.__init__(self, name="SER without the inner decoder",
                                in_sig=[np.uint8, np.uint8],
                                out_sig=[(np.float32, int(window))], decim=self.F)
        # the codewords of position i as bits: words[i mod P, D, bit], MSB first
        shifts = np.arange(self.n - 1, -1, -1)
        self.words = np.array([[(cb.word(p, D) >> shifts) & 1 for D in range(cb.q)]
                               for p in range(cb.P)], dtype=np.uint8)
        self.book = np.arange(self.N) % cb.P
        self.history = np.zeros(int(window), dtype=np.float32)
        self.frame_sers = []

    def decide(self, bits):
        # (N, n) received words -> the index of the nearest codeword of each book
        dist = np.sum(bits[:, None, :] != self.words[self.book], axis=2)
        return np.argmin(dist, axis=1)

    def work(self, input_items, output_items):
        n = len(output_items[0])
        for k in range(n):
            sl = slice(k * self.F + self.G, (k + 1) * self.F)
            sent = self.decide(input_items[0][sl].reshape(self.N, self.n))
            got = self.decide(input_items[1][sl].reshape(self.N, self.n))
            ser = float(np.mean(sent != got))
            self.frame_sers.append(ser)
            self.history[:-1] = self.history[1:]
            self.history[-1] = ser
            output_items[0][k] = self.history
        return n
