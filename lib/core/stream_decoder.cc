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

#include "format.h"
#include <gnuradio/bsid/core/drift_limits.h>
#include <gnuradio/bsid/core/lattice.h>
#include <gnuradio/bsid/core/log.h>
#include <gnuradio/bsid/core/stream_decoder.h>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace bsid {

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

/*
 * The last position of a start prior's range, padded with weight 0: the
 * spread s_max - s_min rounded up to 2^k - 1 (k >= 2), so that the frame
 * decoder sees few distinct state spaces (one backend each, and one batch
 * each on a GPU).
 */
long long padded_top(long long s_min, long long s_max)
{
    long long S = 3;
    while (S < s_max - s_min)
        S = 2 * S + 1;
    return s_min + S;
}

// the request's start prior: `p` relative to s_min, with a weight-0 position at top
position_weights relative_prior(const position_weights& p, long long s_min, long long top)
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
size_t argmax(const std::vector<double>& v)
{
    return size_t(std::max_element(v.begin(), v.end()) - v.begin());
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
    if (std::isnan(d_opt.sync_threshold) ||
        d_opt.sync_threshold == std::numeric_limits<double>::infinity())
        throw std::invalid_argument(
            "stream_decoder: sync_threshold must be a number below +infinity");
    d_G = (long long)d_dec->sync_word().size();
    d_F = d_G + d_dec->tau();
    d_offset = d_opt.tag_offset ? *d_opt.tag_offset : -d_G;
    if (std::llabs(d_offset) > (1LL << 40))
        throw std::invalid_argument("stream_decoder: tag_offset is out of range");
    derive();
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
    d_sync_hi = d_G > 0 ? drift_limits(d_G, cfg.ch.Pi(), cfg.ch.Pd(), cfg.Pr).hi : 0;
}

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
    derive();
}

long long stream_decoder::segment_end(long long s_max) const
{
    return s_max + d_F + d_hi + d_tail;
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
        if (d_buf[at + j] > 1) {
            d_invalid.push_back(pos0 + (long long)j); // the frame it falls in: an erasure
            d_buf[at + j] = 0;
        }
    }
    add_tags(pos0, start_tags);
}

void stream_decoder::feed(const double* llr,
                          size_t count,
                          const std::vector<size_t>& start_tags)
{
    check_chunk(input_kind::llr, llr != nullptr, count, start_tags);
    const long long pos0 = received();
    const size_t at = d_llr.size();
    d_llr.insert(d_llr.end(), llr, llr + count);
    for (size_t j = 0; j < count; ++j) {
        if (std::isnan(d_llr[at + j])) {
            d_invalid.push_back(pos0 + (long long)j); // the frame it falls in: an erasure
            d_llr[at + j] = 0.0;
        }
    }
    add_tags(pos0, start_tags);
}

