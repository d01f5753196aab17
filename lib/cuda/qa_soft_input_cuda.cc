/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Soft input on the CUDA backend: the CPU test's checks (qa_soft_reference.h:
// identities, brute force, frame boundaries, streams, NaN), and frames of
// real soft values against the CPU backend in both precisions, on the
// register kernels (S500-like, M_n <= 32) and the general kernel (a poor
// channel, M_n > 32), with a batch that mixes soft and hard frames. Skips
// cleanly where no GPU is usable.

#include "qa_soft_reference.h"
#include "runtime/backends.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gtest/gtest.h>
#include <random>
#include <string>

using namespace bsid;
using namespace bsid::qa;

namespace {

class cuda_soft_input : public ::testing::Test
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

TEST_F(cuda_soft_input, hard_bits_equal_infinite_llrs)
{
    check_hard_equals_infinite_llrs(backend_kind::cuda);
}

TEST_F(cuda_soft_input, hard_bits_with_Ps_equal_llrs_of_the_crossover)
{
    check_crossover_identity(backend_kind::cuda);
}

TEST_F(cuda_soft_input, brute_force_apps_of_tiny_codes)
{
    check_soft_brute_force(backend_kind::cuda);
}

TEST_F(cuda_soft_input, frame_boundaries_against_the_brute_force)
{
    check_every_boundary_model(backend_kind::cuda, 777, true);
}

TEST_F(cuda_soft_input, frame_boundaries_and_streams_hard_bits_equal_infinite_llrs)
{
    check_boundaries_and_streams_identity(backend_kind::cuda);
}

TEST_F(cuda_soft_input, bad_llrs_are_flagged_never_spread)
{
    check_bad_llrs(backend_kind::cuda);
}

TEST_F(cuda_soft_input, matches_the_cpu_on_noisy_llrs)
{
    // received bits as LLRs of a BPSK link in Gaussian noise: 2 y / sigma^2
    // with y = +-1 + noise; a mixed batch (soft, hard, soft)
    const codebook cb = codebook::builtin("ld3-modvec6");
    std::mt19937_64 g(5);
    std::normal_distribution<double> noise(0.0, 0.6);
    for (const channel_params& ch :
         { channel_params(0.01, 0.01, 0.0), channel_params(0.08, 0.08, 0.0) }) {
        const int N = ch.Pi() > 0.05 ? 60 : 200;
        for (auto prec : soft_precisions)
            for (auto storage : soft_storages) {
                std::vector<std::vector<uint8_t>> rx;
                std::vector<std::vector<double>> llr;
                for (uint64_t f = 0; f < 3; ++f) {
                    rx.push_back(sent_frame(cb, N, {}, ch, 100 + f));
                    std::vector<double> l;
                    for (uint8_t b : rx.back())
                        l.push_back(2 * ((b ? 1.0 : -1.0) + noise(g)) / (0.6 * 0.6));
                    llr.push_back(std::move(l));
                }
                std::vector<frame_view> views = { soft_view(llr[0]),
                                                  frame_view{ rx[1].data(),
                                                              rx[1].size() },
                                                  soft_view(llr[2]) };
                std::vector<std::vector<double>> got(3), want(3);
                std::vector<double*> gp, wp;
                for (int k = 0; k < 3; ++k) {
                    got[size_t(k)].resize(size_t(N * cb.q()));
                    want[size_t(k)].resize(size_t(N * cb.q()));
                    gp.push_back(got[size_t(k)].data());
                    wp.push_back(want[size_t(k)].data());
                }
                decoder_config cfg(cb, ch, N);
                cfg.precision = prec;
                cfg.storage = storage;
                cfg.backend = backend_kind::cuda;
                const auto gr = map_decoder::make(cfg)->decode_batch(views, gp);
                cfg.backend = backend_kind::cpu;
                cfg.precision = precision_kind::dual;
                const auto wr = map_decoder::make(cfg)->decode_batch(views, wp);
                const std::string what = "Pi " + std::to_string(ch.Pi()) + " " +
                                         to_string(prec) + " " + to_string(storage);
                for (int k = 0; k < 3; ++k) {
                    ASSERT_TRUE(gr[size_t(k)].ok())
                        << what << ": " << gr[size_t(k)].reason;
                    ASSERT_TRUE(wr[size_t(k)].ok())
                        << what << ": " << wr[size_t(k)].reason;
                    EXPECT_LT(max_abs_diff(got[size_t(k)], want[size_t(k)]),
                              prec == precision_kind::dual ? 1e-9 : 1e-3)
                        << what << " frame " << k;
                }
            }
    }
}
