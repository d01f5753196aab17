/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The register lattice kernel (see lattice_kernels.cuh for the passes), and
// the table of its instances for one precision and band: included by the
// lattice_reg_*.cu files only.

#ifndef INCLUDED_BSID_CUDA_LATTICE_KERNEL_REG_CUH
#define INCLUDED_BSID_CUDA_LATTICE_KERNEL_REG_CUH

#include "lattice_terms.cuh"
#include <array>
#include <stdexcept>
#include <utility>

namespace bsid {
namespace cuda {

// The diagonal weights of one row, for the transmitted bit x: Wt(j) is the
// weight of a step into a node (r, k) with r + k = j, which consumes received
// bit j of the thread's segment. j must be a constant after unrolling.
// diag_regs: a table per value of x, made once per thread (W0, W1: the
// register kernels).
template <typename real, int J>
struct diag_regs {
    const real (&W)[J];
    __device__ __forceinline__ real operator()(int j) const { return W[j]; }
};
// diag_bits: the received bits themselves, bit j of m set where bit j equals
// x (the segment's bits, or their complement for x = 0): a bit test and a
// select per node instead of 2 (NMAX + MN) registers (the wide kernels in
// double, wide_bit_weights).
template <typename real>
struct diag_bits {
    unsigned long long m;
    real wmatch, wmismatch;
    __device__ __forceinline__ real operator()(int j) const
    {
        return ((m >> j) & 1ull) ? wmatch : wmismatch; // j < 64: one word
    }
};

// One row r < n of the scaled lattice, in place in registers
// (model::lattice_cell_unit_del): node k of row r gets Wt(r + k) (diagonal)
// times node k of row r - 1, plus node k + 1 of row r - 1 (the vertical step,
// weight 1 after scaling), plus ins (horizontal) times node k - 1 of row r.
// Two multiply-adds per node; the corridor's edges drop a term. KZ: the
// zero corner skipped (launch_plan.h, reg_corner_wide): nodes k < KZ - r are
// left at 0, and node KZ - r takes only its vertical step (its two other
// neighbours are 0). r must be a constant after unrolling. mn: the
// corridor's true width where the kernel's MN is padded (the wide kernels,
// wide_corridor): node mn takes no horizontal step, so that it and the nodes
// above it stay 0 and feed nothing back (only the last 7 nodes test it).
// FRESH: row r - 1 is read from cur and row r written to dst, another array
// (whose nodes in the corner are then written 0); otherwise cur and dst are
// the same array, updated in place (lattice_row).
template <typename real,
          int MN,
          int KZ = 0,
          bool PAD = false,
          bool FRESH = false,
          typename DIAG>
__device__ __forceinline__ void lattice_row_to(
    const real (&cur)[MN], real (&dst)[MN], const DIAG& Wt, real ins, int r, int mn = MN)
{
    real prev = real(0);
#pragma unroll
    for (int k = 0; k < MN; ++k) {
        const real h = PAD && k > MN - 8 ? (k < mn ? ins : real(0)) : ins;
        if (k < KZ - r) {
            if (FRESH)
                dst[k] = real(0);
            continue; // 0 in row r - 1 and in row r
        } else if (k == KZ - r) {
            prev = k + 1 < MN ? cur[k + 1 < MN ? k + 1 : k] : real(0);
        } else if (k == 0) {
            prev = (k + 1 < MN) ? model::lattice_last_cell_unit_del(
                                      Wt(r + k), cur[k], cur[k + 1 < MN ? k + 1 : k])
                                : Wt(r + k) * cur[k];
        } else {
            prev =
                (k + 1 < MN)
                    ? model::lattice_cell_unit_del(
                          Wt(r + k), cur[k], cur[k + 1 < MN ? k + 1 : k], h, prev)
                    : model::lattice_cell_unit_del(Wt(r + k), cur[k], real(0), h, prev);
        }
        dst[k] = prev;
    }
}
template <typename real, int MN, int KZ = 0, bool PAD = false, typename DIAG>
__device__ __forceinline__ void
lattice_row(real (&cur)[MN], const DIAG& Wt, real ins, int r, int mn = MN)
{
    lattice_row_to<real, MN, KZ, PAD, false>(cur, cur, Wt, ins, r, mn);
}

// Row n: no horizontal steps (eqn:F_lastrow); KZ as in lattice_row.
template <typename real, int MN, int KZ = 0, typename DIAG>
__device__ __forceinline__ void lattice_last_row(real (&cur)[MN], const DIAG& Wt, int r)
{
#pragma unroll
    for (int k = 0; k < MN; ++k) {
        if (k < KZ - r)
            continue;
        if (k == KZ - r) {
            cur[k] = k + 1 < MN ? cur[k + 1 < MN ? k + 1 : k] : real(0);
            continue;
        }
        cur[k] = (k + 1 < MN) ? model::lattice_last_cell_unit_del(
                                    Wt(r + k), cur[k], cur[k + 1 < MN ? k + 1 : k])
                              : Wt(r + k) * cur[k];
    }
}

// What a lattice kernel does with the last row of codeword D's lattice.
// Over letters (LB > 1), pass G by position with the position table
// (launch_params::T) also stores the row itself: Lout is then the thread's
// place in the table, node e of codeword D at Lout[D MN tspan + 32 e].
template <typename real, int MN, int LB = 1>
__device__ __forceinline__ void lattice_out(real (&aux)[MN],
                                            const real (&cur)[MN],
                                            real wD,
                                            int pass,
                                            real* Lout,
                                            int D,
                                            int tspan = 0)
{
    if (pass == pass_G) {
#pragma unroll
        for (int e = 0; e < MN; ++e)
            aux[e] = fma(wD, cur[e], aux[e]);
        if constexpr (LB > 1) {
            if (Lout) {
#pragma unroll
                for (int e = 0; e < MN; ++e)
                    Lout[(long long)D * MN * tspan + 32 * e] = cur[e];
            }
        }
    } else {
        // without the prior: finish_kernel applies it in double
        real s = real(0);
#pragma unroll
        for (int e = 0; e < MN; ++e)
            s = fma(cur[e], aux[e], s);
        s = warp_sum(s);
        if ((threadIdx.x & 31) == 0)
            Lout[D] = s;
    }
}

// The diagonal weights of a thread, for either transmitted bit: the two
// tables of the register kernels (row(x, f) calls f with the one for x;
// every lane of a warp takes the same branch) ...
template <typename real, int J>
struct weights_regs {
    const real (&W0)[J];
    const real (&W1)[J];
    template <typename F>
    __device__ __forceinline__ void row(unsigned x, F&& f) const
    {
        if (x)
            f(diag_regs<real, J>{ W1 });
        else
            f(diag_regs<real, J>{ W0 });
    }
};
// ... or the received bits of the thread's segment (the wide kernels) ...
template <typename real>
struct weights_bits {
    unsigned long long win;
    real wmatch, wmismatch;
    template <typename F>
    __device__ __forceinline__ void row(unsigned x, F&& f) const
    {
        unsigned long long m = x ? win : ~win;
        // opaque to the optimizer, so that it does not hoist the weights out
        // of the loop over the codewords (as two tables of NMAX + MN values,
        // the registers this form is for saving)
        asm volatile("" : "+l"(m));
        f(diag_bits<real>{ m, wmatch, wmismatch });
    }
};
// ... or, over A <= 4 letters with uniform substitutions and hard input, the
// received letters of the thread's segment, 2 bits each: per row a mask of
// the items equal to the row's letter, and a bit test and a select a node
// (diag_letter_bits; the letters kernels' LMASK form) ...
template <typename real>
struct diag_letter_bits {
    unsigned long long m; // bit 2 j: item j equals the row's letter
    real wmatch, wmismatch;
    __device__ __forceinline__ real operator()(int j) const
    {
        return ((m >> (2 * j)) & 1ull) ? wmatch : wmismatch; // j < 32
    }
};
template <typename real>
struct weights_letter_bits {
    unsigned long long ypk; // item j at bits 2 j, 2 j + 1
    real wmatch, wmismatch;
    template <typename F>
    __device__ __forceinline__ void row(unsigned x, F&& f) const
    {
        constexpr unsigned long long low = 0x5555555555555555ull;
        const unsigned long long z = ypk ^ (low * x); // 00 where item j is x
        unsigned long long m = ~(z | (z >> 1)) & low;
        asm volatile("" : "+l"(m)); // as weights_bits: no tables hoisted
        f(diag_letter_bits<real>{ m, wmatch, wmismatch });
    }
};
// ... or, over A <= AL letters, a table per letter (the letters kernels;
// every lane of a warp takes the same branch).
template <typename real, int J, int AL>
struct weights_letters {
    static_assert(AL == 4, "the letters kernels hold four tables");
    const real (&W)[AL][J];
    template <typename F>
    __device__ __forceinline__ void row(unsigned x, F&& f) const
    {
        if (x == 0)
            f(diag_regs<real, J>{ W[0] });
        else if (x == 1)
            f(diag_regs<real, J>{ W[1] });
        else if (x == 2)
            f(diag_regs<real, J>{ W[2] });
        else
            f(diag_regs<real, J>{ W[3] });
    }
};

// The loop over the codewords: each lattice from row 0 (p.row0) to row n in
// registers, then handed to lattice_out. words: the book's codewords, in
// increasing order where the kernel keeps rows (reg_checkpoint), index then
// their indices D (nullptr: D is the position). EXACT: n == NMAX and no
// renormalization, so that no row tests anything but its codeword bit, and
// rows 1..CK (reg_checkpoint) are kept for the next codeword: a run of
// codewords with the same first CK bits shares them, each of its others
// starting from row CK + 1 (written from the kept rows into its own); KZ
// (EXACT only): the zero corner skipped (plan_reg_corner). PAD: MN is the corridor padded
// (wide_corridor), p.Mn its width (lattice_row). LB: the bits a codeword
// letter takes in a word (1: bits; 4: launch_params::letter_words, no rows
// kept).
template <typename real,
          int MN,
          int NMAX,
          bool EXACT,
          int KZ = 0,
          bool PAD = false,
          int LB = 1,
          typename WEIGHTS>
__device__ __forceinline__ void lattice_codewords(const launch_params<real>& p,
                                                  const WEIGHTS& wts,
                                                  const uint32_t* words,
                                                  const int* index,
                                                  const real* prior,
                                                  real (&aux)[MN],
                                                  int pass,
                                                  real* Lout)
{
    constexpr int CK = EXACT && LB == 1 ? reg_checkpoint<real, NMAX> : 0;
    constexpr uint32_t letter_mask = (1u << LB) - 1u;
    static_assert(CK == 0 || CK + 1 < NMAX, "row CK + 1 is not the last");
    const int n = EXACT ? NMAX : p.n;
    const int mn = PAD ? p.Mn : MN;
    real kept[CK > 0 ? MN : 1]; // rows 1..CK of the run's codewords
    uint32_t prev = 0;
    for (int t = 0; t < p.q; ++t) {
        const uint32_t word = words[t];
        const int D = index ? index[t] : t;
        real cur[MN];
        if constexpr (CK > 0) {
            if (t == 0 || ((word ^ prev) >> (NMAX - CK)) != 0) {
                // a new run (the same branch in every lane)
#pragma unroll
                for (int k = 0; k < MN; ++k)
                    kept[k] = p.row0[k];
#pragma unroll
                for (int r = 1; r <= CK; ++r) {
                    const bool x = ((word >> (NMAX - r)) & 1u) != 0;
                    wts.row(x, [&](const auto& Wt) {
                        lattice_row<real, MN, KZ, PAD>(kept, Wt, p.ins, r, mn);
                    });
                }
            }
            prev = word;
            constexpr int r = CK + 1;
            const bool x = ((word >> (NMAX - r)) & 1u) != 0;
            wts.row(x, [&](const auto& Wt) {
                lattice_row_to<real, MN, KZ, PAD, true>(kept, cur, Wt, p.ins, r, mn);
            });
        } else {
#pragma unroll
            for (int k = 0; k < MN; ++k)
                cur[k] = p.row0[k]; // 0 past the corridor's width
        }
#pragma unroll
        for (int r = CK > 0 ? CK + 2 : 1; r <= NMAX; ++r) {
            const unsigned x = (word >> (LB * (n - r))) & letter_mask;
            if (r < n) {
                wts.row(x, [&](const auto& Wt) {
                    lattice_row<real, MN, KZ, PAD>(cur, Wt, p.ins, r, mn);
                });
                if (!EXACT && ((p.renorm_rows >> r) & 1u)) {
#pragma unroll
                    for (int k = 0; k < MN; ++k)
                        cur[k] *= p.renorm_factor;
                }
            } else if (r == n) {
                wts.row(x, [&](const auto& Wt) {
                    lattice_last_row<real, MN, KZ>(cur, Wt, r);
                    if constexpr (EXACT)
                        lattice_out<real, MN, LB>(aux,
                                                  cur,
                                                  prior ? prior[D] : real(1),
                                                  pass,
                                                  Lout,
                                                  D,
                                                  p.T_span);
                });
            }
        }
        // the exact loop's output is inside the last row's branch on its
        // bit, which the compiler then keeps a branch (alone, the last row
        // took its weights by a select a node)
        if constexpr (!EXACT)
            lattice_out<real, MN, LB>(
                aux, cur, prior ? prior[D] : real(1), pass, Lout, D, p.T_span);
    }
}

// lattice_codewords in the form that fits the codewords and channel:
// codewords of exactly NMAX bits without renormalization (the common case)
// run a loop with no tests per row, with the zero corner skipped where m_n^-
// allows (plan_reg_corner); the others test each row.
template <typename real, int MN, int NMAX, bool PAD, int LB = 1, typename WEIGHTS>
__device__ __forceinline__ void lattice_all_codewords(const launch_params<real>& p,
                                                      const WEIGHTS& wts,
                                                      const uint32_t* words,
                                                      const int* index,
                                                      const real* prior,
                                                      real (&aux)[MN],
                                                      int pass,
                                                      real* Lout)
{
    if (p.n == NMAX && p.renorm_rows == 0) {
        constexpr int CW = reg_corner<NMAX, MN>::wide, CN = reg_corner<NMAX, MN>::narrow;
        const int k0 = -p.dlo;
        if (CW > 0 && k0 >= CW) {
            lattice_codewords<real, MN, NMAX, true, CW, PAD, LB>(
                p, wts, words, index, prior, aux, pass, Lout);
        } else if (CN > 0 && CN < CW && k0 >= CN) {
            lattice_codewords<real, MN, NMAX, true, (CN < CW ? CN : 0), PAD, LB>(
                p, wts, words, index, prior, aux, pass, Lout);
        } else {
            lattice_codewords<real, MN, NMAX, true, 0, PAD, LB>(
                p, wts, words, index, prior, aux, pass, Lout);
        }
    } else {
        lattice_codewords<real, MN, NMAX, false, 0, PAD, LB>(
            p, wts, words, index, prior, aux, pass, Lout);
    }
}

/*
 * The register lattice kernel, for a corridor of exactly MN <= reg_max_corridor nodes and
 * codewords of n <= NMAX bits; the received segment of a thread is one
 * 64-bit word (NMAX + MN <= 64), bit j = r + k being the bit that a step into
 * node (r, k) consumes.
 *
 * Row r of the lattice is divided by del^r (renormalized every few rows),
 * so that the vertical step weighs 1 and a node costs two multiply-adds; the
 * diagonal weights depend on the received bit only, so each thread makes
 * them once, for both values of the transmitted bit (W0, W1), before it
 * loops over the codewords, and the rows are unrolled so that every weight
 * sits in a register. Every warp takes this path: near a frame's end the
 * last row's nodes past the end (lattice_keep_mask) count for nothing, their
 * sums over D stored as 0 (pass G) and their alpha beta taken as 0 (pass L),
 * once a thread rather than once a codeword; nodes before a frame's start
 * are the zero corner.
 *
 * SOFT: the batch's items are probabilities (launch_params::soft), not bits;
 * a separate instance, so that hard input pays nothing for soft input.
 *
 * WIDE (hard input only): the wide kernels, for corridors and codewords
 * whose two weight tables (2 (NMAX + MN) values) do not fit in registers
 * beside the row and its sums (2 MN) at the register kernels' occupancy:
 * 2 blocks per SM, and in double each node takes its diagonal weight from
 * its received bit (diag_bits: a bit test and a select; wide_bit_weights);
 * MN is the corridor rounded up to a multiple of 8 (wide_corridor; the
 * nodes past p.Mn stay 0), and NMAX + MN <= 64.
 *
 * AL = 4 (the letters kernels): over an alphabet of A = 3 or 4 letters, the
 * diagonal weights a table per letter (weights_letters) made from the
 * received letters, or from soft items' probabilities (p.soft, read in the
 * same instance: the tables are made once per thread), and the codewords
 * from p.letter_words; no rows kept. LMASK: hard letters with uniform
 * substitutions (launch_params::letters_uniform), a match mask per row
 * instead of the tables (weights_letter_bits; the tables' registers spill).
 * With the position table (launch_params::T), pass G by position stores each
 * codeword's last row there, and pass L runs here only for the frames with
 * priors (l_prior_frames; the others': lattice_table_kernel).
 */
template <typename real,
          int MN,
          int NMAX,
          bool SOFT,
          bool WIDE = false,
          int AL = 2,
          bool LMASK = false>
__global__ void __launch_bounds__(reg_block,
                                  (AL > 2 ? letters_min_blocks<real>
                                   : WIDE ? wide_min_blocks
                                          : reg_min_blocks<real, MN, NMAX>))
    lattice_kernel_reg(launch_params<real> p, int chunks, int pass)
{
    static_assert(!(SOFT && WIDE), "the wide kernels read bits");
    static_assert(AL == 2 || !(SOFT || WIDE), "the letters kernels read both forms");
    constexpr bool letters = AL > 2;
    static_assert(NMAX + MN <= 64, "a thread's segment is one 64-bit word");
    constexpr int J = NMAX + MN;
    // By index (pass L, and pass G unless plan_shared_g): block fi is index
    // i0 + iw of frame f, thread a its state, starting at position start =
    // n i + m_tau^- + a. By position (pass G, share_P > 0): G(i, a, .)
    // depends on the book (i mod P) and on start alone, so block fi is the
    // indices i0 + iw + k share_P of frame f (one book), thread a the
    // position n i0 + m_tau^- + a, and each thread stores its sums for every
    // index of the residue that starts a state there (at most
    // ceil(Mt / (n share_P)) of them): the same values as by index, each
    // computed once.
    const bool by_position = pass == pass_G && p.share_P > 0;
    const int per_frame = by_position ? p.share_P : p.Wc;
    const int span = by_position ? p.n * (p.Wc - 1) + p.Mt : p.Mt;
    const int fi = blockIdx.x / chunks;
    const int chunk = blockIdx.x - fi * chunks;
    const int f = fi / per_frame;
    const int iw = fi - f * per_frame;
    const int i = p.i0 + iw; // by position: the residue's first index (its book)
    const int a = chunk * int(blockDim.x) + int(threadIdx.x);
    if ((a & ~31) >= span)
        return; // whole warps past the states (positions)
    if (pass == pass_L && p.status[f] != st_ok)
        return; // the whole block
    if constexpr (letters) {
        if (pass == pass_L && p.l_prior_frames != 0 && p.has_prior[f] == 0)
            return; // pass L from the position table (lattice_table_kernel)
    }
    if (pass == pass_G && (p.has_prior[f] != 0 ? by_position : p.g_prior_frames != 0))
        return; // the frame's G is made by the other mapping
    // by position: the first of the residue's indices (iw + k share_P) that
    // starts a state at this position, and whether any lane has one
    int first = iw;
    if (by_position) {
        const int nP = p.n * p.share_P;
        const int past = a - p.n * iw - (p.Mt - 1); // positions past state Mt - 1
        if (past > 0)
            first += (past + nP - 1) / nP * p.share_P;
        const bool any = a < span && first < p.Wc && a - p.n * first >= 0;
        if (!__any_sync(0xffffffffu, any))
            return;
    }
    const int w = a >> 5;
    const long long fw = (long long)f * p.W + iw;
    const long long rho = p.rho[f];
    const long long start = (long long)p.n * (by_position ? p.i0 : i) + p.mtlo + a;
    const bool inside = a < span && start >= 0 && start <= rho;
    const long long B = start + p.dlo - 1; // the segment's first position
    // the last row's nodes inside the frame (all, ~0, but near the frame's
    // end; threads outside the frame compute with finite weights and their
    // results are dropped)
    static_assert(MN < 64, "one bit per node of a row");
    const unsigned long long keep =
        inside ? lattice_keep_mask(rho - start - p.dlo, p.n) | ~((1ull << MN) - 1ull)
               : ~0ull;
    // whether node e of the last row counts: inside the frame (keep) and
    // ending at a state b = a + dlo + e inside m_tau; the others' terms of G
    // and of L are 0
    auto counts = [&](int s, int e) {
        const int b = s + p.dlo + e;
        return inside && b >= 0 && b < p.Mt && ((keep >> e) & 1ull) != 0;
    };
    const real scale = p.out_scale;
    // pass L: the warp's partial sums; pass G by position over letters with
    // the position table: the thread's place in it (residue iw, position a)
    real* Lout = p.Lpart + (fw * p.nwarps + w) * p.q;
    if constexpr (letters) {
        if (pass == pass_G)
            Lout = by_position && p.T && a < span
                       ? p.T + f * p.T_stride + (long long)iw * p.q * p.Mn * p.T_span +
                             (long long)(a >> 5) * 32 * p.Mn + (a & 31)
                       : nullptr;
    }

    real aux[MN]; // pass_G: the sums over D; pass_L: alpha(a) beta(a + d)
    if (pass == pass_L) {
        if (!__any_sync(0xffffffffu, pass_l_terms<real, MN, WIDE>(p, f, i, a, aux))) {
            for (int D = threadIdx.x & 31; D < p.q; D += 32)
                Lout[D] = real(0);
            return;
        }
    } else {
#pragma unroll
        for (int e = 0; e < MN; ++e)
            aux[e] = real(0);
    }

    // soft input: the frame's item probabilities (w(0), w(1) per item)
    const real* sw = SOFT ? p.soft + 2 * p.offset[f] : nullptr;
    unsigned long long win = 0;
    if (inside && !SOFT && !letters) {
        const long long pos = B + 64; // the packed bits start with 64 bits of padding
        const long long wd = pos >> 6;
        const int sh = int(pos & 63);
        const unsigned long long* pk = p.packed + p.packed_offset[f];
        win = pk[wd] >> sh;
        if (sh)
            win |= pk[wd + 1] << (64 - sh);
    }
    // a kernel that keeps rows runs each book in increasing order
    constexpr int kept_rows = letters ? 0 : reg_checkpoint<real, NMAX>;
    constexpr bool sorted = kept_rows > 0;
    const uint32_t* words = (letters  ? p.letter_words
                             : sorted ? p.sorted_words
                                      : p.words) +
                            (long long)(i % p.P) * p.q;
    const int* index = sorted ? p.sorted_index + (long long)(i % p.P) * p.q : nullptr;
    const bool pr = p.priors && p.has_prior[f];
    const real* prior = pr ? p.priors + ((long long)f * p.N + i) * p.q : nullptr;

    if constexpr (letters && LMASK) {
        static_assert(J <= 32, "2 bits an item in one word");
        unsigned long long ypk = 0;
        const long long base = p.offset[f] + B;
#pragma unroll
        for (int j = 0; j < J; ++j) {
            const bool in = inside && j < p.n + MN && B + j >= 0 && B + j < rho;
            const unsigned long long y =
                in ? (unsigned long long)(p.bits[base + j] & 3u) : 0;
            ypk |= y << (2 * j);
        }
        const weights_letter_bits<real> wts{ ypk, p.lwreg[0], p.lwreg[1] };
        lattice_all_codewords<real, MN, NMAX, false, 4>(
            p, wts, words, index, prior, aux, pass, Lout);
    } else if constexpr (letters) {
        // W[x][j]: the weight of a step that sends letter x and consumes
        // item j of the segment, A P(y_j | x) / del, or its mixture over a
        // soft item's probabilities; items outside the frame or past the
        // codeword's reach as letter 0 (their nodes count for nothing)
        real W[AL][J];
        const long long base = p.offset[f] + B;
#pragma unroll
        for (int j = 0; j < J; ++j) {
            const bool in = inside && j < p.n + MN && B + j >= 0 && B + j < rho;
            const real* sw =
                in && p.soft ? p.soft + (long long)p.A * (base + j) : nullptr;
            const int y = in && !p.soft ? int(p.bits[base + j]) : 0;
#pragma unroll
            for (int x = 0; x < AL; ++x) {
                const real* row = p.lwreg + (long long)(x < p.A ? x : 0) * p.A;
                real v = row[y];
                if (sw) {
                    v = real(0);
                    for (int l = 0; l < p.A; ++l)
                        v += sw[l] * row[l];
                }
                W[x][j] = v;
            }
        }
        const weights_letters<real, J, AL> wts{ W };
        lattice_all_codewords<real, MN, NMAX, false, 4>(
            p, wts, words, index, prior, aux, pass, Lout);
    } else if constexpr (WIDE && wide_bit_weights<real>) {
        const weights_bits<real> wts{ win, p.wmatch, p.wmismatch };
        lattice_all_codewords<real, MN, NMAX, true>(
            p, wts, words, index, prior, aux, pass, Lout);
    } else {
        real W0[J], W1[J];
        if constexpr (SOFT) {
            // the mixture of the hard weights (model::soft_diag); items past the
            // frame's ends (the nodes that consume them are the zero corner or
            // outside `keep`) or past the codeword's reach (j >= n + MN, when
            // n < NMAX) are not read
#pragma unroll
            for (int j = 0; j < J; ++j) {
                const bool in = inside && j < p.n + MN && B + j >= 0 && B + j < rho;
                const real w0 = in ? sw[2 * (B + j)] : real(1);
                const real w1 = in ? sw[2 * (B + j) + 1] : real(0);
                W1[j] = model::soft_diag(w0, w1, p.wmismatch, p.wmatch);
                W0[j] = model::soft_diag(w0, w1, p.wmatch, p.wmismatch);
            }
        } else {
#pragma unroll
            for (int j = 0; j < J; ++j) {
                const bool yb = ((win >> j) & 1ull) != 0;
                W1[j] = yb ? p.wmatch : p.wmismatch;
                W0[j] = yb ? p.wmismatch : p.wmatch;
            }
        }
        const weights_regs<real, J> wts{ W0, W1 };
        lattice_all_codewords<real, MN, NMAX, WIDE>(
            p, wts, words, index, prior, aux, pass, Lout);
    }
    if (pass == pass_G) {
        // node e of row n ends at drift d = dlo + e; state s of index fw
        auto store = [&](long long fws, int s) {
#pragma unroll
            for (int e = 0; e < MN; ++e)
                if (!WIDE || e < p.Mn)
                    p.G[(fws * p.Mn + e) * p.Mt + s] =
                        counts(s, e) ? aux[e] * scale : real(0);
        };
        if (!by_position) {
            if (a < p.Mt)
                store(fw, a);
        } else if constexpr (letters && sizeof(real) == 4) {
            // the warp's lanes on the same index at a time, so that each
            // store is 32 consecutive states (lanes whose first index differs
            // stored to scattered sectors, and in float the partial sectors
            // cost a read of DRAM each: pass G 3.6x slower; in double the
            // same loop cost pass L more than it saved, docs/benchmarks.md)
            const bool mine = a < span && first < p.Wc && a - p.n * first >= 0;
            const int k0 = warp_min(mine ? first : p.Wc);
            for (int k = k0; k < p.Wc; k += p.share_P) {
                const bool here = mine && k >= first && a - p.n * k >= 0;
                if (!__any_sync(0xffffffffu, here))
                    break; // a - n k only falls as k grows
                if (here)
                    store((long long)f * p.W + k, a - p.n * k);
            }
        } else if (a < span) {
            for (int k = first; k < p.Wc && a - p.n * k >= 0; k += p.share_P)
                store((long long)f * p.W + k, a - p.n * k);
        }
    }
}

template <typename real, int MN, int NMAX>
void launch_lattice_reg(
    unsigned grid, unsigned block, const launch_params<real>& p, int chunks, int pass)
{
    if (p.soft)
        lattice_kernel_reg<real, MN, NMAX, true><<<grid, block>>>(p, chunks, pass);
    else
        lattice_kernel_reg<real, MN, NMAX, false><<<grid, block>>>(p, chunks, pass);
}

template <typename real, int NMAX, int MN>
constexpr lattice_launcher<real> lattice_reg_entry()
{
    if constexpr (NMAX + MN <= reg_max_segment) {
        return &launch_lattice_reg<real, MN, NMAX>;
    } else {
        return nullptr;
    }
}

template <typename real, int NMAX, int... M>
std::array<lattice_launcher<real>, sizeof...(M)>
make_lattice_reg_table(std::integer_sequence<int, M...>)
{
    return { { lattice_reg_entry<real, NMAX, M + 1>()... } };
}

// The letters kernels: per corridor and band, the mask form for hard
// letters with uniform substitutions, the tables for the rest (soft items,
// a substitution matrix) (lattice_kernel_reg, AL = 4).
template <typename real, int MN, int NMAX>
void launch_lattice_letters(
    unsigned grid, unsigned block, const launch_params<real>& p, int chunks, int pass)
{
    if (!p.soft && p.letters_uniform)
        lattice_kernel_reg<real, MN, NMAX, false, false, 4, true>
            <<<grid, block>>>(p, chunks, pass);
    else
        lattice_kernel_reg<real, MN, NMAX, false, false, 4, false>
            <<<grid, block>>>(p, chunks, pass);
}

template <typename real, int NMAX, int MN>
constexpr lattice_launcher<real> lattice_letters_entry()
{
    if constexpr (letters_fit(NMAX, MN)) {
        return &launch_lattice_letters<real, MN, NMAX>;
    } else {
        return nullptr;
    }
}

template <typename real, int NMAX, int... M>
std::array<lattice_launcher<real>, sizeof...(M)>
make_lattice_letters_table(std::integer_sequence<int, M...>)
{
    return { { lattice_letters_entry<real, NMAX, M + 1>()... } };
}

template <typename real, int MN, int NMAX>
void launch_lattice_wide(
    unsigned grid, unsigned block, const launch_params<real>& p, int chunks, int pass)
{
    if (p.soft)
        throw std::logic_error("the wide lattice kernels take hard input only");
    lattice_kernel_reg<real, MN, NMAX, false, true><<<grid, block>>>(p, chunks, pass);
}

// Slot S of the wide kernels (wide_slot): compiled only where some codeword
// length of the band and some corridor padded to MN leave the register
// kernels (reg_band + Mn > 48) and fit one word (NMAX + MN <= 64).
template <typename real, int S>
constexpr lattice_launcher<real> lattice_wide_entry()
{
    constexpr int NMAX = wide_bands[S / 3], MN = 24 + 8 * (S % 3);
    if constexpr (NMAX + MN <= 64 && reg_band(NMAX) + MN > 48) {
        return &launch_lattice_wide<real, MN, NMAX>;
    } else {
        return nullptr;
    }
}

template <typename real, int... S>
std::array<lattice_launcher<real>, sizeof...(S)>
make_lattice_wide_table(std::integer_sequence<int, S...>)
{
    return { { lattice_wide_entry<real, S>()... } };
}

} // namespace cuda
} // namespace bsid

