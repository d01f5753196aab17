/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The stream decoder's candidate alignments compared in full decodes
// (docs/design.md section 3, "Stream decoding": "Fair comparisons" and "The
// stream's model in a search"): a search's start prior, a read of the frame
// from a window around a start, the best of a search's candidates, and a
// start against its shifts by whole code periods. Whether one frame is in
// sync is stream_sync_tests.cc; the state machine is stream_decoder.cc.

#include "framing/stream_alignment.h"
#include "framing/stream_positions.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace bsid {

using detail::padded_top;
using detail::relative_prior;

position_weights stream_decoder::search_prior(long long lo, long long hi) const
{
    // The stream's model: a frame follows the one before it, but for a gap
    // (random items) of probability g after any frame. Where the frame
    // before the one searched for was decoded ok, its end posterior says
    // where this one starts unless a gap lies between (the search then finds
    // the frame after a burst as before, and a frame whose edges the channel
    // hit where the frame before it left off); otherwise nothing is known.
    position_weights p;
    const double g = d_opt.gap_probability;
    const bool follows = !d_follows.positions.empty();
    for (long long x = lo; x < hi; ++x) {
        p.positions.push_back(x);
        p.weights.push_back(follows ? g / double(hi - lo) : 1.0);
    }
    if (follows) {
        for (size_t k = 0; k < d_follows.positions.size(); ++k) {
            const long long x = d_follows.positions[k];
            if (x >= lo && x < hi)
                p.weights[size_t(x - lo)] += (1 - g) * d_follows.weights[k];
        }
    }
    return p;
}

std::optional<frame_request>
stream_decoder::read_request(long long at, read_after after, bool* short_of_items) const
{
    const long long w = d_opt.acquire_window;
    position_weights p;
    for (long long x = std::max({ at - w, d_base, d_search_floor, 0LL }); x <= at + w;
         ++x)
        p.positions.push_back(x), p.weights.push_back(1.0);
    if (p.positions.empty())
        return std::nullopt;
    const long long s_min = p.positions.front();
    const long long top = padded_top(s_min, p.positions.back());
    const long long full_end =
        segment_end(top, after != read_after::lookahead && after != read_after::nothing);
    if (received() < full_end) {
        if (short_of_items)
            *short_of_items = true;
        return std::nullopt;
    }
    long long bad = 0;
    if (invalid_in(s_min, full_end, &bad))
        return std::nullopt;
    frame_request r;
    r.set_items(items_at(s_min));
    r.L = size_t(full_end - s_min);
    r.start = relative_prior(p, s_min, top);
    r.end = end_mode::free;
    r.lookahead = after == read_after::nothing     ? 0
                  : after == read_after::lookahead ? d_opt.lookahead
                                                   : d_dec->N();
    r.next_frame_follows = after != read_after::nothing;
    r.random_before = true;
    r.gap = after == read_after::next_frame_no_gap ? 0.0 : d_opt.gap_probability;
    r.posteriors = false; // (only its likelihood ratio is read)
    return r;
}

using detail::read_llr;

double stream_decoder::llr_at(long long at, read_after after, bool* short_of_items)
{
    const auto r = read_request(at, after, short_of_items);
    return r ? read_llr(d_dec->decode(*r)) : -std::numeric_limits<double>::infinity();
}

long long stream_decoder::pick_candidate(frame_result& why) const
{
    // the best candidate in sync, if every other decoded one (elsewhere than
    // its window) reads at least edge_margin worse
    const std::vector<search_try>& t = d_tries;
    size_t best = t.size();
    for (size_t j = 0; j < t.size(); ++j) {
        if (t[j].in_sync && (best == t.size() || t[j].llr > t[best].llr))
            best = j;
    }
    if (best == t.size()) {
        bool ambiguous = false;
        for (const search_try& x : t)
            ambiguous = ambiguous || x.why.status == frame_status::sync_ambiguous;
        why = { ambiguous ? frame_status::sync_ambiguous : frame_status::sync_lost,
                t.front().why.reason };
        return -1;
    }
    for (size_t j = 0; j < t.size(); ++j) {
        if (j == best || !t[j].decoded ||
            std::llabs(t[j].start - t[best].start) <= 2 * d_opt.acquire_window)
            continue;
        if (t[j].llr >= t[best].llr - alignment_judge::edge_margin) {
            why = { frame_status::sync_ambiguous,
                    detail::concat("the frames read from the sync word at ",
                                   t[best].start,
                                   " and at ",
                                   t[j].start,
                                   " are nearly as likely (log-likelihood ratios ",
                                   detail::fmt_double(t[best].llr),
                                   " and ",
                                   detail::fmt_double(t[j].llr),
                                   ")") };
            return -1;
        }
    }
    return t[best].start;
}

