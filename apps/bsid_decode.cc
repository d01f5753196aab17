/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bsid_decode: MAP-decodes frames captured elsewhere. The format is fixed,
// because external scripts depend on it (docs/bsid_decode.md):
//
//   bsid_decode --codebook SPEC -N 50 --Pi 0.01 --Pd 0.01 --Ps 0
//               [--backend cpu|cuda|auto] [--precision float|double]
//               [--storage global|local|auto] [--Pr 1e-10] [--mtau LO:HI]
//               [--mn LO:HI] [--priors FILE | --log-priors FILE] [--threads T]
//               < frames.txt > posteriors.txt
//   bsid_decode ... --framing stream [--start-tags FILE] ... < stream.txt
//   bsid_decode ... --estimate [--iterations I] < frames.txt > estimate.json
//
// In: one frame per line, the characters 0 and 1 (an empty line is an empty
// frame), or with --input llr the frame's LLRs as numbers. Out: one line per frame, N*q
// numbers in %.17g separated by spaces, symbol-major; a refused frame prints "erasure
// <reason>". Exit status 0 unless the arguments or files are invalid.

#include <gnuradio/bsid/core/estimation/channel_estimator.h>
#include <gnuradio/bsid/core/framing/setup_watch.h>
#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/runtime/errors.h>
#include <gnuradio/bsid/core/runtime/log.h>

#include <algorithm>
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

