/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The stream decoder's tests of a frame (docs/receiving.md, "Loss of sync";
// docs/design.md section 3, "Stream decoding"): whether a decoded frame is
// in sync at its true alignment, what the channel predicts for a frame, and
// where the sync word fits. The state machine that follows the stream is in
// stream_decoder.cc.

#include "channel/letter_scale.h"
#include "framing/stream_alignment.h"
#include "framing/stream_positions.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/channel/soft_input.h>
#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>

namespace bsid {

using detail::argmax;

/*
 * What the channel predicts for a correct frame's log-likelihood ratio: its
 * mean and standard deviation over calibration_frames frames of random
 * symbols sent through the decoder's channel (seeded, so the same for every
 * run), each decoded as the stream decodes a frame in sync (its start known,
 * a free end, the next frame's sync word and K symbols after it); and the
 * same for a frame that nothing follows (the segment cut at the frame's
 * end, no tail): a whole frame at the stream's end.
 */
namespace {

// calibrate()'s results, shared by the stream decoders of one frame decoder
// (stream_batch makes hundreds): keyed by the decoder, K and the gap
struct prediction {
    std::weak_ptr<frame_decoder> dec;
    double mean, sd, end_mean, end_sd;
};
std::mutex predictions_mutex;
// held while one prediction is computed: stream decoders that calibrate at
// once (stream_batch's streams on several threads) wait for the first one's
// prediction instead of each computing it again
std::mutex calibration_mutex;
std::map<std::tuple<const frame_decoder*, int, double>, prediction> predictions;

// the mean and standard deviation of the finite values of v, or NaN if
// fewer than half of `count` are finite
std::pair<double, double> mean_sd(const std::vector<double>& v, size_t count)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (v.size() < count / 2 || v.size() < 2)
        return { nan, nan };
    double mean = 0, var = 0;
    for (double x : v)
        mean += x;
    mean /= double(v.size());
    for (double x : v)
        var += (x - mean) * (x - mean);
    return { mean, std::sqrt(var / double(v.size() - 1)) };
}

} // namespace

