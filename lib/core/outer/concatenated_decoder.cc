/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "outer/device_concatenated_loop.h"
#include "runtime/backends.h"
#include "runtime/format.h"
#include "runtime/parallel_loop.h"
#include <gnuradio/bsid/core/outer/concatenated_decoder.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace bsid {

std::string later_refusal(int pass, const frame_result& inner)
{
    return detail::concat("pass ",
                          pass,
                          ": the inner decoder refused the frame (",
                          to_string(inner.status),
                          ": ",
                          inner.reason,
                          "); the decisions are pass ",
                          pass - 1,
                          "'s");
}

namespace {

// The outer decoder on the inner decoder's backend (its device), in double.
siso_config outer_config_for(const map_decoder& inner, int threads)
{
    siso_config c;
    c.backend = inner.backend();
    c.precision = precision_kind::dual;
    c.threads = threads;
    c.device = inner.config().cuda.device;
    return c;
}

} // namespace

concatenated_decoder::concatenated_decoder(map_decoder& inner,
                                           const outer_code& outer,
                                           int threads)
    : d_inner(inner),
      d_code(outer),
      d_map(outer.q(), outer.n(), inner.q()),
      d_bp(outer.make_decoder(outer_config_for(inner, threads))),
      d_threads(resolve_threads(threads))
{
    if (inner.N() != d_map.n_inner()) {
        throw std::invalid_argument(
            detail::concat("concatenated_decoder: the outer code's n = ",
                           outer.n(),
                           " symbols over GF(",
                           outer.q(),
                           ") make N = ",
                           d_map.n_inner(),
                           " inner symbols of q = ",
                           inner.q(),
                           ", but the inner decoder has N = ",
                           inner.N()));
    }
    d_device = make_device_loop(d_inner, *d_bp, d_code, d_map);
}

concatenated_decoder::~concatenated_decoder() = default;

concatenated_decoder::concatenated_decoder(frame_decoder& inner,
                                           const outer_code& outer,
                                           int threads)
    : concatenated_decoder(inner.primary(), outer, threads)
{
    d_frames = &inner;
    // without a sync word the frame decoder is its primary decoder, which the
    // device loop runs; with one, its boundaries are host-side: host loop
    if (!inner.sync_word().empty())
        d_device.reset();
}

void concatenated_decoder::check_batch(size_t K,
                                       const concatenated_options& opt,
                                       const std::vector<int32_t*>& decisions,
                                       const std::vector<double*>& posteriors) const
{
    if (opt.iterations < 1 || opt.bp_iterations < 1) {
        throw std::invalid_argument(detail::concat("concatenated_decoder: iterations = ",
                                                   opt.iterations,
                                                   " and bp_iterations = ",
                                                   opt.bp_iterations,
                                                   " must each be at least 1"));
    }
    if ((!decisions.empty() && decisions.size() != K) ||
        (!posteriors.empty() && posteriors.size() != K)) {
        throw std::invalid_argument(detail::concat(
            "concatenated_decoder: ",
            K,
            " frames need as many decision and posterior pointers (or none), "
            "not ",
            decisions.size(),
            " and ",
            posteriors.size()));
    }
}

std::vector<concatenated_result>
concatenated_decoder::decode_batch(const std::vector<frame_view>& frames,
                                   const concatenated_options& opt,
                                   const std::vector<int32_t*>& decisions,
                                   const std::vector<double*>& posteriors,
                                   const observer& watch)
{
    check_batch(frames.size(), opt, decisions, posteriors);
    if (d_device && opt.device_loop) {
        try {
            return d_device->decode_batch(frames, opt, decisions, posteriors, watch);
        } catch (const std::exception& e) {
            // nothing was written yet: the host loop decodes the batch again
            log(log_level::warning,
                detail::concat("concatenated_decoder: the device loop failed (",
                               e.what(),
                               "); decoding the batch of ",
                               frames.size(),
                               " frames with the host loop"));
        }
    }
    // each pass: the frames' input (items of any kind, boundaries), with the
    // pass's priors and an extrinsic output
    const inner_pass pass = [&](const std::vector<size_t>& which,
                                const std::vector<const double*>& log_priors,
                                const std::vector<double*>& outs) {
        std::vector<frame_view> views(which.size());
        for (size_t j = 0; j < which.size(); ++j) {
            frame_view v(static_cast<const frame_input&>(frames[which[j]]));
            v.priors = log_priors[j];
            v.log_priors = true;
            v.extrinsic = true;
            views[j] = v;
        }
        return d_frames ? d_frames->decode_batch(views, outs)
                        : d_inner.decode_batch(views, outs);
    };
    return host_loop(frames.size(), pass, opt, decisions, posteriors, watch);
}

std::vector<concatenated_result>
concatenated_decoder::decode_reads_batch(reads_decoder& reads,
                                         const std::vector<frame_reads>& frames,
                                         const concatenated_options& opt,
                                         const std::vector<int32_t*>& decisions,
                                         const std::vector<double*>& posteriors,
                                         const observer& watch)
{
    const map_decoder& r0 = reads.single(0);
    if (r0.N() != d_inner.N() || r0.q() != d_inner.q()) {
        throw std::invalid_argument(
            detail::concat("concatenated_decoder: the reads decoder has N = ",
                           r0.N(),
                           " and q = ",
                           r0.q(),
                           "; the inner decoder N = ",
                           d_inner.N(),
                           " and q = ",
                           d_inner.q()));
    }
    check_batch(frames.size(), opt, decisions, posteriors);
    const inner_pass pass = [&](const std::vector<size_t>& which,
                                const std::vector<const double*>& log_priors,
                                const std::vector<double*>& outs) {
        std::vector<frame_reads> fr(which.size());
        for (size_t j = 0; j < which.size(); ++j) {
            fr[j].reads = frames[which[j]].reads;
            fr[j].priors = log_priors[j];
            fr[j].log_priors = true;
            fr[j].extrinsic = true;
        }
        const auto got = reads.decode_batch(fr, outs);
        std::vector<frame_result> st(got.size());
        for (size_t j = 0; j < got.size(); ++j)
            st[j] = got[j].result;
        return st;
    };
    return host_loop(frames.size(), pass, opt, decisions, posteriors, watch);
}

