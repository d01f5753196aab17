/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The general lattice kernel (any corridor width and codeword length) and the
// kernel that packs the received bits for the register kernels; see
// lattice_kernels.cuh for the two passes.

#include "codeword_lattice.cuh"
#include "cuda_check.h"
#include "kernel_launchers.h"
#include "lattice_kernels.cuh"
#include "launch_plan.h"
#include <gnuradio/bsid/core/inner/model.h>
#include <algorithm>

namespace bsid {
namespace cuda {

/*
 * The general lattice kernel: any corridor width and codeword length, the
 * step weights as they are (lattice_weights::ratio), with the bounds of the
 * frame tested per cell. A grid-stride loop over the warp items (frame, i,
 * 32 states). Each thread's lattice row and its sums (aux), 2 Mn values, are
 * in shared memory (SHARED: column k of thread t at k * blockDim + t of the
 * block's dynamic shared memory) or, when they do not fit there, in global
 * scratch (column k of thread t at scratch[k * nthreads + t]).
 */
template <typename real, bool SHARED, bool LETTERS>
__global__ void lattice_kernel_general(launch_params<real> p, real* scratch, int pass)
{
    extern __shared__ __align__(16) unsigned char general_rows[];
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long total_warps = nthreads >> 5;
    const int lane = threadIdx.x & 31;
    // the distance between a thread's columns
    const long long stride = SHARED ? (long long)blockDim.x : nthreads;
    real* row =
        SHARED ? reinterpret_cast<real*>(general_rows) + threadIdx.x : scratch + tid;
    real* aux = row + (long long)p.Mn * stride;
    const long long items = (long long)p.F * p.Wc * p.nwarps;
    for (long long it = tid >> 5; it < items; it += total_warps) {
        const int w = int(it % p.nwarps);
        const long long fi = it / p.nwarps;
        const int f = int(fi / p.Wc);
        const int iw = int(fi - (long long)f * p.Wc);
        if (pass == pass_L && p.status[f] != st_ok)
            continue; // the whole warp
        const int i = p.i0 + iw;
        const int a = 32 * w + lane;
        const long long fw = (long long)f * p.W + iw;
        const long long mprime = p.mtlo + a;
        const long long start = (long long)p.n * i + mprime;
        const long long rho = p.rho[f];
        const bool inside = a < p.Mt && start >= 0 && start <= rho;
        bool any = false;
        if (pass == pass_L) {
            const double al = inside
                                  ? p.alpha[((long long)f * (p.N + 1) + i) * p.Mt + a] *
                                        lattice_pass_L_scale(p, f, i)
                                  : 0.0;
            const double* bn = p.beta + ((long long)f * (p.N + 1) + i + 1) * p.Mt;
            for (int e = 0; e < p.Mn; ++e) {
                const int b = a + p.dlo + e;
                const real v =
                    (inside && b >= 0 && b < p.Mt) ? real(al * bn[b]) : real(0);
                aux[(long long)e * stride] = v;
                any = any || v != real(0);
            }
            if (!__any_sync(0xffffffffu, any)) {
                real* out = p.Lpart + (fw * p.nwarps + w) * p.q;
                for (int D = lane; D < p.q; D += 32)
                    out[D] = real(0);
                continue;
            }
        } else {
            for (int e = 0; e < p.Mn; ++e)
                aux[(long long)e * stride] = real(0);
        }
        const long long avail = inside ? rho - start : -1;
        const long long first = p.offset[f] + (inside ? start : 0);
        const uint8_t* y = p.soft ? nullptr : p.bits + first;
        const int per_item = LETTERS ? p.A : 2; // a soft item's probabilities
        const real* sw = p.soft ? p.soft + per_item * first : nullptr; // soft input
        const uint32_t* words = p.words + (long long)(i % p.P) * p.q;
        const bool pr = p.priors && p.has_prior[f];
        const real* prior = pr ? p.priors + ((long long)f * p.N + i) * p.q : nullptr;
        const uint32_t top = first_place(p.n, p.A, LETTERS);
        for (int D = 0; D < p.q; ++D) {
            real s = real(0);
            if (inside) {
                codeword_lattice<real, LETTERS>(
                    row, stride, words[D], top, p, p, y, sw, avail);
                if (pass == pass_G) {
                    const real wD = pr ? prior[D] : real(1);
                    for (int e = 0; e < p.Mn; ++e)
                        aux[(long long)e * stride] += wD * row[(long long)e * stride];
                } else {
                    // without the prior: finish_kernel applies it in double
                    for (int e = 0; e < p.Mn; ++e)
                        s += row[(long long)e * stride] * aux[(long long)e * stride];
                }
            }
            if (pass == pass_L) {
                s = warp_sum(s);
                if (lane == 0)
                    p.Lpart[(fw * p.nwarps + w) * p.q + D] = s;
            }
        }
        if (pass == pass_G && a < p.Mt) {
            // row n: node e ends at drift d = dlo + e; keep the ends inside m_tau
            for (int e = 0; e < p.Mn; ++e) {
                const int b = a + p.dlo + e;
                p.G[(fw * p.Mn + e) * p.Mt + a] =
                    (b >= 0 && b < p.Mt) ? aux[(long long)e * stride] : real(0);
            }
        }
    }
}

// The received bits, 64 to a word after one word of padding (bit j of word
// w is bit 64 (w - 1) + j), so that a lattice reads its segment with two loads.
// One warp per word: each lane reads two of its bytes (consecutive lanes,
// consecutive bytes) and two ballots make the word.
__global__ void pack_kernel(const uint8_t* bits,
                            const long long* offset,
                            const long long* rho,
                            const long long* packed_offset,
                            unsigned long long* packed,
                            int F)
{
    const int f = blockIdx.y;
    if (f >= F)
        return;
    const long long words = rho[f] / 64 + 3, r = rho[f];
    const uint8_t* in = bits + offset[f];
    const int lane = threadIdx.x & 31;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w < words;
         w += warps) {
        const long long t = 64 * (w - 1) + lane; // and t + 32
        const bool lo = t >= 0 && t < r && in[t] != 0;
        const bool hi = t + 32 >= 0 && t + 32 < r && in[t + 32] != 0;
        const unsigned blo = __ballot_sync(0xffffffffu, lo),
                       bhi = __ballot_sync(0xffffffffu, hi);
        if (lane == 0)
            packed[packed_offset[f] + w] = (unsigned long long)bhi << 32 | blo;
    }
}

// Soft input: each item's LLR as its probabilities w(0), w(1) in the
// decoder's precision, computed in double (model::llr_probabilities).
template <typename real>
__global__ void soft_items_kernel(const double* llr, real* out, long long total)
{
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total;
         t += (long long)gridDim.x * blockDim.x) {
        double w0, w1;
        model::llr_probabilities(llr[t], w0, w1);
        out[2 * t] = real(w0);
        out[2 * t + 1] = real(w1);
    }
}

