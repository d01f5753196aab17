/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA backend of the MAP decoder: the paper's decoder ("The MAP Decoder",
// "Initial Parallel Implementation"), batched over frames.
//
// A batch of frames is decoded by three kinds of kernel:
//  - gamma: every (frame, i, m', D) of a window of symbol indices in parallel,
//    one corridor lattice per thread (eqn:F, eqn:F_lastrow), D innermost so
//    that a warp reads one received segment and writes contiguous gamma;
//    then the sums over D (G) that alpha and beta need;
//  - alpha: one block per frame runs the forward recursion (eqn:alpha,
//    eqn:alpha_norm) over the whole window, synchronized by barriers, its
//    threads looping over the states (no limit on M_tau);
//  - beta and L: one block per frame runs the backward recursion (eqn:beta)
//    fused with the posteriors (eqn:L), window by window in reverse.
// Global storage keeps gamma for the whole frame (one window of N indices);
// local storage keeps windows of W < N indices and recomputes gamma for the
// backward pass. W, the block sizes and the grid come from the device's
// properties, the occupancy API and the free memory at run time.
//
// Indices as in map_decoder_cpu.cc: a = m - m_tau^- (Mt states), e = d - m_n^-
// (Mn drift changes within a codeword), D (q symbols).

#include "map_decoder_cuda.h"
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

// Frame status codes written by the kernels.
enum : int { st_ok = 0, st_alpha = 1, st_end = 2, st_beta = 3 };

template <typename real>
struct launch_params {
    // the code and channel
    int n, q, P, N;
    const uint32_t* words; // P x q codewords
    real ins, del, match, mismatch;
    // limits
    int mtlo, mthi, dlo, Mt, Mn;
    // the batch
    int F;
    const uint8_t* bits;      // all frames' received bits
    const long long* offset;  // per frame: start of its bits
    const long long* rho;     // per frame: received length
    const real* priors;       // F x N x q, or null
    const int* has_prior;     // per frame
    // the window of symbol indices [i0, i0 + Wc) in buffers of W indices
    int i0, Wc, W;
    real* gamma;              // F x W x Mt x Mn x q
    real* G;                  // F x W x Mt x Mn
    real* alpha;              // F x (N + 1) x Mt
    const unsigned long long* packed; // per frame: its bits, 64 per word (see pack_kernel)
    const long long* packed_offset;   // per frame: its first word
    real* beta;               // F x (N + 1) x Mt
    double* post;             // F x N x q
    int* status;              // F
    int* status_index;        // F
};

/*
 * gamma_i(m', m' + d, D) for all d (eqn:gamma): one corridor lattice per work
 * item, in place in one row of Mn values kept in `scratch` (column k of
 * thread t at scratch[k * nthreads + t], so a warp's accesses coalesce).
 * The row of node (r, c) is k = c - r - dlo. Grid-stride over the items.
 */
template <typename real>
__global__ void gamma_kernel(launch_params<real> p, real* scratch)
{
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long total = (long long)p.F * p.Wc * p.Mt * p.q;
    real* row = scratch + tid;
    for (long long item = tid; item < total; item += nthreads) {
        const int D = int(item % p.q);
        long long rest = item / p.q;
        const int a = int(rest % p.Mt);
        rest /= p.Mt;
        const int iw = int(rest % p.Wc);
        const int f = int(rest / p.Wc);
        const int i = p.i0 + iw;
        real* out = p.gamma + ((((long long)f * p.W + iw) * p.Mt + a) * p.Mn) * p.q + D;
        const long long mprime = p.mtlo + a;
        const long long start = (long long)p.n * i + mprime;
        const long long rho = p.rho[f];
        if (start < 0 || start > rho) {
            for (int e = 0; e < p.Mn; ++e) out[(long long)e * p.q] = real(0);
            continue;
        }
        const long long avail = rho - start;
        const uint8_t* y = p.bits + p.offset[f] + start;
        const uint32_t word = p.words[(long long)(i % p.P) * p.q + D];
        // row 0: F(0,0) = 1, then insertions only
        const int k0 = -p.dlo;
        for (int k = 0; k < p.Mn; ++k) {
            real v = real(0);
            if (k == k0) {
                v = real(1);
            } else if (k > k0 && (long long)(k + p.dlo) <= avail) {
                v = p.ins * row[(long long)(k - 1) * nthreads];
            }
            row[(long long)k * nthreads] = v;
        }
        // rows 1..n (eqn:F; eqn:F_lastrow without the insertion term), in place:
        // going up in k, row[k] and row[k + 1] still hold row r - 1 when read,
        // and row[k - 1] already holds row r.
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
        // row n: node k ends at drift d = dlo + k; keep the ends inside m_tau
        const real prior = (p.priors && p.has_prior[f])
                               ? p.priors[((long long)f * p.N + i) * p.q + D]
                               : real(1);
        for (int e = 0; e < p.Mn; ++e) {
            const long long m = mprime + p.dlo + e;
            const real v = (m < p.mtlo || m > p.mthi) ? real(0) : row[(long long)e * nthreads];
            out[(long long)e * p.q] = p.priors && p.has_prior[f] ? v * prior : v;
        }
    }
}