bool stream_decoder::period_shift_reads(long long s,
                                        shift_reads& plan,
                                        frame_result& why) const
{
    // The start found and its shifts by one and two whole periods (which the
    // search's window may not have held), each decoded from a window around
    // it, the items before it random; the best must beat every other by
    // edge_margin in the stream's model: frames follow each other, but for a
    // gap (random items) of probability g = gap_probability after any frame.
    // A shift x scores
    //   S(x) = before(x) + alone(x) + after(x)
    // - alone(x): ln LR of the frame at x, random items before and after;
    // - after(x) = max(next(x) - alone(x), ln g + C_after): next(x) reads
    //   the whole next frame after its end (or, by g, random items), so a
    //   shift that reads the next frame's codewords as its own, or its own
    //   last codewords as the next frame's, loses; or a gap, then the next
    //   frame wherever it lies, C_after = max(0, the most any shift gains from
    //   the next frame after it);
    // - before(x), alike: where the frame before it is known to have ended
    //   (d_follows: a frame decoded ok) ln(1 - g) for a shift that
    //   follows it and ln g for one with a gap before it; otherwise
    //   max(prev(x) - alone(x), ln g + C_before), prev(x) the read of a frame
    //   a frame length earlier with x's frame right after it (no gap).
    // Without the gap's terms, the true frame next to a burst whose edge
    // codewords the channel hit would read as if the frame beyond the burst
    // were random items, and lose to a shift that reads the burst as its
    // codewords and that frame right after them. Where the stream's end
    // cuts a shift's whole next frame, every shift is read with the stream's
    // look-ahead (the next frame's first K symbols) instead; a shift that
    // the end leaves unread even so cannot be ruled out (a search over a
    // segment cut by the end prefers the shift that reads more of the next
    // frame's codewords as its own, and that frame is not the one sent
    // there): the frame is then ambiguous.
    // The reads are decoded together, with those of the other streams of a
    // stream_batch (complete() takes them).
    const long long unit = period_items();
    const long long w = d_opt.acquire_window;
    const double g = d_opt.gap_probability;
    const double inf = std::numeric_limits<double>::infinity();
    const bool follows_known = !d_follows.positions.empty();
    // every shift's reads, each followed as `how` says; false at the first
    // shift whose reads the stream's end leaves short of items (cut at x)
    auto read_shifts = [&](read_after how, long long& cut_at) {
        plan = {};
        plan.start = s;
        auto add = [&](std::optional<frame_request> r, double period_shift::*f) {
            if (!r)
                return;
            plan.reads.push_back(std::move(*r));
            plan.field.push_back(f);
            plan.of.push_back(plan.shifts.size() - 1);
        };
        for (long long j = -2; j <= 2; ++j) {
            const long long x = s + j * unit;
            if (x + w < std::max(d_search_floor, d_base))
                continue; // (its window lies before the items a frame may start in)
            bool short_of_items = false;
            auto next = read_request(x, how, &short_of_items);
            if (short_of_items && d_ended) {
                cut_at = x;
                return false; // (not read: the caller reads again or gives up)
            }
            plan.shifts.push_back({ x, -inf, -inf, -inf, -inf });
            add(std::move(next), &period_shift::next);
            if (g > 0)
                add(read_request(x, read_after::nothing), &period_shift::alone);
            if (!follows_known && g > 0)
                add(read_request(x - d_F, read_after::next_frame_no_gap),
                    &period_shift::prev);
        }
        return true;
    };
    long long cut_at = 0;
    if (read_shifts(read_after::next_frame, cut_at) ||
        read_shifts(read_after::lookahead, cut_at)) // near the end: the look-ahead
        return true;
    plan = {};
    why = { frame_status::sync_ambiguous,
            detail::concat("the stream ends before the frame read from ",
                           s,
                           " can be compared with the one read from ",
                           cut_at,
                           ", whole code periods apart (each with the next "
                           "frame's first symbols after it)") };
    return false;
}

