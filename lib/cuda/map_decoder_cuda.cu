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
//    (lattice_kernel_general.cu) takes any corridor and codeword length;
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
//
// The host side, by file: this one, the decoder (map_decoder_cuda.h): its
// setup and launch shapes, a batch's chunks on the lanes, the CPU fallback;
// batch_run.{h,cu} and batch_results.cu, a chunk's pipeline stage by stage;
// memory_planner.{h,cc}, the memory a batch needs and its window;
// decoder_lane.h, a lane's buffers; staged_decoder_cuda.cu, the device
// loop's staged face; cuda_devices.cu, the device queries.

#include "batch_run.h"
#include "cuda_check.h"
#include "host_team.h"
#include "map_decoder_cuda.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/channel/soft_input.h>
#include <gnuradio/bsid/core/estimation/event_counts.h>
#include <gnuradio/bsid/core/inner/model.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <cuda_runtime.h>
#include <omp.h>
#include <algorithm>
#include <atomic>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace bsid {
namespace cuda {

template <typename real>
cuda_decoder<real>::cuda_decoder(const decoder_config& cfg,
                                 map_decoder_maker cpu_fallback)
    : map_decoder(cfg), d_make_cpu(std::move(cpu_fallback))
{
    const backend_settings set = settings_from(cfg);
    std::string why;
    if (!cuda_device_available(set.device, &why)) {
        throw std::runtime_error("map_decoder(cuda): no usable CUDA device (" + why +
                                 ")");
    }
    d_device = set.device;
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
    d_ev_plan = plan_events(
        n(), q(), d_limits.mtau.size(), d_limits.mn.size(), cfg.ch.alphabet(), d_prop);

    // The register kernels' form of the weights (launch_plan.h)
    d_regw = plan_register_weights(cfg.ch, n(), sizeof(real) == 4);
    d_A = cfg.ch.alphabet();
    if (d_A > 2) {
        letter_inputs(cfg);
        d_reg = d_regw.usable
                    ? lattice_letters_launcher<real>(d_A, n(), d_limits.mn.size())
                    : nullptr;
        d_table = d_reg && d_share_g ? lattice_table_launcher<real>(d_limits.mn.size())
                                     : nullptr;
    } else {
        d_reg =
            d_regw.usable ? lattice_reg_launcher<real>(n(), d_limits.mn.size()) : nullptr;
    }
    if (!d_reg && d_regw.usable && d_A == 2) {
        // past the register kernels' reach: the wide ones, for hard input
        d_reg = lattice_wide_launcher<real>(n(), d_limits.mn.size());
        d_reg_hard_only = d_reg != nullptr;
    }

    // Launch shapes from the device and the occupancy API (paper,
    // "Handling Resource Limits" and "Improving Occupancy").
    // The general kernel (a corridor too wide for the register kernels)
    // keeps its rows in shared memory where they fit (plan_general).
    if (!d_reg || d_reg_hard_only) // (soft input then takes the general kernel)
        d_general = plan_general<real>(d_limits.mn.size(), d_prop, d_A > 2);
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

    // the memory model once the kernels are chosen; global storage where a
    // frame fits in 80 % of the free memory (memory_planner::choose_storage)
    d_memory = memory_planner(
        memory(), sizeof(double) * d_ev_plan.scratch_doubles(), set.local_window);
    const size_t per_index = d_memory.model().per_index();
    size_t free_b = 0, total_b = 0;
    BSID_CUDA(cudaMemGetInfo(&free_b, &total_b));
    d_baseline_used = total_b - free_b;
    const storage_kind storage =
        d_memory.choose_storage(cfg.storage, size_t(tau()), free_b);
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
                       to_string(storage),
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

// Over A > 2 letters, the kernels' weights and codewords
// (launch_params::lw, lwreg, letter_words): A P(y | x) in the ratio form, as
// the CPU's letter tables, and divided by del for the register kernels.
template <typename real>
void cuda_decoder<real>::letter_inputs(const decoder_config& cfg)
{
    const size_t A = size_t(d_A);
    const double del = lattice_weights<double>::ratio(cfg.ch).del;
    std::vector<real> lw(A * A), lwreg(A * A);
    for (size_t x = 0; x < A; ++x) {
        for (size_t y = 0; y < A; ++y) {
            const double w = double(A) * cfg.ch.emission(unsigned(x), unsigned(y));
            lw[x * A + y] = real(w);
            lwreg[x * A + y] = real(w / del);
        }
    }
    d_lw.allocate(lw.size());
    d_lw.upload(lw.data(), lw.size());
    d_lwreg.allocate(lwreg.size());
    d_lwreg.upload(lwreg.data(), lwreg.size());
    std::vector<double> evw(A * A); // the E-step's, in double
    for (size_t x = 0; x < A; ++x)
        for (size_t y = 0; y < A; ++y)
            evw[x * A + y] = double(A) * cfg.ch.emission(unsigned(x), unsigned(y));
    d_ev_lw.allocate(evw.size());
    d_ev_lw.upload(evw.data(), evw.size());
    if (n() > 8)
        return; // the general kernel takes the codewords as they are
    std::vector<uint32_t> packed;
    for (const auto& book : cfg.cb.books()) {
        for (const uint32_t word : book) {
            uint32_t v = 0;
            for (int r = 0; r < n(); ++r)
                v |= uint32_t(cfg.cb.letter(word, r)) << (4 * (n() - 1 - r));
            packed.push_back(v);
        }
    }
    d_letter_words.allocate(packed.size());
    d_letter_words.upload(packed.data(), packed.size());
}

template <typename real>
void cuda_decoder<real>::soft_host(const frame_view& fv, double* to) const
{
    if (d_A > 2) {
        item_probabilities(fv.items(d_A), fv.rho, to);
    } else if (fv.llr) {
        std::copy(fv.llr, fv.llr + fv.rho, to);
    } else {
        const double inf = std::numeric_limits<double>::infinity();
        for (size_t t = 0; t < fv.rho; ++t)
            to[t] = fv.bits[t] ? inf : -inf;
    }
}

template <typename real>
void cuda_decoder<real>::soft_on_device(const double* in,
                                        real* out,
                                        long long items) const
{
    if (d_A > 2)
        launch_cast_items<real>(in, out, items * d_A);
    else
        launch_soft_items<real>(in, out, items);
}

// pass G's mapping, for the log (plan_shared_g over a whole frame; a
// local window takes it where its own width allows)
template <typename real>
std::string cuda_decoder<real>::g_form() const
{
    const int books = d_reg && d_share_g
                          ? plan_shared_g(n(), d_cfg.cb.P(), d_limits.mtau.size(), N())
                          : 0;
    const bool table =
        d_memory.model().table_books > 0; // where the memory model counts it
    return books > 0 ? detail::concat("; G by position (",
                                      books,
                                      " books, frames without priors)",
                                      table ? ", pass L from its table" : "")
                     : std::string("; G by index");
}

// the block recursions' form, for the log: nothing on their fast path
template <typename real>
std::string cuda_decoder<real>::ab_form() const
{
    const int Mt = d_limits.mtau.size(), Mn = d_limits.mn.size();
    if (plan_ab_fast(Mt, Mn, d_ab_block))
        return "";
    return plan_ab_row_pad(Mt, Mn, d_ab_block) > 0
               ? " (rows kernel, row in shared memory)"
               : " (rows kernel, row in global memory)";
}

// the lattice kernel's form, for the log (the tests look for it)
template <typename real>
std::string cuda_decoder<real>::lattice_form() const
{
    const int Mn = d_limits.mn.size(), lo = d_limits.mn.lo;
    if (d_reg_hard_only)
        return detail::concat("wide registers (general for soft input), zero corner ",
                              plan_wide_corner(n(), Mn, lo, d_regw.renorm_rows));
    if (d_reg && d_A > 2)
        return detail::concat("letters registers, zero corner ",
                              plan_reg_corner(n(), Mn, lo, d_regw.renorm_rows));
    if (d_reg)
        return detail::concat("registers, zero corner ",
                              plan_reg_corner(n(), Mn, lo, d_regw.renorm_rows));
    return d_general.shared_bytes > 0 ? "general, rows in shared memory"
                                      : "general, rows in global memory";
}

template <typename real>
std::vector<frame_result>
cuda_decoder<real>::decode_batch(const std::vector<frame_view>& frames,
                                 const std::vector<double*>& post)
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
            if (d_A > events_max_pairs_alphabet)
                pairs_on_cpu(frames, post, todo, results);
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
    const int used = int(std::min<size_t>(size_t(lanes), std::max<size_t>(chunks, 1)));
    // the host's cores shared among the lanes' copies (no lane's OpenMP
    // team spinning on the cores another lane's copies need)
    d_lane_threads = std::max(1, omp_get_max_threads() / used);
    d_pool->run(used, [&](int l) { work(*d_lanes[size_t(l)]); });
    return results;
}

template <typename real>
cuda_decoder<real>::~cuda_decoder()
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
template <typename real>
std::vector<size_t> cuda_decoder<real>::check_chunk(const std::vector<frame_view>& frames,
                                                    const std::vector<double*>& post,
                                                    size_t from,
                                                    size_t to,
                                                    std::vector<frame_result>& results,
                                                    bool first) const
{
    std::vector<char> ok(to - from, 0);
    for_each_index(
        from, to, first && to - from >= team_min_frames, d_lane_threads, [&](size_t k) {
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
template <typename real>
void cuda_decoder<real>::write_no_result(const frame_view& frame,
                                         double* post) const noexcept
{
    fill_uniform(post);
    write_boundary_metrics(frame, nullptr, nullptr, nullptr);
    write_no_evidence(frame);
    write_no_events(frame);
}

// check_chunk could not allocate its list (out of host memory): every
// frame of the chunk fails
template <typename real>
void cuda_decoder<real>::fail_chunk(const std::vector<frame_view>& frames,
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
template <typename real>
void cuda_decoder<real>::decode_chunk(lane& ln,
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
                run({ ln,
                      frames,
                      post,
                      todo,
                      pos,
                      count,
                      W,
                      results,
                      nullptr,
                      &plan,
                      { edges.first && pos == from, edges.last && pos + count == to } });
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

// Frames todo[pos .. pos + count) failed on the device: decoder_error, uniform
// posteriors.
template <typename real>
void cuda_decoder<real>::fail(const std::vector<frame_view>& frames,
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

// The frames of todo that ask for substitution counts over more letters than
// the events kernel keeps them for (events_max_pairs_alphabet): decoded on
// the CPU, and taken out of todo.
template <typename real>
void cuda_decoder<real>::pairs_on_cpu(const std::vector<frame_view>& frames,
                                      const std::vector<double*>& post,
                                      std::vector<size_t>& todo,
                                      std::vector<frame_result>& results) noexcept
{
    size_t kept = 0;
    for (const size_t k : todo) {
        if (!(frames[k].events && frames[k].substitution_counts)) {
            todo[kept++] = k;
            continue;
        }
        try {
            results[k] = on_cpu(frames[k], post[k]);
        } catch (const std::exception& e) {
            write_no_result(frames[k], post[k]);
            results[k].status = frame_status::decoder_error;
            try {
                results[k].reason = e.what();
            } catch (...) {
            }
        }
    }
    todo.resize(kept);
}

// A frame decoded by the CPU backend instead (one at a time: the lanes share it).
template <typename real>
frame_result cuda_decoder<real>::on_cpu(const frame_view& frame, double* post)
{
    std::lock_guard<std::mutex> lock(d_cpu_mutex);
    return cpu_fallback().decode(frame, post);
}

template <typename real>
map_decoder& cuda_decoder<real>::cpu_fallback()
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

// The decoder's memory model (memory_planner's base): its code, limits,
// precision and lattice kernels, without a batch's soft input or events.
template <typename real>
memory_model cuda_decoder<real>::memory() const
{
    memory_model m;
    m.N = N();
    m.q = q();
    m.Mt = d_limits.mtau.size();
    m.Mn = d_limits.mn.size();
    m.real_bytes = sizeof(real);
    m.alphabet = d_A;
    m.n = n();
    m.table_books = d_table ? plan_position_table(n(), q(), d_cfg.cb.P(), m.Mt, N()) : 0;
    // the general lattice kernel's rows (two of Mn values per thread)
    // (counted unless every batch, soft or not, runs on d_reg)
    m.general_scratch = use_reg(true) ? 0 : sizeof(real) * d_general.scratch_items;
    return m;
}

// Window length for frames todo[pos .. pos+count) (plan_window): N for
// global storage when it fits, else a local window (0: none fits).
template <typename real>
size_t cuda_decoder<real>::window_for(const lane& ln,
                                      const std::vector<frame_view>& frames,
                                      const std::vector<size_t>& todo,
                                      size_t pos,
                                      size_t count)
{
    const chunk_memory c = d_memory.chunk(frames, todo, pos, count);
    // the lane's buffers are reused: where they alone hold what the
    // widest window needs, the device's free memory is not asked for
    const size_t cached = ln.cached_bytes();
    if (const size_t W = d_memory.window_in_cache(c, cached))
        return W;
    size_t free_b = 0, total_b = 0;
    BSID_CUDA(cudaMemGetInfo(&free_b, &total_b));
    return d_memory.window(c, free_b + cached); // the cache is reused
}

// Decodes a batch (batch_job, map_decoder_cuda.h). edges.first: the batch's
// first frames, which no other lane's kernels hide: their bits gathered on
// the lane's team; edges.last: its last frames, which no other lane's
// kernels follow: pass L in parts where plan_tail_parts says so, each part's
// posteriors copied out while the later parts' pass L runs.
// (batch_run.h: the pipeline's stages)
template <typename real>
void cuda_decoder<real>::run(const batch_job<real>& job)
{
    batch_run<real> batch(*this, job);
    batch.run();
}

template class cuda_decoder<float>;
template class cuda_decoder<double>;

} // namespace cuda

std::unique_ptr<map_decoder> make_cuda_decoder(const decoder_config& cfg,
                                               map_decoder_maker cpu_fallback)
{
    if (cfg.precision == precision_kind::dual) {
        return std::make_unique<cuda::cuda_decoder<double>>(cfg, std::move(cpu_fallback));
    }
    return std::make_unique<cuda::cuda_decoder<float>>(cfg, std::move(cpu_fallback));
}

} // namespace bsid
