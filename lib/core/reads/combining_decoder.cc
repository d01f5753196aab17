/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The combiner's rounds (combining_decoder.h). Read r's priors in round t are
// the caller's priors P times the other reads' extrinsic outputs of round
// t - 1 (none in round 1), passed as natural logs so that the product of
// many reads' near-certain rows neither underflows nor loses a zero:
//
//   ln P_r(D) = ln P(D) + sum_{s != r} ln E_s(D)      (-inf: a zero)
//
// and the frame's posterior after the round is P(D) prod_r E_r(D),
// normalized (the extrinsic output leaves P out). A zero in E_s means read s
// alone gives D probability 0, so a row that every symbol leaves at zero,
// or a read of probability 0 under the others' priors after round 1, means
// the reads have probability 0 together (impossible).

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

constexpr double minus_inf = -std::numeric_limits<double>::infinity();

// exp(v - max v) normalized over each row of q, in place; false if a row is
// -inf everywhere
bool normalize_log_rows(double* v, int N, int q)
{
    for (int i = 0; i < N; ++i) {
        double* row = v + size_t(i) * size_t(q);
        const double top = *std::max_element(row, row + q);
        if (!(top > minus_inf))
            return false;
        double sum = 0;
        for (int D = 0; D < q; ++D)
            sum += (row[D] = std::exp(row[D] - top));
        for (int D = 0; D < q; ++D)
            row[D] /= sum;
    }
    return true;
}

// A frame's state between rounds.
struct frame_state {
    std::vector<int> active; // reads still in play
    std::vector<double> ext; // per read r: ln E_r at [r NQ], once has_ext[r]
    std::vector<uint8_t> has_ext;
    std::vector<double> log_prior; // ln P (N q), empty for uniform
    std::vector<double> prev;      // the posteriors of the round before
    bool done = false;
};

// One decode of the combiner: read r of frame k (its priors and output at
// row `at` of the round's buffers).
struct job {
    size_t k;
    int r;
    bool alone;     // no other read's output in its priors
    bool has_prior; // priors at all (not alone, or the caller's)
    size_t at;
    frame_result result;
    size_t check = 0; // where it failed not alone: its decode alone, in `alone`
};

// The round's buffers: NQ values per job.
struct job_rows {
    std::vector<double> prior, out;
};

