/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA decoder over A > 2 letters: the CPU test's brute-force checks
// (qa_letters_reference.h: uniform and matrix substitutions, hard letters
// and log-probabilities, priors, the extrinsic output, frame boundaries,
// both precisions and storages), and frames of real size against the CPU
// backend on the letters register kernels (A <= 4, n <= 8) and on the
// general kernel (A = 8, a corridor too wide), in batches that mix hard and
// soft frames and frames with priors. The E-step's events over letters (item
// posteriors, substitution counts) against the brute force and the CPU. Skips
// cleanly where no GPU is usable.

#include "launch_plan.h"
#include "qa_letter_events_reference.h"
#include "qa_letters_reference.h"
#include "qa_log_capture.h"
#include "runtime/backends.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace bsid;
using namespace bsid::qa;

namespace {

class cuda_letters : public ::testing::Test
{
protected:
    void SetUp() override
    {
        std::string why;
        if (!cuda_device_available(0, &why))
            GTEST_SKIP() << "no GPU: " << why;
    }
};

// one configuration of the real-size check and the lattice form the CUDA
// decoder's log must name for it
struct sized_case {
    codebook cb;
    channel_params ch;
    int N;
    const char* form;
};

// `count` frames of a real-size case through its channel (transmit seed
// `seed`, frame k), log-probabilities for frame 1's letters (a basecaller
// sure of most letters) and priors for a frame
struct sized_frames {
    std::vector<std::vector<uint8_t>> rx;
    std::vector<double> logprob, priors;
};
sized_frames
make_sized_frames(const sized_case& c, int count, uint64_t seed, std::mt19937_64& rng)
{
    const int A = c.ch.alphabet(), q = c.cb.q();
    sized_frames fr;
    for (int k = 0; k < count; ++k) {
        std::vector<int64_t> msg(size_t(c.N));
        for (auto& s : msg)
            s = int64_t(rng() % uint64_t(q));
        const auto x = c.cb.encode(msg.data(), msg.size());
        fr.rx.push_back(transmit(c.ch, x.data(), x.size(), seed, uint64_t(k)).rx);
    }
    const auto& y = fr.rx[1];
    fr.logprob.resize(y.size() * size_t(A));
    std::uniform_real_distribution<double> u(0, 1);
    for (size_t j = 0; j < y.size(); ++j)
        for (int l = 0; l < A; ++l)
            fr.logprob[j * size_t(A) + size_t(l)] =
                l == y[j] ? std::log(0.8 + 0.19 * u(rng)) : -3 - 4 * u(rng);
    fr.priors.resize(size_t(c.N * q));
    for (auto& v : fr.priors)
        v = 0.1 + u(rng);
    return fr;
}

} // namespace

TEST_F(cuda_letters, exact_against_brute_force_with_wide_limits)
{
    check_letters_wide_limits(backend_kind::cuda, test_seed() + 140, 45);
}

TEST_F(cuda_letters, exact_against_restricted_reference_with_default_limits)
{
    check_letters_default_limits(backend_kind::cuda, test_seed() + 141, 45);
}

TEST_F(cuda_letters, extrinsic_and_log_priors_against_brute_force)
{
    check_letters_extrinsic(backend_kind::cuda, test_seed() + 142, 16);
}

TEST_F(cuda_letters, frame_boundaries_against_brute_force)
{
    check_letters_boundaries(backend_kind::cuda,
                             { { 3, "2,0,1" }, { 4, "GAT" }, { 8, "7,0,3" } },
                             false,
                             test_seed() + 143);
    check_letters_boundaries(
        backend_kind::cuda, { { 3, "1,2" }, { 4, "CG" } }, true, test_seed() + 144);
}

TEST_F(cuda_letters, expected_events_equal_the_brute_force)
{
    check_letter_events(backend_kind::cuda, test_seed() + 145, 30);
    check_letter_events_sync_word(backend_kind::cuda, test_seed() + 146, 8);
}

