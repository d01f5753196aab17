#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The error-rate simulator as gnuradio.bsid.sim: the same module as the
top-level bsid_sim, which also works without GNU Radio (docs/simulating.md).

    from gnuradio.bsid import sim
    res = sim.simulate("builtin:ld3-modvec6", 50, sweep="p",
                       values=sim.parse_values("0.01:0.04:x2"), max_time=5)
"""

import sys

import bsid_sim

sys.modules[__name__] = bsid_sim
