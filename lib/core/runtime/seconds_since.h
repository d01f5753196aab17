/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_SECONDS_SINCE_H
#define INCLUDED_BSID_CORE_SECONDS_SINCE_H

#include <chrono>

namespace bsid::detail {

//! The wall time from t0 to now, in seconds (the stage times' clock).
inline double seconds_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace bsid::detail

#endif /* INCLUDED_BSID_CORE_SECONDS_SINCE_H */