TEST_F(cuda_letters, events_of_real_frames_match_the_cpu)
{
    // four and 32 letters (the latter's substitution counts beyond the
    // kernel's: those frames on the CPU), hard and soft frames, with and
    // without priors, item posteriors and counts asked by some frames only;
    // each frame's events against the CPU's in double
    std::mt19937_64 rng(test_seed() + 147);
    for (const int A : { 4, 32 }) {
        const codebook cb = codebook::random(3, 16, 4, rng(), A);
        const channel_params ch(0.02, 0.02, 0.02, A);
        const int N = 120, Q = cb.q();
        std::vector<std::vector<uint8_t>> rx;
        std::vector<std::vector<double>> lp;
        for (int k = 0; k < 6; ++k) {
            std::vector<int64_t> msg(static_cast<size_t>(N));
            for (auto& m : msg)
                m = int64_t(rng() % uint64_t(Q));
            const auto x = cb.encode(msg.data(), msg.size());
            rx.push_back(transmit(ch, x.data(), x.size(), rng(), 0).rx);
            tiny_case tc{ cb, ch, N, rx.back(), {}, {} };
            make_soft_letters(tc, rng);
            lp.push_back(tc.llr);
        }
        std::vector<double> prior(size_t(N) * size_t(Q), 1.0);
        for (auto& v : prior)
            v = 0.05 + double(rng() % 100) / 100;
        // counts_only: no frame asks for item posteriors or substitution
        // counts (the GPU's counts kernel instead of the edges')
        for (const bool counts_only : { false, true })
            for (auto prec : letters_precisions) {
                decoder_config cfg(cb, ch, N);
                cfg.precision = prec;
                cfg.backend = backend_kind::cuda;
                auto gpu = map_decoder::make(cfg);
                cfg.backend = backend_kind::cpu;
                cfg.precision = precision_kind::dual;
                cfg.mtau = gpu->limits().mtau;
                cfg.mn = gpu->limits().mn;
                auto cpu = map_decoder::make(cfg);
                const size_t F = rx.size();
                std::vector<event_counts> ev[2];
                std::vector<std::vector<double>> items[2], pairs[2], post[2];
                for (int b = 0; b < 2; ++b) {
                    ev[b].assign(F, event_counts{});
                    items[b].resize(F);
                    pairs[b].resize(F);
                    post[b].resize(F);
                    std::vector<frame_view> views;
                    std::vector<double*> outs;
                    for (size_t k = 0; k < F; ++k) {
                        frame_view f{ rx[k].data(), rx[k].size() };
                        if (k % 2 == 1) {
                            f.bits = nullptr;
                            f.logprob = lp[k].data();
                        }
                        if (k % 3 == 2)
                            f.priors = prior.data();
                        f.events = &ev[b][k];
                        items[b][k].assign(size_t(A) * rx[k].size(), -1.0);
                        pairs[b][k].assign(size_t(A * A), -1.0);
                        if (k != 1 && !counts_only)
                            f.item_posteriors = items[b][k].data();
                        if (k != 2 && !counts_only)
                            f.substitution_counts = pairs[b][k].data();
                        post[b][k].resize(size_t(N) * size_t(Q));
                        views.push_back(f);
                        outs.push_back(post[b][k].data());
                    }
                    const auto res = (b == 0 ? gpu : cpu)->decode_batch(views, outs);
                    for (size_t k = 0; k < F; ++k)
                        ASSERT_TRUE(res[k].ok()) << res[k].reason;
                }
                // double: the CPU's digits; float: relative 1e-3, as the binary
                // events' test (alpha and beta over a float lattice)
                const double tol = prec == precision_kind::dual ? 1e-9 : 1e-3;
                auto near = [&](double got, double want) {
                    return std::abs(got - want) <= tol * std::max(1.0, std::abs(want));
                };
                for (size_t k = 0; k < F; ++k) {
                    const std::string what = "A=" + std::to_string(A) + " " +
                                             to_string(prec) +
                                             (counts_only ? " events only" : "") +
                                             " frame " + std::to_string(k);
                    EXPECT_TRUE(near(ev[0][k].ins, ev[1][k].ins)) << what;
                    EXPECT_TRUE(near(ev[0][k].del, ev[1][k].del)) << what;
                    EXPECT_TRUE(near(ev[0][k].trans, ev[1][k].trans)) << what;
                    EXPECT_TRUE(near(ev[0][k].subst, ev[1][k].subst)) << what;
                    if (counts_only) {
                        // nothing but the events was asked for
                        EXPECT_EQ(items[0][k][0], -1.0) << what;
                        EXPECT_EQ(pairs[0][k][0], -1.0) << what;
                        continue;
                    }
                    for (size_t j = 0; k != 1 && j < items[0][k].size(); ++j)
                        ASSERT_TRUE(near(items[0][k][j], items[1][k][j]))
                            << what << " item " << j << ": " << items[0][k][j] << " vs "
                            << items[1][k][j];
                    for (size_t j = 0; k != 2 && j < pairs[0][k].size(); ++j)
                        ASSERT_TRUE(near(pairs[0][k][j], pairs[1][k][j]))
                            << what << " pair " << j << ": " << pairs[0][k][j] << " vs "
                            << pairs[1][k][j];
                    // what was not asked for is left alone
                    if (k == 1) {
                        EXPECT_EQ(items[0][k][0], -1.0) << what;
                    }
                    if (k == 2) {
                        EXPECT_EQ(pairs[0][k][0], -1.0) << what;
                    }
                }
            }
    }
}

