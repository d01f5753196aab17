/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA backend of the MAP decoder: the paper's decoder ("The MAP Decoder",
// "Initial Parallel Implementation"), batched over frames.
//
// A batch of frames is decoded by these kernels:
//  - the lattice kernels (lattice_kernels.cuh): one thread per (frame, i, m')
//    of a window of symbol indices, looping over the q codewords' corridor
//    lattices (eqn:F, eqn:F_lastrow). gamma is never stored: pass G keeps
//    only its sums over D (G), which is all alpha and beta need, and pass L
//    makes the lattices again once alpha and beta are known and sums
//    alpha gamma beta over each warp's states (eqn:L). The register kernels
//    (lattice_kernel_reg.cuh) do a cell in two multiply-adds; the general one
//    (below) takes any corridor and codeword length;
//  - ab_kernel (ab_warp_kernel up to 64 states): one block (warp) per frame
//    and direction runs the forward (eqn:alpha, eqn:alpha_norm) or backward
//    (eqn:beta) recursion over the window in double, synchronized by barriers
//    (no limit on M_tau); with global storage both directions run at once;
//    norm_scan_kernel then sums the logs of their normalizers, which set the
//    scale of pass L's products;
//  - finish_kernel: the posteriors of each (frame, i), normalized (eqn:sigma);
//  - only in batches where some frame asks for its expected channel events
//    (frame_view::events), the E-step's kernels (event_kernels.cu) once alpha
//    and beta are final.
// Global storage keeps G for the whole frame (one window of N indices); local
// storage keeps windows of W < N indices and makes G again for the backward
// pass. W, the block sizes and the grid come from the device's properties,
// the occupancy API and the free memory at run time.
//
// Indices as in map_decoder_cpu.cc: a = m - m_tau^- (Mt states), e = d - m_n^-
// (Mn drift changes within a codeword), D (q symbols).

#include "cuda_check.h"
#include "device_buffer.h"
#include "device_loop.h"
#include "event_kernels.h"
#include "kernel_launchers.h"
#include "lane_pool.h"
#include "lattice_kernels.cuh"
#include "launch_plan.h"
#include "runtime/backends.h"
#include "runtime/format.h"
#include "stage_clock.h"
#include "upload_pack.h"
#include <gnuradio/bsid/core/estimation/event_counts.h>
#include <gnuradio/bsid/core/inner/lattice.h>
#include <gnuradio/bsid/core/inner/model.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <condition_variable>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <omp.h>
#include <system_error>
#include <type_traits>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace bsid {


namespace {

using namespace cuda;

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

template <typename real>
class cuda_decoder final : public map_decoder, public staged_inner
{
    struct lane; // one stream's buffers (below)
    // where a chunk of a batch stands: its first, its last (decode_chunk, run())
    struct chunk_edges {
        bool first = false, last = false;
    };

public:
    cuda_decoder(const decoder_config& cfg, map_decoder_maker cpu_fallback)
        : map_decoder(cfg), d_make_cpu(std::move(cpu_fallback))
    {
        const backend_settings set = settings_from(cfg);
        std::string why;
        if (!cuda_device_available(set.device, &why)) {
            throw std::runtime_error("map_decoder(cuda): no usable CUDA device (" + why +
                                     ")");
        }
        d_device = set.device;
        d_local_cap = set.local_window;
        d_streams = set.streams;
        d_share_g = set.share_g;

        for (int l = 0; l < d_streams; ++l)
            d_lanes.push_back(std::make_unique<lane>());
        d_pool = std::make_unique<lane_pool>(d_streams);
        BSID_CUDA(cudaSetDevice(d_device));
        BSID_CUDA(cudaGetDeviceProperties(&d_prop, d_device));
        const auto w = lattice_weights<real>::ratio(cfg.ch);
        d_w = w;
        std::vector<uint32_t> words;
        for (const auto& book : cfg.cb.books())
            words.insert(words.end(), book.begin(), book.end());
        d_words.allocate(words.size());
        d_words.upload(words.data(), words.size());
        if (reg_keeps_rows<real>) {
            // each book in increasing order, for the register kernels that
            // keep rows (reg_checkpoint, the double ones; lattice_codewords:
            // a run of codewords shares its first rows); float kernels never
            // read them
            const size_t q_ = size_t(q());
            std::vector<int> index(words.size());
            std::vector<uint32_t> sorted(words.size());
            for (size_t b = 0; b * q_ < words.size(); ++b) {
                int* ix = index.data() + b * q_;
                std::iota(ix, ix + q_, 0);
                std::stable_sort(ix, ix + q_, [&](int u, int v) {
                    return words[b * q_ + size_t(u)] < words[b * q_ + size_t(v)];
                });
                for (size_t t = 0; t < q_; ++t)
                    sorted[b * q_ + t] = words[b * q_ + size_t(ix[t])];
            }
            d_sorted_words.allocate(sorted.size());
            d_sorted_words.upload(sorted.data(), sorted.size());
            d_sorted_index.allocate(index.size());
            d_sorted_index.upload(index.data(), index.size());
        }
        // the E-step's lattices run in double in both precisions
        d_ev_w = lattice_weights<double>::ratio(cfg.ch);
        d_ev_plan =
            plan_events(n(), q(), d_limits.mtau.size(), d_limits.mn.size(), d_prop);

        // The register kernels' form of the weights (launch_plan.h)
        d_regw = plan_register_weights(cfg.ch, n(), sizeof(real) == 4);
        d_reg =
            d_regw.usable ? lattice_reg_launcher<real>(n(), d_limits.mn.size()) : nullptr;
        if (!d_reg && d_regw.usable) {
            // past the register kernels' reach: the wide ones, for hard input
            d_reg = lattice_wide_launcher<real>(n(), d_limits.mn.size());
            d_reg_hard_only = d_reg != nullptr;
        }

        // Launch shapes from the device and the occupancy API (paper,
        // "Handling Resource Limits" and "Improving Occupancy").
        // The general kernel (a corridor too wide for the register kernels)
        // keeps its rows in shared memory where they fit (plan_general).
        if (!d_reg || d_reg_hard_only) // (soft input then takes the general kernel)
            d_general = plan_general<real>(d_limits.mn.size(), d_prop);
        // alpha/beta blocks: one state per thread up to ab_max_block states
        // (the fast path), a multiple of 32 for the reductions
        d_ab_block =
            plan_ab_block(d_limits.mtau.size(),
                          std::min(ab_block_limit<real>(), d_prop.maxThreadsPerBlock));
        // recursion "block" keeps alpha and beta on the block kernels for
        // every M_tau (tests compare the two)
        d_ab_warp =
            plan_warp_recursion(set.recursion, d_limits.mtau.size(), d_limits.mn.size());
        d_recursion = set.recursion;

        const memory_model mm = memory();
        const size_t fixed = mm.per_frame(size_t(tau()));
        const size_t per_index = mm.per_index();
        size_t free_b = 0, total_b = 0;
        BSID_CUDA(cudaMemGetInfo(&free_b, &total_b));
        d_baseline_used = total_b - free_b;
        const bool global_fits =
            fixed + per_index * size_t(N()) + mm.general_scratch <= free_b / 10 * 8;
        if (cfg.storage == storage_kind::automatic) {
            d_storage = global_fits ? storage_kind::global : storage_kind::local;
        } else {
            d_storage = cfg.storage;
        }
        log(log_level::info,
            detail::concat("map_decoder(cuda): ",
                           d_prop.name,
                           " (",
                           d_prop.multiProcessorCount,
                           " SMs, ",
                           free_b >> 20,
                           " MiB free), ",
                           to_string(cfg.precision),
                           ", ",
                           to_string(d_storage),
                           " storage (G and L need ",
                           (per_index * size_t(N())) >> 20,
                           " MiB per frame); lattice: ",
                           lattice_form(),
                           g_form(),
                           ", alpha/beta ",
                           d_ab_warp ? d_recursion == recursion_kind::segmented
                                           ? "warp (segmented)"
                                           : "warp (segmented for small batches)"
                                     : detail::concat("block ", d_ab_block, ab_form())));
    }

