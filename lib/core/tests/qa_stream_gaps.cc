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
#include <mutex>
#include <random>
#include <string>
#include <vector>

using namespace bsid;
using namespace bsid::qa;

namespace {

using stream_gaps = quiet_log;

// the bursts after frames 2 and 5 of stream `seed` of a code (A letters, P
// books, a period of `unit` items): 2.5 to 6 periods, any item count
std::pair<long long, long long>
several_periods(uint64_t seed, long long unit, int A, int P)
{
    std::mt19937_64 r(seed * 31 + uint64_t(A * 10 + P));
    auto burst = [&] {
        return unit * 5 / 2 + (long long)(r() % uint64_t(unit * 7 / 2 + 1));
    };
    const long long b2 = burst();
    return { b2, burst() };
}

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
    short_edge_streams(sanitized ? 2u : 40u, 500, several_periods, t, sent);
    EXPECT_EQ(t.count_wrong, 0);
    EXPECT_GE(t.ok, sent * 8 / 10);
}

TEST_F(stream_gaps, a_comparison_moved_on_reads_the_same_however_the_stream_is_chunked)
{
    // The comparisons that moved on (their best the furthest shift read)
    // in streams like the test above's (four letters, p = 4, the code whose
    // search segment reaches least far past its shifts): some are met, and
    // each stream's frames are the same to the last bit fed whole or in
    // chunks of 64 items. (A moved comparison waits until the stream holds
    // its latest shift's items, as a held frame's does; these streams do not
    // need it, their searches' segments reaching far enough.)
    long long moves = 0;
    std::mutex m;
    const log_level level = get_log_level();
    set_log_level(log_level::debug);
    set_log_handler([&](log_level, const std::string& text) {
        if (text.find("is compared with its own shifts") != std::string::npos) {
            std::lock_guard<std::mutex> lock(m);
            ++moves;
        }
    });
    const int A = 4, P = 4, n = 4, N = 22;
    const codebook cb = codebook::random(n, 16, P, 5, A);
    const channel_params ch(0.01, 0.01, 0.01, A);
    auto dec = decoder(cb, ch, N, {});
    const long long unit = (long long)P * n;
    tally t;
    for (uint64_t seed = 0; seed < (sanitized ? 2u : 40u); ++seed) {
        const auto [b2, b5] = several_periods(seed, unit, A, P);
        const auto s =
            make_burst_stream(cb, ch, N, {}, 10, 0, { { 2, b2 }, { 5, b5 } }, 500 + seed);
        std::vector<stream_frame> whole, small;
        const std::string what = "seed " + std::to_string(seed);
        run_stream(s, dec, stream_options{}, t, what, nullptr, s.rx.size(), &whole);
        run_stream(
            s, dec, stream_options{}, t, what + " in chunks of 64", nullptr, 64, &small);
        ASSERT_EQ(whole.size(), small.size()) << what;
        for (size_t k = 0; k < whole.size(); ++k) {
            EXPECT_EQ(whole[k].result.status, small[k].result.status)
                << what << " frame " << k;
            EXPECT_EQ(whole[k].start, small[k].start) << what << " frame " << k;
            EXPECT_EQ(whole[k].end, small[k].end) << what << " frame " << k;
            EXPECT_EQ(whole[k].posteriors, small[k].posteriors) << what << " frame " << k;
        }
    }
    set_log_handler(nullptr);
    set_log_level(level);
    EXPECT_EQ(t.count_wrong, 0);
    if (!sanitized) {
        EXPECT_GT(moves, 0);
    }
}

} // namespace
