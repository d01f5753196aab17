/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_QA_LETTERS_REFERENCE_H
#define INCLUDED_BSID_QA_LETTERS_REFERENCE_H

// The MAP decoder over A > 2 letters against the brute force of
// qa_reference.h, on any backend (qa_letters.cc: the CPU;
// qa_letters_cuda.cc: CUDA): random tiny cases (uniform and matrix
// substitutions, priors, hard letters or A log-probabilities per item), with
// wide limits and with the decoder's own, the extrinsic output and log
// priors, and frame boundaries (qa_frame_reference.h), in both precisions
// and both storages.

#include "qa_frame_reference.h"
#include "qa_reference.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace bsid {
namespace qa {

inline const precision_kind letters_precisions[] = { precision_kind::dual,
                                                     precision_kind::single };
inline const storage_kind letters_storages[] = { storage_kind::global,
                                                 storage_kind::local };

// a random row-stochastic A x A matrix with a heavy diagonal and some zeros
inline std::vector<double> random_matrix(std::mt19937_64& rng, int A)
{
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<double> S(size_t(A * A));
    for (int x = 0; x < A; ++x) {
        double sum = 0;
        for (int y = 0; y < A; ++y) {
            double v = x == y ? 4 + u(rng) : (u(rng) < 0.3 ? 0.0 : u(rng));
            S[size_t(x * A + y)] = v;
            sum += v;
        }
        for (int y = 0; y < A; ++y)
            S[size_t(x * A + y)] /= sum;
    }
    return S;
}

// A log-probabilities per received letter: a basecaller's, mostly sure of
// the letter received, a tenth of them of another, a few certain (one 0 and
// -inf elsewhere) and a few all equal
inline void make_soft_letters(tiny_case& tc, std::mt19937_64& rng)
{
    const int A = tc.ch.alphabet();
    std::uniform_real_distribution<double> u(0, 1);
    tc.llr.assign(tc.y.size() * size_t(A), 0.0);
    for (size_t j = 0; j < tc.y.size(); ++j) {
        double* lp = tc.llr.data() + j * size_t(A);
        const int top = u(rng) < 0.1 ? int(rng() % uint64_t(A)) : int(tc.y[j]);
        const double v = u(rng);
        for (int l = 0; l < A; ++l) {
            if (v < 0.05)
                lp[l] = l == top ? 0.0 : -std::numeric_limits<double>::infinity();
            else if (v < 0.08)
                lp[l] = -1.5;
            else
                lp[l] = l == top ? -0.1 * u(rng) : -1 - 6 * u(rng);
        }
    }
}

// a random tiny case over A letters: N <= 3, n <= 3, q <= min(A^n, 6), P in
// {1, 2}, uniform or matrix substitutions, optional priors, hard or soft
inline tiny_case letters_case(
    std::mt19937_64& rng, int A, bool matrix, bool with_priors, bool soft = false)
{
    std::uniform_real_distribution<double> u(0, 1);
    const int n = 1 + int(rng() % 3), N = 1 + int(rng() % 3), P = 1 + int(rng() % 2);
    int words = 1;
    for (int k = 0; k < n; ++k)
        words *= A;
    const int q = 2 + int(rng() % uint64_t(std::min(words, 6) - 1));
    const codebook cb = codebook::random(n, q, P, rng(), A);
    const double Pi = 0.25 * u(rng), Pd = 0.25 * u(rng), Ps = 0.3 * u(rng);
    const channel_params ch = matrix ? channel_params(Pi, Pd, 0, A, random_matrix(rng, A))
                                     : channel_params(Pi, Pd, Ps, A);
    std::vector<int64_t> msg(static_cast<size_t>(N));
    for (auto& s : msg)
        s = int64_t(rng() % uint64_t(q));
    const auto x = cb.encode(msg.data(), msg.size());
    auto t = transmit(ch, x.data(), x.size(), rng(), 0);
    if (t.rx.empty())
        t.rx.push_back(uint8_t(rng() % uint64_t(A)));
    std::vector<double> pri;
    if (with_priors) {
        pri.resize(size_t(N * q));
        for (auto& v : pri)
            v = u(rng) < 0.2 ? 0.0 : u(rng);
        for (int i = 0; i < N; ++i)
            pri[size_t(i * q) + rng() % uint64_t(q)] += 0.5;
    }
    tiny_case tc{ cb, ch, N, t.rx, pri, {} };
    if (soft)
        make_soft_letters(tc, rng);
    return tc;
}

inline decoder_config
letters_config(const tiny_case& tc, backend_kind b, precision_kind p, storage_kind s)
{
    decoder_config cfg(tc.cb, tc.ch, tc.N);
    cfg.backend = b;
    cfg.precision = p;
    cfg.storage = s;
    return cfg;
}

// the frame of a tiny case: its letters, or its log-probabilities
inline frame_view letters_view(const tiny_case& tc, const double* priors)
{
    frame_view f{ tc.y.data(), tc.y.size(), priors };
    if (!tc.llr.empty()) {
        f.bits = nullptr;
        f.logprob = tc.llr.data();
    }
    return f;
}

inline std::string what(const tiny_case& tc, precision_kind p, storage_kind s)
{
    return "A=" + std::to_string(tc.cb.alphabet()) + " N=" + std::to_string(tc.N) +
           " n=" + std::to_string(tc.cb.n()) + " q=" + std::to_string(tc.cb.q()) +
           " P=" + std::to_string(tc.cb.P()) + " " + tc.ch.repr() + " " + to_string(p) +
           " " + to_string(s) + (tc.llr.empty() ? " hard" : " soft");
}

// wide limits (the untruncated lattice): A in {3, 4, 8}, hard and soft
inline void check_letters_wide_limits(backend_kind b, uint64_t seed, int trials)
{
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < trials; ++trial) {
        const int A = std::vector<int>{ 3, 4, 8 }[size_t(trial % 3)];
        const tiny_case tc =
            letters_case(rng, A, trial % 4 >= 2, trial % 2 == 1, trial % 5 >= 3);
        const auto ref = brute_force_app(tc, nullptr);
        for (auto p : letters_precisions)
            for (auto s : letters_storages) {
                auto cfg = letters_config(tc, b, p, s);
                wide_limits(cfg, tc);
                auto dec = map_decoder::make(cfg);
                std::vector<double> post(size_t(tc.N * tc.cb.q()));
                const auto r = dec->decode(
                    letters_view(tc, tc.priors.empty() ? nullptr : tc.priors.data()),
                    post.data());
                ASSERT_TRUE(r.ok()) << r.reason << " " << what(tc, p, s);
                EXPECT_LT(max_abs_diff(post, ref),
                          p == precision_kind::dual ? 1e-9 : 1e-4)
                    << "trial " << trial << " " << what(tc, p, s);
            }
    }
}

