/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_LATTICE_H
#define INCLUDED_BSID_CORE_LATTICE_H

#include <gnuradio/bsid/core/channel/channel_params.h>
#include <gnuradio/bsid/core/channel/soft_input.h>
#include <gnuradio/bsid/core/inner/model.h> // lattice_weights and the cells
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bsid {

/*!
 * \brief The corridor-constrained lattice for q codewords at once: one pass
 * gives R(y[0..n+d) | x_D) for every end drift d in [dlo, dhi] and every
 * codeword D (paper, section "The MAP Decoder").
 *
 * Node (r, c) has consumed r transmitted and c received bits; its drift c - r
 * must stay inside the corridor [dlo, dhi] at every node, not only at the end
 * (dlo <= 0 <= dhi). Row n has no horizontal steps: the channel never inserts
 * after the last bit (eqn:F_lastrow).
 *
 * \param w       step weights (lattice_weights::ratio in the decoders)
 * \param n       codeword length (rows 0..n)
 * \param q       number of codewords, the innermost (vectorized) dimension
 * \param qsel    2 * n arrays of q weights: qsel[2r + b][D] is the diagonal
 *                weight into row r + 1 when the received bit is b (match or
 *                mismatch for bit r of codeword D)
 * \param y       received bits from the codeword's start (hard input)
 * \param yprob   or, if not null, soft items from the codeword's start:
 *                2 probabilities w(0), w(1) per item (item_probabilities);
 *                the diagonal weight is then model::soft_diag of qsel's two
 *                (y is not read)
 * \param avail   how many received bits exist from the start (c <= avail)
 * \param dlo,dhi the corridor
 * \param scratch 2 (dhi - dlo + 1) q values of workspace
 * \param out     (dhi - dlo + 1) q values: out[(d - dlo) q + D] = R for end
 *                drift d, 0 where the end column lies beyond avail
 *
 * Cost: about q (n M_n - dlo (dlo - 1)/2) node updates, M_n = dhi - dlo + 1.
 */
template <typename real>
void corridor_lattice(const lattice_weights<real>& w,
                      int n,
                      int q,
                      const real* const* qsel,
                      const uint8_t* y,
                      const real* yprob,
                      long long avail,
                      int dlo,
                      int dhi,
                      real* scratch,
                      real* out);

/*!
 * \brief The exact step weights over the channel's alphabet of A letters (the
 * model of docs/design.md section 3; lattice_weights::exact for bits): an
 * insertion of a random letter weighs Pi / A, a deletion Pd, letter x sent
 * and received as y Pt P(y | x) (channel_params::emission), and a soft item
 * of probabilities w(0 .. A-1) sum_y w(y) Pt P(y | x). For bits the numbers
 * are lattice_weights<double>::exact's, summed in the same order.
 */
struct exact_letter_weights {
    explicit exact_letter_weights(const channel_params& ch);

    double ins, del;
    int A;

    double diag(unsigned x, unsigned y) const { return d_tab[size_t(x) * size_t(A) + y]; }
    //! A soft item: w holds its A probabilities.
    double diag_probs(unsigned x, const double* w) const
    {
        const double* t = d_tab.data() + size_t(x) * size_t(A);
        if (A == 2)
            return model::soft_diag(w[0], w[1], t[0], t[1]); // as lattice_weights
        double s = 0;
        for (int y = 0; y < A; ++y)
            s += w[y] * t[y];
        return s;
    }

private:
    std::vector<double> d_tab; // A x A: Pt P(y | x)
};

/*!
 * \brief The full, unconstrained lattice (eqn:F, eqn:F_lastrow) for one
 * transmitted sequence x (letters) and a received sequence y: returns the
 * last row, F[n][c] = R(y[0..c) | x) for c = 0..len(y). Quadratic cost; meant
 * for tests, references and the frame boundaries. Uses the exact (unscaled)
 * weights (exact_letter_weights) over the channel's alphabet.
 */
std::vector<double> full_lattice_last_row(
    const channel_params& ch, const uint8_t* x, size_t nx, const uint8_t* y, size_t ny);

/*!
 * The same for received items that may be soft: F[n][c] = R(y[0..c) | x).
 */
std::vector<double> full_lattice_last_row(const channel_params& ch,
                                          const uint8_t* x,
                                          size_t nx,
                                          const received_items& y,
                                          size_t ny);

/*!
 * The same for soft items given as their probabilities, A per item
 * (item_probabilities; 2 for bits), for a caller that runs many lattices
 * over one stretch of items and computes their probabilities once.
 */
std::vector<double> full_lattice_last_row_probs(
    const channel_params& ch, const uint8_t* x, size_t nx, const double* prob, size_t ny);

//! R(y | x) over the full lattice: full_lattice_last_row(...)[ny].
double receiver_metric(
    const channel_params& ch, const uint8_t* x, size_t nx, const uint8_t* y, size_t ny);

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_LATTICE_H */
