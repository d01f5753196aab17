#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The backends the core Python tests decode with (a helper, not a test):
BSID_TEST_BACKEND if set, else "cpu", and "cuda" where a GPU is usable."""

import os

import bsid_core as bsid


def backends():
    forced = os.environ.get("BSID_TEST_BACKEND")
    if forced:
        return [forced]
    out = ["cpu"]
    try:
        bsid.map_decoder_core(bsid.codebook(3, [[3, 4]]), bsid.channel_params(0.1, 0.1, 0), 2,
                              backend="cuda")
        out.append("cuda")
    except RuntimeError:
        pass  # no CUDA backend in this build, or no usable GPU here
    return out
