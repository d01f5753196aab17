/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA decoder's memory planner (host-only C++: built and tested without
// nvcc, as launch_plan is): the device memory a batch of this decoder needs
// (memory_model), the storage mode the decoder runs in, and the window of
// symbol indices a chunk of frames can hold (plan_window). The device's free
// memory is the caller's to ask for (cudaMemGetInfo).

#ifndef INCLUDED_BSID_CUDA_MEMORY_PLANNER_H
#define INCLUDED_BSID_CUDA_MEMORY_PLANNER_H

#include "launch_plan.h"
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <cstddef>
#include <vector>

namespace bsid {
namespace cuda {

//! What a chunk of frames needs: the decoder's model with the chunk's soft
//! input and events, and each frame's length.
struct chunk_memory {
    memory_model m;
    std::vector<size_t> rho;
};

class memory_planner
{
public:
    memory_planner() = default;
    /*!
     * base: the decoder's memory model (the code, limits, precision and the
     * general lattice kernel's scratch), without soft input or events;
     * events_scratch: the bytes of the E-step's workspaces a batch with
     * events takes; local_cap: decoder_config::local_window (0: from memory).
     */
    memory_planner(const memory_model& base, size_t events_scratch, int local_cap);

    //! The decoder's model (no soft input, no events).
    const memory_model& model() const { return d_base; }

    /*!
     * The storage mode: `asked`, or for storage_kind::automatic, global
     * where a frame of tau items with G and L of all N indices (and the
     * general kernel's scratch) fits in 80 % of free_bytes, else local.
     * Kept as storage().
     */
    storage_kind choose_storage(storage_kind asked, size_t tau, size_t free_bytes);
    storage_kind storage() const { return d_storage; }

    //! The memory of frames todo[pos .. pos + count).
    chunk_memory chunk(const std::vector<frame_view>& frames,
                       const std::vector<size_t>& todo,
                       size_t pos,
                       size_t count) const;

    //! plan_window_in_cache for the chunk: its window where the lane's
    //! `cached` bytes hold the widest it may have, else 0.
    size_t window_in_cache(const chunk_memory& c, size_t cached) const;

    /*!
     * plan_window for the chunk with `usable` bytes (the device's free
     * memory and the lane's cached buffers); the first fall back from global
     * storage to a local window is logged as a warning.
     */
    size_t window(const chunk_memory& c, size_t usable);

private:
    memory_model d_base;
    size_t d_events_scratch = 0;
    int d_local_cap = 0; // local storage: most indices per window (0: from memory)
    storage_kind d_storage = storage_kind::global;
    bool d_warned_global = false;
};

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_MEMORY_PLANNER_H */
