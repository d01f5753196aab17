/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/bsid/core/channel/channel_params.h>
#include <gtest/gtest.h>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

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

namespace {
void expect_refused(const std::function<void()>& make, const std::string& a)
{
    try {
        make();
        ADD_FAILURE() << "accepted; expected: " << a;
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find(a), std::string::npos) << e.what();
    }
}
} // namespace

TEST(channel_params, an_alphabet_of_A_letters_with_uniform_substitutions)
{
    const channel_params dna(0.01, 0.02, 0.03, 4);
    EXPECT_EQ(dna.alphabet(), 4);
    EXPECT_FALSE(dna.has_substitution_matrix());
    EXPECT_TRUE(dna.substitution().empty());
    EXPECT_EQ(dna.repr(), "channel_params(Pi=0.01, Pd=0.02, Ps=0.03, alphabet=4)");
    for (unsigned x = 0; x < 4; ++x) {
        double row = 0;
        for (unsigned y = 0; y < 4; ++y) {
            EXPECT_DOUBLE_EQ(dna.emission(x, y), x == y ? 0.97 : 0.01);
            row += dna.emission(x, y);
        }
        EXPECT_NEAR(row, 1.0, 1e-15);
        EXPECT_EQ(dna.substitution_probability(x), 0.03);
    }
    // alphabet 2 is the binary channel, equal and printed alike
    EXPECT_EQ(channel_params(0.1, 0.1, 0.1, 2), channel_params(0.1, 0.1, 0.1));
    EXPECT_EQ(channel_params(0.1, 0.1, 0.1, 2).repr(),
              channel_params(0.1, 0.1, 0.1).repr());
    EXPECT_NE(channel_params(0.1, 0.1, 0.1, 3), channel_params(0.1, 0.1, 0.1));
    EXPECT_NO_THROW(channel_params(0, 0, 0, 256));
    expect_refused([] { channel_params(0, 0, 0, 1); },
                   "alphabet = 1 must be in [2, 256]");
    expect_refused([] { channel_params(0, 0, 0, 257); }, "alphabet = 257");
    expect_refused([] { channel_params(0, 0, 0, -4); }, "alphabet = -4");
}

TEST(channel_params, a_substitution_matrix_replaces_Ps)
{
    const std::vector<double> S = { 0.9, 0.1, 0.0, //
                                    0.2, 0.7, 0.1, //
                                    0.0, 0.0, 1.0 };
    const channel_params ch(0.01, 0.01, 0.3, 3, S);
    EXPECT_TRUE(ch.has_substitution_matrix());
    EXPECT_EQ(ch.substitution(), S);
    EXPECT_NEAR(ch.Ps(), (0.1 + 0.3 + 0.0) / 3, 1e-15); // the mean, not the 0.3 given
    EXPECT_EQ(ch.emission(1, 2), 0.1);
    EXPECT_EQ(ch.emission(2, 2), 1.0);
    EXPECT_NEAR(ch.substitution_probability(1), 0.3, 1e-15);
    EXPECT_EQ(ch.substitution_probability(2), 0.0);
    // the same matrix whatever Ps was given: the same channel
    EXPECT_EQ(ch, channel_params(0.01, 0.01, 0.0, 3, S));
    EXPECT_NE(ch, channel_params(0.01, 0.01, ch.Ps(), 3)); // uniform is another channel
    auto T = S;
    T[0] = 0.8, T[1] = 0.2;
    EXPECT_NE(ch, channel_params(0.01, 0.01, 0.0, 3, T));
    EXPECT_EQ(ch.repr(),
              "channel_params(Pi=0.01, Pd=0.01, Ps=0.13333333333333333, alphabet=3, "
              "substitution=[[0.9, 0.1, 0], [0.2, 0.7, 0.1], [0, 0, 1]])");
    // copies share the matrix and stay equal
    const channel_params copy = ch;
    EXPECT_EQ(copy, ch);
    EXPECT_EQ(copy.substitution().data(), ch.substitution().data());
}

TEST(channel_params, a_bad_substitution_matrix_is_refused_naming_the_entry)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    expect_refused([] { channel_params(0, 0, 0, 3, std::vector<double>(4, 0.5)); },
                   "has 4 entries; alphabet = 3 needs 3 x 3 = 9");
    expect_refused(
        [] {
            channel_params(0, 0, 0, 2, { 0.9, 0.2, 0, 1 });
        },
        "row 0 of the substitution matrix sums to 1.1");
    expect_refused(
        [] {
            channel_params(0, 0, 0, 2, { 1.1, -0.1, 0, 1 });
        },
        "substitution[0][0] = 1.1 is greater than 1");
    expect_refused(
        [] {
            channel_params(0, 0, 0, 2, { 1, 0, -0.5, 1.5 });
        },
        "substitution[1][0] = -0.5 is negative");
    expect_refused(
        [nan] {
            channel_params(0, 0, 0, 2, { 1, 0, nan, 1 });
        },
        "substitution[1][0] = nan is not a finite number");
    // rows that sum to 1 within rounding pass
    EXPECT_NO_THROW(
        channel_params(0, 0, 0, 3, { 0.1, 0.2, 0.7, 0.3, 0.3, 0.4, 0, 0, 1 }));
}
