/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// map_decoder's priors port (priors_input): the frames' priors, as they come
// (float, one row of q per symbol), matched to the frames of the data port
// in order; a frame without its priors, or with priors that are no
// probabilities, is an erasure.

#include "map_decoder_impl.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace bsid {

namespace {

std::string status_name(::bsid::frame_status s) { return ::bsid::to_string(s); }

// why a row of log priors is refused, or "" (NaN, +inf, or no finite value)
std::string bad_log_row(const double* row, int q)
{
    bool any = false;
    for (int D = 0; D < q; ++D) {
        if (std::isnan(row[D]))
            return "entry " + std::to_string(D) + " is NaN";
        if (row[D] == std::numeric_limits<double>::infinity())
            return "entry " + std::to_string(D) + " is +inf";
        any = any || std::isfinite(row[D]);
    }
    return any ? "" : "every entry is -inf";
}

} // namespace

void map_decoder_impl::start_prior(uint64_t length, std::string erasure, std::string why)
{
    d_pcur = prior_frame{};
    d_pcur.erasure = std::move(erasure);
    d_pcur.why = std::move(why);
    if (d_pcur.erasure.empty())
        d_pcur.logs.reserve(size_t(length) * size_t(d_cfg.cb.q()));
    d_pin_frame = true;
    d_pleft = length;
    if (length == 0)
        finish_prior(false);
}

void map_decoder_impl::finish_prior(bool cut)
{
    const int N = d_cfg.N, q = d_cfg.cb.q();
    d_pin_frame = false;
    prior_frame& p = d_pcur;
    if (p.erasure.empty() && cut) {
        p.erasure = status_name(::bsid::frame_status::invalid_input);
        p.why = "its priors end after " + std::to_string(p.logs.size() / size_t(q)) +
                " of " + std::to_string(N) + " items (" +
                (d_priors_over ? "the priors stream ended" : "a length tag came") + ")";
    }
    for (int i = 0; p.erasure.empty() && i < N; ++i) {
        const std::string bad = bad_log_row(p.logs.data() + size_t(i) * size_t(q), q);
        if (!bad.empty()) {
            p.erasure = status_name(::bsid::frame_status::invalid_input);
            p.why = "its log priors row " + std::to_string(i) +
                    " is not a log-probability "
                    "row (" +
                    bad + ")";
        }
    }
    if (!p.erasure.empty()) {
        GR_LOG_WARN(d_logger,
                    "frame of priors " + std::to_string(d_prior_frames) + ": " + p.why +
                        "; its frame is put out as an " + p.erasure + " erasure");
        p.logs.clear();
        p.logs.shrink_to_fit();
    }
    ++d_prior_frames;
    d_prior_ready.push_back(std::move(p));
}

void map_decoder_impl::feed_priors(const float* in, size_t count, uint64_t first)
{
    const int N = d_cfg.N, q = d_cfg.cb.q();
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 1, first, first + uint64_t(count), d_len_key);
    std::stable_sort(tags.begin(), tags.end(), gr::tag_t::offset_compare);
    size_t pos = 0, ti = 0;
    while (pos < count) {
        const uint64_t abs = first + pos;
        while (ti < tags.size() && tags[ti].offset == abs) {
            // a length tag starts a frame of priors, cutting one still open
            const gr::tag_t& t = tags[ti++];
            if (d_pin_frame)
                finish_prior(true);
            d_ptagged = true;
            const count_value c = read_count(t.value);
            const std::string invalid = status_name(::bsid::frame_status::invalid_input);
            if (!c.ok) {
                start_prior(UINT64_MAX, // the items up to the next tag
                            invalid,
                            "the '" + pmt::symbol_to_string(d_len_key) +
                                "' tag on priors item " + std::to_string(t.offset) +
                                " is not a frame length: " + c.why);
            } else if (c.value != uint64_t(N)) {
                start_prior(c.value,
                            invalid,
                            "the '" + pmt::symbol_to_string(d_len_key) +
                                "' tag on priors item " + std::to_string(t.offset) +
                                " gives " + std::to_string(c.value) +
                                " items, not N = " + std::to_string(N));
            } else {
                start_prior(c.value, "", "");
            }
        }
        if (!d_pin_frame && !d_ptagged)
            start_prior(uint64_t(N), "", ""); // untagged: N items a frame, counted
        uint64_t run = count - pos;
        if (ti < tags.size())
            run = std::min<uint64_t>(run, tags[ti].offset - abs);
        if (!d_pin_frame) {
            if (d_priors_discarded == 0) {
                GR_LOG_WARN(d_logger,
                            "priors items outside any frame of priors (after a frame's "
                            "last item, before the next '" +
                                pmt::symbol_to_string(d_len_key) +
                                "' tag) are discarded");
            }
            d_priors_discarded += run;
            pos += size_t(run);
            continue;
        }
        run = std::min(run, d_pleft);
        if (d_pcur.erasure.empty()) {
            const float* f = in + pos * size_t(q);
            d_pcur.logs.insert(d_pcur.logs.end(), f, f + run * uint64_t(q));
        }
        d_pleft -= run;
        pos += size_t(run);
        if (d_pleft == 0)
            finish_prior(false);
    }
}

uint64_t map_decoder_impl::frames_without_priors() const
{
    uint64_t frames = 0;
    for (const auto& f : d_rx.ready())
        frames += f.lost > 0 ? f.lost : 1;
    const uint64_t have = d_prior_ready.size();
    return frames > have ? frames - have : 0;
}

bool map_decoder_impl::take_prior(prior_frame& p)
{
    if (d_prior_ready.empty()) {
        if (!d_priors_missing_logged) {
            GR_LOG_WARN(d_logger,
                        "the priors stream ended before the priors of every frame: "
                        "frames without priors are put out as invalid_input erasures");
            d_priors_missing_logged = true;
        }
        p = prior_frame{};
        p.erasure = status_name(::bsid::frame_status::invalid_input);
        p.why = "the priors stream ended before this frame's priors";
        return false;
    }
    p = std::move(d_prior_ready.front());
    d_prior_ready.pop_front();
    return true;
}

// ---- stream framing

} // namespace bsid
} // namespace gr
