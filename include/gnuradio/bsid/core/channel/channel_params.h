/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_CHANNEL_PARAMS_H
#define INCLUDED_BSID_CORE_CHANNEL_PARAMS_H

#include <gnuradio/bsid/core/runtime/visibility.h>
#include <memory>
#include <string>
#include <vector>

namespace bsid {

/*!
 * \brief Parameters of the insertion, deletion and substitution channel over
 * an alphabet of A letters 0..A-1 (paper, section "Channel Model", for A = 2;
 * docs/dna.md for A > 2).
 *
 * At each time step one letter enters the channel. With probability Pi a
 * uniformly random letter is inserted and the channel stays at the same
 * input letter; with probability Pd the input letter is deleted; otherwise
 * (Pt = 1 - Pi - Pd) it is transmitted, and received as another letter with
 * probability Ps, each of the A - 1 others alike (for bits: flipped). There
 * is no insertion after a frame's last letter.
 *
 * A substitution matrix S (A x A, row-major, row-stochastic: S[x A + y] =
 * P(received y | x transmitted)) replaces the uniform substitutions; Ps is
 * then not used, and Ps() is the mean substitution probability
 * sum_x (1 - S[x][x]) / A. Inserted letters stay uniform.
 *
 * Construction throws std::invalid_argument, naming the offending value, for
 * a negative or non-finite probability, Pi + Pd >= 1, Ps > 1, an alphabet
 * outside [2, 256], or a matrix of the wrong size, with an entry outside
 * [0, 1] or a row that does not sum to 1 (within 1e-9).
 */
class BSID_CORE_SHARED_TYPE channel_params
{
public:
    //! The binary channel (A = 2).
    channel_params(double Pi, double Pd, double Ps);
    //! The channel over `alphabet` letters, with a substitution matrix or
    //! (empty) uniform substitutions of probability Ps.
    channel_params(double Pi,
                   double Pd,
                   double Ps,
                   int alphabet,
                   std::vector<double> substitution = {});

    double Pi() const { return d_Pi; }
    double Pd() const { return d_Pd; }
    double Ps() const { return d_Ps; }
    //! Probability of transmission, 1 - Pi - Pd (always > 0).
    double Pt() const { return d_Pt; }
    //! A: the letters are 0 .. A - 1 (2: bits).
    int alphabet() const { return d_alphabet; }
    //! The A x A substitution matrix, row-major, or empty (uniform, Ps).
    const std::vector<double>& substitution() const;
    bool has_substitution_matrix() const { return bool(d_subst); }
    //! P(received y | x transmitted): 1 - Ps, Ps / (A - 1), or S[x][y].
    double emission(unsigned x, unsigned y) const
    {
        if (d_subst)
            return (*d_subst)[size_t(x) * size_t(d_alphabet) + y];
        return x == y ? 1.0 - d_Ps : d_Ps / double(d_alphabet - 1);
    }
    //! P(a transmitted x is received as another letter): Ps, or 1 - S[x][x].
    double substitution_probability(unsigned x) const
    {
        return d_subst ? 1.0 - (*d_subst)[size_t(x) * size_t(d_alphabet + 1)] : d_Ps;
    }

    /*!
     * The same channel (alphabet, substitution matrix) with new Pi and Pd,
     * and Ps where substitutions are uniform (a matrix keeps its own): what
     * a receiver's set_channel(Pi, Pd, Ps) means. Throws as construction.
     */
    channel_params with_rates(double Pi, double Pd, double Ps) const;

    /*!
     * "channel_params(Pi=..., Pd=..., Ps=...)", with round-trip precision, and
     * ", alphabet=A" and ", substitution=[[...], ...]" where they are not the
     * binary channel's defaults.
     */
    std::string repr() const;

    bool operator==(const channel_params& o) const;
    bool operator!=(const channel_params& o) const { return !(*this == o); }

private:
    double d_Pi, d_Pd, d_Ps, d_Pt;
    int d_alphabet = 2;
    // shared: parameters are copied into every decoder, tag and frame
    std::shared_ptr<const std::vector<double>> d_subst;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_CHANNEL_PARAMS_H */
