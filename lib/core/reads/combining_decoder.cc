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
    std::vector<int> active;              // reads still in play
    std::vector<std::vector<double>> ext; // per read: ln E_r (N q), empty until decoded
    std::vector<double> log_prior;        // ln P (N q), empty for uniform
    std::vector<double> prev;             // the posteriors of the round before
    bool done = false;
};

// One decode of the combiner: read r of frame k, its priors (logs; empty
// for none) and its output.
struct job {
    size_t k;
    int r;
    bool alone; // no other read's output in its priors
    std::vector<double> prior, out;
    frame_result result;
    size_t check = 0; // where it failed not alone: its decode alone, in `alone`
};

// The jobs decoded, one decode_batch per channel. A decode that throws
// (not expected: the priors were checked) fails its jobs.
void run_jobs(const std::vector<map_decoder*>& decoders,
              const std::vector<combine_frame>& frames,
              std::vector<job>& jobs)
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
            v.priors = j.prior.empty() ? nullptr : j.prior.data();
            v.log_priors = true;
            v.extrinsic = true;
            views.push_back(v);
            ptrs.push_back(j.out.data());
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
                                           const std::vector<double*>& post)
{
    const size_t K = frames.size();
    std::vector<combine_outcome> out(K);
    if (K == 0)
        return out;
    const map_decoder& first = *decoders.front();
    const int N = first.N(), Q = first.q();
    const size_t NQ = size_t(N) * size_t(Q);
    std::vector<frame_state> st(K);
    size_t most = 0;
    for (size_t k = 0; k < K; ++k) {
        const auto& f = frames[k];
        out[k].reads.assign(f.reads.size(), frame_result{});
        st[k].ext.resize(f.reads.size());
        for (size_t r = 0; r < f.reads.size(); ++r)
            st[k].active.push_back(int(r));
        most = std::max(most, f.reads.size());
        if (f.priors) {
            // the caller's priors, normalized, as logs (checked by the caller)
            std::vector<double> p(NQ);
            first.normalized_priors(f.priors, f.log_priors, p.data());
            st[k].log_prior.resize(NQ);
            for (size_t t = 0; t < NQ; ++t)
                st[k].log_prior[t] = p[t] > 0 ? std::log(p[t]) : minus_inf;
        }
    }
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
        st[k].ext[size_t(r)].clear();
    };
    for (int round = 1; round <= opts.iterations; ++round) {
        // every read in play, its priors the outputs of the other reads of
        // the round before (none in round 1): one batch over all frames
        std::vector<job> jobs;
        for (size_t k = 0; k < K; ++k) {
            auto& s = st[k];
            if (s.done)
                continue;
            for (int r : s.active) {
                job j{ k, r, true, {}, std::vector<double>(NQ), {} };
                for (int o : s.active) {
                    if (o == r || s.ext[size_t(o)].empty())
                        continue;
                    if (j.prior.empty())
                        j.prior = s.log_prior.empty() ? std::vector<double>(NQ, 0.0)
                                                      : s.log_prior;
                    for (size_t t = 0; t < NQ; ++t)
                        j.prior[t] += s.ext[size_t(o)][t];
                    j.alone = false;
                }
                if (j.alone && !s.log_prior.empty())
                    j.prior = s.log_prior;
                jobs.push_back(std::move(j));
            }
        }
        run_jobs(decoders, frames, jobs);
        // a read that fails with the others' outputs in its priors: is it
        // impossible alone (left out), or do the reads disagree?
        std::vector<job> alone;
        for (auto& j : jobs) {
            if (!j.result.ok() && j.result.status != frame_status::decoder_error &&
                !j.alone) {
                j.check = alone.size();
                alone.push_back(
                    { j.k, j.r, true, st[j.k].log_prior, std::vector<double>(NQ), {} });
            }
        }
        run_jobs(decoders, frames, alone);
        for (auto& j : jobs) {
            auto& s = st[j.k];
            if (s.done)
                continue;
            if (j.result.ok()) {
                auto& e = s.ext[size_t(j.r)];
                e.resize(NQ);
                for (size_t u = 0; u < NQ; ++u)
                    e[u] = j.out[u] > 0 ? std::log(j.out[u]) : minus_inf;
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
        for (size_t k = 0; k < K; ++k) {
            auto& s = st[k];
            if (s.done)
                continue;
            if (s.active.empty()) {
                finish(k,
                       { out[k].reads.front().status,
                         "no read of the frame can be decoded on its own" });
                continue;
            }
            if (s.active.size() == 1) {
                out[k].single = s.active.front();
                out[k].result = {};
                s.done = true;
                continue;
            }
            out[k].rounds = round;
            // the posteriors: ln P + sum_r ln E_r, normalized
            std::vector<double> lpost =
                s.log_prior.empty() ? std::vector<double>(NQ, 0.0) : s.log_prior;
            for (int r : s.active)
                for (size_t t = 0; t < NQ; ++t)
                    lpost[t] += s.ext[size_t(r)][t];
            if (!normalize_log_rows(lpost.data(), N, Q)) {
                finish(k,
                       { frame_status::impossible,
                         "the reads together have probability 0: their outputs leave "
                         "some symbol no value" });
                continue;
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
                    for (int r : s.active)
                        for (size_t t = 0; t < NQ; ++t)
                            lext[t] += s.ext[size_t(r)][t];
                    normalize_log_rows(lext.data(), N, Q); // (a subset of lpost's)
                    std::copy(lext.begin(), lext.end(), post[k]);
                } else {
                    std::copy(lpost.begin(), lpost.end(), post[k]);
                }
                finish(k, {});
            }
        }
    }
    return out;
}

} // namespace reads
} // namespace bsid
