/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The vectors below never cross a call boundary (every function that takes
// or returns one is inlined), so GCC's notes on their ABI do not apply.
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#include "inner/position_sweeps.h"
#include <type_traits>
#include <algorithm>
#include <cstring>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define BSID_SWEEP_CLONES \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define BSID_SWEEP_CLONES
#endif


namespace bsid {
namespace cpu {

namespace {

// Q rows and G rows in vectors of 8 values, the sum of each in registers
// (GCC vectors: one AVX-512 register, two AVX2 or four SSE2 ones).
constexpr int span8 = 8;
typedef double d8 __attribute__((vector_size(8 * sizeof(double))));

template <typename real>
struct r8 {
    typedef real type __attribute__((vector_size(8 * sizeof(real))));
};

// eight values in double (float ones converted: written element by element,
// which GCC 12 makes the one conversion instruction, where
// __builtin_convertvector takes three)
__attribute__((always_inline)) inline d8 load8(const float* p)
{
    r8<float>::type x;
    std::memcpy(&x, p, sizeof(x));
    return d8{ double(x[0]), double(x[1]), double(x[2]), double(x[3]),
               double(x[4]), double(x[5]), double(x[6]), double(x[7]) };
}

__attribute__((always_inline)) inline d8 load8(const double* p)
{
    d8 x;
    std::memcpy(&x, p, sizeof(x));
    return x;
}

__attribute__((always_inline)) inline void store8(double* p, d8 v)
{
    std::memcpy(p, &v, sizeof(v));
}

template <typename real>
__attribute__((always_inline)) inline void
states_G_impl(const ring_states<real>& r, const double* prior, bool first, double* G)
{
    const int Mt = r.Mt;
    const size_t js = size_t(r.Mn) * r.rs;
    for (int e = 0; e < r.Mn; ++e) {
        double* out = G + size_t(e) * size_t(Mt);
        const real* base = r.R + size_t(e) * r.rs + size_t(r.c0);
        int a = 0;
        for (; a + span8 <= Mt; a += span8) {
            d8 acc = first ? d8{} : load8(out + a);
            for (int j = 0; j < r.leaves; ++j) {
                const d8 v = load8(base + size_t(j) * js + size_t(a));
                if (prior)
                    acc += prior[r.word[j]] * v;
                else
                    acc += v;
            }
            store8(out + a, acc);
        }
        for (; a < Mt; ++a) {
            double acc = first ? 0.0 : out[a];
            for (int j = 0; j < r.leaves; ++j) {
                const double v = double(base[size_t(j) * js + size_t(a)]);
                if (prior)
                    acc += prior[r.word[j]] * v;
                else
                    acc += v;
            }
            out[a] = acc;
        }
    }
}

/*
 * J leaves' Q rows at once, K vectors of eight b at a time: each vector of
 * `from` is loaded once for the J leaves, the J K sums are independent
 * chains of additions kept in registers (GCC vectors of eight doubles), and
 * the J leaves' rows (a few cache lines each) stay in L1.
 */
template <typename real, int J, int K>
__attribute__((always_inline)) inline void
states_Q_block(const ring_states<real>& r, const double* from, int Qs, double* Q, int j0)
{
    const size_t leaf_stride = size_t(r.Mn) * r.rs;
    const real* leaf0 = r.R + size_t(j0) * leaf_stride + size_t(r.c0);
    double* out[J];
#pragma GCC unroll 8
    for (int j = 0; j < J; ++j)
        out[j] = Q + size_t(r.word[j0 + j]) * size_t(Qs);
    for (int b = 0; b < Qs; b += K * span8) {
        d8 acc[J][K];
#pragma GCC unroll 8
        for (int j = 0; j < J; ++j)
#pragma GCC unroll 8
            for (int k = 0; k < K; ++k)
                acc[j][k] = d8{};
        for (int e = 0; e < r.Mn; ++e) {
            const long long a = (long long)b - r.dlo - e;
            d8 w[K];
#pragma GCC unroll 8
            for (int k = 0; k < K; ++k)
                w[k] = load8(from + a + k * span8);
            const real* in = leaf0 + size_t(e) * r.rs + a;
#pragma GCC unroll 8
            for (int j = 0; j < J; ++j)
#pragma GCC unroll 8
                for (int k = 0; k < K; ++k)
                    acc[j][k] += w[k] * load8(in + size_t(j) * leaf_stride + k * span8);
        }
#pragma GCC unroll 8
        for (int j = 0; j < J; ++j)
#pragma GCC unroll 8
            for (int k = 0; k < K; ++k)
                store8(out[j] + b + k * span8, acc[j][k]);
    }
}

template <typename real>
__attribute__((always_inline)) inline void
states_Q_impl(const ring_states<real>& r, const double* from, int Qs, double* Q)
{
    // (Qs is a multiple of 16: two vectors of eight)
    int j = 0;
    for (; j + 4 <= r.leaves; j += 4)
        states_Q_block<real, 4, 2>(r, from, Qs, Q, j);
    for (; j < r.leaves; ++j)
        states_Q_block<real, 1, 2>(r, from, Qs, Q, j);
}

template <typename real, int W>
__attribute__((always_inline)) inline void
group_impl(const real* R, int leaves, int Mn, size_t rs, int q, double* out, size_t os)
{
    // vectors of eight lanes (P of them a group), four drift changes side by
    // side: 4 P chains of additions
    constexpr int P = W >= 8 ? W / 8 : 1;
    int e = 0;
    for (; e + 4 <= Mn && W >= 8; e += 4) {
        d8 acc[4][P];
        for (int k = 0; k < 4; ++k)
            for (int h = 0; h < P; ++h)
                acc[k][h] = d8{};
        for (int j = 0; j < leaves; ++j) {
#pragma GCC unroll 4
            for (int k = 0; k < 4; ++k) {
                const real* x = R + (size_t(j) * size_t(Mn) + size_t(e + k)) * rs;
#pragma GCC unroll 2
                for (int h = 0; h < P; ++h)
                    acc[k][h] += load8(x + 8 * h);
            }
        }
        for (int k = 0; k < 4; ++k)
            for (int h = 0; h < P; ++h)
                store8(out + size_t(e + k) * os + size_t(8 * h), acc[k][h] / double(q));
    }
    for (; e < Mn; ++e) {
        double acc[W] = {};
        for (int j = 0; j < leaves; ++j) {
            const real* x = R + (size_t(j) * size_t(Mn) + size_t(e)) * rs;
            for (int l = 0; l < W; ++l)
                acc[l] += double(x[l]);
        }
        for (int l = 0; l < W; ++l)
            out[size_t(e) * os + size_t(l)] = acc[l] / q;
    }
}

template <typename real>
__attribute__((always_inline)) inline void group_dispatch(
    const real* R, int leaves, int Mn, size_t rs, int W, int q, double* out, size_t os)
{
    switch (W) {
    case 16:
        group_impl<real, 16>(R, leaves, Mn, rs, q, out, os);
        break;
    case 8:
        group_impl<real, 8>(R, leaves, Mn, rs, q, out, os);
        break;
    case 4:
        group_impl<real, 4>(R, leaves, Mn, rs, q, out, os);
        break;
    default:
        group_impl<real, 2>(R, leaves, Mn, rs, q, out, os);
        break;
    }
}

__attribute__((always_inline)) inline double
dot_impl(const double* x, const double* y, int n)
{
    double s[8] = {};
    int k = 0;
    for (; k + 8 <= n; k += 8)
        for (int l = 0; l < 8; ++l)
            s[l] += x[k + l] * y[k + l];
    double t = ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));
    for (; k < n; ++k)
        t += x[k] * y[k];
    return t;
}

__attribute__((always_inline)) inline double sum_impl(const double* x, int n)
{
    double s[8] = {};
    int k = 0;
    for (; k + 8 <= n; k += 8)
        for (int l = 0; l < 8; ++l)
            s[l] += x[k + l];
    double t = ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));
    for (; k < n; ++k)
        t += x[k];
    return t;
}

} // namespace

