#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Where the log goes and how much of it: scripts whose stdout is data (CSV,
JSON) keep it clean.

In bsid_sim (it needs only bsid_core), and as gnuradio.bsid.configure_logging.
Debian's GNU Radio logs every block message from debug up to stdout
(/etc/gnuradio/conf.d/gnuradio-runtime.conf: log_level = debug, log_file =
stdout). configure_logging() sends GNU Radio's log to stderr at the level
given, and sets the core's level (bsid_core.set_log_level) to match. Call it
before the first block is made: GNU Radio reads where its log goes once, when
its logger starts, which importing gnuradio.bsid does (later calls still set
the level). A script therefore calls configure_from_argv() before it imports
GNU Radio, and declares the option for --help and checking:

    from bsid_sim.log_setup import add_log_level_argument, configure_from_argv
    configure_from_argv()              # --log-level from sys.argv, before GNU Radio
    from gnuradio import bsid
    ...
    add_log_level_argument(ap)
"""

import os
import sys

import bsid_core

LEVELS = ("debug", "info", "warning", "error", "off")

# GNU Radio's names for them (spdlog's)
_GR = {"debug": "debug", "info": "info", "warning": "warn", "error": "error", "off": "off"}

__all__ = ["LEVELS", "add_log_level_argument", "configure_logging", "configure_from_argv"]


def add_log_level_argument(parser):
    """--log-level: what GNU Radio and the core log (to stderr)."""
    parser.add_argument("--log-level", choices=LEVELS, default=None,
                        help="log messages from this level up, on stderr (default: "
                        "warning, or the BSID_LOG_LEVEL environment variable's for the "
                        "core)")


def configure_logging(level=None):
    """GNU Radio's log to stderr from `level` up, and the core's from the same.
    None: warning for GNU Radio, and the core's level as it is (warning, or
    BSID_LOG_LEVEL's)."""
    if level is not None and level not in LEVELS:
        raise ValueError("log level '%s' is not one of %s" % (level, ", ".join(LEVELS)))
    gr_level = _GR[level or "warning"]
    # read by GNU Radio's preferences when its logger starts (GR_CONF_<SECTION>_<OPTION>)
    os.environ["GR_CONF_LOG_LOG_FILE"] = "stderr"
    os.environ["GR_CONF_LOG_LOG_LEVEL"] = gr_level
    if level is not None:
        bsid_core.set_log_level(level)
    try:
        from gnuradio import gr
    except ImportError:  # the core alone
        return
    # a logger that started already keeps its sink, but takes the level
    gr.logging().set_default_level(getattr(gr.log_levels, gr_level))


def configure_from_argv(argv=None):
    """configure_logging() with the --log-level of argv (sys.argv): for a script
    to call before it imports GNU Radio, ahead of its argument parser (which
    rejects a bad value; until then it counts as none)."""
    argv = sys.argv[1:] if argv is None else argv
    level = None
    for k, arg in enumerate(argv):
        if arg == "--log-level" and k + 1 < len(argv):
            level = argv[k + 1]
        elif arg.startswith("--log-level="):
            level = arg.split("=", 1)[1]
    configure_logging(level if level in LEVELS else None)
    return level
