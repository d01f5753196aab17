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
// soft frames and frames with priors. Skips cleanly where no GPU is usable.

#include "qa_letters_reference.h"
#include "qa_log_capture.h"
#include "runtime/backends.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gtest/gtest.h>
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
        // three frames: hard letters, log-probabilities (a basecaller sure
        // of most letters), hard letters with priors
        std::vector<std::vector<uint8_t>> rx;
        for (int k = 0; k < 3; ++k) {
            std::vector<int64_t> msg(size_t(c.N));
            for (auto& s : msg)
                s = int64_t(rng() % uint64_t(q));
            const auto x = c.cb.encode(msg.data(), msg.size());
            rx.push_back(transmit(c.ch, x.data(), x.size(), 21, uint64_t(k)).rx);
        }
        std::vector<double> lp(rx[1].size() * size_t(A));
        std::uniform_real_distribution<double> u(0, 1);
        for (size_t j = 0; j < rx[1].size(); ++j)
            for (int l = 0; l < A; ++l)
                lp[j * size_t(A) + size_t(l)] =
                    l == rx[1][j] ? std::log(0.8 + 0.19 * u(rng)) : -3 - 4 * u(rng);
        std::vector<double> pri(size_t(c.N * q));
        for (auto& v : pri)
            v = 0.1 + u(rng);
        std::vector<frame_view> views{ frame_view{ rx[0].data(), rx[0].size() },
                                       frame_view{ nullptr, rx[1].size() },
                                       frame_view{
                                           rx[2].data(), rx[2].size(), pri.data() } };
        views[1].logprob = lp.data();
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
