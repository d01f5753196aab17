/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Stream decoding (docs/design.md section 3, "Stream decoding"): frames one
// after another over an unbounded bitstream, each decoded by frame_decoder
// with a free end, its start prior carried over from the previous frame's
// forward end metric. Two modes: synced (a start prior for the next frame)
// and hunting (no prior: frame lengths of bits put out as sync_lost
// erasures until a start tag or a search finds a frame).

#include "framing/search_parts.h"
#include "framing/stream_alignment.h"
#include "framing/stream_positions.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <gnuradio/bsid/core/inner/drift_limits.h>
#include <gnuradio/bsid/core/inner/lattice.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace bsid {

using detail::argmax;
using detail::padded_top;
using detail::relative_prior;

namespace {

constexpr long long max_states = 1 << 20; // frame_decoder's bound on the state space

// the prior checked, sorted and normalized (absolute positions)
position_weights checked_prior(const position_weights& p, const char* what)
{
    if (p.positions.size() != p.weights.size())
        throw std::invalid_argument(detail::concat(what,
                                                   ": ",
                                                   p.positions.size(),
                                                   " positions but ",
                                                   p.weights.size(),
                                                   " weights"));
    if (p.positions.empty())
        throw std::invalid_argument(detail::concat(what, ": no positions"));
    std::vector<size_t> order(p.positions.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return p.positions[a] < p.positions[b];
    });
    position_weights out;
    double sum = 0;
    for (size_t k : order) {
        const long long s = p.positions[k];
        const double w = p.weights[k];
        if (s < 0)
            throw std::invalid_argument(
                detail::concat(what, ": position ", s, " is before the stream's start"));
        if (!std::isfinite(w) || w < 0)
            throw std::invalid_argument(
                detail::concat(what,
                               ": the weight of position ",
                               s,
                               " is ",
                               detail::fmt_double(w),
                               ", not a finite non-negative number"));
        if (!out.positions.empty() && out.positions.back() == s)
            throw std::invalid_argument(
                detail::concat(what, ": position ", s, " is given twice"));
        out.positions.push_back(s);
        out.weights.push_back(w);
        sum += w;
    }
    if (!(sum > 0))
        throw std::invalid_argument(detail::concat(what, ": every weight is 0"));
    if (out.positions.back() - out.positions.front() >= max_states / 2)
        throw std::invalid_argument(
            detail::concat(what,
                           ": spread over ",
                           out.positions.back() - out.positions.front() + 1,
                           " positions; at most ",
                           max_states / 2));
    for (double& w : out.weights)
        w /= sum;
    return out;
}

// requests all decoded by dec
std::vector<stream_request> by(frame_decoder* dec, std::vector<frame_request>&& v)
{
    std::vector<stream_request> out;
    out.reserve(v.size());
    for (auto& r : v)
        out.push_back({ dec, std::move(r) });
    return out;
}

} // namespace