long long stream_decoder::period_items() const
{
    return (long long)d_judge->period() * d_dec->config().cb.n();
}

long long stream_decoder::search_block_start() const
{
    return std::max({ d_hunt - d_F / 2, d_base, d_search_floor });
}

bool stream_decoder::shift_items_held(long long s) const
{
    bool short_of_items = false;
    (void)read_request(s + 2 * period_items(), read_after::next_frame, &short_of_items);
    return !short_of_items || d_ended;
}

int stream_decoder::best_at_edge(const shift_reads& plan,
                                 long long s,
                                 long long unit,
                                 long long lo)
{
    // the shifts read lie at plan.start + j unit, j = -2 .. 2, less those
    // before the items a frame may start in (none can lie beyond those); a
    // comparison moves back no further than the search's block, whose items
    // the stream keeps (trim)
    const long long reach = 2 * unit;
    if (plan.shifts.empty())
        return 0;
    if (s == plan.shifts.back().x && s == plan.start + reach)
        return 1;
    if (s == plan.shifts.front().x && s == plan.start - reach && s - unit >= lo)
        return -1;
    return 0;
}

long long stream_decoder::best_of_period_shifts(
    shift_reads& plan, const std::vector<frame_decode_result>& got, frame_result& why)
{
    const double g = d_opt.gap_probability;
    const double ln_g = g > 0 ? std::log(g) : -std::numeric_limits<double>::infinity();
    const bool follows_known = !d_follows.positions.empty();
    std::vector<period_shift>& c = plan.shifts;
    for (size_t k = 0; k < got.size(); ++k)
        c[plan.of[k]].*plan.field[k] = read_llr(got[k]);
    // (the most any shift gains from its neighbour frames)
    double C_after = 0, C_before = 0;
    for (const period_shift& x : c) {
        if (std::isfinite(x.alone) && std::isfinite(x.next))
            C_after = std::max(C_after, x.next - x.alone);
        if (std::isfinite(x.alone) && std::isfinite(x.prev))
            C_before = std::max(C_before, x.prev - x.alone);
    }
    for (period_shift& x : c) {
        const double after = std::max(x.next, x.alone + ln_g + C_after);
        double before = 0;
        if (follows_known) {
            before = g > 0 ? (follows_previous(x.x) ? std::log1p(-g) : ln_g) : 0.0;
        } else if (g > 0) {
            before = std::max(x.prev - x.alone, ln_g + C_before);
        }
        x.score = before + after;
        log(log_level::debug,
            detail::concat("stream_decoder: frame ",
                           d_k,
                           " read from ",
                           x.x,
                           ": ln LR ",
                           detail::fmt_double(x.alone),
                           " alone, ",
                           detail::fmt_double(x.next),
                           " with the next frame after it, ",
                           follows_known ? "" : detail::fmt_double(x.prev),
                           follows_known ? "" : " with the frame before it, ",
                           "score ",
                           detail::fmt_double(x.score),
                           follows_known ? " (the frame before it decoded ok)" : ""));
    }
    size_t best = 0;
    for (size_t k = 1; k < c.size(); ++k)
        if (c[k].score > c[best].score)
            best = k;
    if (c.empty() || !std::isfinite(c[best].score))
        return plan.start; // (no shift can be decoded)
    for (size_t k = 0; k < c.size(); ++k) {
        if (k != best && c[k].score >= c[best].score - alignment_judge::edge_margin) {
            why = { frame_status::sync_ambiguous,
                    detail::concat("the frames read from ",
                                   c[best].x,
                                   " and from ",
                                   c[k].x,
                                   ", whole code periods apart, are nearly as likely "
                                   "(ln likelihood ratios ",
                                   detail::fmt_double(c[best].score),
                                   " and ",
                                   detail::fmt_double(c[k].score),
                                   " with the frames around each, a gap between "
                                   "frames of probability ",
                                   detail::fmt_double(g),
                                   ")") };
            return -1;
        }
    }
    return c[best].x;
}

} // namespace bsid
