/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA MAP decoder's batch pipeline, stage by stage (batch_run.h).

#include "batch_run.h"
#include "cuda_check.h"
#include "host_team.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/estimation/event_counts.h>
#include <gnuradio/bsid/core/inner/model.h>
#include <omp.h>
#include <type_traits>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace bsid {
namespace cuda {

template <typename real>
batch_run<real>::batch_run(cuda_decoder<real>& dec, const batch_job<real>& job)
    : dec(dec),
      ln(job.ln),
      frames(job.frames),
      post(job.post),
      todo(job.todo),
      pos(job.pos),
      count(job.count),
      W(job.W),
      results(job.results),
      io(job.io),
      plan(job.plan),
      edges(job.edges),
      F(int(job.count)),
      Nn(dec.N()),
      Q(dec.q()),
      Mt(dec.d_limits.mtau.size()),
      Mn(dec.d_limits.mn.size()),
      recompute(job.W < size_t(Nn)),
      offset(job.count),
      rho(job.count),
      has_prior(job.count, 0),
      in(job.ln.inputs),
      fe_of(job.count, -1),
      clock(dec.d_profiling)
{
}

template <typename real>
void batch_run<real>::run()
{
    BSID_CUDA(cudaSetDevice(dec.d_device));
    gather_items();
    gather_priors();
    gather_inputs();
    allocate();
    upload();
    prepare_events();
    prepare_outputs();
    take_turn();
    set_params();
    if (!recompute)
        global_passes();
    else
        local_passes();
    events();
    end_turn();
    copy_back();
    record_stats();
    finish();
}

template <typename real>
void batch_run<real>::gather_items()
{
    // host-side inputs
    // received items: bits, or for a batch with any soft frame, every
    // frame's items as LLRs (bits as +-infinity, which weigh exactly as bits),
    // copied on all cores straight into pinned memory
    for (size_t j = 0; j < count; ++j) {
        soft = soft || dec.soft_frame(frames[todo[pos + j]]);
        total += (long long)frames[todo[pos + j]].rho;
    }
    soft = soft && total > 0; // no items at all: the (empty) bit path
    if (io)
        soft = dec.d_staged.soft; // the staged items' form
    total = 0;
    for (size_t j = 0; j < count; ++j) {
        const frame_view& fv = frames[todo[pos + j]];
        offset[j] = io ? dec.d_staged.offset[todo[pos + j]] : total;
        rho[j] = (long long)fv.rho;
        total += rho[j];
        if (fv.priors && !io)
            any_prior = true;
    }
    if (io)
        any_prior = io->log_priors != nullptr;
    if (soft && !io) {
        const size_t per = dec.soft_per_item();
        ln.llr_host.ensure(per * size_t(total));
        double* llr = ln.llr_host.get();
#pragma omp parallel for schedule(dynamic, 4) num_threads(dec.d_lane_threads)
        for (long long jj = 0; jj < (long long)count; ++jj)
            dec.soft_host(frames[todo[pos + size_t(jj)]],
                          llr + per * size_t(offset[size_t(jj)]));
    }
}

template <typename real>
void batch_run<real>::gather_priors()
{
    // priors: in double for L (finish_kernel), and in the decoder's
    // precision for G, floored at its smallest normal value so that a
    // prior below its range is not a hard zero
    if (any_prior && io) {
        std::fill(has_prior.begin(), has_prior.end(), 2); // extrinsic outputs
    } else if (any_prior) {
        // each frame's rows on the lane's threads (the rows past count
        // are ones, as frames without priors)
        const size_t NQ = size_t(Nn) * Q;
        priors.resize(size_t(F) * NQ);
        priors_exact.resize(size_t(F) * NQ);
        std::fill(priors.begin() + long(count * NQ), priors.end(), real(1));
        std::fill(priors_exact.begin() + long(count * NQ), priors_exact.end(), 1.0);
#pragma omp parallel for schedule(dynamic, 16) num_threads(dec.d_lane_threads)
        for (long long jj = 0; jj < (long long)count; ++jj) {
            const size_t j = size_t(jj);
            const frame_view& fv = frames[todo[pos + j]];
            double* ex = priors_exact.data() + j * NQ;
            real* pr = priors.data() + j * NQ;
            if (!fv.priors) {
                std::fill(ex, ex + NQ, 1.0);
                std::fill(pr, pr + NQ, real(1));
                continue;
            }
            has_prior[j] = fv.extrinsic ? 2 : 1; // 2: the prior stays out of L
            // (checked before the batch began: this does not throw)
            dec.normalized_priors(fv.priors, fv.log_priors, ex);
            for (size_t t = 0; t < NQ; ++t) {
                pr[t] =
                    ex[t] > 0
                        ? real(std::max<double>(ex[t], std::numeric_limits<real>::min()))
                        : real(0);
            }
        }
    }
}

template <typename real>
void batch_run<real>::gather_inputs()
{
    // the small inputs, gathered in pinned memory and sent in one copy
    // (upload_pack): each frame's offset, length and first packed word;
    // the boundary conditions (map_decoder::boundaries, normalized
    // there), every frame's start weights, then every frame's end
    // weights; which frames have priors; the frames' statuses (ok) and
    // the indices where they stopped; and the received bits
    send_bits = !soft && !io;
    in.clear();
    at_meta = in.add<long long>(3 * count);
    at_bounds = in.add<double>(2 * size_t(F) * Mt);
    at_has_prior = in.add<int>(count);
    at_status = in.add<int>(2 * count); // zeros: st_ok
    at_bits = in.add<uint8_t>(send_bits ? size_t(total) : 0);
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
                       dec.d_lane_threads,
                       [&](size_t j) {
                           const frame_view& fv = frames[todo[pos + j]];
                           dec.boundaries_into(
                               fv, bounds + j * Mt, bounds + (F + j) * Mt);
                           if (to)
                               std::copy(fv.bits, fv.bits + fv.rho, to + offset[j]);
                       });
    }
}

