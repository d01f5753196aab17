/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_QA_LOG_CAPTURE_H
#define INCLUDED_BSID_QA_LOG_CAPTURE_H

#include <gnuradio/bsid/core/runtime/log.h>
#include <string>
#include <vector>

namespace bsid {
namespace qa {

// The decoders' log lines at info level while it lives (their kernel forms);
// the handler and level are restored however the test ends.
struct log_capture {
    std::vector<std::string> lines;
    log_level was = get_log_level();
    log_capture()
    {
        set_log_level(log_level::info);
        set_log_handler([this](log_level, const std::string& m) { lines.push_back(m); });
    }
    ~log_capture()
    {
        set_log_handler(nullptr);
        set_log_level(was);
    }
    log_capture(const log_capture&) = delete;
    log_capture& operator=(const log_capture&) = delete;

    //! whether some line holds `text`
    bool has(const std::string& text) const
    {
        for (const auto& l : lines)
            if (l.find(text) != std::string::npos)
                return true;
        return false;
    }
};

} // namespace qa
} // namespace bsid

#endif /* INCLUDED_BSID_QA_LOG_CAPTURE_H */
