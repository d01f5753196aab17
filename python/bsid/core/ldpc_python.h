/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The outer code's part of the core module (docs/concatenated.md): ldpc_code,
// ldpc_decoder and symbol_mapping. concatenated_decoder, which takes a
// map_decoder_core, is bound with it in bsid_core_python.cc.

#ifndef INCLUDED_BSID_PYTHON_LDPC_PYTHON_H
#define INCLUDED_BSID_PYTHON_LDPC_PYTHON_H

#include <pybind11/pybind11.h>

void bind_ldpc(pybind11::module_& m);

#endif
