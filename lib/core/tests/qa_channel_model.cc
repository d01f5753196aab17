/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The channel model as a compile-time policy (channel/channel_model.h): the
// binary BSID model gives lattice_weights the numbers it always had, to the
// bit, and another model (a test-only four-letter one) instantiates it.

#include <gnuradio/bsid/core/channel/channel_model.h>
#include <gnuradio/bsid/core/inner/model.h>
#include <gtest/gtest.h>
#include <type_traits>
#include <vector>

using namespace bsid;

namespace {

// the CUDA kernels build lattice_weights from four numbers, in this order
static_assert(std::is_aggregate_v<lattice_weights<float>>);
static_assert(
    std::is_same_v<lattice_weights<double>, lattice_weights<double, binary_bsid_model>>);
static_assert(binary_bsid_model::alphabet_size == 2);
static_assert(binary_bsid_model::random_letter == 0.5);

/*
 * A four-letter channel for the test alone: an insertion of a random letter
 * (Pi / 4), a deletion, and a transmission received as sent or, with
 * probability Ps, as the letter that differs in its low bit only (0 <-> 1,
 * 2 <-> 3); never as the other two.
 */
struct toy_quaternary_model {
    static constexpr int alphabet_size = 4;
    static constexpr double random_letter = 0.25;

    static step_weights exact(const channel_params& ch)
    {
        return {
            ch.Pi() * random_letter, ch.Pd(), ch.Pt() * (1 - ch.Ps()), ch.Pt() * ch.Ps()
        };
    }
    static step_weights ratio(const channel_params& ch)
    {
        return { ch.Pi(),
                 ch.Pd() / ch.Pt(),
                 alphabet_size * (1 - ch.Ps()),
                 alphabet_size * ch.Ps() };
    }
    template <typename real>
    static BSID_HD real emission(real match, real mismatch, unsigned x, unsigned y)
    {
        return x == y ? match : (x ^ y) == 1u ? mismatch : real(0);
    }
};

const std::vector<channel_params>& channels()
{
    static const std::vector<channel_params> c{
        channel_params(0.01, 0.01, 0.0),
        channel_params(0.07, 0.03, 0.02),
        channel_params(0.0, 0.0, 0.0),
        channel_params(0.3, 0.1, 0.5),
        channel_params(1e-7, 0.2, 1.0),
        channel_params(0.123456789, 0.0, 0.0987654321),
        channel_params(1e-300, 1e-300, 0.3),
    };
    return c;
}

// today's formulas, written out: the binary model's weights must equal them
// to the bit, in both precisions
template <typename real>
void check_binary_weights()
{
    for (const auto& ch : channels()) {
        const auto e = lattice_weights<real>::exact(ch);
        EXPECT_EQ(e.ins, real(ch.Pi() / 2)) << ch.repr();
        EXPECT_EQ(e.del, real(ch.Pd())) << ch.repr();
        EXPECT_EQ(e.match, real(ch.Pt() * (1 - ch.Ps()))) << ch.repr();
        EXPECT_EQ(e.mismatch, real(ch.Pt() * ch.Ps())) << ch.repr();
        const auto r = lattice_weights<real>::ratio(ch);
        EXPECT_EQ(r.ins, real(ch.Pi())) << ch.repr();
        EXPECT_EQ(r.del, real(ch.Pd() / ch.Pt())) << ch.repr();
        EXPECT_EQ(r.match, real(2 * (1 - ch.Ps()))) << ch.repr();
        EXPECT_EQ(r.mismatch, real(2 * ch.Ps())) << ch.repr();
        for (unsigned x = 0; x < 2; ++x) {
            for (unsigned y = 0; y < 2; ++y)
                EXPECT_EQ(r.diag(x, y), x == y ? r.match : r.mismatch);
            const real w0 = real(0.3), w1 = real(0.7);
            EXPECT_EQ(r.diag_soft(x, w0, w1),
                      x ? w0 * r.mismatch + w1 * r.match
                        : w0 * r.match + w1 * r.mismatch);
        }
    }
}

} // namespace

TEST(channel_model, binary_weights_are_the_same_numbers_to_the_bit)
{
    check_binary_weights<float>();
    check_binary_weights<double>();
}

TEST(channel_model, another_alphabet_instantiates_the_lattice_weights)
{
    using toy = lattice_weights<double, toy_quaternary_model>;
    static_assert(std::is_same_v<toy::channel_model, toy_quaternary_model>);
    static_assert(toy::channel_model::alphabet_size == 4);
    const channel_params ch(0.08, 0.04, 0.1);
    const toy e = toy::exact(ch), r = toy::ratio(ch);
    EXPECT_DOUBLE_EQ(e.ins, 0.02);
    EXPECT_DOUBLE_EQ(e.del, 0.04);
    EXPECT_DOUBLE_EQ(e.match, 0.88 * 0.9);
    EXPECT_DOUBLE_EQ(e.mismatch, 0.88 * 0.1);
    EXPECT_DOUBLE_EQ(r.ins, 0.08);
    EXPECT_DOUBLE_EQ(r.del, 0.04 / 0.88);
    EXPECT_DOUBLE_EQ(r.match, 3.6);
    EXPECT_DOUBLE_EQ(r.mismatch, 0.4);
    // ratio() = exact() times q = 4 per received letter and 1/Pt per
    // transmitted one
    EXPECT_DOUBLE_EQ(r.ins, e.ins * 4);
    EXPECT_DOUBLE_EQ(r.match, e.match * 4 / ch.Pt());
    // the emission weights come from the model: a letter is received as
    // sent, as its low-bit neighbour, or not at all
    for (unsigned x = 0; x < 4; ++x)
        for (unsigned y = 0; y < 4; ++y)
            EXPECT_EQ(r.diag(x, y),
                      x == y          ? r.match
                      : (x ^ y) == 1u ? r.mismatch
                                      : 0.0)
                << x << " -> " << y;
    // a lattice cell over these weights: its diagonal neighbour (weight 1)
    // through a transmission of 2 received as 3, its vertical one (0.5)
    // through a deletion and its horizontal one (0.25) through an insertion
    EXPECT_DOUBLE_EQ(model::lattice_cell(r.diag(2, 3), 1.0, r.del, 0.5, r.ins, 0.25),
                     0.4 + 0.5 * 0.04 / 0.88 + 0.25 * 0.08);
    // float too
    const auto f = lattice_weights<float, toy_quaternary_model>::ratio(ch);
    EXPECT_EQ(f.diag(0, 2), 0.0f);
    EXPECT_EQ(f.diag(3, 2), float(0.4));
}