stream_decoder::stream_decoder(std::shared_ptr<frame_decoder> dec, stream_options opt)
    : d_dec(std::move(dec)), d_opt(std::move(opt))
{
    if (!d_dec)
        throw std::invalid_argument("stream_decoder: no frame decoder");
    const decoder_config& cfg = d_dec->config();
    if (d_opt.lookahead == stream_options::auto_lookahead) {
        // the measured choice: with a sync word, K > 0 changes nothing
        d_opt.lookahead = d_dec->sync_word().empty() ? std::min(2, cfg.N) : 0;
    }
    if (d_opt.lookahead < 0 || d_opt.lookahead > cfg.N)
        throw std::invalid_argument(detail::concat("stream_decoder: lookahead K = ",
                                                   d_opt.lookahead,
                                                   " must lie in [0, N = ",
                                                   cfg.N,
                                                   "] (or be auto)"));
    if (d_opt.acquire_window < 0 || d_opt.acquire_window > 65536)
        throw std::invalid_argument(detail::concat("stream_decoder: acquire_window = ",
                                                   d_opt.acquire_window,
                                                   " bits must lie in [0, 65536]"));
    if (!(d_opt.gap_probability >= 0 && d_opt.gap_probability < 1))
        throw std::invalid_argument(
            detail::concat("stream_decoder: gap_probability = ",
                           detail::fmt_double(d_opt.gap_probability),
                           " must lie in [0, 1)"));
    if (std::isnan(d_opt.sync_threshold) ||
        d_opt.sync_threshold == std::numeric_limits<double>::infinity())
        throw std::invalid_argument(
            "stream_decoder: sync_threshold must be a number below +infinity");
    d_alphabet = cfg.ch.alphabet();
    if (d_opt.input == input_kind::llr && d_alphabet != 2)
        throw std::invalid_argument(detail::concat(
            "stream_decoder: LLR items are soft bits; the channel's alphabet has ",
            d_alphabet,
            " letters (give A log-probabilities per item: input logprob)"));
    if (d_opt.input == input_kind::logprob && d_alphabet == 2)
        throw std::invalid_argument("stream_decoder: log-probability items are for "
                                    "alphabets of more than 2 letters; over bits give "
                                    "LLRs, lp(1) - lp(0) (input llr)");
    d_G = (long long)d_dec->sync_word().size();
    d_F = d_G + d_dec->tau();
    d_watch.emplace("stream_decoder", d_F, cfg.N, cfg.cb.n(), cfg.ch);
    d_offset = d_opt.tag_offset ? *d_opt.tag_offset : -d_G;
    if (std::llabs(d_offset) > (1LL << 40))
        throw std::invalid_argument("stream_decoder: tag_offset is out of range");
    if (!std::isnan(d_opt.sync_word_threshold) &&
        d_opt.sync_word_threshold == std::numeric_limits<double>::infinity())
        throw std::invalid_argument(
            "stream_decoder: sync_word_threshold must be a number below +infinity (or "
            "NaN: automatic)");
    derive();
    if (d_judge->shifts_indistinguishable()) {
        warn(detail::concat(
            "stream_decoder: the code's books repeat every ",
            d_judge->period(),
            " codewords and that period divides N = ",
            cfg.N,
            ", and there is no sync word: a frame shifted by whole periods reads as well "
            "as the true one, so a frame found by search is never ok (sync_ambiguous); "
            "give a sync word, start tags, or a codebook that does not repeat within the "
            "frame"));
    }
    if (d_opt.input == input_kind::bits && cfg.ch.substitution().empty() &&
        cfg.ch.Ps() == double(d_alphabet - 1) / d_alphabet) {
        warn(
            d_alphabet == 2
                ? std::string("stream_decoder: Ps = 1/2 makes every received bit random: "
                              "no frame can be told from noise, and none will be in sync")
                : detail::concat("stream_decoder: Ps = ",
                                 d_alphabet - 1,
                                 "/",
                                 d_alphabet,
                                 " makes every received letter random: no frame can be "
                                 "told from noise, and none will be in sync"));
    }
    if (d_opt.first_start) {
        d_prior = checked_prior(*d_opt.first_start, "stream_decoder: first_start");
        d_mode = mode::synced;
        d_anchor = d_prior.positions[argmax(d_prior.weights)];
    } else {
        d_mode = mode::hunting;
    }
}

void stream_decoder::derive()
{
    const decoder_config& cfg = d_dec->config();
    d_hi = d_dec->limits().mtau.hi;
    const long long T = d_G + (long long)d_opt.lookahead * cfg.cb.n();
    d_tail = T + (T > 0 ? drift_limits(T, cfg.ch.Pi(), cfg.ch.Pd(), cfg.Pr).hi : 0);
    // a search weighs the whole next frame after each candidate's end, so
    // that every candidate explains the same span of bits: one that reads
    // the next frame's codewords as its own is not rewarded for them
    d_search_tail = d_F + drift_limits(d_F, cfg.ch.Pi(), cfg.ch.Pd(), cfg.Pr).hi;
    d_sync_hi = d_G > 0 ? drift_limits(d_G, cfg.ch.Pi(), cfg.ch.Pd(), cfg.Pr).hi : 0;
    d_judge = shared_alignment_judge(d_dec, d_opt.sync_word_threshold, d_opt.input);
    d_odd = drift_limits(d_F, cfg.ch.Pi(), cfg.ch.Pd(), odd_length_probability);
    d_calibrated = false; // (the channel may have changed)
    d_watch->set_channel(cfg.ch);
}

