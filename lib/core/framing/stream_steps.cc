/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The stream decoder's steps taken (docs/design.md section 3, "Stream
// decoding"): a step's requests decoded, each by its decoder
// (decode_stream_requests), and its results taken by complete(): a frame's
// or a search's verdict (settle), after its edge tests' reads where it
// needs them (a step of their own), a search's or a held frame's shifts by
// whole periods. next(), which makes the requests, is in stream_decoder.cc.

#include "framing/search_parts.h"
#include "framing/stream_alignment.h"
#include "framing/stream_positions.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <algorithm>
#include <functional>
#include <future>
#include <stdexcept>

namespace bsid {

using detail::argmax;

std::vector<frame_decode_result>
decode_stream_requests(std::vector<stream_request>& requests)
{
    std::vector<frame_decode_result> out(requests.size());
    // each decoder's requests in one batch, the decoders in the order they
    // first appear
    struct group {
        frame_decoder* dec;
        std::vector<size_t> idx;
        std::vector<frame_request> batch;
    };
    std::vector<group> groups;
    for (size_t k = 0; k < requests.size(); ++k) {
        frame_decoder* dec = requests[k].decoder;
        if (!dec)
            throw std::invalid_argument(
                "decode_stream_requests: a request without a decoder");
        auto g = std::find_if(
            groups.begin(), groups.end(), [&](const group& x) { return x.dec == dec; });
        if (g == groups.end())
            g = groups.insert(groups.end(), group{ dec, {}, {} });
        g->idx.push_back(k);
        g->batch.push_back(std::move(requests[k].request));
    }
    auto decode = [&](group& g) {
        auto got = g.dec->decode_batch(g.batch);
        for (size_t j = 0; j < g.idx.size(); ++j)
            out[g.idx[j]] = std::move(got[j]);
    };
    // The batches of decoders off the CPU (a stream_batch's four edge-test
    // batches on a GPU) at once, beside the first decoder's (the frames'),
    // so that their launches, copies and waits overlap: 1.13x the frames/s
    // of 256 S500 streams on an H100 (docs/benchmarks.md). The CPU's one
    // after another: each takes the host's threads. (On an exception the
    // futures' destructors wait for their batches, which write `out`.)
    std::vector<std::future<void>> running;
    for (size_t j = 1; j < groups.size(); ++j)
        if (groups[j].dec->primary().backend() != backend_kind::cpu)
            running.push_back(
                std::async(std::launch::async, decode, std::ref(groups[j])));
    if (!groups.empty())
        decode(groups[0]);
    for (size_t j = 1; j < groups.size(); ++j)
        if (groups[j].dec->primary().backend() == backend_kind::cpu)
            decode(groups[j]);
    for (auto& f : running)
        f.get();
    return out;
}

void stream_decoder::complete(std::vector<frame_decode_result> results,
                              std::vector<stream_frame>& out)
{
    const pending_kind kind = d_pending;
    if (kind == pending_kind::none)
        throw std::logic_error("stream_decoder: no request is pending");
    const size_t asked = kind == pending_kind::shifts ? d_shift_plan.of.size()
                         : kind == pending_kind::edges
                             ? d_edge_wait->roles.size() + (d_edge_wait->ahead ? 1 : 0)
                             : d_part_mass.size();
    if (results.size() != asked)
        throw std::logic_error(detail::concat("stream_decoder: ",
                                              results.size(),
                                              " results for the ",
                                              asked,
                                              " requests of the step"));
    d_pending = pending_kind::none;
    if (kind == pending_kind::edges) {
        if (d_edge_wait->ahead) { // (the next frame's decode, asked for last)
            d_ahead->result = std::move(results.back());
            results.pop_back();
        }
        edges_read(std::move(results), out);
        return;
    }
    if (kind == pending_kind::shifts) {
        frame_result lost;
        const long long s = best_of_period_shifts(d_shift_plan, results, lost);
        const int edge =
            d_held || s < 0
                ? 0
                : best_at_edge(d_shift_plan, s, period_items(), search_block_start());
        d_shift_plan = {};
        if (d_held) {
            settle_held(s, lost, out);
        } else if (edge != 0 && d_shift_moves < max_shift_moves && edge != -d_shift_way) {
            // the best is the outermost shift read: its own shifts are read
            // (next()), so that a start whole periods further on, which a
            // search's window or its first shifts did not reach, competes
            log(log_level::debug,
                detail::concat("stream_decoder: frame ",
                               d_k,
                               " read from ",
                               s,
                               ", the furthest shift read, is compared with its own "
                               "shifts"));
            ++d_shift_moves;
            d_shift_way = edge;
            d_shift_at = s;
        } else if (edge != 0) {
            found(-1,
                  { frame_status::sync_ambiguous,
                    edge == -d_shift_way
                        ? detail::concat("the frame read from ",
                                         s,
                                         " reads best of its shifts by whole code "
                                         "periods, but the comparison moved back and "
                                         "forth (its scores depend on the shifts read)")
                        : detail::concat("the frame read from ",
                                         s,
                                         " reads best of its shifts by whole code "
                                         "periods, but is still the furthest of those "
                                         "read after ",
                                         max_shift_moves,
                                         " moves: a start further on may read better") },
                  out);
        } else {
            found(s, lost, out);
        }
        return;
    }
    settle(results.size() > 1
               ? detail::merge_search_parts(results, d_part_mass, d_alphabet)
               : std::move(results.front()),
           kind,
           nullptr,
           out);
}

std::vector<stream_request> stream_decoder::edge_step()
{
    edge_wait& w = *d_edge_wait;
    const frame_decode_result& r = w.result;
    auto reads = d_judge->edge_requests(items_at(d_seg),
                                        size_t(d_seg_end - d_seg),
                                        r.start,
                                        r.end_positions[argmax(r.end_posterior)]);
    const bool on_backend = d_opt.edges_on_backend.value_or(false);
    std::vector<stream_request> step;
    w.roles.clear();
    for (size_t k = 0; k < reads.requests.size(); ++k) {
        w.roles.push_back(reads.roles[k]);
        step.push_back({ &d_judge->edge_decoder(reads.roles[k], on_backend),
                         std::move(reads.requests[k]) });
    }
    w.ahead = false;
    if (!step.empty() && w.kind == pending_kind::synced &&
        d_opt.decode_ahead.value_or(false)) {
        if (auto a = ahead_request()) {
            step.push_back(std::move(*a));
            w.ahead = true;
        }
    }
    return step;
}

void stream_decoder::edges_read(std::vector<frame_decode_result> got,
                                std::vector<stream_frame>& out)
{
    edge_wait w = std::move(*d_edge_wait);
    d_edge_wait.reset();
    std::vector<alignment_judge::edge_role> roles; // (edge_step's)
    for (int role : w.roles)
        roles.push_back(alignment_judge::edge_role(role));
    const edge_values v = d_judge->edge_margins(roles, got);
    settle(std::move(w.result), w.kind, &v, out);
}

void stream_decoder::settle(frame_decode_result result,
                            pending_kind kind,
                            const edge_values* edges,
                            std::vector<stream_frame>& out)
{
    frame_result why;
    bool by_shifts = false, needs_edges = false;
    const bool in_sync = judge(result, kind, why, &by_shifts, edges, &needs_edges);
    if (needs_edges) {
        // its edge tests read first (next()); the segment's bits stay
        d_edge_wait = edge_wait{ std::move(result), kind, {} };
        return;
    }
    if (d_req_cut && !in_sync) {
        // the stream ends inside this frame
        why.status = frame_status::truncated;
        why.reason = "the stream ends inside the frame: " + why.reason;
    }
    if (kind == pending_kind::synced) {
        frame_decode_result& r = result;
        if (!in_sync && by_shifts) {
            // its shifts by whole periods decide (next() reads them)
            const long long s = d_seg + r.start.positions[argmax(r.start.weights)];
            log(log_level::debug,
                detail::concat("stream_decoder: frame ",
                               d_k,
                               " at ",
                               s,
                               " held: ",
                               why.reason,
                               "; its start is compared with its shifts by whole "
                               "periods"));
            d_held = held_frame{ std::move(r), why, s };
            trim();
            return;
        }
        if (!in_sync) {
            if (d_req_cut) {
                erase(why.status, why.reason, out);
                d_finished = true;
            } else {
                lose_sync(why, out);
            }
        } else {
            take(r, d_acquired, out);
        }
        trim();
        return;
    }
    // a search: each candidate of the frame length decoded in turn, then the
    // best one in sync kept if every other reads clearly worse
    d_tries.push_back({ in_sync,
                        why,
                        result.result.ok(),
                        result.log_likelihood_ratio,
                        result.result.ok()
                            ? d_seg + result.start.positions[argmax(result.start.weights)]
                            : -1 });
    if (!d_cands.empty())
        d_cands.erase(d_cands.begin());
    if (!d_cands.empty())
        return; // the next sync word position of this frame length
    frame_result lost;
    const long long s = pick_candidate(lost);
    d_tries.clear();
    if (s >= 0 && d_G == 0 && d_judge->edges_checked()) {
        d_shift_at = s; // next() reads its shifts by whole periods
        d_shift_moves = 0;
        d_shift_way = 0;
        return;
    }
    found(s, lost, out);
}

} // namespace bsid
