/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_LOG_H
#define INCLUDED_BSID_CORE_LOG_H

#include <functional>
#include <string>

namespace bsid {

/*!
 * \brief The core library's log: backend and storage choices, fallbacks.
 *
 * A warning repeated word for word is said once (the last 256 are
 * remembered), unless the level is debug.
 *
 * By default messages at `warning` and above go to stderr; the environment
 * variable BSID_LOG_LEVEL (debug, info, warning, error, off) changes the
 * threshold, as does set_log_level(). The GNU Radio blocks install a handler
 * that forwards to GNU Radio's logger.
 */
enum class log_level { debug = 0, info = 1, warning = 2, error = 3, off = 4 };

using log_handler = std::function<void(log_level, const std::string&)>;

void set_log_level(log_level level);
log_level get_log_level();
//! Replaces the handler (null restores the stderr default). Thread-safe.
void set_log_handler(log_handler handler);
//! Whether a handler is installed (the stderr default is not one).
bool has_log_handler();
void log(log_level level, const std::string& message);

log_level parse_log_level(const std::string& s);

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_LOG_H */
