/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Frames next to bursts of several code periods, in codes whose books
// repeat within the frame: a search's best start, and the comparison of it
// with its shifts by whole periods, must not stop at a start whole periods
// off the true one (docs/receiving.md, "Loss of sync").

#include "qa_burst_streams.h"
#include "qa_reference.h"
#include "qa_sanitized.h"
#include <gtest/gtest.h>
#include <cmath>
#include <random>
#include <vector>

using namespace bsid;
using namespace bsid::qa;

namespace {

using stream_gaps = quiet_log;

TEST_F(stream_gaps, bursts_of_several_periods_after_a_frame_never_give_a_wrong_frame_ok)
{
    // A frame next to a burst of more than two code periods: a search's
    // look-ahead weighs a start whose end meets the next frame above the
    // true start with a gap after it, so its best start can lie three or
    // more whole periods off the true one (a search's window may also hold
    // no true start, its best then next to the burst). Its comparison with
    // its shifts by one and two periods then put out the furthest shift ok
    // (1 stream in about 100 here, and 1 in about 300 of letters with p = 3
    // in qa_letters). The best shift must beat its own shifts on both sides
    // before it is taken: one at the edge of those read moves the comparison
    // on. The rule over codes whose edges are short (p = 3 and 4, N = 22,
    // bits and four letters) and bursts of 2.5 to 6 periods after frames 2
    // and 5: every frame put out ok is right (run_stream: none read at a
    // wrong alignment, the right count), and most are ok.
    tally t;
    long long sent = 0;
    short_edge_streams(
        sanitized ? 2u : 40u,
        500,
        [](uint64_t seed, long long unit, int A, int P) {
            // 2.5 to 6 periods, any item count
            std::mt19937_64 r(seed * 31 + uint64_t(A * 10 + P));
            auto burst = [&] {
                return unit * 5 / 2 + (long long)(r() % uint64_t(unit * 7 / 2 + 1));
            };
            const long long b2 = burst();
            return std::make_pair(b2, burst());
        },
        t,
        sent);
    EXPECT_EQ(t.count_wrong, 0);
    EXPECT_GE(t.ok, sent * 8 / 10);
}

} // namespace
