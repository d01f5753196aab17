"""
BER counter for the gr-bsid concatenated example: compares the decoded
information bits (in1) with the sent ones (in0), frame by frame of K bits,
reads the concatenated decoder's bsid_iterations, bsid_frame_ok and
bsid_erasure tags, and prints the bit and frame error rates, the erasures and
the mean passes when the flowgraph stops.
"""

import time

import numpy as np
import pmt
from gnuradio import gr


class ber_counter(gr.sync_block):
    """Counts bit errors between sent (in0) and decoded (in1) information bits,
    frame by frame of K bits, and the decoder's tags on in1."""

    def __init__(self, K=768):
        gr.sync_block.__init__(self, name="BER counter",
                               in_sig=[np.uint8, np.uint8], out_sig=None)
        self.K = int(K)
        self.bits = 0
        self.errors = 0
        self.frame_errors = 0
        self.frame_wrong = 0  # errors in the frame being counted
        self.erasures = 0
        self.frames_ok = 0
        self.iterations = 0
        self.t0 = None

    def start(self):
        self.t0 = time.perf_counter()
        return True

    def work(self, input_items, output_items):
        sent, got = input_items[0], input_items[1]
        n = len(sent)
        for t in self.get_tags_in_window(1, 0, n):
            key = pmt.symbol_to_string(t.key)
            if key == "bsid_iterations":
                self.iterations += pmt.to_long(t.value)
            elif key == "bsid_frame_ok":
                self.frames_ok += int(pmt.to_bool(t.value))
            elif key == "bsid_erasure":
                self.erasures += 1
        wrong = sent != got
        k = 0
        while k < n:  # walk frame boundaries
            take = min(n - k, self.K - self.bits % self.K)
            self.frame_wrong += int(wrong[k:k + take].sum())
            self.bits += take
            k += take
            if self.bits % self.K == 0:
                self.errors += self.frame_wrong
                self.frame_errors += self.frame_wrong > 0
                self.frame_wrong = 0
        return n

    def stop(self):
        elapsed = time.perf_counter() - (self.t0 or time.perf_counter())
        frames = self.bits // self.K
        bits = frames * self.K
        ber = self.errors / bits if bits else float("nan")
        fer = self.frame_errors / frames if frames else float("nan")
        passes = self.iterations / frames if frames else float("nan")
        print("frames %d, information bits %d, bit errors %d: BER %.3e, FER %.3e, "
              "erasures %d, decoded to a codeword %d, mean iterations %.2f (%.2f s)"
              % (frames, bits, self.errors, ber, fer, self.erasures, self.frames_ok,
                 passes, elapsed), flush=True)
        return True
