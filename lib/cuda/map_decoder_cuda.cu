/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA backend of the MAP decoder: the paper's decoder ("The MAP Decoder",
// "Initial Parallel Implementation"), batched over frames.
//
// A batch of frames is decoded by these kernels:
//  - the lattice kernels (lattice_kernels.cuh): one thread per (frame, i, m')
//    of a window of symbol indices, looping over the q codewords' corridor
//    lattices (eqn:F, eqn:F_lastrow). gamma is never stored: pass G keeps
//    only its sums over D (G), which is all alpha and beta need, and pass L
//    makes the lattices again once alpha and beta are known and sums
//    alpha gamma beta over each warp's states (eqn:L). The register kernels
//    (lattice_kernel_reg.cuh) do a cell in two multiply-adds; the general one
//    (below) takes any corridor and codeword length;
//  - ab_kernel: one block per frame and direction runs the forward (eqn:alpha,
//    eqn:alpha_norm) or backward (eqn:beta) recursion over the window,
//    synchronized by barriers (no limit on M_tau); with global storage both
//    directions run at once;
//  - finish_kernel: the posteriors of each (frame, i), normalized (eqn:sigma).
// Global storage keeps G for the whole frame (one window of N indices); local
// storage keeps windows of W < N indices and makes G again for the backward
// pass. W, the block sizes and the grid come from the device's properties,
// the occupancy API and the free memory at run time.
//
// Indices as in map_decoder_cpu.cc: a = m - m_tau^- (Mt states), e = d - m_n^-
// (Mn drift changes within a codeword), D (q symbols).

#include "map_decoder_cuda.h"
#include "lattice_kernels.cuh"
#include "format.h"
#include <gnuradio/bsid/core/lattice.h>
#include <gnuradio/bsid/core/log.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <array>
#include <utility>
#include <cmath>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace bsid {

std::unique_ptr<map_decoder> make_cpu_decoder(const decoder_config& cfg);

namespace {

// ------------------------------------------------------------------ errors

class cuda_error : public std::runtime_error
{
public:
    cuda_error(const char* what, cudaError_t e)
        : std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorName(e) + " (" +
                             cudaGetErrorString(e) + ")"),
          code(e)
    {
    }
    cudaError_t code;
};

#define BSID_CUDA(call)                        \
    do {                                       \
        const cudaError_t e_ = (call);         \
        if (e_ != cudaSuccess) {               \
            cudaGetLastError(); /* clear it */ \
            throw cuda_error(#call, e_);       \
        }                                      \
    } while (0)

// Device memory owned for the length of one batch.
template <typename T>
class device_buffer
{
public:
    device_buffer() = default;
    explicit device_buffer(size_t count) { allocate(count); }
    ~device_buffer() { release(); }
    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;

    //! Grows the buffer to at least count items (contents not kept).
    void ensure(size_t count)
    {
        if (count > d_count) allocate(count);
    }
    size_t bytes() const { return d_count * sizeof(T); }
    void release()
    {
        if (d_ptr) cudaFree(d_ptr);
        d_ptr = nullptr;
        d_count = 0;
    }

    void allocate(size_t count)
    {
        release();
        if (count == 0) return;
        BSID_CUDA(cudaMalloc(reinterpret_cast<void**>(&d_ptr), count * sizeof(T)));
        d_count = count;
    }
    void upload(const T* host, size_t count)
    {
        if (count) BSID_CUDA(cudaMemcpy(d_ptr, host, count * sizeof(T), cudaMemcpyHostToDevice));
    }
    void download(T* host, size_t count) const
    {
        if (count) BSID_CUDA(cudaMemcpy(host, d_ptr, count * sizeof(T), cudaMemcpyDeviceToHost));
    }
    T* get() const { return d_ptr; }

private:
    T* d_ptr = nullptr;
    size_t d_count = 0;
};

// ------------------------------------------------------------------ kernels

using namespace cuda;

/*
 * The general lattice kernel: any corridor width and codeword length, the
 * step weights as they are (lattice_weights::scaled), the lattice row of each
 * thread in global scratch (column k of thread t at scratch[k * nthreads + t]),
 * with the bounds of the frame tested per cell. A grid-stride loop over the
 * warp items (frame, i, 32 states).
 */
template <typename real>
__global__ void lattice_kernel_general(launch_params<real> p, real* scratch, int pass)
{
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long total_warps = nthreads >> 5;
    const int lane = threadIdx.x & 31;
    real* row = scratch + tid;
    real* aux = scratch + (long long)p.Mn * nthreads + tid;
    const long long items = (long long)p.F * p.Wc * p.nwarps;
    for (long long it = tid >> 5; it < items; it += total_warps) {
        const int w = int(it % p.nwarps);
        const long long fi = it / p.nwarps;
        const int f = int(fi / p.Wc);
        const int iw = int(fi - (long long)f * p.Wc);
        if (pass == pass_L && p.status[f] != st_ok) continue; // the whole warp
        const int i = p.i0 + iw;
        const int a = 32 * w + lane;
        const long long fw = (long long)f * p.W + iw;
        const long long mprime = p.mtlo + a;
        const long long start = (long long)p.n * i + mprime;
        const long long rho = p.rho[f];
        const bool inside = a < p.Mt && start >= 0 && start <= rho;
        bool any = false;
        if (pass == pass_L) {
            const real al = inside ? p.alpha[((long long)f * (p.N + 1) + i) * p.Mt + a] : real(0);
            const real* bn = p.beta + ((long long)f * (p.N + 1) + i + 1) * p.Mt;
            for (int e = 0; e < p.Mn; ++e) {
                const int b = a + p.dlo + e;
                const real v = (inside && b >= 0 && b < p.Mt) ? al * bn[b] : real(0);
                aux[(long long)e * nthreads] = v;
                any = any || v != real(0);
            }
            if (!__any_sync(0xffffffffu, any)) {
                real* out = p.Lpart + (fw * p.nwarps + w) * p.q;
                for (int D = lane; D < p.q; D += 32) out[D] = real(0);
                continue;
            }
        } else {
            for (int e = 0; e < p.Mn; ++e) aux[(long long)e * nthreads] = real(0);
        }
        const long long avail = inside ? rho - start : -1;
        const uint8_t* y = p.bits + p.offset[f] + (inside ? start : 0);
        const uint32_t* words = p.words + (long long)(i % p.P) * p.q;
        const bool pr = p.priors && p.has_prior[f];
        const real* prior = pr ? p.priors + ((long long)f * p.N + i) * p.q : nullptr;
        const int k0 = -p.dlo;
        for (int D = 0; D < p.q; ++D) {
            const uint32_t word = words[D];
            real s = real(0);
            if (inside) {
                // row 0: F(0,0) = 1, then insertions only
                for (int k = 0; k < p.Mn; ++k) {
                    real v = real(0);
                    if (k == k0) {
                        v = real(1);
                    } else if (k > k0 && (long long)(k + p.dlo) <= avail) {
                        v = p.ins * row[(long long)(k - 1) * nthreads];
                    }
                    row[(long long)k * nthreads] = v;
                }
                // rows 1..n (eqn:F; eqn:F_lastrow without the insertion term), in
                // place: going up in k, row[k] and row[k + 1] still hold row
                // r - 1 when read, and row[k - 1] already holds row r.
                for (int r = 1; r <= p.n; ++r) {
                    const real ins = r < p.n ? p.ins : real(0);
                    const uint8_t xb = uint8_t((word >> (p.n - r)) & 1u); // bit r - 1, MSB first
                    for (int k = 0; k < p.Mn; ++k) {
                        const long long c = (long long)r + p.dlo + k;
                        real* cell = row + (long long)k * nthreads;
                        if (c < 0 || c > avail) {
                            *cell = real(0);
                            continue;
                        }
                        real v = real(0);
                        if (c >= 1) v = (y[c - 1] == xb ? p.match : p.mismatch) * *cell;
                        if (k + 1 < p.Mn) v += p.del * row[(long long)(k + 1) * nthreads];
                        if (k >= 1 && c >= 1) v += ins * row[(long long)(k - 1) * nthreads];
                        *cell = v;
                    }
                }
                const real wD = pr ? prior[D] : real(1);
                if (pass == pass_G) {
                    for (int e = 0; e < p.Mn; ++e) aux[(long long)e * nthreads] += wD * row[(long long)e * nthreads];
                } else {
                    for (int e = 0; e < p.Mn; ++e) s += row[(long long)e * nthreads] * aux[(long long)e * nthreads];
                    s *= wD;
                }
            }
            if (pass == pass_L) {
                s = warp_sum(s);
                if (lane == 0) p.Lpart[(fw * p.nwarps + w) * p.q + D] = s;
            }
        }
        if (pass == pass_G && a < p.Mt) {
            // row n: node e ends at drift d = dlo + e; keep the ends inside m_tau
            for (int e = 0; e < p.Mn; ++e) {
                const int b = a + p.dlo + e;
                p.G[(fw * p.Mn + e) * p.Mt + a] =
                    (b >= 0 && b < p.Mt) ? aux[(long long)e * nthreads] : real(0);
            }
        }
    }
}

// The received bits, 64 to a word after one word of padding (bit j of word
// w is bit 64 (w - 1) + j), so that a lattice reads its segment with two loads.
__global__ void pack_kernel(const uint8_t* bits,
                            const long long* offset,
                            const long long* rho,
                            const long long* packed_offset,
                            unsigned long long* packed,
                            int F)
{
    const int f = blockIdx.y;
    if (f >= F) return;
    const long long words = rho[f] / 64 + 3;
    for (long long w = (long long)blockIdx.x * blockDim.x + threadIdx.x; w < words;
         w += (long long)gridDim.x * blockDim.x) {
        unsigned long long v = 0;
        for (int j = 0; j < 64; ++j) {
            const long long t = 64 * (w - 1) + j;
            if (t >= 0 && t < rho[f] && bits[offset[f] + t]) v |= 1ull << j;
        }
        packed[packed_offset[f] + w] = v;
    }
}

// Sum of one value per thread over the block (double accumulation): within
// each warp by shuffles, then across the warps' sums, two barriers in all.
// Every thread adds the warps' sums in the same order, so all get the same
// result (the kernels' early returns depend on it). blockDim: a multiple of 32.
__device__ double block_sum(double v, double* shared)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int nwarps = int(blockDim.x + 31) >> 5;
    __syncthreads(); // the previous call's readers are done with shared
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    double r = 0;
    for (int w = 0; w < nwarps; ++w) r += shared[w];
    return r;
}

