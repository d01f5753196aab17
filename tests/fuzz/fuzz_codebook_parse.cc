/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// libFuzzer target: bsid::codebook::parse on arbitrary text (docs/testing.md,
// "Fuzzing and sanitizers").
//
// Invariants: parse either returns a valid codebook or throws
// std::invalid_argument (the only documented error for malformed content);
// anything else, or a crash, is a finding. An accepted codebook respects the
// documented limits (alphabet A in [2, 256], A^n <= 2^32, q <= A^n, words
// below A^n) and survives to_text -> parse unchanged, and encode() gives the
// n base-A digits of each codeword, the most significant first (bits for
// A = 2).

#include <gnuradio/bsid/core/inner/codebook.h>
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
    std::fprintf(stderr, "fuzz_codebook_parse: invariant violated: %s\n", what);
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    bsid::codebook cb(1, { { 0, 1 } });
    try {
        cb = bsid::codebook::parse(text, "<fuzz>");
    } catch (const std::invalid_argument&) {
        return 0; // a malformed file, refused with a message
    }

    const int n = cb.n(), q = cb.q(), P = cb.P(), A = cb.alphabet();
    if (A < 2 || A > 256)
        violated("alphabet outside [2, 256]");
    uint64_t words = 1; // A^n, which must not pass 2^32
    for (int k = 0; k < n; ++k) {
        words *= uint64_t(A);
        if (words > (1ULL << 32))
            violated("A^n above 2^32");
    }
    if (n < 1 || n > 32)
        violated("n outside [1, 32]");
    if (q < 2 || q > 65536 || uint64_t(q) > words)
        violated("q outside its limits");
    if (P < 1)
        violated("P < 1");
    for (const auto& book : cb.books()) {
        if (int(book.size()) != q)
            violated("a book without q words");
        for (auto w : book) {
            if (uint64_t(w) >= words)
                violated("a word of more than n letters");
        }
    }

    // Round trip through the file format.
    bsid::codebook again(1, { { 0, 1 } });
    try {
        again = bsid::codebook::parse(cb.to_text(), "<round trip>");
    } catch (const std::invalid_argument&) {
        violated("to_text() of an accepted codebook is refused by parse()");
    }
    if (again != cb || again.P() != P)
        violated("to_text -> parse changed the codebook");

    // Encode a few symbols (bounded: at most 2 P symbols).
    const size_t N = std::min<size_t>(size_t(2) * size_t(P), 64);
    std::vector<int64_t> symbols(N);
    for (size_t i = 0; i < N; ++i)
        symbols[i] = int64_t((i * 7919u) % unsigned(q));
    const auto bits = cb.encode(symbols.data(), N);
    if (bits.size() != N * size_t(n))
        violated("encode() length is not n N");
    for (size_t i = 0; i < N; ++i) {
        uint64_t w = cb.word(i, int(symbols[i]));
        for (int r = n - 1; r >= 0; --r) { // the last letter is the lowest digit
            if (bits[i * size_t(n) + size_t(r)] != w % uint64_t(A))
                violated("encode() does not send the codeword's digits, most "
                         "significant first");
            w /= uint64_t(A);
        }
    }
    return 0;
}
