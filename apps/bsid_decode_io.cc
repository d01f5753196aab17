/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bsid_decode's option values, input files and lines, and output.

#include "bsid_decode_parts.h"

namespace bsid_decode {

[[noreturn]] void die(const std::string& msg)
{
    std::cerr << "bsid_decode: " << msg << "\n";
    std::exit(2);
}

double number(const std::string& opt, const std::string& s)
{
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0')
        die("option " + opt + ": '" + s + "' is not a number");
    return v;
}

// An integer in [lo, hi]: anything else, out-of-range values included, is an
// error (never truncated to a smaller type).
long long
integer(const std::string& opt, const std::string& s, long long lo, long long hi)
{
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0')
        die("option " + opt + ": '" + s + "' is not an integer");
    if (errno == ERANGE || v < lo || v > hi) {
        die("option " + opt + ": " + s + " is out of range [" + std::to_string(lo) +
            ", " + std::to_string(hi) + "]");
    }
    return v;
}


bsid::drift_range range(const std::string& opt, const std::string& s)
{
    const auto colon = s.find(':', s.find_first_not_of('-') == 0 ? 0 : 1);
    if (colon == std::string::npos)
        die("option " + opt + ": '" + s + "' is not LO:HI");
    return { int(integer(opt, s.substr(0, colon), int_min, int_max)),
             int(integer(opt, s.substr(colon + 1), int_min, int_max)) };
}

// Priors: each line N*q numbers.
// Start priors: each line POSITION:WEIGHT pairs (checked against each frame when
// decoded).
std::vector<std::optional<bsid::position_weights>>
read_start_priors(const std::string& path)
{
    std::ifstream f(path);
    if (!f)
        die("cannot open start prior file '" + path + "'");
    std::vector<std::optional<bsid::position_weights>> rows;
    std::string line;
    int lineno = 0;
    while (std::getline(f, line)) {
        ++lineno;
        std::istringstream is(line);
        bsid::position_weights pw;
        std::string tok;
        while (is >> tok) {
            const auto colon = tok.find(':');
            char* end = nullptr;
            errno = 0;
            const long long pos =
                colon == std::string::npos ? 0 : std::strtoll(tok.c_str(), &end, 10);
            const bool pos_ok = colon != std::string::npos &&
                                end == tok.c_str() + colon && colon > 0 &&
                                errno != ERANGE;
            const std::string w = colon == std::string::npos ? "" : tok.substr(colon + 1);
            char* wend = nullptr;
            const double weight = std::strtod(w.c_str(), &wend);
            if (!pos_ok || w.empty() || *wend != '\0') {
                die("start prior file '" + path + "', line " + std::to_string(lineno) +
                    ": '" + tok + "' is not POSITION:WEIGHT");
            }
            pw.positions.push_back(pos);
            pw.weights.push_back(weight);
        }
        if (pw.positions.empty())
            continue;
        rows.push_back(std::move(pw));
    }
    if (rows.empty())
        die("start prior file '" + path + "' holds no start priors");
    return rows;
}

// Start tags: bit positions, whitespace separated, sorted and without repeats.
std::vector<long long> read_start_tags(const std::string& path)
{
    std::ifstream f(path);
    if (!f)
        die("cannot open start tag file '" + path + "'");
    std::vector<long long> tags;
    std::string tok;
    while (f >> tok) {
        char* end = nullptr;
        errno = 0;
        const long long v = std::strtoll(tok.c_str(), &end, 10);
        if (*end != '\0' || errno == ERANGE || v < 0)
            die("start tag file '" + path + "': '" + tok + "' is not a bit position");
        tags.push_back(v);
    }
    std::sort(tags.begin(), tags.end());
    tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
    return tags;
}

// One frame's N q posteriors as a line of %.17g values; `out` is written to
// stdout as it grows, never held whole.
void write_posteriors(std::string& out, const double* p, size_t NQ)
{
    char num[32];
    for (size_t j = 0; j < NQ; ++j) {
        std::snprintf(num, sizeof num, "%.17g", p[j]);
        if (j)
            out += ' ';
        out += num;
        if (out.size() >= (1 << 20)) {
            std::fwrite(out.data(), 1, out.size(), stdout);
            out.clear();
        }
    }
    out += '\n';
}

/*
 * --input llr: a received item's LLR from its text (strtod: "inf", "-inf" and
 * "nan" included; a NaN LLR makes its frame an erasure in the decoder).
 * False for a token that is not a number.
 */
bool llr_token(const std::string& tok, double& v)
{
    char* end = nullptr;
    v = std::strtod(tok.c_str(), &end);
    return !tok.empty() && *end == '\0';
}


// A line's numbers as LLRs; why receives the first token that is not a
// number (the line is then not a frame), if there is one.
std::vector<uint8_t> letters_line(const std::string& line, int A, std::string& why)
{
    std::vector<uint8_t> out;
    const bool separated = line.find_first_of(" ,\t") != std::string::npos || A > 10;
    if (!separated) {
        for (size_t t = 0; t < line.size(); ++t) {
            const int v = letter_of(line[t], A);
            if (v < 0 && why.empty()) {
                char b[128];
                std::snprintf(b,
                              sizeof b,
                              "character 0x%02x at position %zu is not a letter of the "
                              "alphabet of %d",
                              unsigned((unsigned char)line[t]),
                              t,
                              A);
                why = b;
            }
            out.push_back(uint8_t(v < 0 ? 0 : v));
        }
        return out;
    }
    std::string tok;
    auto end_token = [&]() {
        if (tok.empty())
            return;
        char* end = nullptr;
        errno = 0;
        const long v = std::strtol(tok.c_str(), &end, 10);
        if ((*end != '\0' || errno != 0 || v < 0 || v >= A) && why.empty())
            why = "'" + tok + "' at position " + std::to_string(out.size()) +
                  " is not a letter of the alphabet (an integer 0 to " +
                  std::to_string(A - 1) + ")";
        out.push_back(uint8_t(v >= 0 && v < A ? v : 0));
        tok.clear();
    };
    for (char c : line) {
        if (c == ' ' || c == ',' || c == '\t')
            end_token();
        else
            tok += c;
    }
    end_token();
    return out;
}

std::vector<double> llr_line(const std::string& line,
                             std::string& why,
                             bits_given_as_llrs& guard,
                             size_t lineno)
{
    std::istringstream is(line);
    std::vector<double> l;
    std::vector<std::string> toks;
    std::string tok;
    double v;
    while (is >> tok) {
        if (!llr_token(tok, v) && why.empty())
            why = "'" + tok + "' at position " + std::to_string(l.size()) +
                  " is not an LLR (a number)";
        l.push_back(v);
        guard.token(tok);
        if (toks.size() < 2)
            toks.push_back(tok);
    }
    bits_given_as_llrs::line(toks, lineno);
    return l;
}

std::vector<std::vector<double>> read_priors(const std::string& path, size_t count)
{
    std::ifstream f(path);
    if (!f)
        die("cannot open priors file '" + path + "'");
    std::vector<std::vector<double>> rows;
    std::string line;
    int lineno = 0;
    while (std::getline(f, line)) {
        ++lineno;
        std::istringstream is(line);
        std::vector<double> row;
        std::string tok;
        while (is >> tok) {
            char* end = nullptr;
            const double v = std::strtod(tok.c_str(), &end);
            if (*end != '\0') {
                die("priors file '" + path + "', line " + std::to_string(lineno) + ": '" +
                    tok + "' is not a number");
            }
            row.push_back(v);
        }
        if (row.empty())
            continue;
        if (row.size() != count) {
            die("priors file '" + path + "', line " + std::to_string(lineno) + ": " +
                std::to_string(row.size()) +
                " numbers, expected N*q = " + std::to_string(count));
        }
        rows.push_back(std::move(row));
    }
    if (rows.empty())
        die("priors file '" + path + "' holds no priors");
    return rows;
}

// A JSON string: the characters that must be escaped, escaped.
std::string json_string(const std::string& s)
{
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if ((unsigned char)c < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", unsigned(c));
            out += b;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

} // namespace bsid_decode
