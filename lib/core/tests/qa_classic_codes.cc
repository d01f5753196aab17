/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The classic inner codes' codewords against their definitions: watermark
// codes (a sparse word plus the book's watermark word, letter by letter) and
// marker codes (data letters, then the marker), their specs, and their errors.

#include "qa_expect.h"
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <vector>

using bsid::codebook;
using bsid::qa::expect_invalid;

namespace {

// the n letters of word w over A, the first sent first
std::vector<int> letters(uint64_t w, int n, int A)
{
    std::vector<int> d(static_cast<size_t>(n));
    for (int r = n - 1; r >= 0; --r) {
        d[size_t(r)] = int(w % uint64_t(A));
        w /= uint64_t(A);
    }
    return d;
}

uint64_t power(int A, int n)
{
    uint64_t s = 1;
    for (int r = 0; r < n; ++r)
        s *= uint64_t(A);
    return s;
}

// book b's watermark word, drawn as docs/random-numbers.md says
uint64_t watermark_word(uint64_t seed, int b, int n, int A)
{
    bsid::philox_stream rng(seed, (1ULL << 63) + (1ULL << 60) + uint64_t(b));
    const uint64_t words = power(A, n);
    if ((words & (words - 1)) == 0) {
        int bits = 0;
        while ((1ULL << bits) < words)
            ++bits;
        return rng.next_u32() >> (32 - bits);
    }
    const uint64_t reject = (1ULL << 32) % words;
    for (;;) {
        const uint64_t x = rng.next_u32();
        if (x >= reject)
            return (x - reject) % words;
    }
}

} // namespace

TEST(classic_codes, watermark_is_sparse_plus_the_watermark)
{
    struct setup {
        int n, q, P, A;
        uint64_t seed;
    };
    for (const auto& s : { setup{ 6, 8, 5, 2, 3 },
                           setup{ 12, 16, 40, 2, 99 },
                           setup{ 4, 10, 7, 4, 1 },
                           setup{ 3, 9, 6, 3, 12 } }) {
        const codebook cb = codebook::watermark(s.n, s.q, s.P, s.seed, s.A);
        const codebook sp = codebook::sparse(s.n, s.q, s.A);
        ASSERT_EQ(cb.n(), s.n);
        ASSERT_EQ(cb.q(), s.q);
        ASSERT_EQ(cb.P(), s.P);
        ASSERT_EQ(cb.alphabet(), s.A);
        std::vector<uint64_t> marks;
        for (int b = 0; b < s.P; ++b) {
            const auto w = letters(watermark_word(s.seed, b, s.n, s.A), s.n, s.A);
            marks.push_back(watermark_word(s.seed, b, s.n, s.A));
            for (int D = 0; D < s.q; ++D) {
                const auto x = letters(sp.books()[0][size_t(D)], s.n, s.A);
                const auto c = letters(cb.books()[size_t(b)][size_t(D)], s.n, s.A);
                for (int r = 0; r < s.n; ++r)
                    EXPECT_EQ(c[size_t(r)], (x[size_t(r)] + w[size_t(r)]) % s.A)
                        << "book " << b << " symbol " << D << " letter " << r;
            }
        }
        // a pseudo-random watermark: not one word for every book
        EXPECT_LT(std::count(marks.begin(), marks.end(), marks[0]), s.P);
        // the spec names it and makes it again
        EXPECT_EQ(codebook::from_spec(cb.spec(), s.A), cb);
        EXPECT_EQ(cb.spec(),
                  "watermark:" + std::to_string(s.n) + ":" + std::to_string(s.q) + ":" +
                      std::to_string(s.P) + ":" + std::to_string(s.seed));
    }
    // another seed, another watermark
    EXPECT_NE(codebook::watermark(8, 16, 10, 1), codebook::watermark(8, 16, 10, 2));
}

TEST(classic_codes, marker_is_data_then_marker)
{
    struct setup {
        int k;
        std::vector<uint8_t> marker;
        int A;
        const char* text;
    };
    for (const auto& s : { setup{ 4, { 0, 1 }, 2, "01" },
                           setup{ 3, { 1, 1, 0 }, 2, "110" },
                           setup{ 2, { 0, 3 }, 4, "AT" },
                           setup{ 1, { 12, 0 }, 13, "12,0" } }) {
        const codebook cb = codebook::marker(s.k, s.marker, s.A);
        const int m = int(s.marker.size());
        ASSERT_EQ(cb.n(), s.k + m);
        ASSERT_EQ(uint64_t(cb.q()), power(s.A, s.k));
        ASSERT_EQ(cb.P(), 1);
        for (int D = 0; D < cb.q(); ++D) {
            const auto data = letters(uint64_t(D), s.k, s.A);
            const auto word = cb.word(0, D);
            for (int r = 0; r < s.k; ++r)
                EXPECT_EQ(int(cb.letter(word, r)), data[size_t(r)]) << D;
            for (int j = 0; j < m; ++j)
                EXPECT_EQ(cb.letter(word, s.k + j), s.marker[size_t(j)]) << D;
        }
        EXPECT_EQ(codebook::from_spec(
                      std::string("marker:") + std::to_string(s.k) + ":" + s.text, s.A),
                  cb);
        EXPECT_EQ(codebook::from_spec(cb.spec(), s.A), cb);
    }
}

TEST(classic_codes, errors_name_the_problem)
{
    expect_invalid([] { codebook::watermark(4, 8, 0, 1); }, "P = 0");
    expect_invalid([] { codebook::watermark(2, 8, 3, 1); }, "q = 8");
    expect_invalid([] { codebook::marker(3, {}, 2); }, "at least one marker letter");
    expect_invalid([] { codebook::marker(3, { 0, 2 }, 2); }, "marker letter 1 is 2");
    expect_invalid([] { codebook::marker(0, { 0 }, 2); }, "k = 0");
    expect_invalid([] { codebook::marker(17, { 0 }, 2); }, "more than 65536 symbols");
    expect_invalid([] { codebook::marker(8, { 0 }, 300); }, "alphabet = 300");
    expect_invalid([] { codebook::from_spec("watermark:4:8:3"); }, "four fields");
    expect_invalid([] { codebook::from_spec("marker:4"); }, "two fields");
    expect_invalid([] { codebook::from_spec("marker:4:0x1"); }, "the marker");
}
