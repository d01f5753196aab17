/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A carried frame's request, and the next frame decoded ahead (docs/design.md
// section 3, "Many streams"): a carried frame's decode asks for nothing but
// its start prior, which the frame before it gives once taken. While that
// frame's verdict waits for its edge tests (a step of their own), the next
// frame's request is made as if it were taken and decoded in the same step;
// next() uses the result if it then makes the same request (from the same
// prior, over the same segment). The frames
// put out are the same as without it: the decode is a function of the
// request alone.

#include "framing/stream_positions.h"
#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <algorithm>

namespace bsid {

using detail::padded_top;
using detail::relative_prior;

std::optional<position_weights>
stream_decoder::carried_prior(const frame_decode_result& r, long long seg) const
{
    // trimmed from both tails while the mass dropped stays <= Pr
    const double Pr = d_dec->config().Pr;
    size_t a = 0, b = r.end_forward.size();
    double dropped = 0;
    while (b - a > 1) {
        // the lighter tail first (the left one on a tie)
        const double left = r.end_forward[a], right = r.end_forward[b - 1];
        const bool take_left = left <= right;
        const double m = take_left ? left : right;
        if (dropped + m > Pr)
            break;
        dropped += m;
        take_left ? ++a : --b;
    }
    position_weights next;
    double sum = 0;
    for (size_t k = a; k < b; ++k) {
        next.positions.push_back(seg + r.end_positions[k]);
        next.weights.push_back(r.end_forward[k]);
        sum += r.end_forward[k];
    }
    if (!(sum > 0))
        return std::nullopt;
    for (double& x : next.weights)
        x /= sum;
    return next;
}

frame_request stream_decoder::carried_request(const position_weights& prior,
                                              long long seg_end,
                                              bool tail_model,
                                              bool acquired) const
{
    const long long s_min = prior.positions.front(), s_max = prior.positions.back();
    frame_request r;
    r.set_items(items_at(s_min));
    r.L = size_t(seg_end - s_min);
    r.start = relative_prior(prior, s_min, std::min(padded_top(s_min, s_max), seg_end));
    r.end = end_mode::free;
    r.lookahead = tail_model ? d_opt.lookahead : 0;
    r.next_frame_follows = tail_model;
    r.events = d_opt.events;
    r.item_posteriors = d_opt.item_posteriors;
    r.substitution_counts = d_opt.events && d_opt.substitution_counts;
    r.random_before = acquired; // a window's starts: the items before them random
    r.gap = tail_model ? d_opt.gap_probability : 0.0;
    return r;
}

std::optional<stream_request> stream_decoder::ahead_request()
{
    d_ahead.reset();
    const frame_decode_result& r = d_edge_wait->result;
    if (!r.result.ok())
        return std::nullopt; // (never taken)
    auto prior = carried_prior(r, d_seg);
    if (!prior)
        return std::nullopt;
    // as next() asks for it once the frame is taken, where the stream holds
    // its whole segment and the next frame's tail, all valid items
    const long long s_min = prior->positions.front(), s_max = prior->positions.back();
    const long long need = segment_end(padded_top(s_min, s_max));
    long long bad = 0;
    if (s_min < d_base || received() < need || invalid_in(s_min, need, &bad))
        return std::nullopt;
    frame_request q = carried_request(*prior, need, true, false);
    d_ahead = ahead_decode{ d_dec.get(), std::move(*prior), need, std::nullopt };
    return stream_request{ d_dec.get(), std::move(q) };
}

std::optional<frame_decode_result>
stream_decoder::decoded_ahead(long long seg_end, bool tail_model, bool acquired)
{
    if (!d_ahead)
        return std::nullopt;
    ahead_decode a = std::move(*d_ahead);
    d_ahead.reset();
    // carried_request reads nothing else but the options and the items at
    // the prior's first position, which never change
    if (!a.result || a.decoder != d_dec.get() || !tail_model || acquired ||
        a.seg_end != seg_end || a.prior.positions != d_prior.positions ||
        a.prior.weights != d_prior.weights)
        return std::nullopt;
    return std::move(a.result);
}

} // namespace bsid
