/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The core module's bindings, one function per concern (bind_*.cc), called
// in order by bsid_core_python.cc.

#ifndef INCLUDED_BSID_PYTHON_BINDINGS_H
#define INCLUDED_BSID_PYTHON_BINDINGS_H

#include <pybind11/pybind11.h>

void bind_channel(
    pybind11::module_& m); // channel_params, drift limits, codebook, channel
void bind_map_decoder(pybind11::module_& m); // map_decoder_core, frame_decode_result
void bind_stream(pybind11::module_& m);      // stream_decoder, stream_frame
//! The outer code's part (docs/concatenated.md): ldpc_code, ldpc_decoder and
//! symbol_mapping.
void bind_ldpc(pybind11::module_& m);
void bind_concatenated(pybind11::module_& m); // concatenated_decoder_core
void bind_sim(pybind11::module_& m);          // frame_source, frame_batch, hard_decisions
void bind_estimation(pybind11::module_& m);   // estimate_channel
//! information_rate and its result (docs/capacity.md).
void bind_capacity(pybind11::module_& m);
void bind_reads(
    pybind11::module_& m); // map_decoder_core.decode_reads (after bind_map_decoder)

#endif /* INCLUDED_BSID_PYTHON_BINDINGS_H */