    // pass G's mapping, for the log (plan_shared_g over a whole frame; a
    // local window takes it where its own width allows)
    std::string g_form() const
    {
        const int books =
            d_reg && d_share_g
                ? plan_shared_g(n(), d_cfg.cb.P(), d_limits.mtau.size(), N())
                : 0;
        return books > 0 ? detail::concat("; G by position (",
                                          books,
                                          " books, frames without priors)")
                         : std::string("; G by index");
    }

    // the block recursions' form, for the log: nothing on their fast path
    std::string ab_form() const
    {
        const int Mt = d_limits.mtau.size(), Mn = d_limits.mn.size();
        if (plan_ab_fast(Mt, Mn, d_ab_block))
            return "";
        return plan_ab_row_pad(Mt, Mn, d_ab_block) > 0
                   ? " (rows kernel, row in shared memory)"
                   : " (rows kernel, row in global memory)";
    }

    backend_kind backend() const override { return backend_kind::cuda; }
    storage_kind storage() const override { return d_storage; }
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
                                           const std::vector<double*>& post) override
    {
        if (post.size() != frames.size()) {
            throw std::invalid_argument(
                "decode_batch: one output buffer per frame is needed");
        }
        std::vector<frame_result> results(frames.size());
        for (size_t k = 0; k < frames.size(); ++k) {
            if (frames[k].priors)
                validate_priors(frames[k].priors,
                                frames[k].log_priors); // throws before any work
        }
        std::lock_guard<std::mutex> lock(d_mutex); // one batch at a time on the device
        // the frames in chunks, taken in order by d_streams lanes at once
        // (plan_chunk): while one lane's kernels run, another checks and
        // gathers its inputs or copies its posteriors out
        const int lanes = d_profiling ? 1 : d_streams; // stage times need one at a time
        const size_t chunk = plan_chunk(frames.size(), lanes);
        const size_t chunks = frames.empty() ? 0 : (frames.size() + chunk - 1) / chunk;
        std::atomic<size_t> next{ 0 };
        auto work = [&](lane& ln) noexcept {
            for (size_t c = next++; c < chunks; c = next++) {
                const size_t from = c * chunk, to = std::min(frames.size(), from + chunk);
                std::vector<size_t> todo;
                try {
                    todo = check_chunk(frames, post, from, to, results, c == 0);
                } catch (...) {
                    fail_chunk(frames, post, from, to, results);
                    continue;
                }
                decode_chunk(ln,
                             frames,
                             post,
                             todo,
                             0,
                             todo.size(),
                             results,
                             { c == 0, c + 1 == chunks });
            }
        };
        const int used =
            int(std::min<size_t>(size_t(lanes), std::max<size_t>(chunks, 1)));
        // the host's cores shared among the lanes' copies (no lane's OpenMP
        // team spinning on the cores another lane's copies need)
        d_lane_threads = std::max(1, omp_get_max_threads() / used);
        d_pool->run(used, [&](int l) { work(*d_lanes[size_t(l)]); });
        return results;
    }

    ~cuda_decoder() override
    {
        if (d_pool)
            d_pool->stop(); // the lanes' threads, before their buffers go
        // the members' buffers and events are freed after this body, on this
        // thread: on this decoder's device, whichever the thread had selected
        // (one decoder per device, decoder_config::devices)
        cudaSetDevice(d_device);
    }

    // The frames [from, to) of a batch checked (precheck) on the calling
    // lane's thread, while another lane's kernels run: the refused ones get
    // their status and uniform posteriors here; returns the others. (Checked
    // for the whole batch on all cores before the lanes began, the check
    // contended with the lanes' OpenMP teams and took 0.4 to 6 ms a batch,
    // docs/benchmarks.md.) The batch's first chunk (first) is checked on the
    // lane's team instead: no kernel runs yet, so its check is the batch's
    // first kernel's wait.
    std::vector<size_t> check_chunk(const std::vector<frame_view>& frames,
                                    const std::vector<double*>& post,
                                    size_t from,
                                    size_t to,
                                    std::vector<frame_result>& results,
                                    bool first) const
    {
        std::vector<char> ok(to - from, 0);
        for_each_index(
            from,
            to,
            first && to - from >= team_min_frames,
            d_lane_threads,
            [&](size_t k) {
                try {
                    ok[k - from] = precheck(frames[k], results[k]);
                } catch (...) {
                    results[k].status = frame_status::decoder_error;
                    try {
                        results[k].reason =
                            "the frame could not be checked (out of host memory)";
                    } catch (...) {
                    }
                }
                if (!ok[k - from])
                    write_no_result(frames[k], post[k]);
            });
        std::vector<size_t> todo;
        todo.reserve(to - from);
        for (size_t k = from; k < to; ++k)
            if (ok[k - from])
                todo.push_back(k); // reserved: no allocation
        return todo;
    }

    // What a frame that is not decoded gets: uniform posteriors, and no
    // boundary metrics, evidence or events
    void write_no_result(const frame_view& frame, double* post) const noexcept
    {
        fill_uniform(post);
        write_boundary_metrics(frame, nullptr, nullptr, nullptr);
        write_no_evidence(frame);
        write_no_events(frame);
    }

    // check_chunk could not allocate its list (out of host memory): every
    // frame of the chunk fails
    void fail_chunk(const std::vector<frame_view>& frames,
                    const std::vector<double*>& post,
                    size_t from,
                    size_t to,
                    std::vector<frame_result>& results) const noexcept
    {
        for (size_t k = from; k < to; ++k) {
            write_no_result(frames[k], post[k]);
            results[k].status = frame_status::decoder_error;
            try {
                results[k].reason = "the frame could not be checked (out of host memory)";
            } catch (...) {
            }
        }
    }

    // Frames todo[from .. to) on lane ln: as many at a time as fit in device
    // memory (at least one window index each), a frame that does not fit and
    // any that the device runs out of memory for on the CPU, and a device
    // error as those frames' decoder_error. edges: whether the chunk is the
    // batch's first and its last (run()'s, for its first and last frames).
    // Never throws.
    void decode_chunk(lane& ln,
                      const std::vector<frame_view>& frames,
                      const std::vector<double*>& post,
                      const std::vector<size_t>& todo,
                      size_t from,
                      size_t to,
                      std::vector<frame_result>& results,
                      chunk_edges edges) noexcept
    {
        size_t pos = from;
        while (pos < to) {
            size_t count = to - pos;
            try {
                BSID_CUDA(cudaSetDevice(d_device));
                std::unique_lock<std::mutex> plan(d_plan_mutex);
                size_t W = 0;
                while (true) {
                    W = window_for(ln, frames, todo, pos, count);
                    if (W >= 1 || count == 1)
                        break;
                    count = (count + 1) / 2;
                }
                if (W < 1) {
                    plan.unlock();
                    // one frame does not fit: decode it on the CPU rather than fail
                    log(log_level::warning,
                        "map_decoder(cuda): a frame does not fit in device "
                        "memory; decoding it on the CPU");
                    results[todo[pos]] = on_cpu(frames[todo[pos]], post[todo[pos]]);
                    ++pos;
                    continue;
                }
                try {
                    run(ln,
                        frames,
                        post,
                        todo,
                        pos,
                        count,
                        W,
                        results,
                        nullptr,
                        &plan,
                        { edges.first && pos == from, edges.last && pos + count == to });
                } catch (const cuda_error& e) {
                    if (e.code != cudaErrorMemoryAllocation)
                        throw;
                    // out of device memory after all (another user?): the CPU takes over
                    if (plan.owns_lock())
                        plan.unlock();
                    ln.release_cache();
                    log(log_level::warning,
                        std::string("map_decoder(cuda): ") + e.what() +
                            "; decoding on the CPU");
                    for (size_t j = pos; j < pos + count; ++j)
                        results[todo[j]] = on_cpu(frames[todo[j]], post[todo[j]]);
                }
            } catch (const std::exception& e) {
                // a device error, or host memory running out: these frames
                // fail, the batch and the process go on
                fail(frames, post, todo, pos, count, results, e.what());
            } catch (...) {
                fail(frames, post, todo, pos, count, results, "unknown error");
            }
            pos += count;
        }
    }