received_items stream_decoder::items_at(long long pos) const
{
    const size_t k = size_t(pos - d_base);
    if (d_opt.input == input_kind::llr)
        return { nullptr, d_llr.data() + k };
    return { d_buf.data() + k, nullptr };
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

void stream_decoder::erase(frame_status status,
                           const std::string& reason,
                           std::vector<stream_frame>& out)
{
    stream_frame f;
    f.index = d_k;
    f.result = { status, reason };
    const decoder_config& cfg = d_dec->config();
    f.posteriors.assign(size_t(cfg.N) * size_t(cfg.cb.q()), 1.0 / cfg.cb.q());
    f.nominal_start = nominal(d_k);
    f.nominal_end = f.nominal_start + d_F;
    out.push_back(std::move(f));
    ++d_k;
}

// hunting: one sync_lost erasure per frame length of bits before position `at`
void stream_decoder::erase_until(long long at, std::vector<stream_frame>& out)
{
    if (at <= d_hunt)
        return;
    const long long count = (at - d_hunt + d_F / 2) / d_F; // to the nearest frame length
    for (long long j = 0; j < count; ++j) {
        erase(frame_status::sync_lost,
              detail::concat("unsynchronized: no frame found in the bits from position ",
                             d_hunt,
                             " to ",
                             d_hunt + d_F),
              out);
        advance_hunt();
    }
}

// hunting: the frame length of bits at d_hunt is a sync_lost erasure
void stream_decoder::lose_block(const std::string& why, std::vector<stream_frame>& out)
{
    erase(frame_status::sync_lost, "unsynchronized: " + why, out);
    advance_hunt();
    trim();
}

void stream_decoder::advance_hunt()
{
    d_hunt += d_F;
    // a tag before the new block would have acquired already
    d_floor = std::max(d_floor, d_hunt - d_opt.acquire_window);
}

// hunting -> synced: a uniform start prior over [at - w, at + w]
void stream_decoder::acquire(long long at, std::vector<stream_frame>& out)
{
    erase_until(at, out);
    d_acquire_block = d_hunt; // the frame length of bits this frame is put out for
    const long long w = d_opt.acquire_window;
    d_prior = {};
    for (long long s = std::max({ at - w, d_base, 0LL }); s <= at + w; ++s) {
        d_prior.positions.push_back(s);
        d_prior.weights.push_back(1.0);
    }
    for (double& x : d_prior.weights)
        x /= double(d_prior.weights.size());
    d_mode = mode::synced;
    d_anchor = at;
    d_anchor_k = d_k;
    d_acquired = true;
    log(log_level::info,
        detail::concat("stream_decoder: acquiring frame ", d_k, " at position ", at));
}

// synced -> hunting: the next frame is put out as a sync_lost erasure (or
// the status of `why`), and hunting begins a frame length after its most
// probable start
void stream_decoder::lose_sync(const frame_result& why, std::vector<stream_frame>& out)
{
    const long long s = d_prior.positions[argmax(d_prior.weights)];
    const bool acquired = d_acquired;
    log(log_level::info,
        detail::concat("stream_decoder: frame ",
                       d_k,
                       ": ",
                       to_string(why.status),
                       ": ",
                       why.reason));
    erase(why.status, why.reason, out);
    d_mode = mode::hunting;
    // a frame followed in sync: hunting goes on a frame length after where it
    // started; an acquisition that failed (a false alarm of the correlator):
    // a frame length after the bits it was put out for, so that the frames
    // keep their indices whatever position the false alarm had
    d_hunt = acquired ? std::max(d_acquire_block, s - d_F / 2) + d_F : s + d_F;
    d_floor = s + d_opt.acquire_window + 1; // a tag at the lost frame's start: not again
    d_anchor = d_hunt;
    d_anchor_k = d_k;
    d_acquired = false;
}

void stream_decoder::process_tags_synced()
{
    const long long w = d_opt.acquire_window;
    const long long s_min = d_prior.positions.front(), s_max = d_prior.positions.back();
    while (!d_tags.empty() && d_tags.front() < s_min - w) {
        // inside a frame decoded in sync: the evidence outweighs it
        log(log_level::debug,
            detail::concat("stream_decoder: a start tag for position ",
                           d_tags.front(),
                           " lies inside a frame decoded in sync; ignored"));
        d_tags.pop_front();
    }
    while (!d_tags.empty() && d_tags.front() <= s_max + w) {
        // where the frame is expected: it anchors the nominal positions, the
        // carried prior (sharper than a window) stays
        d_anchor = d_tags.front();
        d_anchor_k = d_k;
        d_tags.pop_front();
    }
}

double stream_decoder::sync_word_ratio(long long s, const double* prob) const
{
    // sum_c R(rx[s:s+c] | W) 2^c over the ends the drift limits allow
    const std::vector<uint8_t>& W = d_dec->sync_word();
    const long long ny = std::min(received() - s, d_G + d_sync_hi);
    if (ny < 0)
        return -1;
    const auto& ch = d_dec->config().ch;
    const auto row =
        prob ? full_lattice_last_row_probs(ch, W.data(), W.size(), prob, size_t(ny))
             : full_lattice_last_row(ch, W.data(), W.size(), items_at(s), size_t(ny));
    double v = 0;
    for (size_t c = 0; c < row.size(); ++c)
        v += std::ldexp(row[c], int(c));
    return v;
}

long long stream_decoder::search_sync_word(long long from, long long to) const
{
    // the sync word's likelihood ratio against random bits at each start s;
    // soft items' probabilities computed once for all the starts' lattices
    std::vector<double> prob;
    const long long end = std::min(received(), to + d_G + d_sync_hi);
    if (d_opt.input == input_kind::llr && end > from) {
        prob.resize(2 * size_t(end - from));
        item_probabilities(items_at(from), size_t(end - from), prob.data());
    }
    long long best = from;
    double best_v = -1;
    for (long long s = from; s < to; ++s) {
        const double v =
            sync_word_ratio(s, prob.empty() ? nullptr : prob.data() + 2 * (s - from));
        if (v < 0)
            break;
        if (v > best_v)
            best_v = v, best = s;
    }
    return best;
}

bool stream_decoder::override_by_tag(std::vector<stream_frame>& out)
{
    if (d_G == 0 || d_tags.empty())
        return false;
    const long long w = d_opt.acquire_window;
    const long long s_min = d_prior.positions.front(), s_max = d_prior.positions.back();
    // the tags that put this frame elsewhere than its carried start: up to half
    // a frame before it (the decoder runs late), or inside it (early)
    auto elsewhere = [&](long long t) {
        return (t >= s_min - d_F / 2 && t < s_min - w && t >= d_base) ||
               (t > s_max + w && t < s_min + d_F - w);
    };
    auto it = std::find_if(d_tags.begin(), d_tags.end(), [&](long long t) {
        return elsewhere(t) && t + d_G + d_sync_hi <= received();
    });
    if (it == d_tags.end())
        return false; // none, or its sync word not all here yet
    const long long t = *it;
    // the sync word's best fit over the carried start prior (an acquisition's
    // prior is flat over its window: its argmax says nothing)
    const double top = d_prior.weights[argmax(d_prior.weights)];
    long long cur = d_prior.positions[argmax(d_prior.weights)];
    double at_cur = 0;
    for (size_t j = 0; j < d_prior.positions.size(); ++j) {
        if (d_prior.weights[j] < 1e-3 * top)
            continue;
        const double v = sync_word_ratio(d_prior.positions[j]);
        if (v > at_cur)
            at_cur = v, cur = d_prior.positions[j];
    }
    const double at_tag = sync_word_ratio(t);
    // the sync word fits at the tag nearly as well as it can (a ratio of at
    // least 2^(3G/4) of the 2^G of a perfect fit: a correlator's false alarm
    // with a wrong bit does not), and by half its own evidence (2^(G/2))
    // better than anywhere the frame is carried (where a correct frame's
    // sync word fits, unless the channel damaged it)
    if (!(at_tag >= std::ldexp(1.0, int(3 * d_G / 4)) &&
          at_tag > at_cur * std::ldexp(1.0, int(d_G / 2))))
        return false;
    log(log_level::info,
        detail::concat("stream_decoder: frame ",
                       d_k,
                       ": the sync word fits at the start tag for position ",
                       t,
                       " far better than at the carried start ",
                       cur,
                       " (likelihood ratios ",
                       detail::fmt_double(at_tag),
                       " and ",
                       detail::fmt_double(at_cur),
                       "); re-acquiring there"));
    d_tags.erase(d_tags.begin(), it + 1);
    d_hunt = cur; // frame d_k's start: the tag's frame is this one, or the next one
    acquire(t, out);
    return true;
}

std::optional<frame_request> stream_decoder::next(std::vector<stream_frame>& out)
{
    if (d_pending != pending_kind::none)
        throw std::logic_error("stream_decoder: the pending request is not complete");
    const long long w = d_opt.acquire_window;
    while (!d_finished) {
        const long long have = received();
        if (d_mode == mode::synced) {
            if (override_by_tag(out))
                continue; // a wrong alignment given up for a tag's (before this frame)
            process_tags_synced();
            const long long s_min = d_prior.positions.front(),
                            s_max = d_prior.positions.back();
            const long long need = segment_end(padded_top(s_min, s_max));
            if (have < need && !d_ended)
                return std::nullopt;
            if (override_by_tag(out))
                continue; // a wrong alignment given up for a tag's (inside this frame)
            const bool at_end = have < need;
            if (at_end && have - s_max <= d_G) {
                // the stream ended where this frame starts: no more than a
                // sync word of it arrived (after its latest start), so no frame
                d_finished = true;
                return std::nullopt;
            }
            long long seg_end = std::min(need, have);
            bool tail_model = have >= need; // the next frame's W and K symbols follow
            long long bad = 0;
            if (invalid_in(s_min, s_max + d_F + d_hi, &bad)) {
                lose_sync({ frame_status::invalid_input,
                            detail::concat("the byte at stream position ",
                                           bad,
                                           " is not a bit (0 or 1)") },
                          out);
                trim();
                continue;
            }
            if (invalid_in(s_min, seg_end, &bad)) {
                // after the frame's latest end: the segment stops before it
                seg_end = bad;
                tail_model = false;
            }
            frame_request r;
            {
                const received_items y = items_at(s_min);
                r.bits = y.bits;
                r.llr = y.llr;
            }
            r.L = size_t(seg_end - s_min);
            d_req_start = relative_prior(
                d_prior, s_min, std::min(padded_top(s_min, s_max), seg_end));
            r.start = d_req_start;
            r.end = end_mode::free;
            r.lookahead = tail_model ? d_opt.lookahead : 0;
            r.next_frame_follows = tail_model;
            r.events = d_opt.events;
            d_pending = pending_kind::synced;
            d_seg = s_min;
            d_seg_end = seg_end;
            d_req_cut = have < s_max + d_F + d_hi; // the frame itself may be cut
            return r;
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
        // a tag for a start inside the block arrives with the bit at start - offset
        // search: candidate starts in [d_hunt - F/2, d_hunt + F/2) (the
        // frame lengths' windows tile the stream: a frame is searched for in
        // the block it is nearest to, and the next frame's sync word is not a
        // candidate); the request's prior is a window of +-w around the best
        // (with a sync word) or the whole range (without), so its padded top
        // is at most `top_bound`
        const long long lo = std::max({ d_hunt - d_F / 2, d_base, d_floor });
        const long long hi_end = d_hunt + (d_F + 1) / 2;
        const long long top_bound =
            d_G > 0 ? hi_end + w + padded_top(0, 2 * w) : lo + padded_top(0, hi_end - lo);
        const long long need =
            d_opt.search ? segment_end(top_bound)
                         : block_end + w + std::max<long long>(0, -d_offset) + 1;
        if (have < need && !d_ended)
            return std::nullopt;
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
            return std::nullopt;
        }
        long long bad = 0;
        if (!d_opt.search || invalid_in(d_hunt, block_end, &bad)) {
            lose_block(!d_opt.search
                           ? detail::concat("no start tag for the bits from position ",
                                            d_hunt,
                                            " to ",
                                            block_end)
                           : detail::concat("the byte at stream position ",
                                            bad,
                                            " is not a bit (0 or 1)"),
                       out);
            continue;
        }
        const long long hi = std::min(hi_end, have);
        position_weights cand;
        if (d_G > 0) {
            const long long s = search_sync_word(lo, hi);
            for (long long x = std::max(s - w, d_base); x <= std::min(s + w, have); ++x)
                cand.positions.push_back(x), cand.weights.push_back(1.0);
        } else {
            for (long long x = lo; x < hi; ++x)
                cand.positions.push_back(x), cand.weights.push_back(1.0);
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
        const long long full_end = segment_end(top);
        const long long seg_end = std::min(full_end, have);
        if (invalid_in(s_min, seg_end, &bad)) {
            lose_block(detail::concat(
                           "the byte at stream position ", bad, " is not a bit (0 or 1)"),
                       out);
            continue;
        }
        for (double& x : cand.weights)
            x /= double(cand.weights.size());
        frame_request r;
        {
            const received_items y = items_at(s_min);
            r.bits = y.bits;
            r.llr = y.llr;
        }
        r.L = size_t(seg_end - s_min);
        d_req_start = relative_prior(cand, s_min, std::min(top, seg_end));
        r.start = d_req_start;
        r.end = end_mode::free;
        r.lookahead = seg_end < full_end ? 0 : d_opt.lookahead;
        r.next_frame_follows = seg_end == full_end;
        r.events = d_opt.events;
        d_req_cut = false; // a failed search is a frame length of sync_lost
        d_pending = pending_kind::search;
        d_seg = s_min;
        d_seg_end = seg_end;
        return r;
    }
    return std::nullopt;
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
    f.log_likelihood_ratio = r.log_likelihood_ratio;
    f.acquired = acquired;
    f.segment_begin = d_seg;
    f.segment_end = d_seg_end;
    f.events = r.events;
    f.item_posteriors = std::move(r.item_posteriors);
    out.push_back(std::move(f));
    ++d_k;

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
        next.positions.push_back(d_seg + r.end_positions[k]);
        next.weights.push_back(r.end_forward[k]);
        sum += r.end_forward[k];
    }
    if (!(sum > 0)) { // (an ok frame always has a forward end metric)
        lose_sync({ frame_status::sync_lost, "the frame has no forward end metric" },
                  out);
        return;
    }
    for (double& x : next.weights)
        x /= sum;
    d_prior = std::move(next);
    d_mode = mode::synced;
    d_acquired = false;
}

void stream_decoder::complete(frame_decode_result result, std::vector<stream_frame>& out)
{
    const pending_kind kind = d_pending;
    if (kind == pending_kind::none)
        throw std::logic_error("stream_decoder: no request is pending");
    d_pending = pending_kind::none;
    const bool in_sync =
        result.result.ok() && result.log_likelihood_ratio >= d_opt.sync_threshold;
    frame_result why;
    if (!result.result.ok())
        why = { frame_status::sync_lost,
                "the decoder refused the frame (" +
                    std::string(to_string(result.result.status)) +
                    "): " + result.result.reason };
    else if (!in_sync)
        why = { frame_status::sync_lost,
                detail::concat("the frame's log-likelihood ratio against random bits, ",
                               detail::fmt_double(result.log_likelihood_ratio),
                               ", is below the sync threshold ",
                               detail::fmt_double(d_opt.sync_threshold)) };
    if (d_req_cut && !in_sync) {
        // the stream ends inside this frame
        why.status = frame_status::truncated;
        why.reason = "the stream ends inside the frame: " + why.reason;
    }
    frame_decode_result& r = result;
    if (kind == pending_kind::synced) {
        if (!in_sync) {
            lose_sync(why, out);
            if (d_req_cut)
                d_finished = true;
        } else {
            take(r, d_acquired, out);
        }
        trim();
        return;
    }
    // a search
    if (!in_sync) {
        lose_block(detail::concat("no frame found in the bits from position ",
                                  d_hunt,
                                  " to ",
                                  d_hunt + d_F,
                                  " (",
                                  why.reason,
                                  ")"),
                   out);
        return;
    }
    const long long s = d_seg + r.start.positions[argmax(r.start.weights)];
    erase_until(s, out);
    d_anchor = s;
    d_anchor_k = d_k;
    log(log_level::info,
        detail::concat(
            "stream_decoder: acquired frame ", d_k, " at position ", s, " by search"));
    take(r, true, out);
    trim();
}

void stream_decoder::trim()
{
    long long keep = d_mode == mode::synced
                         ? d_prior.positions.front()
                         : std::min(d_hunt - d_opt.acquire_window, d_floor);
    keep = std::min(keep, received());
    // dropped once at least half the buffer is behind `keep`: each bit is
    // moved O(1) times, however the stream is chunked, and at most twice the
    // bits still needed are held
    if (keep > d_base && 2 * (keep - d_base) >= (long long)buffered()) {
        if (d_opt.input == input_kind::llr)
            d_llr.erase(d_llr.begin(), d_llr.begin() + (keep - d_base));
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
    while (auto r = next(out))
        complete(d_dec->decode(*r), out);
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
    while (auto r = next(out))
        complete(d_dec->decode(*r), out);
    return out;
}

} // namespace bsid
