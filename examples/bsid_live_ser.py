"""
Per-frame symbol error rate for the gr-bsid live demo: N sent symbols (in0)
against N decoded symbols (in1) give one SER value.
"""

import numpy as np
from gnuradio import gr


class frame_ser(gr.decim_block):
    """Symbol error rate of each frame of N symbols (erased symbols count as errors)."""

    def __init__(self, N=500):
        gr.decim_block.__init__(self, name="Frame SER", in_sig=[np.int32, np.int32],
                                out_sig=[np.float32], decim=int(N))
        self.N = int(N)

    def work(self, input_items, output_items):
        n = len(output_items[0])
        sent = input_items[0][:n * self.N].reshape(n, self.N)
        got = input_items[1][:n * self.N].reshape(n, self.N)
        output_items[0][:] = (sent != got).mean(axis=1)
        return n