TEST_F(cuda_letters, register_and_general_kernels_match_the_cpu)
{
    std::mt19937_64 rng(test_seed() + 145);
    std::vector<double> S{ 0.96, 0.02, 0.01, 0.01, 0.03, 0.9,  0.05, 0.02,
                           0.0,  0.04, 0.95, 0.01, 0.02, 0.02, 0.0,  0.96 };
    const std::vector<sized_case> cases = {
        { codebook::random(4, 16, 2, 3, 4),
          channel_params(0.01, 0.01, 0, 4),
          150,
          "letters registers" },
        { codebook::random(4, 16, 1, 4, 4),
          channel_params(0.02, 0.01, 0.03, 4),
          120,
          "letters registers" },
        { codebook::random(4, 12, 3, 5, 4),
          channel_params(0.01, 0.02, 0, 4, S),
          120,
          "letters registers" },
        { codebook::random(6, 32, 1, 6, 3),
          channel_params(0.01, 0.01, 0.01, 3),
          80,
          "letters registers" },
        { codebook::random(4, 16, 1, 7, 4),
          channel_params(0.1, 0.1, 0.02, 4),
          40,
          "letters registers" }, // M_n = 19
        { codebook::random(4, 16, 1, 7, 4),
          channel_params(0.25, 0.2, 0.02, 4),
          30,
          "general" }, // M_n = 29
        { codebook::random(3, 64, 2, 8, 8),
          channel_params(0.01, 0.01, 0.02, 8),
          60,
          "general" },
        { codebook::random(10, 16, 1, 9, 3),
          channel_params(0.01, 0.01, 0.0, 3),
          40,
          "general" },
    };
    for (const auto& c : cases) {
        const int A = c.ch.alphabet(), q = c.cb.q();
        // three frames: hard letters, log-probabilities, hard letters with
        // priors
        const sized_frames fr = make_sized_frames(c, 3, 21, rng);
        const auto& rx = fr.rx;
        std::vector<frame_view> views{
            frame_view{ rx[0].data(), rx[0].size() },
            frame_view{ nullptr, rx[1].size() },
            frame_view{ rx[2].data(), rx[2].size(), fr.priors.data() }
        };
        views[1].logprob = fr.logprob.data();
        std::vector<std::vector<double>> want(3, std::vector<double>(size_t(c.N * q)));
        std::vector<double*> wp{ want[0].data(), want[1].data(), want[2].data() };
        decoder_config cfg(c.cb, c.ch, c.N);
        cfg.backend = backend_kind::cpu;
        cfg.precision = precision_kind::dual;
        const auto wr = map_decoder::make(cfg)->decode_batch(views, wp);
        for (auto prec : letters_precisions)
            for (auto storage : letters_storages) {
                log_capture capture;
                cfg.backend = backend_kind::cuda;
                cfg.precision = prec;
                cfg.storage = storage;
                std::vector<std::vector<double>> got(
                    3, std::vector<double>(size_t(c.N * q)));
                std::vector<double*> gp{ got[0].data(), got[1].data(), got[2].data() };
                const auto gr = map_decoder::make(cfg)->decode_batch(views, gp);
                const std::string what =
                    "A=" + std::to_string(A) + " n=" + std::to_string(c.cb.n()) + " " +
                    c.ch.repr() + " " + to_string(prec) + " " + to_string(storage);
                EXPECT_TRUE(capture.has(std::string("lattice: ") + c.form)) << what;
                for (int k = 0; k < 3; ++k) {
                    ASSERT_TRUE(wr[size_t(k)].ok())
                        << what << ": " << wr[size_t(k)].reason;
                    ASSERT_TRUE(gr[size_t(k)].ok())
                        << what << ": " << gr[size_t(k)].reason;
                    EXPECT_LT(max_abs_diff(got[size_t(k)], want[size_t(k)]),
                              prec == precision_kind::dual ? 1e-9 : 1e-3)
                        << what << " frame " << k;
                }
            }
    }
}

