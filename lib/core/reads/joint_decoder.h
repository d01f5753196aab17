/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The joint decoder of several reads (docs/reads.md, "Joint decoding"): the
// seam between reads_decoder, which checks the reads and leaves out the ones
// that cannot be decoded, and the backends that run the recursion over the
// tuples of the reads' drifts (the CPU's here; make_joint_decoder in
// runtime/backends picks one).

#ifndef INCLUDED_BSID_CORE_JOINT_DECODER_H
#define INCLUDED_BSID_CORE_JOINT_DECODER_H

#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <memory>
#include <vector>

namespace bsid {
namespace reads {

//! A channel the reads come through, and the drift limits of a read through it.
struct read_channel {
    channel_params ch;
    decoder_limits limits;
};

/*!
 * One frame for the joint decoder: 2 or 3 reads that passed the single
 * decoder's checks (a length within their limits, valid items), the
 * channel of each (an index into the decoder's channels), the priors
 * normalized (N x q, double; null for uniform) and whether the output is
 * extrinsic.
 */
struct joint_frame {
    std::vector<frame_read> reads;
    std::vector<int> channel;
    const double* priors = nullptr;
    bool extrinsic = false;
};

/*!
 * The joint forward-backward over the tuples of the reads' drifts at
 * codeword boundaries. A frame of probability 0 within the limits gets
 * frame_status::impossible, a failure decoder_error; either with uniform
 * posteriors. Never throws for a frame; thread-safe.
 */
class joint_decoder
{
public:
    virtual ~joint_decoder() = default;
    virtual std::vector<frame_result> decode_batch(const std::vector<joint_frame>& frames,
                                                   const std::vector<double*>& post) = 0;
};

/*!
 * The CPU backend, in the precision of base.precision (the lattices; the
 * recursion is in double in both), on base.threads threads.
 */
std::unique_ptr<joint_decoder> make_joint_cpu_decoder(const decoder_config& base,
                                                      std::vector<read_channel> channels);

/*!
 * The joint states of one boundary for reads through these channels: the
 * product of their M_tau.
 */
size_t joint_states(const std::vector<const read_channel*>& channels);

} // namespace reads
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_JOINT_DECODER_H */
