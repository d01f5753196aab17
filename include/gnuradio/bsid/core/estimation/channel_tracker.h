/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_CHANNEL_TRACKER_H
#define INCLUDED_BSID_CORE_CHANNEL_TRACKER_H

#include <gnuradio/bsid/core/estimation/channel_estimator.h>
#include <cstdint>
#include <deque>
#include <future>
#include <memory>
#include <optional>
#include <vector>

namespace bsid {

/*!
 * \brief Follows a receiver's channel: keeps the last `every` frames it is
 * given and, each time `every` new ones have arrived, re-estimates the
 * channel from them (estimate_channel) on a thread of its own, from the
 * channel in use, so that the caller (a block's work function) never waits
 * for an estimate. The caller polls for finished estimates and applies them
 * at a frame boundary.
 *
 * One estimate runs at a time: frames that arrive while it runs are kept
 * (the last `every`) and the next estimate starts when it is done and
 * `every` frames have arrived since the last one started. An estimate that
 * fails (every frame refused, an out-of-memory) is reported by poll() with
 * its reason, never thrown at the caller. Not thread-safe: one caller.
 */
class channel_tracker
{
public:
    //! What poll() returns: an estimate, or why there is none.
    struct update {
        bool ok = false;
        channel_estimate estimate; //!< when ok
        std::string error;         //!< when not
        uint64_t frames_seen = 0;  //!< frames given to the tracker when it started
    };

    /*!
     * cfg: the decoder's settings (backend, precision, limits...; cfg.ch is
     * the channel in use, the first estimate's initial point). every >= 1.
     * opt: the estimates' options (opt.llr_scale: the LLR scale in use).
     * sync_word: the word every frame begins with (estimate_channel's).
     * Throws std::invalid_argument for every < 1.
     */
    channel_tracker(const decoder_config& cfg,
                    int every,
                    const estimate_options& opt,
                    std::vector<uint8_t> sync_word = {});
    ~channel_tracker(); //!< waits for a running estimate

    /*!
     * A received frame (bits or LLRs, as given to the decoder, unscaled).
     * Starts an estimate when none is running or waiting to be collected
     * and `every` frames have arrived since the last one started.
     */
    void add(std::vector<uint8_t> bits, std::vector<double> llr);

    /*!
     * The finished estimate, if any (never blocks). The next estimate starts
     * only at start_pending() or add(), so that the caller can first apply
     * this one (set_channel): the next starts from it.
     */
    std::optional<update> poll();

    //! Waits for the running estimate, if any, and returns it (as poll()).
    std::optional<update> wait();

    //! Starts the next estimate if `every` frames have arrived since the last.
    void start_pending();

    /*!
     * The channel (and LLR scale) now in use, the next estimate's initial
     * point: the caller sets it when it applies an estimate or when the
     * channel changes otherwise.
     */
    void set_channel(const channel_params& ch, double llr_scale);

    int every() const { return d_every; }
    uint64_t frames_seen() const { return d_seen; }

private:
    struct held {
        std::vector<uint8_t> bits;
        std::vector<double> llr;
    };

    decoder_config d_cfg;
    const int d_every;
    estimate_options d_opt;
    const std::vector<uint8_t> d_sync;
    std::deque<std::shared_ptr<const held>> d_frames; // the last `every`
    uint64_t d_seen = 0, d_since = 0; // frames in all, since the last start
    std::future<update> d_running;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_CHANNEL_TRACKER_H */
