"""
The drift track of the clock-slip example: from the MAP decoder's bsid_drift
tags, each frame's own slip (end drift less start drift: its received length
less its sent length) summed from the first frame on, that is, how far the
receiver's clock has slipped against the transmitter's, in bits. Erased
frames (bsid_erasure tags) add nothing. Puts out, for each frame, the track
over the last `window` frames as one vector, oldest first.
"""

import numpy as np
import pmt
from gnuradio import gr


class drift_track(gr.basic_block):
    """The accumulated drift (received minus sent bits) after each frame."""

    def __init__(self, N=100, window=200):
        gr.basic_block.__init__(self, name="Drift track", in_sig=[np.int32],
                                out_sig=[(np.float32, int(window))])
        self.N = int(N)
        self.drift_key = pmt.intern("bsid_drift")
        self.erasure_key = pmt.intern("bsid_erasure")
        self.start_key = pmt.intern("start")
        self.end_key = pmt.intern("end")
        self.history = np.zeros(int(window), dtype=np.float32)
        self.total = 0      # bits slipped so far
        self.track = []     # self.total after each frame
        self.erasures = 0
        self.pending = []

    def forecast(self, noutput_items, ninputs):
        return [1]

    def general_work(self, input_items, output_items):
        n = len(input_items[0])
        first = self.nitems_read(0)
        for tag in sorted(self.get_tags_in_range(0, first, first + n), key=lambda t: t.offset):
            if pmt.eqv(tag.key, self.drift_key):
                start = pmt.to_long(pmt.dict_ref(tag.value, self.start_key, pmt.from_long(0)))
                end = pmt.to_long(pmt.dict_ref(tag.value, self.end_key, pmt.from_long(0)))
                self.total += end - start
                self.pending.append(self.total)
            elif pmt.eqv(tag.key, self.erasure_key):
                self.erasures += 1
                self.pending.append(self.total)
        self.consume(0, n)
        k = min(len(self.pending), len(output_items[0]))
        for j in range(k):
            self.track.append(self.pending[j])
            self.history[:-1] = self.history[1:]
            self.history[-1] = self.pending[j]
            output_items[0][j] = self.history
        del self.pending[:k]
        return k
