/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_LOG_HANDLER_H
#define INCLUDED_BSID_CORE_LOG_HANDLER_H

namespace gr {
namespace bsid {

/*!
 * Sends the core library's log (bsid::log: backend choices, storage and CPU
 * fallbacks, CUDA out of memory) to GNU Radio's logger, under the name
 * "bsid_core", so that it reaches the same console, files and levels as the
 * blocks' own messages. Every block calls it on construction; only the first
 * call does anything, and a handler the application installed
 * (bsid::set_log_handler) is kept. Unless BSID_LOG_LEVEL is set, the core
 * then passes every level on and GNU Radio's log level decides.
 */
void install_core_log_handler();

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_CORE_LOG_HANDLER_H */
