/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Start priors as the stream decoder builds them (stream_decoder.cc and
// stream_sync_tests.cc): positions padded to few distinct state spaces,
// made relative to a segment, and their most probable entry; and what a
// read of an alignment scores.

#ifndef INCLUDED_BSID_CORE_STREAM_POSITIONS_H
#define INCLUDED_BSID_CORE_STREAM_POSITIONS_H

#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <algorithm>
#include <limits>
#include <vector>

namespace bsid {
namespace detail {

/*
 * The last position of a start prior's range, padded with weight 0: the
 * spread s_max - s_min rounded up to 2^k - 1 (k >= 2), so that the frame
 * decoder sees few distinct state spaces (one backend each, and one batch
 * each on a GPU).
 */
inline long long padded_top(long long s_min, long long s_max)
{
    long long S = 3;
    while (S < s_max - s_min)
        S = 2 * S + 1;
    return s_min + S;
}

// the request's start prior: `p` relative to s_min, with a weight-0 position at top
inline position_weights
relative_prior(const position_weights& p, long long s_min, long long top)
{
    position_weights r = p;
    for (long long& s : r.positions)
        s -= s_min;
    if (top > p.positions.back()) {
        r.positions.push_back(top - s_min);
        r.weights.push_back(0.0);
    }
    return r;
}

// the most probable entry (the first on a tie)
inline size_t argmax(const std::vector<double>& v)
{
    return size_t(std::max_element(v.begin(), v.end()) - v.begin());
}

// what a read of an alignment scores: its ln likelihood ratio against
// random items, -inf where it could not be decoded
inline double read_llr(const frame_decode_result& res)
{
    return res.result.ok() ? res.log_likelihood_ratio
                           : -std::numeric_limits<double>::infinity();
}

} // namespace detail
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_STREAM_POSITIONS_H */