    int device() const override { return d_device; }

    std::vector<char> stage(const std::vector<frame_view>& frames,
                            std::vector<frame_result>& results) override
    {
        results.assign(frames.size(), frame_result{});
        std::vector<char> valid(frames.size(), 0);
        for (size_t k = 0; k < frames.size(); ++k) {
            if (frames[k].priors)
                validate_priors(frames[k].priors, frames[k].log_priors);
            valid[k] = precheck(frames[k], results[k]);
        }
        std::lock_guard<std::mutex> lock(d_mutex);
        BSID_CUDA(cudaSetDevice(d_device));
        d_staged.frames = &frames;
        d_staged.offset.assign(frames.size(), 0);
        d_staged.soft = false;
        long long total = 0;
        for (size_t k = 0; k < frames.size(); ++k) {
            if (!valid[k])
                continue;
            d_staged.soft = d_staged.soft || frames[k].llr != nullptr;
            d_staged.offset[k] = total;
            total += (long long)frames[k].rho;
        }
        d_staged.soft = d_staged.soft && total > 0;
        const size_t T = size_t(std::max<long long>(total, 1));
        if (d_staged.soft) {
            // every frame's items as LLRs (bits as +-infinity), as run() does
            std::vector<double> llr(T, 0.0);
            const double inf = std::numeric_limits<double>::infinity();
            for (size_t k = 0; k < frames.size(); ++k) {
                if (!valid[k])
                    continue;
                const frame_view& fv = frames[k];
                double* to = llr.data() + d_staged.offset[k];
                for (size_t t = 0; t < fv.rho; ++t)
                    to[t] = fv.llr ? fv.llr[t] : (fv.bits[t] ? inf : -inf);
            }
            d_staged_llr.ensure(T);
            d_staged_soft.ensure(2 * T);
            d_staged_llr.upload(llr.data(), T);
            launch_soft_items<real>(d_staged_llr.get(), d_staged_soft.get(), total);
        } else {
            std::vector<uint8_t> bits(T, 0);
            for (size_t k = 0; k < frames.size(); ++k) {
                if (valid[k])
                    std::copy(frames[k].bits,
                              frames[k].bits + frames[k].rho,
                              bits.begin() + d_staged.offset[k]);
            }
            d_staged_bits.ensure(T);
            d_staged_bits.upload(bits.data(), T);
        }
        return valid;
    }

    void decode_staged(const std::vector<size_t>& which,
                       const double* log_priors,
                       double* ext,
                       std::vector<frame_result>& results) override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        if (!d_staged.frames)
            throw std::logic_error(
                "map_decoder(cuda): decode_staged without a staged batch");
        const auto& frames = *d_staged.frames;
        const size_t NQ = size_t(N()) * size_t(q());
        std::vector<double*> none(frames.size(), nullptr);
        lane& ln = *d_lanes[0]; // on the caller's thread and stream
        d_lane_threads = omp_get_max_threads();
        size_t pos = 0;
        while (pos < which.size()) {
            size_t count = which.size() - pos, W = 0;
            std::unique_lock<std::mutex> plan(d_plan_mutex);
            while (true) {
                W = window_for(ln, frames, which, pos, count);
                if (W >= 1 || count == 1)
                    break;
                count = (count + 1) / 2;
            }
            if (W < 1)
                throw std::runtime_error(
                    "map_decoder(cuda): a frame does not fit in device memory");
            staged_io io;
            io.log_priors = log_priors ? log_priors + pos * NQ : nullptr;
            io.ext = ext + pos * NQ;
            run(ln, frames, none, which, pos, count, W, results, &io, &plan, {});
            pos += count;
        }
    }