template <typename real>
void batch_run<real>::allocate()
{
    // all device buffers are kept between batches (grown when needed)
    if (soft && !io) {
        const size_t per = dec.soft_per_item();
        ln.llr.ensure(per * size_t(total));
        ln.soft.ensure(std::max<size_t>(per, 2) * size_t(total));
        ln.llr.upload(ln.llr_host.get(), per * size_t(total));
        dec.soft_on_device(ln.llr.get(), ln.soft.get(), total);
    }
    const size_t prior_size = any_prior ? size_t(F) * Nn * Q : 0;
    ln.priors.ensure(prior_size);
    ln.priors_exact.ensure(prior_size);
    if (any_prior && !io)
        ln.post_d.ensure(size_t(F) * Nn * Q);
    ln.G.ensure(size_t(F) * W * Mt * Mn);
    // the position table, where the decoder's memory model counts it
    // (plan_position_table over a frame), for the widest window's books
    // and positions (a narrower window takes at most as many)
    table_books = dec.d_table && dec.d_memory.model().table_books > 0
                      ? std::min(dec.d_cfg.cb.P(), int(W))
                      : 0;
    table_span = plan_table_span(dec.n(), int(W), Mt);
    ln.table.ensure(size_t(F) * size_t(table_books) * Q * Mn * size_t(table_span));
    ln.Lpart.ensure(size_t(F) * W * size_t(dec.nwarps()) * Q);
    ln.alpha.ensure(size_t(F) * (Nn + 1) * Mt);
    ln.beta.ensure(size_t(F) * (Nn + 1) * Mt);
    ln.log_alpha_norm.ensure(size_t(F) * (Nn + 1));
    ln.log_beta_norm.ensure(size_t(F) * (Nn + 1));
    ln.log_lambda_end.ensure(size_t(F));
    ln.post.ensure(size_t(F) * Nn * Q);
    // the segmented recursion (small batches in global storage)
    seg_len = recompute ? 0 : plan_segments(dec.d_recursion, Mt, Mn, Nn, F, true);
    segs = seg_count(Nn, seg_len);
    if (seg_len > 0) {
        const seg_workspace ws(Mt, segs, F);
        ln.seg_trans.ensure(ws.trans);
        ln.seg_scale.ensure(ws.scale);
        ln.seg_start.ensure(ws.start);
        ln.seg_ok.ensure(ws.ok);
    }
}