double stream_decoder::sync_word_threshold() const
{
    return d_judge->sync_word_threshold();
}

void stream_decoder::warn(const std::string& what) { d_watch->warn(what); }

void stream_decoder::set_decoder(std::shared_ptr<frame_decoder> dec)
{
    if (d_pending != pending_kind::none)
        throw std::logic_error("stream_decoder: set_decoder with a request pending");
    if (!dec)
        throw std::invalid_argument("stream_decoder: no frame decoder");
    if (!(dec->config().cb == d_dec->config().cb) || dec->N() != d_dec->N() ||
        dec->sync_word() != d_dec->sync_word())
        throw std::invalid_argument(
            "stream_decoder: the new decoder's code, N or sync word differ");
    d_dec = std::move(dec);
    d_ahead.reset(); // (the old decoder's)
    derive();
}

long long stream_decoder::segment_end(long long s_max, bool search) const
{
    return s_max + d_F + d_hi + (search ? d_search_tail : d_tail);
}

void stream_decoder::check_chunk(input_kind kind,
                                 bool present,
                                 size_t count,
                                 const std::vector<size_t>& start_tags) const
{
    if (d_ended)
        throw std::invalid_argument(
            "stream_decoder: bits pushed after the end of the stream (flush)");
    if (kind != d_opt.input) {
        throw std::invalid_argument("stream_decoder: " + to_string(kind) +
                                    " pushed to a stream of " + to_string(d_opt.input) +
                                    " (stream_options::input)");
    }
    if (count > 0 && !present)
        throw std::invalid_argument("stream_decoder: no bits for a chunk of count > 0");
    for (size_t t : start_tags) {
        if (t >= count)
            throw std::invalid_argument(detail::concat("stream_decoder: a start tag at ",
                                                       t,
                                                       " lies outside the chunk of ",
                                                       count,
                                                       " bits"));
    }
}

void stream_decoder::add_tags(long long pos0, const std::vector<size_t>& start_tags)
{
    std::vector<size_t> tags = start_tags;
    std::sort(tags.begin(), tags.end());
    for (size_t t : tags) {
        const long long s = pos0 + (long long)t + d_offset;
        if (!d_tags.empty() && d_tags.back() >= s)
            continue; // the same start twice
        d_tags.push_back(s);
    }
}

void stream_decoder::feed(const uint8_t* bits,
                          size_t count,
                          const std::vector<size_t>& start_tags)
{
    check_chunk(input_kind::bits, bits != nullptr, count, start_tags);
    const long long pos0 = received();
    const size_t at = d_buf.size();
    d_buf.insert(d_buf.end(), bits, bits + count); // (amortized growth, 1-bit chunks too)
    for (size_t j = 0; j < count; ++j) {
        if (int(d_buf[at + j]) >= d_alphabet) {
            d_invalid.push_back(pos0 + (long long)j); // the frame it falls in: an erasure
            d_buf[at + j] = 0;
        }
    }
    add_tags(pos0, start_tags);
}

void stream_decoder::feed(const double* soft,
                          size_t count,
                          const std::vector<size_t>& start_tags)
{
    const bool lp = d_opt.input == input_kind::logprob;
    check_chunk(
        lp ? input_kind::logprob : input_kind::llr, soft != nullptr, count, start_tags);
    const long long pos0 = received();
    const size_t w = item_width(), at = d_llr.size();
    d_llr.insert(d_llr.end(), soft, soft + w * count);
    std::string what;
    for (size_t j = 0; j < count; ++j) {
        double* item = d_llr.data() + at + w * j;
        const bool bad =
            lp ? find_invalid_logprob(item, 1, d_alphabet, what) == 0 : std::isnan(*item);
        if (bad) {
            d_invalid.push_back(pos0 + (long long)j); // the frame it falls in: an erasure
            std::fill(item, item + w, 0.0);
        }
    }
    add_tags(pos0, start_tags);
}

