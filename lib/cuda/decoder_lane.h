/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One lane of the CUDA MAP decoder (map_decoder_cuda.h): the buffers a
// stream's chunks of a batch are decoded in (batch_run.h), and copy_wait,
// which waits for the copies a run queued on the lane's copy stream.

#ifndef INCLUDED_BSID_CUDA_DECODER_LANE_H
#define INCLUDED_BSID_CUDA_DECODER_LANE_H

#include "cuda_check.h"
#include "device_buffer.h"
#include "upload_pack.h"
#include <cuda_runtime.h>
#include <vector>

namespace bsid {
namespace cuda {

// waits, however the scope ends, for the work queued on a stream of the
// lane's own (pass L's parts' copies: the lane's pinned buffers are not
// written again while they run). Set before the first copy is queued; an
// error from the wait shows on the stream's next checked call (a destructor
// cannot throw).
struct copy_wait {
    cudaStream_t stream = nullptr;
    copy_wait() = default;
    copy_wait(const copy_wait&) = delete;
    copy_wait& operator=(const copy_wait&) = delete;
    ~copy_wait()
    {
        if (stream)
            (void)cudaStreamSynchronize(stream);
    }
};

// One stream's buffers for a chunk of a batch (run()): each stream of
// decode_batch decodes its chunks in its own lane, so that one lane's
// host work (inputs gathered, posteriors copied out) overlaps another's
// kernels. All kept and grown between batches.
template <typename real>
struct decoder_lane {
    device_buffer<real> G, Lpart, scratch, priors;
    device_buffer<real> table;         // the position table (launch_params::T), if any
    device_buffer<double> alpha, beta; // the state metrics, in double
    device_buffer<double> log_alpha_norm, log_beta_norm, log_lambda_end;
    device_buffer<double> priors_exact, post_d; // batches with priors
    device_buffer<real> post; // the posteriors in the decoder's precision
    upload_pack inputs;       // meta, bounds, has_prior, statuses and bits (run())
    // the segmented recursion's matrices, scales, first rows and counts
    device_buffer<double> seg_trans, seg_scale, seg_start;
    device_buffer<int> seg_ok;
    device_buffer<unsigned long long> packed;
    device_buffer<double> llr;      // soft input: the batch's LLRs
    device_buffer<real> soft;       // and their probabilities (launch_params::soft)
    pinned_buffer<double> llr_host; // soft input: the LLRs gathered for llr
    pinned_buffer<real> staging;    // the host's copy of post
    pinned_buffer<int> status_host; // and of status
    // the E-step (event_kernels.h): allocated by the first batch that asks
    device_buffer<double> ev_yprob, ev_index, ev_out, ev_items, ev_scratch;
    device_buffer<double> ev_pairs_index, ev_pairs; // substitution counts (A > 2)
    device_buffer<int> ev_frames, ev_want;
    cudaEvent_t kernels_done = nullptr; // recorded after its chunk's kernels
    // pass L in parts (run()): the copy stream, an event recorded after
    // each part's pass L, and one per part but the last recorded after
    // its copies, made on first use
    cudaStream_t copy_stream = nullptr;
    cudaEvent_t part_done = nullptr;
    std::vector<cudaEvent_t> part_copied;
    // device_allocations() when this lane last took the peak
    unsigned long long counted_allocations = ~0ull;
    decoder_lane() = default;
    decoder_lane(const decoder_lane&) = delete;
    decoder_lane& operator=(const decoder_lane&) = delete;
    ~decoder_lane()
    {
        for (cudaEvent_t e : { kernels_done, part_done })
            if (e)
                cudaEventDestroy(e);
        for (cudaEvent_t e : part_copied)
            cudaEventDestroy(e);
        if (copy_stream)
            cudaStreamDestroy(copy_stream);
    }
    void make_copy_stream(size_t events)
    {
        if (!copy_stream)
            BSID_CUDA(cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking));
        if (!part_done)
            BSID_CUDA(cudaEventCreateWithFlags(&part_done, cudaEventDisableTiming));
        // no throw between an event's making and its keeping
        part_copied.reserve(events);
        while (part_copied.size() < events) {
            cudaEvent_t e = nullptr;
            BSID_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
            part_copied.push_back(e);
        }
    }
    // f on each buffer whose size follows the batch: the device memory a
    // plan may count as its own (it is reused), freed when a batch does
    // not fit
    template <typename L, typename F>
    static void each_cached(L& l, F&& f)
    {
        for (auto* b : { &l.G, &l.Lpart, &l.table, &l.post, &l.scratch, &l.soft })
            f(*b); // device_buffer<real>
        for (auto* b : { &l.alpha,
                         &l.beta,
                         &l.post_d,
                         &l.llr,
                         &l.ev_yprob,
                         &l.ev_index,
                         &l.ev_items,
                         &l.ev_scratch,
                         &l.ev_pairs_index,
                         &l.seg_trans,
                         &l.seg_scale,
                         &l.seg_start })
            f(*b); // device_buffer<double>
    }
    size_t cached_bytes() const
    {
        size_t sum = 0;
        each_cached(*this, [&](const auto& b) { sum += b.bytes(); });
        return sum;
    }
    void release_cache()
    {
        each_cached(*this, [](auto& b) { b.release(); });
    }
};

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_DECODER_LANE_H */
