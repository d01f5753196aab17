/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// EXIT curves (sim/exit_chart.h): the a priori model's information against
// the binary J function computed by quadrature, the measured I_A against the
// model, the inner curve of an uncoded substitution channel (1 - h(Ps) at
// every I_A), the inner and outer curves rising to 1, and errors.

#include <gnuradio/bsid/core/outer/ldpc_code.h>
#include <gnuradio/bsid/core/sim/exit_chart.h>
#include <gtest/gtest.h>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace {

// J(s): the mutual information of a binary input and its consistent Gaussian
// LLR, L ~ N(s^2/2, s^2), as 1 - E[log2(1 + e^-L)] by the trapezoid rule
double J(double s)
{
    if (s <= 0)
        return 0;
    const double mu = s * s / 2;
    double sum = 0;
    const int steps = 20000;
    const double lo = mu - 12 * s, hi = mu + 12 * s, h = (hi - lo) / steps;
    for (int t = 0; t <= steps; ++t) {
        const double L = lo + t * h;
        const double pdf =
            std::exp(-(L - mu) * (L - mu) / (2 * s * s)) / (s * std::sqrt(2 * M_PI));
        const double f =
            pdf * (L > 0 ? std::log1p(std::exp(-L)) : -L + std::log1p(std::exp(L)));
        sum += (t == 0 || t == steps ? 0.5 : 1.0) * f;
    }
    return 1 - sum * h / std::log(2.0);
}

double h2(double p) { return -p * std::log2(p) - (1 - p) * std::log2(1 - p); }

} // namespace

TEST(exit_chart, apriori_model_is_the_j_function_for_bits)
{
    // two symbols: the LLR l(x) - l(other) is N(sigma^2/2, 2 sigma^2), so the
    // model's information is J(sqrt(2) sigma)
    for (double sigma : { 0.3, 0.8, 1.5, 2.5 }) {
        const double got = bsid::apriori_model::information(sigma, 2);
        EXPECT_NEAR(got, J(std::sqrt(2.0) * sigma), 0.01) << sigma;
    }
    EXPECT_EQ(bsid::apriori_model::information(0, 16), 0);
    double last = 0;
    for (double sigma = 0.25; sigma < 6; sigma += 0.25) {
        const double v = bsid::apriori_model::information(sigma, 16);
        EXPECT_GT(v, last) << sigma;
        last = v;
    }
    EXPECT_GT(last, 0.99);
    for (double ia : { 0.1, 0.5, 0.9 }) {
        const double s = bsid::apriori_model::sigma_for(ia, 16);
        EXPECT_NEAR(bsid::apriori_model::information(s, 16), ia, 1e-6);
    }
}

TEST(exit_chart, uncoded_substitution_channel_is_flat_at_one_minus_h)
{
    // no code, no synchronization errors: symbol i's extrinsic is its own
    // received bit's likelihood, whatever the priors: I_E = 1 - h(Ps)
    const double Ps = 0.08;
    bsid::decoder_config cfg(
        bsid::codebook::sparse(1, 2), bsid::channel_params(0, 0, Ps), 200);
    cfg.backend = bsid::backend_kind::cpu;
    cfg.precision = bsid::precision_kind::dual;
    bsid::exit_options opt;
    opt.frames = 300;
    const std::vector<double> ia = { 0.0, 0.5, 0.9 };
    const auto curve = bsid::inner_exit_curve(cfg, ia, opt);
    ASSERT_EQ(curve.size(), 3u);
    for (size_t t = 0; t < 3; ++t) {
        EXPECT_EQ(curve[t].frames, 300u);
        const double se = (curve[t].ie_high - curve[t].ie_low) / (2 * 1.96);
        EXPECT_LT(std::fabs(curve[t].ie - (1 - h2(Ps))), 4 * se + 1e-12) << ia[t];
        // the measured I_A is the model's
        EXPECT_NEAR(curve[t].ia, ia[t], 0.02);
    }
    EXPECT_EQ(curve[0].sigma, 0);
}

TEST(exit_chart, coded_curves_rise)
{
    bsid::decoder_config cfg(
        bsid::codebook::builtin("ld3-modvec6"), bsid::channel_params(0.05, 0.05, 0), 30);
    cfg.backend = bsid::backend_kind::cpu;
    bsid::exit_options opt;
    opt.frames = 40;
    // the same frames and draws at every point: the means rise with I_A
    const auto inner = bsid::inner_exit_curve(cfg, { 0.0, 0.4, 0.8, 0.95 }, opt);
    for (size_t t = 1; t < inner.size(); ++t)
        EXPECT_GT(inner[t].ie, inner[t - 1].ie) << t;
    EXPECT_GT(inner.back().ie - inner[0].ie, 0.04);
    EXPECT_LT(inner.back().ie, 1);
    // a noiseless channel: every symbol known from the frame alone
    cfg.ch = bsid::channel_params(0, 0, 0);
    for (const auto& e : bsid::inner_exit_curve(cfg, { 0.0, 0.5 }, opt))
        EXPECT_NEAR(e.ie, 1, 1e-9);

    const auto code = bsid::ldpc_code::regular(120, 40, 16, 3, 1);
    bsid::siso_config sc;
    opt.frames = 30;
    const auto outer = bsid::outer_exit_curve(code, sc, { 0.0, 0.3, 0.6, 0.9 }, opt);
    EXPECT_EQ(outer[0].ie, 0); // uniform priors: a uniform extrinsic
    EXPECT_EQ(outer[0].decoded, 0);
    EXPECT_EQ(outer.back().decoded, 1);
    for (size_t t = 1; t < outer.size(); ++t)
        EXPECT_GE(outer[t].ie, outer[t - 1].ie) << t;
    EXPECT_GT(outer.back().ie, 0.99); // rate 2/3 with I_A 0.9: decoded
}

TEST(exit_chart, bad_options_are_refused)
{
    bsid::decoder_config cfg(
        bsid::codebook::sparse(1, 2), bsid::channel_params(0, 0, 0.1), 8);
    cfg.backend = bsid::backend_kind::cpu;
    bsid::exit_options opt;
    EXPECT_THROW(bsid::inner_exit_curve(cfg, { 1.0 }, opt), std::invalid_argument);
    EXPECT_THROW(bsid::inner_exit_curve(cfg, { -0.1 }, opt), std::invalid_argument);
    opt.frames = 1;
    EXPECT_THROW(bsid::inner_exit_curve(cfg, { 0.5 }, opt), std::invalid_argument);
    opt.frames = 4;
    opt.iterations = 0;
    const auto code = bsid::ldpc_code::regular(120, 40, 16, 3, 1);
    EXPECT_THROW(bsid::outer_exit_curve(code, bsid::siso_config{}, { 0.5 }, opt),
                 std::invalid_argument);
    EXPECT_THROW(bsid::apriori_model::sigma_for(1.0, 4), std::invalid_argument);
}
