/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The backends and where they are chosen. backends.cc owns every factory
// (the MAP decoder, belief propagation, the concatenated decoder's device
// loop) and the auto/fallback policy; it is the one core file that knows
// whether the CUDA backend is built. The CUDA backend (lib/cuda) defines
// the entry points declared here only where it is built; nothing in the
// core includes a CUDA header.

#ifndef INCLUDED_BSID_CORE_RUNTIME_BACKENDS_H
#define INCLUDED_BSID_CORE_RUNTIME_BACKENDS_H

#include "outer/device_concatenated_loop.h"
#include "reads/joint_decoder.h"
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/outer/ldpc_decoder.h>
#include <gnuradio/bsid/core/outer/symbol_mapping.h>
#include <functional>
#include <memory>
#include <string>

namespace bsid {

//! Builds the CPU decoder that a GPU decoder hands work to when the device
//! cannot take it (a frame larger than its memory, an allocation that
//! fails), from the GPU decoder's own settings (its drift limits resolved);
//! called on first use.
using map_decoder_maker =
    std::function<std::unique_ptr<map_decoder>(const decoder_config&)>;
using ldpc_decoder_maker =
    std::function<std::unique_ptr<ldpc_decoder>(const ldpc_code&, const bp_config&)>;

// The CPU backends (inner/map_decoder_cpu.cc, outer/ldpc_decoder_cpu.cc).
std::unique_ptr<map_decoder> make_cpu_decoder(const decoder_config& cfg);
std::unique_ptr<ldpc_decoder> make_ldpc_decoder_cpu(const ldpc_code& code,
                                                    const bp_config& cfg);

// The CUDA backend's entry points (lib/cuda), where it is built.
std::unique_ptr<map_decoder> make_cuda_decoder(const decoder_config& cfg,
                                               map_decoder_maker cpu_fallback);
std::unique_ptr<ldpc_decoder> make_ldpc_decoder_cuda(const ldpc_code& code,
                                                     const bp_config& cfg,
                                                     ldpc_decoder_maker cpu_fallback);
std::unique_ptr<device_concatenated_loop>
make_device_concatenated_loop(map_decoder& inner,
                              siso_decoder& outer,
                              const outer_code& code,
                              const symbol_mapping& map);
//! Whether CUDA device `device` can be used (false, with why, where CUDA is
//! not built). Never throws.
bool cuda_device_available(int device, std::string* why = nullptr);
//! Whether the device a decoder_config names (with BSID_CUDA_DEVICE) can be
//! used. Never throws.
bool cuda_device_available(const decoder_config& cfg, std::string* why = nullptr);

//! A device list set directly (not through parse_devices): the same rules
//! (inner/map_decoder.cc).
void check_devices(const std::vector<int>& devices);

/*!
 * The concatenated decoder's passes kept on the device of `inner` and
 * `outer`, or null where they do not both run on one, or the device loop
 * does not know the outer code (it knows ldpc_code), or CUDA is not built:
 * the host loop decodes then.
 */
std::unique_ptr<device_concatenated_loop> make_device_loop(map_decoder& inner,
                                                           siso_decoder& outer,
                                                           const outer_code& code,
                                                           const symbol_mapping& map);

/*!
 * The joint decoder of several reads (docs/reads.md) for decoders of `base`
 * over these channels, on `backend` (what the reads' single decoders
 * resolved to: the GPU where they run on one, on base.cuda.device, with the
 * CPU backend for the frames the device cannot hold).
 */
std::unique_ptr<reads::joint_decoder>
make_joint_decoder(const decoder_config& base,
                   const std::vector<reads::read_channel>& channels,
                   backend_kind backend);
//! The CUDA joint decoder (lib/cuda), where it is built.
std::unique_ptr<reads::joint_decoder>
make_joint_cuda_decoder(const decoder_config& base,
                        const std::vector<reads::read_channel>& channels,
                        std::unique_ptr<reads::joint_decoder> cpu_fallback);

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_RUNTIME_BACKENDS_H */
