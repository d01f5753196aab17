/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// frame_decoder on the CUDA backend: the brute-force cases of the CPU test
// (qa_frame_reference.h), and a realistic frame (sync word, spread start,
// free end, look-ahead, priors) against the CPU backend; frames that ask for
// no posteriors. Skips cleanly where no GPU is usable.

#include "qa_frame_reference.h"
#include "runtime/backends.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gtest/gtest.h>
#include <random>
#include <string>

using namespace bsid;

namespace {

class cuda_frame_decoder : public ::testing::Test
{
protected:
    void SetUp() override
    {
        std::string why;
        if (!cuda_device_available(0, &why))
            GTEST_SKIP() << "no GPU: " << why;
    }
};

} // namespace

TEST_F(cuda_frame_decoder, brute_force_every_boundary_model)
{
    qa::check_every_boundary_model(backend_kind::cuda);
}

TEST_F(cuda_frame_decoder, matches_the_cpu_on_a_real_frame)
{
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.02, 0.02, 0.01);
    const int N = 60;
    const auto W = parse_sync_word("0110100111010010");
    std::mt19937 g(3);
    std::vector<uint8_t> sent = W;
    for (int k = 0; k < N * cb.n(); ++k)
        sent.push_back(uint8_t(g() & 1u));
    const auto rx = transmit(ch, sent.data(), sent.size(), 9, 0).rx;
    std::vector<uint8_t> seg(5, 1); // garbage, the frame, the next frame's W, more bits
    seg.insert(seg.end(), rx.begin(), rx.end());
    seg.insert(seg.end(), W.begin(), W.end());
    for (int k = 0; k < 60; ++k)
        seg.push_back(uint8_t(g() & 1u));
    std::vector<double> priors(size_t(N) * cb.q());
    for (auto& p : priors)
        p = 0.5 + double(g() % 100) / 100;
    for (auto prec : { precision_kind::dual, precision_kind::single }) {
        for (auto storage : { storage_kind::global, storage_kind::local }) {
            const double tol = prec == precision_kind::dual ? 1e-9 : 1e-4;
            decoder_config cfg(cb, ch, N);
            cfg.precision = prec;
            cfg.storage = storage;
            cfg.backend = backend_kind::cpu;
            frame_decoder cpu(cfg, W);
            cfg.backend = backend_kind::cuda;
            frame_decoder gpu(cfg, W);
            for (int K : { 0, 2 }) {
                frame_request r;
                r.bits = seg.data();
                r.L = seg.size();
                r.priors = priors.data();
                position_weights sp;
                for (long long s = 0; s <= 10; ++s)
                    sp.positions.push_back(s), sp.weights.push_back(1.0 + double(s));
                r.start = sp;
                r.end = end_mode::free;
                r.lookahead = K;
                const auto a = cpu.decode(r);
                const auto b = gpu.decode(r);
                const std::string what = to_string(prec) + " " + to_string(storage) +
                                         " K=" + std::to_string(K);
                ASSERT_TRUE(a.result.ok()) << what << a.result.reason;
                ASSERT_TRUE(b.result.ok()) << what << b.result.reason;
                ASSERT_EQ(gpu.primary().backend(), backend_kind::cuda);
                for (size_t k = 0; k < a.posteriors.size(); ++k)
                    ASSERT_NEAR(a.posteriors[k], b.posteriors[k], tol)
                        << what << " post " << k;
                ASSERT_EQ(a.start.positions, b.start.positions);
                for (size_t k = 0; k < a.start.weights.size(); ++k)
                    ASSERT_NEAR(a.start.weights[k], b.start.weights[k], tol)
                        << what << " start";
                ASSERT_EQ(a.end_positions, b.end_positions);
                for (size_t k = 0; k < a.end_posterior.size(); ++k) {
                    ASSERT_NEAR(a.end_posterior[k], b.end_posterior[k], tol)
                        << what << " end";
                    ASSERT_NEAR(a.end_forward[k], b.end_forward[k], tol)
                        << what << " fwd";
                }
            }
        }
    }
}

TEST_F(cuda_frame_decoder, frames_without_posteriors_skip_pass_l_and_keep_the_rest)
{
    // A batch where no frame asks for its posteriors (the look-ahead's and
    // the stream decoder's reads) runs no pass L: its posteriors are
    // uniform, and its evidence, boundary posteriors and status are those
    // of the same frames decoded with posteriors, to the last bit (pass L
    // feeds none of them). In a batch that mixes both, every frame gets the
    // posteriors a batch asking for all of them gives.
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.02, 0.02, 0.01);
    const int N = 60;
    std::mt19937 g(5);
    std::vector<std::vector<uint8_t>> seg(3);
    for (size_t f = 0; f < seg.size(); ++f) {
        std::vector<int64_t> msg(N);
        for (auto& d : msg)
            d = int64_t(g() % uint32_t(cb.q()));
        const std::vector<uint8_t> sent = cb.encode(msg.data(), msg.size());
        seg[f].assign(3 + f, 0); // items before the frame
        const auto rx = transmit(ch, sent.data(), sent.size(), 11, f).rx;
        seg[f].insert(seg[f].end(), rx.begin(), rx.end());
        for (int k = 0; k < 40; ++k)
            seg[f].push_back(uint8_t(g() & 1u));
    }
    for (auto prec : { precision_kind::dual, precision_kind::single }) {
        for (auto storage : { storage_kind::global, storage_kind::local }) {
            decoder_config cfg(cb, ch, N);
            cfg.precision = prec;
            cfg.storage = storage;
            cfg.backend = backend_kind::cuda;
            frame_decoder gpu(cfg);
            auto requests = [&](std::vector<bool> post) {
                std::vector<frame_request> r(seg.size());
                for (size_t f = 0; f < seg.size(); ++f) {
                    r[f].bits = seg[f].data();
                    r[f].L = seg[f].size();
                    position_weights sp;
                    for (long long s = 0; s <= 8; ++s)
                        sp.positions.push_back(s), sp.weights.push_back(1.0);
                    r[f].start = sp;
                    r[f].end = end_mode::free;
                    r[f].next_frame_follows = false;
                    r[f].posteriors = post[f];
                }
                return gpu.decode_batch(r);
            };
            const auto with = requests({ true, true, true });
            const auto without = requests({ false, false, false });
            const auto mixed = requests({ true, false, true });
            const std::string what = to_string(prec) + " " + to_string(storage);
            ASSERT_EQ(gpu.primary().backend(), backend_kind::cuda);
            for (size_t f = 0; f < seg.size(); ++f) {
                ASSERT_TRUE(with[f].result.ok()) << what << with[f].result.reason;
                EXPECT_EQ(without[f].result.status, with[f].result.status) << what;
                EXPECT_EQ(without[f].log_evidence, with[f].log_evidence) << what;
                EXPECT_EQ(without[f].log_likelihood_ratio, with[f].log_likelihood_ratio)
                    << what;
                EXPECT_EQ(without[f].start.weights, with[f].start.weights) << what;
                EXPECT_EQ(without[f].end_posterior, with[f].end_posterior) << what;
                EXPECT_EQ(without[f].end_forward, with[f].end_forward) << what;
                for (double p : without[f].posteriors)
                    ASSERT_EQ(p, 1.0 / cb.q()) << what;
                EXPECT_EQ(mixed[f].posteriors, with[f].posteriors) << what << " " << f;
                EXPECT_EQ(mixed[f].log_evidence, with[f].log_evidence) << what;
                bool informative = false;
                for (double p : with[f].posteriors)
                    informative = informative || p > 0.5;
                EXPECT_TRUE(informative) << what;
            }
        }
    }
}