template <typename real>
void batch_run<real>::upload()
{
    // each frame's offset, length and first packed word
    long long* meta = in.host<long long>(at_meta);
    long long words = 0;
    for (size_t j = 0; j < count; ++j) {
        meta[j] = offset[j];
        meta[count + j] = rho[j];
        meta[2 * count + j] = words;
        if (!soft && dec.d_A == 2)
            words += rho[j] / 64 + 3;
    }
    words = std::max<long long>(words, 1);
    ln.packed.ensure(static_cast<size_t>(words));
    in.upload(); // in order with the kernels on this lane's stream
    d_offset = in.device<long long>(at_meta);
    d_rho = d_offset + count;
    d_packed_offset = d_offset + 2 * count;
    d_bounds = in.device<double>(at_bounds);
    d_has_prior = in.device<int>(at_has_prior);
    d_status = in.device<int>(at_status);
    p_bits = io ? dec.d_staged_bits.get() : in.device<uint8_t>(at_bits);
    if (io && any_prior) {
        // the device loop's log-priors, normalized on the device as
        // normalized_priors does, and floored for G as below
        launch_prior_rows<real>(
            io->log_priors, (long long)F * Nn, Q, ln.priors.get(), ln.priors_exact.get());
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
}

template <typename real>
void batch_run<real>::prepare_events()
{
    // the E-step (frame_view::events): only for a batch in which some
    // frame asks, and only for those frames (fe: their index among them)
    for (size_t j = 0; j < count; ++j) {
        const frame_view& fv = frames[todo[pos + j]];
        if (!fv.events)
            continue;
        fe_of[j] = int(ev_frames.size());
        ev_frames.push_back(int(j));
        ev_items.push_back(fv.item_posteriors ? 1 : 0);
    }
    Fe = int(ev_frames.size());
    any_items = std::find(ev_items.begin(), ev_items.end(), 1) != ev_items.end();
    const int A = dec.d_A;
    bool any_pairs = false;
    for (size_t j = 0; j < count; ++j)
        any_pairs = any_pairs || (frames[todo[pos + j]].events &&
                                  frames[todo[pos + j]].substitution_counts);
    // (a frame of more letters than the kernel counts pairs for is decoded
    // on the CPU: cuda_decoder::decode_chunk)
    npairs = any_pairs && A <= events_max_pairs_alphabet ? A * A : 0;
    if (Fe > 0) {
        ln.ev_yprob.ensure(std::max<size_t>(size_t(A) * size_t(total), 1));
        ln.ev_frames.ensure(size_t(Fe));
        ln.ev_want.ensure(size_t(Fe));
        ln.ev_index.ensure(size_t(Fe) * size_t(Nn) * 4);
        ln.ev_out.ensure(size_t(Fe) * 4);
        ln.ev_scratch.ensure(dec.d_ev_plan.scratch_doubles());
        ln.ev_frames.upload(ev_frames.data(), size_t(Fe));
        ln.ev_want.upload(ev_items.data(), size_t(Fe));
        BSID_CUDA(cudaMemset(ln.ev_out.get(), 0, sizeof(double) * size_t(Fe) * 4));
        if (npairs > 0) {
            ln.ev_pairs_index.ensure(size_t(Fe) * size_t(Nn) * size_t(npairs));
            ln.ev_pairs.ensure(size_t(Fe) * size_t(npairs));
            BSID_CUDA(cudaMemset(
                ln.ev_pairs.get(), 0, sizeof(double) * size_t(Fe) * size_t(npairs)));
        }
        if (any_items) {
            ln.ev_items.ensure(std::max<size_t>(size_t(A) * size_t(total), 1));
            BSID_CUDA(cudaMemset(
                ln.ev_items.get(), 0, sizeof(double) * size_t(A) * size_t(total)));
        }
        // the items' probabilities in double (a soft batch holds every
        // frame's items as LLRs, bits as +-infinity; over letters as their
        // A probabilities)
        launch_event_items(soft ? nullptr : p_bits,
                           soft ? ln.llr.get() : nullptr,
                           ln.ev_yprob.get(),
                           total,
                           A);
    }
}

template <typename real>
void batch_run<real>::prepare_outputs()
{
    if (!dec.use_reg(soft)) // the general lattice kernel's rows, if in global memory
        ln.scratch.ensure(dec.d_general.scratch_items);
    // the statuses and the posteriors come back through pinned memory
    NQ = size_t(Nn) * size_t(Q);
    nout = size_t(F) * NQ;
    ln.status_host.ensure(2 * count); // the statuses, then their indices
    if (!io)
        ln.staging.ensure(nout);
    // the batch's last frames in global storage: pass L in parts
    // (plan_tail_parts), each part's statuses and posteriors copied out
    // (on the lane's copy stream, then into the caller's buffers) while
    // the later parts' pass L runs; not with priors (their posteriors
    // come in double, post_d) or the E-step (after pass L, on every frame)
    // without a frame that asks for its posteriors (the look-ahead's and the
    // stream decoder's reads, which read the evidence and the boundary
    // posteriors), no pass L: the posteriors are left uniform, as on the CPU
    want_post = io || Fe > 0;
    for (size_t j = 0; j < count && !want_post; ++j)
        want_post = frames[todo[pos + j]].posteriors;
    parts = edges.last && !recompute && !io && !any_prior && Fe == 0 && want_post
                ? plan_tail_parts(count)
                : std::vector<size_t>{ 0, count };
    nparts = parts.size() - 1;
    tail0 = parts[nparts - 1]; // the last part's first frame
    if (nparts > 1)
        ln.make_copy_stream(nparts - 1);
}

// the statuses of frames [j0, j1) and their indices, queued on stream
template <typename real>
void batch_run<real>::download_statuses(size_t j0, size_t j1, cudaStream_t stream)
{
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
}

template <typename real>
void batch_run<real>::take_turn()
{
    if (plan && plan->owns_lock())
        plan->unlock(); // the lane's memory is taken: the next lane may plan
    // The lanes' kernels run one chunk after another, in the order the
    // lanes get here (each waits on the event of the chunk launched
    // before): what overlaps is one lane's copies and host work with
    // another's kernels, not two chunks' kernels, which slow each other
    // down (docs/benchmarks.md, "Lanes").
    order = std::unique_lock<std::mutex>(dec.d_order_mutex);
    if (!ln.kernels_done)
        BSID_CUDA(cudaEventCreateWithFlags(&ln.kernels_done, cudaEventDisableTiming));
    if (dec.d_last_kernels && dec.d_last_kernels != ln.kernels_done)
        BSID_CUDA(cudaStreamWaitEvent(cudaStreamPerThread, dec.d_last_kernels, 0));
}

// The kernels' parameters for this run, all made here from the decoder and
// the lane's buffers: the window (i0, Wc) and pass G's mapping (share_P,
// g_prior_frames) start at 0 and are set per pass (lattice, launch_lattice);
// frame_range takes a part's frames (global_passes)
template <typename real>
launch_params<real> batch_run<real>::make_params() const
{
    launch_params<real> p{};
    p.n = dec.n();
    p.q = Q;
    p.P = dec.d_cfg.cb.P();
    p.N = Nn;
    p.words = dec.d_words.get();
    p.sorted_words = dec.d_sorted_words.get();
    p.sorted_index = dec.d_sorted_index.get();
    p.ins = dec.d_w.ins;
    p.del = dec.d_w.del;
    p.match = dec.d_w.match;
    p.mismatch = dec.d_w.mismatch;
    p.wmatch = real(dec.d_regw.wmatch);
    p.wmismatch = real(dec.d_regw.wmismatch);
    p.renorm_rows = dec.d_regw.renorm_rows;
    p.renorm_factor = real(dec.d_regw.renorm_factor);
    p.out_scale = real(dec.d_regw.out_scale);
    for (int k = 0; k < reg_max_corridor; ++k) {
        // 0 past the corridor (the wide kernels' padded nodes)
        p.row0[k] = k < Mn ? model::lattice_row0(k,
                                                 -dec.d_limits.mn.lo,
                                                 dec.d_w.ins,
                                                 k > 0 ? p.row0[k - 1] : real(0))
                           : real(0);
    }
    p.A = dec.d_A;
    p.letters_uniform = dec.d_cfg.ch.substitution().empty() ? 1 : 0;
    p.lw = dec.d_lw.get();
    p.lwreg = dec.d_lwreg.get();
    p.letter_words = dec.d_letter_words.get();
    p.mtlo = dec.d_limits.mtau.lo;
    p.dlo = dec.d_limits.mn.lo;
    p.Mt = Mt;
    p.Mn = Mn;
    p.F = F;
    p.bits = p_bits;
    p.soft = soft ? (io ? dec.d_staged_soft.get() : ln.soft.get()) : nullptr;
    p.offset = d_offset;
    p.rho = d_rho;
    p.priors = any_prior ? ln.priors.get() : nullptr;
    p.prior_exact = any_prior ? ln.priors_exact.get() : nullptr;
    p.start = d_bounds;
    p.end = d_bounds + size_t(F) * Mt;
    p.has_prior = d_has_prior;
    p.W = int(W);
    p.nwarps = dec.nwarps();
    p.G = ln.G.get();
    p.T = table_books > 0 ? ln.table.get() : nullptr; // each pass takes it or not
    p.T_span = int(table_span);
    p.T_stride = (long long)table_books * Q * Mn * table_span;
    p.Lpart = ln.Lpart.get();
    p.alpha = ln.alpha.get();
    p.beta = ln.beta.get();
    p.log_alpha_norm = ln.log_alpha_norm.get();
    p.log_beta_norm = ln.log_beta_norm.get();
    p.log_lambda_end = ln.log_lambda_end.get();
    p.packed = ln.packed.get();
    p.packed_offset = d_packed_offset;
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
    return p;
}

template <typename real>
void batch_run<real>::set_params()
{
    p = make_params();
    if (!soft && dec.d_A == 2) {
        launch_pack(p.bits,
                    d_offset,
                    d_rho,
                    d_packed_offset,
                    ln.packed.get(),
                    F,
                    *std::max_element(rho.begin(), rho.end()) / 64 + 3);
    }
    prior_frames = int(
        std::count_if(has_prior.begin(), has_prior.end(), [](int h) { return h != 0; }));
}

template <typename real>
void batch_run<real>::lattice(int i0, int Wc, int pass)
{
    p.i0 = i0;
    p.Wc = Wc;
    clock.begin();
    launch_lattice(pass);
    if (pass == pass_L)
        launch_finish(p);
    clock.end(pass == pass_G ? stage_clock::gamma : stage_clock::L);
}

template <typename real>
void batch_run<real>::recursion(int which, stage_clock::stage st)
{
    clock.begin();
    if (which == 2 && p.seg_len > 0)
        launch_segmented_recursion(p);
    else
        launch_recursion(p, which, dec.d_ab_warp, dec.d_ab_block);
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
}

template <typename real>
void batch_run<real>::global_passes()
{
    // global storage: G of the whole frame, then alpha and beta side
    // by side, then the posteriors
    lattice(0, Nn, pass_G);
    recursion(2, stage_clock::alpha);
    if (!want_post)
        return;
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
}

template <typename real>
void batch_run<real>::local_passes()
{
    // local storage: forward window by window, then backward in
    // reverse, G made again for each window but the last, whose G
    // the forward pass left in memory (plan_local_windows)
    const std::vector<int> starts = plan_local_windows(Nn, int(W));
    const size_t K = starts.size();
    auto width = [&](size_t k) { return (k + 1 < K ? starts[k + 1] : Nn) - starts[k]; };
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
        if (want_post)
            lattice(p.i0, p.Wc, pass_L);
    }
}

