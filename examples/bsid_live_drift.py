"""
Drift probe for the gr-bsid live demo: one float per received frame, the
frame's end drift rho - tau from the channel's "bsid_drift" tags.
"""

import numpy as np
import pmt
from gnuradio import gr


class drift_probe(gr.basic_block):
    """Turns the channel's bsid_drift tags into a stream of floats, one per frame."""

    def __init__(self):
        gr.basic_block.__init__(self, name="Drift probe", in_sig=[np.uint8], out_sig=[np.float32])
        self.key = pmt.intern("bsid_drift")
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
        output_items[0][:k] = self.pending[:k]
        del self.pending[:k]
        return k