void stream_decoder::calibrate()
{
    d_calibrated = true;
    d_expected_mean = d_expected_sd = std::numeric_limits<double>::quiet_NaN();
    d_expected_end_mean = d_expected_end_sd = std::numeric_limits<double>::quiet_NaN();
    if (d_opt.input != input_kind::bits)
        return; // soft items' noise is the demodulator's: nothing to predict from
    const auto key = std::make_tuple(d_dec.get(), d_opt.lookahead, d_opt.gap_probability);
    const auto cached = [&] {
        std::lock_guard<std::mutex> lock(predictions_mutex);
        const auto it = predictions.find(key);
        if (it == predictions.end() || it->second.dec.lock() != d_dec)
            return false;
        d_expected_mean = it->second.mean;
        d_expected_sd = it->second.sd;
        d_expected_end_mean = it->second.end_mean;
        d_expected_end_sd = it->second.end_sd;
        return true;
    };
    if (cached())
        return;
    std::lock_guard<std::mutex> computing(calibration_mutex);
    if (cached()) // (another stream decoder computed it meanwhile)
        return;
    const decoder_config& cfg = d_dec->config();
    const codebook& cb = cfg.cb;
    const std::vector<uint8_t>& W = d_dec->sync_word();
    const long long L = segment_end(0);
    const size_t C = calibration_frames;
    std::vector<std::vector<uint8_t>> rx(C);
    std::vector<frame_request> req(2 * C); // with the tail, then cut at the end
    philox_stream rng(0x5eedULL, (1ULL << 63) + 0x57AE);
    for (size_t t = 0; t < C; ++t) {
        std::vector<uint8_t> sent;
        for (int f = 0; f < 2; ++f) { // the frame, then the next one
            sent.insert(sent.end(), W.begin(), W.end());
            std::vector<int64_t> msg(size_t(cfg.N));
            for (int64_t& d : msg)
                d = int64_t(rng.next_u32() % uint32_t(cb.q()));
            const std::vector<uint8_t> bits = cb.encode(msg.data(), msg.size());
            sent.insert(sent.end(), bits.begin(), bits.end());
        }
        for (int j = 0; j < 64; ++j) // random letters after
            sent.push_back(uint8_t(d_alphabet == 2
                                       ? rng.next_u32() & 1
                                       : rng.next_u32() % uint32_t(d_alphabet)));
        const transmission tx = transmit(cfg.ch, sent.data(), sent.size(), 0x5eedULL, t);
        rx[t] = tx.rx;
        // where the frame ends in rx: its F letters sent, plus the drift there
        const long long end =
            std::min<long long>((long long)rx[t].size(), d_F + tx.drift[size_t(d_F)]);
        rx[t].resize(size_t(std::min<long long>(L, (long long)rx[t].size())));
        req[t].bits = rx[t].data();
        req[t].L = rx[t].size();
        req[t].start = position_weights{ { 0 }, { 1.0 } };
        req[t].end = end_mode::free;
        req[t].lookahead = (long long)rx[t].size() == L ? d_opt.lookahead : 0;
        req[t].next_frame_follows = (long long)rx[t].size() == L;
        req[t].gap = req[t].next_frame_follows ? d_opt.gap_probability : 0.0;
        frame_request& cut = req[C + t];
        cut.bits = rx[t].data();
        cut.L = size_t(std::min<long long>(end, (long long)rx[t].size()));
        cut.start = position_weights{ { 0 }, { 1.0 } };
        cut.end = end_mode::free;
        cut.next_frame_follows = false;
    }
    std::vector<double> v, v_end;
    try {
        const auto got = d_dec->decode_batch(req);
        for (size_t k = 0; k < got.size(); ++k) {
            const frame_decode_result& r = got[k];
            if (r.result.ok() && std::isfinite(r.log_likelihood_ratio))
                (k < C ? v : v_end).push_back(r.log_likelihood_ratio);
        }
    } catch (const std::exception& e) {
        log(log_level::warning,
            std::string("stream_decoder: no prediction of a frame's likelihood: ") +
                e.what());
        return;
    }
    std::tie(d_expected_mean, d_expected_sd) = mean_sd(v, C);
    std::tie(d_expected_end_mean, d_expected_end_sd) = mean_sd(v_end, C);
    std::lock_guard<std::mutex> lock(predictions_mutex);
    for (auto it = predictions.begin(); it != predictions.end();)
        it = it->second.dec.expired() ? predictions.erase(it) : std::next(it);
    predictions[key] = {
        d_dec, d_expected_mean, d_expected_sd, d_expected_end_mean, d_expected_end_sd
    };
}

double stream_decoder::sync_word_fit(long long s, const double* prob) const
{
    if (s < d_base)
        return -std::numeric_limits<double>::infinity();
    return d_judge->sync_word_fit(
        items_at(s), size_t(std::max(0LL, received() - s)), prob);
}

std::vector<long long>
stream_decoder::search_sync_word(long long from, long long to, size_t count) const
{
    // the sync word's likelihood ratio against random letters at each start
    // s; soft items' probabilities (A each) computed once for all the starts'
    // lattices
    std::vector<double> prob;
    const long long end = std::min(received(), to + d_G + d_sync_hi);
    if (d_opt.input != input_kind::bits && end > from) {
        prob.resize(size_t(d_alphabet) * size_t(end - from));
        item_probabilities(items_at(from), size_t(end - from), prob.data());
    }
    std::vector<std::pair<double, long long>> fits;
    for (long long s = from; s < to && s < received(); ++s) {
        const double v = sync_word_fit(
            s, prob.empty() ? nullptr : prob.data() + d_alphabet * (s - from));
        if (v >= d_judge->sync_word_threshold())
            fits.emplace_back(v, s);
    }
    // best first (the earlier on a tie); one position per cluster of 2w + 1
    std::sort(fits.begin(), fits.end(), [](const auto& a, const auto& b) {
        return a.first > b.first || (a.first == b.first && a.second < b.second);
    });
    std::vector<long long> best;
    for (const auto& f : fits) {
        if (best.size() >= count)
            break;
        const bool near = std::any_of(best.begin(), best.end(), [&](long long b) {
            return std::llabs(b - f.second) <= 2LL * d_opt.acquire_window;
        });
        if (!near)
            best.push_back(f.second);
    }
    return best;
}

