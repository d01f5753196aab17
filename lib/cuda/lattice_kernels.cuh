/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What the CUDA backend's translation units share: the kernels' parameters
// and the table of register lattice kernels, which are instantiated in
// lattice_reg_*.cu (one file per precision and codeword-length band, so that
// they compile in parallel).

#ifndef INCLUDED_BSID_CUDA_LATTICE_KERNELS_CUH
#define INCLUDED_BSID_CUDA_LATTICE_KERNELS_CUH

#include "launch_plan.h"
#include <gnuradio/bsid/core/inner/model.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>

namespace bsid {
namespace cuda {

// Frame status codes written by the kernels.
enum : int { st_ok = 0, st_alpha = 1, st_end = 2, st_beta = 3 };

// The two passes of the lattice kernels over a window.
enum : int { pass_G = 1, pass_L = 2 };

// The register kernels (lattice_kernel_reg.cuh): corridor widths
// 1..reg_max_corridor and codeword lengths in bands of up to 8, 12, 16 or 32
// bits, with NMAX + MN <= reg_max_segment (so corridors past 32 nodes only
// for codewords of up to 8 bits: S500's code on channels up to about
// Pi = Pd = 0.25).
constexpr int reg_max_segment = 48;
constexpr int reg_max_corridor = 40;

template <typename real>
struct launch_params {
    // the code and channel
    int n, q, P, N;
    const uint32_t* words; // P x q codewords
    // the register kernels that keep rows (reg_checkpoint): each book's
    // codewords in increasing order, and their indices D in the book
    const uint32_t* sorted_words;
    const int* sorted_index;
    real ins, del, match, mismatch; // lattice_weights::ratio
    // the diagonal weights as lattice_weights gives them (for codeword_lattice,
    // which reads ins and del where they are: no copy in registers)
    __device__ real diag(unsigned x, unsigned y) const
    {
        return lattice_weights<real>{ ins, del, match, mismatch }.diag(x, y);
    }
    __device__ real diag_soft(unsigned x, real w0, real w1) const
    {
        return lattice_weights<real>{ ins, del, match, mismatch }.diag_soft(x, w0, w1);
    }
    // the register kernels divide row r of the lattice by del^r, which makes
    // the vertical step's weight 1 (a cell is then two multiply-adds):
    real wmatch, wmismatch;      // diagonal weights / del
    unsigned renorm_rows;        // bit r: row r is multiplied by renorm_factor
    real renorm_factor;          // del^R, keeps the scaled rows far from overflow
    real out_scale;              // undoes the scaling left at row n
    real row0[reg_max_corridor]; // row 0 of the scaled lattice away from the frame's ends
    // over an alphabet of A > 2 letters (A = 2: bits, and these are unused):
    // the diagonal weights A P(received y | sent x) at [A x + y] in the
    // ratio form (lw, the general kernel) and divided by del (lwreg, the
    // register kernels); each codeword's letters 4 bits each, the first in
    // the highest used nibble (letter r - 1 at bits 4 (n - r); n <= 8)
    int A;
    int letters_uniform; // 1: uniform substitutions (lwreg[0], lwreg[1]: match, mismatch)
    const real* lw;
    const real* lwreg;
    const uint32_t* letter_words; // P x q, or null where n > 8
    // limits
    int mtlo, dlo, Mt, Mn; // (ends outside m_tau: states b outside [0, Mt))
    // the batch
    int F;
    const uint8_t* bits; // all frames' received bits or letters (hard input)
    // or, for a batch with soft input, all frames' items as 2 probabilities
    // w(0), w(1) each (model::llr_probabilities; item t of frame f at
    // 2 (offset[f] + t)), or over A letters A probabilities each
    // (item_probabilities; at A (offset[f] + t)); null for hard input
    const real* soft;
    const long long* offset; // per frame: start of its bits
    const long long* rho;    // per frame: received length
    const real* priors;      // F x N x q, or null: normalized, floored at the smallest
                             // normal real (for G only: no prior is a hard zero)
    const double*
        prior_exact;      // F x N x q in double, or null: the priors L is multiplied by
    const int* has_prior; // per frame: 0 none, 1 priors, 2 priors and an extrinsic output
    const double* start;  // F x Mt: alpha_0, the frame's start weights (normalized)
    const double* end;    // F x Mt: beta_N, the frame's end weights (normalized)
    // the window of symbol indices [i0, i0 + Wc) in buffers of W indices
    int i0, Wc, W;
    // pass G by position (plan_shared_g): 0, or the residues share_P of the
    // window's indices modulo the book's period, each block on one of them;
    // only frames without priors (the others: g_prior_frames)
    int share_P;
    int g_prior_frames; // pass G by index: 1 for only the frames with priors
    int nwarps;         // warps of 32 states per (frame, i): ceil(Mt / 32)
    real* G;            // F x W x Mn x Mt: G(f, i, e, a) = sum over D of gamma
    // The letters kernels' position table (plan_position_table): pass G by
    // position also stores each codeword's last row, node e of codeword D
    // from position a (as pass G's threads: n i0 + m_tau^- + a) for residue
    // r < T_books (pass G's share_P) at
    //   T[f T_stride + (r q + D) Mn T_span + (a / 32) 32 Mn + 32 e + a % 32]
    // (tiles of 32 positions, node by node: a warp's 32 positions are one or
    // two lines of each node, and a thread's nodes 32 values apart), and pass
    // L reads it back (lattice_table_kernel) instead of making the lattices
    // again; null: no table. T_span: the positions, a multiple of 32;
    // T_stride: a frame's part (at least T_books q Mn T_span).
    real* T;
    int T_books, T_span;
    long long T_stride;
    // pass L by the lattices for the frames with priors only (the others'
    // from the table)
    int l_prior_frames;
    real* Lpart;   // F x W x nwarps x q: partial sums of L over 32 states
    double* alpha; // F x (N + 1) x Mt (double in both precisions)
    const unsigned long long* packed; // per frame: 64 bits of padding, then its bits
    const long long* packed_offset;   // per frame: its first word
    double* beta;                     // F x (N + 1) x Mt (double in both precisions)
    // The normalizers of alpha and beta, as sums of base-2 logs (the
    // recursions store them raw, norm_scan_kernel sums them): log_alpha_norm(f, i)
    // = log C_i (C_i: the product of alpha's normalizers up to i),
    // log_beta_norm(f, i) = log D_i (beta's from i to N - 1), and
    // log_lambda_end(f) = log2 sum_m alpha_N(m) beta_N(m). Together they give
    // the scale of index i's sum of alpha gamma beta (eqn:L),
    //   Lambda_i = C_N lambda_N / (C_i D_{i+1}),
    // which pass_L divides out, so that its products stay near 1 in float
    // whatever the metrics' own scales (lattice_pass_L_scale).
    double* log_alpha_norm; // F x (N + 1)
    double* log_beta_norm;  // F x (N + 1)
    double* log_lambda_end; // F
    real* post;             // F x N x q (normalized in double, stored in real)
    double* post_d;         // F x N x q in double instead, or null (batches with priors)
    int* status;            // F
    int* status_index;      // F
    // the segmented recursion (segmented_recursion.cu; seg_len 0: not used):
    // segments of seg_len steps, segs of them, per frame and direction;
    // seg_trans: F x segs x Mt x Mt, each segment's last rows from each
    // start state (one set, read forward by alpha and backward by beta);
    // seg_scale: F x segs x Mt, their scales' powers of two (-inf: no
    // path); seg_start: F x 2 x segs x Mt, each
    // segment's first row, normalized; seg_ok: F x 2, the segments whose
    // first rows are known
    int seg_len, segs;
    double *seg_trans, *seg_scale, *seg_start;
    int* seg_ok;
};

/*
 * Frames [f0, f0 + nf) of p's batch as a batch of their own: every array
 * with a part per frame (the frame outermost in each) starts at frame f0;
 * the received items stay where they are (offset, packed_offset point into
 * them). A kernel launched with it sees those frames only (run(): the last
 * chunk's pass L in parts, each part's posteriors copied out while the later
 * parts' pass L runs).
 */
template <typename real>
launch_params<real> frame_range(const launch_params<real>& p, int f0, int nf)
{
    launch_params<real> r = p;
    const size_t f = size_t(f0), NQ = size_t(p.N) * size_t(p.q);
    const size_t rows = size_t(p.N + 1), Mt = size_t(p.Mt);
    auto at = [f](auto* ptr, size_t per_frame) {
        return ptr ? ptr + f * per_frame : ptr;
    };
    r.F = nf;
    r.offset = at(p.offset, 1);
    r.rho = at(p.rho, 1);
    r.packed_offset = at(p.packed_offset, 1);
    r.has_prior = at(p.has_prior, 1);
    r.priors = at(p.priors, NQ);
    r.prior_exact = at(p.prior_exact, NQ);
    r.start = at(p.start, Mt);
    r.end = at(p.end, Mt);
    r.G = at(p.G, size_t(p.W) * size_t(p.Mn) * Mt);
    r.T = at(p.T, size_t(p.T_stride));
    r.Lpart = at(p.Lpart, size_t(p.W) * size_t(p.nwarps) * size_t(p.q));
    r.alpha = at(p.alpha, rows * Mt);
    r.beta = at(p.beta, rows * Mt);
    r.log_alpha_norm = at(p.log_alpha_norm, rows);
    r.log_beta_norm = at(p.log_beta_norm, rows);
    r.log_lambda_end = at(p.log_lambda_end, 1);
    r.post = at(p.post, NQ);
    r.post_d = at(p.post_d, NQ);
    r.status = at(p.status, 1);
    r.status_index = at(p.status_index, 1);
    const size_t segs = size_t(std::max(p.segs, 1)); // as seg_workspace
    r.seg_trans = at(p.seg_trans, segs * Mt * Mt);
    r.seg_scale = at(p.seg_scale, segs * Mt);
    r.seg_start = at(p.seg_start, 2 * segs * Mt);
    r.seg_ok = at(p.seg_ok, 2);
    return r;
}

/*
 * The lattice kernels: one thread per (frame, i, a) of the window, lanes of a
 * warp on consecutive states a of one (frame, i), each thread looping over
 * the q codewords (all lanes on the same D, so branches on codeword bits are
 * uniform). Two passes use them:
 *  pass_G: G(f, i, e, a) = sum over D of gamma_i(a, a + d, D) (with priors),
 *          which is all that alpha and beta need; the register kernels make
 *          it by position where plan_shared_g says so (a thread per book and
 *          received position, stored for every index that starts a state
 *          there: lattice_kernel_reg);
 *  pass_L: after alpha and beta, the sum
 *          sum_a alpha_i(a) sum_e R_i(a, a + d | D) beta_{i+1}(a + d)
 *          over each warp's 32 states, into Lpart (eqn:L before the prior,
 *          the sum over the warps and the normalization: finish_kernel).
 * gamma itself is never stored: it would be q times G, read back once. Over
 * letters, where plan_position_table says so, the last rows R(. | D) that
 * pass G made by position are stored (launch_params::T) and pass L reads them
 * (lattice_table_kernel): the same products and sums, bit for bit.
 */

//! 1 / Lambda_i of index i of frame f (see launch_params::log_alpha_norm).
template <typename real>
__device__ __forceinline__ double
lattice_pass_L_scale(const launch_params<real>& p, int f, int i)
{
    const double* lc = p.log_alpha_norm + (long long)f * (p.N + 1);
    const double* ld = p.log_beta_norm + (long long)f * (p.N + 1);
    return exp2(lc[i] + ld[i + 1] - lc[p.N] - p.log_lambda_end[f]);
}

// Sum over the lanes of a warp; every lane gets it.
template <typename real>
__device__ __forceinline__ real warp_sum(real v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// The sum of 32 values v[0 .. 31] by one thread, in warp_sum's order (its
// butterfly adds the values 16 apart, then those sums 8 apart, and so on:
// addition commutes, so every lane of warp_sum holds this tree's result):
// warp_sum of lane l's v[l], bit for bit.
template <typename real>
__device__ __forceinline__ real lane_tree_sum(const real* v)
{
    real t[16];
#pragma unroll
    for (int l = 0; l < 16; ++l)
        t[l] = v[l] + v[l + 16];
#pragma unroll
    for (int l = 0; l < 8; ++l)
        t[l] = t[l] + t[l + 8];
#pragma unroll
    for (int l = 0; l < 4; ++l)
        t[l] = t[l] + t[l + 4];
    t[0] = t[0] + t[2];
    t[1] = t[1] + t[3];
    return t[0] + t[1];
}

// The least over the lanes of a warp; every lane gets it (any architecture).
__device__ __forceinline__ int warp_min(int v)
{
    for (int o = 16; o > 0; o >>= 1)
        v = min(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// (reg_max_segment, reg_max_corridor: above launch_params)
constexpr int reg_block =
    128; // threads per block at most (32 or 64 when M_tau is that small)

// Blocks per SM the register kernels ask the compiler to make room for
// (__launch_bounds__). Kernels whose weights, rows and sums take at most 80
// values (2 (NMAX + MN) + 2 MN: S500's and narrower) are held to 96
// registers a thread in float, 5 blocks of 128 threads per SM instead of the
// 4 that their natural ~126 allow, and to 168 in double, 3 blocks instead of
// 2 (ptxas spills a few hundred bytes there, and it still runs 35 % faster);
// the others as many as their registers allow. Measured: docs/benchmarks.md, "Zero corner
// and occupancy".
template <typename real, int MN, int NMAX>
constexpr int reg_min_blocks = 2 * (NMAX + MN) + 2 * MN <= 80
                                   ? (sizeof(real) == 4 ? 5 : 3)
                                   : 1;

// The wide kernels (lattice_kernel_reg, WIDE): 2 blocks of 128 threads per
// SM (up to 255 registers a thread; 3 blocks, 168 registers, spilled and ran
// 3 % slower on the paper's memory case). Their diagonal weights: in double
// the received bits (diag_bits, a test and a select a node: the two tables
// of 2 (NMAX + MN) doubles spill, and ran 32 % slower), in float the two
// tables in registers as in the register kernels (7 % faster than the bits
// there). Measured: docs/benchmarks.md, "The wide register kernels".
constexpr int wide_min_blocks = 2;
template <typename real>
constexpr bool wide_bit_weights = sizeof(real) == 8;

// Rows of a codeword's lattice that the register kernels keep for the next
// codeword on their exact loop (lattice_codewords): the codewords run in
// increasing order, so a run of them shares its first bits. About log2(q) - 2
// for codes with n = 2 log2 q (the paper's): each run then has about 4
// codewords (all share the rows when q fills the prefixes), and a deeper
// row is shared by fewer. Double only: in float the kept rows cost more in
// spilled registers than they save (S500 -2 %, the memory case +-0), in
// double S500 gains 3 % and the memory case 25 % (docs/benchmarks.md). A
// kernel with no rows kept runs each book in its own order.
template <typename real>
constexpr bool reg_keeps_rows = sizeof(real) == 8;
template <typename real, int NMAX>
constexpr int reg_checkpoint = !reg_keeps_rows<real> ? 0
                               : NMAX == 8           ? 3
                               : NMAX == 12          ? 4
                               : NMAX == 16          ? 6
                               : NMAX == 20          ? 8
                               : NMAX == 24          ? 10
                                                     : 0;

// The letters kernels (lattice_kernel_reg, AL = 4): codewords of up to 4 or
// 8 letters (bands 4 and 8) and corridors whose four weight tables, row and
// sums (4 (NMAX + MN) + 2 MN values) stay within 160 registers' worth; in
// float held to 128 registers a thread (4 blocks of 128 threads per SM), in
// double to 255 (2 blocks).
constexpr int letters_max_corridor = 24;
constexpr bool letters_fit(int nmax, int Mn)
{
    return Mn >= 1 && Mn <= letters_max_corridor && nmax + Mn <= reg_max_segment &&
           4 * (nmax + Mn) + 2 * Mn <= 160;
}
template <typename real>
constexpr int letters_min_blocks = sizeof(real) == 4 ? 4 : 2;

template <typename real>
using lattice_launcher = void (*)(
    unsigned grid, unsigned block, const launch_params<real>& p, int chunks, int pass);

//! The launchers of one precision and band, indexed by MN - 1 (reg_max_corridor entries;
//! null where NMAX + MN > reg_max_segment).
template <typename real, int NMAX>
const lattice_launcher<real>* lattice_reg_table();

//! The register kernel for codewords of n bits and a corridor of Mn nodes, or null.
template <typename real>
lattice_launcher<real> lattice_reg_launcher(int n, int Mn)
{
    if (Mn < 1 || Mn > reg_max_corridor || n < 1 || n > 32)
        return nullptr;
    const int nmax = reg_band(n);
    if (nmax + Mn > reg_max_segment)
        return nullptr;
    const lattice_launcher<real>* t = nmax == 8    ? lattice_reg_table<real, 8>()
                                      : nmax == 12 ? lattice_reg_table<real, 12>()
                                      : nmax == 16 ? lattice_reg_table<real, 16>()
                                                   : lattice_reg_table<real, 32>();
    return t[Mn - 1];
}

//! The letters kernels of one precision and band (4 or 8), indexed by MN -
//! 1 (letters_max_corridor entries; null where !letters_fit).
template <typename real, int NMAX>
const lattice_launcher<real>* lattice_letters_table();

//! The letters kernel for an alphabet of A letters, codewords of n letters
//! and a corridor of Mn nodes, or null (then the general kernel).
template <typename real>
lattice_launcher<real> lattice_letters_launcher(int A, int n, int Mn)
{
    if (A < 3 || A > 4 || n < 1 || n > 8)
        return nullptr;
    const int nmax = n <= 4 ? 4 : 8;
    if (!letters_fit(nmax, Mn))
        return nullptr;
    return nmax == 4 ? lattice_letters_table<real, 4>()[Mn - 1]
                     : lattice_letters_table<real, 8>()[Mn - 1];
}

//! Pass L from the position table (lattice_table_kernel) over the window of
//! p: it makes its own grid.
template <typename real>
using table_launcher = void (*)(const launch_params<real>& p);

//! The table launchers of one precision, one per corridor Mn = 1 ..
//! letters_max_corridor (index Mn - 1; lattice_letters_*.cu).
template <typename real>
const table_launcher<real>* lattice_table_table();

//! The pass L launcher from the table for a corridor of Mn nodes, or null.
template <typename real>
table_launcher<real> lattice_table_launcher(int Mn)
{
    if (Mn < 1 || Mn > letters_max_corridor)
        return nullptr;
    return lattice_table_table<real>()[Mn - 1];
}

//! The wide kernels of one precision, indexed by wide_slot(); null where
//! there is none (lattice_wide_*.cu).
template <typename real>
const lattice_launcher<real>* lattice_wide_table();

//! The wide kernel for codewords of n bits and a corridor of Mn nodes, or null
//! (hard input only: a batch with soft input takes the general kernel).
template <typename real>
lattice_launcher<real> lattice_wide_launcher(int n, int Mn)
{
    const int slot = wide_slot(n, Mn);
    return slot < 0 ? nullptr : lattice_wide_table<real>()[slot];
}

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_LATTICE_KERNELS_CUH */
