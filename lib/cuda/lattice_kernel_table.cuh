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

#include "lattice_terms.cuh"
#include <algorithm>
#include <array>
#include <utility>

namespace bsid {
namespace cuda {

// The indices a block of lattice_table_kernel sums for at most: as many
// corridors of terms as fit in about 48 registers a thread, 1 to 8.
constexpr int table_tile_of(int regs, int Mn)
{
    const int k = regs / Mn;
    return k < 1 ? 1 : k > 8 ? 8 : k;
}
template <int MN>
constexpr int table_tile = table_tile_of(48, MN);

// The sums a block of lattice_table_kernel keeps in shared memory between
// its reductions: table_group codewords x K indices x reg_block states
// (each warp's 32 one place apart, table_pad: no bank conflicts).
template <int K>
constexpr int table_group = 32 / K;
__host__ __device__ constexpr int table_pad(int t) { return t + t / 32; }
constexpr int table_states_padded = table_pad(reg_block);
static_assert(reg_block >= 128, "plan_table_launch's states fit the sums");

/*
 * Pass L where pass G left, by position, the last row R(a, . | D) of every
 * codeword's lattice from every received position (lattice_kernel_reg over
 * letters with launch_params::T): the lattices depend on the position and the
 * book alone, so pass L need not make them again for every index and state.
 *
 * A block sums k indices of one book (k <= table_tile, plan_table_launch):
 * iw_r = c + P (g k + r), r < k, where P = T_books, c the book and g the
 * block's tile of it, for the states S c' .. S c' + S - 1 (S =
 * plan_table_launch's states, c' the chunk). Index iw_r's state S c' + t starts at
 * position n iw_0 + S c' + t + n P r, so thread j of the block holds the
 * position n iw_0 + S c' + j and, for each r, the state t = j - n P r: it
 * reads each row of the table once for all k indices (by index, each state
 * reads it again for each index that starts a state there). Its terms
 * alpha beta (pass_l_terms), the products and their order are pass L's by
 * index. Codewords go in groups of table_group: each thread leaves its sums
 * in shared memory, then one thread a warp of states, index and codeword
 * adds the warp's 32 sums in warp_sum's order (lane_tree_sum): Lpart bit for
 * bit, without the 5 shuffles a sum of every lane. Frames with priors are
 * left to lattice_kernel_reg (pass G made theirs by index, without the
 * table).
 */
template <typename real, int MN>
__global__ void __launch_bounds__(table_block_max)
    lattice_table_kernel(launch_params<real> p, int chunks, int tiles, int S, int k)
{
    constexpr int K = table_tile<MN>;
    constexpr int G = table_group<K>;
    __shared__ real sums[G][K][table_states_padded];
    const int P = p.T_books;
    const int ft = blockIdx.x / chunks;
    const int chunk = blockIdx.x - ft * chunks;
    const int fc = ft / tiles;
    const int g = ft - fc * tiles;
    const int f = fc / P;
    const int c = fc - f * P; // the book
    const int iw0 = c + P * g * k;
    if (iw0 >= p.Wc || p.status[f] != st_ok || p.has_prior[f] != 0)
        return; // the whole block
    const int j = int(threadIdx.x);
    const int nP = p.n * P;
    const int s0 = chunk * S;                           // the block's first state
    const long long plane = (long long)p.Mn * p.T_span; // a codeword's rows
    // the thread's position, inside the part of the table pass G made
    // (threads past every index's states read a row there and sum nothing)
    const int pos = min(p.n * iw0 + s0 + j, p.n * (p.Wc - 1) + p.Mt - 1);
    const real* row = p.T + f * p.T_stride + (long long)c * p.q * plane +
                      (long long)(pos >> 5) * 32 * p.Mn + (pos & 31);

    real aux[K][MN]; // the terms of (r, state j - n P r), or 0
    bool term[K];    // whether the thread holds a state of index r
#pragma unroll
    for (int r = 0; r < K; ++r) {
        const int t = j - nP * r;
        const int iw = iw0 + P * r;
        term[r] = r < k && iw < p.Wc && t >= 0 && t < S;
        if (term[r])
            pass_l_terms<real, MN>(p, f, p.i0 + iw, s0 + t, aux[r]);
        else {
#pragma unroll
            for (int e = 0; e < MN; ++e)
                aux[r][e] = real(0);
        }
    }

    // the reductions: item u of a group is (codeword d, index r, warp of
    // states v), v fastest; warps past M_tau have none
    const int nw = min(S, p.Mt - s0 + 31) >> 5;
    for (int D0 = 0; D0 < p.q; D0 += G) {
        const int dg = min(G, p.q - D0);
        for (int d = 0; d < dg; ++d) {
            real v[MN];
#pragma unroll
            for (int e = 0; e < MN; ++e)
                v[e] = __ldg(row + 32 * e);
            row += plane;
            real sr[K];
#pragma unroll
            for (int r = 0; r < K; ++r)
                sr[r] = real(0);
#pragma unroll
            for (int e = 0; e < MN; ++e) {
#pragma unroll
                for (int r = 0; r < K; ++r)
                    sr[r] = fma(v[e], aux[r][e], sr[r]);
            }
#pragma unroll
            for (int r = 0; r < K; ++r) {
                const int t = j - nP * r;
                if (term[r]) // a state past M_tau sums 0 (its row may be unset)
                    sums[d][r][table_pad(t)] = s0 + t < p.Mt ? sr[r] : real(0);
            }
        }
        __syncthreads();
        if (j < dg * k * nw) {
            const int v = j % nw;
            const int dr = j / nw;
            const int r = dr % k;
            const int d = dr / k;
            const int iw = iw0 + P * r;
            if (iw < p.Wc) {
                const real x = lane_tree_sum(&sums[d][r][table_pad(32 * v)]);
                const int w = (s0 >> 5) + v;
                p.Lpart[(((long long)f * p.W + iw) * p.nwarps + w) * p.q + D0 + d] = x;
            }
        }
        __syncthreads();
    }
}

template <typename real, int MN>
void launch_lattice_table(const launch_params<real>& p)
{
    const table_launch t = plan_table_launch(p.n, p.T_books, p.Mt, p.Wc, table_tile<MN>);
    lattice_table_kernel<real, MN>
        <<<unsigned(size_t(p.F) * size_t(p.T_books) * size_t(t.tiles) * size_t(t.chunks)),
           unsigned(t.block)>>>(p, t.chunks, t.tiles, t.states, t.tile);
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
