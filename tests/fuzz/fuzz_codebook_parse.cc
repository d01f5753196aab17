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
// documented limits and survives to_text -> parse unchanged, and encode()
// gives n bits of 0/1 per symbol.

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

    const int n = cb.n(), q = cb.q(), P = cb.P();
    if (n < 1 || n > 32)
        violated("n outside [1, 32]");
    if (q < 2 || q > 65536 || (n < 32 && q > (1LL << n)))
        violated("q outside its limits");
    if (P < 1)
        violated("P < 1");
    for (const auto& book : cb.books()) {
        if (int(book.size()) != q)
            violated("a book without q words");
        for (auto w : book) {
            if (n < 32 && uint64_t(w) >= (1ULL << n))
                violated("a word wider than n bits");
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
        const auto w = cb.word(i, int(symbols[i]));
        for (int r = 0; r < n; ++r) {
            if (bits[i * size_t(n) + size_t(r)] != ((w >> (n - 1 - r)) & 1u))
                violated("encode() does not send the codeword MSB first");
        }
    }
    return 0;
}
