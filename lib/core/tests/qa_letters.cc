/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The MAP decoder over an alphabet of A > 2 letters (the CPU lattice of
// inner/letters_lattice.cc) against the brute force of qa_reference.h, which
// enumerates every message and sums P(y | x) from the model's statement:
// uniform and matrix substitutions, priors and the extrinsic output, both
// precisions and both storages; and what is refused clearly.

#include "qa_reference.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/estimation/event_counts.h>
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gtest/gtest.h>
#include <cmath>
#include <random>
#include <vector>

using namespace bsid;
using namespace bsid::qa;

namespace {

const precision_kind precisions[] = { precision_kind::dual, precision_kind::single };
const storage_kind storages[] = { storage_kind::global, storage_kind::local };

// a random row-stochastic A x A matrix with a heavy diagonal and some zeros
std::vector<double> random_matrix(std::mt19937_64& rng, int A)
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

// a random tiny case over A letters: N <= 3, n <= 3, q <= min(A^n, 6), P in
// {1, 2}, uniform or matrix substitutions, optional priors
tiny_case letters_case(std::mt19937_64& rng, int A, bool matrix, bool with_priors)
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
    return { cb, ch, N, t.rx, pri, {} };
}

decoder_config cpu_config(const tiny_case& tc, precision_kind p, storage_kind s)
{
    decoder_config cfg(tc.cb, tc.ch, tc.N);
    cfg.backend = backend_kind::cpu;
    cfg.precision = p;
    cfg.storage = s;
    return cfg;
}

std::string what(const tiny_case& tc, precision_kind p, storage_kind s)
{
    return "A=" + std::to_string(tc.cb.alphabet()) + " N=" + std::to_string(tc.N) +
           " n=" + std::to_string(tc.cb.n()) + " q=" + std::to_string(tc.cb.q()) +
           " P=" + std::to_string(tc.cb.P()) + " " + tc.ch.repr() + " " + to_string(p) +
           " " + to_string(s);
}

} // namespace

TEST(letters, exact_against_brute_force_with_wide_limits)
{
    std::mt19937_64 rng(test_seed() + 40);
    for (int trial = 0; trial < 48; ++trial) {
        const int A = std::vector<int>{ 3, 4, 8 }[size_t(trial % 3)];
        const tiny_case tc = letters_case(rng, A, trial % 4 >= 2, trial % 2 == 1);
        const auto ref = brute_force_app(tc, nullptr);
        for (auto p : precisions)
            for (auto s : storages) {
                auto cfg = cpu_config(tc, p, s);
                wide_limits(cfg, tc);
                auto dec = map_decoder::make(cfg);
                std::vector<double> post(size_t(tc.N * tc.cb.q()));
                const frame_view f{ tc.y.data(),
                                    tc.y.size(),
                                    tc.priors.empty() ? nullptr : tc.priors.data() };
                const auto r = dec->decode(f, post.data());
                ASSERT_TRUE(r.ok()) << r.reason << " " << what(tc, p, s);
                EXPECT_LT(max_abs_diff(post, ref),
                          p == precision_kind::dual ? 1e-9 : 1e-4)
                    << "trial " << trial << " " << what(tc, p, s);
            }
    }
}

TEST(letters, exact_against_restricted_reference_with_default_limits)
{
    std::mt19937_64 rng(test_seed() + 41);
    int decoded = 0;
    for (int trial = 0; trial < 48; ++trial) {
        const int A = std::vector<int>{ 4, 3, 5, 8 }[size_t(trial % 4)];
        const tiny_case tc = letters_case(rng, A, trial % 3 == 0, trial % 2 == 0);
        for (auto p : precisions)
            for (auto s : storages) {
                auto dec = map_decoder::make(cpu_config(tc, p, s));
                std::vector<double> post(size_t(tc.N * tc.cb.q()));
                const frame_view f{ tc.y.data(),
                                    tc.y.size(),
                                    tc.priors.empty() ? nullptr : tc.priors.data() };
                const auto r = dec->decode(f, post.data());
                const long long drift =
                    (long long)tc.y.size() - (long long)tc.N * tc.cb.n();
                if (!dec->limits().mtau.contains(drift)) {
                    EXPECT_EQ(r.status, frame_status::drift_out_of_range);
                    continue;
                }
                const auto ref = brute_force_app(tc, &dec->limits());
                double total = 0;
                for (double v : ref)
                    total += v;
                if (!std::isfinite(total)) { // zero probability within the limits
                    EXPECT_EQ(r.status, frame_status::impossible) << r.reason;
                    continue;
                }
                ASSERT_TRUE(r.ok()) << r.reason << " " << what(tc, p, s);
                ++decoded;
                EXPECT_LT(max_abs_diff(post, ref),
                          p == precision_kind::dual ? 1e-9 : 1e-4)
                    << "trial " << trial << " " << what(tc, p, s);
            }
    }
    EXPECT_GT(decoded, 100);
}

