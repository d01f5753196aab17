/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_CODEWORD_WEIGHTS_H
#define INCLUDED_BSID_CORE_CODEWORD_WEIGHTS_H

#include <gnuradio/bsid/core/channel/channel_params.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/inner/model.h>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bsid {

/*!
 * The diagonal weight of letter x sent and letter y received, in the
 * likelihood-ratio form (lattice_weights::ratio), at [x A + y]: for bits the
 * model's match and mismatch weights, for more letters A P(y | x) from the
 * channel's emission.
 */
template <typename real>
std::vector<real> letter_pair_weights(const channel_params& ch)
{
    const int A = ch.alphabet();
    const auto w = lattice_weights<real>::ratio(ch);
    std::vector<real> tab(size_t(A) * size_t(A));
    for (int x = 0; x < A; ++x)
        for (int y = 0; y < A; ++y)
            tab[size_t(x) * size_t(A) + size_t(y)] =
                A == 2 ? w.diag(unsigned(x), unsigned(y))
                       : real(double(A) * ch.emission(unsigned(x), unsigned(y)));
    return tab;
}

/*!
 * The diagonal weights of book p's codewords in the likelihood-ratio form
 * (lattice_weights::ratio), A rows per codeword letter: entry
 * [(A r + y) q + D] is the weight of codeword D's letter r received as
 * letter y. Bits (A = 2) take the model's match and mismatch weights; more
 * letters take A P(y | x) from the channel's emission. The lattices read
 * row A r + y as their qsel row (cpu_lattice.h).
 */
template <typename real>
std::vector<real> diagonal_table(const codebook& cb, const channel_params& ch, int p)
{
    const int n = cb.n(), Q = cb.q(), A = ch.alphabet();
    const std::vector<real> pair = letter_pair_weights<real>(ch);
    std::vector<real> tab(size_t(A) * size_t(n) * size_t(Q), real(0));
    for (int r = 0; r < n; ++r) {
        for (int D = 0; D < Q; ++D) {
            const unsigned x = cb.letter(cb.books()[size_t(p)][size_t(D)], r);
            for (int y = 0; y < A; ++y) {
                tab[(size_t(A) * size_t(r) + size_t(y)) * size_t(Q) + size_t(D)] =
                    pair[size_t(x) * size_t(A) + size_t(y)];
            }
        }
    }
    return tab;
}

//! The letters of book p's codewords: entry [r q + D] is codeword D's letter r.
inline std::vector<uint8_t> codeword_letters(const codebook& cb, int p)
{
    const int n = cb.n(), Q = cb.q();
    std::vector<uint8_t> x(size_t(n) * size_t(Q));
    for (int r = 0; r < n; ++r)
        for (int D = 0; D < Q; ++D)
            x[size_t(r) * size_t(Q) + size_t(D)] =
                uint8_t(cb.letter(cb.books()[size_t(p)][size_t(D)], r));
    return x;
}

//! Pointers to a table's rows (what lattice_call::qsel takes).
template <typename real>
std::vector<const real*> table_rows(const std::vector<real>& tab, int q)
{
    std::vector<const real*> rows;
    for (size_t k = 0; k < tab.size() / size_t(q); ++k)
        rows.push_back(tab.data() + k * size_t(q));
    return rows;
}

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_CODEWORD_WEIGHTS_H */
