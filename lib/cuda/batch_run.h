/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA MAP decoder's batch pipeline (cuda_decoder::run()): frames
// todo[pos .. pos + count) of a batch decoded on one lane in windows of W
// indices, stage by stage. One batch_run holds what the stages share for
// one run; run() calls the stages in their order:
//  - gather: the received items, the priors and the small inputs, on the
//    host (pinned memory);
//  - allocate, upload: the lane's buffers grown, the inputs sent;
//  - the E-step's and the outputs' buffers (prepare_events, prepare_outputs);
//  - take_turn: the lane's kernels queued behind the chunk launched before;
//  - set_params: the kernels' launch_params (make_params, the one place they
//    are filled) and the packed bits;
//  - the passes: pass G, the recursions (alpha, beta) and pass L with its
//    finish (only where a frame asks for its posteriors), over the whole frame (global
//    storage, pass L in parts for the batch's last frames) or window by window (local
//    storage); the E-step;
//  - end_turn, copy_back: the statuses and posteriors copied back to pinned
//    memory (the tail parts' copied out meanwhile); record_stats: the
//    profile and the peak memory;
//  - finish: each frame's posteriors copied out, its metrics, evidence,
//    events and result.

#ifndef INCLUDED_BSID_CUDA_BATCH_RUN_H
#define INCLUDED_BSID_CUDA_BATCH_RUN_H

#include "map_decoder_cuda.h"
#include "stage_clock.h"
#include <cuda_runtime.h>
#include <mutex>
#include <vector>

namespace bsid {
namespace cuda {

template <typename real>
class batch_run
{
    using lane = decoder_lane<real>;

public:
    // the batch `job` of decoder dec (map_decoder_cuda.h says what it holds)
    batch_run(cuda_decoder<real>& dec, const batch_job<real>& job);
    batch_run(const batch_run&) = delete;
    batch_run& operator=(const batch_run&) = delete;

    //! The stages, in order.
    void run();

private:
    void gather_items();
    void gather_priors();
    void gather_inputs();
    void allocate();
    void upload();
    void prepare_events();
    void prepare_outputs();
    void take_turn();
    launch_params<real> make_params() const;
    void set_params();
    void lattice(int i0, int Wc, int pass);
    void launch_lattice(int pass);
    void recursion(int which, stage_clock::stage st);
    void global_passes();
    void local_passes();
    void events();
    void end_turn();
    void download_statuses(size_t j0, size_t j1, cudaStream_t stream);
    void copy_back();
    void record_stats();
    void finish();
    frame_result status_result(int status, int where, long long rho) const;
    void copy_out(size_t j0, size_t j1, const double* post_d) const;

    cuda_decoder<real>& dec;
    lane& ln;
    const std::vector<frame_view>& frames;
    const std::vector<double*>& post;
    const std::vector<size_t>& todo;
    const size_t pos, count, W;
    std::vector<frame_result>& results;
    const staged_io* io;
    std::unique_lock<std::mutex>* plan;
    const chunk_edges edges;

    const int F;
    const int Nn, Q, Mt, Mn;
    const bool recompute; // local storage: windows of W < N indices

    // gather
    std::vector<long long> offset, rho;
    std::vector<int> has_prior;
    bool any_prior = false, soft = false;
    long long total = 0;
    std::vector<real> priors;
    std::vector<double> priors_exact;
    bool send_bits = false;
    upload_pack& in;
    size_t at_meta = 0, at_bounds = 0, at_has_prior = 0, at_status = 0, at_bits = 0;
    // allocate, upload
    int seg_len = 0, segs = 0;
    const long long* d_offset = nullptr;
    const long long* d_rho = nullptr;
    const long long* d_packed_offset = nullptr;
    const double* d_bounds = nullptr;
    const int* d_has_prior = nullptr;
    int* d_status = nullptr; // the statuses, then their indices
    const uint8_t* p_bits = nullptr;
    // prepare_events
    std::vector<int> ev_frames, ev_items, fe_of;
    int Fe = 0;
    bool any_items = false;
    int npairs = 0; // the substitution counts each frame of the E-step gets (A^2 or 0)
    // prepare_outputs
    size_t NQ = 0, nout = 0;
    std::vector<size_t> parts;
    size_t nparts = 0, tail0 = 0;
    // some frame asks for its posteriors (frame_view::posteriors), or the
    // staged face or the E-step runs: pass L and its finish run
    bool want_post = true;
    copy_wait parts_copy; // the parts' copies, however run() ends
    // take_turn .. end_turn
    std::unique_lock<std::mutex> order;
    launch_params<real> p{};
    int prior_frames = 0;
    // the position table (launch_params::T): the books and positions its
    // buffer holds per frame (0 books: none), and the window (i0, Wc) and
    // residues pass G last made it for (books 0: none made)
    int table_books = 0;
    long long table_span = 0;
    struct table_window {
        int i0 = -1, Wc = 0, books = 0;
    } table_made;
    // per-stage device time (bsid_bench), from events around each stage
    stage_clock clock;
};

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_BATCH_RUN_H */
