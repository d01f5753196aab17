/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CUDA_LDPC_DECODER_CUDA_H
#define INCLUDED_BSID_CUDA_LDPC_DECODER_CUDA_H

#include <gnuradio/bsid/core/outer/ldpc_decoder.h>
#include <memory>

namespace bsid {

/*!
 * \brief The CUDA backend of belief propagation (ldpc_decoder_cuda.cu): words
 * decoded in batches on the device, in cfg.precision, with bp_math.h's check
 * and variable nodes. Throws std::runtime_error, with the reason, when no
 * usable device is present.
 */
std::unique_ptr<ldpc_decoder> make_ldpc_decoder_cuda(const ldpc_code& code,
                                                     const bp_config& cfg);

} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_LDPC_DECODER_CUDA_H */