template <typename real>
void launch_soft_items(const double* llr, real* out, long long total)
{
    if (total <= 0)
        return;
    const unsigned grid = unsigned(std::min<long long>((total + 255) / 256, 65535));
    soft_items_kernel<real><<<grid, 256>>>(llr, out, total);
    BSID_CUDA(cudaGetLastError());
}

template void launch_soft_items<float>(const double*, float*, long long);
template void launch_soft_items<double>(const double*, double*, long long);

template <typename real>
__global__ void cast_items_kernel(const double* w, real* out, long long total)
{
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total;
         t += (long long)gridDim.x * blockDim.x)
        out[t] = real(w[t]);
}

template <typename real>
void launch_cast_items(const double* w, real* out, long long total)
{
    if (total <= 0)
        return;
    const unsigned grid = unsigned(std::min<long long>((total + 255) / 256, 65535));
    cast_items_kernel<real><<<grid, 256>>>(w, out, total);
    BSID_CUDA(cudaGetLastError());
}

template void launch_cast_items<float>(const double*, float*, long long);
template void launch_cast_items<double>(const double*, double*, long long);

template <typename real>
void launch_lattice_general(const general_shape& g,
                            const launch_params<real>& p,
                            real* scratch,
                            int pass)
{
    const bool letters = p.A > 2;
    if (g.shared_bytes > 0) {
        if (letters)
            lattice_kernel_general<real, true, true>
                <<<g.grid, g.block, g.shared_bytes>>>(p, nullptr, pass);
        else
            lattice_kernel_general<real, true, false>
                <<<g.grid, g.block, g.shared_bytes>>>(p, nullptr, pass);
    } else if (letters) {
        lattice_kernel_general<real, false, true><<<g.grid, g.block>>>(p, scratch, pass);
    } else {
        lattice_kernel_general<real, false, false><<<g.grid, g.block>>>(p, scratch, pass);
    }
    BSID_CUDA(cudaGetLastError());
}

