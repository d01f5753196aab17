/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA backend of belief propagation against the CPU's on random codes
// and words: the same decisions, iterations and syndrome results, and
// posteriors and extrinsic outputs within 1e-9 (double) or 1e-4 (float) as
// probabilities. Skips cleanly without a GPU.

#include "runtime/backends.h" // cuda_device_available
#include <gnuradio/bsid/core/outer/ldpc_decoder.h>
#include <gtest/gtest.h>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace bsid;

namespace {

class cuda_bp : public ::testing::Test
{
protected:
    void SetUp() override
    {
        std::string why;
        if (!cuda_device_available(0, &why))
            GTEST_SKIP() << "no GPU: " << why;
    }
};

// Words of a code: noisy codewords (some symbols wrong, some rows with
// -infinity entries), some already codewords, some hopeless.
std::vector<std::vector<double>>
random_words(const ldpc_code& code, int W, std::mt19937_64& rng)
{
    const int n = code.n(), q = code.q();
    std::uniform_real_distribution<double> u(0, 1);
    std::uniform_int_distribution<int> sym(0, q - 1);
    std::vector<std::vector<double>> words;
    for (int w = 0; w < W; ++w) {
        std::vector<int32_t> info(static_cast<size_t>(code.k())),
            c(static_cast<size_t>(n));
        for (auto& x : info)
            x = sym(rng);
        code.encode(info.data(), c.data());
        const double wrong = w % 5 == 0 ? 0.0 : w % 5 == 4 ? 0.5 : 0.08;
        std::vector<double> in(size_t(n) * q);
        for (int v = 0; v < n; ++v) {
            const int truth = u(rng) < wrong ? sym(rng) : c[size_t(v)];
            for (int x = 0; x < q; ++x) {
                double l = -3.0 * u(rng);
                if (x == truth)
                    l += 2.0 + 2.0 * u(rng);
                if (x != truth && u(rng) < 0.05)
                    l = -std::numeric_limits<double>::infinity();
                in[size_t(v) * q + x] = l;
            }
        }
        words.push_back(std::move(in));
    }
    return words;
}

double prob_diff(const std::vector<double>& a, const std::vector<double>& b)
{
    double m = 0;
    for (size_t t = 0; t < a.size(); ++t)
        m = std::max(m, std::abs(std::exp(a[t]) - std::exp(b[t])));
    return m;
}

} // namespace

