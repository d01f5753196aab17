/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The model written once (model.h): its steps against the equations written
// out here, and the boundary conditions as data (map_decoder::boundaries).

#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/inner/model.h>
#include <gtest/gtest.h>
#include <cmath>
#include <limits>
#include <vector>

using namespace bsid;

TEST(model, ratio_weights_are_the_exact_ones_times_a_constant_per_path)
{
    // ratio() = exact() times 2 per received bit and 1/Pt per transmitted bit
    const channel_params ch(0.07, 0.03, 0.02);
    const auto e = lattice_weights<double>::exact(ch);
    const auto r = lattice_weights<double>::ratio(ch);
    EXPECT_DOUBLE_EQ(r.ins, e.ins * 2);
    EXPECT_DOUBLE_EQ(r.del, e.del / ch.Pt());
    EXPECT_DOUBLE_EQ(r.match, e.match * 2 / ch.Pt());
    EXPECT_DOUBLE_EQ(r.mismatch, e.mismatch * 2 / ch.Pt());
    EXPECT_EQ(r.diag(1, 1), r.match);
    EXPECT_EQ(r.diag(0, 1), r.mismatch);
}

TEST(model, cells_and_unit_del_form_agree)
{
    const double wd = 1.7, diag = 0.3, del = 0.04, vert = 0.9, ins = 0.02, horz = 0.6;
    EXPECT_DOUBLE_EQ(model::lattice_cell(wd, diag, del, vert, ins, horz),
                     wd * diag + del * vert + ins * horz);
    EXPECT_DOUBLE_EQ(model::lattice_last_cell(wd, diag, del, vert),
                     wd * diag + del * vert);
    // row r divided by del^r: the same cell, with the neighbours of row r - 1
    // divided by del^(r-1) and those of row r by del^r
    const int r = 3;
    const double s = std::pow(del, r);
    EXPECT_NEAR(model::lattice_cell_unit_del(
                    wd / del, diag / (s / del), vert / (s / del), ins, horz / s),
                model::lattice_cell(wd, diag, del, vert, ins, horz) / s,
                1e-9);
    EXPECT_EQ(model::lattice_row0(2, 2, 0.5, 7.0), 1.0);
    EXPECT_EQ(model::lattice_row0(1, 2, 0.5, 7.0), 0.0);
    EXPECT_EQ(model::lattice_row0(3, 2, 0.5, 7.0), 3.5);
}

TEST(model, recursion_steps_are_eqn_alpha_and_eqn_beta)
{
    // Mt states, corridor [dlo, dlo + Mn - 1]: alpha_{i+1}(b) = sum over (a, d),
    // a + d = b, of alpha_i(a) G(d, a); beta_i(a) = sum over d of G(d, a) beta_{i+1}(a +
    // d)
    const int Mt = 7, Mn = 4, dlo = -1;
    std::vector<double> prev(Mt), next(Mt), G(size_t(Mn) * Mt);
    for (int a = 0; a < Mt; ++a)
        prev[size_t(a)] = 1.0 + a, next[size_t(a)] = 2.0 - 0.1 * a;
    for (size_t k = 0; k < G.size(); ++k)
        G[k] = 0.01 * double(k + 1);
    auto g = [&](int e, int a) { return G[size_t(e) * Mt + size_t(a)]; };
    for (int b = 0; b < Mt; ++b) {
        double want = 0;
        for (int a = 0; a < Mt; ++a)
            for (int e = 0; e < Mn; ++e)
                if (a + dlo + e == b)
                    want += prev[size_t(a)] * g(e, a);
        EXPECT_DOUBLE_EQ(model::forward_sum<double>(
                             b, dlo, Mn, Mt, [&](int a) { return prev[size_t(a)]; }, g),
                         want);
    }
    for (int a = 0; a < Mt; ++a) {
        double want = 0;
        for (int e = 0; e < Mn; ++e) {
            const int b = a + dlo + e;
            if (b >= 0 && b < Mt)
                want += g(e, a) * next[size_t(b)];
        }
        EXPECT_DOUBLE_EQ(model::backward_sum<double>(
                             a, dlo, Mn, Mt, [&](int b) { return next[size_t(b)]; }, g),
                         want);
    }
}

TEST(model, normalizer_refuses_what_is_not_a_positive_finite_sum)
{
    double inv = -1;
    EXPECT_TRUE(model::normalizer(4.0, inv));
    EXPECT_EQ(inv, 0.25);
    EXPECT_TRUE(model::normalizer(1e-300, inv));
    for (double bad : { 0.0,
                        -1.0,
                        std::numeric_limits<double>::infinity(),
                        std::numeric_limits<double>::quiet_NaN() }) {
        EXPECT_FALSE(model::normalizer(bad, inv)) << bad;
    }
}

TEST(model, boundaries_are_data)
{
    // the frame starts at drift 0 and ends at drift rho - tau: one-hot weights
    decoder_config cfg(
        codebook::builtin("ld3-modvec6"), channel_params(0.01, 0.01, 0.0), 10);
    cfg.backend = backend_kind::cpu;
    cfg.mtau = drift_range{ -5, 6 };
    cfg.mn = drift_range{ -2, 3 };
    const auto dec = map_decoder::make(cfg);
    const std::vector<uint8_t> rx(83, 0); // tau = 80: end drift 3
    const auto b = dec->boundaries({ rx.data(), rx.size(), nullptr });
    ASSERT_EQ(b.start.size(), 12u);
    ASSERT_EQ(b.end.size(), 12u);
    for (int a = 0; a < 12; ++a) {
        EXPECT_EQ(b.start[size_t(a)], a == 5 ? 1.0 : 0.0) << a; // drift 0
        EXPECT_EQ(b.end[size_t(a)], a == 8 ? 1.0 : 0.0) << a;   // drift 3
    }
}
