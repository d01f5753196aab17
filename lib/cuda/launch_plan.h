/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CUDA_LAUNCH_PLAN_H
#define INCLUDED_BSID_CUDA_LAUNCH_PLAN_H

/*
 * The CUDA backend's planning, as plain host C++ with no CUDA header, so that
 * it builds and is unit-tested (qa_launch_plan.cc) on machines without a GPU
 * or nvcc: the register kernels' form of the lattice weights, the memory a
 * batch needs, the storage mode and local-storage window, the block sizes,
 * and the settings that environment variables may override.
 */

#include <gnuradio/bsid/core/channel/channel_params.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <cstddef>
#include <string>
#include <vector>

namespace bsid {
namespace cuda {

/*!
 * The register kernels divide row r of the lattice by del^r (del = Pd / Pt
 * of lattice_weights::ratio), so that the vertical step weighs 1 and a cell is
 * two multiply-adds (model::lattice_cell_unit_del). Rows are multiplied by
 * Pd^R every R rows so that no scaled value exceeds 2^bound times the ratio
 * lattice's own values (those are at most 2^c / Pt^r for a node that has read
 * c received bits, c <= n + M_n <= 48), and out_scale takes row n back to the
 * ratio lattice. usable is false where the channel does not allow this form
 * (Pd = 0, or Pd or Pt extreme): the general kernel runs then.
 */
struct register_weights {
    bool usable = false;
    unsigned renorm_rows = 0;         //!< bit r: row r is multiplied by renorm_factor
    double renorm_factor = 1;         //!< Pd^R
    double out_scale = 1;             //!< Pd^(n - R renorms) / Pt^n
    double wmatch = 0, wmismatch = 0; //!< the diagonal weights divided by del
};

//! The register form for codewords of n bits; `single` for float (bound 60), else double
//! (500).
register_weights plan_register_weights(const channel_params& ch, int n, bool single);

//! Device memory per batch, in bytes, for one precision (sizeof(real) = real_bytes).
struct memory_model {
    int N = 0, q = 0, Mt = 0, Mn = 0;
    size_t real_bytes = 4;
    size_t general_scratch =
        0; //!< the general lattice kernel's rows (0 with the register kernels)
    //! the batch is soft: its items travel as LLRs (double) and probabilities
    //! (2 reals) instead of bits; over A > 2 letters as A probabilities in
    //! double and in real
    bool soft = false;
    int alphabet = 2;
    //! some frame asks for its expected events (frame_view::events): each
    //! frame's items in double and the events per index; items: and the item
    //! posteriors; events_scratch: the events kernel's workspaces (bytes, per
    //! batch)
    bool events = false, items = false;
    size_t events_scratch = 0;
    //! the position table (plan_position_table over a whole frame): its
    //! books, 0 without one, and the codeword length it needs
    int table_books = 0, n = 0;

