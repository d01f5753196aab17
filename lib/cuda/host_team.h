/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA decoder's host-side loops over a chunk's frames (checks, bits,
// copies out), on the lane's OpenMP team or on the lane's thread alone.

#ifndef INCLUDED_BSID_CUDA_HOST_TEAM_H
#define INCLUDED_BSID_CUDA_HOST_TEAM_H

#include <omp.h>
#include <cstddef>

namespace bsid {
namespace cuda {

// fn(j) for j in [j0, j1): on `threads` OpenMP threads where team says so,
// else on this thread with no parallel region at all (entering one costs
// microseconds even with its if clause false: one frame's latency).
template <typename Fn>
void for_each_index(size_t j0, size_t j1, bool team, int threads, Fn&& fn)
{
    if (team) {
#pragma omp parallel for schedule(static) num_threads(threads)
        for (long long j = (long long)j0; j < (long long)j1; ++j)
            fn(size_t(j));
    } else {
        for (size_t j = j0; j < j1; ++j)
            fn(j);
    }
}

// the fewest frames whose host-side loops (checks, bits, copies out) are
// worth an OpenMP team
constexpr size_t team_min_frames = 16;


} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_HOST_TEAM_H */
