/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_LDPC_DECODER_H
#define INCLUDED_BSID_CORE_LDPC_DECODER_H

#include <gnuradio/bsid/core/inner/map_decoder.h> // backend_kind, precision_kind
#include <gnuradio/bsid/core/outer/ldpc_code.h>
#include <gnuradio/bsid/core/outer/outer_code.h>
#include <cstdint>
#include <memory>
#include <vector>

namespace bsid {

//! What belief propagation did with one word: iterations (message passing;
//! 0: the input already decoded) and whether the decisions satisfy every check.
using bp_result = siso_result;
//! How a belief-propagation decoder runs.
using bp_config = siso_config;

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
class ldpc_decoder : public siso_decoder
{
public:
    virtual ~ldpc_decoder() = default;

    /*!
     * A decoder of `code` (which must outlive it) on cfg.backend: the CPU
     * (words over threads, in double) or CUDA (batched over words, in
     * cfg.precision; lib/cuda/ldpc_decoder_cuda.cu), "auto" taking the GPU
     * when there is one. Throws std::runtime_error if CUDA is asked for and
     * not available.
     */
    static std::unique_ptr<ldpc_decoder> make(const ldpc_code& code,
                                              const bp_config& cfg = {});

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
                     int32_t* decisions = nullptr);

    /*!
     * Many words over threads; the pointers of word j are in[j], post[j],
     * ext[j], decisions[j] (each vector empty, or one pointer per word, which
     * may be null). All inputs are checked before any is decoded.
     */
    virtual std::vector<bp_result>
    decode_batch(const std::vector<const double*>& in,
                 int max_iterations,
                 const std::vector<double*>& post,
                 const std::vector<double*>& ext,
                 const std::vector<int32_t*>& decisions) = 0;

    const ldpc_code& code() const { return d_code; }
    const bp_config& config() const { return d_cfg; }
    //! The backend in use (never "auto").
    virtual backend_kind backend() const = 0;

    //! Throws std::invalid_argument if `in` (n q log-probabilities) is not valid input.
    void validate(const double* in) const;

    //! q x q: row c is x -> c x in GF(q) (row 0 unused); each edge's coefficient.
    const std::vector<int32_t>& perm() const { return d_perm; }
    const std::vector<int32_t>& coefficients() const { return d_coef; }

protected:
    ldpc_decoder(const ldpc_code& code, const bp_config& cfg);

    //! decode_batch's checks, shared by the backends: max_iterations, pointer
    //! counts, every input (named by word), before any work.
    void check_batch(const std::vector<const double*>& in,
                     int max_iterations,
                     const std::vector<double*>& post,
                     const std::vector<double*>& ext,
                     const std::vector<int32_t*>& decisions) const;

    const ldpc_code& d_code;
    bp_config d_cfg;
    std::vector<int32_t> d_perm, d_coef;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_LDPC_DECODER_H */