std::vector<concatenated_result>
concatenated_decoder::host_loop(size_t K,
                                const inner_pass& inner_decode,
                                const concatenated_options& opt,
                                const std::vector<int32_t*>& decisions,
                                const std::vector<double*>& posteriors,
                                const observer& watch)
{
    const size_t n = size_t(d_code.n()), qo = size_t(d_code.q());
    const size_t N = size_t(d_map.n_inner()), qi = size_t(d_map.q_inner());
    const size_t NI = N * qi, NO = n * qo;

    std::vector<concatenated_result> res(K);
    std::vector<double> inner_out(K * NI), priors(K * NI);
    std::vector<double> outer_in(K * NO), post(K * NO), ext(K * NO);
    std::vector<int32_t> dec(K * n, -1);
    std::vector<char> decoded(K, 0); // has BP output

    // the first pass's priors: none, or the known zero pad bits
    std::vector<double> pad_prior;
    if (d_map.pad_bits() > 0) {
        const std::vector<double> flat(NO, 0.0);
        pad_prior.resize(NI);
        d_map.outer_to_inner(flat.data(), pad_prior.data());
    }

    std::vector<size_t> active(K);
    for (size_t k = 0; k < K; ++k)
        active[k] = k;
    const int T = d_threads;
    // each worker's scratch for the mappings, allocated here: nothing inside
    // the loops allocates or throws
    const size_t S = d_map.scratch_size();
    std::vector<double> scratch(size_t(std::max(T, 1)) * S);
    for (int pass = 1; pass <= opt.iterations && !active.empty(); ++pass) {
        // 1. the inner decoder: extrinsic output, with the outer extrinsic as priors
        std::vector<const double*> pri(active.size(), nullptr);
        std::vector<double*> outs(active.size());
        for (size_t j = 0; j < active.size(); ++j) {
            const size_t k = active[j];
            if (pass > 1)
                pri[j] = priors.data() + k * NI;
            else if (!pad_prior.empty())
                pri[j] = pad_prior.data();
            outs[j] = inner_out.data() + k * NI;
        }
        const auto inner = inner_decode(active, pri, outs);

        // 2. to the outer symbols; a frame the inner decoder refused ends here
        std::vector<size_t> run;
        for (size_t j = 0; j < active.size(); ++j) {
            const size_t k = active[j];
            if (inner[j].ok()) {
                run.push_back(k);
                continue;
            }
            if (pass == 1) {
                res[k].status = inner[j].status;
                res[k].reason = inner[j].reason;
            } else {
                res[k].reason = later_refusal(pass, inner[j]);
            }
        }
        detail::parallel_loop::shared().run(T, run.size(), [&](size_t j, int w) {
            const size_t k = run[j];
            d_map.inner_to_outer(inner_out.data() + k * NI,
                                 outer_in.data() + k * NO,
                                 scratch.data() + size_t(w) * S);
        });

        // 3. belief propagation, afresh each pass
        std::vector<const double*> bin(run.size());
        std::vector<double*> bpost(run.size()), bext(run.size());
        std::vector<int32_t*> bdec(run.size());
        for (size_t j = 0; j < run.size(); ++j) {
            const size_t k = run[j];
            bin[j] = outer_in.data() + k * NO;
            bpost[j] = post.data() + k * NO;
            bext[j] = ext.data() + k * NO;
            bdec[j] = dec.data() + k * n;
        }
        const auto bp = d_bp->decode_batch(bin, opt.bp_iterations, bpost, bext, bdec);

        // 4. stop the frames that decoded; the others get the outer extrinsic as priors
        std::vector<size_t> next;
        for (size_t j = 0; j < run.size(); ++j) {
            const size_t k = run[j];
            decoded[k] = 1;
            res[k].iterations = pass;
            res[k].bp_iterations += bp[j].iterations;
            res[k].syndrome_ok = bp[j].syndrome_ok;
            if (watch)
                watch(pass, k, dec.data() + k * n);
            if (!bp[j].syndrome_ok && pass < opt.iterations)
                next.push_back(k);
        }
        detail::parallel_loop::shared().run(T, next.size(), [&](size_t j, int w) {
            const size_t k = next[j];
            d_map.outer_to_inner(ext.data() + k * NO,
                                 priors.data() + k * NI,
                                 scratch.data() + size_t(w) * S);
        });
        active.swap(next);
    }

    const double uniform = -std::log(double(qo));
    for (size_t k = 0; k < K; ++k) {
        if (!decisions.empty() && decisions[k])
            std::copy(dec.data() + k * n, dec.data() + (k + 1) * n, decisions[k]);
        if (!posteriors.empty() && posteriors[k]) {
            if (decoded[k])
                std::copy(
                    post.data() + k * NO, post.data() + (k + 1) * NO, posteriors[k]);
            else
                std::fill(posteriors[k], posteriors[k] + NO, uniform);
        }
    }
    return res;
}

} // namespace bsid
