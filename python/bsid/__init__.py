#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
gr-bsid: codes that correct synchronization errors (insertions, deletions and
substitutions of bits) for GNU Radio.

The core API (codebook, channel_params, transmit, drift_limits, drift_pdf,
...) comes from the GNU-Radio-free extension module bsid_core and is
re-exported here, so `from gnuradio import bsid` and `import bsid_core as bsid`
give the same core API. See docs/design.md section 2 and help(bsid.codebook).
'''

from bsid_core import *  # noqa: F401,F403  the core API
from bsid_core import __version__  # noqa: F401
from bsid_sim.log_setup import add_log_level_argument, configure_logging  # noqa: F401

try:
    # GNU Radio blocks, when the module has been built with them
    from .bsid_python import *  # noqa: F401,F403
    from .map_decoder_pdu import map_decoder_pdu  # noqa: F401  (message-port decoder)
except ModuleNotFoundError:
    pass


def _shorten_type_errors():
    # a wrong argument type names the argument (N = 500.0 must be an int),
    # not the whole signature (short_errors.py)
    from .short_errors import short_type_errors
    for name in ("map_decoder", "codebook_encoder", "channel", "concatenated_decoder",
                 "ldpc_encoder", "map_decoder_core", "stream_decoder", "channel_params",
                 "concatenated_decoder_core", "channel_emulator", "frame_source"):
        cls = globals().get(name)
        if isinstance(cls, type):
            short_type_errors(cls)


_shorten_type_errors()