received_items stream_decoder::items_at(long long pos) const
{
    const size_t k = size_t(pos - d_base);
    if (d_opt.input == input_kind::llr)
        return { nullptr, d_llr.data() + k };
    if (d_opt.input == input_kind::logprob)
        return { nullptr, nullptr, d_alphabet, d_llr.data() + item_width() * k };
    return { d_buf.data() + k, nullptr, d_alphabet };
}

std::string stream_decoder::invalid_item_at(long long pos) const
{
    switch (d_opt.input) {
    case input_kind::llr:
        return detail::concat("the LLR at stream position ", pos, " is NaN");
    case input_kind::logprob:
        return detail::concat("the item at stream position ",
                              pos,
                              " holds a NaN or +inf log-probability, or only -inf");
    default:
        return d_alphabet == 2 ? detail::concat("the byte at stream position ",
                                                pos,
                                                " is not a bit (0 or 1)")
                               : detail::concat("the byte at stream position ",
                                                pos,
                                                " is not a letter (0 to ",
                                                d_alphabet - 1,
                                                ")");
    }
}

bool stream_decoder::invalid_in(long long from, long long to, long long* where) const
{
    for (long long x : d_invalid) {
        if (x >= from && x < to) {
            *where = x;
            return true;
        }
    }
    return false;
}

