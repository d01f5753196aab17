/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Soft input (docs/design.md section 3, "Soft input") on the CPU backend: the
// item probabilities, the identities that tie LLRs to hard bits (tagged
// frames, frame boundaries and streams), the brute-force APPs of tiny codes
// with LLRs (qa_reference.h's lattice, written from the model), and bad
// LLRs. lib/cuda/qa_map_decoder_cuda.cc runs the same checks on the GPU.

#include "qa_soft_reference.h"
#include <gnuradio/bsid/core/channel/soft_input.h>
#include <gnuradio/bsid/core/inner/model.h>
#include <gtest/gtest.h>
#include <cmath>
#include <limits>

using namespace bsid;
using namespace bsid::qa;

namespace {

const double inf = std::numeric_limits<double>::infinity();

TEST(soft_input, item_probabilities_are_exact_at_infinity_and_never_cancel)
{
    double w0, w1;
    model::llr_probabilities(inf, w0, w1);
    EXPECT_EQ(w0, 0.0);
    EXPECT_EQ(w1, 1.0);
    model::llr_probabilities(-inf, w0, w1);
    EXPECT_EQ(w0, 1.0);
    EXPECT_EQ(w1, 0.0);
    model::llr_probabilities(0.0, w0, w1);
    EXPECT_EQ(w0, 0.5);
    EXPECT_EQ(w1, 0.5);
    // |l| above 17: the small one is e^-|l| / (1 + e^-|l|), not
    // 1 - (1 - e^-|l|), which is 0 in float (and in double above 37)
    for (double l : { 20.0, 40.0, 100.0, 700.0 }) {
        model::llr_probabilities(l, w0, w1);
        const double e = std::exp(-l);
        EXPECT_NEAR(w0 / (e / (1 + e)), 1.0, 1e-12) << l;
        EXPECT_NEAR(w1, 1.0, 2 * e) << l;
        model::llr_probabilities(-l, w0, w1); // the mirror image
        EXPECT_NEAR(w1 / (e / (1 + e)), 1.0, 1e-12) << l;
        float f[2];
        item_probabilities(received_items{ nullptr, &l }, 1, f);
        if (l <= 100) {
            EXPECT_GT(f[0], 0.0f) << "float, l = " << l; // a denormal at 100
        }
        if (l <= 80) {
            EXPECT_NEAR(double(f[0]) / (e / (1 + e)), 1.0, 1e-6) << l;
        }
    }
    model::llr_probabilities(1e30, w0, w1);
    EXPECT_EQ(w0, 0.0);
    EXPECT_EQ(w1, 1.0);
    // bits give exactly (1 - b, b)
    const uint8_t b[2] = { 0, 1 };
    double p[4];
    item_probabilities(received_items{ b, nullptr }, 2, p);
    EXPECT_EQ(p[0], 1.0);
    EXPECT_EQ(p[1], 0.0);
    EXPECT_EQ(p[2], 0.0);
    EXPECT_EQ(p[3], 1.0);
}

TEST(soft_input, invalid_items_are_found)
{
    std::string what;
    const double ok[4] = { 1.0, -inf, inf, 1e30 };
    EXPECT_EQ(find_invalid_item(received_items{ nullptr, ok }, 4, what), 4u);
    const double bad[4] = { 1.0, -inf, std::nan(""), 0.0 };
    EXPECT_EQ(find_invalid_item(received_items{ nullptr, bad }, 4, what), 2u);
    EXPECT_NE(what.find("NaN"), std::string::npos) << what;
    const uint8_t bits[3] = { 0, 1, 2 };
    EXPECT_EQ(find_invalid_item(received_items{ bits, nullptr }, 3, what), 2u);
    EXPECT_EQ(find_invalid_item(received_items{ bits, ok }, 3, what), 0u);
    EXPECT_NE(what.find("both bits and LLRs"), std::string::npos) << what;
    const double lp[6] = { 0, -1, -2, 0, 0, 0 };
    EXPECT_EQ(find_invalid_item(received_items{ nullptr, ok, 3, lp }, 2, what), 0u);
    EXPECT_NE(what.find("both LLRs and log-probabilities"), std::string::npos) << what;
    EXPECT_EQ(find_invalid_item(received_items{ nullptr, nullptr, 3, lp }, 2, what), 2u);
    EXPECT_EQ(parse_input_kind("logprob"), input_kind::logprob);
    EXPECT_EQ(parse_input_kind("llr"), input_kind::llr);
    EXPECT_EQ(parse_input_kind("bits"), input_kind::bits);
    EXPECT_THROW(parse_input_kind("soft"), std::invalid_argument);
}

TEST(soft_input, tagged_frames_hard_bits_equal_infinite_llrs)
{
    check_hard_equals_infinite_llrs(backend_kind::cpu);
}

TEST(soft_input, hard_bits_with_Ps_equal_llrs_of_the_crossover)
{
    check_crossover_identity(backend_kind::cpu);
}

TEST(soft_input, brute_force_apps_of_tiny_codes)
{
    check_soft_brute_force(backend_kind::cpu);
}

TEST(soft_input, frame_boundaries_against_the_brute_force)
{
    check_every_boundary_model(backend_kind::cpu, 777, true);
}

TEST(soft_input, frame_boundaries_and_streams_hard_bits_equal_infinite_llrs)
{
    check_boundaries_and_streams_identity(backend_kind::cpu);
}

TEST(soft_input, bad_llrs_are_flagged_never_spread) { check_bad_llrs(backend_kind::cpu); }

} // namespace