namespace {

const char* usage =
    R"(usage: bsid_decode --codebook SPEC -N N --Pi P --Pd P --Ps P [options] < frames.txt

Decodes received frames with the MAP decoder and prints symbol posteriors.

Required:
  --codebook SPEC   builtin:NAME, file:PATH (or a path), random:n:q:P:seed, sparse:n:q
  -N N              message symbols per frame
  --Pi, --Pd, --Ps  channel probabilities

Options:
  --backend B       cpu | cuda | auto (default auto)
  --precision P     float | double (default float)
  --storage S       global | local | auto (default auto)
  --Pr X            drift exclusion probability (default 1e-10)
  --mtau LO:HI      explicit limits for the drift at codeword boundaries
  --mn LO:HI        explicit limits for the drift within a codeword
  --priors FILE     one line of N*q prior probabilities per frame, or one line for all
  --log-priors FILE the same as natural logs (any constant per symbol; -inf: a zero prior)
  --threads T       threads (default 0: all cores)
  --batch K         frames decoded together (default 256)
  --input I         bits (default): 0s and 1s; llr: soft input, LLRs
                    ln p(r|1) - ln p(r|0) as numbers separated by spaces
                    (inf and -inf are hard bits; nan makes the frame an erasure)
  --log-level L     debug | info | warning | error | off: the log on stderr
                    (default warning, or the BSID_LOG_LEVEL environment
                    variable's); warnings include a setup that does not fit
                    the frames (docs/receiving.md)

Frame boundaries (docs/frame_boundaries.md):
  --sync-word W     the word (0s and 1s) that begins every frame
  --start-prior F   start priors: one line per frame, or one line for all, of
                    POSITION:WEIGHT pairs (default: every frame starts at 0)
  --end E           known (default: the frame ends with its line) | free
  --lookahead K     with --end free: the next frame's first K symbols follow
  --boundaries      after each frame, print its start, end and forward end
                    posteriors (lines "start", "end", "forward" of POS:P pairs)

Channel estimation (docs/receiving.md, "Channel estimation"):
  --estimate        instead of decoding, estimate Pi, Pd, Ps (and for --input
                    llr the LLRs' scale) from all the frames by EM, starting at
                    --Pi, --Pd, --Ps; prints one JSON line: Pi, Pd, Ps,
                    llr_scale, iterations, converged, frames_used,
                    frames_refused, log_likelihoods, events, notes. Frames are
                    lines (with --sync-word, each begins with it), or with
                    --framing stream one stream decoded frame after frame from
                    position 0 at each iteration (--lookahead applies)
  --iterations I    at most I EM iterations (default 100)
  --tolerance X     stop when no estimate moves by more than X, relative
                    (default 1e-4)
  --fix NAMES       keep these at their initial values: a comma list of Pi,
                    Pd, Ps, llr_scale
  --llr-scale C     the initial LLR scale (default 1)

Stream framing (docs/receiving.md, docs/bsid_decode.md):
  --framing F       lines (default): one frame per line, as above; stream: the
                    input is one continuous stream of 0s and 1s (line breaks and
                    spaces are ignored), decoded frame after frame
  --lookahead K     the next frame's symbols weighed after each frame (default:
                    0 with a sync word, 2 without)
  --start POS       the first frame's first bit (default 0)
  --unsynchronized  acquire the first frame (at a start tag or by search)
  --start-tags FILE bit positions of start tags (whitespace separated)
  --tag-offset D    a frame starts at its tag + D (default -G: tags on the bit
                    after the sync word)
  --acquire-window W  half width in bits of the start prior at a tag (default 4)
  --sync-threshold T  the least log-likelihood ratio of a frame in sync (default 0)
  --no-search       re-acquire only at start tags
  --boundaries      after each frame's line, a line "frame INDEX STATUS START END
                    START_DRIFT END_DRIFT END_PROBABILITY LOG_LIKELIHOOD_RATIO"

Input (stdin): one frame per line, as the characters 0 and 1 (with --input llr,
as numbers separated by spaces); an empty line is an empty frame. Output (stdout): one line per frame, N*q numbers (%.17g,
symbol-major: the q values of symbol 0, then symbol 1, ...), or
"erasure <reason>" for a refused frame.
)";

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

constexpr long long int_min = std::numeric_limits<int>::min();
constexpr long long int_max = std::numeric_limits<int>::max();

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

/*
 * --framing stream: stdin is one stream of 0s and 1s (whitespace ignored,
 * any other character a byte that is not a bit), read in chunks and decoded
 * by bsid::stream_decoder; one line per frame out (flat memory).
 */
int run_stream(std::shared_ptr<bsid::frame_decoder> fdec,
               const bsid::stream_options& so,
               const std::vector<long long>& tags,
               bool print_bounds)
{
    const bool soft = so.input == bsid::input_kind::llr;
    bsid::stream_decoder sd(fdec, so);
    const size_t NQ = size_t(fdec->N()) * size_t(fdec->q());
    auto print = [&](const std::vector<bsid::stream_frame>& frames) {
        std::string out;
        char buf[256];
        for (const auto& f : frames) {
            if (f.result.ok())
                write_posteriors(out, f.posteriors.data(), NQ);
            else
                out += "erasure " + std::string(bsid::to_string(f.result.status)) + ": " +
                       f.result.reason + "\n";
            if (print_bounds) {
                std::snprintf(buf,
                              sizeof buf,
                              "frame %llu %s %lld %lld %lld %lld %.17g %.17g\n",
                              (unsigned long long)f.index,
                              bsid::to_string(f.result.status),
                              f.start,
                              f.end,
                              f.start_drift(),
                              f.end_drift(),
                              f.end_probability,
                              f.log_likelihood_ratio);
                out += buf;
            }
        }
        std::fwrite(out.data(), 1, out.size(), stdout);
    };
    std::vector<char> in(1 << 16);
    std::vector<uint8_t> chunk;
    std::vector<double> llr_chunk; // --input llr
    std::string tok;               // an LLR's text, across reads
    std::vector<size_t> here;
    size_t next_tag = 0;
    long long pos = 0; // bits pushed so far
    size_t got;
    auto item = [&]() {
        return pos + (long long)(soft ? llr_chunk.size() : chunk.size());
    };
    auto tag_here = [&]() {
        while (next_tag < tags.size() && tags[next_tag] == item())
            here.push_back(size_t(item() - pos)), ++next_tag;
    };
    bits_given_as_llrs guard;
    auto end_token = [&]() {
        if (tok.empty())
            return;
        tag_here();
        guard.token(tok);
        bits_given_as_llrs::stream_token(tok, item());
        double v;
        if (!llr_token(tok, v)) {
            std::cerr << "bsid_decode: '" << tok << "' at item " << item()
                      << " is not an LLR; taken as NaN (its frame is an erasure)\n";
            v = std::numeric_limits<double>::quiet_NaN();
        }
        llr_chunk.push_back(v);
        tok.clear();
    };
    auto push = [&]() {
        if (soft) {
            guard.check();
            print(sd.push(llr_chunk.data(), llr_chunk.size(), here));
            pos += (long long)llr_chunk.size();
        } else {
            print(sd.push(chunk.data(), chunk.size(), here));
            pos += (long long)chunk.size();
        }
        chunk.clear();
        llr_chunk.clear();
        here.clear();
    };
    while ((got = std::fread(in.data(), 1, in.size(), stdin)) > 0) {
        for (size_t j = 0; j < got; ++j) {
            const char c = in[j];
            const bool space = c == '\n' || c == '\r' || c == ' ' || c == '\t';
            if (soft) {
                if (space)
                    end_token();
                else if (tok.size() < 64)
                    tok += c;
                else if (tok[0] != '?') {
                    bits_given_as_llrs::stream_token(tok, item());
                    tok[0] = '?'; // far too long for a number: not one
                }
                continue;
            }
            if (space)
                continue;
            tag_here();
            chunk.push_back(c == '0' ? 0 : c == '1' ? 1 : 2); // 2: not a bit (an erasure)
        }
        push();
    }
    end_token();
    push();
    if (next_tag < tags.size())
        std::cerr << "bsid_decode: " << tags.size() - next_tag
                  << " start tags lie at or after the end of the stream (" << pos
                  << " bits); ignored\n";
    print(sd.flush());
    std::fflush(stdout);
    return 0;
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

int print_estimate(const bsid::channel_estimate& est, size_t bad);

/*
 * --estimate: every frame of stdin (one per line) read, the channel estimated
 * from them (bsid::estimate_channel) and printed as one JSON line. A line
 * that is not a frame (a character other than 0 and 1, a token that is not
 * an LLR) is refused and counted, as the decoder would refuse it.
 */
int run_estimate(const bsid::frame_decoder& dec,
                 std::map<std::string, std::string>& opt,
                 bsid::input_kind input,
                 const std::vector<std::vector<double>>& priors,
                 bool log_priors,
                 bool stream)
{
    bsid::estimate_options eo;
    // progress on stderr, one line an iteration, once the estimate has run
    // for 2 s (a short one stays quiet); not below --log-level warning
    const auto t0 = std::chrono::steady_clock::now();
    eo.on_iteration = [t0](int it, double ll, const bsid::channel_params& ch) {
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s < 2.0 || bsid::get_log_level() > bsid::log_level::warning)
            return;
        std::fprintf(stderr,
                     "bsid_decode: --estimate: iteration %d (%.0f s): log-likelihood "
                     "%.6g, then Pi = %.4g, Pd = %.4g, Ps = %.4g\n",
                     it + 1,
                     s,
                     ll,
                     ch.Pi(),
                     ch.Pd(),
                     ch.Ps());
        std::fflush(stderr);
    };
    if (opt.count("--iterations"))
        eo.iterations = int(integer("--iterations", opt["--iterations"], 1, 1 << 20));
    if (opt.count("--tolerance"))
        eo.tolerance = number("--tolerance", opt["--tolerance"]);
    if (opt.count("--llr-scale"))
        eo.llr_scale = number("--llr-scale", opt["--llr-scale"]);
    if (opt.count("--fix")) {
        std::stringstream ss(opt["--fix"]);
        std::string name;
        while (std::getline(ss, name, ',')) {
            try {
                eo.fix(name);
            } catch (const std::invalid_argument& e) {
                die(std::string("--fix: ") + e.what());
            }
        }
    }
    const bool soft = input == bsid::input_kind::llr;
    std::vector<std::vector<uint8_t>> bits;
    std::vector<std::vector<double>> llrs;
    std::vector<size_t> line_of; // the frames' line indices (for their priors)
    size_t bad = 0, count = 0;
    std::string line;
    bsid::channel_estimate est;
    bits_given_as_llrs guard; // --input llr given bits
    if (stream) {
        // the whole stream: 0s and 1s (whitespace ignored), or LLRs
        std::vector<uint8_t> b;
        std::vector<double> l;
        std::string tok;
        size_t pos = 0;
        while (std::cin >> tok) {
            if (soft) {
                double v;
                guard.token(tok);
                bits_given_as_llrs::stream_token(tok, (long long)l.size());
                if (!llr_token(tok, v))
                    die("--estimate: '" + tok + "' at item " + std::to_string(l.size()) +
                        " of the stream is not an LLR (a number)");
                l.push_back(v);
                continue;
            }
            for (const char c : tok) {
                if (c != '0' && c != '1')
                    die("--estimate: character '" + std::string(1, c) + "' at item " +
                        std::to_string(pos) + " of the stream is not 0 or 1");
                b.push_back(uint8_t(c - '0'));
                ++pos;
            }
        }
        if (soft)
            guard.check();
        bsid::stream_options so;
        if (opt.count("--lookahead"))
            so.lookahead = int(integer("--lookahead", opt["--lookahead"], 0, dec.N()));
        try {
            est = bsid::estimate_channel_stream(
                dec.config(),
                soft ? bsid::received_items{ nullptr, l.data() }
                     : bsid::received_items{ b.data(), nullptr },
                soft ? l.size() : b.size(),
                eo,
                dec.sync_word(),
                so);
        } catch (const std::exception& e) {
            die(e.what());
        }
        return print_estimate(est, 0);
    }
    while (std::getline(std::cin, line)) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        bool ok = true;
        if (soft) {
            std::string why;
            auto l = llr_line(line, why, guard, count + 1);
            ok = why.empty();
            if (ok)
                llrs.push_back(std::move(l));
        } else {
            std::vector<uint8_t> b;
            for (const char c : line) {
                ok = ok && (c == '0' || c == '1');
                b.push_back(uint8_t(c - '0'));
            }
            if (ok)
                bits.push_back(std::move(b));
        }
        if (ok)
            line_of.push_back(count);
        else
            ++bad;
        ++count;
    }
    if (soft)
        guard.check();
    if (!priors.empty() && priors.size() != 1 && priors.size() < count)
        die("priors file has " + std::to_string(priors.size()) + " lines but there are " +
            std::to_string(count) + " frames");
    std::vector<bsid::frame_view> views;
    for (size_t k = 0; k < line_of.size(); ++k) {
        bsid::frame_view v;
        if (soft) {
            v.llr = llrs[k].data();
            v.rho = llrs[k].size();
        } else {
            v.bits = bits[k].data();
            v.rho = bits[k].size();
        }
        if (!priors.empty()) {
            v.priors = priors[priors.size() == 1 ? 0 : line_of[k]].data();
            v.log_priors = log_priors;
        }
        views.push_back(v);
    }
    if (views.empty())
        die(count == 0 ? "--estimate: no frames on stdin"
                       : "--estimate: no line of stdin is a frame (" +
                             std::to_string(bad) + " lines of other characters)");
    try {
        est = bsid::estimate_channel(dec.config(), views, eo, dec.sync_word());
    } catch (const std::exception& e) {
        die(e.what());
    }
    return print_estimate(est, bad);
}

