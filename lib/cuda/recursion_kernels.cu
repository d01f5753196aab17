/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The recursions of the CUDA backend: alpha and beta (eqn:alpha, eqn:beta,
// eqn:alpha_norm) from G, the sums over D of gamma, one block or one warp
// per frame and direction, in double in both precisions (their range: a
// state the model makes unlikely, e.g. by a prior far against the sent
// symbols, must not underflow; they cost a small part of the time); and the posteriors of
// each (frame, i) from the lattice pass's partial sums (eqn:L). Steps and normalization
// from model.h; the boundary conditions are the frame's start and end weights.

#include "cuda_check.h"
#include "kernel_launchers.h"
#include "lattice_kernels.cuh"
#include "launch_plan.h"
#include "warp_recursion.cuh"
#include <gnuradio/bsid/core/inner/model.h>
#include <algorithm>
#include <stdexcept>

namespace bsid {
namespace cuda {

// Sum of one value per thread over the block (double accumulation): within
// each warp by shuffles, then across the warps' sums, two barriers in all.
// Every thread adds the warps' sums in the same order, so all get the same
// result (the kernels' early returns depend on it). blockDim: a multiple of 32.
__device__ double block_sum(double v, double* shared)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int nwarps = int(blockDim.x + 31) >> 5;
    __syncthreads(); // the previous call's readers are done with shared
    if (lane == 0)
        shared[warp] = v;
    __syncthreads();
    double r = 0;
    for (int w = 0; w < nwarps; ++w)
        r += shared[w];
    return r;
}

constexpr int ab_max_block = 512; // states per block on the fast path

// the block kernel's other path's row in shared memory (pad > 0, see
// ab_kernel): `pad` zeros, the Mt states, `pad` zeros
__device__ void load_row(const double* from, int Mt, int pad, double* sh)
{
    for (int s = threadIdx.x; s < Mt + 2 * pad; s += blockDim.x) {
        const int t = s - pad;
        sh[s] = t >= 0 && t < Mt ? from[t] : 0.0;
    }
    __syncthreads();
}

// model::forward_sum and model::backward_sum with the row in shared memory
// between Mn zeros (no test on it), the same terms in the same order; the
// loads of G eight drift changes at a time, all in flight together
template <typename real>
__device__ __forceinline__ double
forward_sum_shared(int b, int dlo, int Mn, int Mt, const double* row, const real* G)
{
    double s = 0;
#pragma unroll 8
    for (int e = 0; e < Mn; ++e) {
        const int a = b - dlo - e;
        const double g = a >= 0 && a < Mt ? double(G[(long long)e * Mt + a]) : 0.0;
        s += row[a] * g;
    }
    return s;
}
template <typename real>
__device__ __forceinline__ double
backward_sum_shared(int a, int dlo, int Mn, int Mt, const double* row, const real* G)
{
    double s = 0;
#pragma unroll 8
    for (int e = 0; e < Mn; ++e)
        s += double(G[(long long)e * Mt + a]) * row[a + dlo + e];
    return s;
}

/*
 * Forward recursion over the window (eqn:alpha with eqn:alpha_norm):
 * alpha_{i+1}(b) = sum_e alpha_i(b - d) G_i(e, b - d), one block per frame.
 * Fast path (Mt <= blockDim, Mn <= 32): one state per thread, the row in
 * shared memory, and the next index's G loaded while the sum is reduced.
 */
template <typename real, int EMAX>
__device__ void
alpha_pass(const launch_params<real>& p, int f, double* red, double* sh, int pad)
{
    if (p.status[f] != st_ok)
        return;
    double* alpha = p.alpha + (long long)f * (p.N + 1) * p.Mt;
    const int Mt = p.Mt, Mn = p.Mn, dlo = p.dlo;
    const bool fast = EMAX > 0; // ab_kernel runs only its fast path (plan_ab_fast)
    double* norm =
        p.log_alpha_norm + (long long)f * (p.N + 1); // raw until norm_scan_kernel
    if (p.i0 == 0) {
        // alpha_0: the frame's start weights (map_decoder::boundaries)
        for (int b = threadIdx.x; b < Mt; b += blockDim.x)
            alpha[b] = p.start[(long long)f * Mt + b];
        __syncthreads();
    }
    const int b = threadIdx.x;
    // the fast path: the row in shared memory between 32 zeros on each side
    // (no bounds tests), and which e give a state a = b - d inside [0, Mt)
    double* row = sh + ab_pad;
    unsigned live = 0;
    for (int e = 0; e < EMAX; ++e) {
        const int a = b - dlo - e;
        if (e < Mn && b < Mt && a >= 0 && a < Mt)
            live |= 1u << e;
    }
    real g[EMAX > 0 ? EMAX : 1];
    auto load_g = [&](int iw) {
        const real* G = p.G + ((long long)f * p.W + iw) * Mn * Mt + (b - dlo);
#pragma unroll
        for (int e = 0; e < EMAX; ++e)
            g[e] = ((live >> e) & 1u) ? G[(long long)e * (Mt - 1)] : real(0);
    };
    if (fast) {
        for (int s = threadIdx.x; s < int(blockDim.x) + 2 * ab_pad; s += blockDim.x) {
            const int t = s - ab_pad;
            sh[s] = t >= 0 && t < Mt ? alpha[(long long)p.i0 * Mt + t] : 0.0;
        }
        load_g(0);
        __syncthreads();
    } else if (pad > 0) {
        load_row(alpha + (long long)p.i0 * Mt, Mt, pad, sh);
    }
    double* srow = sh + pad; // the shared-row path's row (pad > 0)
    for (int iw = 0; iw < p.Wc; ++iw) {
        const int i = p.i0 + iw;
        double* an = alpha + (long long)(i + 1) * Mt;
        double local = 0;
        double s_fast = 0;
        if (fast) {
#pragma unroll
            for (int e = 0; e < EMAX; ++e)
                s_fast += row[b - dlo - e] * g[e];
            local = s_fast;
            if (iw + 1 < p.Wc)
                load_g(iw + 1); // in flight during the reduction
        } else {
            const double* ai = alpha + (long long)i * Mt;
            const real* G = p.G + ((long long)f * p.W + iw) * Mn * Mt;
            for (int bb = threadIdx.x; bb < Mt; bb += blockDim.x) {
                const double s =
                    pad > 0 ? forward_sum_shared(bb, dlo, Mn, Mt, srow, G)
                            : model::forward_sum<double>(
                                  bb,
                                  dlo,
                                  Mn,
                                  Mt,
                                  [&](int a) { return ai[a]; },
                                  [&](int e, int a) { return G[(long long)e * Mt + a]; });
                an[bb] = s;
                local += s;
            }
        }
        const double sum = block_sum(local, red);
        double inv = 0;
        if (!model::normalizer(sum, inv)) {
            if (threadIdx.x == 0) {
                p.status[f] = st_alpha;
                p.status_index[f] = i + 1;
            }
            return; // every thread sees the same sum
        }
        if (threadIdx.x == 0)
            norm[i + 1] = sum;
        if (fast) {
            // block_sum's barriers: every thread has read sh for this index
            if (b < Mt) {
                const double v = s_fast * inv;
                row[b] = v;
                an[b] = v;
            }
        } else {
            // block_sum's barriers: every thread has read srow for this index
            for (int bb = threadIdx.x; bb < Mt; bb += blockDim.x) {
                const double v = an[bb] * inv;
                an[bb] = v;
                if (pad > 0)
                    srow[bb] = v;
            }
        }
        __syncthreads();
    }
    if (p.i0 + p.Wc == p.N && threadIdx.x == 0) {
        // some path must end where the end weights allow
        double s = 0;
        const double* en = p.end + (long long)f * Mt;
        for (int b = 0; b < Mt; ++b)
            s += double(alpha[(long long)p.N * Mt + b]) * double(en[b]);
        if (!(s > 0)) {
            p.status[f] = st_end;
            p.status_index[f] = p.N;
        } else {
            p.log_lambda_end[f] = log2(s);
        }
    }
}

/*
 * Backward recursion over the window in reverse (eqn:beta):
 * beta_i(a) = sum_e G_i(e, a) beta_{i+1}(a + d), normalized, one block per
 * frame; the same fast path as alpha.
 */
template <typename real, int EMAX>
__device__ void
beta_pass(const launch_params<real>& p, int f, double* red, double* sh, int pad)
{
    if (p.status[f] != st_ok)
        return;
    double* beta = p.beta + (long long)f * (p.N + 1) * p.Mt;
    const int Mt = p.Mt, Mn = p.Mn, dlo = p.dlo;
    const bool fast = EMAX > 0; // ab_kernel runs only its fast path (plan_ab_fast)
    double* norm =
        p.log_beta_norm + (long long)f * (p.N + 1); // raw until norm_scan_kernel
    if (p.i0 + p.Wc == p.N) {
        // beta_N: the frame's end weights (map_decoder::boundaries)
        double* bN = beta + (long long)p.N * Mt;
        for (int a = threadIdx.x; a < Mt; a += blockDim.x)
            bN[a] = p.end[(long long)f * Mt + a];
        __syncthreads();
    }
    const int a = threadIdx.x;
    real g[EMAX > 0 ? EMAX : 1];
    auto load_g = [&](int iw) {
        const real* G = p.G + ((long long)f * p.W + iw) * Mn * Mt;
#pragma unroll
        for (int e = 0; e < EMAX; ++e) {
            g[e] = (e < Mn && a < Mt) ? G[(long long)e * Mt + a] : real(0);
        }
    };
    double* row = sh + ab_pad; // as in alpha_pass: zeros on both sides
    if (fast) {
        const int top = p.i0 + p.Wc;
        for (int s = threadIdx.x; s < int(blockDim.x) + 2 * ab_pad; s += blockDim.x) {
            const int t = s - ab_pad;
            sh[s] = t >= 0 && t < Mt ? beta[(long long)top * Mt + t] : 0.0;
        }
        load_g(p.Wc - 1);
        __syncthreads();
    } else if (pad > 0) {
        load_row(beta + (long long)(p.i0 + p.Wc) * Mt, Mt, pad, sh);
    }
    double* srow = sh + pad; // the shared-row path's row (pad > 0)
    for (int iw = p.Wc - 1; iw >= 0; --iw) {
        const int i = p.i0 + iw;
        double* bc = beta + (long long)i * Mt;
        double local = 0;
        double s_fast = 0;
        if (fast) {
#pragma unroll
            for (int e = 0; e < EMAX; ++e)
                s_fast += g[e] * row[a + dlo + e];
            local = s_fast;
            if (iw > 0)
                load_g(iw - 1);
        } else {
            const double* bn = beta + (long long)(i + 1) * Mt;
            const real* G = p.G + ((long long)f * p.W + iw) * Mn * Mt;
            for (int aa = threadIdx.x; aa < Mt; aa += blockDim.x) {
                const double s =
                    pad > 0 ? backward_sum_shared(aa, dlo, Mn, Mt, srow, G)
                            : model::backward_sum<double>(
                                  aa,
                                  dlo,
                                  Mn,
                                  Mt,
                                  [&](int b) { return bn[b]; },
                                  [&](int e, int a) { return G[(long long)e * Mt + a]; });
                bc[aa] = s;
                local += s;
            }
        }
        const double bs = block_sum(local, red);
        double inv = 0;
        if (!model::normalizer(bs, inv)) {
            if (threadIdx.x == 0) {
                p.status[f] = st_beta;
                p.status_index[f] = i;
            }
            return;
        }
        if (threadIdx.x == 0)
            norm[i] = bs;
        if (fast) {
            if (a < Mt) {
                const double v = s_fast * inv;
                row[a] = v;
                bc[a] = v;
            }
        } else {
            for (int aa = threadIdx.x; aa < Mt; aa += blockDim.x) {
                const double v = bc[aa] * inv;
                bc[aa] = v;
                if (pad > 0)
                    srow[aa] = v;
            }
        }
        __syncthreads();
    }
}

// alpha and beta of every frame: blockIdx.x is the frame; blockIdx.y picks
// the direction when both run at once (global storage), else `which` does.
// pad: 0, or (where the fast path does not apply: M_tau past the block or
// M_n past EMAX) the zeros on each side of the row that the block keeps in
// shared memory (plan_ab_row_pad: M_n), instead of reading it from
// global memory term by term
template <typename real, int EMAX>
__device__ __forceinline__ void ab_body(const launch_params<real>& p, int which, int pad)
{
    extern __shared__ double red[]; // 32 doubles, then the row
    double* sh = red + 32;
    const int dir = gridDim.y == 2 ? int(blockIdx.y) : which;
    if (dir == 0) {
        alpha_pass<real, EMAX>(p, int(blockIdx.x), red, sh, pad);
    } else {
        beta_pass<real, EMAX>(p, int(blockIdx.x), red, sh, pad);
    }
}
template <typename real, int EMAX>
__global__ void __launch_bounds__(ab_max_block)
    ab_kernel(launch_params<real> p, int which, int pad)
{
    ab_body<real, EMAX>(p, which, pad);
}
// The same past the fast path (M_tau past the block or M_n past 32): no
// fast path holding registers, and up to 128 registers a thread (one block
// per SM), where ab_kernel<float, 32> fits 64 and spills 100 bytes
// (ptxas: 96, none spilled in either precision)
template <typename real>
__global__ void __launch_bounds__(ab_max_block, 1)
    ab_rows_kernel(launch_params<real> p, int which, int pad)
{
    ab_body<real, 0>(p, which, pad);
}

/*
 * alpha and beta for M_tau <= 32 SPL states (SPL = 1 or 2, M_n <= EMAX): one warp per
 * frame and direction, SPL states per lane, the row in shared memory
 * between zeros. The warp synchronizes with __syncwarp alone, so a step has
 * no block barrier: what bounds the one-frame latency (N steps in a row).
 * The same recursions and normalization as alpha_pass and beta_pass.
 */
template <typename real, int EMAX, int SPL>
__global__ void __launch_bounds__(32) ab_warp_kernel(launch_params<real> p, int which)
{
    __shared__ double rowbuf[ab_warp_row<SPL>];
    const int f = blockIdx.x;
    const bool fwd = (gridDim.y == 2 ? int(blockIdx.y) : which) == 0;
    if (p.status[f] != st_ok)
        return;
    const int Mt = p.Mt, lane = threadIdx.x;
    double* rows = (fwd ? p.alpha : p.beta) + (long long)f * (p.N + 1) * Mt;
    for (int s = lane; s < ab_warp_row<SPL>; s += 32)
        rowbuf[s] = 0.0;
    __syncwarp();
    // the first row: 0 forward (a one-hot at drift 0 for the frame's start),
    // i0 + Wc backward (a one-hot at the frame's end drift for index N)
    const int first = fwd ? p.i0 : p.i0 + p.Wc;
    const bool init = fwd ? p.i0 == 0 : first == p.N;
    // each step's normalizer, raw until norm_scan_kernel
    double* norm = (fwd ? p.log_alpha_norm : p.log_beta_norm) + (long long)f * (p.N + 1);
    const double* bound =
        (fwd ? p.start : p.end) + (long long)f * Mt; // map_decoder::boundaries
#pragma unroll
    for (int j = 0; j < SPL; ++j) {
        const int b = lane + 32 * j;
        if (b >= Mt)
            continue;
        double v;
        if (init) {
            v = bound[b];
            rows[(long long)first * Mt + b] = v;
        } else {
            v = rows[(long long)first * Mt + b];
        }
        rowbuf[ab_pad + b] = v;
    }
    const int failed = warp_steps<real, EMAX, SPL>(
        p, f, fwd, rowbuf, 0, p.Wc, [&](int to, double sum, const double(&v)[SPL]) {
            warp_store_row<SPL>(rows, norm, Mt, to, sum, v);
        });
    if (failed >= 0) {
        if (lane == 0) {
            p.status[f] = fwd ? st_alpha : st_beta;
            p.status_index[f] = failed;
        }
        return;
    }
    if (fwd && p.i0 + p.Wc == p.N)
        warp_end_check<real, SPL>(p, f, rowbuf);
}

/*
 * The recursions store each step's normalizer as it is (one store: no log
 * on their critical path); this turns them into the sums of base-2 logs of
 * launch_params::log_alpha_norm, one block per frame. which = 0: alpha's, prefix sums
 * over all N steps (after the forward pass); which = 1: beta's over the window [i0, i0 +
 * Wc), suffix sums continuing from index i0 + Wc (after each backward window); a grid of
 * two rows (global storage, the whole frame a window): both, blockIdx.y for which.
 */
constexpr int norm_scan_threads = 256;
template <typename real>
__global__ void __launch_bounds__(norm_scan_threads)
    norm_scan_kernel(launch_params<real> p, int which)
{
    const int f = blockIdx.x, t = threadIdx.x, lane = t & 31;
    if (gridDim.y == 2)
        which = int(blockIdx.y); // both at once (global storage)
    if (p.status[f] != st_ok)
        return;
    double* v =
        (which == 0 ? p.log_alpha_norm : p.log_beta_norm) + (long long)f * (p.N + 1);
    const bool fwd = which == 0;
    const int count = fwd ? p.N : p.Wc;
    const int top = p.i0 + p.Wc;
    // k-th term in the order of summation: alpha from index 1 up, beta from top - 1 down
    auto at = [&](int k) { return fwd ? 1 + k : top - 1 - k; };
    const double base = fwd || top == p.N ? 0.0 : v[top]; // C_0 = 1, D_N = 1
    // the logs in parallel, then summed in a fixed order (from index 1 up,
    // from N - 1 down), so that the sums do not depend on how the windows
    // cut the frame: global and local storage stay bit-identical. 1024 terms
    // at a time: the block loads them and takes their logs into shared
    // memory (4 a thread, all loads in flight together), then warp 0, for
    // each row of 32, has every lane add the row's terms in order (the same
    // sums in every lane), keeping the one that ends at its own term; the
    // chain is one add per term (its shared-memory loads do not wait on it). The rows are
    // a loop, not unrolled: a warp alone on its multiprocessor runs straight-line code at
    // the speed of its instruction fetches (32 unrolled rows of 32 terms: 45 us for one
    // frame of 840, docs/benchmarks.md), and the logs on one warp were 40 % of its
    // instructions.
    constexpr int tile = 1024, per_thread = tile / norm_scan_threads;
    __shared__ double x[tile];
    double run = base; // warp 0's
    for (int k0 = 0; k0 < count; k0 += tile) {
        const int rows = min(tile / 32, (count - k0 + 31) / 32);
        double y[per_thread];
#pragma unroll
        for (int m = 0; m < per_thread; ++m) {
            const int k = k0 + t + norm_scan_threads * m;
            y[m] = k < count ? v[at(k)] : 1.0;
        }
#pragma unroll
        for (int m = 0; m < per_thread; ++m) {
            const int i = t + norm_scan_threads * m;
            if (i < 32 * rows)
                x[i] = log2(y[m]); // 0 past the end
        }
        __syncthreads();
        if (t < 32) {
            for (int m = 0; m < rows; ++m) {
                double mine = 0;
#pragma unroll
                for (int j = 0; j < 32; ++j) {
                    run += x[32 * m + j];
                    mine = j == lane ? run : mine;
                }
                const int k = k0 + 32 * m + lane;
                if (k < count)
                    v[at(k)] = mine;
            }
        }
        __syncthreads(); // warp 0's reads done before the next terms' stores
    }
    if (t == 0 && fwd)
        v[0] = 0.0;
    if (t == 0 && !fwd && top == p.N)
        v[p.N] = 0.0;
}

/*
 * The posteriors of one (frame, i) per block (eqn:L, eqn:sigma): the sums
 * of the warps' partial L in a fixed order, normalized.
 */
template <typename real>
__global__ void finish_kernel(launch_params<real> p)
{
    extern __shared__ double red[];
    const int fi = blockIdx.x;
    const int f = fi / p.Wc;
    const int iw = fi - f * p.Wc;
    if (p.status[f] != st_ok)
        return;
    const int i = p.i0 + iw;
    const real* Lp = p.Lpart + ((long long)f * p.W + iw) * p.nwarps * p.q;
    real* out = p.post + ((long long)f * p.N + i) * p.q;
    // the prior, left out of the lattice pass, multiplies L here in double:
    // a prior far below the float range is not a hard zero; an extrinsic
    // output (has_prior 2) leaves it out
    const bool with_prior = p.prior_exact && p.has_prior[f];
    const double* prior = with_prior && p.has_prior[f] == 1
                              ? p.prior_exact + ((long long)f * p.N + i) * p.q
                              : nullptr;
    auto L = [&](int D) {
        double s = 0;
        for (int w = 0; w < p.nwarps; ++w)
            s += double(Lp[(long long)w * p.q + D]);
        return prior ? s * prior[D] : s;
    };
    double total = 0;
    for (int D = threadIdx.x; D < p.q; D += blockDim.x)
        total += L(D);
    const double ls = block_sum(total, red);
    double inv = 0;
    if (!model::normalizer(ls, inv)) {
        if (threadIdx.x == 0) {
            p.status[f] = st_beta;
            p.status_index[f] = i;
        }
        return;
    }
    // normalized in double, then stored in the decoder's precision, or in
    // double for a frame with priors (post_d): its range is the priors'; a
    // frame without gets the same output in any batch
    if (with_prior && p.post_d) {
        double* od = p.post_d + ((long long)f * p.N + i) * p.q;
        for (int D = threadIdx.x; D < p.q; D += blockDim.x)
            od[D] = L(D) / ls;
    } else {
        for (int D = threadIdx.x; D < p.q; D += blockDim.x)
            out[D] = real(L(D) / ls);
    }
}

template <typename real>
void launch_recursion(const launch_params<real>& p, int which, bool warp, int ab_block)
{
    const dim3 grid(unsigned(p.F), which == 2 ? 2u : 1u);
    // drift changes a thread holds (the one-warp kernel also has a form for 12)
    const int emax = p.Mn <= 8 ? 8 : p.Mn <= 16 ? 16 : 32;
    const int emax_warp = plan_warp_emax(p.Mn);
    const int spl = (p.Mt + 31) / 32; // states per lane
    const int pad = plan_ab_row_pad(p.Mt, p.Mn, ab_block);
    const size_t shared =
        sizeof(double) *
        (32 + (pad > 0 ? size_t(p.Mt) + 2 * size_t(pad) : size_t(ab_block) + 2 * ab_pad));
    if (warp && spl <= 2) {
        // one warp per frame up to 64 states (1 or 2 per lane); beyond, the
        // block kernels are as fast (S500: 2.6 against 2.7 us per frame)
        switch (emax_warp * 10 + spl) {
        case 81:
            ab_warp_kernel<real, 8, 1><<<grid, 32>>>(p, which);
            break;
        case 82:
            ab_warp_kernel<real, 8, 2><<<grid, 32>>>(p, which);
            break;
        case 121:
            ab_warp_kernel<real, 12, 1><<<grid, 32>>>(p, which);
            break;
        case 122:
            ab_warp_kernel<real, 12, 2><<<grid, 32>>>(p, which);
            break;
        case 161:
            ab_warp_kernel<real, 16, 1><<<grid, 32>>>(p, which);
            break;
        case 162:
            ab_warp_kernel<real, 16, 2><<<grid, 32>>>(p, which);
            break;
        case 321:
            ab_warp_kernel<real, 32, 1><<<grid, 32>>>(p, which);
            break;
        case 322:
            ab_warp_kernel<real, 32, 2><<<grid, 32>>>(p, which);
            break;
        default:
            throw std::logic_error("map_decoder(cuda): no warp recursion for this shape");
        }
    } else if (!plan_ab_fast(p.Mt, p.Mn, ab_block)) {
        ab_rows_kernel<real><<<grid, ab_block, shared>>>(p, which, pad);
    } else if (emax == 8) {
        ab_kernel<real, 8><<<grid, ab_block, shared>>>(p, which, pad);
    } else if (emax == 16) {
        ab_kernel<real, 16><<<grid, ab_block, shared>>>(p, which, pad);
    } else {
        ab_kernel<real, 32><<<grid, ab_block, shared>>>(p, which, pad);
    }
    BSID_CUDA(cudaGetLastError());
}

template <typename real>
void launch_norm_scan(const launch_params<real>& p, int which)
{
    norm_scan_kernel<real>
        <<<dim3(unsigned(p.F), which == 2 ? 2u : 1u), norm_scan_threads>>>(p, which);
    BSID_CUDA(cudaGetLastError());
}

template <typename real>
void launch_finish(const launch_params<real>& p)
{
    const int block = int(std::min<size_t>(256, (size_t(p.q) + 31) / 32 * 32));
    finish_kernel<real><<<unsigned(p.F * p.Wc), block, sizeof(double) * 32>>>(p);
    BSID_CUDA(cudaGetLastError());
}

template <typename real>
int ab_block_limit()
{
    cudaFuncAttributes fa{}, rows{};
    BSID_CUDA(cudaFuncGetAttributes(&fa, ab_kernel<real, 32>));
    BSID_CUDA(cudaFuncGetAttributes(&rows, ab_rows_kernel<real>));
    return std::min({ fa.maxThreadsPerBlock, rows.maxThreadsPerBlock, ab_max_block });
}

template void launch_recursion<float>(const launch_params<float>&, int, bool, int);
template void launch_recursion<double>(const launch_params<double>&, int, bool, int);
template void launch_norm_scan<float>(const launch_params<float>&, int);
template void launch_norm_scan<double>(const launch_params<double>&, int);
template void launch_finish<float>(const launch_params<float>&);
template void launch_finish<double>(const launch_params<double>&);
template int ab_block_limit<float>();
template int ab_block_limit<double>();

} // namespace cuda
} // namespace bsid
