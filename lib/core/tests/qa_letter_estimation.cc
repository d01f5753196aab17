/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Channel estimation over A > 2 letters on the CPU backend (docs/design.md section 3,
// "Channel estimation"): the E-step's events, item posteriors and substitution counts
// against the brute force (qa_letter_events_reference.h, shared with the CUDA test);
// EM recovering known four-letter channels (uniform substitutions, a full
// substitution matrix, log-probability items and their scale; tagged frames and a
// stream with a sync word of letters); bad input.

#include "qa_letter_events_reference.h"
#include "qa_sanitized.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/estimation/channel_estimator.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <gtest/gtest.h>
#include <cmath>
#include <random>
#include <stdexcept>

using namespace bsid;
using namespace bsid::qa;

namespace {

TEST(letter_estimation, expected_events_equal_the_brute_force)
{
    check_letter_events(backend_kind::cpu, test_seed() + 50, sanitized ? 6 : 30);
}

TEST(letter_estimation, frame_decoder_events_with_a_sync_word_of_letters)
{
    check_letter_events_sync_word(
        backend_kind::cpu, test_seed() + 51, sanitized ? 4 : 12);
}

// Frames of N random symbols of cb through ch (frame k of seed): letters,
// and the log-probabilities of a reader that names each received letter
// right with probability 0.95 (another at random otherwise) and reports
// ln 0.95 for the letter it names and ln(0.05 / (A - 1)) for the others,
// halved (too little confidence: the scale to estimate is 2).
struct letter_frames {
    std::vector<std::vector<uint8_t>> rx;
    std::vector<std::vector<double>> logprob;
    std::vector<frame_view> views(bool soft) const
    {
        std::vector<frame_view> v;
        for (size_t k = 0; k < rx.size(); ++k) {
            frame_view f;
            if (soft)
                f.logprob = logprob[k].data();
            else
                f.bits = rx[k].data();
            f.rho = rx[k].size();
            v.push_back(f);
        }
        return v;
    }
};

letter_frames make_letter_frames(
    const codebook& cb, int N, const channel_params& ch, uint64_t seed, int count)
{
    const int A = cb.alphabet();
    letter_frames fs;
    philox_stream src(seed, 99);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<int64_t> msg(static_cast<size_t>(N));
    for (int k = 0; k < count; ++k) {
        for (auto& d : msg)
            d = int64_t(src.next_u32() % uint32_t(cb.q()));
        const auto x = cb.encode(msg.data(), msg.size());
        fs.rx.push_back(transmit(ch, x.data(), x.size(), seed, uint64_t(k)).rx);
        std::vector<double> lp;
        for (uint8_t y : fs.rx.back()) {
            const int seen = u(rng) < 0.95 ? int(y) : int((y + 1 + rng() % (A - 1)) % A);
            for (int l = 0; l < A; ++l)
                lp.push_back(0.5 *
                             (l == seen ? std::log(0.95) : std::log(0.05 / (A - 1))));
        }
        fs.logprob.push_back(std::move(lp));
    }
    return fs;
}

decoder_config letter_config(const codebook& cb, const channel_params& initial, int N)
{
    decoder_config cfg(cb, initial, N);
    cfg.backend = backend_kind::cpu;
    cfg.precision = precision_kind::dual;
    return cfg;
}


double rel(double est, double truth) { return std::fabs(est - truth) / truth; }

TEST(letter_estimation, log_likelihood_never_decreases)
{
    const codebook cb = codebook::random(3, 16, 4, 5, 4);
    const int N = sanitized ? 8 : 30, count = sanitized ? 3 : 10;
    for (const bool matrix : { false, true }) {
        for (const bool soft : { false, true }) {
            const letter_frames fs = make_letter_frames(
                cb, N, channel_params(0.03, 0.02, 0.03, 4), test_seed() + 3, count);
            estimate_options opt;
            opt.iterations = sanitized ? 3 : 6;
            opt.tolerance = 0;
            opt.substitution_matrix = matrix;
            const channel_estimate est = estimate_channel(
                letter_config(cb, channel_params(0.01, 0.05, 0.01, 4), N),
                fs.views(soft),
                opt);
            const std::string what = std::string(matrix ? "matrix" : "uniform") +
                                     (soft ? " logprob" : " hard");
            EXPECT_EQ(est.iterations, opt.iterations) << what;
            expect_non_decreasing(est.log_likelihoods, what);
            EXPECT_NEAR(
                est.events.del + est.events.trans, double(N) * cb.n() * count, 1e-6)
                << what;
            EXPECT_EQ(est.ch.alphabet(), 4) << what;
            EXPECT_EQ(est.ch.has_substitution_matrix(), matrix) << what;
            EXPECT_EQ(est.substitution_counts.size(), matrix ? 16u : 0u) << what;
        }
    }
}

TEST(letter_estimation, recovers_a_four_letter_channel)
{
    if (sanitized)
        GTEST_SKIP() << "numerics only (the other tests cover the code under sanitizers)";
    // 120 frames of 60 symbols of 3 letters: 21600 letters, about 650
    // insertions, 430 deletions and 430 substitutions (deviations near 5 %)
    const codebook cb = codebook::random(3, 16, 4, 5, 4);
    const channel_params truth(0.03, 0.02, 0.02, 4);
    const letter_frames fs = make_letter_frames(cb, 60, truth, 7, 120);
    const channel_estimate est = estimate_channel(
        letter_config(cb, channel_params(0.01, 0.01, 0.05, 4), 60), fs.views(false));
    EXPECT_TRUE(est.converged);
    EXPECT_LT(rel(est.ch.Pi(), truth.Pi()), 0.15) << est.ch.repr();
    EXPECT_LT(rel(est.ch.Pd(), truth.Pd()), 0.15) << est.ch.repr();
    EXPECT_LT(rel(est.ch.Ps(), truth.Ps()), 0.15) << est.ch.repr();
    EXPECT_EQ(est.ch.alphabet(), 4);
}

TEST(letter_estimation, recovers_a_substitution_matrix)
{
    if (sanitized)
        GTEST_SKIP() << "numerics only (the other tests cover the code under sanitizers)";
    // DNA-like substitutions: transitions (A<->G, C<->T) five times as
    // likely as transversions; 200 frames of 60 symbols, 36000 letters, so
    // each row's 9000 letters give its entries of 0.03 to about 6 %
    const codebook cb = codebook::random(3, 16, 4, 5, 4);
    const std::vector<double> S = { 0.94, 0.01, 0.04, 0.01, //
                                    0.01, 0.94, 0.01, 0.04, //
                                    0.04, 0.01, 0.94, 0.01, //
                                    0.01, 0.04, 0.01, 0.94 };
    const channel_params truth(0.02, 0.02, 0, 4, S);
    const letter_frames fs = make_letter_frames(cb, 60, truth, 9, 200);
    // (EM moves the twelve small entries slowly: 30 iterations get them
    // well within their deviations, without the tolerance's convergence)
    estimate_options opt;
    opt.substitution_matrix = true;
    opt.iterations = 30;
    const channel_estimate est = estimate_channel(
        letter_config(cb, channel_params(0.01, 0.01, 0.03, 4), 60), fs.views(false), opt);
    expect_non_decreasing(est.log_likelihoods, "matrix");
    ASSERT_TRUE(est.ch.has_substitution_matrix());
    EXPECT_LT(rel(est.ch.Pi(), truth.Pi()), 0.15) << est.ch.repr();
    EXPECT_LT(rel(est.ch.Pd(), truth.Pd()), 0.15) << est.ch.repr();
    for (size_t k = 0; k < 16; ++k) {
        const double s = est.ch.substitution()[k];
        if (S[k] > 0.02) // the transitions and the diagonal
            EXPECT_LT(rel(s, S[k]), 0.2) << k << " " << est.ch.repr();
        else
            EXPECT_LT(s, 0.02) << k << " " << est.ch.repr();
    }
    // the counts explain the estimate: row x is its counts normalized (of
    // the last E-step, one step behind the estimate)
    ASSERT_EQ(est.substitution_counts.size(), 16u);
    double sum = 0;
    for (double c : est.substitution_counts)
        sum += c;
    EXPECT_NEAR(sum, est.events.trans, 1e-6 * sum);
}

TEST(letter_estimation, log_probabilities_and_their_scale)
{
    if (sanitized)
        GTEST_SKIP() << "numerics only (the other tests cover the code under sanitizers)";
    // a reader whose log-probabilities are halved: the scale returns to
    // about 2, and the channel is found as from hard letters
    const codebook cb = codebook::random(3, 16, 4, 5, 4);
    const channel_params truth(0.03, 0.02, 0.01, 4);
    const letter_frames fs = make_letter_frames(cb, 60, truth, 13, 120);
    const channel_estimate est = estimate_channel(
        letter_config(cb, channel_params(0.01, 0.01, 0.03, 4), 60), fs.views(true));
    EXPECT_TRUE(est.converged);
    EXPECT_NEAR(est.llr_scale, 2.0, 0.3);
    EXPECT_LT(rel(est.ch.Pi(), truth.Pi()), 0.2) << est.ch.repr();
    EXPECT_LT(rel(est.ch.Pd(), truth.Pd()), 0.2) << est.ch.repr();
    // the reader's own errors (5 %) are in its log-probabilities, not in Ps
    EXPECT_LT(est.ch.Ps(), 0.03) << est.ch.repr();
    expect_non_decreasing(est.log_likelihoods, "logprob");
}

TEST(letter_estimation, a_stream_with_a_sync_word_of_letters)
{
    if (sanitized)
        GTEST_SKIP() << "numerics only (the other tests cover the code under sanitizers)";
    const codebook cb = codebook::random(3, 16, 4, 5, 4);
    const std::vector<uint8_t> W = parse_sync_word("ACGTTGCAAGCT", 4);
    const channel_params truth(0.02, 0.02, 0.02, 4);
    const int N = 40, count = 60;
    philox_stream src(5, 7);
    std::vector<uint8_t> tx;
    std::vector<int64_t> msg(static_cast<size_t>(N));
    for (int k = 0; k < count; ++k) {
        for (auto& d : msg)
            d = int64_t(src.next_u32() % uint32_t(cb.q()));
        const auto x = cb.encode(msg.data(), msg.size());
        tx.insert(tx.end(), W.begin(), W.end());
        tx.insert(tx.end(), x.begin(), x.end());
    }
    const auto rx = transmit(truth, tx.data(), tx.size(), 21, 0).rx;
    received_items items;
    items.alphabet = 4;
    items.bits = rx.data();
    decoder_config cfg = letter_config(cb, channel_params(0.01, 0.01, 0.05, 4), N);
    const channel_estimate est = estimate_channel_stream(cfg, items, rx.size(), {}, W);
    EXPECT_GE(est.frames_used, size_t(count - 2));
    EXPECT_LT(rel(est.ch.Pi(), truth.Pi()), 0.2) << est.ch.repr();
    EXPECT_LT(rel(est.ch.Pd(), truth.Pd()), 0.2) << est.ch.repr();
    EXPECT_LT(rel(est.ch.Ps(), truth.Ps()), 0.2) << est.ch.repr();
}

TEST(letter_estimation, bad_input_gets_a_clear_error)
{
    const codebook bin = codebook::from_spec("builtin:ld3-modvec6");
    const std::vector<uint8_t> y(60, 1);
    estimate_options opt;
    opt.substitution_matrix = true;
    try {
        estimate_channel(letter_config(bin, channel_params(0.01, 0.01, 0.01), 10),
                         { frame_view{ y.data(), y.size() } },
                         opt);
        ADD_FAILURE() << "a binary matrix was estimated";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("more than two letters"), std::string::npos)
            << e.what();
    }
    // a frame with letters and log-probabilities at once
    const codebook cb = codebook::random(3, 16, 1, 5, 4);
    const std::vector<double> lp(4 * 60, -1.0);
    frame_view both{ y.data(), y.size() };
    both.logprob = lp.data();
    try {
        estimate_channel(letter_config(cb, channel_params(0.01, 0.01, 0.01, 4), 20),
                         { both });
        ADD_FAILURE() << "a frame of two kinds was taken";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("exactly one of"), std::string::npos)
            << e.what();
    }
    // a matrix estimate from Ps = 0 would keep every substitution at 0
    try {
        estimate_channel(letter_config(cb, channel_params(0.01, 0.01, 0, 4), 20),
                         { frame_view{ y.data(), y.size() } },
                         opt);
        ADD_FAILURE() << "a matrix from Ps = 0 was estimated";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("Ps"), std::string::npos) << e.what();
    }
}

} // namespace