// The received bits, 64 to a word (bit j of word w is bit 64 w + j), so that a
// lattice reads its whole segment with two loads.
__global__ void pack_kernel(const uint8_t* bits,
                            const long long* offset,
                            const long long* rho,
                            const long long* packed_offset,
                            unsigned long long* packed,
                            int F)
{
    const int f = blockIdx.y;
    if (f >= F) return;
    const long long words = rho[f] / 64 + 2;
    for (long long w = (long long)blockIdx.x * blockDim.x + threadIdx.x; w < words;
         w += (long long)gridDim.x * blockDim.x) {
        unsigned long long v = 0;
        for (int j = 0; j < 64; ++j) {
            const long long t = 64 * w + j;
            if (t < rho[f] && bits[offset[f] + t]) v |= 1ull << j;
        }
        packed[packed_offset[f] + w] = v;
    }
}

/*
 * The lattice with its row in registers, for a corridor of exactly MN <= 32
 * nodes and segments of at most 64 bits (n + m_n^+ <= 64): the loops over k
 * are unrolled at the exact width, so row[] lives in registers and no cell in
 * the frame's interior tests a bound; the received segment is one 64-bit
 * word. Block x covers 256 consecutive (a, D) items of one (frame, i);
 * when q is a power of two up to 32, the lanes of one a share a warp and the
 * sums over D (G) are made here with shuffles.
 */
