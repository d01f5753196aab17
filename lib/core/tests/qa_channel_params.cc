/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/bsid/core/channel/channel_params.h>
#include <gtest/gtest.h>
#include <cmath>
#include <limits>
#include <string>

using bsid::channel_params;

namespace {
// Expects construction to fail with a message containing each fragment.
void expect_rejected(
    double Pi, double Pd, double Ps, const std::string& a, const std::string& b)
{
    try {
        channel_params ch(Pi, Pd, Ps);
        ADD_FAILURE() << "accepted " << ch.repr();
    } catch (const std::invalid_argument& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(a), std::string::npos) << msg;
        EXPECT_NE(msg.find(b), std::string::npos) << msg;
    }
}
} // namespace

TEST(channel_params, valid_values)
{
    const channel_params ch(0.01, 0.02, 0.03);
    EXPECT_EQ(ch.Pi(), 0.01);
    EXPECT_EQ(ch.Pd(), 0.02);
    EXPECT_EQ(ch.Ps(), 0.03);
    EXPECT_DOUBLE_EQ(ch.Pt(), 0.97);
    EXPECT_EQ(ch.repr(), "channel_params(Pi=0.01, Pd=0.02, Ps=0.03)");
    // edges that are allowed: all zero, Ps = 1, Pi + Pd just below 1
    EXPECT_NO_THROW(channel_params(0, 0, 0));
    EXPECT_NO_THROW(channel_params(0, 0, 1));
    EXPECT_NO_THROW(channel_params(0.5, 0.49, 0.5));
}

TEST(channel_params, rejects_bad_values_by_name)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    expect_rejected(-0.1, 0, 0, "Pi = -0.1", "negative");
    expect_rejected(0, -1e-9, 0, "Pd = -1e-09", "negative");
    expect_rejected(0, 0, -0.5, "Ps = -0.5", "negative");
    expect_rejected(nan, 0, 0, "Pi = nan", "finite");
    expect_rejected(0, inf, 0, "Pd = inf", "finite");
    expect_rejected(0, 0, -inf, "Ps = -inf", "finite");
    expect_rejected(0, 0, 1.5, "Ps = 1.5", "greater than 1");
    expect_rejected(0.5, 0.5, 0, "Pi + Pd = 1", "less than 1");
    expect_rejected(0.7, 0.4, 0, "Pi + Pd = 1.1", "less than 1");
    expect_rejected(1.2, 0, 0, "Pi = 1.2", "greater than 1");
}
