/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_DEVICE_CONCATENATED_LOOP_H
#define INCLUDED_BSID_CORE_DEVICE_CONCATENATED_LOOP_H

#include <gnuradio/bsid/core/outer/concatenated_decoder.h>
#include <memory>
#include <string>

namespace bsid {

/*!
 * concatenated_decoder's passes with everything on one device
 * (lib/cuda/concatenated_loop_cuda.cu): the frames' received items are
 * copied once, and the inner extrinsic output, the mapping, belief
 * propagation and the next pass's priors stay on the device. Each pass
 * brings back only the inner decoder's per-frame status and BP's decisions
 * and iteration counts (and BP's posteriors where they are asked for).
 */
class device_concatenated_loop
{
public:
    virtual ~device_concatenated_loop() = default;
    /*!
     * concatenated_decoder::decode_batch's passes, with the same results.
     * The observer is called after the last pass, in the order of the passes.
     * A device failure (out of memory included) throws before anything is
     * written to the outputs or passed to the observer, so that the caller
     * can decode the batch again on the host.
     */
    virtual std::vector<concatenated_result>
    decode_batch(const std::vector<frame_view>& frames,
                 const concatenated_options& opt,
                 const std::vector<int32_t*>& decisions,
                 const std::vector<double*>& posteriors,
                 const concatenated_decoder::observer& watch) = 0;
};

/*!
 * The reason of a frame whose inner decoding was refused on a pass after the
 * first (the decisions stay the previous pass's): the host and device loops'.
 */
std::string later_refusal(int pass, const frame_result& inner);


} // namespace bsid

#endif /* INCLUDED_BSID_CORE_DEVICE_CONCATENATED_LOOP_H */
