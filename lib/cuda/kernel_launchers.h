/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CUDA_KERNEL_LAUNCHERS_H
#define INCLUDED_BSID_CUDA_KERNEL_LAUNCHERS_H

// The host-side launchers of the CUDA backend's kernels, one translation
// unit per concern: lattice_kernel_general.cu (the general lattice kernel and
// the bit packing), lattice_reg_*.cu (the register lattice kernels, through
// lattice_reg_launcher), recursion_kernels.cu (alpha, beta, posteriors).
// Each launcher checks its launch (cuda_error on failure).

#include "lattice_kernels.cuh"
#include <cstdint>

namespace bsid {
namespace cuda {

//! The general lattice kernel's launch: its rows (2 Mn values per thread) in
//! shared memory (shared_bytes per block), or in scratch_items of global scratch.
struct general_shape {
    int grid = 1, block = 32;
    size_t shared_bytes = 0;  //!< > 0: the rows in shared memory
    size_t scratch_items = 0; //!< else: the global scratch the rows take
};

/*!
 * The general kernel's shape for a corridor of Mn nodes: the rows in shared
 * memory (plan_general_block; the grid that fills the device) unless they do
 * not fit even for one warp; then in global scratch (the occupancy API's
 * block and grid, within 32 MiB of rows).
 */
template <typename real>
general_shape plan_general(int Mn, const cudaDeviceProp& prop, bool letters = false);

//! One pass (pass_G or pass_L) of the general lattice kernel; scratch: the
//! shape's scratch_items when its rows are in global memory.
template <typename real>
void launch_lattice_general(const general_shape& g,
                            const launch_params<real>& p,
                            real* scratch,
                            int pass);

//! Soft input: total LLRs as 2 total probabilities w(0), w(1) (the kernels' p.soft).
template <typename real>
void launch_soft_items(const double* llr, real* out, long long total);

//! Soft input over letters: total probabilities, computed in double on the
//! host (item_probabilities), in the decoder's precision.
template <typename real>
void launch_cast_items(const double* w, real* out, long long total);

//! Packs each frame's received bits, 64 to a word after one word of padding.
void launch_pack(const uint8_t* bits,
                 const long long* offset,
                 const long long* rho,
                 const long long* packed_offset,
                 unsigned long long* packed,
                 int F,
                 long long most_words);

//! alpha (which = 0), beta (1) or both at once (2) over the window of p; warp: one warp
//! per frame where M_tau allows.
template <typename real>
void launch_recursion(const launch_params<real>& p, int which, bool warp, int ab_block);

//! alpha and beta of the whole frame at once (global storage) in segments of
//! p.seg_len steps run side by side (segmented_recursion.cu; plan_segments):
//! the rows and normalizers launch_recursion(p, 2, ...) stores, and the same
//! statuses.
template <typename real>
void launch_segmented_recursion(const launch_params<real>& p);

//! The normalizers' logs, summed: alpha's (which = 0, after the forward pass), beta's
//! over the window (1), or both over the whole frame at once (2, global storage).
template <typename real>
void launch_norm_scan(const launch_params<real>& p, int which);

//! The posteriors of every (frame, i) of the window, from the partial sums of pass_L.
template <typename real>
void launch_finish(const launch_params<real>& p);

/*!
 * The device loop's log-priors (rows of q natural logs up to a constant) to
 * the decoder's priors: exact (double, each row normalized, as
 * map_decoder::normalized_priors) and priors (the decoder's precision,
 * floored at its least normal value where positive). A row without a finite
 * maximum becomes uniform.
 */
template <typename real>
void launch_prior_rows(
    const double* log_priors, long long rows, int q, real* priors, double* exact);

//! Rows of q posteriors in the decoder's precision to double, each normalized again.
template <typename real>
void launch_rows_to_double(const real* in, long long rows, int q, double* out);

//! The most threads per block the block recursions can take on this device.
template <typename real>
int ab_block_limit();

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_KERNEL_LAUNCHERS_H */
