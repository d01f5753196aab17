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
    std::vector<std::vector<double>> ext; // per read: ln E_r (N q)
    std::vector<double> log_prior;        // ln P (N q), empty for uniform
    std::vector<double> prev;             // the posteriors of the round before
    bool done = false;
};

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
    auto fill_uniform = [&](double* p) { std::fill(p, p + NQ, 1.0 / Q); };
    std::vector<frame_state> st(K);
    for (size_t k = 0; k < K; ++k) {
        const auto& f = frames[k];
        out[k].reads.assign(f.reads.size(), frame_result{});
        st[k].ext.resize(f.reads.size());
        for (size_t r = 0; r < f.reads.size(); ++r)
            st[k].active.push_back(int(r));
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
            fill_uniform(post[k]);
        st[k].done = true;
    };

    for (int round = 1; round <= std::max(1, opts.iterations); ++round) {
        // the round's decodes, per channel: priors (logs), outputs, and whose
        struct job {
            size_t k;
            int r;
        };
        std::vector<std::vector<job>> jobs(decoders.size());
        std::vector<std::vector<double>> priors;  // one per job, in job order
        std::vector<std::vector<double>> outputs; // one per job
        std::vector<std::vector<size_t>> slot(decoders.size());
        for (size_t k = 0; k < K; ++k) {
            if (st[k].done)
                continue;
            for (int r : st[k].active) {
                std::vector<double> lp;
                if (round > 1 || !st[k].log_prior.empty()) {
                    lp = st[k].log_prior.empty() ? std::vector<double>(NQ, 0.0)
                                                 : st[k].log_prior;
                    if (round > 1) {
                        for (int s : st[k].active)
                            if (s != r)
                                for (size_t t = 0; t < NQ; ++t)
                                    lp[t] += st[k].ext[size_t(s)][t];
                    }
                }
                const int c = frames[k].channel[size_t(r)];
                jobs[size_t(c)].push_back({ k, r });
                slot[size_t(c)].push_back(priors.size());
                priors.push_back(std::move(lp));
                outputs.emplace_back(NQ);
            }
            // (no row of these priors is -inf everywhere: the round before
            // checked their sum with read r's own output added)
        }
        for (size_t c = 0; c < decoders.size(); ++c) {
            std::vector<frame_view> views;
            std::vector<double*> ptrs;
            std::vector<size_t> which;
            for (size_t j = 0; j < jobs[c].size(); ++j) {
                const auto [k, r] = jobs[c][j];
                if (st[k].done)
                    continue;
                const frame_read& rd = frames[k].reads[size_t(r)];
                frame_view v;
                v.bits = rd.bits;
                v.llr = rd.llr;
                v.logprob = rd.logprob;
                v.rho = rd.L;
                const auto& lp = priors[slot[c][j]];
                v.priors = lp.empty() ? nullptr : lp.data();
                v.log_priors = true;
                v.extrinsic = true;
                views.push_back(v);
                ptrs.push_back(outputs[slot[c][j]].data());
                which.push_back(j);
            }
            if (views.empty())
                continue;
            std::vector<frame_result> res;
            try {
                res = decoders[c]->decode_batch(views, ptrs);
            } catch (const std::exception& e) {
                // (priors are checked here: a row the decoder refuses)
                res.assign(views.size(),
                           { frame_status::decoder_error,
                             std::string("the combiner's decode failed: ") + e.what() });
            }
            for (size_t t = 0; t < which.size(); ++t) {
                const auto [k, r] = jobs[c][which[t]];
                if (st[k].done)
                    continue;
                const frame_result& fr = res[t];
                if (fr.ok()) {
                    auto& e = st[k].ext[size_t(r)];
                    const auto& o = outputs[slot[c][which[t]]];
                    e.resize(NQ);
                    for (size_t u = 0; u < NQ; ++u)
                        e[u] = o[u] > 0 ? std::log(o[u]) : minus_inf;
                } else if (fr.status == frame_status::decoder_error) {
                    finish(k, fr);
                } else if (round == 1) {
                    out[k].reads[size_t(r)] = fr; // left out: nothing on its own
                } else {
                    finish(k,
                           { frame_status::impossible,
                             detail::concat("the reads together have probability 0: "
                                            "read ",
                                            r,
                                            " is impossible under the others' "
                                            "extrinsic outputs (",
                                            fr.reason,
                                            ")") });
                }
            }
        }
        for (size_t k = 0; k < K; ++k) {
            if (st[k].done)
                continue;
            auto& s = st[k];
            if (round == 1) {
                std::vector<int> kept;
                for (int r : s.active)
                    if (out[k].reads[size_t(r)].ok())
                        kept.push_back(r);
                s.active = kept;
                if (kept.empty()) {
                    finish(k,
                           { out[k].reads.front().status,
                             "no read of the frame can be decoded on its own" });
                    continue;
                }
                if (kept.size() == 1) {
                    out[k].single = kept.front();
                    out[k].result = {};
                    s.done = true;
                    continue;
                }
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
            const bool last = round >= opts.iterations;
            out[k].converged = change <= opts.tolerance;
            if (out[k].converged || last) {
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
