/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_POSITION_SWEEPS_H
#define INCLUDED_BSID_CORE_POSITION_SWEEPS_H

#include <cstddef>

namespace bsid {
namespace cpu {

/*
 * The CPU decoder's sums over rows of positions (position_blocks.h), in
 * double, each in a fixed order, compiled for AVX-512, AVX2 and baseline
 * x86-64 (the best picked when the library loads). `real` is float or
 * double: the lattices' precision; the sums are in double.
 */

/*!
 * An index's states in a ring (position_blocks.h): state a's value of
 * drift change e for leaf j (codeword word[j]) is R[(j Mn + e) rs + c0 + a],
 * for a in [0, Mt); R is readable (finite values) from dhi columns before
 * to Qs - dlo columns after that, Qs = Mt rounded up to 8.
 */
template <typename real>
struct ring_states {
    const real* R = nullptr;
    size_t rs = 0;
    int c0 = 0;
    int leaves = 0;
    const int* word = nullptr;
    int Mn = 0, Mt = 0, dlo = 0;
};

/*!
 * G[e Mt + a] (=, from the first leaf j = 0 if first, else +=) p_j R(a, e,
 * j), p_j = prior[word[j]] or 1, for a in [0, Mt) and e in [0, Mn): eqn:alpha's
 * sums over D, the leaves in order.
 */
template <typename real>
void states_G(const ring_states<real>& r, const double* prior, bool first, double* G);

/*!
 * Q[word[j] Qs + b] = sum over e in order of from[b - dlo - e] R(b - dlo - e,
 * e, j) for b in [0, Qs), in double: eqn:L's sums over the start states a =
 * b - dlo - e. Qs is a multiple of 16; from is readable from dhi before to
 * Qs - dlo after its start and 0 outside [0, Mt) (so Q's values for b >= Mt
 * are 0).
 */
template <typename real>
void states_Q(const ring_states<real>& r, const double* from, int Qs, double* Q);

/*!
 * out[e os + l] = (sum over j in order of R[(j Mn + e) rs + l]) / q, for l in
 * [0, W) and e in [0, Mn): a group's sums over the codewords of a uniform prior.
 */
template <typename real>
void group_sums(
    const real* R, int leaves, int Mn, size_t rs, int W, int q, double* out, size_t os);

//! sum of x[k] y[k] over k in [0, n): eight partial sums, then a fixed tree.
double dot(const double* x, const double* y, int n);

//! sum of x[k] over k in [0, n), in the order of dot (a row's normalizer).
double sum(const double* x, int n);

} // namespace cpu
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_POSITION_SWEEPS_H */