    int nwarps() const { return (Mt + 31) / 32; }
    //! G, the partial L and the position table's part of one symbol index
    //! of one frame
    size_t per_index() const;
    //! alpha, beta, the boundary weights, the posteriors and the bits (or the
    //! LLRs and their probabilities) of one frame of rho items, and with
    //! events what the E-step keeps of it
    size_t per_frame(size_t rho) const;
};

/*!
 * \brief Local storage's default budget for a window's G and partial L
 * (decoder_config::local_window = 0): the paper's memory case (N = 840,
 * q = 1024, M_tau = 857, M_n = 40) then runs windows of 812 of its 840 indices in float
 * and decodes within 256 MiB in either precision.
 */
constexpr size_t local_window_bytes = size_t(192) << 20;

/*!
 * \brief The window of symbol indices a batch can hold: N (global storage)
 * when everything fits in 80 % of `usable` bytes, else the local-storage
 * window: at most N - 1 indices and what fits, and at most `local_cap`
 * indices (decoder_config::local_window) or, where that is 0, at most
 * local_window_bytes of G and partial L. Global storage that does not fit
 * falls back to the largest local window that does (it was asked for speed,
 * not for a memory bound); `fell_back` is then set. 0 when not even one
 * index fits.
 */
size_t plan_window(const memory_model& m,
                   const std::vector<size_t>& rho,
                   size_t usable,
                   storage_kind storage,
                   int local_cap,
                   bool* fell_back = nullptr);

/*!
 * \brief The window plan_window gives whatever the device's free memory is,
 * where the lane's own buffers (`cached` bytes, which a batch reuses) already
 * hold it: plan_window with `cached` usable bytes, if that is the widest
 * window the batch may have; else 0, and the caller asks the device for its
 * free memory (cudaMemGetInfo took 40 to 50 us a chunk on an H200 while
 * another lane ran). plan_window grows with its usable bytes, so the
 * free memory cannot change a window returned here.
 */
size_t plan_window_in_cache(const memory_model& m,
                            const std::vector<size_t>& rho,
                            size_t cached,
                            storage_kind storage,
                            int local_cap);

/*!
 * \brief Where the local-storage windows of W indices start, cutting [0, N)
 * from its end: the first window takes the remainder (1 to W indices), every
 * other window W. The forward pass runs them in this order and leaves the
 * last window's G in memory, where the backward pass, which starts there,
 * uses it without making it again; a whole W there saves the most.
 */
std::vector<int> plan_local_windows(int N, int W);

//! Threads per block of the block recursions: the states rounded up to whole warps,
//! within `limit`.
int plan_ab_block(int Mt, int limit);

/*!
 * \brief Whether the block recursions take their fast path (ab_kernel: one
 * state a thread, M_n <= 32 drift changes a state in registers); past it
 * they run ab_rows_kernel.
 */
constexpr bool plan_ab_fast(int Mt, int Mn, int ab_block)
{
    return Mt <= ab_block && Mn <= 32;
}

/*!
 * \brief The block recursions past their fast path (plan_ab_fast: M_tau >
 * `ab_block` or M_n > 32) keep the row in shared memory,
 * between M_n zeros on each side, where 32 + M_tau + 2 M_n doubles fit the
 * 48 KiB any block may have: returns M_n there, else 0 (the fast path, or
 * the row read from global memory term by term).
 */
int plan_ab_row_pad(int Mt, int Mn, int ab_block);

/*!
 * \brief The general lattice kernel's block with its rows in shared memory
 * (`per_thread` bytes a thread: a row and its sums): the largest multiple of
 * 32 up to 128 whose rows fit `shared_limit` bytes, or 0 when not even one
 * warp's do (the rows then go in global scratch).
 */
int plan_general_block(size_t per_thread, size_t shared_limit);

//! Threads per block of the register lattice kernel: no idle warps when M_tau is small.
int plan_reg_block(int Mt);

/*!
 * \brief The register kernels' G pass by position: G(i, a, .) depends on
 * the book of index i (i mod P) and on the position n i + m_tau^- + a where
 * state a starts, not on i and a apart (a frame without priors), so a window
 * of Wc indices needs it at P' = min(P, Wc) books times n (Wc - 1) + Mt
 * positions, against Wc Mt states by index. Returns P' where that takes at
 * most 3/4 of the threads by index (warps rounded up), else 0 (by index):
 * S500 (n = 8, P = 6, Mt = 128) 6 x 4128 against 500 x 128 states.
 */
int plan_shared_g(int n, int P, int Mt, int Wc);

/*!
 * \brief The letters kernels' position table (launch_params::T): pass G by
 * position (plan_shared_g) also stores the last row of every codeword's
 * lattice, P' books x (n (Wc - 1) + Mt) positions x q codewords x Mn nodes,
 * and pass L reads them back (lattice_table_kernel) instead of making the
 * lattices again for every index and state. Returns P' where pass G is by
 * position and the table takes at most 4 times G's memory (Wc Mt Mn values;
 * the four-letter analogue of S500, n = 4, q = 16, Mt = 92: 0.73 times),
 * else 0 (pass L makes the lattices).
 */
int plan_position_table(int n, int q, int P, int Mt, int Wc);

//! The threads of a block of pass L from the position table at most.
constexpr int table_block_max = 256;

/*!
 * \brief The grid of pass L from the position table (lattice_table_kernel)
 * over a window of Wc indices with `books` books and M_tau = Mt states, for
 * at most K indices a block (the kernel's registers, table_tile):
 * - states: the states a block sums for: Mt in whole warps, up to 128 (no
 *   idle warp beside M_tau = 92's three), in `chunks` chunks;
 * - tile: the indices of one book a block sums for: consecutive indices of a
 *   book start their states n books positions apart, so a block of `tile`
 *   indices holds states + n books (tile - 1) positions, as many as fit in
 *   table_block_max threads, up to K; 1 where they share no position (n
 *   books >= states);
 * - block: those positions in whole warps; tiles: a book's tiles (every
 *   book gets as many, of its at most ceil(Wc / books) indices).
 */
struct table_launch {
    int states = 0, chunks = 0, tile = 0, block = 0, tiles = 0;
};
table_launch plan_table_launch(int n, int books, int Mt, int Wc, int K);

//! The positions a book's rows of the position table take over a window of
//! W indices: n (W - 1) + Mt, rounded up to whole tiles of 32 (the table's
//! layout, launch_params::T). At most n W + Mt + 31: what the memory model
//! counts (per_index, per_frame).
long long plan_table_span(int n, int W, int Mt);

//! The register kernels' band of codeword lengths: codewords of n bits run in the
//! kernels for at most 8, 12, 16 or 32 bits.
constexpr int reg_band(int n) { return n <= 8 ? 8 : n <= 12 ? 12 : n <= 16 ? 16 : 32; }

/*!
 * \brief The wide register kernels: codewords and corridors whose two weight
 * tables do not fit in registers beside the row (reg_band(n) + Mn > 48, up to
 * 40 nodes), where the register kernels would leave the lattice to the general
 * kernel. They run 2 blocks per SM (up to 255 registers a thread; in double
 * each node takes its diagonal weight from its received bit), the
 * corridor is padded to a multiple of 8 nodes and codewords run in bands of
 * 16, 20, 24 or 32 bits (20 and 24: q = 1024 and 4096 at n = 2 log2 q, the
 * paper's sweeps), as long as band + padded corridor <= 64 (one 64-bit word of
 * received bits a thread). Hard input only.
 */
constexpr int wide_band(int n) { return n <= 16 ? 16 : n <= 20 ? 20 : n <= 24 ? 24 : 32; }
constexpr int wide_corridor(int Mn) { return (Mn + 7) / 8 * 8; }
//! The bands and padded corridors compiled: slot b * 3 + c for band wide_bands[b]
//! and corridor 24 + 8 c; -1 where there is none (or the register kernels fit).
constexpr int wide_bands[4] = { 16, 20, 24, 32 };
constexpr int wide_slots = 12;
constexpr int wide_slot(int n, int Mn)
{
    if (n < 1 || n > 32 || Mn < 1 || Mn > 40 || reg_band(n) + Mn <= 48)
        return -1;
    // (Mn > 16 here: reg_band(n) <= 32, so the padded corridor is 24 or more)
    const int band = wide_band(n), mn = wide_corridor(Mn);
    if (band + mn > 64)
        return -1;
    const int b = band == 16 ? 0 : band == 20 ? 1 : band == 24 ? 2 : 3;
    return b * 3 + (mn - 24) / 8;
}

/*!
 * \brief The lattice's zero corner, skipped by the register kernels' fast path.
 *
 * Node k of row r of a codeword's lattice (drift change m_n^- + k after r
 * transmitted bits) has read r + m_n^- + k received bits, so it is 0 while
 * that count is negative: for k < k0 - r, k0 = -m_n^-, a triangle of
 * k0 (k0 - 1) / 2 nodes in rows 1 to k0 - 1 (for S500, 21 of the 128 nodes of
 * rows 1 to n, 42 of the 256 multiply-adds). Skipping the nodes k < K - r of each row,
 * for any K <= k0, gives the same values bit for bit: they stay 0, and the first node
 * kept, K - r, takes only its vertical step, which is what the full cell computes when
 * its diagonal and horizontal neighbours are 0. The fast path (codewords of exactly the
 * band's length, rows not renormalized) is compiled for two corners per corridor of Mn
 * nodes, reg_corner_wide and reg_corner_narrow (they fit symmetric and
 * slightly skewed corridors, m_n^- near -M_n / 2, and corridors whose m_n^-
 * is -n), and takes the larger one that does not exceed k0, or none.
 */
constexpr int reg_corner_wide(int nmax, int Mn)
{
    return Mn / 2 - 1 < 0 ? 0 : Mn / 2 - 1 < nmax ? Mn / 2 - 1 : nmax;
}
constexpr int reg_corner_narrow(int nmax, int Mn)
{
    return Mn / 2 - 3 < 0 ? 0 : Mn / 2 - 3 < nmax ? Mn / 2 - 3 : nmax;
}
//! The same, as constants for the kernels (device code may not call host functions)
template <int NMAX, int MN>
struct reg_corner {
    static constexpr int wide = reg_corner_wide(NMAX, MN);
    static constexpr int narrow = reg_corner_narrow(NMAX, MN);
};
//! The corner the register kernels skip for codewords of n bits, a corridor of Mn
//! nodes from m_n^- = dlo, and the rows renormalized as renorm_rows says: 0 for none.
int plan_reg_corner(int n, int Mn, int dlo, unsigned renorm_rows);
//! The same for the wide kernels (their band and padded corridor).
int plan_wide_corner(int n, int Mn, int dlo, unsigned renorm_rows);

//! Whether alpha and beta run one warp per frame (M_tau <= 64, M_n <= 32 (the
//! drift changes it keeps in registers) and not forced to blocks).
bool plan_warp_recursion(recursion_kind r, int Mt, int Mn);

//! The drift changes a lane of the one-warp step holds (the form of
//! ab_warp_kernel and the segmented kernels that runs M_n of them): 8, 12, 16
//! or 32. Every term is summed, so the form nearest M_n saves the most.
int plan_warp_emax(int Mn);

/*!
 * \brief The segment length (steps) of the segmented recursion for a launch of
 * F frames of Wc steps each, both directions at once (global storage), or 0:
 * the sequential recursion. Segments need the one-warp shape (M_tau <= 64,
 * M_n <= 32) and at least seg_min_segments of them. L ~ sqrt(2 Wc) balances
 * the transfers' L steps (all segments at once) against the combination's
 * Wc / L sequential matrix-vector products. "auto" takes them while the
 * transfers' warps (F x segments x M_tau: both directions share them) fit
 * seg_max_warps, about
 * two waves of an H100 (small batches, where one frame's latency matters);
 * "segmented" wherever the shape allows and the workspace (seg_workspace)
 * stays within seg_max_bytes (plan_window does not count it: "auto" keeps
 * it within a few MiB, the headroom plan_window leaves); "block" never.
 */
int plan_segments(recursion_kind r, int Mt, int Mn, int Wc, int F, bool both_directions);
constexpr int seg_min_segments = 4;
constexpr long long seg_max_warps = 8192;
constexpr size_t seg_max_bytes = size_t(64) << 20;

//! The segments of Wc steps in segments of L (plan_segments).
inline int seg_count(int Wc, int L) { return L > 0 ? (Wc + L - 1) / L : 0; }

/*!
 * \brief The segmented recursion's workspace for F frames: every segment's
 * transfer matrix and its scales (one set, read forward by alpha and
 * backward by beta), each (frame, direction)'s segments' first rows, and its
 * count of segments with a path (items of double, double, double and int).
 */
struct seg_workspace {
    size_t trans = 0, scale = 0, start = 0, ok = 0;
    seg_workspace(int Mt, int segs, int F)
    {
        const size_t fd = size_t(F) * 2, s = size_t(segs > 0 ? segs : 1);
        trans = size_t(F) * s * size_t(Mt) * size_t(Mt);
        scale = size_t(F) * s * size_t(Mt);
        start = fd * s * size_t(Mt);
        ok = fd;
    }
    size_t bytes() const
    {
        return (trans + scale + start) * sizeof(double) + ok * sizeof(int);
    }
};

/*!
 * \brief Frames per chunk when decode_batch splits `frames` frames over
 * `streams` lanes: chunk_frames when the batch holds at least lane_min_chunks
 * of them, else the whole batch in one chunk (one lane). Measured on S500
 * (docs/benchmarks.md, "Lanes"): lanes gain 6 to 11 % on batches of 1024 and
 * 4096 frames, and lose on batches of 128 and 256 split in two.
 */
size_t plan_chunk(size_t frames, int streams);
constexpr size_t chunk_frames = 256, lane_min_chunks = 4;

/*!
 * \brief The batch's last frames (`frames` of them, decoded in global
 * storage): the parts whose pass L runs one after another, each part's
 * posteriors copied out while the later parts' pass L runs (run()), as their
 * bounds: 0 = b_0 < b_1 < .. < b_k = frames, part i being [b_i, b_i+1).
 * Each part takes half of the frames left (rounded up) while the half left
 * after it is at least tail_part_min frames, and the last part is the rest:
 * 256 frames are parts of 128, 64, 32, 16 and 16. On S500 pass L takes about
 * 7 us a frame and the copy out 2 to 3, so each part's copy ends within the
 * next part's pass L, and what follows the batch's last kernel is the copy of
 * 16 to 31 frames. Fewer than 2 tail_part_min frames are one part (two
 * launches of a few frames each cost more than their copy).
 */
std::vector<size_t> plan_tail_parts(size_t frames);
constexpr size_t tail_part_min = 16;

/*!
 * \brief The backend's settings from decoder_config, with the environment's
 * overrides: BSID_CUDA_DEVICE (an index), BSID_CUDA_AB=block, and
 * BSID_CUDA_LOCAL_WINDOW (a positive cap). Throws std::invalid_argument for
 * a malformed value.
 */
struct backend_settings {
    int device = 0;
    recursion_kind recursion = recursion_kind::automatic;
    int local_window = 0;
    int streams = 2;
    bool share_g = true; // decoder_config::share_g
};
backend_settings settings_from(const decoder_config& cfg);

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_LAUNCH_PLAN_H */
