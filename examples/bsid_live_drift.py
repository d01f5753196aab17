"""
Drift probe for the gr-bsid live demo: the end drift rho - tau of each
received frame, from the channel's "bsid_drift" tags. Each frame puts out
the drifts of the last `window` frames as one vector, oldest first, so that
a plot of it moves on by one frame at each frame.
"""

import numpy as np
import pmt
from gnuradio import gr


class drift_probe(gr.basic_block):
    """Turns the channel's bsid_drift tags into the end drift of each frame.
    Puts out, for each frame, the drifts of the last `window` frames, oldest
    first (zeros before the first frame)."""

    def __init__(self, window=200):
        gr.basic_block.__init__(self, name="Drift probe", in_sig=[np.uint8],
                                out_sig=[(np.float32, int(window))])
        self.key = pmt.intern("bsid_drift")
        self.history = np.zeros(int(window), dtype=np.float32)
        self.pending = []

    def forecast(self, noutput_items, ninputs):
        return [1]

    def general_work(self, input_items, output_items):
        n = len(input_items[0])
        start = self.nitems_read(0)
        for tag in self.get_tags_in_range(0, start, start + n, self.key):
            self.pending.append(float(pmt.to_long(tag.value)))
        self.consume(0, n)
        k = min(len(self.pending), len(output_items[0]))
        for j in range(k):
            self.history[:-1] = self.history[1:]
            self.history[-1] = self.pending[j]
            output_items[0][j] = self.history
        del self.pending[:k]
        return k