constexpr int ab_max_block = 512; // states per block on the fast path
constexpr int ab_pad = 32;         // zeros on each side of the fast path's row (M_n <= 32)
// the fast path's G in registers: up to EMAX values (8, 16 or 32) per thread

/*
 * Forward recursion over the window (eqn:alpha with eqn:alpha_norm):
 * alpha_{i+1}(b) = sum_e alpha_i(b - d) G_i(e, b - d), one block per frame.
 * Fast path (Mt <= blockDim, Mn <= 32): one state per thread, the row in
 * shared memory, and the next index's G loaded while the sum is reduced.
 */
template <typename real, int EMAX>
__device__ void alpha_pass(const launch_params<real>& p, int f, double* red, real* sh)
{
    if (p.status[f] != st_ok) return;
    real* alpha = p.alpha + (long long)f * (p.N + 1) * p.Mt;
    const int Mt = p.Mt, Mn = p.Mn, dlo = p.dlo;
    const bool fast = Mt <= int(blockDim.x) && Mn <= EMAX;
    if (p.i0 == 0) {
        for (int b = threadIdx.x; b < Mt; b += blockDim.x) alpha[b] = b == -p.mtlo ? real(1) : real(0);
        __syncthreads();
    }
    const int b = threadIdx.x;
    // the fast path: the row in shared memory between 32 zeros on each side
    // (no bounds tests), and which e give a state a = b - d inside [0, Mt)
    real* row = sh + ab_pad;
    unsigned live = 0;
    for (int e = 0; e < EMAX; ++e) {
        const int a = b - dlo - e;
        if (e < Mn && b < Mt && a >= 0 && a < Mt) live |= 1u << e;
    }
    real g[EMAX];
    auto load_g = [&](int iw) {
        const real* G = p.G + ((long long)f * p.W + iw) * Mn * Mt + (b - dlo);
#pragma unroll
        for (int e = 0; e < EMAX; ++e) g[e] = ((live >> e) & 1u) ? G[(long long)e * (Mt - 1)] : real(0);
    };
    if (fast) {
        for (int s = threadIdx.x; s < int(blockDim.x) + 2 * ab_pad; s += blockDim.x) {
            const int t = s - ab_pad;
            sh[s] = t >= 0 && t < Mt ? alpha[(long long)p.i0 * Mt + t] : real(0);
        }
        load_g(0);
        __syncthreads();
    }
    for (int iw = 0; iw < p.Wc; ++iw) {
        const int i = p.i0 + iw;
        real* an = alpha + (long long)(i + 1) * Mt;
        double local = 0;
        real s_fast = real(0);
        if (fast) {
#pragma unroll
            for (int e = 0; e < EMAX; ++e) s_fast += row[b - dlo - e] * g[e];
            local = double(s_fast);
            if (iw + 1 < p.Wc) load_g(iw + 1); // in flight during the reduction
        } else {
            const real* ai = alpha + (long long)i * Mt;
            const real* G = p.G + ((long long)f * p.W + iw) * Mn * Mt;
            for (int bb = threadIdx.x; bb < Mt; bb += blockDim.x) {
                real s = real(0);
                for (int e = 0; e < Mn; ++e) {
                    const int a = bb - dlo - e;
                    if (a >= 0 && a < Mt) s += ai[a] * G[(long long)e * Mt + a];
                }
                an[bb] = s;
                local += double(s);
            }
        }
        const double sum = block_sum(local, red);
        if (!(sum > 0) || !isfinite(sum)) {
            if (threadIdx.x == 0) {
                p.status[f] = st_alpha;
                p.status_index[f] = i + 1;
            }
            return; // every thread sees the same sum
        }
        if (fast) {
            // block_sum's barriers: every thread has read sh for this index
            if (b < Mt) {
                const real v = real(double(s_fast) * (1.0 / sum));
                row[b] = v;
                an[b] = v;
            }
        } else {
            for (int bb = threadIdx.x; bb < Mt; bb += blockDim.x) an[bb] = real(double(an[bb]) / sum);
        }
        __syncthreads();
    }
    if (p.i0 + p.Wc == p.N) {
        const long long end = p.rho[f] - (long long)p.n * p.N - p.mtlo;
        if (threadIdx.x == 0 && !(alpha[(long long)p.N * Mt + end] > real(0))) {
            p.status[f] = st_end;
            p.status_index[f] = p.N;
        }
    }
}

