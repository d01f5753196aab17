/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "inner/cpu_recursion.h"
#include <gnuradio/bsid/core/inner/model.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define BSID_ROW_CLONES \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define BSID_ROW_CLONES
#endif

namespace bsid {
namespace cpu {

BSID_ROW_CLONES void forward_row(
    int dlo, int Mn, int Mt, const double* prev, const double* g, size_t gs, double* out)
{
    model::forward_row<double>(dlo, Mn, Mt, prev, g, gs, out);
}

BSID_ROW_CLONES void backward_row(
    int dlo, int Mn, int Mt, const double* next, const double* g, size_t gs, double* out)
{
    model::backward_row<double>(dlo, Mn, Mt, next, g, gs, out);
}

BSID_ROW_CLONES void keep_states(int Mn, int Mt, const double* keep, double* g, size_t gs)
{
    for (int e = 0; e < Mn; ++e) {
        double* ge = g + size_t(e) * gs;
        for (int a = 0; a < Mt; ++a)
            ge[a] *= keep[a];
    }
}

BSID_ROW_CLONES void state_weights(int dlo,
                                   int Mn,
                                   int Mt,
                                   const double* from,
                                   const double* next,
                                   double* wt,
                                   size_t gs)
{
    for (int e = 0; e < Mn; ++e) {
        double* we = wt + size_t(e) * gs;
        const int d = dlo + e;
        const int lo = -d > 0 ? (-d < Mt ? -d : Mt) : 0;
        const int hi = Mt - d < Mt ? (Mt - d > lo ? Mt - d : lo) : Mt;
        for (int a = 0; a < lo; ++a)
            we[a] = 0.0;
        for (int a = lo; a < hi; ++a)
            we[a] = from[a] * next[a + d];
        for (int a = hi; a < Mt; ++a)
            we[a] = 0.0;
    }
}

} // namespace cpu
} // namespace bsid
