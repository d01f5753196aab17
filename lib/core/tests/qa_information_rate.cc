/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// information_rate() against exact values: each frame's sample against the
// enumerated likelihoods, the whole estimate against the mutual information
// summed over every (x, y) of tiny frames, and the substitution channel's
// 1 - h(Ps).

#include "qa_reference.h"
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/sim/frame_source.h>
#include <gnuradio/bsid/core/sim/information_rate.h>
#include <gtest/gtest.h>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace {

using bsid::qa::letters_of;
using bsid::qa::restricted_likelihood;

// the letters of message msg under cb
std::vector<uint8_t> encode(const bsid::codebook& cb, const std::vector<int>& msg)
{
    std::vector<uint8_t> X;
    for (size_t i = 0; i < msg.size(); ++i) {
        const auto w = letters_of(cb.word(i, msg[i]), cb.n(), cb.alphabet());
        X.insert(X.end(), w.begin(), w.end());
    }
    return X;
}

// every message of N symbols over q
std::vector<std::vector<int>> all_messages(int N, int q)
{
    std::vector<std::vector<int>> out;
    std::vector<int> m(size_t(N), 0);
    for (;;) {
        out.push_back(m);
        int k = 0;
        while (k < N && ++m[size_t(k)] == q)
            m[size_t(k++)] = 0;
        if (k == N)
            return out;
    }
}

// ln P(y) and ln P(y | x) restricted as the decoder restricts them
struct enumerated {
    double log_py, log_pyx;
};

enumerated enumerate(const bsid::decoder_config& cfg,
                     const bsid::decoder_limits& lim,
                     const std::vector<int>& sent,
                     const std::vector<uint8_t>& y)
{
    const int n = cfg.cb.n(), q = cfg.cb.q(), N = cfg.N;
    double py = 0;
    for (const auto& m : all_messages(N, q))
        py += std::pow(double(q), -N) * restricted_likelihood(cfg.ch,
                                                              encode(cfg.cb, m),
                                                              n,
                                                              N,
                                                              y.data(),
                                                              nullptr,
                                                              (long long)y.size(),
                                                              lim);
    const double pyx = restricted_likelihood(
        cfg.ch, encode(cfg.cb, sent), n, N, y.data(), nullptr, (long long)y.size(), lim);
    return { std::log(py), std::log(pyx) };
}

TEST(information_rate, each_sample_is_the_enumerated_log_likelihood_ratio)
{
    // a time-varying binary code and a letters code, each frame checked
    struct setup {
        bsid::codebook cb;
        bsid::channel_params ch;
        int N;
    };
    const std::vector<setup> setups = {
        { bsid::codebook::random(3, 4, 2, 11),
          bsid::channel_params(0.05, 0.04, 0.03),
          3 },
        { bsid::codebook::random(2, 3, 2, 5, 4),
          bsid::channel_params(0.04, 0.05, 0.06, 4),
          3 },
    };
    for (const auto& s : setups) {
        for (auto prec : { bsid::precision_kind::dual, bsid::precision_kind::single }) {
            bsid::decoder_config cfg(s.cb, s.ch, s.N);
            cfg.backend = bsid::backend_kind::cpu;
            cfg.precision = prec;
            bsid::information_rate_options opt;
            opt.frames = 40;
            opt.seed = 9;
            opt.batch = 16;
            const auto got = bsid::information_rate(cfg, opt);
            ASSERT_EQ(got.excluded, 0u);
            ASSERT_EQ(got.frames, 40u);
            ASSERT_EQ(got.samples.size(), 40u);

            const bsid::frame_decoder fd(cfg);
            const bsid::frame_source src(cfg.cb, cfg.ch, cfg.N, opt.seed);
            const double tol = prec == bsid::precision_kind::dual ? 1e-9 : 1e-4;
            double mean = 0;
            for (size_t k = 0; k < 40; ++k) {
                const auto f = src.frame(k);
                const std::vector<int> sent(f.symbols.begin(), f.symbols.end());
                const auto e = enumerate(cfg, fd.limits(), sent, f.rx);
                const double want =
                    (e.log_pyx - e.log_py) / (std::log(2.0) * cfg.N * cfg.cb.n());
                EXPECT_NEAR(got.samples[k], want, tol) << "frame " << k;
                mean += got.samples[k] / 40;
            }
            EXPECT_NEAR(got.rate, mean, 1e-12);
            EXPECT_LT(got.ci_low, got.rate);
            EXPECT_GT(got.ci_high, got.rate);
        }
    }
}

// The mutual information of the restricted model, summed over every x and
// every y whose length the drift limits allow, the y drawn from the true
// channel (the whole lattice): what the estimate converges to.
double exact_rate(const bsid::decoder_config& cfg, const bsid::decoder_limits& lim)
{
    const int n = cfg.cb.n(), q = cfg.cb.q(), N = cfg.N;
    const long long tau = (long long)N * n;
    const auto msgs = all_messages(N, q);
    std::vector<std::vector<uint8_t>> X;
    for (const auto& m : msgs)
        X.push_back(encode(cfg.cb, m));
    double info = 0, mass = 0;
    for (long long L = std::max(0LL, tau + lim.mtau.lo); L <= tau + lim.mtau.hi; ++L) {
        std::vector<uint8_t> y(size_t(L), 0);
        for (uint64_t v = 0; v < (uint64_t(1) << L); ++v) {
            for (long long j = 0; j < L; ++j)
                y[size_t(j)] = uint8_t((v >> j) & 1);
            std::vector<double> pr(X.size());
            double py = 0;
            for (size_t a = 0; a < X.size(); ++a) {
                pr[a] =
                    restricted_likelihood(cfg.ch, X[a], n, N, y.data(), nullptr, L, lim);
                py += pr[a] / double(X.size());
            }
            for (size_t a = 0; a < X.size(); ++a) {
                if (pr[a] <= 0)
                    continue;
                const double pt = bsid::qa::corridor_R(
                                      cfg.ch, X[a], y.data(), int(L), -int(tau), int(L)) /
                                  double(X.size());
                info += pt * std::log2(pr[a] / py);
                mass += pt;
            }
        }
    }
    return info / mass / double(tau);
}