// Pass L from the position table (plan_position_table, lattice_table_kernel):
// the lattices' last rows that pass G stored by position are the rows pass L
// made itself by index, so every posterior must equal the decoder's without
// the table (decoder_config::share_g false: G and L by index) bit for bit, and
// the CPU's (1e-9 in double, in float as the real-size check above). Reached
// on purpose: each configuration's plan is checked to take the table for the
// whole frame, and the log to say so. Books of period 1, 3 and 2; uniform
// substitutions with hard letters (the mask kernels) and a matrix, four
// letters and three (n = 6, the 8-letter band); batches of hard letters,
// log-probabilities, a frame with priors (pass L by its lattices beside the
// table), a letter outside the alphabet and an empty frame (refused alone);
// global storage and local windows of 5 indices; both precisions.
TEST_F(cuda_letters, pass_l_from_the_position_table_equals_pass_l_by_index)
{
    std::mt19937_64 rng(test_seed() + 147);
    std::vector<double> S{ 0.96, 0.02, 0.01, 0.01, 0.03, 0.9,  0.05, 0.02,
                           0.0,  0.04, 0.95, 0.01, 0.02, 0.02, 0.0,  0.96 };
    struct table_case {
        sized_case c;
        int local_window; // cuda_options::local_window (for local storage)
    };
    const std::vector<table_case> cases = {
        { { codebook::random(4, 16, 1, 11, 4),
            channel_params(0.01, 0.01, 0, 4),
            150,
            "" },
          5 },
        { { codebook::random(4, 16, 3, 12, 4),
            channel_params(0.02, 0.01, 0.03, 4),
            400,
            "" },
          5 },
        { { codebook::random(4, 12, 2, 13, 4),
            channel_params(0.01, 0.02, 0, 4, S),
            100,
            "" },
          5 },
        { { codebook::random(6, 16, 1, 14, 3),
            channel_params(0.01, 0.01, 0.01, 3),
            80,
            "" },
          5 },
        // M_tau = 140: two chunks of states; 22 books n = 4 apart take 88
        // positions, so a block sums 2 of their indices, not table_tile's 3
        { { codebook::random(4, 4, 22, 15, 4),
            channel_params(0.03, 0.03, 0.01, 4),
            400,
            "" },
          200 },
    };
    for (const auto& tc : cases) {
        const sized_case& c = tc.c;
        const int A = c.ch.alphabet(), q = c.cb.q();
        decoder_config cfg(c.cb, c.ch, c.N);
        const auto lim = map_decoder::make(cfg)->limits();
        ASSERT_GT(cuda::plan_position_table(c.cb.n(), q, c.cb.P(), lim.mtau.size(), c.N),
                  0)
            << c.ch.repr() << ": no table";
        sized_frames fr = make_sized_frames(c, 4, 23, rng);
        auto& rx = fr.rx;
        rx[3][rx[3].size() / 2] = uint8_t(A); // outside the alphabet
        const uint8_t none = 0;
        std::vector<frame_view> views{
            frame_view{ rx[0].data(), rx[0].size() },
            frame_view{ nullptr, rx[1].size() },
            frame_view{ rx[2].data(), rx[2].size(), fr.priors.data() },
            frame_view{ rx[3].data(), rx[3].size() },
            frame_view{ &none, 0 },
        };
        views[1].logprob = fr.logprob.data();
        const size_t F = views.size(), NQ = size_t(c.N * q);
        auto run = [&](const decoder_config& d, std::vector<frame_result>& res) {
            std::vector<std::vector<double>> out(F, std::vector<double>(NQ));
            std::vector<double*> ptr;
            for (auto& o : out)
                ptr.push_back(o.data());
            res = map_decoder::make(d)->decode_batch(views, ptr);
            return out;
        };
        cfg.backend = backend_kind::cpu;
        cfg.precision = precision_kind::dual;
        std::vector<frame_result> ref_res;
        const auto ref = run(cfg, ref_res);
        for (auto prec : letters_precisions)
            for (auto storage : letters_storages) {
                decoder_config by = cfg;
                by.backend = backend_kind::cuda;
                by.precision = prec;
                by.storage = storage;
                by.cuda.local_window =
                    storage == storage_kind::local ? tc.local_window : 0;
                const std::string what =
                    "A=" + std::to_string(A) + " n=" + std::to_string(c.cb.n()) +
                    " P=" + std::to_string(c.cb.P()) + " " + c.ch.repr() + " " +
                    to_string(prec) + " " + to_string(storage);
                std::vector<frame_result> res[2];
                std::vector<std::vector<double>> post[2];
                for (bool share : { false, true }) {
                    log_capture capture;
                    by.cuda.share_g = share;
                    post[share] = run(by, res[share]);
                    EXPECT_EQ(capture.has("pass L from its table"), share) << what;
                }
                for (size_t k = 0; k < F; ++k) {
                    ASSERT_EQ(res[1][k].status, ref_res[k].status)
                        << what << " frame " << k << ": " << res[1][k].reason;
                    ASSERT_EQ(res[0][k].status, res[1][k].status)
                        << what << " frame " << k;
                    ASSERT_EQ(res[1][k].ok(), k < 3) << what << " frame " << k;
                    if (!res[1][k].ok())
                        continue;
                    EXPECT_EQ(max_abs_diff(post[1][k], post[0][k]), 0.0)
                        << what << " frame " << k;
                    EXPECT_LT(max_abs_diff(post[1][k], ref[k]),
                              prec == precision_kind::dual ? 1e-9 : 1e-3)
                        << what << " frame " << k;
                }
            }
    }
}

TEST_F(cuda_letters, a_letter_outside_the_alphabet_is_refused_alone)
{
    const codebook cb = codebook::random(4, 16, 1, 3, 4);
    const channel_params ch(0.01, 0.01, 0.01, 4);
    decoder_config cfg(cb, ch, 20);
    cfg.backend = backend_kind::cuda;
    auto dec = map_decoder::make(cfg);
    std::vector<int64_t> msg(20, 5);
    const auto x = cb.encode(msg.data(), msg.size());
    auto good = transmit(ch, x.data(), x.size(), 3, 0).rx;
    auto bad = good;
    bad[7] = 4;
    std::vector<double> a(20 * 16), b(20 * 16);
    const auto r = dec->decode_batch(
        { frame_view{ bad.data(), bad.size() }, frame_view{ good.data(), good.size() } },
        { a.data(), b.data() });
    EXPECT_EQ(r[0].status, frame_status::invalid_input);
    EXPECT_TRUE(r[1].ok()) << r[1].reason;
    for (double v : a)
        EXPECT_TRUE(std::isfinite(v));
}
