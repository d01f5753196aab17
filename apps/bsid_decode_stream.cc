/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bsid_decode --framing stream.

#include "bsid_decode_parts.h"

namespace bsid_decode {

/*
 * --framing stream: stdin is one stream of 0s and 1s (whitespace ignored,
 * any other character a byte that is not a bit), or over --alphabet A of
 * letters (letter_of: "ACGT..." for four, digits up to ten), or of LLRs or A
 * log-probabilities per item (numbers), read in chunks and decoded by
 * bsid::stream_decoder; one line per frame out (flat memory).
 */
int run_stream(std::shared_ptr<bsid::frame_decoder> fdec,
               const bsid::stream_options& so,
               const std::vector<long long>& tags,
               bool print_bounds)
{
    const bool soft = so.input != bsid::input_kind::bits;
    const int A = fdec->config().ch.alphabet();
    if (!soft && A > 10)
        die("--framing stream reads one character per letter: up to ten letters "
            "(--alphabet " +
            std::to_string(A) + "); give frames as lines of integers instead");
    // values per item: A log-probabilities, or one LLR
    const size_t width = so.input == bsid::input_kind::logprob ? size_t(A) : 1;
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
        return pos + (long long)(soft ? llr_chunk.size() / width : chunk.size());
    };
    auto tag_here = [&]() {
        while (next_tag < tags.size() && tags[next_tag] == item())
            here.push_back(size_t(item() - pos)), ++next_tag;
    };
    bits_given_as_llrs guard;
    auto end_token = [&]() {
        if (tok.empty())
            return;
        if (llr_chunk.size() % width == 0)
            tag_here(); // (at an item's first value)
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
            // whole items only: the rest waits for the next read
            const size_t whole = llr_chunk.size() / width;
            std::vector<size_t> now, later; // tags of this chunk's items, of the next's
            for (size_t t : here)
                (t < whole ? now : later).push_back(t < whole ? t : t - whole);
            print(sd.push(llr_chunk.data(), whole, now));
            pos += (long long)whole;
            llr_chunk.erase(llr_chunk.begin(), llr_chunk.begin() + long(whole * width));
            chunk.clear();
            here = std::move(later);
            return;
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
            // a character that is not a letter: the byte A (an erasure)
            const int v = letter_of(c, A);
            chunk.push_back(uint8_t(v < 0 ? std::min(A, 255) : v));
        }
        push();
    }
    end_token();
    push();
    if (!llr_chunk.empty())
        std::cerr << "bsid_decode: the stream ends inside an item (" << llr_chunk.size()
                  << " of its " << width << " log-probabilities); ignored\n";
    if (next_tag < tags.size())
        std::cerr << "bsid_decode: " << tags.size() - next_tag
                  << " start tags lie at or after the end of the stream (" << pos
                  << " bits); ignored\n";
    print(sd.flush());
    std::fflush(stdout);
    return 0;
}

} // namespace bsid_decode