bool stream_decoder::other_sync_word(long long s,
                                     double than,
                                     long long* at,
                                     double* fit) const
{
    // every start within half a frame length of s, but s's own window
    const long long w = d_opt.acquire_window;
    const long long from = std::max(d_base, s - d_F / 2);
    const long long to = std::min(s + (d_F + 1) / 2, received() - d_G - d_sync_hi);
    std::vector<double> prob;
    if (d_opt.input != input_kind::bits && to > from) {
        prob.resize(size_t(d_alphabet) * size_t(to + d_G + d_sync_hi - from));
        item_probabilities(items_at(from), prob.size() / size_t(d_alphabet), prob.data());
    }
    bool found = false;
    for (long long x = from; x < to; ++x) {
        if (std::llabs(x - s) <= 2 * w)
            continue;
        const double v = sync_word_fit(
            x, prob.empty() ? nullptr : prob.data() + d_alphabet * (x - from));
        if (v > than) {
            than = v;
            *at = x;
            *fit = v;
            found = true;
        }
    }
    return found;
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
    double at_cur = -std::numeric_limits<double>::infinity();
    for (size_t j = 0; j < d_prior.positions.size(); ++j) {
        if (d_prior.weights[j] < 1e-3 * top)
            continue;
        const double v = sync_word_fit(d_prior.positions[j]);
        if (v > at_cur)
            at_cur = v, cur = d_prior.positions[j];
    }
    const double at_tag = sync_word_fit(t);
    // the sync word fits at the tag nearly as well as it can (a ratio of at
    // least A^(3G/4) of the A^G of a perfect fit: a correlator's false alarm
    // with a wrong letter does not), and by half its own evidence (A^(G/2))
    // better than anywhere the frame is carried (where a correct frame's
    // sync word fits, unless the channel damaged it)
    const double lnA = ln_letters(d_alphabet);
    if (!(at_tag >= int(3 * d_G / 4) * lnA && at_tag > at_cur + int(d_G / 2) * lnA))
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

bool stream_decoder::judge(const frame_decode_result& r,
                           pending_kind kind,
                           frame_result& why,
                           bool* shifts_settle,
                           const edge_values* edges,
                           bool* needs_edges)
{
    *shifts_settle = false;
    *needs_edges = false;
    if (!r.result.ok()) {
        why = { frame_status::sync_lost,
                "the decoder refused the frame (" +
                    std::string(to_string(r.result.status)) + "): " + r.result.reason };
        return false;
    }
    const double need = d_opt.sync_threshold + stream_options::sync_margin;
    if (!(r.log_likelihood_ratio >= need)) {
        why = { frame_status::sync_lost,
                detail::concat("the frame's log-likelihood ratio against random bits, ",
                               detail::fmt_double(r.log_likelihood_ratio),
                               ", is below the sync threshold ",
                               detail::fmt_double(d_opt.sync_threshold),
                               " + ",
                               detail::fmt_double(stream_options::sync_margin)) };
        return false;
    }
    if (!d_calibrated)
        calibrate();
    // the prediction for this request: followed by the next frame (a tail),
    // or a whole frame that nothing follows (the stream's end); none for a
    // frame the stream's end may cut
    const bool predicted = d_req_tail || !d_req_cut;
    const double expected_mean = d_req_tail ? d_expected_mean : d_expected_end_mean,
                 expected_sd = d_req_tail ? d_expected_sd : d_expected_end_sd;
    if (predicted && std::isfinite(expected_mean) && std::isfinite(expected_sd)) {
        // far below what the channel predicts for a frame: not this frame
        // (a frame found by an acquisition, which no carried prior vouches
        // for, within acquired_sigmas)
        const bool found = kind == pending_kind::search || d_acquired;
        const double least = std::min(
            expected_mean - (found ? acquired_sigmas : implausible_sigmas) * expected_sd,
            expected_mean / 2);
        if (r.log_likelihood_ratio < least) {
            why = { frame_status::sync_lost,
                    detail::concat(
                        "the frame's log-likelihood ratio ",
                        detail::fmt_double(r.log_likelihood_ratio),
                        " lies far below what the channel predicts for a frame (",
                        detail::fmt_double(expected_mean),
                        " +- ",
                        detail::fmt_double(expected_sd),
                        "; at least ",
                        detail::fmt_double(least),
                        " needed)") };
            return false;
        }
    }
    const long long s = d_seg + r.start.positions[argmax(r.start.weights)];
    bool low = false; // below the recent frames' (2 standard deviations)
    if (d_recent.size() >= recent_min) {
        // a frame carried in sync whose likelihood falls far below the
        // recent frames' (it absorbed a burst, or reads shifted codewords):
        // its neighbourhood is searched instead (which finds it again if it
        // was right). A frame found by a search or an acquisition, and a
        // frame at the stream's end (no tail after it, perhaps cut), are held
        // to min(that, half their mean), as a frame is to the channel's
        // prediction: the frames before them were decoded over the same
        // channel, and a chance fit of the sync word in the data (or a read
        // across a burst) reads far worse than they did, while a true frame
        // that a burst or the end follows loses only its tail's part.
        double mean = 0, var = 0;
        for (double v : d_recent)
            mean += v;
        mean /= double(d_recent.size());
        for (double v : d_recent)
            var += (v - mean) * (v - mean);
        const double sd = std::max(std::sqrt(var / double(d_recent.size() - 1)),
                                   1.0 + 0.05 * std::fabs(mean));
        const bool found = kind == pending_kind::search || d_acquired;
        const double least = found || !d_req_tail
                                 ? std::min(mean - drop_sigmas * sd, mean / 2)
                                 : mean - drop_sigmas * sd;
        if (r.log_likelihood_ratio < least) {
            why = { frame_status::sync_lost,
                    detail::concat("the frame's log-likelihood ratio ",
                                   detail::fmt_double(r.log_likelihood_ratio),
                                   " lies far below the recent frames' (mean ",
                                   detail::fmt_double(mean),
                                   ", standard deviation ",
                                   detail::fmt_double(sd),
                                   ")") };
            return false;
        }
        low = kind == pending_kind::synced && !d_acquired &&
              r.log_likelihood_ratio < mean - 2 * sd;
    }
    // below what the channel predicts by 2 standard deviations
    if (predicted && std::isfinite(expected_mean) &&
        r.log_likelihood_ratio < expected_mean - 2 * expected_sd)
        low = true;
    // a frame whose length is one the channel makes very unlikely (it
    // absorbed a burst by insertions or deletions)
    const long long e = d_seg + r.end_positions[argmax(r.end_posterior)];
    bool odd_length = kind == pending_kind::synced && !d_acquired &&
                      (e - s - d_F < d_odd.lo || e - s - d_F > d_odd.hi);
    if (d_G == 0 && d_judge->shifts_indistinguishable() && kind == pending_kind::synced &&
        !d_acquired) {
        // the frame's first and last codewords must read about as well as
        // random bits or better, within edge_margin (a frame that read a
        // burst's bits as its first codewords, and is then whole periods
        // off, reads far worse): read first (a step of their own)
        if (!edges) {
            *needs_edges = true;
            return false;
        }
        const double own_front = edges->front_own, own_back = edges->back_own;
        if (!(own_front >= -alignment_judge::edge_margin &&
              own_back >= -alignment_judge::edge_margin))
            odd_length = true;
    }
    if (d_G == 0 && d_judge->shifts_indistinguishable() && odd_length &&
        kind == pending_kind::synced && !d_acquired) {
        // nothing else tells a carried frame shifted by whole periods apart
        why = { frame_status::sync_lost,
                detail::concat(
                    "the frame ",
                    "has a length the channel makes unlikely, or edges that read no "
                    "better than random bits (",
                    e - s,
                    " bits, log-likelihood ratio ",
                    detail::fmt_double(r.log_likelihood_ratio),
                    "), and without a sync word a code that repeats within the "
                    "frame may then be read shifted by whole periods") };
        return false;
    }
    if (d_G == 0 && d_judge->edges_checked() && (low || odd_length) &&
        kind == pending_kind::synced && !d_acquired) {
        // without a sync word nothing local says where a burst the frame may
        // have absorbed ended: its frame length is searched (which finds it
        // again if it was right)
        why = { frame_status::sync_lost,
                detail::concat("the frame reads worse than the recent frames or what the "
                               "channel predicts, or has a length the channel makes "
                               "unlikely (",
                               e - s,
                               " bits, log-likelihood ratio ",
                               detail::fmt_double(r.log_likelihood_ratio),
                               "): its frame length is searched") };
        return false;
    }
    if (d_G > 0) {
        // the sync word must fit where the frame most probably starts
        const double fit = sync_word_fit(s);
        if (!(fit >= d_judge->sync_word_threshold())) {
            why = { frame_status::sync_lost,
                    detail::concat(
                        "the sync word does not fit at the frame's most probable "
                        "start ",
                        s,
                        " (ln likelihood ratio ",
                        detail::fmt_double(fit),
                        ", below the threshold ",
                        detail::fmt_double(d_judge->sync_word_threshold()),
                        ")") };
            return false;
        }
        // a weak fit of a frame carried in sync: a frame read off its true
        // start (after a burst) may pass by chance; the frame read from where
        // W fits better nearby must not read nearly as well (a search's
        // candidates compete with each other in complete()). Where the
        // stream ends before that frame can be read, it cannot be ruled out
        // if W fits there at least as well as here.
        long long at = 0;
        double at_fit = 0;
        const bool weak = fit < d_G * ln_letters(d_alphabet) / 2;
        if (kind == pending_kind::synced && (weak || low || odd_length) &&
            other_sync_word(
                s, weak ? fit : d_judge->sync_word_threshold(), &at, &at_fit)) {
            bool short_of_items = false;
            const double other = llr_at(at, read_after::lookahead, &short_of_items);
            const std::string fits_there = detail::concat("the sync word fits at ",
                                                          at,
                                                          " (ln likelihood ratio ",
                                                          detail::fmt_double(at_fit),
                                                          " against ",
                                                          detail::fmt_double(fit),
                                                          "), and ");
            if (short_of_items && d_ended && at_fit >= fit) {
                why = { frame_status::sync_ambiguous,
                        fits_there + "the stream ends before the frame read from there "
                                     "can be compared" };
                return false;
            }
            if (other >= r.log_likelihood_ratio - alignment_judge::edge_margin) {
                why = { frame_status::sync_ambiguous,
                        detail::concat(fits_there,
                                       "the frame read from there is nearly as likely (",
                                       detail::fmt_double(other),
                                       " against ",
                                       detail::fmt_double(r.log_likelihood_ratio),
                                       ")") };
                return false;
            }
        }
        return true;
    }
    const bool searched = kind == pending_kind::search;
    // (with p dividing N, a frame found where the frame that lost sync was
    // expected continues the stream: only its neighbours' alignment vouches
    // for it, and a shift by whole periods would lie a period away)
    const bool where_expected =
        !d_lost_why.empty() && std::llabs(s - d_hunt) <= d_opt.acquire_window;
    if (searched && d_judge->shifts_indistinguishable() && !where_expected) {
        why = { frame_status::sync_ambiguous,
                detail::concat(
                    "found by search, but without a sync word a code whose "
                    "books repeat every ",
                    d_judge->period(),
                    " codewords, a divisor of N, reads as well shifted by whole "
                    "periods") };
        return false;
    }
    if (searched) {
        // other starts of the search, away from the frame's own, must be far
        // less likely (their edges read other codewords: the edge tests below
        // judge shifts by whole periods on the same bits)
        const size_t m = argmax(r.start.weights);
        const long long unit = period_items();
        const long long c = std::max<long long>(d_opt.acquire_window, 1);
        double own = 0, other = 0;
        for (size_t j = 0; j < r.start.positions.size(); ++j) {
            const long long d = std::llabs(r.start.positions[j] - r.start.positions[m]);
            const bool periods = d_judge->edges_checked() || where_expected;
            if (d <= c)
                own += r.start.weights[j];
            else if (!periods || (d % unit > c && unit - d % unit > c))
                other = std::max(other, r.start.weights[j]);
        }
        if (other > 0 && std::log(own / other) < alignment_judge::edge_margin) {
            why = { frame_status::sync_ambiguous,
                    detail::concat(
                        "the search's best start ",
                        s,
                        " is not clearly more likely than another (posteriors ",
                        detail::fmt_double(own),
                        " and ",
                        detail::fmt_double(other),
                        ")") };
            return false;
        }
    }
    if (d_judge->edges_checked()) {
        if (!edges) { // (read first, a step of their own)
            *needs_edges = true;
            return false;
        }
        const double front = edges->front, back = edges->back;
        const double front_own = edges->front_own, back_own = edges->back_own;
        log(log_level::debug,
            detail::concat("stream_decoder: frame ",
                           d_k,
                           " at ",
                           s,
                           ": edge margins ",
                           detail::fmt_double(front),
                           " and ",
                           detail::fmt_double(back),
                           ", against random bits ",
                           detail::fmt_double(front_own),
                           " and ",
                           detail::fmt_double(back_own)));
        // The edges must clearly favour the frame's own books, by edge_margin,
        // and read as codewords (better than random items): a frame shifted
        // by whole periods reads a neighbour's codewords, or a burst's items,
        // at one edge. A carried frame whose edges do not is not put out: its
        // frame length is searched, and the search's start competes with its
        // shifts by whole periods in full decodes with the frames around
        // each (best_of_period_shifts), which finds it again if it was right;
        // a frame that won that comparison needs only its edges against
        // random items (within edge_margin).
        const bool shifts_beaten =
            kind == pending_kind::search || (kind == pending_kind::synced && d_by_search);
        const double need = shifts_beaten ? -std::numeric_limits<double>::infinity()
                                          : alignment_judge::edge_margin;
        // (a frame that starts where the frame decoded ok before it ended has
        // no burst before it: an edge that reads worse is the channel's)
        const bool follows =
            kind == pending_kind::search ? follows_previous(s) : d_acquired_follows;
        // (a carried frame at the stream's end, with no next frame after it,
        // cannot be compared with its shifts: within edge_margin of random
        // items, as a search's frame)
        const double need_own = !shifts_beaten
                                    ? (d_req_tail ? 0.0 : -alignment_judge::edge_margin)
                                : follows ? -std::numeric_limits<double>::infinity()
                                          : -alignment_judge::edge_margin;
        // (a carried frame's front, where a burst between it and the frame
        // before it lies when it is read shifted, by edge_margin: random
        // bits read that well at S500's front 3 times in 10^4, better than
        // random 1 time in 80; the book margin then passes some of them)
        const double need_front_own =
            !shifts_beaten && d_req_tail ? alignment_judge::edge_margin : need_own;
        if (!(front >= need && back >= need && front_own >= need_front_own &&
              back_own >= need_own)) {
            // A carried frame whose edges favour its own books by
            // edge_margin but read below need_front_own or need_own, yet
            // above random items less edge_margin (about 1 correct frame in
            // 10 at S500's channel; a shifted frame that reads a burst as
            // its edge mostly reads far worse, or as the neighbour's
            // books): its start's comparison
            // with its shifts by whole periods settles it (complete(),
            // best_of_period_shifts), as it would a search's start, without
            // the search over its frame length. A whole frame with the next
            // frame's items after it only: the shifts read that frame.
            if (kind == pending_kind::synced && !d_acquired && !d_by_search &&
                d_req_tail && !d_req_cut && front >= need && back >= need &&
                front_own >= -alignment_judge::edge_margin &&
                back_own >= -alignment_judge::edge_margin)
                *shifts_settle = true;
            why = { frame_status::sync_ambiguous,
                    detail::concat(
                        "the frame's edges do not clearly read as its own books "
                        "rather than a neighbour's, as a frame shifted by whole "
                        "code periods would (ln margins ",
                        detail::fmt_double(front),
                        " at the start and ",
                        detail::fmt_double(back),
                        " at the end, at least ",
                        detail::fmt_double(need),
                        " needed; against random items ",
                        detail::fmt_double(front_own),
                        " and ",
                        detail::fmt_double(back_own),
                        ", at least ",
                        detail::fmt_double(need_own),
                        ")") };
            return false;
        }
    }
    return true;
}

} // namespace bsid
