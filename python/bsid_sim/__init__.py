#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""bsid-sim: error rates of a codebook over the BSID channel.

Random messages are encoded, sent through the channel and decoded by the MAP
decoder (on the GPU when there is one); MAP symbol decisions give the symbol,
frame and bit error rates with confidence intervals computed over frames,
per point of a parameter sweep. The command line is `bsid-sim` (or
`python3 -m bsid_sim`); docs/simulating.md is the user guide.

Needs only the core module bsid_core and numpy (tqdm for a progress bar and
matplotlib for plots, when installed). Import it as `import bsid_sim` or,
with GNU Radio, `from gnuradio.bsid import sim`.

    import bsid_sim as sim
    res = sim.simulate("builtin:ld3-modvec6", 50, sweep="p",
                       values=sim.parse_values("0.01:0.04:x2"), max_time=5)
    sim.write_csv("out.csv", [r.row() for r in res])
"""

from .cli import main
from .dump import read_failure, replay
from .engine import PointConfig, PointResult, bits_per_symbol, run_point
from .plot import plot_results
from .results import COLUMNS, read_results, write_csv, write_json
from .stats import clustered_interval, design_effect, wilson_interval, z_value
from .sweep import point_configs, run_configs, simulate
from .values import parse_values

__all__ = [
    "main", "simulate", "point_configs", "run_configs", "run_point", "PointConfig",
    "PointResult", "parse_values", "wilson_interval", "clustered_interval", "design_effect",
    "z_value", "bits_per_symbol", "COLUMNS", "write_csv", "write_json", "read_results",
    "plot_results", "read_failure", "replay",
]
