/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/format.h"
#include <gnuradio/bsid/core/estimation/channel_tracker.h>
#include <chrono>
#include <stdexcept>

namespace bsid {

channel_tracker::channel_tracker(const decoder_config& cfg,
                                 int every,
                                 const estimate_options& opt,
                                 std::vector<uint8_t> sync_word)
    : d_cfg(cfg), d_every(every), d_opt(opt), d_sync(std::move(sync_word))
{
    if (every < 1)
        throw std::invalid_argument(detail::concat(
            "channel_tracker: estimates every ", every, " frames; at least 1 is needed"));
}

channel_tracker::~channel_tracker()
{
    if (d_running.valid())
        d_running.wait();
}

void channel_tracker::set_channel(const channel_params& ch, double llr_scale)
{
    d_cfg.ch = ch;
    d_opt.llr_scale = llr_scale;
}

void channel_tracker::add(std::vector<uint8_t> bits, std::vector<double> llr)
{
    auto h = std::make_shared<held>();
    h->bits = std::move(bits);
    h->llr = std::move(llr);
    d_frames.push_back(std::move(h));
    while (d_frames.size() > size_t(d_every))
        d_frames.pop_front();
    ++d_seen;
    ++d_since;
    start_pending();
}

void channel_tracker::start_pending()
{
    if (d_running.valid() || d_since < uint64_t(d_every))
        return;
    d_since = 0;
    // the frames are shared with the estimate, never copied or changed
    std::vector<std::shared_ptr<const held>> frames(d_frames.begin(), d_frames.end());
    const uint64_t seen = d_seen;
    d_running = std::async(
        std::launch::async, [cfg = d_cfg, opt = d_opt, sync = d_sync, frames, seen] {
            update u;
            u.frames_seen = seen;
            try {
                std::vector<frame_view> views;
                for (const auto& f : frames) {
                    frame_view v;
                    if (f->llr.empty()) {
                        v.bits = f->bits.data();
                        v.rho = f->bits.size();
                    } else if (cfg.ch.alphabet() == 2) {
                        v.llr = f->llr.data();
                        v.rho = f->llr.size();
                    } else { // A log-probabilities an item
                        v.logprob = f->llr.data();
                        v.rho = f->llr.size() / size_t(cfg.ch.alphabet());
                    }
                    views.push_back(v);
                }
                u.estimate = estimate_channel(cfg, views, opt, sync);
                u.ok = true;
            } catch (const std::exception& e) {
                u.error = e.what();
            } catch (...) {
                u.error = "the estimate failed";
            }
            return u;
        });
}

std::optional<channel_tracker::update> channel_tracker::poll()
{
    if (!d_running.valid() ||
        d_running.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
        return std::nullopt;
    return d_running.get();
}

std::optional<channel_tracker::update> channel_tracker::wait()
{
    if (!d_running.valid())
        return std::nullopt;
    return d_running.get();
}

} // namespace bsid
