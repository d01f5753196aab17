/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_INFORMATION_RATE_H
#define INCLUDED_BSID_CORE_INFORMATION_RATE_H

#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bsid {

//! How information_rate() simulates (docs/capacity.md).
struct information_rate_options {
    size_t frames = 100; //!< simulated frames (at least 2, for an interval)
    uint64_t seed = 0;   //!< frame k is frame_source's frame k of this seed
    size_t batch = 256;  //!< frames per decode_batch call
    int threads = 0;     //!< for generating frames (0: all cores)
};

/*!
 * \brief A Monte-Carlo information rate, in bits per transmitted channel
 * symbol, with its 95 % interval (mean +- 1.96 standard errors).
 */
struct information_rate_result {
    double rate = 0;
    double ci_low = 0, ci_high = 0;
    size_t frames = 0;   //!< frames in the average
    size_t excluded = 0; //!< frames whose drift left the decoder's limits
    /*!
     * Each averaged frame's (log2 P(y | x) - log2 P(y)) / (N n), in frame
     * order (excluded frames left out).
     */
    std::vector<double> samples;
};

/*!
 * \brief The information rate of a codebook on a channel,
 *   I = E[log2 P(y | x) - log2 P(y)] / (N n),
 * estimated over simulated frames of N uniform independent message symbols
 * (docs/capacity.md, "Information rates").
 *
 * Frame k is frame_source(cfg.cb, cfg.ch, cfg.N, opt.seed)'s frame k (no sync
 * word). Both likelihoods are exact under the decoder's drift limits (from
 * cfg.Pr, or cfg.mtau / cfg.mn), with the frame's ends known: P(y) is the
 * decoder's evidence with uniform priors (its forward pass summed over every
 * message), P(y | x) the same pass with the sent message's priors certain
 * (the channel's lattice on the sent sequence). A frame whose drift left the
 * limits has P(y | x) = 0 in that model; it is counted in `excluded` and left
 * out (its probability is about cfg.Pr per frame). With the uncoded codebook
 * (n = 1, q = A) this is the channel's i.i.d. information rate at this frame
 * length; the known ends bias it upwards by about log2(N) / (N n).
 *
 * Runs on cfg's backend and precision. Throws std::invalid_argument for
 * fewer than 2 frames, a batch of 0, or a frame index past frame_source's
 * limit; std::runtime_error if no frame stays within the limits.
 */
information_rate_result information_rate(const decoder_config& cfg,
                                         const information_rate_options& opt);

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_INFORMATION_RATE_H */
