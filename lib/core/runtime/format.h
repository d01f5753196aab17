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
#include <stdexcept>
#include <string>
#include <vector>

namespace bsid {
namespace detail {

//! Parses a whole token as a non-negative decimal integer (false if it is not one).
inline bool parse_uint(const std::string& tok, unsigned long long& value)
{
    if (tok.empty() || tok.size() > 20)
        return false;
    unsigned long long v = 0;
    for (char c : tok) {
        if (c < '0' || c > '9')
            return false;
        const unsigned long long d = unsigned(c - '0');
        if (v > (~0ULL - d) / 10)
            return false;
        v = v * 10 + d;
    }
    value = v;
    return true;
}

//! s cut at every `sep` (an empty string gives one empty part).
inline std::vector<std::string> split_on(const std::string& s, char sep)
{
    std::vector<std::string> parts;
    std::string cur;
    for (char c : s) {
        if (c == sep) {
            parts.push_back(cur);
            cur.clear();
        } else {
            cur.push_back(c);
        }
    }
    parts.push_back(cur);
    return parts;
}

inline bool starts_with(const std::string& s, const std::string& prefix)
{
    return s.compare(0, prefix.size(), prefix) == 0;
}

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

/*!
 * The numeric fields of a spec string such as "random:n:q:P:seed": an error
 * is std::invalid_argument "<who>: spec '<spec>': <what> = ...".
 */
struct spec_numbers {
    std::string who, spec;

    //! A non-negative integer field.
    unsigned long long number(const std::string& tok, const char* what) const
    {
        unsigned long long v;
        if (!parse_uint(tok, v)) {
            throw std::invalid_argument(who + ": spec '" + spec + "': " + what + " = '" +
                                        tok + "' is not a non-negative integer");
        }
        return v;
    }
    //! A size field: at most 10^8.
    int small(const std::string& tok, const char* what) const
    {
        const unsigned long long v = number(tok, what);
        if (v > 100000000ULL) {
            throw std::invalid_argument(
                concat(who, ": spec '", spec, "': ", what, " = ", v, " is too large"));
        }
        return int(v);
    }
};

} // namespace detail
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_FORMAT_H */
