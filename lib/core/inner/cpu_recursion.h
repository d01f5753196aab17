/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_CPU_RECURSION_H
#define INCLUDED_BSID_CORE_CPU_RECURSION_H

#include <cstddef>

namespace bsid {
namespace cpu {

/*
 * The CPU decoder's steps over a row of states, compiled for AVX-512, AVX2
 * and baseline x86-64 (the best picked when the library loads). A row of
 * sums G_i(e, a) is at g[e gs + a]; every loop runs over the states, in
 * vector lanes.
 */

/*!
 * eqn:alpha_prenorm for every state b in [0, Mt): out[b] = sum over e in
 * order, from 0, of prev[b - dlo - e] G(e, b - dlo - e): model::forward_sum's
 * terms in its order, where a term of a state outside [0, Mt) is +0 (prev
 * is 0 there: readable from dhi before its start to Mt + 8 - dlo after, and G
 * finite and readable wherever prev is), so the same values.
 */
void forward_row(
    int dlo, int Mn, int Mt, const double* prev, const double* g, size_t gs, double* out);

/*!
 * eqn:beta for every state a in [0, Mt): out[a] = sum over e in order of
 * G(e, a) next[a + dlo + e] (model::backward_sum; next is 0 outside [0, Mt),
 * readable from -dlo before its start to Mt + 8 + dhi after, and G's rows
 * readable to Mt + 8).
 */
void backward_row(
    int dlo, int Mn, int Mt, const double* next, const double* g, size_t gs, double* out);

//! The margins (in values) that forward_row and backward_row read around a
//! row of Mt states, on each side.
inline int row_margin(int dlo, int Mn)
{
    const int dhi = dlo + Mn - 1;
    return (dhi > -dlo ? dhi : -dlo) + 16;
}

} // namespace cpu
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_CPU_RECURSION_H */
