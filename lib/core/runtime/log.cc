/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/bsid/core/runtime/log.h>
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <stdexcept>

namespace bsid {

namespace {

log_level initial_level()
{
    const char* env = std::getenv("BSID_LOG_LEVEL");
    if (env) {
        try {
            return parse_log_level(env);
        } catch (const std::invalid_argument&) {
        }
    }
    return log_level::warning;
}

std::atomic<int>& level_ref()
{
    static std::atomic<int> level{ int(initial_level()) };
    return level;
}

std::mutex& handler_mutex()
{
    static std::mutex m;
    return m;
}

log_handler& handler_ref()
{
    static log_handler h;
    return h;
}

const char* level_name(log_level l)
{
    switch (l) {
    case log_level::debug:
        return "debug";
    case log_level::info:
        return "info";
    case log_level::warning:
        return "warning";
    case log_level::error:
        return "error";
    default:
        return "off";
    }
}

//! Warnings remembered to say each once (log()).
constexpr size_t repeat_memory = 256;

} // namespace

log_level parse_log_level(const std::string& s)
{
    for (int l = 0; l <= int(log_level::off); ++l) {
        if (s == level_name(log_level(l)))
            return log_level(l);
    }
    throw std::invalid_argument("log level '" + s +
                                "' is not one of debug, info, warning, error, off");
}

void set_log_level(log_level level) { level_ref() = int(level); }
log_level get_log_level() { return log_level(level_ref().load()); }

void set_log_handler(log_handler handler)
{
    std::lock_guard<std::mutex> lock(handler_mutex());
    handler_ref() = std::move(handler);
}

bool has_log_handler()
{
    std::lock_guard<std::mutex> lock(handler_mutex());
    return bool(handler_ref());
}

void log(log_level level, const std::string& message)
{
    if (int(level) < level_ref().load() || level == log_level::off)
        return;
    std::lock_guard<std::mutex> lock(handler_mutex());
    if (level == log_level::warning && level_ref().load() > int(log_level::debug)) {
        // a warning repeated word for word (one per stream decoder of a
        // sweep, ...) is said once; at debug level, every time. At most
        // repeat_memory texts are remembered, the latest.
        static std::deque<std::string> said;
        if (std::find(said.begin(), said.end(), message) != said.end())
            return;
        said.push_back(message);
        if (said.size() > repeat_memory)
            said.pop_front();
    }
    if (handler_ref()) {
        handler_ref()(level, message);
    } else {
        std::fprintf(stderr, "gr-bsid %s: %s\n", level_name(level), message.c_str());
    }
}

} // namespace bsid
