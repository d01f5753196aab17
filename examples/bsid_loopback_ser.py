"""
SER counter for the gr-bsid loopback: compares the decoded symbols (in1) with
the sent ones (in0), frame by frame, and prints the symbol and frame error
rates, the erasures and the decoded Mbit/s when the flowgraph stops.
"""

import time

import numpy as np
from gnuradio import gr


class ser_counter(gr.sync_block):
    """Counts symbol errors between sent (in0) and decoded (in1) int32 symbols.
    An erased frame (all symbols -1) counts as an erasure and its symbols as errors."""

    def __init__(self, N=500, bits_per_symbol=4.0):
        gr.sync_block.__init__(self, name="SER counter",
                               in_sig=[np.int32, np.int32], out_sig=None)
        self.N = int(N)
        self.bits_per_symbol = float(bits_per_symbol)
        self.symbols = 0
        self.errors = 0
        self.frame_errors = 0
        self.erasures = 0
        self.frame_wrong = 0    # errors in the frame being counted
        self.frame_erased = 0   # -1 symbols in it
        self.t0 = None

    def start(self):
        self.t0 = time.perf_counter()
        return True

    def work(self, input_items, output_items):
        sent, got = input_items[0], input_items[1]
        n = len(sent)
        wrong = sent != got
        erased = got == -1
        k = 0
        while k < n:  # walk frame boundaries
            take = min(n - k, self.N - self.symbols % self.N)
            self.frame_wrong += int(wrong[k:k + take].sum())
            self.frame_erased += int(erased[k:k + take].sum())
            self.symbols += take
            k += take
            if self.symbols % self.N == 0:
                self.errors += self.frame_wrong
                self.frame_errors += self.frame_wrong > 0
                self.erasures += self.frame_erased == self.N
                self.frame_wrong = self.frame_erased = 0
        return n

    def stop(self):
        elapsed = time.perf_counter() - (self.t0 or time.perf_counter())
        frames = self.symbols // self.N
        symbols = frames * self.N
        ser = self.errors / symbols if symbols else float("nan")
        fer = self.frame_errors / frames if frames else float("nan")
        mbit = symbols * self.bits_per_symbol / elapsed / 1e6 if elapsed > 0 else float("nan")
        print("frames %d, symbols %d, symbol errors %d: SER %.3e, FER %.3e, erasures %d; "
              "%.3f Mbit/s decoded (%.2f s)" % (frames, symbols, self.errors, ser, fer,
                                                self.erasures, mbit, elapsed), flush=True)
        return True
