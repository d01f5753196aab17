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

//! model::forward_row: out[b] = sum_e prev[b - dlo - e] G(e, b - dlo - e).
void forward_row(
    int dlo, int Mn, int Mt, const double* prev, const double* g, size_t gs, double* out);

//! model::backward_row: out[a] = sum_e G(e, a) next[a + dlo + e].
void backward_row(
    int dlo, int Mn, int Mt, const double* next, const double* g, size_t gs, double* out);

//! g[e gs + a] *= keep[a] for a in [0, Mt) (keep: 1 or 0; g finite).
void keep_states(int Mn, int Mt, const double* keep, double* g, size_t gs);

/*!
 * L's weights: wt[e gs + a] = from[a] next[a + dlo + e] where that state
 * exists (0 <= a + dlo + e < Mt), 0 elsewhere, for a in [0, Mt).
 */
void state_weights(int dlo,
                   int Mn,
                   int Mt,
                   const double* from,
                   const double* next,
                   double* wt,
                   size_t gs);

} // namespace cpu
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_CPU_RECURSION_H */
