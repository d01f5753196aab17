/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/bsid/core/inner/lattice.h>
#include <algorithm>
#include <cstring>

namespace bsid {

namespace {

/*
 * The decoder spends most of its time here. The vector loops over D are
 * compiled once per instruction set (AVX-512, AVX2 with FMA, baseline) and
 * the best one is picked when the library loads (GCC target_clones), so a
 * portable build still runs at the speed of the machine it runs on.
 */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define BSID_KERNEL_CLONES \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define BSID_KERNEL_CLONES
#endif

template <typename real, bool SOFT>
__attribute__((always_inline)) inline void
corridor_lattice_impl(const lattice_weights<real>& w,
                      int n,
                      int q,
                      const real* const* qsel,
                      const uint8_t* y,
                      const real* yprob,
                      long long avail,
                      int dlo,
                      int dhi,
                      real* scratch,
                      real* out)
{
    // Node (r, c) of row r lives at index k = c - r - dlo, k in [0, Mn).
    const int Mn = dhi - dlo + 1;
    const size_t Q = size_t(q);
    real* prev = scratch;
    real* cur = scratch + size_t(Mn) * Q;

    // Row 0: F(0,0) = 1, then insertions only: F(0,c) = Pi/2 F(0,c-1).
    std::fill(prev, prev + size_t(Mn) * Q, real(0));
    {
        const int k0 = -dlo; // c = 0
        real* p = prev + size_t(k0) * Q;
        std::fill(p, p + Q, real(1));
        for (int k = k0 + 1; k < Mn && (long long)(k + dlo) <= avail; ++k) {
            real* __restrict__ dst = prev + size_t(k) * Q;
            const real* __restrict__ src = prev + size_t(k - 1) * Q;
            const real ins = w.ins;
#pragma omp simd
            for (size_t D = 0; D < Q; ++D)
                dst[D] = model::lattice_row0(1, 0, ins, src[D]);
        }
    }

    // Rows 1..n (eqn:F; eqn:F_lastrow for r = n, without the insertion term:
    // model::lattice_cell with ins = 0 is model::lattice_last_cell).
    for (int r = 1; r <= n; ++r) {
        const real ins = r < n ? w.ins : real(0);
        const real del = w.del;
        for (int k = 0; k < Mn; ++k) {
            const long long c = (long long)r + dlo + k;
            real* __restrict__ dst = cur + size_t(k) * Q;
            if (c < 0 || c > avail) {
                std::fill(dst, dst + Q, real(0));
                continue;
            }
            // diagonal from (r-1, c-1): same k in the previous row, reads y[c-1]
            const bool has_diag = c >= 1;
            const real* __restrict__ diag = prev + size_t(k) * Q;
            // hard: the weights for the received bit; soft: both, mixed by
            // the item's probabilities (model::soft_diag)
            const real* __restrict__ qv =
                has_diag ? qsel[2 * (r - 1) + (SOFT ? 0 : y[c - 1])] : nullptr;
            const real* __restrict__ qv1 =
                has_diag && SOFT ? qsel[2 * (r - 1) + 1] : nullptr;
            const real w0 = has_diag && SOFT ? yprob[2 * (c - 1)] : real(1);
            const real w1 = has_diag && SOFT ? yprob[2 * (c - 1) + 1] : real(0);
            // vertical from (r-1, c): drift one higher, k + 1 in the previous row
            const bool has_vert = k + 1 < Mn;
            const real* __restrict__ vert = prev + size_t(k + 1) * Q;
            // horizontal from (r, c-1): k - 1 in this row
            // (at k = 0 there is no horizontal term: cur - Q would point before the
            // array)
            const bool has_horz = k >= 1 && c >= 1 && ins != real(0);
            const real* __restrict__ horz = k >= 1 ? cur + size_t(k - 1) * Q : cur;
            if (has_diag && has_vert && has_horz) {
                if (SOFT) {
#pragma omp simd
                    for (size_t D = 0; D < Q; ++D)
                        dst[D] =
                            model::lattice_cell(model::soft_diag(w0, w1, qv[D], qv1[D]),
                                                diag[D],
                                                del,
                                                vert[D],
                                                ins,
                                                horz[D]);
                } else {
#pragma omp simd
                    for (size_t D = 0; D < Q; ++D)
                        dst[D] = model::lattice_cell(
                            qv[D], diag[D], del, vert[D], ins, horz[D]);
                }
            } else {
                // corridor edges and the first columns: each term in its own pass
                if (has_diag && SOFT) {
#pragma omp simd
                    for (size_t D = 0; D < Q; ++D)
                        dst[D] = model::soft_diag(w0, w1, qv[D], qv1[D]) * diag[D];
                } else if (has_diag) {
#pragma omp simd
                    for (size_t D = 0; D < Q; ++D)
                        dst[D] = qv[D] * diag[D];
                } else {
                    std::fill(dst, dst + Q, real(0));
                }
                if (has_vert) {
#pragma omp simd
                    for (size_t D = 0; D < Q; ++D)
                        dst[D] += del * vert[D];
                }
                if (has_horz) {
#pragma omp simd
                    for (size_t D = 0; D < Q; ++D)
                        dst[D] += ins * horz[D];
                }
            }
        }
        std::swap(prev, cur);
    }
    // prev holds row n: node k has end drift d = dlo + k (column n + d).
    std::memcpy(out, prev, sizeof(real) * size_t(Mn) * Q);
}

BSID_KERNEL_CLONES void corridor_lattice_float(const lattice_weights<float>& w,
                                               int n,
                                               int q,
                                               const float* const* qsel,
                                               const uint8_t* y,
                                               const float* yprob,
                                               long long avail,
                                               int dlo,
                                               int dhi,
                                               float* scratch,
                                               float* out)
{
    if (yprob)
        corridor_lattice_impl<float, true>(
            w, n, q, qsel, y, yprob, avail, dlo, dhi, scratch, out);
    else
        corridor_lattice_impl<float, false>(
            w, n, q, qsel, y, yprob, avail, dlo, dhi, scratch, out);
}

BSID_KERNEL_CLONES void corridor_lattice_double(const lattice_weights<double>& w,
                                                int n,
                                                int q,
                                                const double* const* qsel,
                                                const uint8_t* y,
                                                const double* yprob,
                                                long long avail,
                                                int dlo,
                                                int dhi,
                                                double* scratch,
                                                double* out)
{
    if (yprob)
        corridor_lattice_impl<double, true>(
            w, n, q, qsel, y, yprob, avail, dlo, dhi, scratch, out);
    else
        corridor_lattice_impl<double, false>(
            w, n, q, qsel, y, yprob, avail, dlo, dhi, scratch, out);
}

} // namespace

template <>
void corridor_lattice<float>(const lattice_weights<float>& w,
                             int n,
                             int q,
                             const float* const* qsel,
                             const uint8_t* y,
                             const float* yprob,
                             long long avail,
                             int dlo,
                             int dhi,
                             float* scratch,
                             float* out)
{
    corridor_lattice_float(w, n, q, qsel, y, yprob, avail, dlo, dhi, scratch, out);
}

template <>
void corridor_lattice<double>(const lattice_weights<double>& w,
                              int n,
                              int q,
                              const double* const* qsel,
                              const uint8_t* y,
                              const double* yprob,
                              long long avail,
                              int dlo,
                              int dhi,
                              double* scratch,
                              double* out)
{
    corridor_lattice_double(w, n, q, qsel, y, yprob, avail, dlo, dhi, scratch, out);
}

exact_letter_weights::exact_letter_weights(const channel_params& ch)
    : ins(ch.Pi() / ch.alphabet()), del(ch.Pd()), A(ch.alphabet())
{
    d_tab.resize(size_t(A) * size_t(A));
    for (int x = 0; x < A; ++x)
        for (int y = 0; y < A; ++y)
            d_tab[size_t(x * A + y)] = ch.Pt() * ch.emission(unsigned(x), unsigned(y));
}

namespace {

// eqn:F over the whole lattice; diag(c, x) is the diagonal weight of sending
// letter x and receiving item c
template <typename Diag>
std::vector<double> full_lattice_impl(
    const exact_letter_weights& w, const uint8_t* x, size_t nx, size_t ny, Diag diag)
{
    std::vector<double> prev(ny + 1, 0.0), cur(ny + 1, 0.0);
    prev[0] = 1.0; // F(0,0) = 1
    for (size_t c = 1; c <= ny && nx > 0; ++c)
        prev[c] = w.ins * prev[c - 1];
    for (size_t r = 1; r <= nx; ++r) {
        const double ins = r < nx ? w.ins : 0.0; // no insertion after the last letter
        for (size_t c = 0; c <= ny; ++c) {
            double v = w.del * prev[c];
            if (c >= 1) {
                v += diag(c - 1, x[r - 1]) * prev[c - 1];
                v += ins * cur[c - 1];
            }
            cur[c] = v;
        }
        std::swap(prev, cur);
    }
    return prev;
}

} // namespace

std::vector<double> full_lattice_last_row(
    const channel_params& ch, const uint8_t* x, size_t nx, const uint8_t* y, size_t ny)
{
    const exact_letter_weights w(ch);
    return full_lattice_impl(
        w, x, nx, ny, [&](size_t c, uint8_t xb) { return w.diag(xb, y[c]); });
}

std::vector<double> full_lattice_last_row(const channel_params& ch,
                                          const uint8_t* x,
                                          size_t nx,
                                          const received_items& y,
                                          size_t ny)
{
    if (!y.soft())
        return full_lattice_last_row(ch, x, nx, y.bits, ny);
    received_items items = y;
    items.alphabet = ch.alphabet();
    std::vector<double> prob(size_t(ch.alphabet()) * ny);
    item_probabilities(items, ny, prob.data());
    return full_lattice_last_row_probs(ch, x, nx, prob.data(), ny);
}

std::vector<double> full_lattice_last_row_probs(
    const channel_params& ch, const uint8_t* x, size_t nx, const double* prob, size_t ny)
{
    const exact_letter_weights w(ch);
    const size_t A = size_t(w.A);
    return full_lattice_impl(w, x, nx, ny, [&](size_t c, uint8_t xb) {
        return w.diag_probs(xb, prob + A * c);
    });
}

double receiver_metric(
    const channel_params& ch, const uint8_t* x, size_t nx, const uint8_t* y, size_t ny)
{
    return full_lattice_last_row(ch, x, nx, y, ny)[ny];
}

} // namespace bsid
