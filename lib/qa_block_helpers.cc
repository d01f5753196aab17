/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Block-internal logic: the output queue that re-offsets tags across work()
// calls, and the posterior-to-LLR conversion.

#include "llr.h"
#include "output_queue.h"
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <vector>

namespace gr {
namespace bsid {

BOOST_AUTO_TEST_CASE(output_queue_reoffsets_tags_across_pops)
{
    output_queue<uint8_t> q(2); // items of two bytes
    const uint8_t a[] = { 1, 2, 3, 4, 5, 6 };
    // a frame of three items, tagged at its start and on its last item
    q.tag(q.end(), pmt::intern("len"), pmt::from_long(3));
    q.tag(q.end() + 2, pmt::intern("mark"), pmt::PMT_T);
    q.push(a, 3);
    BOOST_CHECK_EQUAL(q.size(), 3u);
    // emitted in pieces smaller than the frame: each tag once, at its item
    std::vector<uint64_t> seen;
    uint8_t out[6];
    BOOST_CHECK_EQUAL(
        q.pop(out, 2, [&](const queued_tag& t) { seen.push_back(t.offset); }), 2u);
    BOOST_CHECK_EQUAL(out[0], 1);
    BOOST_CHECK_EQUAL(out[3], 4);
    BOOST_REQUIRE_EQUAL(seen.size(), 1u);
    BOOST_CHECK_EQUAL(seen[0], 0u);
    BOOST_CHECK_EQUAL(
        q.pop(out, 5, [&](const queued_tag& t) { seen.push_back(t.offset); }), 1u);
    BOOST_CHECK_EQUAL(out[0], 5);
    BOOST_REQUIRE_EQUAL(seen.size(), 2u);
    BOOST_CHECK_EQUAL(seen[1], 2u);
    // a tag added after its items (a lost frame's tags) still comes out in order
    q.push(a, 1);
    q.tag(3, pmt::intern("late"), pmt::PMT_T);
    q.tag(4, pmt::intern("next"), pmt::PMT_T); // on an item not pushed yet
    BOOST_CHECK_EQUAL(
        q.pop(out, 8, [&](const queued_tag& t) { seen.push_back(t.offset); }), 1u);
    BOOST_REQUIRE_EQUAL(seen.size(), 3u);
    BOOST_CHECK_EQUAL(seen[2], 3u);
    q.push(a, 1);
    BOOST_CHECK_EQUAL(
        q.pop(out, 8, [&](const queued_tag& t) { seen.push_back(t.offset); }), 1u);
    BOOST_CHECK_EQUAL(seen.back(), 4u);
    BOOST_CHECK_EQUAL(q.end(), 5u);
}

BOOST_AUTO_TEST_CASE(llr_sign_floor_scale_and_clip)
{
    // q = 4: symbol 3 = binary 11, symbol 1 = 01 (MSB first)
    const double post[] = { 0.0, 0.0, 0.0, 1.0,   // certain 11
                            0.1, 0.6, 0.1, 0.2 }; // P(b0=1) = 0.3, P(b1=1) = 0.8
    float llr[4];
    posteriors_to_llr(post, 2, 4, 1.0f, 0.0f, llr);
    BOOST_CHECK_CLOSE(llr[0], std::log(1.0) - std::log(1e-300), 1e-4); // floored, finite
    BOOST_CHECK(llr[1] > 690.0f && std::isfinite(llr[1]));
    BOOST_CHECK_CLOSE(llr[2], std::log(0.3 / 0.7), 1e-4);
    BOOST_CHECK_CLOSE(llr[3], std::log(0.8 / 0.2), 1e-4);
    posteriors_to_llr(post, 2, 4, 0.5f, 1.0f, llr);
    BOOST_CHECK_EQUAL(llr[0], 1.0f);
    BOOST_CHECK_CLOSE(llr[2], 0.5 * std::log(0.3 / 0.7), 1e-4);
    BOOST_CHECK_EQUAL(
        llr[3], 0.5f * float(std::log(4.0)) > 1.0f ? 1.0f : 0.5f * float(std::log(4.0)));
    // q not a power of two: ceil(log2 5) = 3 bits
    BOOST_CHECK_EQUAL(llr_bits_per_symbol(5), 3);
    BOOST_CHECK_EQUAL(llr_bits_per_symbol(2), 1);
    BOOST_CHECK_EQUAL(llr_bits_per_symbol(65536), 16);
}

} // namespace bsid
} // namespace gr
