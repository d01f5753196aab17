/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/bsid/core/inner/frame_status.h>
#include <stdexcept>

namespace bsid {

const char* to_string(frame_status s)
{
    switch (s) {
    case frame_status::ok:
        return "ok";
    case frame_status::empty:
        return "empty";
    case frame_status::invalid_input:
        return "invalid_input";
    case frame_status::drift_out_of_range:
        return "drift_out_of_range";
    case frame_status::impossible:
        return "impossible";
    case frame_status::decoder_error:
        return "decoder_error";
    case frame_status::truncated:
        return "truncated";
    case frame_status::frame_lost:
        return "frame_lost";
    case frame_status::invalid_tag:
        return "invalid_tag";
    case frame_status::sync_lost:
        return "sync_lost";
    case frame_status::sync_ambiguous:
        return "sync_ambiguous";
    }
    return "unknown";
}

frame_status parse_frame_status(const std::string& name)
{
    for (const auto s : all_frame_statuses) {
        if (name == to_string(s))
            return s;
    }
    throw std::invalid_argument("'" + name + "' is not a frame status");
}

} // namespace bsid
