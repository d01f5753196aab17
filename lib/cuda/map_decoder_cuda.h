/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CUDA_MAP_DECODER_CUDA_H
#define INCLUDED_BSID_CUDA_MAP_DECODER_CUDA_H

#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <memory>
#include <string>

namespace bsid {

/*!
 * \brief The CUDA backend (map_decoder_cuda.cu). Throws std::runtime_error,
 * with the reason, when no usable CUDA device is present (no driver,
 * cudaErrorInsufficientDriver, no device): the factory then falls back to the
 * CPU for backend "auto".
 */
std::unique_ptr<map_decoder> make_cuda_decoder(const decoder_config& cfg);

/*!
 * \brief Whether CUDA device `device` can be used; if not, `why` says what
 * the runtime answered. Never throws.
 */
bool cuda_device_available(int device, std::string* why = nullptr);

// cuda_device_count() (map_decoder.h) is defined in map_decoder_cuda.cu too.

//! Whether the device a decoder_config names (with BSID_CUDA_DEVICE) can be used. Never
//! throws.
bool cuda_device_available(const decoder_config& cfg, std::string* why = nullptr);

} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_MAP_DECODER_CUDA_H */
