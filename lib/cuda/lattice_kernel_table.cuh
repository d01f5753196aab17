/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Pass L from the position table (launch_params::T, plan_position_table):
// included by the lattice_letters_*.cu files only.

#ifndef INCLUDED_BSID_CUDA_LATTICE_KERNEL_TABLE_CUH
#define INCLUDED_BSID_CUDA_LATTICE_KERNEL_TABLE_CUH

#include "lattice_kernels.cuh"
#include <algorithm>
#include <array>
#include <utility>

namespace bsid {
namespace cuda {

// The indices a thread of lattice_table_kernel sums for: as many corridors
// of sums as fit in about 48 registers, 1 to 8.
constexpr int table_tile_of(int regs, int Mn)
{
    const int k = regs / Mn;
    return k < 1 ? 1 : k > 8 ? 8 : k;
}
template <int MN>
constexpr int table_tile = table_tile_of(48, MN);

/*
 * Pass L where pass G left, by position, the last row R(a, . | D) of every
 * codeword's lattice from every received position (lattice_kernel_reg over
 * letters with launch_params::T): the lattices depend on the position and the
 * book alone, so pass L need not make them again for every index and state.
 *
 * Block (f, tile, chunk): frame f, the window's indices tile K .. tile K + K
 * - 1 (K = table_tile), and states chunk blockDim + threadIdx. A thread makes
 * its sums alpha beta (aux) at each of the K indices exactly as
 * lattice_kernel_reg's pass L does, then, codeword by codeword, reads the
 * row at its position for each index and sums it against them. With the
 * codeword outermost, the K indices' rows (positions n apart, each warp's
 * overlapping the next index's) are read from the L1 cache after the first.
 * The products, their order and the warps' sums are those of
 * lattice_kernel_reg: Lpart bit for bit. Frames with priors are left to
 * lattice_kernel_reg (pass G made theirs by index, without the table).
 */
template <typename real, int MN>
__global__ void __launch_bounds__(reg_block)
    lattice_table_kernel(launch_params<real> p, int chunks, int tiles)
{
    constexpr int K = table_tile<MN>;
    const int ft = blockIdx.x / chunks;
    const int chunk = blockIdx.x - ft * chunks;
    const int f = ft / tiles;
    const int tile = ft - f * tiles;
    const int a = chunk * int(blockDim.x) + int(threadIdx.x);
    if ((a & ~31) >= p.Mt)
        return; // whole warps past the states
    if (p.status[f] != st_ok || p.has_prior[f] != 0)
        return; // the whole block
    const int w = a >> 5;
    const long long rho = p.rho[f];
    const real scale = p.out_scale;
    real* Lf = p.Lpart + (long long)f * p.W * p.nwarps * p.q;
    const real* Tf = p.T + f * p.T_stride;
    const long long plane = (long long)p.Mn * p.T_span; // a codeword's rows

    real aux[K][MN];    // alpha(a) beta(a + d) at each index of the tile
    bool live[K];       // some lane of the warp has a term there
    const real* row[K]; // the index's first row at the state's position
#pragma unroll
    for (int r = 0; r < K; ++r) {
        const int iw = tile * K + r;
        // indices past the window and states past M_tau read a row
        // inside the table and sum it with zeros: no term, and no output
        // (the old kernel's lanes past M_tau summed finite rows with zeros)
        const int iw_in = iw < p.Wc ? iw : p.Wc - 1;
        const int pos = p.n * iw_in + (a < p.Mt ? a : p.Mt - 1);
        row[r] = Tf + (long long)(iw_in % p.T_books) * p.q * plane +
                 (long long)(pos >> 5) * 32 * p.Mn + (pos & 31);
        live[r] = false;
#pragma unroll
        for (int e = 0; e < MN; ++e)
            aux[r][e] = real(0);
        if (iw >= p.Wc)
            continue; // (the same for the whole block)
        const int i = p.i0 + iw;
        const long long start = (long long)p.n * i + p.mtlo + a;
        const bool inside = a < p.Mt && start >= 0 && start <= rho;
        const unsigned long long keep =
            inside ? lattice_keep_mask(rho - start - p.dlo, p.n) | ~((1ull << MN) - 1ull)
                   : ~0ull;
        const double al = inside ? p.alpha[((long long)f * (p.N + 1) + i) * p.Mt + a] *
                                       lattice_pass_L_scale(p, f, i)
                                 : 0.0;
        const double* bn = p.beta + ((long long)f * (p.N + 1) + i + 1) * p.Mt;
        bool any = false;
#pragma unroll
        for (int e = 0; e < MN; ++e) {
            const int b = a + p.dlo + e;
            const bool counts = inside && b >= 0 && b < p.Mt && ((keep >> e) & 1ull) != 0;
            aux[r][e] = counts ? real(al * bn[b] * double(scale)) : real(0);
            any = any || aux[r][e] != real(0);
        }
        live[r] = __any_sync(0xffffffffu, any);
        if (!live[r]) {
            real* Lout = Lf + ((long long)iw * p.nwarps + w) * p.q;
            for (int D = threadIdx.x & 31; D < p.q; D += 32)
                Lout[D] = real(0);
        }
    }

    // every index's sum at once, so that their loads, multiply-adds and
    // the warps' sums overlap (each alone waits on its loads and then on
    // its shuffles: 12 cycles an instruction)
    for (int D = 0; D < p.q; ++D) {
        real s[K];
#pragma unroll
        for (int r = 0; r < K; ++r)
            s[r] = real(0);
#pragma unroll
        for (int e = 0; e < MN; ++e) {
#pragma unroll
            for (int r = 0; r < K; ++r)
                s[r] = fma(__ldg(row[r] + 32 * e), aux[r][e], s[r]);
        }
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
#pragma unroll
            for (int r = 0; r < K; ++r)
                s[r] += __shfl_xor_sync(0xffffffffu, s[r], o);
        }
        if ((threadIdx.x & 31) == 0) {
#pragma unroll
            for (int r = 0; r < K; ++r)
                if (live[r])
                    Lf[((long long)(tile * K + r) * p.nwarps + w) * p.q + D] = s[r];
        }
#pragma unroll
        for (int r = 0; r < K; ++r)
            row[r] += plane;
    }
}

// Threads per block of lattice_table_kernel: the states in whole warps, up
// to reg_block (no idle warp beside M_tau = 92's three).
inline int plan_table_block(int Mt) { return std::min(reg_block, (Mt + 31) / 32 * 32); }

template <typename real, int MN>
void launch_lattice_table(const launch_params<real>& p)
{
    constexpr int K = table_tile<MN>;
    const int block = plan_table_block(p.Mt);
    const int chunks = (p.Mt + block - 1) / block;
    const int tiles = (p.Wc + K - 1) / K;
    lattice_table_kernel<real, MN>
        <<<unsigned(size_t(p.F) * size_t(tiles) * size_t(chunks)), unsigned(block)>>>(
            p, chunks, tiles);
}

template <typename real, int... M>
std::array<table_launcher<real>, sizeof...(M)>
make_lattice_table_table(std::integer_sequence<int, M...>)
{
    return { { &launch_lattice_table<real, M + 1>... } };
}

} // namespace cuda
} // namespace bsid

// The table kernels of one precision per translation unit.
#define BSID_LATTICE_TABLE_TABLE(REAL)                                \
    namespace bsid {                                                  \
    namespace cuda {                                                  \
    template <>                                                       \
    const table_launcher<REAL>* lattice_table_table<REAL>()           \
    {                                                                 \
        static const auto table = make_lattice_table_table<REAL>(     \
            std::make_integer_sequence<int, letters_max_corridor>{}); \
        return table.data();                                          \
    }                                                                 \
    }                                                                 \
    }

#endif /* INCLUDED_BSID_CUDA_LATTICE_KERNEL_TABLE_CUH */