std::vector<stream_request> stream_decoder::next(std::vector<stream_frame>& out)
{
    if (d_pending != pending_kind::none)
        throw std::logic_error("stream_decoder: the pending request is not complete");
    const long long w = d_opt.acquire_window;
    while (!d_finished) {
        if (d_edge_wait) {
            // a frame's edge tests, a step of their own
            auto reads = edge_step();
            if (reads.empty()) {
                edges_read({}, out); // (nothing to read: judged at once)
                continue;
            }
            d_pending = pending_kind::edges;
            return reads;
        }
        if (d_held) {
            // a carried frame held: its start's shifts by whole periods read
            // (complete() settles it), or it is settled at once
            std::vector<frame_request> reads;
            if (!held_shift_reads(reads, out))
                return {}; // (the stream does not hold their items yet)
            if (reads.empty())
                continue;
            d_pending = pending_kind::shifts;
            return by(d_dec.get(), std::move(reads));
        }
        if (d_shift_at) {
            // a search's start found: its shifts by whole periods read
            // (complete() compares them), or compared at once where none
            // can be read
            // (once the stream holds the items of the latest shift's read,
            // as for a held frame: a shift read short would count as one
            // followed by a gap, however the stream is chunked)
            const long long s = *d_shift_at;
            if (!shift_items_held(s))
                return {};
            d_shift_at.reset();
            frame_result lost; // (period_shift_reads makes d_shift_plan anew)
            if (!period_shift_reads(s, d_shift_plan, lost)) {
                found(-1, lost, out);
                continue;
            }
            if (d_shift_plan.reads.empty()) {
                found(best_of_period_shifts(d_shift_plan, {}, lost), lost, out);
                continue;
            }
            d_pending = pending_kind::shifts;
            return by(d_dec.get(), std::move(d_shift_plan.reads));
        }
        const long long have = received();
        if (d_mode == mode::synced) {
            if (override_by_tag(out))
                continue; // a wrong alignment given up for a tag's (before this frame)
            process_tags_synced();
            const long long s_min = d_prior.positions.front(),
                            s_max = d_prior.positions.back();
            const long long need = segment_end(padded_top(s_min, s_max));
            if (have < need && !d_ended)
                return {};
            if (override_by_tag(out))
                continue; // a wrong alignment given up for a tag's (inside this frame)
            const bool at_end = have < need;
            if (at_end &&
                have - d_prior.positions[argmax(d_prior.weights)] <= d_G + d_hi) {
                // the stream ended where this frame starts: no more than its
                // sync word and the drift a frame allows arrived after its
                // most probable start (its latest start may lie past the
                // stream's end), so no frame: a few bits of drift at the end
                // never add one
                d_finished = true;
                return {};
            }
            long long seg_end = std::min(need, have);
            bool tail_model = have >= need; // the next frame's W and K symbols follow
            long long bad = 0;
            if (invalid_in(s_min, s_max + d_F + d_hi, &bad)) {
                lose_sync({ frame_status::invalid_input, invalid_item_at(bad) }, out);
                trim();
                continue;
            }
            if (invalid_in(s_min, seg_end, &bad)) {
                // after the frame's latest end: the segment stops before it
                seg_end = bad;
                tail_model = false;
            }
            d_part_mass.assign(1, 1.0);
            d_seg = s_min;
            d_seg_end = seg_end;
            d_req_cut = have < s_max + d_F + d_hi; // the frame itself may be cut
            d_req_tail = tail_model;
            if (auto got = decoded_ahead(seg_end, tail_model, d_acquired)) {
                // decoded beside the edge tests of the frame before it
                settle(std::move(*got), pending_kind::synced, nullptr, out);
                continue;
            }
            d_pending = pending_kind::synced;
            std::vector<frame_request> one;
            one.push_back(carried_request(d_prior, seg_end, tail_model, d_acquired));
            return by(d_dec.get(), std::move(one));
        }

        // hunting: a start tag after the lost frame's start acquires, if it
        // lies in this frame length of bits (the nearer half) or nothing
        // searches; a block before it is searched first (a frame whose sync
        // word the correlator missed is then not lost)
        // stale: before the lost frame, or nearer a frame length already put
        // out than this one (acquiring there would shift every later index)
        while (!d_tags.empty() &&
               (d_tags.front() < d_floor || d_tags.front() + w < d_base ||
                2 * (d_hunt - d_tags.front()) > d_F))
            d_tags.pop_front();
        if (!d_tags.empty() && (!d_opt.search || 2 * (d_tags.front() - d_hunt) < d_F)) {
            const long long t = d_tags.front();
            d_tags.pop_front();
            acquire(t, out);
            continue;
        }
        const long long block_end = d_hunt + d_F;
        // search: candidate starts in [d_hunt - F/2, d_hunt + F/2) (the
        // frame lengths' windows tile the stream: a frame is searched for in
        // the block it is nearest to, and the next frame's sync word is not a
        // candidate), none before the last decoded frame's end; the request's
        // prior is a window of +-w around a sync word position (with one) or
        // the whole range (without), so its padded top is at most `top_bound`
        const long long lo = search_block_start();
        const long long hi_end = d_hunt + (d_F + 1) / 2;
        const long long top_bound = d_G > 0
                                        ? hi_end + w + padded_top(0, 2 * w)
                                        : lo + padded_top(0, std::max(0LL, hi_end - lo));
        const long long need =
            d_opt.search ? segment_end(top_bound, true)
                         : block_end + w + std::max<long long>(0, -d_offset) + 1;
        if (have < need && !d_ended)
            return {};
        if (have < need && have - d_hunt < d_F) {
            // the stream ends inside this frame length of bits: a frame if at
            // least half of one is left (frame lengths to the nearest, as
            // erase_until counts them)
            d_finished = true;
            if (2 * (have - d_hunt) >= d_F)
                erase(frame_status::truncated,
                      detail::concat("the stream ends ",
                                     have - d_hunt,
                                     " bits into a frame length, unsynchronized"),
                      out);
            return {};
        }
        long long bad = 0;
        if (!d_opt.search || invalid_in(d_hunt, block_end, &bad)) {
            lose_block(!d_opt.search
                           ? detail::concat("no start tag for the bits from position ",
                                            d_hunt,
                                            " to ",
                                            block_end)
                           : invalid_item_at(bad),
                       out);
            continue;
        }
        const long long hi = std::min(hi_end, have);
        position_weights cand;
        if (d_G > 0) {
            // the sync word's best positions, tried in turn (a chance fit
            // inside the data may beat a damaged true sync word)
            if (d_cands.empty())
                d_cands = search_sync_word(lo, hi, 3);
            if (d_cands.empty()) {
                lose_block(
                    detail::concat(
                        "no sync word fits in the bits from position ", lo, " to ", hi),
                    out);
                continue;
            }
            const long long s = d_cands.front();
            for (long long x = std::max(s - w, d_base); x <= std::min(s + w, have); ++x)
                cand.positions.push_back(x), cand.weights.push_back(1.0);
        } else {
            cand = search_prior(lo, hi);
        }
        if (cand.positions.empty()) {
            lose_block(detail::concat("no frame found in the bits from position ",
                                      d_hunt,
                                      " to ",
                                      block_end),
                       out);
            continue;
        }
        const long long s_min = cand.positions.front();
        const long long top = padded_top(s_min, cand.positions.back());
        const long long full_end = segment_end(top, true);
        const long long seg_end = std::min(full_end, have);
        if (invalid_in(s_min, seg_end, &bad)) {
            lose_block(invalid_item_at(bad), out);
            continue;
        }
        double sum = 0;
        for (double x : cand.weights)
            sum += x;
        for (double& x : cand.weights)
            x /= sum;
        frame_request r;
        r.set_items(items_at(s_min));
        r.L = size_t(seg_end - s_min);
        r.start = relative_prior(cand, s_min, std::min(top, seg_end));
        r.end = end_mode::free;
        r.lookahead = seg_end < full_end ? 0 : d_dec->N();
        r.next_frame_follows = seg_end == full_end;
        // a search's frame is never put out (the frame found is decoded
        // again from a window around its start, complete()): its symbol
        // posteriors and events are not asked for, which over a window of a
        // frame length of starts are most of its cost
        r.posteriors = false;
        r.random_before = true; // starts compared on the same bits
        r.gap = r.next_frame_follows ? d_opt.gap_probability : 0.0;
        // on the GPU, the window in parts of search_part_starts starts
        // (search_parts.h: the same results, merged in complete())
        std::vector<frame_request> parts;
        if (d_opt.search_in_parts.value_or(d_dec->primary().wide_frames_in_parts())) {
            auto cut = detail::cut_search(r, size_t(search_part_starts));
            parts = std::move(cut.requests);
            d_part_mass = std::move(cut.mass);
        } else {
            parts.push_back(std::move(r));
            d_part_mass.assign(1, 1.0);
        }
        d_req_cut = false; // a failed search is a frame length of sync_lost
        d_req_tail = seg_end == full_end;
        d_pending = pending_kind::search;
        d_seg = s_min;
        d_seg_end = seg_end;
        return by(d_dec.get(), std::move(parts));
    }
    return {};
}

