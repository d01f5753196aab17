/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CUDA_DEVICE_LOOP_H
#define INCLUDED_BSID_CUDA_DEVICE_LOOP_H

/*
 * What the concatenated decoder's device loop (concatenated_loop_cuda.cu)
 * needs from the two CUDA decoders: inputs and outputs that stay on the
 * device between passes. The CUDA MAP decoder (map_decoder_cuda.cu)
 * implements staged_inner, the CUDA belief propagation (ldpc_decoder_cuda.cu)
 * device_bp. Both throw (cuda_error, std::runtime_error) rather than fall
 * back to the CPU: the loop then decodes the whole batch again on the host.
 */

#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/outer/ldpc_decoder.h>
#include <cstdint>
#include <vector>

namespace bsid {
namespace cuda {

class staged_inner
{
public:
    virtual ~staged_inner() = default;
    /*!
     * Checks the frames (as decode_batch does) and copies the received items
     * of those it accepts to the device, once for all passes, replacing any
     * batch staged before. Returns, per frame, whether it is staged; results[k]
     * says why a frame was refused. The frames must outlive the staged batch.
     */
    virtual std::vector<char> stage(const std::vector<frame_view>& frames,
                                    std::vector<frame_result>& results) = 0;
    /*!
     * Decodes the staged frames `which` (indices into the staged batch) with
     * log_priors (device, which.size() rows of N x q natural logs up to a
     * constant per row; null: none) and writes each frame's extrinsic output
     * (the posterior without the prior, normalized probabilities in double)
     * to ext (device, which.size() x N x q); results[which[j]] says whether
     * frame j decoded. The rows of a frame that did not are undefined.
     */
    virtual void decode_staged(const std::vector<size_t>& which,
                               const double* log_priors,
                               double* ext,
                               std::vector<frame_result>& results) = 0;
    //! The CUDA device the decoder runs on.
    virtual int device() const = 0;
    //! Gives back the staged batch and the decoder's cached device buffers
    //! (after running out of device memory: the loop then tries a smaller
    //! part of its batch); the next stage() allocates afresh.
    virtual void release() = 0;
};

class device_bp
{
public:
    virtual ~device_bp() = default;
    /*!
     * decode_batch with the input and the soft outputs on the device: W words
     * of in (n x q log-probabilities each, up to a constant per row), post and
     * ext (W x n x q each, or null), and the hard decisions copied to
     * decisions (host, W x n).
     */
    virtual std::vector<bp_result> decode_device(const double* in,
                                                 int W,
                                                 int max_iterations,
                                                 double* post,
                                                 double* ext,
                                                 int32_t* decisions) = 0;
    //! Gives back the per-batch device buffers.
    virtual void release() = 0;
};

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_DEVICE_LOOP_H */
