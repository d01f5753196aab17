/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The stream decoder's states (docs/design.md section 3, "Stream decoding"):
// erasures, the hunt for a frame after loss of sync, acquisition, and start
// tags while in sync. The frames' decoding and judging are stream_decoder.cc
// and stream_sync_tests.cc.

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
                             d_hunt + d_F) +
                  (d_lost_why.empty()
                       ? std::string()
                       : " (the frame expected here lost sync: " + d_lost_why + ")"),
              out);
        d_lost_why.clear();
        advance_hunt();
    }
}

// hunting: the frame length of bits at d_hunt is a sync_lost erasure
void stream_decoder::lose_block(const std::string& why,
                                std::vector<stream_frame>& out,
                                frame_status status)
{
    std::string reason =
        (status == frame_status::sync_lost ? "unsynchronized: " : "") + why;
    if (!d_lost_why.empty())
        reason += " (the frame expected here lost sync: " + d_lost_why + ")";
    erase(status, reason, out);
    d_lost_why.clear();
    d_cands.clear();
    d_tries.clear();
    advance_hunt();
    trim();
}

void stream_decoder::advance_hunt()
{
    d_hunt += d_F;
    d_follows = {}; // (a frame length of bits lies between)
    // a tag before the new block would have acquired already
    d_floor = std::max(d_floor, d_hunt - d_opt.acquire_window);
}

// hunting -> synced: a uniform start prior over [at - w, at + w]
void stream_decoder::acquire(long long at, std::vector<stream_frame>& out)
{
    erase_until(at, out);
    d_cands.clear();
    d_tries.clear();
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
    d_acquired_follows = false;
    d_follows = {};
    log(log_level::info,
        detail::concat("stream_decoder: acquiring frame ", d_k, " at position ", at));
}

// after a search: hunting -> synced at the start found, or its block lost
void stream_decoder::found(long long s,
                           const frame_result& lost,
                           std::vector<stream_frame>& out)
{
    if (s < 0) {
        lose_block(detail::concat("no frame found in the bits from position ",
                                  d_hunt,
                                  " to ",
                                  d_hunt + d_F,
                                  " (",
                                  lost.reason,
                                  ")"),
                   out,
                   lost.status);
        return;
    }
    // the search's decode weighed the whole next frame (to compare its
    // candidates fairly), and a search over the whole frame length mixes
    // every start into the frame's posteriors and its end: the frame is
    // decoded again from a window around the start found, as any
    // acquisition, and judged as such
    log(log_level::info,
        detail::concat(
            "stream_decoder: found frame ", d_k, " at position ", s, " by search"));
    d_lost_why.clear();
    const bool follows = follows_previous(s);
    acquire(s, out);
    d_by_search = true;
    d_acquired_follows = follows;
}

// A carried frame held (judge's shifts_settle): its start and the shifts by
// whole periods after it (a frame starts no earlier than where the frame
// before it ended, as in a search) read with the frames around each, once
// the stream holds the items of the latest shift's read; false until then
bool stream_decoder::held_shift_reads(std::vector<frame_request>& reads,
                                      std::vector<stream_frame>& out)
{
    const long long s = d_held->start;
    if (!shift_items_held(s))
        return false;
    // the frame before it decoded ok and ended where the carried prior says
    d_follows = d_prior;
    frame_result lost; // (period_shift_reads makes d_shift_plan anew)
    if (!period_shift_reads(s, d_shift_plan, lost))
        settle_held(-1, lost, out);
    else if (d_shift_plan.reads.empty())
        settle_held(best_of_period_shifts(d_shift_plan, {}, lost), lost, out);
    else
        reads = std::move(d_shift_plan.reads);
    return true;
}

void stream_decoder::settle_held(long long s,
                                 const frame_result& lost,
                                 std::vector<stream_frame>& out)
{
    held_frame h = std::move(*d_held);
    d_held.reset();
    d_shift_plan = {};
    d_follows = {};
    // (the frame's request, d_seg..., which take() and lose_sync() read, is
    // the held frame's still: next() makes no other while a frame is held)
    if (s == h.start) {
        log(log_level::debug,
            detail::concat("stream_decoder: frame ",
                           d_k,
                           " at ",
                           s,
                           " reads clearly better than its shifts by whole periods"));
        take(h.result, false, out);
    } else {
        // its frame length searched, as for any carried frame that lost sync
        frame_result why = h.why;
        why.reason +=
            s < 0 ? " (and no shift by whole periods reads clearly best: " + lost.reason +
                        ")"
                  : detail::concat(" (and its shift to ", s, " reads clearly better)");
        lose_sync(why, out);
    }
    trim();
}

/*
 * synced -> hunting. A frame that lost sync is searched for around where it
 * was expected (a frame after a short burst is found there, as it would have
 * been without the burst): hunting begins at the frame length of bits it was
 * expected in, and no erasure is put out until that search fails. A byte
 * that is not a bit (status invalid_input) makes the frame an erasure at
 * once, and hunting begins a frame length later. An acquisition that failed
 * (a false alarm of a correlator) is searched for in the frame length it was
 * for, so that the frames keep their indices whatever its position.
 */
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
    d_mode = mode::hunting;
    d_hunt = acquired ? std::max(d_acquire_block, s - d_F / 2) : s;
    d_floor = s + d_opt.acquire_window + 1; // a tag at the lost frame's start: not again
    d_anchor = d_hunt;
    d_anchor_k = d_k;
    d_acquired = false;
    d_cands.clear();
    d_tries.clear();
    // (a frame carried in sync follows the one decoded before it)
    d_follows = acquired ? position_weights{} : d_prior;
    if (why.status == frame_status::invalid_input || d_by_search) {
        // (a frame a search found already had its frame length searched)
        d_by_search = false;
        d_lost_why.clear();
        d_follows = {};
        erase(why.status, why.reason, out);
        advance_hunt();
        return;
    }
    d_lost_why = why.reason;
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

} // namespace bsid
