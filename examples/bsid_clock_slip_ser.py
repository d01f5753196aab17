"""
Symbol error rate per frame of the clock-slip example: N sent symbols (in0)
against N decoded symbols (in1; an erased frame's -1s count as errors). Keeps
every frame's SER (frame_sers) and the totals; puts out, for each frame, the
SERs of the last `window` frames as one vector, oldest first.
"""

import numpy as np
from gnuradio import gr


class frame_ser(gr.decim_block):
    """Per-frame SER of the MAP decoder's output against the sent symbols."""

    def __init__(self, N=100, window=200):
        gr.decim_block.__init__(self, name="MAP decoder SER", in_sig=[np.int32, np.int32],
                                out_sig=[(np.float32, int(window))], decim=int(N))
        self.N = int(N)
        self.history = np.zeros(int(window), dtype=np.float32)
        self.frame_sers = []

    def work(self, input_items, output_items):
        n = len(output_items[0])
        sent = input_items[0][:n * self.N].reshape(n, self.N)
        got = input_items[1][:n * self.N].reshape(n, self.N)
        for k, ser in enumerate((sent != got).mean(axis=1)):
            self.frame_sers.append(float(ser))
            self.history[:-1] = self.history[1:]
            self.history[-1] = ser
            output_items[0][k] = self.history
        return n