// (each specialization compiled per instruction set, the best picked when
// the library loads)
#define BSID_SWEEP_ENTRIES(real)                                                \
    template <>                                                                 \
    BSID_SWEEP_CLONES void states_G<real>(                                      \
        const ring_states<real>& r, const double* prior, bool first, double* G) \
    {                                                                           \
        states_G_impl(r, prior, first, G);                                      \
    }                                                                           \
    template <>                                                                 \
    BSID_SWEEP_CLONES void states_Q<real>(                                      \
        const ring_states<real>& r, const double* from, int Qs, double* Q)      \
    {                                                                           \
        states_Q_impl(r, from, Qs, Q);                                          \
    }                                                                           \
    template <>                                                                 \
    BSID_SWEEP_CLONES void group_sums<real>(const real* R,                      \
                                            int leaves,                         \
                                            int Mn,                             \
                                            size_t rs,                          \
                                            int W,                              \
                                            int q,                              \
                                            double* out,                        \
                                            size_t os)                          \
    {                                                                           \
        group_dispatch(R, leaves, Mn, rs, W, q, out, os);                       \
    }

BSID_SWEEP_ENTRIES(float)
BSID_SWEEP_ENTRIES(double)

BSID_SWEEP_CLONES double dot(const double* x, const double* y, int n)
{
    return dot_impl(x, y, n);
}

BSID_SWEEP_CLONES double sum(const double* x, int n) { return sum_impl(x, n); }

} // namespace cpu
} // namespace bsid
