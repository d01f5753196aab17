/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bsid_bench's options: argv read through bsid::read_command_line into a map
// of name to text, and its values: comma lists of words, numbers and
// integers, the single values it shares with the blocks (read through
// bsid::receiver_option_table()), and the options that several benchmarks
// share. Each helper takes the option's name and its default as text, as the
// usage lists them, and reports a bad value with the option's name.

#ifndef INCLUDED_BSID_APPS_BENCH_ARGS_H
#define INCLUDED_BSID_APPS_BENCH_ARGS_H

#include <gnuradio/bsid/core/channel/channel_params.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/options/command_line.h>
#include <gnuradio/bsid/core/options/receiver_options.h>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {

//! Every option of bsid_bench, as typed; --no-profile alone takes no value.
inline const std::vector<bsid::command_line_option>& options()
{
    static const std::vector<bsid::command_line_option> all = { { "--bench" },
                                                                { "-N" },
                                                                { "-n" },
                                                                { "--tau" },
                                                                { "--Pi" },
                                                                { "--Pd" },
                                                                { "--Ps" },
                                                                { "--alphabet" },
                                                                { "--threads" },
                                                                { "--frames" },
                                                                { "--min-time" },
                                                                { "--min-calls" },
                                                                { "--seed" },
                                                                { "--drift" },
                                                                { "-q" },
                                                                { "--codebook" },
                                                                { "--backend" },
                                                                { "--storage" },
                                                                { "--precision" },
                                                                { "--batch" },
                                                                { "--input" },
                                                                { "--llr-sigma" },
                                                                { "--Pr" },
                                                                { "--compare" },
                                                                { "--framing" },
                                                                { "--cuda-streams" },
                                                                { "--share-g" },
                                                                { "--local-window" },
                                                                { "--streams" },
                                                                { "--stream-frames" },
                                                                { "--lookahead" },
                                                                { "--sync-word" },
                                                                { "--workers" },
                                                                { "--initial" },
                                                                { "--iterations" },
                                                                { "--tolerance" },
                                                                { "--fix" },
                                                                { "--outer" },
                                                                { "--bp-iterations" },
                                                                { "--loop" },
                                                                { "--max-delay-ms" },
                                                                { "--pace-ms" },
                                                                { "--devices" },
                                                                { "--reads" },
                                                                { "--read-method" },
                                                                { "--no-profile",
                                                                  false } };
    return all;
}

/*!
 * The options of argv (bsid::read_command_line against options()): their
 * map, name to text ("" for --no-profile); help set for -h or --help.
 * bsid::command_line_error for an unknown option (naming the one meant), a
 * missing value or an option given twice.
 */
inline std::map<std::string, std::string> read_options(int argc, char** argv, bool& help)
{
    const bsid::command_line cl = bsid::read_command_line(argc, argv, options());
    help = cl.help;
    return cl.values();
}

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

/*!
 * Option `key`, one value of an option the benchmarks share with the blocks
 * (--Pr, --sync-word, --max-delay-ms), read through
 * bsid::receiver_option_table() (its name there: bsid::table_name(key)),
 * or `dflt` when it is not given.
 */
inline bsid::option_value receiver_option(const std::map<std::string, std::string>& opt,
                                          const std::string& key,
                                          const std::string& dflt)
{
    const auto& table = bsid::receiver_option_table();
    const std::string name = bsid::table_name(key);
    const std::string text = option(opt, key, dflt);
    bsid::receiver_options ro;
    try {
        table.read(ro, name, text);
    } catch (const bsid::option_type_error&) {
        throw std::invalid_argument("option " + key + ": '" + text + "' is not " +
                                    bsid::describe(table.find(name).type));
    }
    return table.get(ro, name);
}

//! Option `key`, a number shared with the blocks (--Pr, --max-delay-ms).
inline double receiver_number(const std::map<std::string, std::string>& opt,
                              const std::string& key,
                              const std::string& dflt)
{
    return std::get<double>(receiver_option(opt, key, dflt));
}

//! Option `key` as a comma list of words (--backend, --precision ...).
inline std::vector<std::string>
words_option(const std::map<std::string, std::string>& opt,
             const std::string& key,
             const std::string& dflt)
{
    return parse_words(option(opt, key, dflt));
}

//! Option `key` as a comma list of numbers.
inline std::vector<double> list_option(const std::map<std::string, std::string>& opt,
                                       const std::string& key,
                                       const std::string& dflt)
{
    return parse_list(key, option(opt, key, dflt));
}

