/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Test-only: the exact posteriors of a frame from several reads by brute
// force, written from the model's statement (docs/reads.md) and independent
// of the decoders: for every message X, P(y_1..y_M | X) = prod_r P(y_r | X),
// each factor restricted to read r's drift limits (qa_reference.h's
// restricted_likelihood), weighed by the priors and summed per symbol.
// Shared by the CPU tests (qa_reads.cc) and the CUDA ones.

#ifndef INCLUDED_BSID_QA_READS_REFERENCE_H
#define INCLUDED_BSID_QA_READS_REFERENCE_H

#include "qa_reference.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/reads/reads_decoder.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <optional>
#include <random>

namespace bsid {
namespace qa {

//! One read of a tiny frame: its channel and what it received (bits or
//! letters in y, or soft items in llr: A log-probabilities per item over
//! more than two letters).
struct tiny_read {
    channel_params ch;
    std::vector<uint8_t> y;
    std::vector<double> llr;
    size_t size() const
    {
        return llr.empty()
                   ? y.size()
                   : llr.size() / (ch.alphabet() == 2 ? 1 : size_t(ch.alphabet()));
    }
    frame_read view() const
    {
        frame_read r;
        r.L = size();
        if (llr.empty())
            r.bits = y.data();
        else if (ch.alphabet() == 2)
            r.llr = llr.data();
        else
            r.logprob = llr.data();
        return r;
    }
};

/*!
 * The posteriors (or, with extrinsic, the extrinsic outputs) of a frame of N
 * codewords of cb from the reads, each P(y_r | X) restricted to limits[r];
 * priors: N q, or empty for uniform. Nothing where every message has
 * probability 0.
 */
inline std::optional<std::vector<double>>
brute_force_reads(const codebook& cb,
                  int N,
                  const std::vector<tiny_read>& reads,
                  const std::vector<decoder_limits>& limits,
                  const std::vector<double>& priors,
                  bool extrinsic = false)
{
    const int q = cb.q(), n = cb.n();
    // weight of each message without its priors
    std::vector<int> msg(size_t(N), 0);
    std::vector<std::vector<int>> messages;
    std::vector<double> like;
    for (;;) {
        std::vector<uint8_t> X;
        for (int i = 0; i < N; ++i) {
            const auto w =
                letters_of(cb.word(size_t(i), msg[size_t(i)]), n, cb.alphabet());
            X.insert(X.end(), w.begin(), w.end());
        }
        double p = 1;
        for (size_t r = 0; r < reads.size(); ++r) {
            const auto& rd = reads[r];
            p *= restricted_likelihood(rd.ch,
                                       X,
                                       n,
                                       N,
                                       rd.y.data(),
                                       rd.llr.empty() ? nullptr : rd.llr.data(),
                                       (long long)rd.size(),
                                       limits[r]);
        }
        messages.push_back(msg);
        like.push_back(p);
        int k = 0;
        while (k < N && ++msg[size_t(k)] == q)
            msg[size_t(k++)] = 0;
        if (k == N)
            break;
    }
    std::vector<double> out(size_t(N) * size_t(q), 0.0);
    for (int i = 0; i < N; ++i) {
        double total = 0;
        for (size_t m = 0; m < messages.size(); ++m) {
            double w = like[m];
            for (int j = 0; j < N && !priors.empty(); ++j)
                if (!(extrinsic && j == i))
                    w *= priors[size_t(j * q + messages[m][size_t(j)])];
            out[size_t(i * q + messages[m][size_t(i)])] += w;
            total += w;
        }
        if (!(total > 0))
            return std::nullopt;
        for (int D = 0; D < q; ++D)
            out[size_t(i * q + D)] /= total;
    }
    return out;
}

struct tiny_cluster {
    codebook cb;
    int N;
    std::vector<tiny_read> reads;
    std::vector<double> priors; // empty: uniform
};

inline channel_params random_channel(std::mt19937_64& rng, int A)
{
    std::uniform_real_distribution<double> u(0, 1);
    return channel_params(
        0.2 * u(rng), 0.2 * u(rng), u(rng) < 0.3 ? 0.0 : 0.1 * u(rng), A);
}

/*
 * A tiny frame (N <= 3, n <= 3, q <= 4) sent M times, each read through its
 * own realization of its channel (one channel for all, or one each); over A
 * letters; soft items (LLRs for bits, log-probabilities for letters) if
 * asked; random priors if asked.
 */
inline tiny_cluster random_cluster(
    std::mt19937_64& rng, int M, int A, bool own_channels, bool soft, bool with_priors)
{
    std::uniform_int_distribution<int> Nd(1, 3), nd(2, 3), Pd(2, 3);
    std::uniform_real_distribution<double> u(0, 1);
    const int n = nd(rng), P = Pd(rng);
    int words = 1;
    for (int k = 0; k < n; ++k)
        words *= A;
    const int q = std::uniform_int_distribution<int>(2, std::min(4, words))(rng);
    const int N = Nd(rng);
    tiny_cluster tc{ codebook::random(n, q, P, rng(), A), N, {}, {} };
    std::vector<int64_t> msg(static_cast<size_t>(N));
    for (auto& s : msg)
        s = std::uniform_int_distribution<int>(0, q - 1)(rng);
    const auto sent = tc.cb.encode(msg.data(), msg.size());
    const channel_params shared = random_channel(rng, A);
    for (int r = 0; r < M; ++r) {
        tiny_read rd{ own_channels ? random_channel(rng, A) : shared, {}, {} };
        auto t = transmit(rd.ch, sent.data(), sent.size(), rng(), 0);
        if (t.rx.empty())
            t.rx.push_back(uint8_t(rng() % unsigned(A)));
        rd.y = t.rx;
        if (soft) {
            if (A == 2) {
                for (uint8_t b : rd.y)
                    rd.llr.push_back((b ? 1.0 : -1.0) * (u(rng) < 0.1 ? -1 : 1) *
                                     (0.2 + 6 * u(rng)));
            } else {
                for (uint8_t y : rd.y)
                    for (int l = 0; l < A; ++l)
                        rd.llr.push_back(l == y ? 0.0 : -0.5 - 4 * u(rng));
            }
        }
        tc.reads.push_back(std::move(rd));
    }
    if (with_priors) {
        tc.priors.resize(size_t(N * q));
        for (auto& v : tc.priors)
            v = u(rng) < 0.15 ? 0.0 : u(rng);
        for (int i = 0; i < N; ++i)
            tc.priors[size_t(i * q + int(rng() % unsigned(q)))] += 0.5;
    }
    return tc;
}

inline reads_config config_for(const tiny_cluster& tc,
                               bool own_channels,
                               precision_kind prec,
                               read_method method = read_method::joint,
                               backend_kind backend = backend_kind::cpu)
{
    decoder_config base(tc.cb, tc.reads.front().ch, tc.N);
    base.backend = backend;
    base.precision = prec;
    base.threads = 1;
    reads_config rc(base);
    if (own_channels)
        for (const auto& r : tc.reads)
            rc.channels.push_back(r.ch);
    rc.method = method;
    return rc;
}

inline frame_reads request_of(const tiny_cluster& tc, bool extrinsic = false)
{
    frame_reads f;
    for (const auto& r : tc.reads)
        f.reads.push_back(r.view());
    f.priors = tc.priors.empty() ? nullptr : tc.priors.data();
    f.extrinsic = extrinsic;
    return f;
}

/*
 * The reference of a joint decode under reads_decoder's rule: the reads whose
 * end drift lies inside their limits, and of those, while they have
 * probability 0 together, the ones that are possible alone (if that leaves
 * out any). Nothing when no read is left or the reads stay impossible.
 */
inline std::optional<std::vector<double>> joint_reference(const tiny_cluster& tc,
                                                          const reads_decoder& dec,
                                                          bool extrinsic,
                                                          std::vector<int>& kept)
{
    kept.clear();
    const long long tau = (long long)tc.N * tc.cb.n();
    for (size_t r = 0; r < tc.reads.size(); ++r)
        if (dec.limits(r).mtau.contains((long long)tc.reads[r].size() - tau))
            kept.push_back(int(r));
    for (;;) {
        if (kept.empty())
            return std::nullopt;
        std::vector<tiny_read> rs;
        std::vector<decoder_limits> lim;
        for (int r : kept) {
            rs.push_back(tc.reads[size_t(r)]);
            lim.push_back(dec.limits(size_t(r)));
        }
        auto ref = brute_force_reads(tc.cb, tc.N, rs, lim, tc.priors, extrinsic);
        if (ref)
            return ref;
        std::vector<int> alone;
        for (int r : kept) {
            if (brute_force_reads(tc.cb,
                                  tc.N,
                                  { tc.reads[size_t(r)] },
                                  { dec.limits(size_t(r)) },
                                  tc.priors))
                alone.push_back(r);
        }
        if (alone.size() == kept.size())
            return std::nullopt;
        kept = alone;
    }
}

//! A kind of random cluster for check_joint.
struct joint_case {
    const char* what;
    int cases, M, A;
    bool own_channels, soft, with_priors, extrinsic;
};

//! The kinds every backend's joint decoder is checked on.
inline const std::vector<joint_case>& joint_cases()
{
    static const std::vector<joint_case> list = {
        { "two reads", 40, 2, 2, false, false, false, false },
        { "three reads", 25, 3, 2, false, false, false, false },
        { "priors, a channel per read", 30, 2, 2, true, false, true, false },
        { "three reads, priors, a channel each", 15, 3, 2, true, false, true, false },
        { "extrinsic outputs", 25, 2, 2, true, false, true, true },
        { "LLRs", 20, 2, 2, false, true, true, false },
        { "four letters", 20, 2, 4, true, false, true, false },
        { "log-probabilities, extrinsic", 12, 3, 4, false, true, false, true },
    };
    return list;
}

// The joint decoder of `backend` against the brute force over random
// clusters of one kind.
inline void check_joint(backend_kind backend, uint64_t seed, const joint_case& jc)
{
    const int cases = jc.cases, M = jc.M, A = jc.A;
    const bool own_channels = jc.own_channels, soft = jc.soft,
               with_priors = jc.with_priors, extrinsic = jc.extrinsic;
    std::mt19937_64 rng(seed);
    int compared = 0;
    for (int c = 0; c < cases; ++c) {
        const tiny_cluster tc =
            random_cluster(rng, M, A, own_channels, soft, with_priors);
        for (auto prec : { precision_kind::dual, precision_kind::single }) {
            reads_decoder dec(
                config_for(tc, own_channels, prec, read_method::joint, backend));
            std::vector<double> post(size_t(tc.N * tc.cb.q()));
            const reads_result r = dec.decode(request_of(tc, extrinsic), post.data());
            std::vector<int> kept;
            const auto ref = joint_reference(tc, dec, extrinsic, kept);
            SCOPED_TRACE(testing::Message()
                         << "seed " << seed << " case " << c << " M " << M << " A " << A
                         << " precision " << to_string(prec) << ": " << r.result.reason);
            if (!ref) {
                EXPECT_FALSE(r.ok());
                for (double v : post)
                    EXPECT_DOUBLE_EQ(v, 1.0 / tc.cb.q());
                continue;
            }
            ASSERT_TRUE(r.ok());
            EXPECT_EQ(r.used, int(kept.size()));
            for (size_t k = 0; k < tc.reads.size(); ++k) {
                const bool in = std::find(kept.begin(), kept.end(), int(k)) != kept.end();
                EXPECT_EQ(r.reads[k].ok(), in)
                    << "read " << k << ": " << r.reads[k].reason;
            }
            const double tol = prec == precision_kind::dual ? 1e-9 : 1e-4;
            EXPECT_LT(max_abs_diff(post, *ref), tol);
            ++compared;
        }
    }
    EXPECT_GT(compared, cases); // most clusters decode
}

} // namespace qa
} // namespace bsid

#endif /* INCLUDED_BSID_QA_READS_REFERENCE_H */
