/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The segmented recursion: alpha and beta of a frame with its steps split
// into segments that run side by side, exact (docs/design.md, "The
// segmented recursion"). A step is linear in the row, so segment k maps its
// first row to its last by a matrix, the rows reached from each one-hot
// start; beta's step is the same matrix, applied from the other side, so
// one set of matrices serves both directions. Three launches, both
// directions at once (global storage):
//  1. seg_transfer_kernel: one warp per (frame, segment k, start state u)
//     runs segment k forward from the one-hot at u with the one-warp step
//     (warp_recursion.cuh), keeping the last row as T_u 2^e_u (the product
//     of the steps' sums split into a mantissa, kept in T_u, and a power of
//     two);
//  2. seg_combine_kernel: one block per (frame, direction) walks the
//     segments in order (beta's from the frame's end), each segment's first
//     row from the one before by its matrix: alpha, c_u = row(u) 2^(e_u -
//     max e), sum_u c_u T_u; beta, d_u = T_u . row, r_u = d_u 2^(e_u - max
//     e); normalized;
//  3. seg_rows_kernel: one warp per (frame, direction, segment) runs the
//     steps again from its first row, storing each row and each step's sum
//     (the normalizers) as the one-warp kernel does; the last forward
//     segment checks the frame's end.
// A frame with no path stops in phase 2 at the segment where the matrix
// product vanishes; that segment's phase 3 finds the step, as the
// sequential recursion does.

#include "cuda_check.h"
#include "kernel_launchers.h"
#include "launch_plan.h"
#include "warp_recursion.cuh"
#include <math_constants.h>
#include <stdexcept>

