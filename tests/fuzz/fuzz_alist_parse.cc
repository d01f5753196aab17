/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// libFuzzer target: bsid::ldpc_code::parse_alist on arbitrary text
// (docs/testing.md, "Fuzzing and sanitizers"; docs/concatenated.md, "The
// alist format").
//
// Invariants: parse_alist either returns a code or throws
// std::invalid_argument (with or without allow_dependent_rows); anything
// else, or a crash, is a finding. An accepted code is over GF(2^1 .. 2^8),
// has k = n - rank information symbols at increasing positions, survives
// alist() -> parse_alist unchanged, and encodes every information word it is
// given into a codeword from which extract() gives the word back.

#include <gnuradio/bsid/core/outer/ldpc_code.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

[[noreturn]] void violated(const char* what)
{
    std::fprintf(stderr, "fuzz_alist_parse: invariant violated: %s\n", what);
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
        return 0;
    // the first byte picks the rank rule; the rest is the file
    const bool dependent_ok = data[0] & 1;
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    std::vector<bsid::ldpc_code> got;
    try {
        got.push_back(bsid::ldpc_code::parse_alist(text, dependent_ok));
    } catch (const std::invalid_argument&) {
        return 0; // a malformed file, refused with a message
    }
    const bsid::ldpc_code& c = got[0];
    const int q = c.q(), n = c.n(), M = c.M(), k = c.k();
    if (q < 2 || q > 256 || (q & (q - 1)) != 0)
        violated("q is not 2^1 .. 2^8");
    if (n < 1 || M < 1 || k < 0 || k > n || c.rank() > M || c.rank() < 1)
        violated("sizes or rank out of range");
    if (!dependent_ok && c.rank() != M)
        violated("a code of deficient rank accepted without allow_dependent_rows");
    const auto& pos = c.info_positions();
    if (int(pos.size()) != k)
        violated("info_positions() does not hold k positions");
    for (size_t t = 0; t < pos.size(); ++t) {
        if (pos[t] < 0 || pos[t] >= n || (t > 0 && pos[t] <= pos[t - 1]))
            violated("info_positions() not increasing inside [0, n)");
    }

    // the canonical text parses back to the same code
    try {
        const bsid::ldpc_code again =
            bsid::ldpc_code::parse_alist(c.alist(), dependent_ok);
        if (again.alist() != c.alist() || again.k() != k)
            violated("alist() -> parse_alist changed the code");
    } catch (const std::invalid_argument&) {
        violated("alist() of an accepted code is refused by parse_alist()");
    }

    // a few information words encode into codewords
    const size_t ks = static_cast<size_t>(k), ns = static_cast<size_t>(n);
    std::vector<int32_t> info(ks), word(ns), back(ks);
    for (int trial = 0; trial < 3; ++trial) {
        for (int t = 0; t < k; ++t)
            info[size_t(t)] =
                int32_t((unsigned(t) * 7919u + unsigned(trial) * 104729u) % unsigned(q));
        c.encode(info.data(), word.data());
        if (!c.is_codeword(word.data()))
            violated("encode() gave a word that is not a codeword");
        c.extract(word.data(), back.data());
        if (back != info)
            violated("extract(encode(u)) != u");
    }
    return 0;
}
