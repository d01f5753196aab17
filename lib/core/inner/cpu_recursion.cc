/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The vectors below never cross a call boundary, so GCC's notes on their
// ABI do not apply.
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#include "inner/cpu_recursion.h"
#include <cstring>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define BSID_ROW_CLONES \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define BSID_ROW_CLONES
#endif

namespace bsid {
namespace cpu {

namespace {

// eight states at a time, their sums in registers
typedef double d8 __attribute__((vector_size(8 * sizeof(double))));

__attribute__((always_inline)) inline d8 load8(const double* p)
{
    d8 v;
    std::memcpy(&v, p, sizeof(v));
    return v;
}

} // namespace

BSID_ROW_CLONES void forward_row(
    int dlo, int Mn, int Mt, const double* prev, const double* g, size_t gs, double* out)
{
    int b = 0;
    for (; b + 8 <= Mt; b += 8) {
        d8 acc = {};
        for (int e = 0; e < Mn; ++e) {
            const int a = b - dlo - e;
            acc += load8(prev + a) * load8(g + size_t(e) * gs + a);
        }
        std::memcpy(out + b, &acc, sizeof(acc));
    }
    for (; b < Mt; ++b) {
        double s = 0;
        for (int e = 0; e < Mn; ++e) {
            const int a = b - dlo - e;
            s += prev[a] * g[size_t(e) * gs + a];
        }
        out[b] = s;
    }
}

BSID_ROW_CLONES void backward_row(
    int dlo, int Mn, int Mt, const double* next, const double* g, size_t gs, double* out)
{
    int a = 0;
    for (; a + 8 <= Mt; a += 8) {
        d8 acc = {};
        for (int e = 0; e < Mn; ++e)
            acc += load8(g + size_t(e) * gs + a) * load8(next + a + dlo + e);
        std::memcpy(out + a, &acc, sizeof(acc));
    }
    for (; a < Mt; ++a) {
        double s = 0;
        for (int e = 0; e < Mn; ++e)
            s += g[size_t(e) * gs + a] * next[a + dlo + e];
        out[a] = s;
    }
}

} // namespace cpu
} // namespace bsid
