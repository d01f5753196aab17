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

#include <gnuradio/bsid/core/channel_params.h>
#include <gnuradio/bsid/core/map_decoder.h>
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
    //! (2 reals) instead of bits
    bool soft = false;
    //! some frame asks for its expected events (frame_view::events): each
    //! frame's items in double and the events per index; items: and the item
    //! posteriors; events_scratch: the events kernel's workspaces (bytes, per
    //! batch)
    bool events = false, items = false;
    size_t events_scratch = 0;

    int nwarps() const { return (Mt + 31) / 32; }
    //! G and the partial L of one symbol index of one frame
    size_t per_index() const;
    //! alpha, beta, the boundary weights, the posteriors and the bits (or the
    //! LLRs and their probabilities) of one frame of rho items, and with
    //! events what the E-step keeps of it
    size_t per_frame(size_t rho) const;
};

/*!
 * \brief The window of symbol indices a batch can hold: N (global storage)
 * when everything fits in 80 % of `usable` bytes, else the local-storage
 * window: at most N - 1 indices, at most 64 MiB of G and partial L, at most
 * `local_cap` (0: no cap). 0 when not even one index fits.
 * `fell_back` is set when global storage was asked for but did not fit.
 */
size_t plan_window(const memory_model& m,
                   const std::vector<size_t>& rho,
                   size_t usable,
                   storage_kind storage,
                   int local_cap,
                   bool* fell_back = nullptr);

//! Threads per block of the block recursions: the states rounded up to whole warps,
//! within `limit`.
int plan_ab_block(int Mt, int limit);

/*!
 * \brief The general lattice kernel's block with its rows in shared memory
 * (`per_thread` bytes a thread: a row and its sums): the largest multiple of
 * 32 up to 128 whose rows fit `shared_limit` bytes, or 0 when not even one
 * warp's do (the rows then go in global scratch).
 */
int plan_general_block(size_t per_thread, size_t shared_limit);

//! Threads per block of the register lattice kernel: no idle warps when M_tau is small.
int plan_reg_block(int Mt);

//! Whether alpha and beta run one warp per frame (M_tau <= 64, M_n <= 32 (the
//! drift changes it keeps in registers) and not forced to blocks).
bool plan_warp_recursion(recursion_kind r, int Mt, int Mn);

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
};
backend_settings settings_from(const decoder_config& cfg);

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_LAUNCH_PLAN_H */
