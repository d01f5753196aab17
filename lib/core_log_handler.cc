/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core_log_handler.h"
#include <gnuradio/bsid/core/runtime/log.h>
#include <gnuradio/logger.h>
#include <cstdlib>
#include <memory>
#include <mutex>

namespace gr {
namespace bsid {

void install_core_log_handler()
{
    static std::once_flag once;
    std::call_once(once, [] {
        if (::bsid::has_log_handler())
            return; // the application's own stays
        auto logger = std::make_shared<gr::logger>("bsid_core");
        ::bsid::set_log_handler(
            [logger](::bsid::log_level level, const std::string& msg) {
                switch (level) {
                case ::bsid::log_level::debug:
                    logger->debug("{}", msg);
                    break;
                case ::bsid::log_level::info:
                    logger->info("{}", msg);
                    break;
                case ::bsid::log_level::warning:
                    logger->warn("{}", msg);
                    break;
                default:
                    logger->error("{}", msg);
                    break;
                }
            });
        if (!std::getenv("BSID_LOG_LEVEL"))
            ::bsid::set_log_level(::bsid::log_level::debug);
    });
}

} // namespace bsid
} // namespace gr