// The jobs decoded, one decode_batch per channel; priors as probabilities.
// A decode that throws (not expected: the priors were checked) fails its
// jobs.
void run_jobs(const std::vector<map_decoder*>& decoders,
              const std::vector<combine_frame>& frames,
              std::vector<job>& jobs,
              job_rows& rows,
              size_t NQ)
{
    for (size_t c = 0; c < decoders.size(); ++c) {
        std::vector<frame_view> views;
        std::vector<double*> ptrs;
        std::vector<job*> which;
        for (auto& j : jobs) {
            if (frames[j.k].channel[size_t(j.r)] != int(c))
                continue;
            const frame_read& rd = frames[j.k].reads[size_t(j.r)];
            frame_view v;
            v.bits = rd.bits;
            v.llr = rd.llr;
            v.logprob = rd.logprob;
            v.rho = rd.L;
            v.priors = j.has_prior ? rows.prior.data() + j.at * NQ : nullptr;
            v.extrinsic = true;
            views.push_back(v);
            ptrs.push_back(rows.out.data() + j.at * NQ);
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

// Row by row, exp(v - max v) normalized into p (zeros past e^-745 of the
// largest, as the decoder takes log priors).
void probabilities_of_logs(const double* v, double* p, int N, int q)
{
    for (int i = 0; i < N; ++i) {
        const double* row = v + size_t(i) * size_t(q);
        double* out = p + size_t(i) * size_t(q);
        const double top = *std::max_element(row, row + q);
        double sum = 0;
        for (int D = 0; D < q; ++D)
            sum += (out[D] = std::exp(row[D] - top));
        for (int D = 0; D < q; ++D)
            out[D] /= sum;
    }
}

} // namespace

std::vector<combine_outcome> combine_batch(const std::vector<map_decoder*>& decoders,
                                           const combine_options& opts,
                                           const std::vector<combine_frame>& frames,
                                           const std::vector<double*>& post,
                                           int threads)
{
    const size_t K = frames.size();
    std::vector<combine_outcome> out(K);
    if (K == 0)
        return out;
    const map_decoder& first = *decoders.front();
    const int N = first.N(), Q = first.q();
    const size_t NQ = size_t(N) * size_t(Q);
    auto& loop = detail::parallel_loop::shared();
    std::vector<frame_state> st(K);
    for (size_t k = 0; k < K; ++k) {
        const auto& f = frames[k];
        out[k].reads.assign(f.reads.size(), frame_result{});
        st[k].ext.resize(f.reads.size() * NQ);
        st[k].has_ext.assign(f.reads.size(), 0);
        for (size_t r = 0; r < f.reads.size(); ++r)
            st[k].active.push_back(int(r));
    }
    // the caller's priors, normalized, as logs (checked by the caller)
    loop.run(threads, K, [&](size_t k, int) {
        const auto& f = frames[k];
        if (!f.priors)
            return;
        std::vector<double> p(NQ);
        first.normalized_priors(f.priors, f.log_priors, p.data());
        st[k].log_prior.resize(NQ);
        for (size_t t = 0; t < NQ; ++t)
            st[k].log_prior[t] = p[t] > 0 ? std::log(p[t]) : minus_inf;
    });
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
    job_rows rows;
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
                jobs.push_back(
                    { k, r, alone, !alone || !s.log_prior.empty(), jobs.size(), {} });
            }
        }
        first_job[K] = jobs.size();
        rows.prior.resize(jobs.size() * NQ);
        rows.out.resize(jobs.size() * NQ);
        loop.run(threads, K, [&](size_t k, int) {
            const auto& s = st[k];
            std::vector<double> lp(NQ);
            for (size_t t = first_job[k]; t < first_job[k + 1]; ++t) {
                const job& j = jobs[t];
                if (!j.has_prior)
                    continue;
                if (s.log_prior.empty())
                    std::fill(lp.begin(), lp.end(), 0.0);
                else
                    std::copy(s.log_prior.begin(), s.log_prior.end(), lp.begin());
                for (int o : s.active) {
                    if (o == j.r || !s.has_ext[size_t(o)])
                        continue;
                    const double* e = s.ext.data() + size_t(o) * NQ;
                    for (size_t u = 0; u < NQ; ++u)
                        lp[u] += e[u];
                }
                // (no row is -inf everywhere: the round before checked their
                // sum with read r's own output added)
                probabilities_of_logs(lp.data(), rows.prior.data() + j.at * NQ, N, Q);
            }
        });
        run_jobs(decoders, frames, jobs, rows, NQ);
        // a read that fails with the others' outputs in its priors: is it
        // impossible alone (left out), or do the reads disagree?
        std::vector<job> alone;
        job_rows alone_rows;
        for (auto& j : jobs) {
            if (!j.result.ok() && j.result.status != frame_status::decoder_error &&
                !j.alone) {
                j.check = alone.size();
                const bool pri = !st[j.k].log_prior.empty();
                alone.push_back({ j.k, j.r, true, pri, alone.size(), {} });
                alone_rows.prior.resize(alone.size() * NQ);
                alone_rows.out.resize(alone.size() * NQ);
                if (pri)
                    probabilities_of_logs(st[j.k].log_prior.data(),
                                          alone_rows.prior.data() +
                                              (alone.size() - 1) * NQ,
                                          N,
                                          Q);
            }
        }
        run_jobs(decoders, frames, alone, alone_rows, NQ);
        for (auto& j : jobs) {
            if (st[j.k].done || j.result.ok())
                continue;
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
        // the outputs as logs, then each frame's posteriors and stopping rule
        loop.run(threads, K, [&](size_t k, int) {
            auto& s = st[k];
            if (s.done)
                return;
            for (size_t t = first_job[k]; t < first_job[k + 1]; ++t) {
                const job& j = jobs[t];
                if (!j.result.ok())
                    continue;
                const double* o = rows.out.data() + j.at * NQ;
                double* e = s.ext.data() + size_t(j.r) * NQ;
                for (size_t u = 0; u < NQ; ++u)
                    e[u] = o[u] > 0 ? std::log(o[u]) : minus_inf;
                s.has_ext[size_t(j.r)] = 1;
            }
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
            // the posteriors: ln P + sum_r ln E_r, normalized
            std::vector<double> lpost =
                s.log_prior.empty() ? std::vector<double>(NQ, 0.0) : s.log_prior;
            for (int r : s.active) {
                const double* e = s.ext.data() + size_t(r) * NQ;
                for (size_t t = 0; t < NQ; ++t)
                    lpost[t] += e[t];
            }
            if (!normalize_log_rows(lpost.data(), N, Q)) {
                finish(k,
                       { frame_status::impossible,
                         "the reads together have probability 0: their outputs leave "
                         "some symbol no value" });
                return;
            }
            double change = std::numeric_limits<double>::infinity();
            if (!s.prev.empty()) {
                change = 0;
                for (size_t t = 0; t < NQ; ++t)
                    change = std::max(change, std::abs(lpost[t] - s.prev[t]));
            }
            s.prev = lpost;
            out[k].converged = change <= opts.tolerance;
            if (out[k].converged || round >= opts.iterations) {
                if (frames[k].extrinsic) {
                    std::vector<double> lext(NQ, 0.0);
                    for (int r : s.active) {
                        const double* e = s.ext.data() + size_t(r) * NQ;
                        for (size_t t = 0; t < NQ; ++t)
                            lext[t] += e[t];
                    }
                    normalize_log_rows(lext.data(), N, Q); // (a subset of lpost's)
                    std::copy(lext.begin(), lext.end(), post[k]);
                } else {
                    std::copy(lpost.begin(), lpost.end(), post[k]);
                }
                finish(k, {});
            }
        });
    }
    return out;
}

} // namespace reads
} // namespace bsid