/*
 * Backward recursion over the window in reverse (eqn:beta):
 * beta_i(a) = sum_e G_i(e, a) beta_{i+1}(a + d), normalized, one block per
 * frame; the same fast path as alpha.
 */
template <typename real, int EMAX>
__device__ void beta_pass(const launch_params<real>& p, int f, double* red, real* sh)
{
    if (p.status[f] != st_ok) return;
    real* beta = p.beta + (long long)f * (p.N + 1) * p.Mt;
    const int Mt = p.Mt, Mn = p.Mn, dlo = p.dlo;
    const bool fast = Mt <= int(blockDim.x) && Mn <= EMAX;
    if (p.i0 + p.Wc == p.N) {
        const long long end = p.rho[f] - (long long)p.n * p.N - p.mtlo;
        real* bN = beta + (long long)p.N * Mt;
        for (int a = threadIdx.x; a < Mt; a += blockDim.x) bN[a] = a == end ? real(1) : real(0);
        __syncthreads();
    }
    const int a = threadIdx.x;
    real g[EMAX];
    auto load_g = [&](int iw) {
        const real* G = p.G + ((long long)f * p.W + iw) * Mn * Mt;
#pragma unroll
        for (int e = 0; e < EMAX; ++e) {
            g[e] = (e < Mn && a < Mt) ? G[(long long)e * Mt + a] : real(0);
        }
    };
    real* row = sh + ab_pad; // as in alpha_pass: zeros on both sides
    if (fast) {
        const int top = p.i0 + p.Wc;
        for (int s = threadIdx.x; s < int(blockDim.x) + 2 * ab_pad; s += blockDim.x) {
            const int t = s - ab_pad;
            sh[s] = t >= 0 && t < Mt ? beta[(long long)top * Mt + t] : real(0);
        }
        load_g(p.Wc - 1);
        __syncthreads();
    }
    for (int iw = p.Wc - 1; iw >= 0; --iw) {
        const int i = p.i0 + iw;
        real* bc = beta + (long long)i * Mt;
        double local = 0;
        real s_fast = real(0);
        if (fast) {
#pragma unroll
            for (int e = 0; e < EMAX; ++e) s_fast += g[e] * row[a + dlo + e];
            local = double(s_fast);
            if (iw > 0) load_g(iw - 1);
        } else {
            const real* bn = beta + (long long)(i + 1) * Mt;
            const real* G = p.G + ((long long)f * p.W + iw) * Mn * Mt;
            for (int aa = threadIdx.x; aa < Mt; aa += blockDim.x) {
                real s = real(0);
                for (int e = 0; e < Mn; ++e) {
                    const int b = aa + dlo + e;
                    if (b >= 0 && b < Mt) s += G[(long long)e * Mt + aa] * bn[b];
                }
                bc[aa] = s;
                local += double(s);
            }
        }
        const double bs = block_sum(local, red);
        if (!(bs > 0) || !isfinite(bs)) {
            if (threadIdx.x == 0) {
                p.status[f] = st_beta;
                p.status_index[f] = i;
            }
            return;
        }
        if (fast) {
            if (a < Mt) {
                const real v = real(double(s_fast) * (1.0 / bs));
                row[a] = v;
                bc[a] = v;
            }
        } else {
            for (int aa = threadIdx.x; aa < Mt; aa += blockDim.x) bc[aa] = real(double(bc[aa]) / bs);
        }
        __syncthreads();
    }
}

