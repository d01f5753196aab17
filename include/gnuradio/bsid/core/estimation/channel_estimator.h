/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_CHANNEL_ESTIMATOR_H
#define INCLUDED_BSID_CORE_CHANNEL_ESTIMATOR_H

#include <gnuradio/bsid/core/estimation/event_counts.h>
#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <functional>
#include <string>
#include <vector>

namespace bsid {

//! What estimate_channel() does, besides the decoder's own settings.
struct estimate_options {
    int iterations = 100;       //!< at most this many EM iterations (>= 1)
    double tolerance = 1e-4;    //!< stop when no estimated value moves by more (relative)
    bool fix_Pi = false;        //!< keep Pi at its initial value
    bool fix_Pd = false;        //!< keep Pd at its initial value
    bool fix_Ps = false;        //!< keep Ps at its initial value
    double llr_scale = 1.0;     //!< soft input: the initial LLR scale c (> 0)
    bool fix_llr_scale = false; //!< soft input: keep c
    /*!
     * Over A > 2 letters: estimate the full A x A substitution matrix
     * (channel_params::substitution) instead of one uniform Ps. Implied when
     * the initial channel has a matrix; fix_Ps then keeps the matrix.
     */
    bool substitution_matrix = false;
    /*!
     * Called after each iteration (on the caller's thread), for progress:
     * the iteration (from 0), the log-likelihood its E-step found, and the
     * estimate it moved to. Empty: none.
     */
    std::function<void(int iteration, double log_likelihood, const channel_params& ch)>
        on_iteration;

    /*!
     * Keeps the value named "Pi", "Pd", "Ps" or "llr_scale" at its initial
     * value; throws std::invalid_argument, naming them, for another name.
     */
    void fix(const std::string& name);
};

//! The result of estimate_channel().
struct channel_estimate {
    channel_params ch{ 0, 0, 0 }; //!< the estimate
    double llr_scale = 1.0;       //!< soft input: the LLRs' scale c (1 for bits)
    /*!
     * The log-likelihood at each iterate, from the initial point on: the sum
     * over the frames used of ln P(rx | model) - ln P(rx | random items)
     * (frame_view::log_evidence). EM never lets it decrease.
     */
    std::vector<double> log_likelihoods;
    int iterations = 0;        //!< E-steps run
    bool converged = false;    //!< stopped by the tolerance, not the iteration cap
    size_t frames_used = 0;    //!< frames in the estimate
    size_t frames_refused = 0; //!< frames the decoder refused (not in it)
    event_counts events;       //!< the last E-step's expected events, summed
    /*!
     * With a substitution matrix: the last E-step's expected transmissions of
     * letter x received as y, at [x A + y] (summed over the frames); empty
     * otherwise.
     */
    std::vector<double> substitution_counts;
    drift_range mtau, mn;           //!< the last E-step's state space
    std::vector<std::string> notes; //!< clamps and refusals, also logged
};

/*!
 * \brief Estimates the channel (Pi, Pd, Ps and, for soft input, an LLR scale)
 * from received frames by expectation-maximization over the decoder's own
 * lattice (docs/design.md section 3, "Channel estimation"), over the
 * channel's alphabet of A letters (2: bits).
 *
 * Each iteration decodes every frame with the current estimate and gets
 * its exact expected events (frame_view::events): insertions I, deletions
 * D, transmissions T and substitutions S. The channel's events are i.i.d.
 * draws of insertion, deletion or transmission, so the new estimate is
 * Pi = I / (I + D + T), Pd = D / (I + D + T), Ps = S / T; with a
 * substitution matrix (estimate_options::substitution_matrix) each row x is
 * the expected transmissions of x received as y over those of x. For LLRs
 * l the items weigh as LLRs c l (for log-probabilities lp over A letters,
 * as c lp, normalized), and c maximizes the expected log-probability of
 * what each transmitted item was received as (a concave function of c,
 * solved by Newton's method).
 *
 * cfg gives the codebook, N, backend, precision and Pr; cfg.ch is the
 * initial point. Frames are tagged frames (each from its first item, the
 * sync word's if sync_word is given, to its last) of hard items (bits or
 * letters), LLRs or log-probabilities, with optional priors
 * (known symbols, such as a training sequence, make the estimate
 * data-aided: one-hot priors). Unless cfg gives mtau
 * and mn, the state space is each iterate's computed limits, widened to
 * hold every frame's end drift with room around it, and never narrowed
 * from one iteration to the next (so that the log-likelihood of one
 * iteration is comparable with the last's).
 *
 * Throws std::invalid_argument for no frames, frames with boundary
 * weights, bad options, or an initial point at 0 for a parameter that is
 * estimated (EM would keep it at 0: start above 0, or fix it); and
 * std::runtime_error when the decoder refuses every frame. A step that
 * would leave the valid range (Pi + Pd = 1 when no transmission is
 * expected) is clamped, logged and noted.
 */
channel_estimate estimate_channel(const decoder_config& cfg,
                                  const std::vector<frame_view>& frames,
                                  const estimate_options& opt = {},
                                  const std::vector<uint8_t>& sync_word = {});

/*!
 * \brief estimate_channel over a received stream (stream framing,
 * docs/design.md section 3, "Stream decoding"): each iteration decodes the
 * whole stream with a stream_decoder at the current estimate (sopt: its
 * options; the first frame's start, look-ahead, search...) and takes the
 * expected events of the frames it decodes in sync (their sync word's and
 * codewords' events, not the look-ahead's, which belong to the next frame).
 * The frames found, and so the likelihood summed, follow the estimate: the
 * log-likelihoods (the frames' log-likelihood ratios against random items)
 * are a record of the iterations, not a guaranteed increasing sequence.
 * frames_refused counts the erasures of the last iteration. The stream is
 * bits or LLRs (stream.bits or stream.llr, count items). Throws as
 * estimate_channel does.
 */
channel_estimate estimate_channel_stream(const decoder_config& cfg,
                                         const received_items& stream,
                                         size_t count,
                                         const estimate_options& opt = {},
                                         const std::vector<uint8_t>& sync_word = {},
                                         stream_options sopt = {});

/*!
 * One frame's soft items, unscaled, and their item posteriors
 * (frame_view::item_posteriors): LLRs (bits), or log-probabilities over A
 * letters (logprob, A per item, with alphabet = A).
 */
struct llr_posteriors {
    const double* llr = nullptr;  //!< count LLRs, unscaled
    const double* post = nullptr; //!< A count: P(sent, received as y) at [A j + y]
    size_t count = 0;
    const double* logprob = nullptr; //!< instead of llr: A count log-probabilities
    int alphabet = 2;                //!< A
};

/*!
 * The M-step for the LLR scale alone: the c > 0 that maximizes
 * sum_j post[2j] ln s(-c l_j) + post[2j+1] ln s(c l_j) over every frame's
 * items with a finite l_j (s the logistic function; an infinite LLR weighs
 * the same at every c), by Newton's method from c0; for log-probabilities
 * lp over A letters, sum_j sum_y post[A j + y] ln softmax(c lp_j)_y (letters
 * of probability 0 left out: they weigh 0 at every c). Where the maximum
 * lies outside [1e-6, 1e6] it is clamped there, and `note` says so.
 */
double llr_scale_step(const std::vector<llr_posteriors>& frames,
                      double c0,
                      std::string* note = nullptr);

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_CHANNEL_ESTIMATOR_H */
