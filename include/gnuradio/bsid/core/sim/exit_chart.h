/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_EXIT_CHART_H
#define INCLUDED_BSID_CORE_EXIT_CHART_H

#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/outer/outer_code.h>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bsid {

/*!
 * \brief The a priori model of EXIT charts (docs/capacity.md, "EXIT
 * charts"): symbol x of q gets the log-probabilities
 *   l(D) = sigma^2 [D == x] + sigma z_D,   z_D independent N(0, 1),
 * the output of q orthogonal signals in white Gaussian noise (consistent:
 * its posteriors are true probabilities). Its mutual information per
 * symbol, normalized by log2 q, grows from 0 (sigma = 0) to 1.
 */
struct apriori_model {
    //! I_A / log2 q of sigma: log2 q + E[log2 softmax(l)(x)], over `samples`
    //! fixed draws (the same for every sigma, so that it is monotone).
    static double information(double sigma, int q, size_t samples = 20000);
    //! The sigma of a target I_A in [0, 1) (bisection on information()).
    static double sigma_for(double ia, int q, size_t samples = 20000);
};

//! How an EXIT curve is measured.
struct exit_options {
    size_t frames = 100; //!< frames (words) per point
    uint64_t seed = 0;   //!< frame k: frame_source's frame k of this seed, its z's stream
                         //!< (seed, 2^63 + 2^58 + k)
    size_t batch = 256;  //!< frames per decode_batch call
    int threads = 0;     //!< for generating frames (0: all cores)
    int iterations = 50; //!< the outer decoder's iterations (outer curves)
};

//! One point of an EXIT curve, informations normalized by log2 q.
struct exit_point {
    double sigma = 0;               //!< the a priori model's sigma
    double ia = 0;                  //!< the measured a priori information
    double ie = 0;                  //!< the measured extrinsic information
    double ie_low = 0, ie_high = 0; //!< its 95 % interval over frames
    size_t frames = 0;              //!< frames averaged (refused ones left out)
    //! Outer curves: the fraction of words decoded to the codeword sent
    //! (the outer code's word success rate on the a priori model's channel).
    double decoded = 0;
};

/*!
 * \brief The inner MAP decoder's EXIT curve on cfg's channel: for each
 * target I_A, frames of N uniform symbols through the channel (frame_source,
 * no sync word, ends known) decoded with a priori symbol probabilities from
 * apriori_model, extrinsic output; I_E = 1 + E[log2 ext(x)] / log2 q over the
 * true symbols x (ext(x) floored at 1e-300). Throws std::invalid_argument
 * for a target outside [0, 1), fewer than 2 frames or a batch of 0.
 */
std::vector<exit_point> inner_exit_curve(const decoder_config& cfg,
                                         const std::vector<double>& ia,
                                         const exit_options& opt);

/*!
 * \brief An outer code's EXIT curve: for each target I_A, codewords of
 * uniform information symbols (word k's from the Philox stream (seed, 2^63 +
 * 2^57 + k)) observed through apriori_model, decoded by the code's
 * soft-in soft-out decoder (opt.iterations at most); I_E from its extrinsic
 * output over the codeword symbols, as for the inner curve. A word the
 * decoder decodes to the codeword sent counts I_E = 1: the iterative decoder
 * is done with it (and the decoder, which stops as soon as its decisions form
 * a codeword, returns no further extrinsic information), so the curve
 * predicts whether the iterations reach a decoded word.
 */
std::vector<exit_point> outer_exit_curve(const outer_code& code,
                                         const siso_config& cfg,
                                         const std::vector<double>& ia,
                                         const exit_options& opt);

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_EXIT_CHART_H */