template <typename real>
void batch_run<real>::events()
{
    if (Fe > 0) {
        // alpha and beta are final for all N + 1 indices (ln.alpha and
        // ln.beta hold whole frames in both storage modes)
        event_params e{};
        e.n = dec.n();
        e.q = Q;
        e.P = dec.d_cfg.cb.P();
        e.N = Nn;
        e.Mt = Mt;
        e.Mn = Mn;
        e.mtlo = dec.d_limits.mtau.lo;
        e.dlo = dec.d_limits.mn.lo;
        e.ins = dec.d_ev_w.ins;
        e.del = dec.d_ev_w.del;
        e.match = dec.d_ev_w.match;
        e.mismatch = dec.d_ev_w.mismatch;
        e.A = dec.d_A;
        e.lw = dec.d_A > 2 ? dec.d_ev_lw.get() : nullptr;
        e.words = dec.d_words.get();
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
        e.index_pairs = npairs > 0 ? ln.ev_pairs_index.get() : nullptr;
        e.pairs = npairs > 0 ? ln.ev_pairs.get() : nullptr;
        e.scratch = ln.ev_scratch.get();
        e.acc_global = ln.ev_scratch.get() + size_t(dec.d_ev_plan.grid) *
                                                 dec.d_ev_plan.block *
                                                 dec.d_ev_plan.stride;
        launch_events(dec.d_ev_plan, e);
    }
}

