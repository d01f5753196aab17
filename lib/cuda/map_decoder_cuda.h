/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA backend of the MAP decoder (map_decoder_cuda.cu says how it
// decodes): the decoder, which holds the device's constant inputs, its
// launch shapes and its lanes, and splits a batch into chunks; a chunk is
// decoded by the batch pipeline (batch_run.h), the device loop's staged
// batches too (staged_decoder_cuda.cu).

#ifndef INCLUDED_BSID_CUDA_MAP_DECODER_CUDA_H
#define INCLUDED_BSID_CUDA_MAP_DECODER_CUDA_H

#include "decoder_lane.h"
#include "device_buffer.h"
#include "device_loop.h"
#include "event_kernels.h"
#include "kernel_launchers.h"
#include "lane_pool.h"
#include "lattice_kernels.cuh"
#include "launch_plan.h"
#include "memory_planner.h"
#include "runtime/backends.h"
#include <gnuradio/bsid/core/inner/lattice.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace bsid {
namespace cuda {

template <typename real>
class batch_run;

// where a chunk of a batch stands: its first, its last (decode_chunk, run())
struct chunk_edges {
    bool first = false, last = false;
};

// The staged batch of the device loop (stage): its items stay on the device.
struct staged_batch {
    const std::vector<frame_view>* frames = nullptr;
    std::vector<long long> offset; // each frame's first item in d_staged_*
    bool soft = false;
};
// run() for the device loop: priors from and outputs to the device
struct staged_io {
    const double* log_priors = nullptr; // count x N x q, or null
    double* ext = nullptr;              // count x N x q
};

/*
 * One batch for run(): frames todo[pos .. pos + count) of `frames` (their
 * posteriors to post[], or null for the device loop), decoded on lane ln in
 * windows of W indices, each frame's result to results[]. plan (the
 * decoder's plan lock, held since W was planned) is released once the
 * lane's memory is allocated; io: the device loop's priors and outputs, or
 * null; edges: where the batch stands in its chunk.
 */
template <typename real>
struct batch_job {
    decoder_lane<real>& ln;
    const std::vector<frame_view>& frames;
    const std::vector<double*>& post;
    const std::vector<size_t>& todo;
    size_t pos, count, W;
    std::vector<frame_result>& results;
    const staged_io* io;
    std::unique_lock<std::mutex>* plan;
    chunk_edges edges;
};

template <typename real>
class cuda_decoder final : public map_decoder, public staged_inner
{
    using lane = decoder_lane<real>; // one stream's buffers (decoder_lane.h)
    friend class batch_run<real>;

public:
    cuda_decoder(const decoder_config& cfg, map_decoder_maker cpu_fallback);
    ~cuda_decoder() override;

    backend_kind backend() const override { return backend_kind::cuda; }
    storage_kind storage() const override { return d_memory.storage(); }
    bool wide_frames_in_parts() const override { return true; }
    size_t peak_device_bytes() const override
    {
        std::lock_guard<std::mutex> stats(d_stats_mutex);
        return d_peak_bytes;
    }

    frame_result decode(const frame_view& frame, double* post) override
    {
        return decode_batch({ frame }, { post })[0];
    }

    std::vector<frame_result> decode_batch(const std::vector<frame_view>& frames,
                                           const std::vector<double*>& post) override;

    // the device loop's staged face (device_loop.h; staged_decoder_cuda.cu)
    int device() const override { return d_device; }
    std::vector<char> stage(const std::vector<frame_view>& frames,
                            std::vector<frame_result>& results) override;
    void release() override;
    void decode_staged(const std::vector<size_t>& which,
                       const double* log_priors,
                       double* ext,
                       std::vector<frame_result>& results) override;

private:
    // the log's forms of the kernels (map_decoder_cuda.cu)
    std::string g_form() const;
    std::string ab_form() const;
    std::string lattice_form() const;
    void letter_inputs(const decoder_config& cfg);
    // A soft batch's items (any frame soft: soft_frame) travel in double,
    // soft_per_item() values an item: over bits LLRs (bits as +-infinity,
    // which weigh exactly as bits), over A > 2 letters the A probabilities
    // (item_probabilities; a hard letter exactly 1 and 0s); soft_host writes
    // one frame's, soft_on_device makes the kernels' p.soft of `items` items.
    static bool soft_frame(const frame_view& fv)
    {
        return fv.llr != nullptr || fv.logprob != nullptr;
    }
    size_t soft_per_item() const { return d_A == 2 ? 1 : size_t(d_A); }
    void soft_host(const frame_view& fv, double* to) const;
    void soft_on_device(const double* in, real* out, long long items) const;

    std::vector<size_t> check_chunk(const std::vector<frame_view>& frames,
                                    const std::vector<double*>& post,
                                    size_t from,
                                    size_t to,
                                    std::vector<frame_result>& results,
                                    bool first) const;
    void write_no_result(const frame_view& frame, double* post) const noexcept;
    void fail_chunk(const std::vector<frame_view>& frames,
                    const std::vector<double*>& post,
                    size_t from,
                    size_t to,
                    std::vector<frame_result>& results) const noexcept;
    void decode_chunk(lane& ln,
                      const std::vector<frame_view>& frames,
                      const std::vector<double*>& post,
                      const std::vector<size_t>& todo,
                      size_t from,
                      size_t to,
                      std::vector<frame_result>& results,
                      chunk_edges edges) noexcept;
    void fail(const std::vector<frame_view>& frames,
              const std::vector<double*>& post,
              const std::vector<size_t>& todo,
              size_t pos,
              size_t count,
              std::vector<frame_result>& results,
              const std::string& what) noexcept;
    void write_no_events(const frame_view& f) const { clear_events(f, d_A); }
    frame_result on_cpu(const frame_view& frame, double* post);
    void pairs_on_cpu(const std::vector<frame_view>& frames,
                      const std::vector<double*>& post,
                      std::vector<size_t>& todo,
                      std::vector<frame_result>& results) noexcept;
    map_decoder& cpu_fallback();

    int nwarps() const { return (d_limits.mtau.size() + 31) / 32; }
    memory_model memory() const;
    size_t window_for(const lane& ln,
                      const std::vector<frame_view>& frames,
                      const std::vector<size_t>& todo,
                      size_t pos,
                      size_t count);
    void run(const batch_job<real>& job);

    // whether a batch (soft input or not) runs on d_reg
    bool use_reg(bool soft) const { return d_reg && !(soft && d_reg_hard_only); }

    staged_batch d_staged;
    device_buffer<uint8_t> d_staged_bits;
    device_buffer<double> d_staged_llr;
    device_buffer<real> d_staged_soft;

    int d_device = 0;
    bool d_share_g = true; // decoder_config::share_g
    size_t d_peak_bytes = 0, d_baseline_used = 0;
    cudaDeviceProp d_prop{};
    lattice_weights<real> d_w{};
    device_buffer<uint32_t> d_words;
    device_buffer<uint32_t> d_sorted_words; // launch_params::sorted_words
    device_buffer<int> d_sorted_index;
    // over A > 2 letters (letter_inputs; launch_params::lw, lwreg, letter_words)
    int d_A = 2;
    device_buffer<real> d_lw, d_lwreg;
    device_buffer<uint32_t> d_letter_words;
    // the E-step's weights and launch shape (event_kernels.h)
    lattice_weights<double> d_ev_w{};
    device_buffer<double>
        d_ev_lw; // over A > 2 letters: A P(y | x), A x A (event_params::lw)
    event_plan d_ev_plan;
    std::vector<std::unique_ptr<lane>> d_lanes; // one per stream (d_streams)
    int d_streams = 1;
    int d_lane_threads = 1; // OpenMP threads of a lane's host copies
    // held while a lane plans its window and allocates, so that a plan sees
    // the memory the other lanes took
    std::mutex d_plan_mutex;
    mutable std::mutex d_stats_mutex; // d_peak_bytes and the stage profile
    std::mutex d_cpu_mutex;           // the CPU fallback (built on first use)
    // the event of the chunk whose kernels were launched last (run())
    std::mutex d_order_mutex;
    cudaEvent_t d_last_kernels = nullptr;
    std::unique_ptr<lane_pool> d_pool; // the lanes' host threads (lane_pool.h)
    general_shape d_general; // the general lattice kernel's launch (when !d_reg)
    int d_ab_block = 128;
    recursion_kind d_recursion = recursion_kind::automatic; // plan_segments per batch
    bool d_ab_warp =
        true; // warp recursions where M_tau allows (BSID_CUDA_AB=block: never)
    lattice_launcher<real> d_reg = nullptr; // the register kernel, if any
    // over letters with G by position: pass L from the position table
    // (plan_position_table decides per window), else null
    table_launcher<real> d_table = nullptr;
    bool d_reg_hard_only =
        false; // d_reg is a wide kernel: soft input takes the general one
    register_weights d_regw;
    // the memory a batch needs and the window it runs in (memory_planner.h),
    // made once the kernels are chosen (the general kernel's scratch counts)
    memory_planner d_memory;
    std::mutex d_mutex;
    map_decoder_maker d_make_cpu; // the CPU fallback's maker (runtime/backends.cc)
    std::unique_ptr<map_decoder> d_cpu;
};

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_MAP_DECODER_CUDA_H */
