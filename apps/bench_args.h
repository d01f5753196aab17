/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bsid_bench's option values: comma lists of words, numbers and integers.

#ifndef INCLUDED_BSID_APPS_BENCH_ARGS_H
#define INCLUDED_BSID_APPS_BENCH_ARGS_H

#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {

inline std::vector<std::string> parse_words(const std::string& s)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        out.push_back(item);
    return out;
}

inline std::vector<double> parse_list(const std::string& opt, const std::string& s)
{
    std::vector<double> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) {
        char* end = nullptr;
        const double v = std::strtod(item.c_str(), &end);
        if (item.empty() || *end != '\0') {
            throw std::invalid_argument("option " + opt + ": '" + item +
                                        "' is not a number");
        }
        out.push_back(v);
    }
    if (out.empty()) {
        throw std::invalid_argument("option " + opt + " needs a value");
    }
    return out;
}

inline long long parse_int(const std::string& opt, const std::string& s)
{
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0') {
        throw std::invalid_argument("option " + opt + ": '" + s + "' is not an integer");
    }
    return v;
}

} // namespace bench

#endif /* INCLUDED_BSID_APPS_BENCH_ARGS_H */