//! Option `key` as one number: the first of its comma list.
inline double number_option(const std::map<std::string, std::string>& opt,
                            const std::string& key,
                            const std::string& dflt)
{
    return list_option(opt, key, dflt)[0];
}

//! Option `key` as an integer.
inline long long int_option(const std::map<std::string, std::string>& opt,
                            const std::string& key,
                            const std::string& dflt)
{
    return parse_int(key, option(opt, key, dflt));
}

//! Option `key` as an integer of at least 1 ("<key> must be at least 1").
inline long long count_option(const std::map<std::string, std::string>& opt,
                              const std::string& key,
                              const std::string& dflt)
{
    const long long v = int_option(opt, key, dflt);
    if (v < 1)
        throw std::invalid_argument(key + " must be at least 1");
    return v;
}

//! --seed, the seed of the frames and the channel (default 1).
inline uint64_t seed_option(const std::map<std::string, std::string>& opt)
{
    return uint64_t(int_option(opt, "--seed", "1"));
}

//! --llr-sigma, the noise of --input llr (default 0.5), positive.
inline double llr_sigma_option(const std::map<std::string, std::string>& opt)
{
    const double s = number_option(opt, "--llr-sigma", "0.5");
    if (!(s > 0))
        throw std::invalid_argument("--llr-sigma must be positive");
    return s;
}

//! --alphabet: the channel's and the code's letters (default 2, bits; 2 to 256).
inline int alphabet_option(const std::map<std::string, std::string>& opt)
{
    const long long A = int_option(opt, "--alphabet", "2");
    if (A < 2 || A > 256)
        throw std::invalid_argument("--alphabet " + std::to_string(A) +
                                    " must lie in 2 .. 256");
    return int(A);
}

/*!
 * One channel from --Pi, --Pd and --Ps (the first of each list; the
 * defaults as text), checked by bsid::channel_params.
 */
inline bsid::channel_params channel_option(const std::map<std::string, std::string>& opt,
                                           const std::string& Pi,
                                           const std::string& Pd,
                                           const std::string& Ps)
{
    return bsid::channel_params(number_option(opt, "--Pi", Pi),
                                number_option(opt, "--Pd", Pd),
                                number_option(opt, "--Ps", Ps),
                                alphabet_option(opt));
}

/*!
 * The channels of --Pi, --Pd and --Ps as comma lists: every combination, Pi
 * the slowest to change and Ps the fastest. A channel is built (and checked
 * by bsid::channel_params) only when it is asked for, as the benchmark comes
 * to it.
 */
struct channel_grid {
    std::vector<double> Pi, Pd, Ps;
    int alphabet = 2;

    size_t size() const { return Pi.size() * Pd.size() * Ps.size(); }

    bsid::channel_params operator[](size_t k) const
    {
        const size_t s = k % Ps.size(), d = k / Ps.size() % Pd.size(),
                     i = k / Ps.size() / Pd.size();
        return bsid::channel_params(Pi[i], Pd[d], Ps[s], alphabet);
    }
};

//! The channel_grid of --Pi, --Pd and --Ps, with their defaults as text.
inline channel_grid channel_grid_option(const std::map<std::string, std::string>& opt,
                                        const std::string& Pi,
                                        const std::string& Pd,
                                        const std::string& Ps)
{
    return { list_option(opt, "--Pi", Pi),
             list_option(opt, "--Pd", Pd),
             list_option(opt, "--Ps", Ps),
             alphabet_option(opt) };
}

//! The codebook spec of --codebook, or random:n:q:1:1 from -n and -q.
inline std::string codebook_spec(const std::map<std::string, std::string>& opt)
{
    return opt.count("--codebook") ? opt.at("--codebook")
                                   : "random:" + option(opt, "-n", "8") + ":" +
                                         option(opt, "-q", "16") + ":1:1";
}

//! -N (message symbols per frame, default 500, at least 1) and the codebook.
struct frame_code {
    long long N;
    std::string spec; //!< as codebook_spec gives it
    bsid::codebook cb;
};

//! -N, checked, then the codebook of codebook_spec.
inline frame_code frame_code_option(const std::map<std::string, std::string>& opt)
{
    const long long N = count_option(opt, "-N", "500");
    const std::string spec = codebook_spec(opt);
    return { N, spec, bsid::codebook::from_spec(spec, alphabet_option(opt)) };
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