// the decoder's own limits against the reference restricted as it is
inline void check_letters_default_limits(backend_kind b, uint64_t seed, int trials)
{
    std::mt19937_64 rng(seed);
    int decoded = 0;
    for (int trial = 0; trial < trials; ++trial) {
        const int A = std::vector<int>{ 4, 3, 5, 8 }[size_t(trial % 4)];
        const tiny_case tc =
            letters_case(rng, A, trial % 3 == 0, trial % 2 == 0, trial % 5 == 1);
        for (auto p : letters_precisions)
            for (auto s : letters_storages) {
                auto dec = map_decoder::make(letters_config(tc, b, p, s));
                std::vector<double> post(size_t(tc.N * tc.cb.q()));
                const auto r = dec->decode(
                    letters_view(tc, tc.priors.empty() ? nullptr : tc.priors.data()),
                    post.data());
                const auto ref = restricted_reference(tc, *dec, r);
                if (!ref)
                    continue;
                ASSERT_TRUE(r.ok()) << r.reason << " " << what(tc, p, s);
                ++decoded;
                EXPECT_LT(max_abs_diff(post, *ref),
                          p == precision_kind::dual ? 1e-9 : 1e-4)
                    << "trial " << trial << " " << what(tc, p, s);
            }
    }
    EXPECT_GT(decoded, trials * 2);
}

// the extrinsic output and log priors
inline void check_letters_extrinsic(backend_kind b, uint64_t seed, int trials)
{
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < trials; ++trial) {
        const int A = trial % 2 ? 4 : 3;
        const tiny_case tc = letters_case(rng, A, trial % 3 == 1, true, trial % 4 == 3);
        const auto ref = brute_force_extrinsic(tc);
        const auto app = brute_force_app(tc, nullptr);
        int zeros = 0;
        const auto logs = log_priors_of(tc, zeros);
        for (auto p : letters_precisions)
            for (auto s : letters_storages) {
                auto cfg = letters_config(tc, b, p, s);
                wide_limits(cfg, tc);
                auto dec = map_decoder::make(cfg);
                const double tol = p == precision_kind::dual ? 1e-9 : 1e-4;
                std::vector<double> post(size_t(tc.N * tc.cb.q()));
                frame_view f = letters_view(tc, tc.priors.data());
                f.extrinsic = true;
                ASSERT_TRUE(dec->decode(f, post.data()).ok()) << what(tc, p, s);
                EXPECT_LT(max_abs_diff(post, ref), tol) << "extrinsic " << what(tc, p, s);
                frame_view g = letters_view(tc, logs.data());
                g.log_priors = true;
                ASSERT_TRUE(dec->decode(g, post.data()).ok()) << what(tc, p, s);
                EXPECT_LT(max_abs_diff(post, app), tol)
                    << "log priors " << what(tc, p, s);
            }
    }
}

// a tiny code over A letters: n = 2, q = 3, P = 1 (n = 1 for A = 8)
inline codebook tiny_letters_code(int A)
{
    if (A == 8)
        return codebook(1, { { 5, 0, 2 } }, 8);
    return codebook(2, { { uint32_t(A + 1), 2, uint32_t(A * A - 1) } }, A);
}

// check_boundary_models over A letters with each sync word of `words`
// (keyed by A), for uniform and matrix substitutions, hard or soft items
inline void
check_letters_boundaries(backend_kind b,
                         const std::vector<std::pair<int, std::string>>& words,
                         bool soft,
                         uint64_t seed)
{
    std::mt19937_64 rng(seed);
    for (const auto& [A, W] : words) {
        for (bool matrix : { false, true }) {
            const channel_params ch =
                matrix ? channel_params(0.1, 0.15, 0, A, random_matrix(rng, A))
                       : channel_params(0.1, 0.15, 0.05, A);
            check_boundary_models(b,
                                  tiny_letters_code(A),
                                  ch,
                                  { "", W },
                                  uint32_t((soft ? 100 : 0) + A),
                                  soft);
        }
    }
}

} // namespace qa
} // namespace bsid

#endif /* INCLUDED_BSID_QA_LETTERS_REFERENCE_H */