TEST_F(cuda_bp, matches_the_cpu_on_random_codes_and_words)
{
    std::mt19937_64 rng(20261126);
    struct shape {
        int n, M, q, wc;
    };
    for (const shape& s : { shape{ 96, 48, 2, 3 },
                            shape{ 60, 30, 4, 3 },
                            shape{ 120, 60, 16, 3 },
                            shape{ 200, 50, 16, 3 },
                            shape{ 48, 24, 64, 2 },
                            shape{ 40, 20, 256, 2 },
                            // checks of degree 12 over GF(256): in double a warp's
                            // scratch passes 48 KB, so the thread-per-check kernel runs
                            shape{ 72, 13, 256, 2 } }) {
        const ldpc_code code = ldpc_code::regular(s.n, s.M, s.q, s.wc, 7);
        const int W = 23;
        const auto words = random_words(code, W, rng);
        for (int iters : { 1, 3, 40 }) {
            auto cpu = ldpc_decoder::make(
                code, { backend_kind::cpu, precision_kind::dual, 2, 0 });
            const size_t NQ = size_t(code.n()) * size_t(code.q());
            const size_t Ws = static_cast<size_t>(W), ns = static_cast<size_t>(code.n());
            std::vector<std::vector<double>> cp(Ws, std::vector<double>(NQ)), ce(cp),
                gp(cp), ge(cp);
            std::vector<std::vector<int32_t>> cd(Ws, std::vector<int32_t>(ns)), gd(cd);
            std::vector<const double*> in;
            std::vector<double*> pcp, pce, pgp, pge;
            std::vector<int32_t*> pcd, pgd;
            for (int w = 0; w < W; ++w) {
                in.push_back(words[size_t(w)].data());
                pcp.push_back(cp[size_t(w)].data());
                pce.push_back(ce[size_t(w)].data());
                pgp.push_back(gp[size_t(w)].data());
                pge.push_back(ge[size_t(w)].data());
                pcd.push_back(cd[size_t(w)].data());
                pgd.push_back(gd[size_t(w)].data());
            }
            const auto rc = cpu->decode_batch(in, iters, pcp, pce, pcd);
            for (auto prec : { precision_kind::dual, precision_kind::single }) {
                auto gpu = ldpc_decoder::make(code, { backend_kind::cuda, prec, 0, 0 });
                ASSERT_EQ(gpu->backend(), backend_kind::cuda);
                const auto rg = gpu->decode_batch(in, iters, pgp, pge, pgd);
                const double tol = prec == precision_kind::dual ? 1e-9 : 1e-4;
                int same = 0;
                for (int w = 0; w < W; ++w) {
                    const std::string where =
                        "n=" + std::to_string(s.n) + " q=" + std::to_string(s.q) +
                        " iterations " + std::to_string(iters) + " word " +
                        std::to_string(w) + " " + to_string(prec);
                    // A word that decodes within 10 iterations must decode alike,
                    // with the same posteriors in double. Otherwise only the first
                    // iterations are compared: BP's trajectory on a word that does
                    // not decode is chaotic, and the last bit in which the device's
                    // exp and log differ from the host's grows to about 1e-7 over
                    // 40 iterations (far more in float).
                    const bool decoded =
                        rc[size_t(w)].syndrome_ok && rc[size_t(w)].iterations <= 10;
                    if (iters <= 3 || (decoded && prec == precision_kind::dual)) {
                        EXPECT_LT(prob_diff(cp[size_t(w)], gp[size_t(w)]), tol) << where;
                        EXPECT_LT(prob_diff(ce[size_t(w)], ge[size_t(w)]), tol) << where;
                    }
                    if (decoded) {
                        EXPECT_TRUE(rg[size_t(w)].syndrome_ok) << where;
                        EXPECT_EQ(cd[size_t(w)], gd[size_t(w)]) << where;
                    }
                    for (double v : gp[size_t(w)])
                        ASSERT_FALSE(std::isnan(v)) << where;
                    if (prec == precision_kind::dual && (iters <= 3 || decoded)) {
                        EXPECT_EQ(rc[size_t(w)].iterations, rg[size_t(w)].iterations)
                            << where;
                        EXPECT_EQ(rc[size_t(w)].syndrome_ok, rg[size_t(w)].syndrome_ok)
                            << where;
                        EXPECT_EQ(cd[size_t(w)], gd[size_t(w)]) << where;
                    }
                    same += cd[size_t(w)] == gd[size_t(w)];
                }
                if (iters <= 3) {
                    EXPECT_GE(same, W - 2) << "float decisions, q = " << s.q;
                }
            }
        }
    }
}

TEST_F(cuda_bp, bad_input_is_refused_before_any_work)
{
    const ldpc_code code = ldpc_code::regular(60, 30, 16, 3, 1);
    auto gpu =
        ldpc_decoder::make(code, { backend_kind::cuda, precision_kind::dual, 0, 0 });
    std::vector<double> good(size_t(60 * 16), -1.0), bad = good;
    bad[17] = std::nan("");
    std::vector<double> out(good.size(), 7.0);
    EXPECT_THROW(gpu->decode_batch(
                     { good.data(), bad.data() }, 10, { out.data(), out.data() }, {}, {}),
                 std::invalid_argument);
    EXPECT_EQ(out[0], 7.0);
    EXPECT_THROW(gpu->decode(good.data(), 0, nullptr, nullptr), std::invalid_argument);
    EXPECT_TRUE(gpu->decode_batch({}, 5, {}, {}, {}).empty());
}