TEST(information_rate, converges_to_the_mutual_information_over_every_x_and_y)
{
    struct setup {
        bsid::codebook cb;
        bsid::channel_params ch;
        int N;
    };
    // the uncoded channel (its i.i.d. rate at 4 bits) and a time-varying
    // code, under narrow drift limits (so that the sum over y stays small
    // and some frames leave the limits: the estimate is over the others)
    const std::vector<setup> setups = {
        { bsid::codebook::sparse(1, 2), bsid::channel_params(0.1, 0.1, 0.05), 4 },
        { bsid::codebook::random(2, 2, 2, 3), bsid::channel_params(0.08, 0.06, 0.02), 2 },
    };
    for (const auto& s : setups) {
        bsid::decoder_config cfg(s.cb, s.ch, s.N);
        cfg.backend = bsid::backend_kind::cpu;
        cfg.precision = bsid::precision_kind::dual;
        cfg.mtau = bsid::drift_range{ -2, 3 };
        cfg.mn = bsid::drift_range{ -2, 3 };
        const bsid::frame_decoder fd(cfg);
        const double exact = exact_rate(cfg, fd.limits());
        bsid::information_rate_options opt;
        opt.frames = 20000;
        opt.seed = 4;
        const auto got = bsid::information_rate(cfg, opt);
        EXPECT_GT(got.excluded, 0u);
        EXPECT_EQ(got.frames + got.excluded, opt.frames);
        const double se = (got.ci_high - got.ci_low) / (2 * 1.96);
        EXPECT_GT(se, 0);
        EXPECT_LT(se, 0.01);
        EXPECT_LT(std::fabs(got.rate - exact), 4 * se)
            << "estimate " << got.rate << " exact " << exact << " se " << se;
    }
}

double h2(double p) { return -p * std::log2(p) - (1 - p) * std::log2(1 - p); }

TEST(information_rate, substitution_channel_gives_one_minus_h_of_ps)
{
    // no insertions or deletions: each frame's sample is exactly
    // 1 + (d log2 Ps + (N - d) log2(1 - Ps)) / N for d substitutions
    const double Ps = 0.11;
    const int N = 64;
    bsid::decoder_config cfg(
        bsid::codebook::sparse(1, 2), bsid::channel_params(0, 0, Ps), N);
    cfg.backend = bsid::backend_kind::cpu;
    cfg.precision = bsid::precision_kind::dual;
    bsid::information_rate_options opt;
    opt.frames = 2000;
    opt.seed = 1;
    const auto got = bsid::information_rate(cfg, opt);
    ASSERT_EQ(got.frames, 2000u);
    const bsid::frame_source src(cfg.cb, cfg.ch, N, opt.seed);
    for (size_t k = 0; k < 50; ++k) {
        const auto f = src.frame(k);
        int d = 0;
        for (int i = 0; i < N; ++i)
            d += f.rx[size_t(i)] != f.symbols[size_t(i)];
        const double want = 1 + (d * std::log2(Ps) + (N - d) * std::log2(1 - Ps)) / N;
        EXPECT_NEAR(got.samples[k], want, 1e-9) << "frame " << k;
    }
    const double se = (got.ci_high - got.ci_low) / (2 * 1.96);
    EXPECT_LT(std::fabs(got.rate - (1 - h2(Ps))), 3 * se)
        << got.rate << " against " << 1 - h2(Ps);
}

TEST(information_rate, batches_and_threads_give_the_same_samples)
{
    bsid::decoder_config cfg(bsid::codebook::builtin("ld3-modvec6"),
                             bsid::channel_params(0.01, 0.01, 0.0),
                             20);
    cfg.backend = bsid::backend_kind::cpu;
    cfg.precision = bsid::precision_kind::dual;
    bsid::information_rate_options a;
    a.frames = 37;
    a.seed = 2;
    a.batch = 256;
    a.threads = 1;
    auto b = a;
    b.batch = 5;
    b.threads = 2;
    const auto ra = bsid::information_rate(cfg, a);
    const auto rb = bsid::information_rate(cfg, b);
    ASSERT_EQ(ra.samples.size(), rb.samples.size());
    for (size_t k = 0; k < ra.samples.size(); ++k)
        EXPECT_EQ(ra.samples[k], rb.samples[k]) << "frame " << k;
    // P(y | x) / P(y) <= 1 / P(x) = q^N: no frame carries more than the
    // code's log2(q) / n = 4 / 8 bits per channel bit
    for (double s : ra.samples)
        EXPECT_LE(s, 0.5 + 1e-12);
    EXPECT_GT(ra.rate, 0.4);
}

TEST(information_rate, bad_options_are_refused)
{
    bsid::decoder_config cfg(
        bsid::codebook::sparse(1, 2), bsid::channel_params(0.01, 0.01, 0), 8);
    cfg.backend = bsid::backend_kind::cpu;
    bsid::information_rate_options opt;
    opt.frames = 1;
    EXPECT_THROW(bsid::information_rate(cfg, opt), std::invalid_argument);
    opt.frames = 10;
    opt.batch = 0;
    EXPECT_THROW(bsid::information_rate(cfg, opt), std::invalid_argument);
    opt.batch = 4;
    opt.frames = uint64_t(1) << 62;
    EXPECT_THROW(bsid::information_rate(cfg, opt), std::invalid_argument);
}

} // namespace
