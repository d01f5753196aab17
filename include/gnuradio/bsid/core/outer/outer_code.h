/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_OUTER_CODE_H
#define INCLUDED_BSID_CORE_OUTER_CODE_H

#include <gnuradio/bsid/core/inner/map_decoder.h> // backend_kind, precision_kind
#include <gnuradio/bsid/core/runtime/visibility.h>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bsid {

//! What a soft-in soft-out outer decoder did with one word.
struct siso_result {
    int iterations = 0;       //!< iterations run (0: the input already decoded)
    bool syndrome_ok = false; //!< the hard decisions form a codeword
};

//! Where and how a soft-in soft-out outer decoder runs.
struct siso_config {
    backend_kind backend = backend_kind::cpu;
    precision_kind precision =
        precision_kind::dual; //!< CUDA: float or double (the CPU: double)
    int threads = 0;          //!< CPU: threads for decode_batch (0: all cores)
    int device = 0;           //!< CUDA device index
};

/*!
 * \brief The soft-in soft-out decoder of an outer code, the half of the
 * iterative decoder that concatenated_decoder runs after the inner MAP
 * decoder on every pass (docs/design.md, "Adding an outer code").
 *
 * Input per word: n x q log-probabilities of each symbol (the inner
 * decoder's extrinsic output), each row up to any constant. Output, each row
 * normalized: the posterior, and the extrinsic information (the posterior
 * without the input), which the next pass's inner decoder takes as its
 * priors; and the n hard decisions.
 */
class siso_decoder
{
public:
    virtual ~siso_decoder() = default;
    /*!
     * Decodes words in[j] (n q log-probabilities each) with at most
     * max_iterations iterations; post[j], ext[j], decisions[j] (each vector
     * empty, or one pointer per word, which may be null) receive the outputs.
     * Throws std::invalid_argument for a bad input before any work.
     */
    virtual std::vector<siso_result>
    decode_batch(const std::vector<const double*>& in,
                 int max_iterations,
                 const std::vector<double*>& post,
                 const std::vector<double*>& ext,
                 const std::vector<int32_t*>& decisions) = 0;
    //! The backend in use (never "auto").
    virtual backend_kind backend() const = 0;
};

/*!
 * \brief An outer code over an alphabet of q = 2^m symbols: what the
 * concatenated decoder, the simulator and the blocks need of it. ldpc_code
 * (GF(q) LDPC, belief propagation) is its implementation here.
 */
class BSID_CORE_SHARED_TYPE outer_code
{
public:
    virtual ~outer_code() = default;
    virtual int q() const = 0; //!< symbols of the alphabet, a power of 2
    virtual int n() const = 0; //!< symbols per codeword
    virtual int k() const = 0; //!< information symbols per codeword
    //! How the code is named everywhere (CLI, GRC, result files).
    virtual const std::string& spec() const = 0;
    //! k information symbols (each 0 .. q - 1) to the n of their codeword.
    virtual void encode(const int32_t* info, int32_t* codeword) const = 0;
    //! The k information symbols of a codeword (the inverse of encode).
    virtual void extract(const int32_t* codeword, int32_t* info) const = 0;
    virtual bool is_codeword(const int32_t* word) const = 0;
    /*!
     * Its soft-in soft-out decoder on cfg.backend ("auto" takes the GPU when
     * there is one; the choice is runtime/backends.cc's). The code must
     * outlive the decoder.
     */
    virtual std::unique_ptr<siso_decoder> make_decoder(const siso_config& cfg) const = 0;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_OUTER_CODE_H */
