/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bsid_decode's parts (apps/bsid_decode*.cc): option values, input and output,
// stream framing, channel estimation. bsid_decode.cc reads the options and
// decodes frames with genie framing.

#ifndef INCLUDED_BSID_DECODE_PARTS_H
#define INCLUDED_BSID_DECODE_PARTS_H

#include <gnuradio/bsid/core/estimation/channel_estimator.h>
#include <gnuradio/bsid/core/framing/setup_watch.h>
#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/options/command_line.h>
#include <gnuradio/bsid/core/options/receiver_options.h>
#include <gnuradio/bsid/core/runtime/errors.h>
#include <gnuradio/bsid/core/runtime/log.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <new>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bsid_decode {

//! Prints "bsid_decode: msg" and exits with status 2 (bad arguments or files).
[[noreturn]] void die(const std::string& msg);

constexpr long long int_min = std::numeric_limits<int>::min();
constexpr long long int_max = std::numeric_limits<int>::max();

double number(const std::string& opt, const std::string& s);

// An integer in [lo, hi]: anything else, out-of-range values included, is an
// error (never truncated to a smaller type).
long long
integer(const std::string& opt, const std::string& s, long long lo, long long hi);

bsid::drift_range range(const std::string& opt, const std::string& s);

/*
 * A received letter of an alphabet of A from one character (--alphabet):
 * bits '0' and '1'; four letters 'A', 'C', 'G', 'T' (either case) or '0' to
 * '3'; up to ten letters the digits. -1 for a character that is none.
 */
inline int letter_of(char c, int A)
{
    static const std::string dna = "ACGT";
    if (A == 4) {
        const size_t k = dna.find(char(std::toupper((unsigned char)c)));
        if (k != std::string::npos)
            return int(k);
    }
    const int d = c >= '0' && c <= '9' ? c - '0' : -1;
    return d < A ? d : -1;
}

/*
 * A line of letters (--alphabet A > 2, --input bits): characters
 * (letter_of; up to ten letters), or integers separated by spaces or commas
 * (any alphabet; the only form beyond ten letters). Returns the letters;
 * `why` says what is not a letter (the frame is then an erasure).
 */
std::vector<uint8_t> letters_line(const std::string& line, int A, std::string& why);

// Priors: each line N*q numbers.
// Start priors: each line POSITION:WEIGHT pairs (checked against each frame when
// decoded).
std::vector<std::optional<bsid::position_weights>>
read_start_priors(const std::string& path);

// Start tags: bit positions, whitespace separated, sorted and without repeats.
std::vector<long long> read_start_tags(const std::string& path);

// One frame's N q posteriors as a line of %.17g values; `out` is written to
// stdout as it grows, never held whole.
void write_posteriors(std::string& out, const double* p, size_t NQ);

/*
 * --input llr: a received item's LLR from its text (strtod: "inf", "-inf" and
 * "nan" included; a NaN LLR makes its frame an erasure in the decoder).
 * False for a token that is not a number.
 */
bool llr_token(const std::string& tok, double& v);

/*
 * --input llr given bits: tokens that are all 0 or 1 (bits written one per
 * token), or a run of 0s and 1s that strtod would read as one number. Either
 * decodes garbage; both are refused before anything is decoded.
 */
struct bits_given_as_llrs {
    size_t tokens = 0;
    bool all_bits = true; // every token so far is "0" or "1"
    bool checked = false;

    static bool binary_run(const std::string& tok)
    {
        return tok.find_first_not_of("01") == std::string::npos;
    }
    void token(const std::string& tok)
    {
        ++tokens;
        all_bits = all_bits && (tok == "0" || tok == "1");
    }
    // a frame's line that is one run of 0s and 1s (a frame has many items)
    static void line(const std::vector<std::string>& toks, size_t lineno)
    {
        if (toks.size() == 1 && toks[0].size() > 1 && binary_run(toks[0]))
            die("--input llr: line " + std::to_string(lineno) + " is one run of " +
                std::to_string(toks[0].size()) +
                " 0s and 1s without spaces, which would be read as one number, not as " +
                "a frame: with --input llr each item is an LLR, a number of its own " +
                "separated by spaces; for bits, leave out --input llr");
    }
    // a stream's token too long for a number, made of 0s and 1s
    static void stream_token(const std::string& tok, long long item)
    {
        if (tok.size() >= 16 && binary_run(tok))
            die("--input llr: item " + std::to_string(item) +
                " is a run of 0s and 1s without spaces, which would be read as one " +
                "number: with --input llr each item is an LLR, a number of its own " +
                "separated by spaces; for bits, leave out --input llr");
    }
    // before the first decode: the tokens so far, all 0 or 1?
    void check()
    {
        if (checked)
            return;
        checked = true;
        if (tokens > 0 && all_bits)
            die("--input llr: every item read is the number 0 or 1: these are bits, not "
                "LLRs (an LLR of 0 says nothing, one of 1 little); for bits, leave out "
                "--input llr (LLRs that are 0 and 1 can be written 0.0 and 1.0)");
    }
};

// A line's numbers as LLRs; why receives the first token that is not a
// number (the line is then not a frame), if there is one.
std::vector<double> llr_line(const std::string& line,
                             std::string& why,
                             bits_given_as_llrs& guard,
                             size_t lineno);

/*
 * --framing stream: stdin is one stream of 0s and 1s (whitespace ignored,
 * any other character a byte that is not a bit), read in chunks and decoded
 * by bsid::stream_decoder; one line per frame out (flat memory).
 */
int run_stream(std::shared_ptr<bsid::frame_decoder> fdec,
               const bsid::stream_options& so,
               const std::vector<long long>& tags,
               bool print_bounds);

// --priors, --log-priors: count lines of N*q numbers each.
std::vector<std::vector<double>> read_priors(const std::string& path, size_t count);

// A JSON string: the characters that must be escaped, escaped.
std::string json_string(const std::string& s);

/*
 * --estimate: every frame of stdin (one per line) read, the channel estimated
 * from them (bsid::estimate_channel) and printed as one JSON line. A line
 * that is not a frame (a character other than 0 and 1, a token that is not
 * an LLR) is refused and counted, as the decoder would refuse it. With
 * stream framing, `lookahead` is the stream decoder's (--lookahead).
 */
int run_estimate(const bsid::frame_decoder& dec,
                 std::map<std::string, std::string>& opt,
                 bsid::input_kind input,
                 const std::vector<std::vector<double>>& priors,
                 bool log_priors,
                 bool stream,
                 int lookahead);

int print_estimate(const bsid::channel_estimate& est, size_t bad);

} // namespace bsid_decode

#endif /* INCLUDED_BSID_DECODE_PARTS_H */