private:
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
    staged_batch d_staged;
    device_buffer<uint8_t> d_staged_bits;
    device_buffer<double> d_staged_llr;
    device_buffer<real> d_staged_soft;

    // Frames todo[pos .. pos + count) failed on the device: decoder_error, uniform
    // posteriors.
    void fail(const std::vector<frame_view>& frames,
              const std::vector<double*>& post,
              const std::vector<size_t>& todo,
              size_t pos,
              size_t count,
              std::vector<frame_result>& results,
              const std::string& what) noexcept
    {
        try {
            log(log_level::error,
                detail::concat("map_decoder(cuda): ", count, " frames failed: ", what));
            for (size_t j = pos; j < pos + count; ++j) {
                write_no_result(frames[todo[j]], post[todo[j]]);
                results[todo[j]] = { frame_status::decoder_error,
                                     "the CUDA decoder failed on the frame: " + what };
            }
        } catch (...) {
        }
    }

    // A frame without events (refused, or failed): zero events and item posteriors.
    static void write_no_events(const frame_view& f)
    {
        if (!f.events)
            return;
        *f.events = event_counts{};
        if (f.item_posteriors)
            std::fill(f.item_posteriors, f.item_posteriors + 2 * f.rho, 0.0);
    }

    int nwarps() const { return (d_limits.mtau.size() + 31) / 32; }
    memory_model memory() const
    {
        memory_model m;
        m.N = N();
        m.q = q();
        m.Mt = d_limits.mtau.size();
        m.Mn = d_limits.mn.size();
        m.real_bytes = sizeof(real);
        // the general lattice kernel's rows (two of Mn values per thread)
        // (counted unless every batch, soft or not, runs on d_reg)
        m.general_scratch = use_reg(true) ? 0 : sizeof(real) * d_general.scratch_items;
        return m;
    }

    // Window length for frames todo[pos .. pos+count) (plan_window): N for
    // global storage when it fits, else a local window (0: none fits).
    size_t window_for(const lane& ln,
                      const std::vector<frame_view>& frames,
                      const std::vector<size_t>& todo,
                      size_t pos,
                      size_t count)
    {
        std::vector<size_t> rho(count);
        memory_model m = memory();
        for (size_t j = 0; j < count; ++j) {
            const frame_view& fv = frames[todo[pos + j]];
            rho[j] = fv.rho;
            m.soft = m.soft || fv.llr != nullptr;
            m.events = m.events || fv.events != nullptr;
            m.items = m.items || (fv.events && fv.item_posteriors);
        }
        m.events_scratch = sizeof(double) * d_ev_plan.scratch_doubles();
        // the lane's buffers are reused: where they alone hold what the
        // widest window needs, the device's free memory is not asked for
        const size_t cached = ln.cached_bytes();
        if (const size_t W = plan_window_in_cache(m, rho, cached, d_storage, d_local_cap))
            return W;
        size_t free_b = 0, total_b = 0;
        BSID_CUDA(cudaMemGetInfo(&free_b, &total_b));
        bool fell_back = false;
        const size_t W = plan_window(m,
                                     rho,
                                     free_b + cached,
                                     d_storage,
                                     d_local_cap,
                                     &fell_back); // the cache is reused
        if (fell_back && W >= 1 && !d_warned_global) {
            d_warned_global = true;
            log(log_level::warning,
                detail::concat("map_decoder(cuda): global storage needs ",
                               (memory().per_index() * count * size_t(N())) >> 20,
                               " MiB for ",
                               count,
                               " frames, more than the device has free; falling back to "
                               "local storage"));
        }
        return W;
    }

    // Decodes frames todo[pos .. pos + count) on lane ln in windows of W
    // indices; plan (d_plan_mutex, held by the caller since it planned W) is
    // released once the lane's memory is allocated. edges.first: the batch's
    // first frames, which no other lane's kernels hide: their bits gathered
    // on the lane's team; edges.last: its last frames, which no other lane's
    // kernels follow: pass L in parts where plan_tail_parts says so, each
    // part's posteriors copied out while the later parts' pass L runs.
    void run(lane& ln,
             const std::vector<frame_view>& frames,
             const std::vector<double*>& post,
             const std::vector<size_t>& todo,
             size_t pos,
             size_t count,
             size_t W,
             std::vector<frame_result>& results,
             const staged_io* io,
             std::unique_lock<std::mutex>* plan,
             chunk_edges edges)
    {
        BSID_CUDA(cudaSetDevice(d_device));
        const int F = int(count);
        const int Nn = N(), Q = q(), Mt = d_limits.mtau.size(), Mn = d_limits.mn.size();
        const bool recompute = W < size_t(Nn);

        // host-side inputs
        // received items: bits, or for a batch with any soft frame, every
        // frame's items as LLRs (bits as +-infinity, which weigh exactly as bits),
        // copied on all cores straight into pinned memory
        std::vector<long long> offset(count), rho(count);
        std::vector<int> has_prior(count, 0);
        bool any_prior = false, soft = false;
        long long total = 0;
        for (size_t j = 0; j < count; ++j) {
            soft = soft || frames[todo[pos + j]].llr != nullptr;
            total += (long long)frames[todo[pos + j]].rho;
        }
        soft = soft && total > 0; // no items at all: the (empty) bit path
        if (io)
            soft = d_staged.soft; // the staged items' form
        total = 0;
        for (size_t j = 0; j < count; ++j) {
            const frame_view& fv = frames[todo[pos + j]];
            offset[j] = io ? d_staged.offset[todo[pos + j]] : total;
            rho[j] = (long long)fv.rho;
            total += rho[j];
            if (fv.priors && !io)
                any_prior = true;
        }
        if (io)
            any_prior = io->log_priors != nullptr;
        if (soft && !io) {
            ln.llr_host.ensure(size_t(total));
            double* llr = ln.llr_host.get();
#pragma omp parallel for schedule(dynamic, 4) num_threads(d_lane_threads)
            for (long long jj = 0; jj < (long long)count; ++jj) {
                const frame_view& fv = frames[todo[pos + size_t(jj)]];
                double* to = llr + offset[size_t(jj)];
                if (fv.llr) {
                    std::copy(fv.llr, fv.llr + fv.rho, to);
                } else {
                    const double inf = std::numeric_limits<double>::infinity();
                    for (size_t t = 0; t < fv.rho; ++t)
                        to[t] = fv.bits[t] ? inf : -inf;
                }
            }
        }
        // priors: in double for L (finish_kernel), and in the decoder's
        // precision for G, floored at its smallest normal value so that a
        // prior below its range is not a hard zero
        std::vector<real> priors;
        std::vector<double> priors_exact;
        if (any_prior && io) {
            std::fill(has_prior.begin(), has_prior.end(), 2); // extrinsic outputs
        } else if (any_prior) {
            priors.assign(size_t(F) * Nn * Q, real(1));
            priors_exact.assign(size_t(F) * Nn * Q, 1.0);
            for (size_t j = 0; j < count; ++j) {
                const frame_view& fv = frames[todo[pos + j]];
                if (!fv.priors)
                    continue;
                has_prior[j] = fv.extrinsic ? 2 : 1; // 2: the prior stays out of L
                double* ex = priors_exact.data() + j * size_t(Nn) * Q;
                normalized_priors(fv.priors, fv.log_priors, ex);
                real* pr = priors.data() + j * size_t(Nn) * Q;
                for (size_t t = 0; t < size_t(Nn) * Q; ++t) {
                    pr[t] = ex[t] > 0 ? real(std::max<double>(
                                            ex[t], std::numeric_limits<real>::min()))
                                      : real(0);
                }
            }
        }
        // the small inputs, gathered in pinned memory and sent in one copy
        // (upload_pack): each frame's offset, length and first packed word;
        // the boundary conditions (map_decoder::boundaries, normalized
        // there), every frame's start weights, then every frame's end
        // weights; which frames have priors; the frames' statuses (ok) and
        // the indices where they stopped; and the received bits
        const bool send_bits = !soft && !io;
        upload_pack& in = ln.inputs;
        in.clear();
        const size_t at_meta = in.add<long long>(3 * count);
        const size_t at_bounds = in.add<double>(2 * size_t(F) * Mt);
        const size_t at_has_prior = in.add<int>(count);
        const size_t at_status = in.add<int>(2 * count); // zeros: st_ok
        const size_t at_bits = in.add<uint8_t>(send_bits ? size_t(total) : 0);
        in.ensure();
        std::fill_n(in.host<int>(at_status), 2 * count, 0);
        std::copy(has_prior.begin(), has_prior.end(), in.host<int>(at_has_prior));
        {
            // each frame's boundary weights (2 M_tau doubles) and bits (a
            // byte per item), on this thread: an OpenMP team here, spinning
            // once done, cost the other lane's copies 3 to 4 % of S500's rate
            // at batch 4096 (docs/benchmarks.md). The batch's first frames on
            // the lane's team: no other lane's copies run yet, and the first
            // kernel waits for them.
            double* bounds = in.host<double>(at_bounds);
            uint8_t* to = send_bits ? in.host<uint8_t>(at_bits) : nullptr;
            for_each_index(0,
                           count,
                           edges.first && count >= team_min_frames,
                           d_lane_threads,
                           [&](size_t j) {
                               const frame_view& fv = frames[todo[pos + j]];
                               boundaries_into(
                                   fv, bounds + j * Mt, bounds + (F + j) * Mt);
                               if (to)
                                   std::copy(fv.bits, fv.bits + fv.rho, to + offset[j]);
                           });
        }

        // all device buffers are kept between batches (grown when needed)
        if (soft && !io) {
            ln.llr.ensure(size_t(total));
            ln.soft.ensure(2 * size_t(total));
            ln.llr.upload(ln.llr_host.get(), size_t(total));
            launch_soft_items<real>(ln.llr.get(), ln.soft.get(), total);
        }
        const size_t prior_size = any_prior ? size_t(F) * Nn * Q : 0;
        ln.priors.ensure(prior_size);
        ln.priors_exact.ensure(prior_size);
        if (any_prior && !io)
            ln.post_d.ensure(size_t(F) * Nn * Q);
        ln.G.ensure(size_t(F) * W * Mt * Mn);
        ln.Lpart.ensure(size_t(F) * W * size_t(nwarps()) * Q);
        ln.alpha.ensure(size_t(F) * (Nn + 1) * Mt);
        ln.beta.ensure(size_t(F) * (Nn + 1) * Mt);
        ln.log_alpha_norm.ensure(size_t(F) * (Nn + 1));
        ln.log_beta_norm.ensure(size_t(F) * (Nn + 1));
        ln.log_lambda_end.ensure(size_t(F));
        ln.post.ensure(size_t(F) * Nn * Q);
        // the segmented recursion (small batches in global storage)
        const int seg_len =
            recompute ? 0 : plan_segments(d_recursion, Mt, Mn, Nn, F, true);
        const int segs = seg_count(Nn, seg_len);
        if (seg_len > 0) {
            const seg_workspace ws(Mt, segs, F);
            ln.seg_trans.ensure(ws.trans);
            ln.seg_scale.ensure(ws.scale);
            ln.seg_start.ensure(ws.start);
            ln.seg_ok.ensure(ws.ok);
        }
        // each frame's offset, length and first packed word
        long long* meta = in.host<long long>(at_meta);
        long long words = 0;
        for (size_t j = 0; j < count; ++j) {
            meta[j] = offset[j];
            meta[count + j] = rho[j];
            meta[2 * count + j] = words;
            if (!soft)
                words += rho[j] / 64 + 3;
        }
        words = std::max<long long>(words, 1);
        ln.packed.ensure(static_cast<size_t>(words));
        in.upload(); // in order with the kernels on this lane's stream
        const long long* d_offset = in.device<long long>(at_meta);
        const long long* d_rho = d_offset + count;
        const long long* d_packed_offset = d_offset + 2 * count;
        const double* d_bounds = in.device<double>(at_bounds);
        const int* d_has_prior = in.device<int>(at_has_prior);
        int* d_status = in.device<int>(at_status); // the statuses, then their indices
        const uint8_t* p_bits = io ? d_staged_bits.get() : in.device<uint8_t>(at_bits);
        if (io && any_prior) {
            // the device loop's log-priors, normalized on the device as
            // normalized_priors does, and floored for G as below
            launch_prior_rows<real>(io->log_priors,
                                    (long long)F * Nn,
                                    Q,
                                    ln.priors.get(),
                                    ln.priors_exact.get());
        } else {
            ln.priors.upload(priors.data(), priors.size());
            ln.priors_exact.upload(priors_exact.data(), priors_exact.size());
        }
        // a refused frame's rows are never written: keep the copy back
        // defined (on this lane's stream, in order with its kernels)
        BSID_CUDA(cudaMemsetAsync(
            ln.post.get(), 0, sizeof(real) * size_t(F) * Nn * Q, cudaStreamPerThread));
        if (any_prior)
            BSID_CUDA(cudaMemsetAsync(io ? io->ext : ln.post_d.get(),
                                      0,
                                      sizeof(double) * size_t(F) * Nn * Q,
                                      cudaStreamPerThread));

        // the E-step (frame_view::events): only for a batch in which some
        // frame asks, and only for those frames (fe: their index among them)
        std::vector<int> ev_frames, ev_items, fe_of(count, -1);
        for (size_t j = 0; j < count; ++j) {
            const frame_view& fv = frames[todo[pos + j]];
            if (!fv.events)
                continue;
            fe_of[j] = int(ev_frames.size());
            ev_frames.push_back(int(j));
            ev_items.push_back(fv.item_posteriors ? 1 : 0);
        }
        const int Fe = int(ev_frames.size());
        const bool any_items =
            std::find(ev_items.begin(), ev_items.end(), 1) != ev_items.end();
        if (Fe > 0) {
            ln.ev_yprob.ensure(std::max<size_t>(2 * size_t(total), 1));
            ln.ev_frames.ensure(size_t(Fe));
            ln.ev_want.ensure(size_t(Fe));
            ln.ev_index.ensure(size_t(Fe) * size_t(Nn) * 4);
            ln.ev_out.ensure(size_t(Fe) * 4);
            ln.ev_scratch.ensure(d_ev_plan.scratch_doubles());
            ln.ev_frames.upload(ev_frames.data(), size_t(Fe));
            ln.ev_want.upload(ev_items.data(), size_t(Fe));
            BSID_CUDA(cudaMemset(ln.ev_out.get(), 0, sizeof(double) * size_t(Fe) * 4));
            if (any_items) {
                ln.ev_items.ensure(std::max<size_t>(2 * size_t(total), 1));
                BSID_CUDA(
                    cudaMemset(ln.ev_items.get(), 0, sizeof(double) * 2 * size_t(total)));
            }
            // the items' probabilities in double (a soft batch holds every
            // frame's items as LLRs, bits as +-infinity)
            launch_event_items(soft ? nullptr : p_bits,
                               soft ? ln.llr.get() : nullptr,
                               ln.ev_yprob.get(),
                               total);
        }
        if (!use_reg(soft)) // the general lattice kernel's rows, if in global memory
            ln.scratch.ensure(d_general.scratch_items);
        // the statuses and the posteriors come back through pinned memory
        const size_t NQ = size_t(Nn) * size_t(Q), nout = size_t(F) * NQ;
        ln.status_host.ensure(2 * count); // the statuses, then their indices
        if (!io)
            ln.staging.ensure(nout);
        // the batch's last frames in global storage: pass L in parts
        // (plan_tail_parts), each part's statuses and posteriors copied out
        // (on the lane's copy stream, then into the caller's buffers) while
        // the later parts' pass L runs; not with priors (their posteriors
        // come in double, post_d) or the E-step (after pass L, on every frame)
        const std::vector<size_t> parts =
            edges.last && !recompute && !io && !any_prior && Fe == 0
                ? plan_tail_parts(count)
                : std::vector<size_t>{ 0, count };
        const size_t nparts = parts.size() - 1;
        const size_t tail0 = parts[nparts - 1]; // the last part's first frame
        if (nparts > 1)
            ln.make_copy_stream(nparts - 1);
        copy_wait parts_copy; // the parts' copies, however run() ends
        // the statuses of frames [j0, j1) and their indices, queued on stream
        auto download_statuses = [&](size_t j0, size_t j1, cudaStream_t stream) {
            if (j0 == 0 && j1 == count) {
                in.download_async(at_status, ln.status_host.get(), 2 * count, stream);
                return;
            }
            in.download_async(
                at_status + j0 * sizeof(int), ln.status_host.get() + j0, j1 - j0, stream);
            in.download_async(at_status + (count + j0) * sizeof(int),
                              ln.status_host.get() + count + j0,
                              j1 - j0,
                              stream);
        };
        if (plan && plan->owns_lock())
            plan->unlock(); // the lane's memory is taken: the next lane may plan
        // The lanes' kernels run one chunk after another, in the order the
        // lanes get here (each waits on the event of the chunk launched
        // before): what overlaps is one lane's copies and host work with
        // another's kernels, not two chunks' kernels, which slow each other
        // down (docs/benchmarks.md, "Lanes").
        std::unique_lock<std::mutex> order(d_order_mutex);
        if (!ln.kernels_done)
            BSID_CUDA(cudaEventCreateWithFlags(&ln.kernels_done, cudaEventDisableTiming));
        if (d_last_kernels && d_last_kernels != ln.kernels_done)
            BSID_CUDA(cudaStreamWaitEvent(cudaStreamPerThread, d_last_kernels, 0));

        launch_params<real> p{};
        p.n = n();
        p.q = Q;
        p.P = d_cfg.cb.P();
        p.N = Nn;
        p.words = d_words.get();
        p.sorted_words = d_sorted_words.get();
        p.sorted_index = d_sorted_index.get();
        p.ins = d_w.ins;
        p.del = d_w.del;
        p.match = d_w.match;
        p.mismatch = d_w.mismatch;
        p.wmatch = real(d_regw.wmatch);
        p.wmismatch = real(d_regw.wmismatch);
        p.renorm_rows = d_regw.renorm_rows;
        p.renorm_factor = real(d_regw.renorm_factor);
        p.out_scale = real(d_regw.out_scale);
        for (int k = 0; k < reg_max_corridor; ++k) {
            // 0 past the corridor (the wide kernels' padded nodes)
            p.row0[k] =
                k < Mn ? model::lattice_row0(
                             k, -d_limits.mn.lo, d_w.ins, k > 0 ? p.row0[k - 1] : real(0))
                       : real(0);
        }
        p.mtlo = d_limits.mtau.lo;
        p.dlo = d_limits.mn.lo;
        p.Mt = Mt;
        p.Mn = Mn;
        p.F = F;
        p.bits = p_bits;
        p.soft = soft ? (io ? d_staged_soft.get() : ln.soft.get()) : nullptr;
        p.offset = d_offset;
        p.rho = d_rho;
        p.priors = any_prior ? ln.priors.get() : nullptr;
        p.prior_exact = any_prior ? ln.priors_exact.get() : nullptr;
        p.start = d_bounds;
        p.end = d_bounds + size_t(F) * Mt;
        p.has_prior = d_has_prior;
        p.W = int(W);
        p.nwarps = nwarps();
        p.G = ln.G.get();
        p.Lpart = ln.Lpart.get();
        p.alpha = ln.alpha.get();
        p.beta = ln.beta.get();
        p.log_alpha_norm = ln.log_alpha_norm.get();
        p.log_beta_norm = ln.log_beta_norm.get();
        p.log_lambda_end = ln.log_lambda_end.get();
        p.packed = ln.packed.get();
        p.packed_offset = d_packed_offset;
        if (!soft) {
            launch_pack(p.bits,
                        d_offset,
                        d_rho,
                        d_packed_offset,
                        ln.packed.get(),
                        F,
                        *std::max_element(rho.begin(), rho.end()) / 64 + 3);
        }
        p.post = ln.post.get();
        p.post_d = any_prior ? (io ? io->ext : ln.post_d.get()) : nullptr;
        p.status = d_status;
        p.status_index = d_status + count;
        p.seg_len = seg_len;
        p.segs = segs;
        p.seg_trans = ln.seg_trans.get();
        p.seg_scale = ln.seg_scale.get();
        p.seg_start = ln.seg_start.get();
        p.seg_ok = ln.seg_ok.get();

        const int prior_frames = int(std::count_if(
            has_prior.begin(), has_prior.end(), [](int h) { return h != 0; }));
        // per-stage device time (bsid_bench), from events around each stage
        stage_clock clock(d_profiling);
        auto lattice = [&](int i0, int Wc, int pass) {
            p.i0 = i0;
            p.Wc = Wc;
            clock.begin();
            launch_lattice(ln, p, pass, prior_frames);
            if (pass == pass_L)
                launch_finish(p);
            clock.end(pass == pass_G ? stage_clock::gamma : stage_clock::L);
        };
        auto recursion = [&](int which, stage_clock::stage st) {
            clock.begin();
            if (which == 2 && p.seg_len > 0)
                launch_segmented_recursion(p);
            else
                launch_recursion(p, which, d_ab_warp, d_ab_block);
            // the normalizers' logs for pass L: alpha's once the forward pass
            // is complete, beta's for the window just done
            if (which == 2) {
                launch_norm_scan(p, 2);
            } else {
                if (which == 0 && p.i0 + p.Wc == Nn)
                    launch_norm_scan(p, 0);
                if (which == 1)
                    launch_norm_scan(p, 1);
            }
            clock.end(st);
        };
        if (!recompute) {
            // global storage: G of the whole frame, then alpha and beta side
            // by side, then the posteriors
            lattice(0, Nn, pass_G);
            recursion(2, stage_clock::alpha);
            // pass L part by part (one part: the whole batch); a part's
            // statuses are final once its pass L (with its finish) is done
            const launch_params<real> whole = p;
            for (size_t i = 0; i < nparts; ++i) {
                const size_t j0 = parts[i], j1 = parts[i + 1];
                p = frame_range(whole, int(j0), int(j1 - j0));
                lattice(0, Nn, pass_L);
                if (i + 1 == nparts)
                    break; // the last part's copy follows the kernels
                // (the wait takes the event as recorded now: one event serves every part)
                BSID_CUDA(cudaEventRecord(ln.part_done, cudaStreamPerThread));
                parts_copy.stream = ln.copy_stream; // before anything is queued there
                BSID_CUDA(cudaStreamWaitEvent(ln.copy_stream, ln.part_done, 0));
                download_statuses(j0, j1, ln.copy_stream);
                ln.post.download_async_at(
                    ln.staging.get() + j0 * NQ, j0 * NQ, (j1 - j0) * NQ, ln.copy_stream);
                BSID_CUDA(cudaEventRecord(ln.part_copied[i], ln.copy_stream));
            }
            p = whole;
        } else {
            // local storage: forward window by window, then backward in
            // reverse, G made again for each window but the last, whose G
            // the forward pass left in memory (plan_local_windows)
            const std::vector<int> starts = plan_local_windows(Nn, int(W));
            const size_t K = starts.size();
            auto width = [&](size_t k) {
                return (k + 1 < K ? starts[k + 1] : Nn) - starts[k];
            };
            for (size_t k = 0; k < K; ++k) {
                lattice(starts[k], width(k), pass_G);
                recursion(0, stage_clock::alpha);
            }
            for (size_t k = K; k-- > 0;) {
                p.i0 = starts[k];
                p.Wc = width(k);
                if (k + 1 < K)
                    lattice(p.i0, p.Wc, pass_G);
                recursion(1, stage_clock::beta);
                lattice(p.i0, p.Wc, pass_L);
            }
        }
        if (Fe > 0) {
            // alpha and beta are final for all N + 1 indices (ln.alpha and
            // ln.beta hold whole frames in both storage modes)
            event_params e{};
            e.n = n();
            e.q = Q;
            e.P = d_cfg.cb.P();
            e.N = Nn;
            e.Mt = Mt;
            e.Mn = Mn;
            e.mtlo = d_limits.mtau.lo;
            e.dlo = d_limits.mn.lo;
            e.ins = d_ev_w.ins;
            e.del = d_ev_w.del;
            e.match = d_ev_w.match;
            e.mismatch = d_ev_w.mismatch;
            e.words = d_words.get();
            e.alpha = ln.alpha.get();
            e.beta = ln.beta.get();
            e.prior_exact = any_prior ? ln.priors_exact.get() : nullptr;
            e.has_prior = d_has_prior;
            e.status = d_status;
            e.offset = d_offset;
            e.rho = d_rho;
            e.yprob = ln.ev_yprob.get();
            e.Fe = Fe;
            e.frames = ln.ev_frames.get();
            e.want_items = ln.ev_want.get();
            e.index_events = ln.ev_index.get();
            e.events = ln.ev_out.get();
            e.items = any_items ? ln.ev_items.get() : nullptr;
            e.scratch = ln.ev_scratch.get();
            e.acc_global = ln.ev_scratch.get() +
                           size_t(d_ev_plan.grid) * d_ev_plan.block * d_ev_plan.stride;
            launch_events(d_ev_plan, e);
        }
        BSID_CUDA(cudaEventRecord(ln.kernels_done, cudaStreamPerThread));
        d_last_kernels = ln.kernels_done;
        order.unlock();
        // the statuses and the posteriors back to pinned memory, queued
        // behind the kernels: one wait for the lot (with pass L in parts, the
        // other parts' came on the copy stream, and are copied out here while
        // the later parts' pass L runs)
        download_statuses(tail0, count, cudaStreamPerThread);
        if (io && !any_prior) {
            // without priors the extrinsic output is the posterior: each row
            // in double, normalized again as below for the host
            launch_rows_to_double<real>(ln.post.get(), (long long)F * Nn, Q, io->ext);
        }
        if (!io) {
            ln.post.download_async_at(ln.staging.get() + tail0 * NQ,
                                      tail0 * NQ,
                                      nout - tail0 * NQ,
                                      cudaStreamPerThread);
        }
        for (size_t i = 0; i + 1 < nparts; ++i) {
            BSID_CUDA(cudaEventSynchronize(ln.part_copied[i]));
            copy_out(post, todo, pos, parts[i], parts[i + 1], ln, has_prior, nullptr);
        }
        parts_copy.stream = nullptr; // every part's copy is done
        BSID_CUDA(cudaStreamSynchronize(cudaStreamPerThread)); // this lane's stream
        {
            std::lock_guard<std::mutex> stats(d_stats_mutex);
            if (d_profiling) {
                const auto t = clock.collect();
                d_times.gamma += t[stage_clock::gamma];
                d_times.alpha += t[stage_clock::alpha];
                d_times.beta += t[stage_clock::beta];
                d_times.L += t[stage_clock::L];
            }
            // the device's use only grows when something is allocated (the
            // query costs a call into the driver per batch otherwise)
            const unsigned long long made = device_allocations().load();
            if (made != ln.counted_allocations) {
                ln.counted_allocations = made;
                size_t free_b = 0, total_b = 0;
                BSID_CUDA(cudaMemGetInfo(&free_b, &total_b));
                d_peak_bytes = std::max(d_peak_bytes, total_b - free_b - d_baseline_used);
            }
        }

        const int* status = ln.status_host.get();
        const int* where = status + count;
        std::vector<double> ev_out, ev_items_host;
        if (Fe > 0) {
            ev_out.resize(size_t(Fe) * 4);
            ln.ev_out.download(ev_out.data(), ev_out.size());
            if (any_items) {
                ev_items_host.resize(2 * size_t(total));
                ln.ev_items.download(ev_items_host.data(), ev_items_host.size());
            }
        }
        if (io) {
            for (size_t j = 0; j < count; ++j)
                results[todo[pos + j]] = status_result(status[j], where[j], rho[j]);
            return;
        }
        // the posteriors came through a pinned staging buffer kept between
        // batches: a fast copy, and no fresh host pages to fault in every batch
        std::vector<double> post_d;
        if (any_prior) {
            // frames with priors: posteriors in double (finish_kernel)
            post_d.resize(nout);
            ln.post_d.download(post_d.data(), nout);
        }
        copy_out(post, todo, pos, tail0, count, ln, has_prior, post_d.data());
        // the boundary metrics (alpha_N, beta_0) and the evidence of the frames
        // that ask for them, each gathered for the whole batch in one strided
        // copy (a copy per frame costs more than its decode)
        bool want_metrics = false, want_evidence = false;
        for (size_t j = 0; j < count; ++j) {
            want_metrics = want_metrics || frames[todo[pos + j]].boundary_metrics;
            want_evidence = want_evidence || frames[todo[pos + j]].log_evidence;
        }
        const size_t row = size_t(Nn + 1) * size_t(Mt) * sizeof(double);
        std::vector<double> alpha_N, beta_0, log_c, log_l;
        if (want_metrics) {
            alpha_N.resize(count * size_t(Mt));
            beta_0.resize(count * size_t(Mt));
            BSID_CUDA(cudaMemcpy2D(alpha_N.data(),
                                   size_t(Mt) * sizeof(double),
                                   ln.alpha.get() + size_t(Nn) * Mt,
                                   row,
                                   size_t(Mt) * sizeof(double),
                                   count,
                                   cudaMemcpyDeviceToHost));
            BSID_CUDA(cudaMemcpy2D(beta_0.data(),
                                   size_t(Mt) * sizeof(double),
                                   ln.beta.get(),
                                   row,
                                   size_t(Mt) * sizeof(double),
                                   count,
                                   cudaMemcpyDeviceToHost));
        }
        if (want_evidence) {
            log_c.resize(count);
            log_l.resize(count);
            BSID_CUDA(cudaMemcpy2D(log_c.data(),
                                   sizeof(double),
                                   ln.log_alpha_norm.get() + Nn,
                                   size_t(Nn + 1) * sizeof(double),
                                   sizeof(double),
                                   count,
                                   cudaMemcpyDeviceToHost));
            ln.log_lambda_end.download(log_l.data(), count);
        }
        for (size_t j = 0; j < count; ++j) {
            const size_t k = todo[pos + j];
            if (frames[k].events) {
                if (status[j] == st_ok) {
                    const double* v = ev_out.data() + size_t(fe_of[j]) * 4;
                    event_counts& ev = *frames[k].events;
                    ev.ins = v[0];
                    ev.del = v[1];
                    ev.trans = v[2];
                    ev.subst = v[3];
                    if (frames[k].item_posteriors) {
                        const double* from = ev_items_host.data() + 2 * size_t(offset[j]);
                        std::copy(
                            from, from + 2 * frames[k].rho, frames[k].item_posteriors);
                    }
                } else {
                    write_no_events(frames[k]);
                }
            }
            if (frames[k].boundary_metrics) {
                // frame_decoder's boundary posteriors
                if (status[j] == st_ok)
                    write_boundary_metrics(frames[k],
                                           alpha_N.data() + j * size_t(Mt),
                                           beta_0.data() + j * size_t(Mt),
                                           in.host<double>(at_bounds) + j * size_t(Mt));
                else
                    write_boundary_metrics(frames[k], nullptr, nullptr, nullptr);
            }
            if (frames[k].log_evidence) {
                // ln of C_N lambda_N (base-2 logs on the device), less the
                // N ln q that the sums over D without priors carry (the CPU
                // divides them by q), plus tau ln Pt (map_decoder.h)
                *frames[k].log_evidence =
                    status[j] == st_ok
                        ? (log_c[j] + log_l[j]) * std::log(2.0) -
                              (has_prior[j] ? 0.0 : double(Nn) * std::log(double(Q))) +
                              double(tau()) * std::log(d_cfg.ch.Pt())
                        : -std::numeric_limits<double>::infinity();
            }
            if (status[j] != st_ok)
                fill_uniform(post[k]);
            results[k] = status_result(status[j], where[j], rho[j]);
        }
    }

    // A frame's result from its device status.
    frame_result status_result(int status, int where, long long rho) const
    {
        if (status == st_ok)
            return {};
        std::string where_s =
            status == st_alpha ? detail::concat("no path reaches symbol boundary ", where)
            : status == st_end
                ? detail::concat("no path ends at drift rho - tau = ", rho - tau())
                : detail::concat("the backward pass vanished at symbol ", where);
        return { frame_status::impossible,
                 "the frame has probability 0 under the channel model within the drift "
                 "limits (" +
                     where_s + ")" };
    }

    // A frame decoded by the CPU backend instead (one at a time: the lanes share it).
    frame_result on_cpu(const frame_view& frame, double* post)
    {
        std::lock_guard<std::mutex> lock(d_cpu_mutex);
        return cpu_fallback().decode(frame, post);
    }

    map_decoder& cpu_fallback()
    {
        if (!d_cpu) {
            decoder_config c = d_cfg;
            c.backend = backend_kind::cpu;
            c.mtau = d_limits.mtau;
            c.mn = d_limits.mn;
            d_cpu = d_make_cpu(c);
        }
        return *d_cpu;
    }

    // the lattice kernel's form, for the log (the tests look for it)
    std::string lattice_form() const
    {
        const int Mn = d_limits.mn.size(), lo = d_limits.mn.lo;
        if (d_reg_hard_only)
            return detail::concat("wide registers (general for soft input), zero corner ",
                                  plan_wide_corner(n(), Mn, lo, d_regw.renorm_rows));
        if (d_reg)
            return detail::concat("registers, zero corner ",
                                  plan_reg_corner(n(), Mn, lo, d_regw.renorm_rows));
        return d_general.shared_bytes > 0 ? "general, rows in shared memory"
                                          : "general, rows in global memory";
    }

    // The posteriors of frames todo[pos + j], j in [j0, j1), from the lane's
    // pinned copies (staging, status_host) to their output buffers, on the
    // lane's share of the cores (tens of MB per batch; a few frames on this
    // thread alone: a team costs more than their copy). Frames with priors
    // (has_prior) take theirs from post_d, in double; refused frames keep
    // the uniform rows precheck or fail wrote.
    void copy_out(const std::vector<double*>& post,
                  const std::vector<size_t>& todo,
                  size_t pos,
                  size_t j0,
                  size_t j1,
                  const lane& ln,
                  const std::vector<int>& has_prior,
                  const double* post_d) const
    {
        const size_t NQ = size_t(N()) * size_t(q());
        const int Nn = N(), Q = q();
        const int* status = ln.status_host.get();
        const real* out = ln.staging.get();
        for_each_index(j0, j1, j1 - j0 >= team_min_frames, d_lane_threads, [&](size_t j) {
            const size_t k = todo[pos + j];
            if (status[j] != st_ok)
                return;
            double* to = post[k];
            if (has_prior[j]) {
                const double* from = post_d + j * NQ;
                std::copy(from, from + NQ, to);
                return;
            }
            const real* from = out + j * NQ;
            if constexpr (std::is_same<real, double>::value) {
                std::copy(from, from + NQ, to);
            } else {
                // single precision: each row normalized again in double, so that
                // it sums to 1 to double precision like the other backends' rows
                for (int i = 0; i < Nn; ++i, from += Q, to += Q) {
                    double sum = 0;
                    for (int D = 0; D < Q; ++D)
                        sum += double(from[D]);
                    for (int D = 0; D < Q; ++D)
                        to[D] = double(from[D]) / sum;
                }
            }
        });
    }

    // whether a batch (soft input or not) runs on d_reg
    bool use_reg(bool soft) const { return d_reg && !(soft && d_reg_hard_only); }

    // one pass of the lattice over the window: the register kernel when
    // there is one for this (n, Mn) and channel, the general one otherwise
    // prior_frames: how many of the batch's frames have priors (pass G by
    // position makes the others')
    void
    launch_lattice(lane& ln, const launch_params<real>& p, int pass, int prior_frames)
    {
        if (!use_reg(p.soft != nullptr)) {
            ln.scratch.ensure(d_general.scratch_items);
            launch_lattice_general(d_general, p, ln.scratch.get(), pass);
            return;
        }
        // share_P > 0: pass G by position, for the frames without priors;
        // g_prior_frames: by index, for the frames with priors only
        auto launch = [&](int share_P, int g_prior_frames) {
            launch_params<real> lp = p;
            lp.share_P = share_P;
            lp.g_prior_frames = g_prior_frames;
            const int span = share_P > 0 ? p.n * (p.Wc - 1) + p.Mt : p.Mt;
            // no idle warps when M_tau is small: they would take a block's
            // place on an SM while the working warps of small batches wait
            const int block = plan_reg_block(span);
            const int chunks = (span + block - 1) / block;
            const size_t per_frame = size_t(share_P > 0 ? share_P : p.Wc);
            d_reg(unsigned(size_t(p.F) * per_frame * size_t(chunks)),
                  unsigned(block),
                  lp,
                  chunks,
                  pass);
            BSID_CUDA(cudaGetLastError());
        };
        const int books = pass == pass_G && d_share_g && prior_frames < p.F
                              ? plan_shared_g(p.n, p.P, p.Mt, p.Wc)
                              : 0;
        if (books == 0) {
            launch(0, 0);
            return;
        }
        launch(books, 0);
        if (prior_frames > 0)
            launch(0, 1);
    }

    int d_device = 0;
    bool d_share_g = true; // decoder_config::share_g
    size_t d_peak_bytes = 0, d_baseline_used = 0;
    cudaDeviceProp d_prop{};
    lattice_weights<real> d_w{};
    device_buffer<uint32_t> d_words;
    device_buffer<uint32_t> d_sorted_words; // launch_params::sorted_words
    device_buffer<int> d_sorted_index;
    // the E-step's weights and launch shape (event_kernels.h)
    lattice_weights<double> d_ev_w{};
    event_plan d_ev_plan;
    // One stream's buffers for a chunk of a batch (run()): each stream of
    // decode_batch decodes its chunks in its own lane, so that one lane's
    // host work (inputs gathered, posteriors copied out) overlaps another's
    // kernels. All kept and grown between batches.
    struct lane {
        device_buffer<real> G, Lpart, scratch, priors;
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
        lane() = default;
        lane(const lane&) = delete;
        lane& operator=(const lane&) = delete;
        ~lane()
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
            for (auto* b : { &l.G, &l.Lpart, &l.post, &l.scratch, &l.soft })
                f(*b); // device_buffer<real>
            for (auto* b : { &l.alpha,
                             &l.beta,
                             &l.post_d,
                             &l.llr,
                             &l.ev_yprob,
                             &l.ev_index,
                             &l.ev_items,
                             &l.ev_scratch,
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
    bool d_reg_hard_only =
        false; // d_reg is a wide kernel: soft input takes the general one
    register_weights d_regw;
    int d_local_cap = 0; // local storage: most indices per window (0: from memory)
    storage_kind d_storage = storage_kind::global;
    bool d_warned_global = false;
    std::mutex d_mutex;
    map_decoder_maker d_make_cpu; // the CPU fallback's maker (runtime/backends.cc)
    std::unique_ptr<map_decoder> d_cpu;
};

} // namespace

int cuda_device_count()
{
    int count = 0; // left unwritten when there is no driver
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count > 0 ? count : 0;
}

bool cuda_device_available(int dev, std::string* why)
{
    int count = 0; // left unwritten when there is no driver
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        cudaGetLastError();
        const std::string runtime =
            std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
        if (!why)
            return false;
        if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice) {
            // without a driver the runtime reports an "insufficient" one: say what it
            // means
            void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
            if (!driver) {
                *why = "this machine has no GPU driver (libcuda.so.1 is not installed), "
                       "so no GPU "
                       "can be used";
            } else {
                dlclose(driver);
                *why = e == cudaErrorNoDevice
                           ? "the NVIDIA driver finds no GPU (" + runtime + ")"
                           : "the NVIDIA driver is older than this build's CUDA runtime "
                             "needs (" +
                                 runtime + ")";
            }
        } else {
            *why = runtime;
        }
        return false;
    }
    if (count <= 0) {
        if (why)
            *why = "no CUDA device";
        return false;
    }
    if (dev < 0 || dev >= count) {
        if (why)
            *why = detail::concat(
                "device ", dev, " was asked for but there are ", count, " devices");
        return false;
    }
    return true;
}

bool cuda_device_available(const decoder_config& cfg, std::string* why)
{
    try {
        return cuda_device_available(settings_from(cfg).device, why);
    } catch (const std::invalid_argument& e) {
        if (why)
            *why = e.what();
        return false;
    }
}

std::unique_ptr<map_decoder> make_cuda_decoder(const decoder_config& cfg,
                                               map_decoder_maker cpu_fallback)
{
    if (cfg.precision == precision_kind::dual) {
        return std::make_unique<cuda_decoder<double>>(cfg, std::move(cpu_fallback));
    }
    return std::make_unique<cuda_decoder<float>>(cfg, std::move(cpu_fallback));
}

} // namespace bsid