// --estimate's output: one JSON line (bad: lines refused before decoding)
int print_estimate(const bsid::channel_estimate& est, size_t bad)
{
    char b[64];
    auto num = [&](double x) {
        std::snprintf(b, sizeof b, "%.17g", x);
        return std::string(b);
    };
    std::string out = "{\"Pi\":" + num(est.ch.Pi()) + ",\"Pd\":" + num(est.ch.Pd()) +
                      ",\"Ps\":" + num(est.ch.Ps()) +
                      ",\"llr_scale\":" + num(est.llr_scale) +
                      ",\"iterations\":" + std::to_string(est.iterations) +
                      ",\"converged\":" + (est.converged ? "true" : "false") +
                      ",\"frames_used\":" + std::to_string(est.frames_used) +
                      ",\"frames_refused\":" + std::to_string(est.frames_refused + bad) +
                      ",\"log_likelihoods\":[";
    for (size_t k = 0; k < est.log_likelihoods.size(); ++k)
        out += (k ? "," : "") + num(est.log_likelihoods[k]);
    out += "],\"events\":{\"insertions\":" + num(est.events.ins) +
           ",\"deletions\":" + num(est.events.del) +
           ",\"transmissions\":" + num(est.events.trans) +
           ",\"substitutions\":" + num(est.events.subst) + "},\"notes\":[";
    for (size_t k = 0; k < est.notes.size(); ++k)
        out += (k ? "," : "") + json_string(est.notes[k]);
    out += "]}\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

int run(int argc, char** argv)
{
    // a line that cannot be read (out of memory for it, an I/O error) is an
    // error, not the end of the input: getline rethrows what stopped it
    std::cin.exceptions(std::ios::badbit);
    std::map<std::string, std::string> opt;
    static const std::vector<std::string> known = { "--codebook",
                                                    "-N",
                                                    "--Pi",
                                                    "--Pd",
                                                    "--Ps",
                                                    "--backend",
                                                    "--precision",
                                                    "--storage",
                                                    "--Pr",
                                                    "--mtau",
                                                    "--mn",
                                                    "--priors",
                                                    "--threads",
                                                    "--batch",
                                                    "--log-priors",
                                                    "--sync-word",
                                                    "--start-prior",
                                                    "--end",
                                                    "--lookahead",
                                                    "--boundaries",
                                                    "--framing",
                                                    "--start",
                                                    "--unsynchronized",
                                                    "--start-tags",
                                                    "--tag-offset",
                                                    "--acquire-window",
                                                    "--sync-threshold",
                                                    "--no-search",
                                                    "--input",
                                                    "--estimate",
                                                    "--iterations",
                                                    "--tolerance",
                                                    "--fix",
                                                    "--llr-scale",
                                                    "--log-level" };
    static const std::vector<std::string> flags = {
        "--boundaries", "--unsynchronized", "--no-search", "--estimate"
    }; // no value
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            std::cout << usage;
            return 0;
        }
        // --opt=value, as well as --opt value
        std::optional<std::string> value;
        const auto eq = a.find('=');
        if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = a.substr(eq + 1);
            a = a.substr(0, eq);
        }
        bool ok = false;
        for (const auto& k : known)
            ok = ok || a == k;
        if (!ok)
            die("unknown argument '" + a + "' (see --help)");
        if (opt.count(a))
            die("option " + a + " is given twice");
        if (std::find(flags.begin(), flags.end(), a) != flags.end()) {
            if (value)
                die("option " + a + " takes no value");
            opt[a] = "";
            continue;
        }
        if (!value) {
            if (i + 1 >= argc)
                die("option " + a + " needs a value");
            value = argv[++i];
        }
        opt[a] = *value;
    }
    if (opt.count("--log-level")) {
        try {
            bsid::set_log_level(bsid::parse_log_level(opt["--log-level"]));
        } catch (const std::exception& e) {
            die(std::string("--log-level: ") + e.what());
        }
    }
    for (const char* req : { "--codebook", "-N", "--Pi", "--Pd", "--Ps" }) {
        if (!opt.count(req))
            die(std::string("missing ") + req + " (see --help)");
    }

    const std::string framing = opt.count("--framing") ? opt["--framing"] : "lines";
    if (framing != "lines" && framing != "stream")
        die("--framing '" + framing + "' is not one of lines, stream");
    const bool stream = framing == "stream";
    for (const char* k :
         { "--end", "--start-prior", "--priors", "--log-priors", "--batch" }) {
        if (stream && opt.count(k))
            die(std::string(k) + " does not apply to --framing stream");
    }
    for (const char* k : { "--start",
                           "--unsynchronized",
                           "--start-tags",
                           "--tag-offset",
                           "--acquire-window",
                           "--sync-threshold",
                           "--no-search" }) {
        if (!stream && opt.count(k))
            die(std::string(k) + " needs --framing stream");
    }
    if (opt.count("--start") && opt.count("--unsynchronized"))
        die("give --start or --unsynchronized, not both");
    const bool estimate = opt.count("--estimate") > 0;
    for (const char* k : { "--iterations", "--tolerance", "--fix", "--llr-scale" }) {
        if (!estimate && opt.count(k))
            die(std::string(k) + " needs --estimate");
    }
    if (estimate) {
        for (const char* k : { "--start-prior",
                               "--end",
                               "--boundaries",
                               "--batch",
                               "--start",
                               "--unsynchronized",
                               "--start-tags",
                               "--tag-offset",
                               "--acquire-window",
                               "--sync-threshold",
                               "--no-search" }) {
            if (opt.count(k))
                die(std::string(k) + " does not apply to --estimate");
        }
        if (!stream && opt.count("--lookahead"))
            die("--lookahead needs --framing stream");
    }

    std::shared_ptr<bsid::frame_decoder> fdec;
    bsid::map_decoder* dec = nullptr;                          // fdec's primary backend
    std::vector<std::optional<bsid::position_weights>> starts; // --start-prior lines
    bsid::end_mode end = bsid::end_mode::known;
    int lookahead = 0;
    std::vector<std::vector<double>> priors;
    bool log_priors = false; // --log-priors: priors holds natural logs
    size_t batch = 256;
    bsid::input_kind input = bsid::input_kind::bits;
    try {
        if (opt.count("--input"))
            input = bsid::parse_input_kind(opt["--input"]);
        const bsid::codebook cb = bsid::codebook::from_spec(opt["--codebook"]);
        const bsid::channel_params ch(number("--Pi", opt["--Pi"]),
                                      number("--Pd", opt["--Pd"]),
                                      number("--Ps", opt["--Ps"]));
        const long long N = integer("-N", opt["-N"], 1, 1 << 30);
        bsid::decoder_config cfg(cb, ch, int(N));
        if (opt.count("--backend"))
            cfg.backend = bsid::parse_backend(opt["--backend"]);
        if (opt.count("--precision"))
            cfg.precision = bsid::parse_precision(opt["--precision"]);
        if (opt.count("--storage"))
            cfg.storage = bsid::parse_storage(opt["--storage"]);
        if (opt.count("--Pr"))
            cfg.Pr = number("--Pr", opt["--Pr"]);
        if (opt.count("--mtau"))
            cfg.mtau = range("--mtau", opt["--mtau"]);
        if (opt.count("--mn"))
            cfg.mn = range("--mn", opt["--mn"]);
        if (opt.count("--threads")) {
            cfg.threads = int(integer("--threads", opt["--threads"], 0, 4096));
        }
        if (opt.count("--batch"))
            batch = size_t(integer("--batch", opt["--batch"], 1, 1 << 20));
        const auto sync =
            bsid::parse_sync_word(opt.count("--sync-word") ? opt["--sync-word"] : "");
        fdec = std::make_shared<bsid::frame_decoder>(cfg, sync);
        dec = &fdec->primary();
        if (stream && opt.count("--estimate"))
            return run_estimate(*fdec, opt, input, priors, log_priors, true);
        if (stream) {
            bsid::stream_options so;
            if (opt.count("--lookahead"))
                so.lookahead = int(integer("--lookahead", opt["--lookahead"], 0, N));
            if (opt.count("--start")) {
                so.first_start = bsid::position_weights{
                    { integer("--start",
                              opt["--start"],
                              0,
                              std::numeric_limits<long long>::max()) },
                    { 1.0 }
                };
            }
            if (opt.count("--unsynchronized"))
                so.first_start.reset();
            if (opt.count("--tag-offset"))
                so.tag_offset =
                    integer("--tag-offset", opt["--tag-offset"], -(1LL << 40), 1LL << 40);
            if (opt.count("--acquire-window"))
                so.acquire_window =
                    int(integer("--acquire-window", opt["--acquire-window"], 0, 65536));
            if (opt.count("--sync-threshold"))
                so.sync_threshold = number("--sync-threshold", opt["--sync-threshold"]);
            so.search = !opt.count("--no-search");
            so.input = input;
            std::vector<long long> tags;
            if (opt.count("--start-tags"))
                tags = read_start_tags(opt["--start-tags"]);
            return run_stream(fdec, so, tags, opt.count("--boundaries") > 0);
        }
        if (opt.count("--end"))
            end = bsid::parse_end_mode(opt["--end"]);
        if (opt.count("--lookahead")) {
            lookahead = int(integer("--lookahead", opt["--lookahead"], 0, N));
            if (end != bsid::end_mode::free)
                die("--lookahead needs --end free");
        }
        if (opt.count("--start-prior"))
            starts = read_start_priors(opt["--start-prior"]);
        if (opt.count("--priors") && opt.count("--log-priors")) {
            die("give --priors or --log-priors, not both");
        }
        if (opt.count("--log-priors")) {
            log_priors = true;
            opt["--priors"] = opt["--log-priors"];
        }
        if (opt.count("--priors")) {
            priors = read_priors(opt["--priors"], size_t(N) * size_t(cb.q()));
            // validate every row now: bad priors make an invalid file
            for (size_t k = 0; k < priors.size(); ++k) {
                try {
                    dec->validate_priors(priors[k].data(), log_priors);
                } catch (const std::invalid_argument& e) {
                    die("priors file '" + opt["--priors"] + "', line " +
                        std::to_string(k + 1) + ": " + e.what());
                }
            }
        }
    } catch (const bsid::io_error& e) {
        die(e.what());
    } catch (const std::exception& e) {
        die(e.what());
    }

    if (estimate)
        return run_estimate(*fdec, opt, input, priors, log_priors, false);

    const size_t NQ = size_t(dec->N()) * size_t(dec->q());
    // Posteriors are held for the frames of one batch that will be decoded
    // (not for erasures), and a batch holds at most 256 MiB of them.
    const size_t max_held =
        std::max<size_t>(1, (size_t(256) << 20) / (sizeof(double) * NQ));
    const bool soft = input == bsid::input_kind::llr;
    std::vector<std::string> lines;
    std::vector<std::vector<double>> llrs; // --input llr: each line's LLRs
    std::vector<std::string> bad; // per line: why its characters are not a frame, or ""
    // frame k's received items, and how many
    auto set_items = [&](auto& v, size_t k) {
        if (soft)
            v.llr = llrs[k].data();
        else
            v.bits = reinterpret_cast<const uint8_t*>(lines[k].data());
    };
    auto items = [&](size_t k) { return soft ? llrs[k].size() : lines[k].size(); };
    size_t decodable = 0; // lines of this batch that pass the length check

    auto write_post = [&](std::string& out, const double* p) {
        write_posteriors(out, p, NQ);
    };

    // does N fit the frames? (their lengths; a warning goes to stderr)
    const bsid::decoder_config& dcfg = fdec->config();
    bsid::setup_watch watch("bsid_decode",
                            (long long)fdec->sync_word().size() + fdec->tau(),
                            dcfg.N,
                            dcfg.cb.n(),
                            dcfg.ch);
    size_t frame_index = 0;
    auto flush = [&]() {
        std::vector<bsid::frame_result> results(lines.size());
        std::vector<bsid::frame_view> views;
        std::vector<size_t> decoded;
        for (size_t k = 0; k < lines.size(); ++k) {
            if (!bad[k].empty()) {
                results[k] = { bsid::frame_status::invalid_input, bad[k] };
                continue;
            }
            results[k] = fdec->check_length(items(k));
            if (!results[k].ok())
                continue; // refused before any memory is spent on it
            const double* pri = nullptr;
            if (!priors.empty()) {
                const size_t idx = priors.size() == 1 ? 0 : frame_index + k;
                if (idx >= priors.size()) {
                    die("priors file has " + std::to_string(priors.size()) +
                        " lines but there are more frames");
                }
                pri = priors[idx].data();
            }
            bsid::frame_view v;
            set_items(v, k);
            v.rho = items(k);
            v.priors = pri;
            v.log_priors = log_priors;
            views.push_back(v);
            decoded.push_back(k);
        }
        std::vector<std::vector<double>> posts(views.size(), std::vector<double>(NQ));
        std::vector<double*> outs;
        for (auto& p : posts)
            outs.push_back(p.data());
        const auto got = fdec->decode_batch(views, outs); // W weighed, if any
        std::vector<size_t> post_of(lines.size(), SIZE_MAX);
        for (size_t j = 0; j < decoded.size(); ++j) {
            results[decoded[j]] = got[j];
            post_of[decoded[j]] = j;
            if (got[j].ok())
                watch.add_received_length(views[j].rho);
        }
        std::string out;
        for (size_t k = 0; k < lines.size(); ++k) {
            if (!results[k].ok()) {
                out += "erasure " + results[k].reason + "\n";
            } else {
                write_post(out, posts[post_of[k]].data());
            }
        }
        std::fwrite(out.data(), 1, out.size(), stdout);
        frame_index += lines.size();
        lines.clear();
        llrs.clear();
        bad.clear();
        decodable = 0;
    };

    // boundaries as probabilities: every frame through the frame decoder's requests
    const bool frames_mode =
        end != bsid::end_mode::known || !starts.empty() || opt.count("--boundaries");
    const bool print_bounds = opt.count("--boundaries") > 0;
    auto flush_frames = [&]() {
        std::vector<bsid::frame_request> req;
        std::vector<size_t> which;
        for (size_t k = 0; k < lines.size(); ++k) {
            if (!bad[k].empty())
                continue;
            bsid::frame_request r;
            set_items(r, k);
            r.L = items(k);
            const size_t idx = frame_index + k;
            if (!priors.empty()) {
                if (priors.size() > 1 && idx >= priors.size())
                    die("priors file has " + std::to_string(priors.size()) +
                        " lines but there are more frames");
                r.priors = priors[priors.size() == 1 ? 0 : idx].data();
                r.log_priors = log_priors;
            }
            if (!starts.empty()) {
                if (starts.size() > 1 && idx >= starts.size())
                    die("start prior file has " + std::to_string(starts.size()) +
                        " lines but there are more frames");
                r.start = starts[starts.size() == 1 ? 0 : idx];
            }
            r.end = end;
            r.lookahead = lookahead;
            req.push_back(std::move(r));
            which.push_back(k);
        }
        std::vector<bsid::frame_decode_result> got;
        try {
            got = fdec->decode_batch(req);
        } catch (const std::invalid_argument& e) {
            die(std::string("frames ") + std::to_string(frame_index + 1) + " to " +
                std::to_string(frame_index + lines.size()) + ": " + e.what());
        }
        std::vector<const bsid::frame_decode_result*> res(lines.size(), nullptr);
        for (size_t j = 0; j < which.size(); ++j)
            res[which[j]] = &got[j];
        std::string out;
        char buf[64];
        auto pairs = [&](const char* name,
                         const std::vector<long long>& pos,
                         const std::vector<double>& p,
                         bool ok) {
            out += name;
            for (size_t j = 0; ok && j < pos.size(); ++j) {
                std::snprintf(buf, sizeof buf, " %lld:%.17g", pos[j], p[j]);
                out += buf;
            }
            out += '\n';
        };
        for (size_t k = 0; k < lines.size(); ++k) {
            const bsid::frame_decode_result* r = res[k];
            const bool ok = r && r->result.ok();
            if (!ok) {
                out += "erasure " + (r ? r->result.reason : bad[k]) + "\n";
            } else {
                write_post(out, r->posteriors.data());
            }
            if (print_bounds) {
                static const std::vector<long long> none_p;
                static const std::vector<double> none_w;
                pairs("start",
                      ok ? r->start.positions : none_p,
                      ok ? r->start.weights : none_w,
                      ok);
                pairs("end",
                      ok ? r->end_positions : none_p,
                      ok ? r->end_posterior : none_w,
                      ok);
                pairs("forward",
                      ok ? r->end_positions : none_p,
                      ok ? r->end_forward : none_w,
                      ok);
            }
            if (out.size() >= (1 << 20)) {
                std::fwrite(out.data(), 1, out.size(), stdout);
                out.clear();
            }
        }
        std::fwrite(out.data(), 1, out.size(), stdout);
        frame_index += lines.size();
        lines.clear();
        llrs.clear();
        bad.clear();
        decodable = 0;
    };

    std::string line;
    bits_given_as_llrs guard; // --input llr given bits
    while (std::getline(std::cin, line)) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back(); // CRLF files
        // the characters '0' and '1' become the bits 0 and 1; any other
        // character makes the frame an erasure (invalid input); with --input
        // llr, the numbers of the line are the frame's LLRs
        std::string why;
        if (soft) {
            llrs.push_back(llr_line(line, why, guard, frame_index + lines.size() + 1));
            line.clear(); // its numbers are held in llrs
        }
        for (size_t t = 0; t < line.size() && !soft; ++t) {
            const char c = line[t];
            if (c != '0' && c != '1') {
                if (why.empty()) {
                    char b[96];
                    std::snprintf(b,
                                  sizeof b,
                                  "character 0x%02x at position %zu is not '0' or '1'",
                                  unsigned((unsigned char)c),
                                  t);
                    why = b;
                }
                continue;
            }
            line[t] = char(c - '0');
        }
        if (why.empty() &&
            (frames_mode ||
             fdec->check_length(soft ? llrs.back().size() : line.size()).ok()))
            ++decodable;
        lines.push_back(std::move(line));
        bad.push_back(std::move(why));
        if (lines.size() == batch || decodable == max_held) {
            if (soft)
                guard.check();
            frames_mode ? flush_frames() : flush();
        }
    }
    if (soft)
        guard.check();
    if (!lines.empty())
        frames_mode ? flush_frames() : flush();
    std::fflush(stdout);
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    try {
        return run(argc, argv);
    } catch (const std::bad_alloc&) {
        die("out of memory: a frame's N q posteriors and the decoder's working memory do "
            "not "
            "fit; try a smaller --batch, --storage local, or a smaller N");
    } catch (const std::ios_base::failure& e) {
        die(std::string("cannot read the input: ") + e.what());
    } catch (const std::exception& e) {
        die(e.what());
    }
}