// a decoded frame put out; the next frame's start prior from its forward end metric
void stream_decoder::take(frame_decode_result& r,
                          bool acquired,
                          std::vector<stream_frame>& out)
{
    stream_frame f;
    f.index = d_k;
    f.result = r.result;
    f.posteriors = std::move(r.posteriors);
    f.nominal_start = nominal(d_k);
    f.nominal_end = f.nominal_start + d_F;
    const size_t bs = argmax(r.start.weights), be = argmax(r.end_posterior);
    f.start = d_seg + r.start.positions[bs];
    f.start_probability = r.start.weights[bs];
    f.end = d_seg + r.end_positions[be];
    f.end_probability = r.end_posterior[be];
    d_search_floor =
        f.end - d_opt.acquire_window; // no later frame starts inside this one
    if (d_req_tail) // (a frame at the stream's end lacks the next sync word's weight)
        d_recent.push_back(r.log_likelihood_ratio);
    if (d_recent.size() > recent_max)
        d_recent.pop_front();
    f.log_likelihood_ratio = r.log_likelihood_ratio;
    f.acquired = acquired;
    // does the setup fit the frames? (the distance from the last frame in
    // sync's start, per frame, if it is at most watch_gap frames back; the
    // likelihood against the channel's prediction)
    if (d_last_ok_start >= 0 && d_k - d_last_ok_k <= watch_gap)
        d_watch->add_length_drift(
            double(f.start - d_last_ok_start) / double(d_k - d_last_ok_k) - double(d_F));
    d_last_ok_k = d_k;
    d_last_ok_start = f.start;
    if (d_req_tail && d_calibrated)
        d_watch->add_likelihood(r.log_likelihood_ratio, d_expected_mean, d_expected_sd);
    f.segment_begin = d_seg;
    f.segment_end = d_seg_end;
    f.events = r.events;
    f.item_posteriors = std::move(r.item_posteriors);
    f.substitution_counts = std::move(r.substitution_counts);
    out.push_back(std::move(f));
    ++d_k;

    auto next = carried_prior(r, d_seg);
    if (!next) { // (an ok frame always has a forward end metric)
        lose_sync({ frame_status::sync_lost, "the frame has no forward end metric" },
                  out);
        return;
    }
    d_prior = std::move(*next);
    d_mode = mode::synced;
    d_acquired = false;
    d_by_search = false;
    d_acquired_follows = false;
}

