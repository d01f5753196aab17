/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_MAP_DECODER_CPU_H
#define INCLUDED_BSID_CORE_MAP_DECODER_CPU_H

#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <memory>

namespace bsid {

//! The CPU backend (map_decoder_cpu.cc); make() is the public way in.
std::unique_ptr<map_decoder> make_cpu_decoder(const decoder_config& cfg);

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_MAP_DECODER_CPU_H */