namespace bsid {
namespace cuda {

namespace {

constexpr int seg_combine_threads = 256; // 8 warps, each a share of the states u

// a (frame, direction)'s place in seg_start and seg_ok
__device__ __forceinline__ long long seg_index(int f, int dir)
{
    return (long long)f * 2 + dir;
}

// The steps [t0, t1) of segment k in direction fwd's own count: forward
// segment k holds indices [k L, min((k + 1) L, Wc)); backward segment k is
// forward segment segs - 1 - k, from its end (the short segment first), so
// that both directions cut the frame at the same indices and share the
// transfer matrices.
template <typename real>
__device__ __forceinline__ void
seg_steps(const launch_params<real>& p, bool fwd, int k, int& t0, int& t1)
{
    const int L = p.seg_len, Wc = p.Wc;
    if (fwd) {
        t0 = k * L;
        t1 = min(t0 + L, Wc);
    } else {
        const int j = p.segs - 1 - k;
        t0 = Wc - min((j + 1) * L, Wc);
        t1 = Wc - j * L;
    }
}

template <typename real, int EMAX, int SPL>
__global__ void __launch_bounds__(32) seg_transfer_kernel(launch_params<real> p)
{
    __shared__ double rowbuf[ab_warp_row<SPL>];
    const int u = blockIdx.x, k = blockIdx.y, f = blockIdx.z;
    if (p.status[f] != st_ok)
        return;
    const int lane = threadIdx.x, Mt = p.Mt;
    for (int s = lane; s < ab_warp_row<SPL>; s += 32)
        rowbuf[s] = 0.0;
    __syncwarp();
    if (lane == 0)
        rowbuf[ab_pad + u] = 1.0;
    __syncwarp();
    // the product of the steps' sums as mant 2^ex, mant in [0.5, 1) (the
    // same in every lane): no log on the step
    double mant = 1.0;
    int ex = 0;
    int t0, t1;
    seg_steps(p, true, k, t0, t1);
    // (many warps to an SM: one step of G in flight, fewer registers, all
    // of them resident at once)
    const int failed = warp_steps<real, EMAX, SPL, 1>(
        p, f, true, rowbuf, t0, t1, [&](int, double sum, const double(&)[SPL]) {
            int e;
            mant = frexp(mant * sum, &e);
            ex += e;
        });
    // the row times mant, and the exponent: the combination scales rows by
    // powers of two only
    const long long m = ((long long)f * p.segs + k) * Mt + u;
    if (lane == 0)
        p.seg_scale[m] = failed >= 0 ? -CUDART_INF : double(ex);
    for (int b = lane; b < Mt; b += 32)
        p.seg_trans[m * Mt + b] = failed >= 0 ? 0.0 : rowbuf[ab_pad + b] * mant;
}

// One block per (frame, direction): the segments' first rows in order.
// Warp w takes the start states u = w, w + NW, ... (UPT of them) and the end
// states v = lane, lane + 32 of each matrix; each thread loads its share of
// the next segment's matrix and scales while the current one is combined.
// Every warp keeps the current row in registers (states lane and lane + 32)
// and makes the same sums in the same order, so one barrier a segment is all
// the block needs (what the warps share alternates between two buffers).
// Alpha: each warp's part of sum_u c_u T_u, shared and summed over the warps.
// Beta: each warp's full dot products d_u = T_u . row for its states u,
// shared, then scaled and normalized in every warp.
template <typename real>
__global__ void __launch_bounds__(seg_combine_threads)
    seg_combine_kernel(launch_params<real> p)
{
    constexpr int NW = seg_combine_threads / 32, UPT = 64 / NW;
    __shared__ double part[2][NW][64]; // alpha: the warps' parts
    __shared__ double dots[2][64];     // beta: the d_u
    const int f = blockIdx.x, dir = blockIdx.y;
    const bool fwd = dir == 0;
    if (p.status[f] != st_ok)
        return;
    const int Mt = p.Mt, S = p.segs, tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
    const long long fd = seg_index(f, dir);
    double* first = p.seg_start + fd * S * Mt;
    const double* bound = (fwd ? p.start : p.end) + (long long)f * Mt;
    double cur[2]; // the current first row: states lane and lane + 32
#pragma unroll
    for (int j = 0; j < 2; ++j)
        cur[j] = lane + 32 * j < Mt ? bound[lane + 32 * j] : 0.0;
    // this thread's share of the k-th matrix on the way (forward segment k,
    // or segs - 1 - k backward) and its scales (sc: of its states u; all: of
    // states lane and lane + 32)
    auto fetch = [&](double(&t)[UPT][2], double(&sc)[UPT], double(&all)[2], int k) {
        const long long m0 = ((long long)f * S + (fwd ? k : S - 1 - k)) * Mt;
#pragma unroll
        for (int i = 0; i < UPT; ++i) {
            const int u = w + NW * i;
            sc[i] = u < Mt ? p.seg_scale[m0 + u] : -CUDART_INF;
#pragma unroll
            for (int j = 0; j < 2; ++j) {
                const int v = lane + 32 * j;
                t[i][j] = u < Mt && v < Mt ? p.seg_trans[(m0 + u) * Mt + v] : 0.0;
            }
        }
#pragma unroll
        for (int j = 0; j < 2; ++j)
            all[j] = lane + 32 * j < Mt ? p.seg_scale[m0 + lane + 32 * j] : -CUDART_INF;
    };
    // the new row (x, states lane and lane + 32) normalized into cur; false:
    // no path (the same in every thread)
    auto normalize = [&](const double(&x)[2]) {
        const double sum = warp_sum(x[0] + x[1]); // equal in every lane
        double inv = 0;
        if (!model::normalizer(sum, inv))
            return false;
        cur[0] = x[0] * inv;
        cur[1] = x[1] * inv;
        return true;
    };
    // alpha: segment k's last row from its first (cur)
    auto forward = [&](const double(&t)[UPT][2],
                       const double(&sc)[UPT],
                       const double(&all)[2],
                       int k) {
        // the scales' largest among the live start states (every warp)
        double mx = -CUDART_INF;
#pragma unroll
        for (int j = 0; j < 2; ++j)
            if (cur[j] > 0 && all[j] > mx)
                mx = all[j];
        for (int o = 16; o > 0; o >>= 1)
            mx = fmax(mx, __shfl_xor_sync(0xffffffffu, mx, o));
        double acc[2] = { 0.0, 0.0 };
#pragma unroll
        for (int i = 0; i < UPT; ++i) {
            const int u = w + NW * i; // the same in the whole warp
            const double cu_in =
                __shfl_sync(0xffffffffu, u < 32 ? cur[0] : cur[1], u & 31);
            const double cu = u < Mt && cu_in > 0 && sc[i] > -CUDART_INF
                                  ? ldexp(cu_in, int(sc[i] - mx))
                                  : 0.0;
            acc[0] += cu * t[i][0];
            acc[1] += cu * t[i][1];
        }
        double(&mine)[NW][64] = part[k & 1];
        mine[w][lane] = acc[0];
        mine[w][lane + 32] = acc[1];
        __syncthreads();
        // the states' sums in a fixed order, the same in every warp
        double x[2] = { 0.0, 0.0 };
        for (int q = 0; q < NW; ++q) {
            x[0] += mine[q][lane];
            x[1] += mine[q][lane + 32];
        }
        return normalize(x);
    };
    // beta: the segment's first row (its start index's) from its last (cur)
    auto backward = [&](const double(&t)[UPT][2],
                        const double(&sc)[UPT],
                        const double(&all)[2],
                        int k) {
        double* d = dots[k & 1];
#pragma unroll
        for (int i = 0; i < UPT; ++i) {
            const int u = w + NW * i;
            const double du = warp_sum(t[i][0] * cur[0] + t[i][1] * cur[1]);
            if (lane == i && u < Mt)
                d[u] = du; // T_u . row, without its scale
        }
        __syncthreads();
        // the largest scale among the states with a path (every warp)
        double x[2];
        double mx = -CUDART_INF;
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            x[j] = lane + 32 * j < Mt ? d[lane + 32 * j] : 0.0;
            if (x[j] > 0 && all[j] > mx)
                mx = all[j];
        }
        for (int o = 16; o > 0; o >>= 1)
            mx = fmax(mx, __shfl_xor_sync(0xffffffffu, mx, o));
#pragma unroll
        for (int j = 0; j < 2; ++j)
            x[j] = x[j] > 0 ? ldexp(x[j], int(all[j] - mx)) : 0.0;
        (void)sc;
        return normalize(x);
    };
    auto combine = [&](const double(&t)[UPT][2],
                       const double(&sc)[UPT],
                       const double(&all)[2],
                       int k) {
        return fwd ? forward(t, sc, all, k) : backward(t, sc, all, k);
    };
    double ta[UPT][2], sa[UPT], aa[2], tb[UPT][2], sb[UPT], ab[2]; // two segments' shares
    if (S > 1)
        fetch(ta, sa, aa, 0);
    int k = 0;
    for (;; ++k) {
        if (w == 0) {
#pragma unroll
            for (int j = 0; j < 2; ++j)
                if (lane + 32 * j < Mt)
                    first[(long long)k * Mt + lane + 32 * j] = cur[j];
        }
        if (k == S - 1)
            break;
        // even k: this segment's share in ta, the next one's to tb; odd k: swapped
        bool more;
        if ((k & 1) == 0) {
            if (k + 1 < S - 1)
                fetch(tb, sb, ab, k + 1); // in flight while this one is combined
            more = combine(ta, sa, aa, k);
        } else {
            if (k + 1 < S - 1)
                fetch(ta, sa, aa, k + 1);
            more = combine(tb, sb, ab, k);
        }
        if (!more)
            break;
    }
    // segments 0..k have their first rows; a stop: no path within segment k
    if (tid == 0)
        p.seg_ok[fd] = k + 1;
}

template <typename real, int EMAX, int SPL>
__global__ void __launch_bounds__(32) seg_rows_kernel(launch_params<real> p)
{
    __shared__ double rowbuf[ab_warp_row<SPL>];
    const int k = blockIdx.x, f = int(blockIdx.y) >> 1, dir = int(blockIdx.y) & 1;
    const bool fwd = dir == 0;
    if (p.status[f] != st_ok)
        return;
    const long long fd = seg_index(f, dir);
    const int ok = p.seg_ok[fd];
    if (k >= ok)
        return; // past a segment with no path
    const int lane = threadIdx.x, Mt = p.Mt, S = p.segs;
    double* rows = (fwd ? p.alpha : p.beta) + (long long)f * (p.N + 1) * Mt;
    double* norm = (fwd ? p.log_alpha_norm : p.log_beta_norm) + (long long)f * (p.N + 1);
    for (int s = lane; s < ab_warp_row<SPL>; s += 32)
        rowbuf[s] = 0.0;
    __syncwarp();
    const double* first = p.seg_start + (fd * S + k) * Mt;
    int t0, t1;
    seg_steps(p, fwd, k, t0, t1);
    for (int b = lane; b < Mt; b += 32) {
        rowbuf[ab_pad + b] = first[b];
        if (k == 0) // the boundary row (alpha_0 or beta_N)
            rows[(long long)(fwd ? 0 : p.N) * Mt + b] = first[b];
    }
    int last = -1;
    const int failed = warp_steps<real, EMAX, SPL>(
        p, f, fwd, rowbuf, t0, t1, [&](int to, double sum, const double(&v)[SPL]) {
            warp_store_row<SPL>(rows, norm, Mt, to, sum, v);
            last = to;
        });
    // the segment in which phase 2 found no path must fail here too; should
    // rounding let its steps pass, its last row is where the paths end
    const int bad = failed >= 0 ? failed : (k == ok - 1 && ok < S) ? last : -1;
    if (bad >= 0) {
        if (lane == 0) {
            p.status[f] = fwd ? st_alpha : st_beta;
            p.status_index[f] = bad;
        }
        return;
    }
    if (fwd && k == S - 1)
        warp_end_check<real, SPL>(p, f, rowbuf);
}

template <typename real, int EMAX, int SPL>
void launch_segmented_shape(const launch_params<real>& p)
{
    const unsigned F = unsigned(p.F), S = unsigned(p.segs);
    seg_transfer_kernel<real, EMAX, SPL><<<dim3(unsigned(p.Mt), S, F), 32>>>(p);
    BSID_CUDA(cudaGetLastError());
    seg_combine_kernel<real><<<dim3(F, 2), seg_combine_threads>>>(p);
    BSID_CUDA(cudaGetLastError());
    seg_rows_kernel<real, EMAX, SPL><<<dim3(S, 2 * F), 32>>>(p);
    BSID_CUDA(cudaGetLastError());
}

} // namespace

template <typename real>
void launch_segmented_recursion(const launch_params<real>& p)
{
    if (p.seg_len < 1 || p.segs < 2 || p.Mt > 64 || p.Mn > 32 || p.i0 != 0 || p.Wc != p.N)
        throw std::logic_error(
            "map_decoder(cuda): no segmented recursion for this launch");
    const int emax = plan_warp_emax(p.Mn); // the forms of ab_warp_kernel
    const int spl = (p.Mt + 31) / 32;
    switch (emax * 10 + spl) {
    case 81:
        return launch_segmented_shape<real, 8, 1>(p);
    case 82:
        return launch_segmented_shape<real, 8, 2>(p);
    case 121:
        return launch_segmented_shape<real, 12, 1>(p);
    case 122:
        return launch_segmented_shape<real, 12, 2>(p);
    case 161:
        return launch_segmented_shape<real, 16, 1>(p);
    case 162:
        return launch_segmented_shape<real, 16, 2>(p);
    case 321:
        return launch_segmented_shape<real, 32, 1>(p);
    case 322:
        return launch_segmented_shape<real, 32, 2>(p);
    default:
        throw std::logic_error(
            "map_decoder(cuda): no segmented recursion for this shape");
    }
}

template void launch_segmented_recursion<float>(const launch_params<float>&);
template void launch_segmented_recursion<double>(const launch_params<double>&);

} // namespace cuda
} // namespace bsid