// alpha and beta of every frame: blockIdx.x is the frame; blockIdx.y picks
// the direction when both run at once (global storage), else `which` does.
template <typename real, int EMAX>
__global__ void __launch_bounds__(ab_max_block) ab_kernel(launch_params<real> p, int which)
{
    extern __shared__ double red[]; // 32 doubles, then the fast path's row
    real* sh = reinterpret_cast<real*>(red + 32);
    const int dir = gridDim.y == 2 ? int(blockIdx.y) : which;
    if (dir == 0) {
        alpha_pass<real, EMAX>(p, int(blockIdx.x), red, sh);
    } else {
        beta_pass<real, EMAX>(p, int(blockIdx.x), red, sh);
    }
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
    __shared__ real rowbuf[2 * ab_pad + 32 * SPL];
    const int f = blockIdx.x;
    const bool fwd = (gridDim.y == 2 ? int(blockIdx.y) : which) == 0;
    if (p.status[f] != st_ok) return;
    const int Mt = p.Mt, Mn = p.Mn, dlo = p.dlo, lane = threadIdx.x;
    real* rows = (fwd ? p.alpha : p.beta) + (long long)f * (p.N + 1) * Mt;
    real* row = rowbuf + ab_pad;
    for (int s = lane; s < 2 * ab_pad + 32 * SPL; s += 32) rowbuf[s] = real(0);
    __syncwarp();
    // the first row: 0 forward (a one-hot at drift 0 for the frame's start),
    // i0 + Wc backward (a one-hot at the frame's end drift for index N)
    const int first = fwd ? p.i0 : p.i0 + p.Wc;
    const long long end = p.rho[f] - (long long)p.n * p.N - p.mtlo;
    const bool init = fwd ? p.i0 == 0 : first == p.N;
#pragma unroll
    for (int j = 0; j < SPL; ++j) {
        const int b = lane + 32 * j;
        if (b >= Mt) continue;
        real v;
        if (init) {
            v = (fwd ? b == -p.mtlo : b == end) ? real(1) : real(0);
            rows[(long long)first * Mt + b] = v;
        } else {
            v = rows[(long long)first * Mt + b];
        }
        row[b] = v;
    }
    // which loads of G are inside the states, per state of this lane
    unsigned live[SPL];
#pragma unroll
    for (int j = 0; j < SPL; ++j) {
        const int b = lane + 32 * j;
        live[j] = 0;
        for (int e = 0; e < EMAX; ++e) {
            const int a = fwd ? b - dlo - e : b;
            if (e < Mn && b < Mt && a >= 0 && a < Mt) live[j] |= 1u << e;
        }
    }
    real g[SPL][EMAX];
    auto load_g = [&](int iw) {
        const real* G = p.G + ((long long)f * p.W + iw) * Mn * Mt;
#pragma unroll
        for (int j = 0; j < SPL; ++j) {
            const int b = lane + 32 * j;
#pragma unroll
            for (int e = 0; e < EMAX; ++e) {
                g[j][e] = ((live[j] >> e) & 1u) ? G[(long long)e * Mt + (fwd ? b - dlo - e : b)] : real(0);
            }
        }
    };
    load_g(fwd ? 0 : p.Wc - 1);
    __syncwarp();
    for (int step = 0; step < p.Wc; ++step) {
        const int iw = fwd ? step : p.Wc - 1 - step;
        const int i = p.i0 + iw;
        real s[SPL];
        double local = 0;
#pragma unroll
        for (int j = 0; j < SPL; ++j) {
            const int b = lane + 32 * j;
            s[j] = real(0);
#pragma unroll
            for (int e = 0; e < EMAX; ++e) s[j] += (fwd ? row[b - dlo - e] : row[b + dlo + e]) * g[j][e];
            local += double(s[j]);
        }
        if (step + 1 < p.Wc) load_g(fwd ? iw + 1 : iw - 1); // in flight from here on
        const double sum = warp_sum(local); // the same in every lane
        if (!(sum > 0) || !isfinite(sum)) {
            if (lane == 0) {
                p.status[f] = fwd ? st_alpha : st_beta;
                p.status_index[f] = fwd ? i + 1 : i;
            }
            return;
        }
        const double inv = 1.0 / sum;
        const int to = fwd ? i + 1 : i;
        __syncwarp(); // every lane has read the row
#pragma unroll
        for (int j = 0; j < SPL; ++j) {
            const int b = lane + 32 * j;
            if (b < Mt) {
                const real v = real(double(s[j]) * inv);
                row[b] = v;
                rows[(long long)to * Mt + b] = v;
            }
        }
        __syncwarp(); // the new row is visible to every lane
    }
    if (fwd && p.i0 + p.Wc == p.N && lane == 0 && !(row[end] > real(0))) {
        p.status[f] = st_end;
        p.status_index[f] = p.N;
    }
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
    if (p.status[f] != st_ok) return;
    const int i = p.i0 + iw;
    const real* Lp = p.Lpart + ((long long)f * p.W + iw) * p.nwarps * p.q;
    real* out = p.post + ((long long)f * p.N + i) * p.q;
    auto L = [&](int D) {
        double s = 0;
        for (int w = 0; w < p.nwarps; ++w) s += double(Lp[(long long)w * p.q + D]);
        return s;
    };
    double total = 0;
    for (int D = threadIdx.x; D < p.q; D += blockDim.x) total += L(D);
    const double ls = block_sum(total, red);
    if (!(ls > 0) || !isfinite(ls)) {
        if (threadIdx.x == 0) {
            p.status[f] = st_beta;
            p.status_index[f] = i;
        }
        return;
    }
    // normalized in double, then stored in the decoder's precision
    for (int D = threadIdx.x; D < p.q; D += blockDim.x) out[D] = real(L(D) / ls);
}

// ------------------------------------------------------------------ host side

// Device time per stage: events recorded around each stage's launches, read
// once the batch has finished. Does nothing unless enabled.
class stage_clock
{
public:
    enum stage { gamma = 0, alpha = 1, beta = 2, L = 3 };
    explicit stage_clock(bool on) : d_on(on) {}
    ~stage_clock()
    {
        for (auto& m : d_marks) {
            cudaEventDestroy(m.a);
            cudaEventDestroy(m.b);
        }
    }
    void begin()
    {
        if (!d_on) return;
        mark m{};
        BSID_CUDA(cudaEventCreate(&m.a));
        BSID_CUDA(cudaEventCreate(&m.b));
        BSID_CUDA(cudaEventRecord(m.a));
        d_marks.push_back(m);
    }
    void end(stage s)
    {
        if (!d_on) return;
        d_marks.back().s = s;
        BSID_CUDA(cudaEventRecord(d_marks.back().b));
    }
    //! Seconds per stage; call after the device has finished.
    std::vector<double> collect() const
    {
        std::vector<double> t(4, 0.0);
        for (const auto& m : d_marks) {
            float ms = 0;
            BSID_CUDA(cudaEventElapsedTime(&ms, m.a, m.b));
            t[size_t(m.s)] += ms * 1e-3;
        }
        return t;
    }

private:
    struct mark {
        cudaEvent_t a, b;
        stage s;
    };
    bool d_on;
    std::vector<mark> d_marks;
};

int device_from_env()
{
    const char* env = std::getenv("BSID_CUDA_DEVICE");
    return env ? std::atoi(env) : 0;
}

