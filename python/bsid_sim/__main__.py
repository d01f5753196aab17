#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""python3 -m bsid_sim: the same as the bsid-sim command."""

import sys

from .cli import main

sys.exit(main())
