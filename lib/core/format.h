/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Small string helpers for error messages (internal to lib/core).

#ifndef INCLUDED_BSID_CORE_FORMAT_H
#define INCLUDED_BSID_CORE_FORMAT_H

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

namespace bsid {
namespace detail {

//! Shortest decimal form that reads back as the same double ("0.01", "nan", "inf").
inline std::string fmt_double(double x)
{
    char buf[64];
    for (int prec = 1; prec <= 17; ++prec) {
        std::snprintf(buf, sizeof buf, "%.*g", prec, x);
        if (std::strtod(buf, nullptr) == x || x != x) {
            break;
        }
    }
    return buf;
}

template <typename... Args>
std::string concat(const Args&... args)
{
    std::ostringstream os;
    (os << ... << args);
    return os.str();
}

} // namespace detail
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_FORMAT_H */