void stream_decoder::trim()
{
    // hunting keeps what the search of the block at d_hunt reads (from half
    // a frame length before it) and the tags' floor; without a sync word,
    // with shifts by whole periods told apart, also the frame length before
    // the search's earliest shift (best_of_period_shifts reads the frame
    // that may end where each shift begins)
    const long long before =
        d_G == 0 && d_judge->edges_checked()
            ? d_F / 2 + d_F + 2 * period_items() + 2 * d_opt.acquire_window
            : d_F / 2;
    long long keep = d_mode == mode::synced
                         ? d_prior.positions.front()
                         : std::min({ std::max(d_hunt - before, d_search_floor),
                                      d_hunt - d_opt.acquire_window,
                                      d_floor - d_opt.acquire_window });
    keep = std::min(keep, received());
    // dropped once at least half the buffer is behind `keep`: each bit is
    // moved O(1) times, however the stream is chunked, and at most twice the
    // bits still needed are held
    if (keep > d_base && 2 * (keep - d_base) >= (long long)buffered()) {
        if (d_opt.input != input_kind::bits)
            d_llr.erase(d_llr.begin(),
                        d_llr.begin() + long(item_width()) * (keep - d_base));
        else
            d_buf.erase(d_buf.begin(), d_buf.begin() + (keep - d_base));
        d_base = keep;
    }
    while (!d_invalid.empty() && d_invalid.front() < d_base)
        d_invalid.pop_front();
}

template <typename Item>
std::vector<stream_frame> stream_decoder::push_items(
    const Item* items, size_t count, const std::vector<size_t>& start_tags)
{
    feed(items, count, start_tags);
    std::vector<stream_frame> out;
    for (auto r = next(out); !r.empty(); r = next(out))
        complete(decode_stream_requests(r), out);
    return out;
}

std::vector<stream_frame> stream_decoder::push(const uint8_t* bits,
                                               size_t count,
                                               const std::vector<size_t>& start_tags)
{
    return push_items(bits, count, start_tags);
}

std::vector<stream_frame> stream_decoder::push(const double* llr,
                                               size_t count,
                                               const std::vector<size_t>& start_tags)
{
    return push_items(llr, count, start_tags);
}

std::vector<stream_frame> stream_decoder::flush()
{
    end_of_stream();
    std::vector<stream_frame> out;
    for (auto r = next(out); !r.empty(); r = next(out))
        complete(decode_stream_requests(r), out);
    return out;
}

} // namespace bsid