// The wide kernels of one precision per translation unit.
#define BSID_LATTICE_WIDE_TABLE(REAL)                            \
    namespace bsid {                                             \
    namespace cuda {                                             \
    template <>                                                  \
    const lattice_launcher<REAL>* lattice_wide_table<REAL>()     \
    {                                                            \
        static const auto table = make_lattice_wide_table<REAL>( \
            std::make_integer_sequence<int, wide_slots>{});      \
        return table.data();                                     \
    }                                                            \
    }                                                            \
    }

// The letters kernels of one precision (both bands) per translation unit.
#define BSID_LATTICE_LETTERS_TABLE(REAL)                               \
    namespace bsid {                                                   \
    namespace cuda {                                                   \
    template <>                                                        \
    const lattice_launcher<REAL>* lattice_letters_table<REAL, 4>()     \
    {                                                                  \
        static const auto table = make_lattice_letters_table<REAL, 4>( \
            std::make_integer_sequence<int, letters_max_corridor>{});  \
        return table.data();                                           \
    }                                                                  \
    template <>                                                        \
    const lattice_launcher<REAL>* lattice_letters_table<REAL, 8>()     \
    {                                                                  \
        static const auto table = make_lattice_letters_table<REAL, 8>( \
            std::make_integer_sequence<int, letters_max_corridor>{});  \
        return table.data();                                           \
    }                                                                  \
    }                                                                  \
    }

// One precision and band per translation unit.
#define BSID_LATTICE_REG_TABLE(REAL, NMAX)                            \
    namespace bsid {                                                  \
    namespace cuda {                                                  \
    template <>                                                       \
    const lattice_launcher<REAL>* lattice_reg_table<REAL, NMAX>()     \
    {                                                                 \
        static const auto table = make_lattice_reg_table<REAL, NMAX>( \
            std::make_integer_sequence<int, reg_max_corridor>{});     \
        return table.data();                                          \
    }                                                                 \
    }                                                                 \
    }

#endif /* INCLUDED_BSID_CUDA_LATTICE_KERNEL_REG_CUH */