template <typename real>
class cuda_decoder final : public map_decoder
{
public:
    explicit cuda_decoder(const decoder_config& cfg) : map_decoder(cfg)
    {
        std::string why;
        if (!cuda_device_available(&why)) {
            throw std::runtime_error("map_decoder(cuda): no usable CUDA device (" + why + ")");
        }
        d_device = device_from_env();
        BSID_CUDA(cudaSetDevice(d_device));
        BSID_CUDA(cudaGetDeviceProperties(&d_prop, d_device));
        const auto w = lattice_weights<real>::scaled(cfg.ch);
        d_w = w;
        std::vector<uint32_t> words;
        for (const auto& book : cfg.cb.books()) words.insert(words.end(), book.begin(), book.end());
        d_words.allocate(words.size());
        d_words.upload(words.data(), words.size());

        // The register kernels' form of the weights (see launch_params): row r
        // divided by Pd^r / Pt^r; rows renormalized every R rows so that no
        // scaled value exceeds 2^bound (the exact lattice values are <= 1).
        bool reg_weights = false; // the channel allows the scaled form
        {
            const double Pd = cfg.ch.Pd(), Pt = cfg.ch.Pt();
            const double bound = sizeof(real) == 4 ? 60 : 500;
            reg_weights = Pd > 0 && Pd <= 2 * Pt && Pt >= 0.25 && std::log2(1 / Pd) <= bound;
            if (reg_weights) {
                const double del = w.del; // Pd / Pt
                const int R = std::max(1, int(std::floor(bound / std::log2(1 / Pd))));
                unsigned rows = 0;
                int renorms = 0;
                for (int r = R; r < n(); r += R) {
                    rows |= 1u << r;
                    ++renorms;
                }
                d_renorm_rows = rows;
                d_renorm_factor = std::pow(Pd, R);
                d_out_scale = std::pow(Pd, n() - R * renorms) / std::pow(Pt, n());
                d_wmatch = double(w.match) / del;
                d_wmismatch = double(w.mismatch) / del;
            }
        }
        d_reg = reg_weights ? lattice_reg_launcher<real>(n(), d_limits.mn.size()) : nullptr;

        // Launch shapes from the device and the occupancy API (paper,
        // "Handling Resource Limits" and "Improving Occupancy").
        int min_grid = 0, block = 0;
        BSID_CUDA(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, lattice_kernel_general<real>, 0, 0));
        d_general_block = std::max(32, block / 32 * 32);
        // its rows take 2 Mn values per thread: at most 32 MiB of them
        // (the grid-stride loop covers any number of items)
        {
            const size_t row_bytes = 2 * sizeof(real) * size_t(d_limits.mn.size()) * size_t(d_general_block);
            const size_t most = std::max<size_t>(1, (size_t(32) << 20) / row_bytes);
            d_general_grid = int(std::max<size_t>(1, std::min<size_t>(size_t(min_grid), most)));
        }
        // alpha/beta blocks: one state per thread up to ab_max_block states
        // (the fast path), a multiple of 32 for the reductions
        {
            cudaFuncAttributes fa{};
            BSID_CUDA(cudaFuncGetAttributes(&fa, ab_kernel<real, 32>));
            const int limit = std::min({ fa.maxThreadsPerBlock, d_prop.maxThreadsPerBlock, ab_max_block });
            const int Mt = d_limits.mtau.size();
            d_ab_block = std::max(32, std::min((Mt + 31) / 32 * 32, limit / 32 * 32));
            // BSID_CUDA_AB=block keeps alpha and beta on the block kernels for
            // every M_tau (tests compare the two)
            const char* ab = std::getenv("BSID_CUDA_AB");
            d_ab_warp = !(ab && std::string(ab) == "block");
        }

        const size_t fixed = per_frame_fixed_bytes(tau());
        const size_t per_index = per_index_bytes();
        size_t free_b = 0, total_b = 0;
        BSID_CUDA(cudaMemGetInfo(&free_b, &total_b));
        d_baseline_used = total_b - free_b;
        const bool global_fits = fixed + per_index * size_t(N()) + scratch_bytes() <= free_b * 8 / 10;
        if (cfg.storage == storage_kind::automatic) {
            d_storage = global_fits ? storage_kind::global : storage_kind::local;
        } else {
            d_storage = cfg.storage;
        }
        log(log_level::info,
            detail::concat("map_decoder(cuda): ", d_prop.name, " (", d_prop.multiProcessorCount,
                           " SMs, ", free_b >> 20, " MiB free), ", to_string(cfg.precision), ", ",
                           to_string(d_storage), " storage (G and L need ",
                           (per_index * size_t(N())) >> 20, " MiB per frame); lattice: ",
                           d_reg ? "registers" : "general", ", alpha/beta block ", d_ab_block));
    }

    ~cuda_decoder() override
    {
        if (d_staging) cudaFreeHost(d_staging);
    }

    backend_kind backend() const override { return backend_kind::cuda; }
    storage_kind storage() const override { return d_storage; }
    size_t peak_device_bytes() const override { return d_peak_bytes; }

    frame_result decode(const frame_view& frame, double* post) override
    {
        return decode_batch({ frame }, { post })[0];
    }

    std::vector<frame_result> decode_batch(const std::vector<frame_view>& frames,
                                           const std::vector<double*>& post) override
    {
        if (post.size() != frames.size()) {
            throw std::invalid_argument("decode_batch: one output buffer per frame is needed");
        }
        std::vector<frame_result> results(frames.size());
        std::vector<size_t> todo;
        for (size_t k = 0; k < frames.size(); ++k) {
            if (frames[k].priors) validate_priors(frames[k].priors); // throws before any work
        }
        for (size_t k = 0; k < frames.size(); ++k) {
            if (precheck(frames[k], results[k])) {
                todo.push_back(k);
            } else {
                fill_uniform(post[k]);
            }
        }
        std::lock_guard<std::mutex> lock(d_mutex); // one batch at a time on the device
        size_t pos = 0;
        while (pos < todo.size()) {
            // as many frames as fit (at least one window index each)
            size_t count = todo.size() - pos;
            size_t W = 0;
            while (true) {
                W = window_for(frames, todo, pos, count);
                if (W >= 1 || count == 1) break;
                count = (count + 1) / 2;
            }
            if (W < 1) {
                // one frame does not fit: decode it on the CPU rather than fail
                log(log_level::warning, "map_decoder(cuda): a frame does not fit in device "
                                        "memory; decoding it on the CPU");
                results[todo[pos]] = cpu_fallback().decode(frames[todo[pos]], post[todo[pos]]);
                ++pos;
                continue;
            }
            try {
                run(frames, post, todo, pos, count, W, results);
            } catch (const cuda_error& e) {
                if (e.code != cudaErrorMemoryAllocation) throw;
                // out of device memory after all (another user?): the CPU takes over
                release_cache();
                log(log_level::warning,
                    std::string("map_decoder(cuda): ") + e.what() + "; decoding on the CPU");
                for (size_t j = pos; j < pos + count; ++j) {
                    results[todo[j]] = cpu_fallback().decode(frames[todo[j]], post[todo[j]]);
                }
            }
            pos += count;
        }
        return results;
    }

