"""
Per-frame symbol error rate for the gr-bsid live demo: N sent symbols (in0)
against N decoded symbols (in1) give one SER value. Each frame puts out the
SER of the last `window` frames as one vector, oldest first, so that a plot
of it moves on by one frame at each frame.
"""

import numpy as np
from gnuradio import gr


class frame_ser(gr.decim_block):
    """Symbol error rate of each frame of N symbols (erased symbols count as errors).
    Puts out, for each frame, the SERs of the last `window` frames, oldest first
    (zeros before the first frame)."""

    def __init__(self, N=500, window=200):
        gr.decim_block.__init__(self, name="Frame SER", in_sig=[np.int32, np.int32],
                                out_sig=[(np.float32, int(window))], decim=int(N))
        self.N = int(N)
        self.history = np.zeros(int(window), dtype=np.float32)

    def work(self, input_items, output_items):
        n = len(output_items[0])
        sent = input_items[0][:n * self.N].reshape(n, self.N)
        got = input_items[1][:n * self.N].reshape(n, self.N)
        for k, ser in enumerate((sent != got).mean(axis=1)):
            self.history[:-1] = self.history[1:]
            self.history[-1] = ser
            output_items[0][k] = self.history
        return n