template <typename real>
void batch_run<real>::end_turn()
{
    BSID_CUDA(cudaEventRecord(ln.kernels_done, cudaStreamPerThread));
    dec.d_last_kernels = ln.kernels_done;
    order.unlock();
}

template <typename real>
void batch_run<real>::copy_back()
{
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
    if (!io && want_post) {
        ln.post.download_async_at(ln.staging.get() + tail0 * NQ,
                                  tail0 * NQ,
                                  nout - tail0 * NQ,
                                  cudaStreamPerThread);
    }
    for (size_t i = 0; i + 1 < nparts; ++i) {
        BSID_CUDA(cudaEventSynchronize(ln.part_copied[i]));
        copy_out(parts[i], parts[i + 1], nullptr);
    }
    parts_copy.stream = nullptr;                           // every part's copy is done
    BSID_CUDA(cudaStreamSynchronize(cudaStreamPerThread)); // this lane's stream
}

template <typename real>
void batch_run<real>::record_stats()
{
    std::lock_guard<std::mutex> stats(dec.d_stats_mutex);
    if (dec.d_profiling) {
        const auto t = clock.collect();
        dec.d_times.gamma += t[stage_clock::gamma];
        dec.d_times.alpha += t[stage_clock::alpha];
        dec.d_times.beta += t[stage_clock::beta];
        dec.d_times.L += t[stage_clock::L];
    }
    // the device's use only grows when something is allocated (the
    // query costs a call into the driver per batch otherwise)
    const unsigned long long made = device_allocations().load();
    if (made != ln.counted_allocations) {
        ln.counted_allocations = made;
        size_t free_b = 0, total_b = 0;
        BSID_CUDA(cudaMemGetInfo(&free_b, &total_b));
        dec.d_peak_bytes =
            std::max(dec.d_peak_bytes, total_b - free_b - dec.d_baseline_used);
    }
}

