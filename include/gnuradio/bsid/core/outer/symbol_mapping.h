/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_SYMBOL_MAPPING_H
#define INCLUDED_BSID_CORE_SYMBOL_MAPPING_H

#include <gnuradio/bsid/core/outer/symbol_mapping_math.h>
#include <cstdint>
#include <vector>

namespace bsid {

/*!
 * \brief How the n symbols of an outer codeword over GF(q_o) become the N
 * message symbols of the inner code (q_i values each), and how symbol
 * probabilities travel between the two (docs/concatenated.md, "Symbol
 * mapping").
 *
 * Same size (q_o = q_i): symbol for symbol, N = n, and probabilities pass
 * unchanged: exact.
 *
 * Different sizes, both powers of two (q_o = 2^a, q_i = 2^b): through bits.
 * The codeword's n a bits, each symbol MSB first, are cut into N = ceil(n a /
 * b) inner symbols of b bits, MSB first; the last symbol is padded with zero
 * bits, which the receiver knows. Probabilities pass as bit marginals: a
 * symbol's log-probability is the sum of its bits' log-marginals, and a bit's
 * marginal is the log-sum-exp over the symbols that hold it. This forgets how
 * the bits of one symbol depend on each other (the loss of any bitwise
 * interleaver); it is exact when every row is a product of its bit marginals.
 *
 * Refused (std::invalid_argument): q_i not a power of two (the inner symbols
 * then hold no whole number of bits), or n < 1.
 */
class symbol_mapping
{
public:
    symbol_mapping(int q_outer, int n_outer, int q_inner);

    int q_outer() const { return d_qo; }
    int q_inner() const { return d_qi; }
    int n_outer() const { return d_n; }
    //! N: inner symbols per outer codeword.
    int n_inner() const { return d_N; }
    bool identity() const { return d_qo == d_qi; }
    //! Zero bits that pad the last inner symbol.
    int pad_bits() const { return d_pad; }

    //! n outer symbols to N inner symbols (the encoder's side).
    void to_inner(const int32_t* outer, int32_t* inner) const;

    /*!
     * Inner probabilities (N x q_i, linear, rows summing to 1; zeros allowed)
     * to outer log-probabilities (n x q_o, up to a constant per row; -infinity
     * for a zero). A row of an inner symbol that holds pad bits is read with
     * those bits known to be 0.
     */
    void inner_to_outer(const double* inner_prob, double* outer_log) const;

    /*!
     * Outer log-probabilities (n x q_o, up to a constant per row) to inner
     * log-priors (N x q_i, up to a constant per row): the pad bits are 0
     * (-infinity for a symbol with a pad bit set).
     */
    void outer_to_inner(const double* outer_log, double* inner_log) const;

    /*!
     * The same two, with the caller's scratch (scratch_size() doubles, not
     * shared with another call running at the same time) instead of their
     * own: they allocate nothing and do not throw, so a loop that must not
     * throw can call them.
     */
    void inner_to_outer(const double* inner_prob,
                        double* outer_log,
                        double* scratch) const noexcept;
    void outer_to_inner(const double* outer_log,
                        double* inner_log,
                        double* scratch) const noexcept;
    //! The doubles the scratch of the calls above holds (0 for the identity).
    size_t scratch_size() const;

    //! The sizes of symbol_mapping_math.h's row functions.
    mapping::shape shape() const;

private:
    int d_qo, d_qi, d_n, d_N, d_a, d_b, d_pad;
};

//! log(sum exp(x_i)) of n values, exact for -infinity entries (all -infinity: -infinity).
double log_sum_exp(const double* x, int n);

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_SYMBOL_MAPPING_H */