private:
    int nwarps() const { return (d_limits.mtau.size() + 31) / 32; }
    // device memory per symbol index of the window: G and the partial L
    size_t per_index_bytes() const
    {
        const size_t MtMn = size_t(d_limits.mtau.size()) * size_t(d_limits.mn.size());
        return sizeof(real) * (MtMn + size_t(nwarps()) * size_t(q()));
    }
    size_t per_frame_fixed_bytes(size_t rho) const
    {
        const size_t Mt = size_t(d_limits.mtau.size());
        return sizeof(real) * (2 * size_t(N() + 1) * Mt + 2 * size_t(N()) * size_t(q())) + rho +
               rho / 8 + 64;
    }
    // the general lattice kernel's rows (two of Mn values per thread)
    size_t scratch_bytes() const
    {
        if (d_reg) return 0;
        return sizeof(real) * 2 * size_t(d_limits.mn.size()) * size_t(d_general_block) *
               size_t(d_general_grid);
    }

    // Window length for frames todo[pos .. pos+count): N for global storage
    // when it fits, else as many indices as the free memory allows (0: none).
    size_t window_for(const std::vector<frame_view>& frames,
                      const std::vector<size_t>& todo,
                      size_t pos,
                      size_t count)
    {
        size_t free_b = 0, total_b = 0;
        BSID_CUDA(cudaMemGetInfo(&free_b, &total_b));
        const size_t budget = (free_b + cached_bytes()) * 8 / 10; // the cache is reused
        size_t fixed = scratch_bytes();
        for (size_t j = pos; j < pos + count; ++j) fixed += per_frame_fixed_bytes(frames[todo[j]].rho);
        if (fixed >= budget) return 0;
        const size_t per_index = per_index_bytes() * count;
        const size_t fit = (budget - fixed) / std::max<size_t>(per_index, 1);
        if (d_storage == storage_kind::global) {
            if (fit >= size_t(N())) return size_t(N());
            if (!d_warned_global) {
                d_warned_global = true;
                log(log_level::warning,
                    detail::concat("map_decoder(cuda): global storage needs ",
                                   (per_index * size_t(N())) >> 20, " MiB for ", count,
                                   " frames but ", budget >> 20,
                                   " MiB are usable; falling back to local storage"));
            }
        }
        // local storage: windows of at most N - 1 indices, capped so that the
        // window's G and partial L stay within 64 MiB (the recursions run a
        // window per launch)
        size_t local_cap = std::max<size_t>(1, (size_t(64) << 20) / std::max<size_t>(per_index, 1));
        // BSID_CUDA_LOCAL_WINDOW caps the window further (tests use it to run
        // many windows on small problems)
        if (const char* env = std::getenv("BSID_CUDA_LOCAL_WINDOW")) {
            const long cap = std::atol(env);
            if (cap > 0) local_cap = std::min(local_cap, size_t(cap));
        }
        return std::min({ fit, size_t(std::max(1, N() - 1)), local_cap });
    }

    void run(const std::vector<frame_view>& frames,
             const std::vector<double*>& post,
             const std::vector<size_t>& todo,
             size_t pos,
             size_t count,
             size_t W,
             std::vector<frame_result>& results)
    {
        BSID_CUDA(cudaSetDevice(d_device));
        const int F = int(count);
        const int Nn = N(), Q = q(), Mt = d_limits.mtau.size(), Mn = d_limits.mn.size();
        const bool recompute = W < size_t(Nn);

        // host-side inputs
        std::vector<long long> offset(count), rho(count);
        std::vector<uint8_t> bits;
        std::vector<int> has_prior(count, 0);
        bool any_prior = false;
        for (size_t j = 0; j < count; ++j) {
            const frame_view& fv = frames[todo[pos + j]];
            offset[j] = (long long)bits.size();
            rho[j] = (long long)fv.rho;
            bits.insert(bits.end(), fv.bits, fv.bits + fv.rho);
            if (fv.priors) any_prior = true;
        }
        std::vector<real> priors;
        if (any_prior) {
            priors.assign(size_t(F) * Nn * Q, real(1));
            std::vector<double> tmp(size_t(Nn) * Q);
            for (size_t j = 0; j < count; ++j) {
                const frame_view& fv = frames[todo[pos + j]];
                if (!fv.priors) continue;
                has_prior[j] = 1;
                normalized_priors(fv.priors, tmp.data());
                std::copy(tmp.begin(), tmp.end(), priors.begin() + long(j * size_t(Nn) * Q));
            }
        }

        // all device buffers are kept between batches (grown when needed)
        d_bits.ensure(std::max<size_t>(bits.size(), 1));
        d_offset.ensure(count);
        d_rho.ensure(count);
        d_priors.ensure(priors.size());
        d_has_prior.ensure(count);
        d_status.ensure(count);
        d_status_index.ensure(count);
        d_G.ensure(size_t(F) * W * Mt * Mn);
        d_Lpart.ensure(size_t(F) * W * size_t(nwarps()) * Q);
        d_alpha.ensure(size_t(F) * (Nn + 1) * Mt);
        d_beta.ensure(size_t(F) * (Nn + 1) * Mt);
        d_post.ensure(size_t(F) * Nn * Q);
        std::vector<long long> packed_offset(count);
        long long words = 0;
        for (size_t j = 0; j < count; ++j) {
            packed_offset[j] = words;
            words += rho[j] / 64 + 3;
        }
        d_packed.ensure(static_cast<size_t>(words));
        d_packed_offset.ensure(count);
        d_packed_offset.upload(packed_offset.data(), count);
        d_bits.upload(bits.data(), bits.size());
        d_offset.upload(offset.data(), count);
        d_rho.upload(rho.data(), count);
        d_priors.upload(priors.data(), priors.size());
        d_has_prior.upload(has_prior.data(), count);
        BSID_CUDA(cudaMemset(d_status.get(), 0, sizeof(int) * count));
        // a refused frame's rows are never written: keep the copy back defined
        BSID_CUDA(cudaMemset(d_post.get(), 0, sizeof(real) * size_t(F) * Nn * Q));
        BSID_CUDA(cudaMemset(d_status_index.get(), 0, sizeof(int) * count));

        launch_params<real> p{};
        p.n = n();
        p.q = Q;
        p.P = d_cfg.cb.P();
        p.N = Nn;
        p.words = d_words.get();
        p.ins = d_w.ins;
        p.del = d_w.del;
        p.match = d_w.match;
        p.mismatch = d_w.mismatch;
        p.wmatch = real(d_wmatch);
        p.wmismatch = real(d_wmismatch);
        p.renorm_rows = d_renorm_rows;
        p.renorm_factor = real(d_renorm_factor);
        p.out_scale = real(d_out_scale);
        for (int k = 0; k < 32; ++k) {
            const int k0 = -d_limits.mn.lo;
            p.row0[k] = k == k0 ? real(1) : k > k0 ? p.row0[k - 1] * d_w.ins : real(0);
        }
        p.mtlo = d_limits.mtau.lo;
        p.dlo = d_limits.mn.lo;
        p.Mt = Mt;
        p.Mn = Mn;
        p.F = F;
        p.bits = d_bits.get();
        p.offset = d_offset.get();
        p.rho = d_rho.get();
        p.priors = any_prior ? d_priors.get() : nullptr;
        p.has_prior = d_has_prior.get();
        p.W = int(W);
        p.nwarps = nwarps();
        p.G = d_G.get();
        p.Lpart = d_Lpart.get();
        p.alpha = d_alpha.get();
        p.beta = d_beta.get();
        p.packed = d_packed.get();
        p.packed_offset = d_packed_offset.get();
        {
            const long long most = *std::max_element(rho.begin(), rho.end()) / 64 + 3;
            const dim3 grid(unsigned(std::min<long long>((most + 127) / 128, 65535)), unsigned(F));
            pack_kernel<<<grid, 128>>>(d_bits.get(), d_offset.get(), d_rho.get(),
                                       d_packed_offset.get(), d_packed.get(), F);
            BSID_CUDA(cudaGetLastError());
        }
        p.post = d_post.get();
        p.status = d_status.get();
        p.status_index = d_status_index.get();

        const size_t ab_shared = sizeof(double) * 32 + sizeof(real) * (size_t(d_ab_block) + 2 * ab_pad);
        const int fin_block = int(std::min<size_t>(256, (size_t(Q) + 31) / 32 * 32));
        // per-stage device time (bsid_bench), from events around each stage
        stage_clock clock(d_profiling);
        auto lattice = [&](int i0, int Wc, int pass) {
            p.i0 = i0;
            p.Wc = Wc;
            clock.begin();
            launch_lattice(p, pass);
            if (pass == pass_L) {
                finish_kernel<real><<<unsigned(F * Wc), fin_block, sizeof(double) * 32>>>(p);
                BSID_CUDA(cudaGetLastError());
            }
            clock.end(pass == pass_G ? stage_clock::gamma : stage_clock::L);
        };
        auto recursion = [&](int which, stage_clock::stage st) {
            clock.begin();
            const dim3 grid(unsigned(F), which == 2 ? 2u : 1u);
            const int Mn_ = d_limits.mn.size();
            const int emax = Mn_ <= 8 ? 8 : Mn_ <= 16 ? 16 : 32;
            // one warp per frame up to 64 states (1 or 2 per lane); beyond,
            // the block kernels are as fast (S500: 2.6 against 2.7 us per frame)
            const int spl = (Mt + 31) / 32; // states per lane
            if (d_ab_warp && spl <= 2) {
                launch_ab_warp(grid, p, which, emax, spl);
            } else if (emax == 8) {
                ab_kernel<real, 8><<<grid, d_ab_block, ab_shared>>>(p, which);
            } else if (emax == 16) {
                ab_kernel<real, 16><<<grid, d_ab_block, ab_shared>>>(p, which);
            } else {
                ab_kernel<real, 32><<<grid, d_ab_block, ab_shared>>>(p, which);
            }
            BSID_CUDA(cudaGetLastError());
            clock.end(st);
        };
        if (!recompute) {
            // global storage: G of the whole frame, then alpha and beta side
            // by side, then the posteriors
            lattice(0, Nn, pass_G);
            recursion(2, stage_clock::alpha);
            lattice(0, Nn, pass_L);
        } else {
            // local storage: forward window by window, then backward in
            // reverse, G made again for each window
            for (int i0 = 0; i0 < Nn; i0 += int(W)) {
                lattice(i0, std::min(int(W), Nn - i0), pass_G);
                recursion(0, stage_clock::alpha);
            }
            const int last0 = ((Nn - 1) / int(W)) * int(W);
            for (int i0 = last0; i0 >= 0; i0 -= int(W)) {
                const int Wc = std::min(int(W), Nn - i0);
                lattice(i0, Wc, pass_G);
                recursion(1, stage_clock::beta);
                lattice(i0, Wc, pass_L);
            }
        }
        BSID_CUDA(cudaDeviceSynchronize());
        if (d_profiling) {
            const auto t = clock.collect();
            d_times.gamma += t[stage_clock::gamma];
            d_times.alpha += t[stage_clock::alpha];
            d_times.beta += t[stage_clock::beta];
            d_times.L += t[stage_clock::L];
        }
        size_t free_b = 0, total_b = 0;
        BSID_CUDA(cudaMemGetInfo(&free_b, &total_b));
        d_peak_bytes = std::max(d_peak_bytes, total_b - free_b - d_baseline_used);

        std::vector<int> status(count), where(count);
        d_status.download(status.data(), count);
        d_status_index.download(where.data(), count);
        // through a pinned staging buffer kept between batches: a fast copy,
        // and no fresh host pages to fault in every batch
        const size_t nout = size_t(F) * Nn * Q;
        if (d_staging_count < nout) {
            if (d_staging) cudaFreeHost(d_staging);
            d_staging = nullptr;
            d_staging_count = 0;
            BSID_CUDA(cudaMallocHost(reinterpret_cast<void**>(&d_staging), nout * sizeof(real)));
            d_staging_count = nout;
        }
        BSID_CUDA(cudaMemcpy(d_staging, d_post.get(), nout * sizeof(real), cudaMemcpyDeviceToHost));
        const real* out = d_staging;
        // copy the posteriors out on all cores (tens of MB per batch)
#pragma omp parallel for schedule(static)
        for (long long jj = 0; jj < (long long)count; ++jj) {
            const size_t j = size_t(jj), k = todo[pos + j];
            if (status[j] != st_ok) continue;
            const real* from = out + j * size_t(Nn) * Q;
            double* to = post[k];
            if constexpr (std::is_same<real, double>::value) {
                std::copy(from, from + size_t(Nn) * Q, to);
            } else {
                // single precision: each row normalized again in double, so that
                // it sums to 1 to double precision like the other backends' rows
                for (int i = 0; i < Nn; ++i, from += Q, to += Q) {
                    double sum = 0;
                    for (int D = 0; D < Q; ++D) sum += double(from[D]);
                    for (int D = 0; D < Q; ++D) to[D] = double(from[D]) / sum;
                }
            }
        }
        for (size_t j = 0; j < count; ++j) {
            const size_t k = todo[pos + j];
            if (status[j] == st_ok) {
                results[k] = {};
                continue;
            }
            fill_uniform(post[k]);
            std::string where_s =
                status[j] == st_alpha ? detail::concat("no path reaches symbol boundary ", where[j])
                : status[j] == st_end ? detail::concat("no path ends at drift rho - tau = ",
                                                       rho[j] - tau())
                                      : detail::concat("the backward pass vanished at symbol ",
                                                       where[j]);
            results[k] = { frame_status::impossible,
                           "the frame has probability 0 under the channel model within the drift "
                           "limits (" + where_s + ")" };
        }
    }

    map_decoder& cpu_fallback()
    {
        if (!d_cpu) {
            decoder_config c = d_cfg;
            c.backend = backend_kind::cpu;
            c.mtau = d_limits.mtau;
            c.mn = d_limits.mn;
            d_cpu = make_cpu_decoder(c);
        }
        return *d_cpu;
    }

    // the warp recursions, one instance per (EMAX, states per lane)
    void launch_ab_warp(dim3 grid, const launch_params<real>& p, int which, int emax, int spl)
    {
        switch (emax * 10 + spl) {
        case 81: ab_warp_kernel<real, 8, 1><<<grid, 32>>>(p, which); break;
        case 82: ab_warp_kernel<real, 8, 2><<<grid, 32>>>(p, which); break;
        case 161: ab_warp_kernel<real, 16, 1><<<grid, 32>>>(p, which); break;
        case 162: ab_warp_kernel<real, 16, 2><<<grid, 32>>>(p, which); break;
        case 321: ab_warp_kernel<real, 32, 1><<<grid, 32>>>(p, which); break;
        case 322: ab_warp_kernel<real, 32, 2><<<grid, 32>>>(p, which); break;
        default: throw std::logic_error("map_decoder(cuda): no warp recursion for this shape");
        }
    }

    // one pass of the lattice over the window: the register kernel when
    // there is one for this (n, Mn) and channel, the general one otherwise
    void launch_lattice(const launch_params<real>& p, int pass)
    {
        if (d_reg) {
            // no idle warps when M_tau is small: they would take a block's
            // place on an SM while the working warps of small batches wait
            const int block = p.Mt <= 32 ? 32 : p.Mt <= 64 ? 64 : reg_block;
            const int chunks = (p.Mt + block - 1) / block;
            const unsigned grid = unsigned(size_t(p.F) * size_t(p.Wc) * size_t(chunks));
            d_reg(grid, unsigned(block), p, chunks, pass);
        } else {
            d_scratch.ensure(2 * size_t(p.Mn) * size_t(d_general_block) * size_t(d_general_grid));
            lattice_kernel_general<real><<<d_general_grid, d_general_block>>>(p, d_scratch.get(), pass);
        }
        BSID_CUDA(cudaGetLastError());
    }

    int d_device = 0;
    size_t d_peak_bytes = 0, d_baseline_used = 0;
    cudaDeviceProp d_prop{};
    lattice_weights<real> d_w{};
    device_buffer<uint32_t> d_words;
    device_buffer<real> d_G, d_Lpart, d_alpha, d_beta, d_scratch, d_priors;
    device_buffer<real> d_post; // the posteriors in the decoder's precision
    device_buffer<uint8_t> d_bits;
    device_buffer<long long> d_offset, d_rho, d_packed_offset;
    device_buffer<int> d_has_prior, d_status, d_status_index;
    device_buffer<unsigned long long> d_packed;
    real* d_staging = nullptr; // pinned host copy of d_post
    size_t d_staging_count = 0;
    size_t cached_bytes() const
    {
        return d_G.bytes() + d_Lpart.bytes() + d_alpha.bytes() + d_beta.bytes() + d_post.bytes() +
               d_scratch.bytes();
    }
    void release_cache()
    {
        d_G.release();
        d_Lpart.release();
        d_alpha.release();
        d_beta.release();
        d_post.release();
        d_scratch.release();
    }
    int d_general_block = 128, d_general_grid = 1, d_ab_block = 128;
    bool d_ab_warp = true; // warp recursions where M_tau allows (BSID_CUDA_AB=block: never)
    lattice_launcher<real> d_reg = nullptr; // the register kernel, if any
    unsigned d_renorm_rows = 0;
    double d_renorm_factor = 1, d_out_scale = 1, d_wmatch = 0, d_wmismatch = 0;
    storage_kind d_storage = storage_kind::global;
    bool d_warned_global = false;
    std::mutex d_mutex;
    std::unique_ptr<map_decoder> d_cpu;
};

} // namespace

bool cuda_device_available(std::string* why)
{
    int count = 0; // left unwritten when there is no driver
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        cudaGetLastError();
        if (why) *why = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
        return false;
    }
    if (count <= 0) {
        if (why) *why = "no CUDA device";
        return false;
    }
    const int dev = device_from_env();
    if (dev < 0 || dev >= count) {
        if (why) *why = detail::concat("BSID_CUDA_DEVICE = ", dev, " but there are ", count, " devices");
        return false;
    }
    return true;
}

std::unique_ptr<map_decoder> make_cuda_decoder(const decoder_config& cfg)
{
    if (cfg.precision == precision_kind::dual) {
        return std::make_unique<cuda_decoder<double>>(cfg);
    }
    return std::make_unique<cuda_decoder<float>>(cfg);
}

} // namespace bsid