// one pass of the lattice over the window: the register kernel when
// there is one for this (n, Mn) and channel, the general one otherwise
// prior_frames: how many of the batch's frames have priors (pass G by
// position makes the others')
template <typename real>
void batch_run<real>::launch_lattice(int pass)
{
    if (!dec.use_reg(p.soft != nullptr)) {
        ln.scratch.ensure(dec.d_general.scratch_items);
        launch_lattice_general(dec.d_general, p, ln.scratch.get(), pass);
        return;
    }
    // share_P > 0: pass G by position, for the frames without priors;
    // g_prior_frames: by index, for the frames with priors only; table:
    // pass G stores the position table (books share_P); l_prior_frames:
    // pass L for the frames with priors only (the others' from the table)
    auto launch = [&](int share_P, int g_prior_frames, bool table, int l_prior_frames) {
        launch_params<real> lp = p;
        lp.share_P = share_P;
        lp.g_prior_frames = g_prior_frames;
        lp.T = table ? p.T : nullptr;
        lp.T_books = share_P;
        lp.l_prior_frames = l_prior_frames;
        const int span = share_P > 0 ? p.n * (p.Wc - 1) + p.Mt : p.Mt;
        // no idle warps when M_tau is small: they would take a block's
        // place on an SM while the working warps of small batches wait
        const int block = plan_reg_block(span);
        const int chunks = (span + block - 1) / block;
        const size_t per_frame = size_t(share_P > 0 ? share_P : p.Wc);
        dec.d_reg(unsigned(size_t(p.F) * per_frame * size_t(chunks)),
                  unsigned(block),
                  lp,
                  chunks,
                  pass);
        BSID_CUDA(cudaGetLastError());
    };
    if (pass == pass_L) {
        if (table_made.books > 0 && table_made.i0 == p.i0 && table_made.Wc == p.Wc) {
            // the frames without priors from the table pass G made for
            // this window, those with priors by their lattices
            launch_params<real> lp = p;
            lp.T_books = table_made.books;
            dec.d_table(lp);
            BSID_CUDA(cudaGetLastError());
            if (prior_frames > 0)
                launch(0, 0, false, 1);
        } else {
            launch(0, 0, false, 0);
        }
        return;
    }
    const int books =
        dec.d_share_g && prior_frames < p.F ? plan_shared_g(p.n, p.P, p.Mt, p.Wc) : 0;
    const bool table =
        books > 0 && p.T && plan_position_table(p.n, p.q, p.P, p.Mt, p.Wc) == books;
    table_made = table_window{ p.i0, p.Wc, table ? books : 0 };
    if (books == 0) {
        launch(0, 0, false, 0);
        return;
    }
    launch(books, 0, table, 0);
    if (prior_frames > 0)
        launch(0, 1, false, 0);
}

template class batch_run<float>;
template class batch_run<double>;

} // namespace cuda
} // namespace bsid
