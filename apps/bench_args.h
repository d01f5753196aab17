/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bsid_bench's option values: comma lists of words, numbers and integers.

#ifndef INCLUDED_BSID_APPS_BENCH_ARGS_H
#define INCLUDED_BSID_APPS_BENCH_ARGS_H

#include <gnuradio/bsid/core/map_decoder.h>
#include <chrono>
#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {

//! Seconds from t0 to now (steady clock).
inline double seconds_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

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

//! The value of option `key`, or `dflt` when it is not given.
inline std::string option(const std::map<std::string, std::string>& opt,
                          const std::string& key,
                          const std::string& dflt)
{
    const auto it = opt.find(key);
    return it == opt.end() ? dflt : it->second;
}

//! The codebook spec of --codebook, or random:n:q:1:1 from -n and -q.
inline std::string codebook_spec(const std::map<std::string, std::string>& opt)
{
    return opt.count("--codebook") ? opt.at("--codebook")
                                   : "random:" + option(opt, "-n", "8") + ":" +
                                         option(opt, "-q", "16") + ":1:1";
}

/*!
 * --devices: device lists separated by '/' ("0/0,1": one GPU, then two), each
 * as bsid::parse_devices takes it ("all", "0,1"); each checked here, before
 * any work. Default: one empty list (decoder_config::device alone).
 */
inline std::vector<std::string>
device_lists(const std::map<std::string, std::string>& opt)
{
    std::vector<std::string> lists;
    std::string cur;
    for (char c : option(opt, "--devices", "") + "/") {
        if (c != '/') {
            cur.push_back(c);
            continue;
        }
        bsid::parse_devices(cur); // std::invalid_argument naming the list
        lists.push_back(cur);
        cur.clear();
    }
    return lists;
}

} // namespace bench

#endif /* INCLUDED_BSID_APPS_BENCH_ARGS_H */
