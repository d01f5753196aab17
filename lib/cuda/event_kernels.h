/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CUDA_EVENT_KERNELS_H
#define INCLUDED_BSID_CUDA_EVENT_KERNELS_H

// The E-step's kernels (event_kernels.cu): the expected channel events and
// item posteriors of the frames of a batch that ask for them, from the
// decoder's final alpha and beta.

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>

namespace bsid {
namespace cuda {

struct event_params {
    // the code and the channel, in double (lattice_weights<double>::ratio)
    int n, q, P, N, Mt, Mn, mtlo, dlo;
    double ins, del, match, mismatch;
    int A;                 // the alphabet's letters (2: bits, match and mismatch)
    const double* lw;      // over A > 2 letters: A x A diagonal weights A P(y | x)
    const uint32_t* words; // P x q codewords
    // the batch (launch_params' buffers)
    const double* alpha;       // F x (N + 1) x Mt, final
    const double* beta;        // F x (N + 1) x Mt, final
    const double* prior_exact; // F x N x q normalized, or null (uniform)
    const int* has_prior;      // F
    const int* status;         // F
    const long long* offset;   // F: a frame's first item
    const long long* rho;      // F
    const double* yprob;       // A per item of the batch: w(0) .. w(A - 1)
    // the Fe frames that ask for events
    int Fe;
    const int* frames;     // Fe: index in the batch
    const int* want_items; // Fe: 1 where the frame asks for item posteriors
    double* index_events;  // Fe x N x 4: each index's events, normalized
    double* events;        // Fe x 4: the frames' events (ins, del, trans, subst)
    double* items;         // A per item of the batch, zeroed before: item posteriors
    // the substitution counts (A > 2, when a frame asks), or null:
    double* index_pairs; // Fe x N x A^2: each index's, normalized
    double* pairs;       // Fe x A^2: the frames' sums
    double* scratch;     // event_plan::scratch_doubles()
    double* acc_global;  // the blocks' item sums when they do not fit in shared memory
    long long stride;    // set by launch_events
    int acc;             // set by launch_events
    int classes, cls;    // set by launch_events: the indices i = cls mod classes
};

//! The events kernel's launch: block, grid, each thread's workspace (stride
//! doubles) and each block's item sums (acc doubles, in shared memory where
//! they fit).
struct event_plan {
    int block = 32, grid = 1;
    size_t stride = 0;
    int acc = 0;
    bool acc_shared = false;
    size_t shared_bytes = 0;
    //! the counts kernel's grid (0: M_n too wide for it; every batch by edges)
    int counts_grid = 0;
    //! the global scratch a batch needs (event_params::scratch, and acc_global
    //! after it when acc_shared is false)
    size_t scratch_doubles() const;
};

//! The largest alphabet whose substitution counts the events kernel keeps
//! (A^2 per thread); a frame of a larger one that asks for them is decoded
//! on the CPU.
constexpr int events_max_pairs_alphabet = 16;

/*!
 * Plans the events kernel for the device (occupancy, at most 64 MiB of
 * workspace), over A letters: with room for the substitution counts where
 * A > 2 and A <= events_max_pairs_alphabet.
 */
event_plan plan_events(int n, int q, int Mt, int Mn, int A, const cudaDeviceProp& prop);

/*!
 * Each item's probabilities in double: from bits (llr null) or LLRs; over
 * A > 2 letters (A per item) from letters (one 1, the rest 0s), or copied
 * from llr, which then holds the items' probabilities already.
 */
void launch_event_items(
    const uint8_t* bits, const double* llr, double* out, long long total, int A = 2);

//! The events (and item posteriors) of the Fe frames of p.
void launch_events(const event_plan& e, event_params p);

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_EVENT_KERNELS_H */
