/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/bsid/core/sim/philox.h>
#include <gtest/gtest.h>

using bsid::philox4x32_10;

// The published known-answer vectors of Philox4x32-10 (Random123's
// kat_vectors): counter, key -> output.
TEST(philox, known_answer_zeros)
{
    const auto out = philox4x32_10::block({ 0, 0, 0, 0 }, { 0, 0 });
    EXPECT_EQ(
        out,
        (philox4x32_10::counter_type{ 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 }));
}

TEST(philox, known_answer_ones)
{
    const auto out = philox4x32_10::block(
        { 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff }, { 0xffffffff, 0xffffffff });
    EXPECT_EQ(
        out,
        (philox4x32_10::counter_type{ 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd }));
}

TEST(philox, known_answer_pi_digits)
{
    const auto out = philox4x32_10::block(
        { 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344 }, { 0xa4093822, 0x299f31d0 });
    EXPECT_EQ(
        out,
        (philox4x32_10::counter_type{ 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 }));
}

// The stream layout is a documented contract: block b of stream (seed, id) is
// philox({b_lo, b_hi, id_lo, id_hi}, {seed_lo, seed_hi}), four words in order.
TEST(philox, stream_layout)
{
    const uint64_t seed = 0x0123456789abcdefULL, id = 0xfedcba9876543210ULL;
    bsid::philox_stream s(seed, id);
    for (uint32_t b = 0; b < 3; ++b) {
        const auto blk = philox4x32_10::block({ b, 0, uint32_t(id), uint32_t(id >> 32) },
                                              { uint32_t(seed), uint32_t(seed >> 32) });
        for (int w = 0; w < 4; ++w) {
            EXPECT_EQ(s.next_u32(), blk[w]) << "block " << b << " word " << w;
        }
    }
    EXPECT_EQ(s.position(), 12u);
}

// Uniform doubles stay strictly inside (0, 1) and look uniform.
TEST(philox, open_unit_interval)
{
    bsid::philox_stream s(7, 0);
    double sum = 0;
    const int n = 200000;
    for (int k = 0; k < n; ++k) {
        const double u = s.next_open01();
        ASSERT_GT(u, 0.0);
        ASSERT_LT(u, 1.0);
        sum += u;
    }
    // mean of n uniforms: sd = sqrt(1/12/n) ~ 6.5e-4; allow 6 sd
    EXPECT_NEAR(sum / n, 0.5, 6 * 6.5e-4);
}