TEST(letters, extrinsic_and_log_priors_against_brute_force)
{
    std::mt19937_64 rng(test_seed() + 42);
    for (int trial = 0; trial < 24; ++trial) {
        const int A = trial % 2 ? 4 : 3;
        const tiny_case tc = letters_case(rng, A, trial % 3 == 1, true);
        const auto ref = brute_force_extrinsic(tc);
        const auto app = brute_force_app(tc, nullptr);
        int zeros = 0;
        const auto logs = log_priors_of(tc, zeros);
        for (auto p : precisions)
            for (auto s : storages) {
                auto cfg = cpu_config(tc, p, s);
                wide_limits(cfg, tc);
                auto dec = map_decoder::make(cfg);
                const double tol = p == precision_kind::dual ? 1e-9 : 1e-4;
                std::vector<double> post(size_t(tc.N * tc.cb.q()));
                frame_view f{ tc.y.data(), tc.y.size(), tc.priors.data() };
                f.extrinsic = true;
                ASSERT_TRUE(dec->decode(f, post.data()).ok()) << what(tc, p, s);
                EXPECT_LT(max_abs_diff(post, ref), tol) << "extrinsic " << what(tc, p, s);
                frame_view g{ tc.y.data(), tc.y.size(), logs.data() };
                g.log_priors = true;
                ASSERT_TRUE(dec->decode(g, post.data()).ok()) << what(tc, p, s);
                EXPECT_LT(max_abs_diff(post, app), tol)
                    << "log priors " << what(tc, p, s);
            }
    }
}

TEST(letters, batches_decode_each_frame_as_alone)
{
    std::mt19937_64 rng(test_seed() + 43);
    const codebook cb = codebook::random(4, 16, 3, 5, 4);
    const channel_params ch(0.02, 0.02, 0.03, 4);
    decoder_config cfg(cb, ch, 30);
    cfg.backend = backend_kind::automatic; // the CPU, for letters
    auto dec = map_decoder::make(cfg);
    EXPECT_EQ(dec->backend(), backend_kind::cpu);
    std::vector<std::vector<uint8_t>> rx;
    std::vector<frame_view> views;
    for (int k = 0; k < 6; ++k) {
        std::vector<int64_t> msg(30);
        for (auto& s : msg)
            s = int64_t(rng() % 16);
        const auto x = cb.encode(msg.data(), msg.size());
        rx.push_back(transmit(ch, x.data(), x.size(), 9, uint64_t(k)).rx);
    }
    rx[3][2] = 4; // not a letter: that frame alone is refused
    for (const auto& r : rx)
        views.push_back(frame_view{ r.data(), r.size() });
    std::vector<double> post(views.size() * 30 * 16);
    std::vector<double*> outs;
    for (size_t k = 0; k < views.size(); ++k)
        outs.push_back(post.data() + k * 30 * 16);
    const auto results = dec->decode_batch(views, outs);
    for (size_t k = 0; k < views.size(); ++k) {
        std::vector<double> one(30 * 16);
        const auto r = dec->decode(views[k], one.data());
        EXPECT_EQ(results[k].status, r.status) << k;
        if (k == 3) {
            EXPECT_EQ(r.status, frame_status::invalid_input);
            EXPECT_NE(
                r.reason.find("received byte 4 at position 2 is not a letter of the "
                              "alphabet (expected 0 to 3)"),
                std::string::npos)
                << r.reason;
            continue;
        }
        ASSERT_TRUE(r.ok()) << r.reason;
        for (size_t j = 0; j < one.size(); ++j)
            ASSERT_EQ(post[k * one.size() + j], one[j]) << k;
    }
}

TEST(letters, the_parts_that_work_on_bits_refuse_letters_clearly)
{
    const codebook cb = codebook::random(3, 8, 1, 1, 4);
    const channel_params ch(0.01, 0.01, 0.01, 4);
    decoder_config cfg(cb, ch, 5);
    cfg.backend = backend_kind::cuda;
    try {
        map_decoder::make(cfg);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("the CUDA backend decodes bits"),
                  std::string::npos)
            << e.what();
    }
    cfg.backend = backend_kind::cpu;
    try {
        frame_decoder fd(cfg);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(
            std::string(e.what()).find("frame_decoder: the channel's alphabet has 4"),
            std::string::npos)
            << e.what();
    }
    auto dec = map_decoder::make(cfg);
    const std::vector<uint8_t> y(15, 1);
    std::vector<double> post(5 * 8);
    // LLRs are soft bits
    const std::vector<double> llr(15, 1.0);
    frame_view soft{ nullptr, 15 };
    soft.llr = llr.data();
    auto r = dec->decode(soft, post.data());
    EXPECT_EQ(r.status, frame_status::invalid_input);
    EXPECT_NE(r.reason.find("LLR items are soft bits"), std::string::npos) << r.reason;
    // the expected events of estimation are counted for bits
    event_counts ev;
    frame_view f{ y.data(), y.size() };
    f.events = &ev;
    r = dec->decode(f, post.data());
    EXPECT_EQ(r.status, frame_status::invalid_input);
    EXPECT_NE(r.reason.find("expected channel events"), std::string::npos) << r.reason;
    for (double v : post)
        EXPECT_TRUE(std::isfinite(v));
}
