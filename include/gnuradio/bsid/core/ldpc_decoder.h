/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_LDPC_DECODER_H
#define INCLUDED_BSID_CORE_LDPC_DECODER_H

#include <gnuradio/bsid/core/ldpc_code.h>
#include <cstdint>
#include <vector>

namespace bsid {

//! What belief propagation did with one word.
struct bp_result {
    int iterations = 0; //!< message-passing iterations run (0: the input already decoded)
    bool syndrome_ok = false; //!< the hard decisions satisfy every check
};

/*!
 * \brief Belief propagation over GF(q) for an ldpc_code, soft in and soft
 * out (docs/concatenated.md, "Belief propagation").
 *
 * Input: n x q log-probabilities of each symbol from the channel (here the
 * inner decoder's extrinsic output), each row up to any constant; -infinity
 * is a zero probability. Output, each row normalized so that its
 * probabilities sum to 1 (log-sum-exp 0):
 *  - the posterior: input plus every check's message;
 *  - the extrinsic: every check's message without the input (the posterior
 *    over the input, computed in logs).
 * Variable nodes work in the log domain. Check nodes work in the probability
 * domain through the Walsh-Hadamard transform: each incoming message is taken
 * to probabilities relative to its largest entry, permuted by its edge's
 * coefficient, transformed, multiplied without the target edge (prefix and
 * suffix products, no division), transformed back and permuted back; a
 * result below e^-700 of its row's largest (rounding) is kept at e^-700, so
 * that rounding never makes a symbol impossible. Flooding schedule; the
 * decoder stops as soon as the hard decisions (largest posterior, ties to the
 * lowest symbol) form a codeword. An input whose own decisions already form
 * one passes no message: 0 iterations, the posterior is the input and the
 * extrinsic output is uniform.
 */
class ldpc_decoder
{
public:
    //! threads: for decode_batch (0: all cores).
    explicit ldpc_decoder(const ldpc_code& code, int threads = 0);

    /*!
     * Decodes one word. in: n q log-probabilities; post, ext (either may be
     * null): n q normalized log-probabilities; decisions (may be null): the n
     * hard decisions. Throws std::invalid_argument for max_iterations < 1, or
     * an input with a NaN or +infinity or a row of only -infinity (named by
     * symbol), before any work.
     */
    bp_result decode(const double* in,
                     int max_iterations,
                     double* post,
                     double* ext,
                     int32_t* decisions = nullptr) const;

    /*!
     * Many words over threads; the pointers of word j are in[j], post[j],
     * ext[j], decisions[j] (each vector empty, or one pointer per word, which
     * may be null). All inputs are checked before any is decoded.
     */
    std::vector<bp_result> decode_batch(const std::vector<const double*>& in,
                                        int max_iterations,
                                        const std::vector<double*>& post,
                                        const std::vector<double*>& ext,
                                        const std::vector<int32_t*>& decisions) const;

    const ldpc_code& code() const { return d_code; }

    //! Throws std::invalid_argument if `in` (n q log-probabilities) is not valid input.
    void validate(const double* in) const;

private:
    const ldpc_code& d_code;
    int d_threads;
    std::vector<std::vector<int32_t>> d_perm; // by coefficient c: x -> c x
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_LDPC_DECODER_H */