template <typename real>
general_shape plan_general(int Mn, const cudaDeviceProp& prop, bool letters)
{
    general_shape g;
    const size_t per_thread = 2 * sizeof(real) * size_t(std::max(Mn, 1));
    const int block = plan_general_block(per_thread, size_t(prop.sharedMemPerBlockOptin));
    if (block >= 32) {
        const auto kernel = letters ? lattice_kernel_general<real, true, true>
                                    : lattice_kernel_general<real, true, false>;
        const size_t bytes = per_thread * size_t(block);
        BSID_CUDA(cudaFuncSetAttribute(
            kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
        int per_sm = 0;
        BSID_CUDA(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, bytes));
        if (per_sm >= 1) {
            g.block = block;
            g.grid = per_sm * prop.multiProcessorCount;
            g.shared_bytes = bytes;
            return g;
        }
    }
    // the rows in global scratch (2 Mn values per thread): the occupancy
    // API's block and grid, the grid within 32 MiB of rows (the grid-stride
    // loop covers any number of items)
    int min_grid = 0, b = 0;
    BSID_CUDA(cudaOccupancyMaxPotentialBlockSize(
        &min_grid,
        &b,
        letters ? lattice_kernel_general<real, false, true>
                : lattice_kernel_general<real, false, false>,
        0,
        0));
    g.block = std::max(32, b / 32 * 32);
    const size_t most =
        std::max<size_t>(1, (size_t(32) << 20) / (per_thread * size_t(g.block)));
    g.grid = int(std::max<size_t>(1, std::min<size_t>(size_t(min_grid), most)));
    g.scratch_items = 2 * size_t(std::max(Mn, 1)) * size_t(g.block) * size_t(g.grid);
    return g;
}

template void launch_lattice_general<float>(const general_shape&,
                                            const launch_params<float>&,
                                            float*,
                                            int);
template void launch_lattice_general<double>(const general_shape&,
                                             const launch_params<double>&,
                                             double*,
                                             int);
template general_shape plan_general<float>(int, const cudaDeviceProp&, bool);
template general_shape plan_general<double>(int, const cudaDeviceProp&, bool);

void launch_pack(const uint8_t* bits,
                 const long long* offset,
                 const long long* rho,
                 const long long* packed_offset,
                 unsigned long long* packed,
                 int F,
                 long long most_words)
{
    // a warp per word, 4 to a block
    const dim3 grid(unsigned(std::min<long long>((most_words + 3) / 4, 65535)),
                    unsigned(F));
    pack_kernel<<<grid, 128>>>(bits, offset, rho, packed_offset, packed, F);
    BSID_CUDA(cudaGetLastError());
}

} // namespace cuda
} // namespace bsid
