/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The one-warp recursion step (eqn:alpha, eqn:beta with eqn:alpha_norm) for
// M_tau <= 32 SPL states and M_n <= EMAX: one warp runs a range of steps of one
// frame and direction, SPL states a lane, the row in shared memory between
// zeros. ab_warp_kernel (recursion_kernels.cu) runs a window's steps in a
// row; the segmented recursion (segmented_recursion.cu) runs segments of
// them side by side. Device code only: included by those two files.

#ifndef INCLUDED_BSID_CUDA_WARP_RECURSION_CUH
#define INCLUDED_BSID_CUDA_WARP_RECURSION_CUH

#include "lattice_kernels.cuh"
#include <gnuradio/bsid/core/inner/model.h>

namespace bsid {
namespace cuda {

constexpr int ab_pad = 32; // zeros on each side of the fast path's row (M_n <= 32)

// The places of a fast-path state's terms, so that the step tests none of
// them: term e (drift change dlo + e) of state s multiplies G(e, s_G) by the
// row's entry r0 + step * e, where s_G is the state whose G it is (b - d
// forward, s itself backward) and r0 the row's entry for e = 0. goff: s_G's
// offset in an index's slice of G, clamped into [0, Mt) (a term whose other
// state is outside the states then reads a valid entry and meets a zero of
// the row's padding); roff: the entry's place in the padded row (offset
// ab_pad), or 0, a padding zero, for e >= Mn (and for states past Mt the
// caller drops the sum).
template <int EMAX>
__device__ __forceinline__ void ab_term_offsets(
    unsigned (&goff)[EMAX], int (&roff)[EMAX], int s, int r0, int step, int Mt, int Mn)
{
#pragma unroll
    for (int e = 0; e < EMAX; ++e) {
        int sg = step < 0 ? r0 - e : s; // forward: the state b - d; backward: a
        sg = sg < 0 ? 0 : sg < Mt ? sg : Mt - 1;
        goff[e] = unsigned((e < Mn ? e : 0) * Mt + sg);
        roff[e] = e < Mn ? ab_pad + r0 + step * e : 0;
    }
}

// How many steps of G the warp keeps in flight (EMAX x SPL values a step):
// 2 where they fit 32 registers a lane (their offsets take as many).
template <typename real, int EMAX, int SPL>
constexpr int ab_warp_depth = (EMAX * SPL * int(sizeof(real) / 4)) <= 32 ? 2 : 1;

// The row buffer of one warp: the row (32 SPL states) between ab_pad zeros.
template <int SPL>
constexpr int ab_warp_row = 2 * ab_pad + 32 * SPL;

/*
 * Steps t0 <= t < t1 of frame f's recursion in one direction over the window
 * of p (step t: index iw = t forward, Wc - 1 - t backward, into row `to` =
 * i + 1 forward, i backward, i = i0 + iw), from the row in rowbuf (its
 * states at ab_pad + b, zeros around them), each new row normalized by its
 * sum (model::normalizer) and left in rowbuf. After each step, keep(to, sum,
 * v) gets the new row's sum and this lane's values of it (v[j]: state lane +
 * 32 j, for those below Mt). Returns -1, or the `to` of a row whose sum
 * failed (0 or not finite: no path), where it stopped. Every lane returns
 * the same. PF: the steps whose G is in flight (1 where many warps share an
 * SM and hide each other's loads, and registers count).
 */
template <typename real,
          int EMAX,
          int SPL,
          int PF = ab_warp_depth<real, EMAX, SPL>,
          typename Keep>
__device__ int warp_steps(const launch_params<real>& p,
                          int f,
                          bool fwd,
                          double (&rowbuf)[ab_warp_row<SPL>],
                          int t0,
                          int t1,
                          Keep&& keep)
{
    const int Mt = p.Mt, Mn = p.Mn, dlo = p.dlo, lane = threadIdx.x & 31;
    // each term's places (ab_term_offsets): no term is tested
    unsigned goff[SPL][EMAX];
    int roff[SPL][EMAX];
#pragma unroll
    for (int j = 0; j < SPL; ++j) {
        const int b = lane + 32 * j;
        if (fwd)
            ab_term_offsets<EMAX>(goff[j], roff[j], b, b - dlo, -1, Mt, Mn);
        else
            ab_term_offsets<EMAX>(goff[j], roff[j], b, b + dlo, 1, Mt, Mn);
    }
    // G of the next PF steps in flight (by default ab_warp_depth)
    real g[PF][SPL][EMAX];
    auto load_g = [&](real(&gs)[SPL][EMAX], int t) {
        const int iw = fwd ? t : p.Wc - 1 - t;
        const real* G = p.G + ((long long)f * p.W + iw) * Mn * Mt;
#pragma unroll
        for (int j = 0; j < SPL; ++j) {
#pragma unroll
            for (int e = 0; e < EMAX; ++e)
                gs[j][e] = G[goff[j][e]];
        }
    };
#pragma unroll
    for (int k = 0; k < PF; ++k) {
        if (t0 + k < t1)
            load_g(g[k], t0 + k);
    }
    __syncwarp();
    for (int s0 = t0; s0 < t1; s0 += PF) {
#pragma unroll
        for (int k = 0; k < PF; ++k) {
            const int t = s0 + k;
            if (t >= t1)
                break;
            const int i = p.i0 + (fwd ? t : p.Wc - 1 - t);
            double s[SPL];
            double local = 0;
#pragma unroll
            for (int j = 0; j < SPL; ++j) {
                // two chains of multiply-adds (even and odd e), half as long
                const int b = lane + 32 * j;
                double h[2] = { 0.0, 0.0 };
#pragma unroll
                for (int e = 0; e < EMAX; ++e)
                    h[e & 1] += rowbuf[roff[j][e]] * g[k][j][e];
                s[j] = b < Mt ? h[0] + h[1] : 0.0; // states past Mt: none
                local += s[j];
            }
            if (t + PF < t1)
                load_g(g[k], t + PF);           // in flight from here on
            const double sum = warp_sum(local); // the same in every lane
            const int to = fwd ? i + 1 : i;
            double inv = 0;
            if (!model::normalizer(sum, inv))
                return to;
            __syncwarp(); // every lane has read the row
#pragma unroll
            for (int j = 0; j < SPL; ++j) {
                s[j] *= inv;
                const int b = lane + 32 * j;
                if (b < Mt)
                    rowbuf[ab_pad + b] = s[j];
            }
            keep(to, sum, s);
            __syncwarp(); // the new row is visible to every lane
        }
    }
    return -1;
}

// What the recursions keep of a step (warp_steps' keep): its sum, raw until
// norm_scan_kernel, in norm[to], and the new row (this lane's values v) in
// rows[to] (the frame's alpha or beta).
template <int SPL>
__device__ __forceinline__ void warp_store_row(
    double* rows, double* norm, int Mt, int to, double sum, const double (&v)[SPL])
{
    const int lane = threadIdx.x & 31;
    if (lane == 0)
        norm[to] = sum;
#pragma unroll
    for (int j = 0; j < SPL; ++j) {
        const int b = lane + 32 * j;
        if (b < Mt)
            rows[(long long)to * Mt + b] = v[j];
    }
}

// The forward recursion's last row (in rowbuf) against the frame's end
// weights: some path must end where they allow (st_end), else log2 of
// lambda_N for the posteriors' scale.
template <typename real, int SPL>
__device__ void warp_end_check(const launch_params<real>& p,
                               int f,
                               const double (&rowbuf)[ab_warp_row<SPL>])
{
    const int lane = threadIdx.x & 31;
    const double* en = p.end + (long long)f * p.Mt;
    double s = 0;
    for (int b = lane; b < p.Mt; b += 32)
        s += rowbuf[ab_pad + b] * en[b];
    s = warp_sum(s);
    if (lane == 0 && !(s > 0)) {
        p.status[f] = st_end;
        p.status_index[f] = p.N;
    } else if (lane == 0) {
        p.log_lambda_end[f] = log2(s);
    }
}

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_WARP_RECURSION_CUH */