template <typename real, int MN>
__global__ void __launch_bounds__(256) gamma_kernel_reg(launch_params<real> p, int chunks, int fuse_sum)
{
    constexpr int MAXMN = MN; // the corridor's exact width (p.Mn == MN)
    const int fi = blockIdx.x / chunks; // f * Wc + iw
    const int chunk = blockIdx.x - fi * chunks;
    const int f = fi / p.Wc;
    const int iw = fi - f * p.Wc;
    const int idx = chunk * blockDim.x + threadIdx.x;
    const bool active = idx < p.Mt * p.q;
    const int a = active ? idx / p.q : 0;
    const int D = active ? idx - a * p.q : 0;
    const int i = p.i0 + iw;
    const long long mprime = p.mtlo + a;
    const long long start = (long long)p.n * i + mprime;
    const long long rho = p.rho[f];
    const bool inside = active && start >= 0 && start <= rho;
    const int avail = inside ? int(min(rho - start, 64LL)) : -1;

    real row[MAXMN];
#pragma unroll
    for (int k = 0; k < MAXMN; ++k) row[k] = real(0);
    if (inside) {
        unsigned long long win = 0;
        {
            const long long w = start >> 6;
            const int sh = int(start & 63);
            const unsigned long long* pk = p.packed + p.packed_offset[f];
            win = pk[w] >> sh;
            if (sh) win |= pk[w + 1] << (64 - sh);
        }
        const uint32_t word = p.words[(i % p.P) * p.q + D];
        const int k0 = -p.dlo;
        const int dhi = p.dlo + p.Mn - 1;
        if (avail >= p.n + dhi) {
            // The whole segment lies inside the frame: no bounds tests. Nodes
            // left of column 0 start at 0 and stay 0 (all their inputs are such
            // nodes), and the corridor's width is the template's, so none is masked.
#pragma unroll
            for (int k = 0; k < MAXMN; ++k) {
                if (k == k0) {
                    row[k] = real(1);
                } else if (k > k0 && k < p.Mn) {
                    row[k] = p.ins * row[k > 0 ? k - 1 : 0];
                }
            }
            for (int r = 1; r <= p.n; ++r) {
                const real ins = r < p.n ? p.ins : real(0);
                // received bit c - 1 = r + dlo - 1 + k for node k: one shift per row
                const int s0 = r + p.dlo - 1;
                const unsigned long long wr = s0 >= 0 ? win >> s0 : win << (-s0);
                // bit k set: received bit equals codeword bit r - 1 (k < MN <= 32)
                const uint32_t same_bits = uint32_t(((word >> (p.n - r)) & 1u) ? wr : ~wr);
#pragma unroll
                for (int k = 0; k < MAXMN; ++k) {
                    const bool same = ((same_bits >> k) & 1u) != 0;
                    real v = (same ? p.match : p.mismatch) * row[k];
                    if (k + 1 < MAXMN) v += p.del * row[k + 1 < MAXMN ? k + 1 : k];
                    if (k >= 1) v += ins * row[k > 0 ? k - 1 : 0];
                    row[k] = v;
                }
            }
        } else {
#pragma unroll
            for (int k = 0; k < MAXMN; ++k) {
                if (k == k0) {
                    row[k] = real(1);
                } else if (k > k0 && k < p.Mn && k + p.dlo <= avail) {
                    row[k] = p.ins * row[k > 0 ? k - 1 : 0];
                }
            }
            for (int r = 1; r <= p.n; ++r) {
                const real ins = r < p.n ? p.ins : real(0);
                const unsigned xb = (word >> (p.n - r)) & 1u;
                // the diagonal weight into node k reads received bit c - 1 = r + dlo + k - 1
                const int base = r + p.dlo - 1;
#pragma unroll
                for (int k = 0; k < MAXMN; ++k) {
                    const int c = base + 1 + k;
                    real v = real(0);
                    if (k < p.Mn && c >= 0 && c <= avail) {
                        if (c >= 1) {
                            const unsigned yb = unsigned(win >> (c - 1)) & 1u;
                            v = (yb == xb ? p.match : p.mismatch) * row[k];
                        }
                        if (k + 1 < p.Mn) v += p.del * row[k + 1 < MAXMN ? k + 1 : k];
                        if (k >= 1 && c >= 1) v += ins * row[k > 0 ? k - 1 : 0];
                    }
                    row[k] = v;
                }
            }
        }
    }
    const bool pr = p.priors && p.has_prior[f];
    const real prior = (inside && pr) ? p.priors[((long long)f * p.N + i) * p.q + D] : real(1);
    real* out = p.gamma + ((((long long)f * p.W + iw) * p.Mt + a) * p.Mn) * p.q + D;
    real* G = p.G + (((long long)f * p.W + iw) * p.Mt + a) * p.Mn;
#pragma unroll
    for (int e = 0; e < MAXMN; ++e) {
        if (e < p.Mn) {
            const long long m = mprime + p.dlo + e;
            real v = (m < p.mtlo || m > p.mthi) ? real(0) : row[e];
            if (pr) v *= prior;
            if (active) out[(long long)e * p.q] = v;
            if (fuse_sum) {
                // sum over the q lanes of this a (q a power of two <= 32)
                real s = v;
                for (int o = p.q / 2; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
                if (active && D == 0) G[e] = s;
            }
        }
    }
}

// G(f, i, a, e) = sum over D of gamma: one thread per (f, i, a, e).
template <typename real>
__global__ void gamma_sum_kernel(launch_params<real> p)
{
    const long long total = (long long)p.F * p.Wc * p.Mt * p.Mn;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += stride) {
        const int e = int(t % p.Mn);
        long long rest = t / p.Mn;
        const int a = int(rest % p.Mt);
        rest /= p.Mt;
        const int iw = int(rest % p.Wc);
        const int f = int(rest / p.Wc);
        const long long base = (((long long)f * p.W + iw) * p.Mt + a) * p.Mn + e;
        const real* g = p.gamma + base * p.q;
        real s = real(0);
        for (int D = 0; D < p.q; ++D) s += g[D];
        p.G[base] = s;
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

/*
 * Forward recursion over the window, one block per frame (eqn:alpha with
 * eqn:alpha_norm): alpha_{i+1}(b) = sum_e alpha_i(b - d) G_i(b - d, e).
 * blockDim is a power of two (block_sum).
 */
template <typename real>
__global__ void alpha_kernel(launch_params<real> p)
{
    extern __shared__ double red[];
    const int f = blockIdx.x;
    if (p.status[f] != st_ok) return;
    real* alpha = p.alpha + (long long)f * (p.N + 1) * p.Mt;
    if (p.i0 == 0) {
        for (int b = threadIdx.x; b < p.Mt; b += blockDim.x) alpha[b] = b == -p.mtlo ? real(1) : real(0);
        __syncthreads();
    }
    for (int iw = 0; iw < p.Wc; ++iw) {
        const int i = p.i0 + iw;
        const real* ai = alpha + (long long)i * p.Mt;
        real* an = alpha + (long long)(i + 1) * p.Mt;
        const real* G = p.G + ((long long)f * p.W + iw) * p.Mt * p.Mn;
        double local = 0;
        for (int b = threadIdx.x; b < p.Mt; b += blockDim.x) {
            real s = real(0);
            for (int e = 0; e < p.Mn; ++e) {
                const int a = b - p.dlo - e;
                if (a >= 0 && a < p.Mt) s += ai[a] * G[(long long)a * p.Mn + e];
            }
            an[b] = s;
            local += double(s);
        }
        const double sum = block_sum(local, red);
        if (!(sum > 0) || !isfinite(sum)) {
            if (threadIdx.x == 0) {
                p.status[f] = st_alpha;
                p.status_index[f] = i + 1;
            }
            return; // every thread sees the same sum
        }
        for (int b = threadIdx.x; b < p.Mt; b += blockDim.x) an[b] = real(double(an[b]) / sum);
        __syncthreads();
    }
    if (p.i0 + p.Wc == p.N) {
        const long long end = p.rho[f] - (long long)p.n * p.N - p.mtlo;
        if (threadIdx.x == 0 && !(alpha[(long long)p.N * p.Mt + end] > real(0))) {
            p.status[f] = st_end;
            p.status_index[f] = p.N;
        }
    }
}

/*
 * Backward recursion over the window in reverse, one block per frame
 * (eqn:beta): beta_i(a) = sum_e G_i(a, e) beta_{i+1}(a + d), normalized. The
 * rows are kept for the L kernel.
 */
template <typename real>
__global__ void beta_kernel(launch_params<real> p)
{
    extern __shared__ double red[];
    const int f = blockIdx.x;
    if (p.status[f] != st_ok) return;
    real* beta = p.beta + (long long)f * (p.N + 1) * p.Mt;
    if (p.i0 + p.Wc == p.N) {
        const long long end = p.rho[f] - (long long)p.n * p.N - p.mtlo;
        real* bN = beta + (long long)p.N * p.Mt;
        for (int a = threadIdx.x; a < p.Mt; a += blockDim.x) bN[a] = a == end ? real(1) : real(0);
        __syncthreads();
    }
    for (int iw = p.Wc - 1; iw >= 0; --iw) {
        const int i = p.i0 + iw;
        const real* bn = beta + (long long)(i + 1) * p.Mt;
        real* bc = beta + (long long)i * p.Mt;
        const real* G = p.G + ((long long)f * p.W + iw) * p.Mt * p.Mn;
        double bl = 0;
        for (int a = threadIdx.x; a < p.Mt; a += blockDim.x) {
            real s = real(0);
            for (int e = 0; e < p.Mn; ++e) {
                const int b = a + p.dlo + e;
                if (b >= 0 && b < p.Mt) s += G[(long long)a * p.Mn + e] * bn[b];
            }
            bc[a] = s;
            bl += double(s);
        }
        const double bs = block_sum(bl, red);
        if (!(bs > 0) || !isfinite(bs)) {
            if (threadIdx.x == 0) {
                p.status[f] = st_beta;
                p.status_index[f] = i;
            }
            return;
        }
        for (int a = threadIdx.x; a < p.Mt; a += blockDim.x) bc[a] = real(double(bc[a]) / bs);
        __syncthreads();
    }
}

/*
 * The posteriors (eqn:L, eqn:sigma): one block per (frame, i) of the window,
 * L_i(D) = sum_{a,e} alpha_i(a) gamma_i(a, a + d, D) beta_{i+1}(a + d),
 * normalized. For q below the block size, groups of q threads share out the
 * states a and their partial sums meet in shared memory.
 */
template <typename real>
__global__ void L_kernel(launch_params<real> p)
{
    extern __shared__ double red[];
    const int fi = blockIdx.x;
    const int f = fi / p.Wc;
    const int iw = fi - f * p.Wc;
    if (p.status[f] != st_ok) return;
    const int i = p.i0 + iw;
    const real* ai = p.alpha + ((long long)f * (p.N + 1) + i) * p.Mt;
    const real* bn = p.beta + ((long long)f * (p.N + 1) + i + 1) * p.Mt;
    const real* gam = p.gamma + ((long long)f * p.W + iw) * p.Mt * p.Mn * p.q;
    double* out = p.post + ((long long)f * p.N + i) * p.q;
    const int groups = p.q >= int(blockDim.x) ? 1 : int(blockDim.x) / p.q;
    const int g = threadIdx.x / min(p.q, int(blockDim.x));
    double total = 0;
    const int lanes = min(p.q, int(blockDim.x));
    for (int D0 = 0; D0 < p.q; D0 += lanes) {
        const int D = D0 + threadIdx.x % lanes;
        real acc = real(0);
        if (g < groups && D < p.q) {
            // group g takes the states a = g, g + groups, ...; all their d
            for (int a = g; a < p.Mt; a += groups) {
                const real wa = ai[a];
                if (wa == real(0)) continue;
                const int b0 = a + p.dlo;
                const int e0 = max(0, -b0), e1 = min(p.Mn, p.Mt - b0);
                const real* gr = gam + (long long)a * p.Mn * p.q + D;
                for (int e = e0; e < e1; ++e) {
                    const real w = wa * bn[b0 + e];
                    acc += w * gr[(long long)e * p.q];
                }
            }
        }
        red[threadIdx.x] = (g < groups) ? double(acc) : 0.0;
        __syncthreads();
        if (g == 0 && D < p.q) {
            double sum = 0;
            for (int h = 0; h < groups; ++h) sum += red[h * lanes + threadIdx.x];
            out[D] = sum;
            total += sum;
        }
        __syncthreads();
    }
    const double ls = block_sum(total, red);
    if (!(ls > 0) || !isfinite(ls)) {
        if (threadIdx.x == 0) {
            p.status[f] = st_beta;
            p.status_index[f] = i;
        }
        return;
    }
    for (int D = threadIdx.x; D < p.q; D += blockDim.x) out[D] /= ls;
}

// ------------------------------------------------------------------ host side

// One register kernel per corridor width 1..32, picked at run time.
template <typename real, int MN>
void launch_gamma_reg(unsigned grid, const launch_params<real>& p, int chunks, int fuse)
{
    gamma_kernel_reg<real, MN><<<grid, 256>>>(p, chunks, fuse);
}

template <typename real>
using gamma_reg_launcher = void (*)(unsigned, const launch_params<real>&, int, int);

template <typename real, int... M>
std::array<gamma_reg_launcher<real>, sizeof...(M)> gamma_reg_table(std::integer_sequence<int, M...>)
{
    return { { &launch_gamma_reg<real, M + 1>... } };
}

template <typename real>
const std::array<gamma_reg_launcher<real>, 32>& gamma_reg_launchers()
{
    static const auto table = gamma_reg_table<real>(std::make_integer_sequence<int, 32>{});
    return table;
}

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

size_t round_pow2_at_least(size_t v, size_t lo, size_t hi)
{
    size_t p = lo;
    while (p < v && p < hi) p <<= 1;
    return std::min(p, hi);
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

        // Launch shapes from the device and the occupancy API (paper,
        // "Handling Resource Limits" and "Improving Occupancy").
        int min_grid = 0, block = 0;
        BSID_CUDA(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, gamma_kernel<real>, 0, 0));
        d_gamma_block = std::max(32, block);
        d_gamma_grid = std::max(1, min_grid);
        BSID_CUDA(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, gamma_sum_kernel<real>, 0, 0));
        d_sum_block = std::max(32, block);
        d_sum_grid = std::max(1, min_grid);
        // alpha/beta blocks: enough threads for the states (or symbols), a
        // power of two for the reductions, within the kernels' limits
        cudaFuncAttributes fa{}, fb{};
        BSID_CUDA(cudaFuncGetAttributes(&fa, alpha_kernel<real>));
        BSID_CUDA(cudaFuncGetAttributes(&fb, beta_kernel<real>));
        const size_t limit = size_t(std::min({ fa.maxThreadsPerBlock, fb.maxThreadsPerBlock,
                                               d_prop.maxThreadsPerBlock }));
        size_t lim2 = 32;
        while (lim2 * 2 <= limit) lim2 *= 2;
        d_ab_block = int(round_pow2_at_least(size_t(std::max(d_limits.mtau.size(), q())), 32, lim2));

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
                           to_string(d_storage), " storage (gamma needs ",
                           (per_index * size_t(N())) >> 20, " MiB per frame); blocks: gamma ",
                           d_gamma_block, " x ", d_gamma_grid, ", alpha/beta ", d_ab_block));
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
    size_t per_index_bytes() const
    {
        const size_t MtMn = size_t(d_limits.mtau.size()) * size_t(d_limits.mn.size());
        return sizeof(real) * MtMn * (size_t(q()) + 1);
    }
    size_t per_frame_fixed_bytes(size_t rho) const
    {
        const size_t Mt = size_t(d_limits.mtau.size());
        return sizeof(real) * (2 * size_t(N() + 1) * Mt + size_t(N()) * size_t(q())) +
               sizeof(double) * size_t(N()) * size_t(q()) + rho + rho / 8 + 64;
    }
    size_t scratch_bytes() const
    {
        return sizeof(real) * size_t(d_limits.mn.size()) * size_t(d_gamma_block) *
               size_t(d_gamma_grid);
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
        // gamma buffer stays modest (the recursions still run a window per launch)
        size_t local_cap = std::max<size_t>(1, (size_t(256) << 20) / std::max<size_t>(per_index, 1));
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
        d_gamma.ensure(size_t(F) * W * Mt * Mn * Q);
        d_G.ensure(size_t(F) * W * Mt * Mn);
        d_alpha.ensure(size_t(F) * (Nn + 1) * Mt);
        d_beta.ensure(size_t(F) * (Nn + 1) * Mt);
        d_post.ensure(size_t(F) * Nn * Q);
        std::vector<long long> packed_offset(count);
        long long words = 0;
        for (size_t j = 0; j < count; ++j) {
            packed_offset[j] = words;
            words += rho[j] / 64 + 2;
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
        BSID_CUDA(cudaMemset(d_post.get(), 0, sizeof(double) * size_t(F) * Nn * Q));
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
        p.mtlo = d_limits.mtau.lo;
        p.mthi = d_limits.mtau.hi;
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
        p.gamma = d_gamma.get();
        p.G = d_G.get();
        p.alpha = d_alpha.get();
        p.beta = d_beta.get();
        p.packed = d_packed.get();
        p.packed_offset = d_packed_offset.get();
        {
            const long long most = *std::max_element(rho.begin(), rho.end()) / 64 + 2;
            const dim3 grid(unsigned(std::min<long long>((most + 127) / 128, 65535)), unsigned(F));
            pack_kernel<<<grid, 128>>>(d_bits.get(), d_offset.get(), d_rho.get(),
                                       d_packed_offset.get(), d_packed.get(), F);
            BSID_CUDA(cudaGetLastError());
        }
        p.post = d_post.get();
        p.status = d_status.get();
        p.status_index = d_status_index.get();

        const size_t shared = sizeof(double) * size_t(d_ab_block);
        const int L_block = 256;
        // per-stage device time (bsid_bench), from events around each stage
        stage_clock clock(d_profiling);
        auto compute_gamma = [&](int i0, int Wc) {
            p.i0 = i0;
            p.Wc = Wc;
            clock.begin();
            launch_gamma(p);
            clock.end(stage_clock::gamma);
        };
        // forward, window by window
        for (int i0 = 0; i0 < Nn; i0 += int(W)) {
            const int Wc = std::min(int(W), Nn - i0);
            compute_gamma(i0, Wc);
            clock.begin();
            alpha_kernel<real><<<F, d_ab_block, shared>>>(p);
            BSID_CUDA(cudaGetLastError());
            clock.end(stage_clock::alpha);
        }
        // backward, windows in reverse (global storage: the one window is still there)
        const int last0 = ((Nn - 1) / int(W)) * int(W);
        for (int i0 = last0; i0 >= 0; i0 -= int(W)) {
            const int Wc = std::min(int(W), Nn - i0);
            if (recompute) {
                compute_gamma(i0, Wc);
            } else {
                p.i0 = i0;
                p.Wc = Wc;
            }
            clock.begin();
            beta_kernel<real><<<F, d_ab_block, shared>>>(p);
            BSID_CUDA(cudaGetLastError());
            clock.end(stage_clock::beta);
            clock.begin();
            L_kernel<real><<<F * Wc, L_block, sizeof(double) * L_block>>>(p);
            BSID_CUDA(cudaGetLastError());
            clock.end(stage_clock::L);
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
            BSID_CUDA(cudaMallocHost(reinterpret_cast<void**>(&d_staging), nout * sizeof(double)));
            d_staging_count = nout;
        }
        BSID_CUDA(cudaMemcpy(d_staging, d_post.get(), nout * sizeof(double), cudaMemcpyDeviceToHost));
        const double* out = d_staging;
        // copy the posteriors out on all cores (tens of MB per batch)
#pragma omp parallel for schedule(static)
        for (long long jj = 0; jj < (long long)count; ++jj) {
            const size_t j = size_t(jj), k = todo[pos + j];
            if (status[j] == st_ok) {
                std::copy(out + j * size_t(Nn) * Q, out + (j + 1) * size_t(Nn) * Q, post[k]);
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

    // gamma with the lattice row in registers when the corridor is short enough
    void launch_gamma(const launch_params<real>& p)
    {
        const int Mn = p.Mn;
        // registers when the corridor and the segment are short enough; the
        // general kernel (row in global scratch) otherwise
        const bool reg = Mn <= 32 && p.n + d_limits.mn.hi <= 64;
        const bool pow2 = (p.q & (p.q - 1)) == 0;
        const int fuse = reg && pow2 && p.q <= 32;
        const int chunks = int((size_t(p.Mt) * size_t(p.q) + 255) / 256);
        const unsigned grid = unsigned(size_t(p.F) * size_t(p.Wc) * size_t(chunks));
        if (reg) {
            gamma_reg_launchers<real>()[size_t(Mn - 1)](grid, p, chunks, fuse);
        } else {
            // lattice rows in global memory: one row of Mn values per resident thread
            d_scratch.ensure(size_t(Mn) * size_t(d_gamma_block) * size_t(d_gamma_grid));
            gamma_kernel<real><<<d_gamma_grid, d_gamma_block>>>(p, d_scratch.get());
        }
        BSID_CUDA(cudaGetLastError());
        if (!fuse) {
            gamma_sum_kernel<real><<<d_sum_grid, d_sum_block>>>(p);
            BSID_CUDA(cudaGetLastError());
        }
    }

    int d_device = 0;
    size_t d_peak_bytes = 0, d_baseline_used = 0;
    cudaDeviceProp d_prop{};
    lattice_weights<real> d_w{};
    device_buffer<uint32_t> d_words;
    device_buffer<real> d_gamma, d_G, d_alpha, d_beta, d_scratch, d_priors;
    device_buffer<double> d_post;
    device_buffer<uint8_t> d_bits;
    device_buffer<long long> d_offset, d_rho, d_packed_offset;
    device_buffer<int> d_has_prior, d_status, d_status_index;
    device_buffer<unsigned long long> d_packed;
    double* d_staging = nullptr; // pinned host copy of d_post
    size_t d_staging_count = 0;
    size_t cached_bytes() const
    {
        return d_gamma.bytes() + d_G.bytes() + d_alpha.bytes() + d_beta.bytes() + d_post.bytes() +
               d_scratch.bytes();
    }
    void release_cache()
    {
        d_gamma.release();
        d_G.release();
        d_alpha.release();
        d_beta.release();
        d_post.release();
        d_scratch.release();
    }
    int d_gamma_block = 128, d_gamma_grid = 1, d_sum_block = 128, d_sum_grid = 1, d_ab_block = 128;
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
