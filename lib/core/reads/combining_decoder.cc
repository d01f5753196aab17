/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The combiner's rounds (combining_decoder.h). Read r's priors in round t are
// the caller's priors P times the other reads' extrinsic outputs of round
// t - 1 (none in round 1),
//
//   P_r(D) ~ P(D) prod_{s != r} E_s(D),
//
// multiplied one read at a time with each row rescaled by its largest value,
// so that the product of many reads' near-certain rows does not underflow
// (a value below 1e-308 of its row's largest is a zero, as when the decoder
// takes log priors); and the frame's posterior after the round is P(D)
// prod_r E_r(D), normalized (the extrinsic output leaves P out). A zero in E_s means read
// s alone gives D probability 0, so a row that every symbol leaves at zero, or a read of
// probability 0 under the others' priors after round 1, means the reads have probability
// 0 together (impossible).

#include "reads/combining_decoder.h"
#include "runtime/format.h"
#include "runtime/parallel_loop.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <new>

namespace bsid {
namespace reads {

namespace {

// row *= e, rescaled by its largest value (a product of many rows neither
// underflows nor loses a ratio within the double range); false if the row
// vanished
bool multiply_row(double* row, const double* e, int q)
{
    double top = 0;
    for (int D = 0; D < q; ++D)
        top = std::max(top, row[D] *= e[D]);
    if (!(top > 0))
        return false;
    const double inv = 1.0 / top;
    for (int D = 0; D < q; ++D)
        row[D] *= inv;
    return true;
}

// each row divided by its sum
void normalize_rows(double* v, int N, int q)
{
    for (int i = 0; i < N; ++i) {
        double* row = v + size_t(i) * size_t(q);
        double sum = 0;
        for (int D = 0; D < q; ++D)
            sum += row[D];
        for (int D = 0; D < q; ++D)
            row[D] /= sum;
    }
}

/*
 * dst = P times the outputs of the reads in `reads` (all but `skip`, those
 * with an output), row by row, normalized; P null: uniform. False if a row
 * vanished (the reads together give it probability 0).
 */
bool product(const double* P,
             const combine_workspace& ws,
             size_t k,
             const std::vector<int>& reads,
             const std::vector<uint8_t>& has,
             int skip,
             double* dst,
             int N,
             int q)
{
    const size_t NQ = size_t(N) * size_t(q);
    if (P)
        std::copy(P, P + NQ, dst);
    else
        std::fill(dst, dst + NQ, 1.0);
    for (int i = 0; i < N; ++i) {
        double* row = dst + size_t(i) * size_t(q);
        for (int r : reads) {
            if (r == skip || !has[size_t(r)])
                continue;
            if (!multiply_row(row, ws.ext_of(k, r) + size_t(i) * size_t(q), q))
                return false;
        }
    }
    normalize_rows(dst, N, q);
    return true;
}

// A frame's state between rounds.
struct frame_state {
    std::vector<int> active;      // reads still in play
    std::vector<uint8_t> has_ext; // whose output ws.ext_of(k, r) holds
    bool has_prior = false;       // the caller's priors, normalized at ws.prior0
    bool done = false;
};

// One decode of the combiner: read r of frame k (its priors at row `at` of
// the round's priors, its output in ws.ext_of(k, r)).
struct job {
    size_t k;
    int r;
    bool alone;     // no other read's output in its priors
    bool has_prior; // priors at all (not alone, or the caller's)
    size_t at;
    frame_result result;
    size_t check = 0; // where it failed not alone: its decode alone, in `alone`
};

// The jobs decoded, one decode_batch per channel: priors from `prior` (NQ
// values per job), outputs to `out(job)`. A decode that throws (not
// expected: the priors were checked) fails its jobs.
template <typename Out>
void run_jobs(const std::vector<map_decoder*>& decoders,
              const std::vector<combine_frame>& frames,
              std::vector<job>& jobs,
              const double* prior,
              size_t NQ,
              const Out& out)
{
    for (size_t c = 0; c < decoders.size(); ++c) {
        std::vector<frame_view> views;
        std::vector<double*> ptrs;
        std::vector<job*> which;
        for (auto& j : jobs) {
            if (frames[j.k].channel[size_t(j.r)] != int(c))
                continue;
            frame_view v = read_view(frames[j.k].reads[size_t(j.r)]);
            v.priors = j.has_prior ? prior + j.at * NQ : nullptr;
            v.extrinsic = true;
            views.push_back(v);
            ptrs.push_back(out(j));
            which.push_back(&j);
        }
        if (views.empty())
            continue;
        std::vector<frame_result> res;
        try {
            res = decoders[c]->decode_batch(views, ptrs);
        } catch (const std::exception& e) {
            res.assign(views.size(),
                       { frame_status::decoder_error,
                         std::string("the combiner's decode failed: ") + e.what() });
        }
        for (size_t t = 0; t < which.size(); ++t)
            which[t]->result = res[t];
    }
}

} // namespace

std::vector<combine_outcome> combine_batch(const std::vector<map_decoder*>& decoders,
                                           const combine_options& opts,
                                           const std::vector<combine_frame>& frames,
                                           const std::vector<double*>& post,
                                           int threads,
                                           combine_workspace& ws)
{
    const size_t K = frames.size();
    std::vector<combine_outcome> out(K);
    if (K == 0)
        return out;
    const map_decoder& first = *decoders.front();
    const int N = first.N(), Q = first.q();
    const size_t NQ = size_t(N) * size_t(Q);
    auto& loop = detail::parallel_loop::shared();
    size_t most = 0;
    for (const auto& f : frames)
        most = std::max(most, f.reads.size());
    ws.NQ = NQ;
    ws.reads = most;
    ws.ext.resize(K * most * NQ);
    ws.prior0.resize(K * NQ);
    ws.prev.resize(K * NQ);
    std::vector<frame_state> st(K);
    for (size_t k = 0; k < K; ++k) {
        const auto& f = frames[k];
        out[k].reads.assign(f.reads.size(), frame_result{});
        st[k].has_ext.assign(f.reads.size(), 0);
        for (size_t r = 0; r < f.reads.size(); ++r)
            st[k].active.push_back(int(r));
        st[k].has_prior = f.priors != nullptr;
    }
    // the caller's priors, normalized (checked by the caller)
    loop.run(threads, K, [&](size_t k, int) {
        if (frames[k].priors)
            first.normalized_priors(
                frames[k].priors, frames[k].log_priors, ws.prior0.data() + k * NQ);
    });
    auto prior0 = [&](size_t k) {
        return st[k].has_prior ? ws.prior0.data() + k * NQ : nullptr;
    };
    auto finish = [&](size_t k, frame_result r) {
        out[k].result = std::move(r);
        if (!out[k].result.ok())
            std::fill(post[k], post[k] + NQ, 1.0 / Q);
        st[k].done = true;
    };
    auto leave_out = [&](size_t k, int r, const frame_result& why) {
        out[k].reads[size_t(r)] = why;
        auto& a = st[k].active;
        a.erase(std::find(a.begin(), a.end(), r));
        st[k].has_ext[size_t(r)] = 0;
    };
    const auto impossible = frame_result{ frame_status::impossible,
                                          "the reads together have probability 0: "
                                          "their outputs leave some symbol no value" };
    for (int round = 1; round <= opts.iterations; ++round) {
        // every read in play, its priors the outputs of the other reads of
        // the round before (none in round 1): one batch over all frames
        std::vector<job> jobs;
        std::vector<size_t> first_job(K + 1, 0);
        for (size_t k = 0; k < K; ++k) {
            first_job[k] = jobs.size();
            const auto& s = st[k];
            if (s.done)
                continue;
            for (int r : s.active) {
                bool alone = true;
                for (int o : s.active)
                    alone = alone && (o == r || !s.has_ext[size_t(o)]);
                jobs.push_back({ k, r, alone, !alone || s.has_prior, jobs.size(), {} });
            }
        }
        first_job[K] = jobs.size();
        ws.job_prior.resize(jobs.size() * NQ);
        std::vector<uint8_t> dead(K, 0);
        loop.run(threads, K, [&](size_t k, int) {
            const auto& s = st[k];
            for (size_t t = first_job[k]; t < first_job[k + 1] && !dead[k]; ++t) {
                const job& j = jobs[t];
                if (j.has_prior)
                    dead[k] = !product(prior0(k),
                                       ws,
                                       k,
                                       s.active,
                                       s.has_ext,
                                       j.r,
                                       ws.job_prior.data() + j.at * NQ,
                                       N,
                                       Q);
            }
        });
        for (size_t k = 0; k < K; ++k)
            if (dead[k])
                finish(k, impossible);
        std::vector<job> live;
        for (auto& j : jobs)
            if (!st[j.k].done)
                live.push_back(j);
        run_jobs(decoders, frames, live, ws.job_prior.data(), NQ, [&](const job& j) {
            return ws.ext_of(j.k, j.r);
        });
        // a read that fails with the others' outputs in its priors: is it
        // impossible alone (left out), or do the reads disagree?
        std::vector<job> alone;
        std::vector<double> alone_prior, alone_out;
        for (auto& j : live) {
            if (!j.result.ok() && j.result.status != frame_status::decoder_error &&
                !j.alone) {
                j.check = alone.size();
                alone.push_back({ j.k, j.r, true, st[j.k].has_prior, alone.size(), {} });
                alone_prior.resize(alone.size() * NQ);
                alone_out.resize(alone.size() * NQ);
                if (st[j.k].has_prior)
                    std::copy(prior0(j.k),
                              prior0(j.k) + NQ,
                              alone_prior.data() + (alone.size() - 1) * NQ);
            }
        }
        run_jobs(decoders, frames, alone, alone_prior.data(), NQ, [&](const job& j) {
            return alone_out.data() + j.at * NQ;
        });
        for (auto& j : live) {
            if (st[j.k].done) {
                continue;
            } else if (j.result.ok()) {
                st[j.k].has_ext[size_t(j.r)] = 1;
                continue;
            }
            if (j.result.status == frame_status::decoder_error) {
                finish(j.k, j.result);
                continue;
            }
            const frame_result* why = &j.result;
            if (!j.alone) {
                const job& b = alone[j.check];
                if (b.result.ok() || b.result.status == frame_status::decoder_error) {
                    finish(j.k,
                           b.result.ok()
                               ? frame_result{ frame_status::impossible,
                                               detail::concat("the reads together have "
                                                              "probability 0: read ",
                                                              j.r,
                                                              " is impossible under the "
                                                              "others' outputs (",
                                                              j.result.reason,
                                                              ")") }
                               : b.result);
                    continue;
                }
                why = &b.result;
            }
            leave_out(j.k, j.r, *why); // nothing on its own
        }
        // each frame's posteriors (into its output) and stopping rule
        loop.run(threads, K, [&](size_t k, int) {
            auto& s = st[k];
            if (s.done)
                return;
            if (s.active.empty()) {
                finish(k,
                       { out[k].reads.front().status,
                         "no read of the frame can be decoded on its own" });
                return;
            }
            if (s.active.size() == 1) {
                out[k].single = s.active.front();
                out[k].result = {};
                s.done = true;
                return;
            }
            out[k].rounds = round;
            double* p = post[k];
            if (!product(prior0(k), ws, k, s.active, s.has_ext, -1, p, N, Q)) {
                finish(k, impossible);
                return;
            }
            double* prev = ws.prev.data() + k * NQ;
            double change = std::numeric_limits<double>::infinity();
            if (round > 1) {
                change = 0;
                for (size_t t = 0; t < NQ; ++t)
                    change = std::max(change, std::abs(p[t] - prev[t]));
            }
            std::copy(p, p + NQ, prev);
            out[k].converged = change <= opts.tolerance;
            if (out[k].converged || round >= opts.iterations) {
                // the extrinsic output: the same product without the priors
                // (its rows cannot vanish where the posterior's did not)
                if (frames[k].extrinsic)
                    product(nullptr, ws, k, s.active, s.has_ext, -1, p, N, Q);
                finish(k, {});
            }
        });
    }
    return out;
}

} // namespace reads
} // namespace bsid
