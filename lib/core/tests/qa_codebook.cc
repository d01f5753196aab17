/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "qa_expect.h"
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/runtime/errors.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>

using bsid::codebook;
using bsid::qa::expect_invalid;
using bsid::qa::temp_path;

TEST(codebook, construct_and_encode_msb_first)
{
    // two books, used cyclically: C_0 = book 0, C_1 = book 1, C_2 = book 0
    const codebook cb(3, { { 0, 5, 3, 6 }, { 7, 1, 2, 4 } });
    EXPECT_EQ(cb.n(), 3);
    EXPECT_EQ(cb.q(), 4);
    EXPECT_EQ(cb.P(), 2);
    const int64_t msg[] = { 1, 1, 3 };
    // C_0(1) = 5 = 101, C_1(1) = 1 = 001, C_2(3) = 6 = 110
    EXPECT_EQ(cb.encode(msg, 3), (std::vector<uint8_t>{ 1, 0, 1, 0, 0, 1, 1, 1, 0 }));
    EXPECT_EQ(cb.word(2, 3), 6u);
    // 32-bit words are fine
    const codebook wide(32, { { 0xffffffffu, 0u } });
    const int64_t one[] = { 0 };
    EXPECT_EQ(wide.encode(one, 1), std::vector<uint8_t>(32, 1));
}

TEST(codebook, encode_rejects_out_of_range_symbol_by_position)
{
    const codebook cb = codebook::sparse(4, 5);
    const int64_t msg[] = { 0, 4, 5 };
    expect_invalid([&] { cb.encode(msg, 3); }, "symbol 5 at position 2");
    const int64_t neg[] = { -1 };
    expect_invalid([&] { cb.encode(neg, 1); }, "symbol -1 at position 0");
}

TEST(codebook, validation)
{
    expect_invalid([] { codebook(0, { { 0, 1 } }); }, "n = 0");
    expect_invalid([] { codebook(33, { { 0, 1 } }); }, "n = 33");
    expect_invalid([] { codebook(4, {}); }, "P = 0");
    expect_invalid([] { codebook(4, { {} }); }, "q = 0");
    expect_invalid([] { codebook(4, { { 3 } }); }, "q = 1");
    expect_invalid(
        [] {
            codebook(2, { { 0, 1, 2, 3, 0 } });
        },
        "cannot fit in n = 2 bits");
    expect_invalid(
        [] {
            codebook(3, { { 0, 1, 2, 8 } });
        },
        "word 8 does not fit in n = 3 bits");
    expect_invalid(
        [] {
            codebook(3, { { 0, 1, 2, 1 } });
        },
        "repeats word 1 (symbols 1 and 3)");
    expect_invalid([] { codebook(3, { { 0, 1 }, { 2, 3, 4 } }); }, "book 1 has 3 words");
    expect_invalid([] { codebook(20, { std::vector<uint32_t>(65537) }); }, "q = 65537");
}

TEST(codebook, builtin_matches_reference_file)
{
    const codebook cb = codebook::builtin("ld3-modvec6");
    EXPECT_EQ(cb.n(), 8);
    EXPECT_EQ(cb.q(), 16);
    EXPECT_EQ(cb.P(), 6);
    EXPECT_EQ(cb.spec(), "builtin:ld3-modvec6");
    EXPECT_EQ(cb.books()[0][0], 206u);
    EXPECT_EQ(cb.books()[5][15], 132u);
    const codebook file = codebook::load(std::string(BSID_SOURCE_DIR) +
                                         "/codebooks/ld3-modvec6_n8_q16.txt");
    EXPECT_EQ(cb, file);
    expect_invalid([] { codebook::builtin("nosuch"); }, "available: ld3-modvec6");
}

TEST(codebook, save_load_round_trip)
{
    const codebook cb = codebook::random(12, 100, 3, 42);
    const std::string path = temp_path("roundtrip.txt");
    cb.save(path);
    const codebook back = codebook::load(path);
    EXPECT_EQ(back, cb);
    EXPECT_EQ(back.spec(), "file:" + path);
    EXPECT_EQ(codebook::from_spec("file:" + path), cb);
    EXPECT_EQ(codebook::from_spec(path), cb);
    std::remove(path.c_str());
}

TEST(codebook, malformed_files)
{
    const std::string good = "# c\n\n3 4 2\n0 1 2 3\n4 5 6 7\n";
    EXPECT_EQ(codebook::parse(good).P(), 2);
    expect_invalid([] { codebook::parse("3 4\n0 1 2 3\n"); },
                   "line 1: expected the header");
    expect_invalid([] { codebook::parse("3 4 1\n0 1 x 3\n"); }, "line 2: 'x' is not");
    expect_invalid([] { codebook::parse("3 4 1\n0 1 -2 3\n"); }, "'-2' is not");
    expect_invalid([] { codebook::parse("3 4 1\n0 1 2.5 3\n"); }, "'2.5' is not");
    expect_invalid([] { codebook::parse("3 4 1\n0 1 2\n"); },
                   "has 3 words, expected q = 4");
    expect_invalid([] { codebook::parse("3 4 2\n0 1 2 3\n"); },
                   "promises P = 2 books but the file has 1");
    expect_invalid([] { codebook::parse("3 4 1\n0 1 2 3\n4 5 6 7\n"); },
                   "line 3: unexpected data");
    expect_invalid([] { codebook::parse("3 4 1\n0 1 2 9\n"); }, "word 9 does not fit");
    expect_invalid([] { codebook::parse("3 4 1\n0 1 2 2\n"); }, "repeats word 2");
    expect_invalid([] { codebook::parse("3 4 1\n0 1 2 99999999999999999999999\n"); },
                   "is not");
    expect_invalid([] { codebook::parse("40 4 1\n0 1 2 3\n"); }, "n = 40");
    expect_invalid([] { codebook::parse("3 9 1\n0 1 2 3 4 5 6 7 0\n"); }, "q = 9");
    expect_invalid([] { codebook::parse("3 4 0\n"); }, "P = 0");
    expect_invalid([] { codebook::parse("# only comments\n\n"); }, "no header");
    expect_invalid([] { codebook::parse(""); }, "no header");
    expect_invalid([] { codebook::parse(std::string("3 4 1\n0 1\0 2 3\n", 15)); },
                   "not a text codebook file");
    expect_invalid([] { codebook::parse("\x7f\x45\x4c\x46\x02\x01"); },
                   "not a text codebook file");
    EXPECT_THROW(codebook::load("/nonexistent/dir/cb.txt"), bsid::io_error);
    EXPECT_THROW(codebook::from_spec("/nonexistent/dir/cb.txt"), bsid::io_error);
}

TEST(codebook, sparse_is_lowest_weight_then_increasing)
{
    const codebook cb = codebook::sparse(4, 8);
    EXPECT_EQ(cb.books()[0], (std::vector<uint32_t>{ 0, 1, 2, 4, 8, 3, 5, 6 }));
    EXPECT_EQ(cb.spec(), "sparse:4:8");
    // every word of weight <= 2 among 32 bits, then the first of weight 3
    const codebook big = codebook::sparse(32, 1 + 32 + 496 + 1);
    EXPECT_EQ(big.books()[0][1], 1u);
    EXPECT_EQ(big.books()[0][32], 0x80000000u);
    EXPECT_EQ(big.books()[0][33], 3u);
    EXPECT_EQ(big.books()[0].back(), 7u);
    // the whole space
    EXPECT_EQ(codebook::sparse(3, 8).books()[0],
              (std::vector<uint32_t>{ 0, 1, 2, 4, 3, 5, 6, 7 }));
}

TEST(codebook, random_documented_algorithm)
{
    // Book b keeps, in order, the distinct top-n-bit values of the Philox
    // stream (seed, 2^63 + b). The first words are frozen here: changing the
    // generator changes every saved result that names a random: spec.
    const codebook cb = codebook::random(8, 16, 2, 1);
    EXPECT_EQ(cb.spec(), "random:8:16:2:1");
    bsid::philox_stream s(1, (1ULL << 63) + 1);
    std::vector<uint32_t> expect;
    while (expect.size() < 16) {
        const uint32_t w = s.next_u32() >> 24;
        if (std::find(expect.begin(), expect.end(), w) == expect.end())
            expect.push_back(w);
    }
    EXPECT_EQ(cb.books()[1], expect);
    EXPECT_EQ(codebook::random(8, 16, 2, 1), cb); // deterministic
    EXPECT_NE(codebook::random(8, 16, 2, 2), cb);
    // a full book is a permutation of all 2^n words
    const codebook full = codebook::random(10, 1024, 1, 5);
    std::vector<uint32_t> sorted = full.books()[0];
    std::sort(sorted.begin(), sorted.end());
    for (uint32_t k = 0; k < 1024; ++k)
        ASSERT_EQ(sorted[k], k);
    EXPECT_EQ(codebook::random(32, 4, 1, 9).q(), 4);
}

TEST(codebook, specs)
{
    EXPECT_EQ(codebook::from_spec("builtin:ld3-modvec6"),
              codebook::builtin("ld3-modvec6"));
    EXPECT_EQ(codebook::from_spec("random:8:16:3:7"), codebook::random(8, 16, 3, 7));
    EXPECT_EQ(codebook::from_spec("sparse:6:10"), codebook::sparse(6, 10));
    expect_invalid([] { codebook::from_spec("random:8:16:3"); }, "four fields");
    expect_invalid([] { codebook::from_spec("random:8:x:3:1"); }, "q = 'x'");
    expect_invalid([] { codebook::from_spec("sparse:4"); }, "two fields");
    expect_invalid([] { codebook::from_spec("sparse:2:5"); }, "cannot fit in n = 2 bits");
    expect_invalid([] { codebook::from_spec(""); }, "empty codebook spec");
    EXPECT_THROW(codebook::from_spec("nosuch:thing"), bsid::io_error);
}

TEST(codebook, unbounded_sources_and_huge_headers)
{
    // a device that never ends is read up to a bound, then refused
    for (const char* spec : { "/dev/zero", "file:/dev/zero" }) {
        try {
            bsid::codebook::from_spec(spec);
            ADD_FAILURE() << spec << " was accepted";
        } catch (const bsid::io_error& e) {
            EXPECT_NE(std::string(e.what()).find("larger than"), std::string::npos)
                << e.what();
        }
    }
    // P out of range says what the range is
    try {
        bsid::codebook::parse("4 4 99999999999\n", "header");
        ADD_FAILURE() << "P = 99999999999 was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("between 1 and 100000000"),
                  std::string::npos)
            << e.what();
    }
}

TEST(codebook, qary_words_are_base_A_digits_sent_most_significant_first)
{
    // A = 4 (DNA), n = 3: 27 = 1*16 + 2*4 + 3 -> letters 1, 2, 3
    const codebook cb(3, { { 27, 0, 63, 4 } }, 4);
    EXPECT_EQ(cb.alphabet(), 4);
    EXPECT_EQ(cb.letter(27, 0), 1u);
    EXPECT_EQ(cb.letter(27, 1), 2u);
    EXPECT_EQ(cb.letter(27, 2), 3u);
    const int64_t msg[] = { 0, 2, 3, 1 };
    EXPECT_EQ(cb.encode(msg, 4),
              (std::vector<uint8_t>{ 1, 2, 3, 3, 3, 3, 0, 1, 0, 0, 0, 0 }));
    // A = 3: every word is its digits, for every word of the space
    const codebook t(4, { { 0, 80 } }, 3);
    for (uint32_t w = 0; w < 81; ++w) {
        uint32_t v = 0;
        for (int r = 0; r < 4; ++r)
            v = 3 * v + t.letter(w, r);
        ASSERT_EQ(v, w);
    }
    // A = 256, n = 4: the bytes of a 32-bit word, most significant first
    const codebook bytes(4, { { 0x01020304u, 0xffffffffu } }, 256);
    const int64_t first[] = { 0 };
    EXPECT_EQ(bytes.encode(first, 1), (std::vector<uint8_t>{ 1, 2, 3, 4 }));
    // equal only with the same alphabet
    EXPECT_NE(codebook(2, { { 0, 1 } }, 3), codebook(2, { { 0, 1 } }));
    EXPECT_EQ(codebook(2, { { 0, 1 } }, 2), codebook(2, { { 0, 1 } }));
}

TEST(codebook, qary_limits)
{
    expect_invalid([] { codebook(2, { { 0, 1 } }, 1); }, "alphabet = 1");
    expect_invalid([] { codebook(2, { { 0, 1 } }, 257); }, "alphabet = 257");
    // A^n <= 2^32: 4^16 fits, 4^17 does not; 3^20 fits, 3^21 does not
    EXPECT_NO_THROW(codebook(16, { { 0, 0xffffffffu } }, 4));
    expect_invalid([] { codebook(17, { { 0, 1 } }, 4); }, "more than 2^32 words");
    EXPECT_NO_THROW(codebook(20, { { 0, 3486784400u } }, 3));
    expect_invalid([] { codebook(21, { { 0, 1 } }, 3); }, "more than 2^32 words");
    expect_invalid(
        [] {
            codebook(2, { { 0, 9 } }, 3);
        },
        "does not fit in n = 2 letters of an alphabet of 3");
    expect_invalid(
        [] {
            codebook(1, { { 0, 1, 2, 0 } }, 3);
        },
        "cannot fit in n = 1 letters of an alphabet of 3 (at most 3)");
}

TEST(codebook, qary_files_carry_the_alphabet_in_the_header)
{
    const codebook cb = codebook::random(5, 12, 3, 4, 4);
    const codebook back = codebook::parse(cb.to_text());
    EXPECT_EQ(back, cb);
    EXPECT_EQ(back.alphabet(), 4);
    EXPECT_NE(cb.to_text().find("\n5 12 3 4\n"), std::string::npos) << cb.to_text();
    // binary files keep the three-number header
    EXPECT_NE(codebook::sparse(4, 5).to_text().find("\n4 5 1\n"), std::string::npos);
    EXPECT_EQ(codebook::parse("4 2 1 2\n0 15\n"), codebook(4, { { 0, 15 } }));
    expect_invalid([] { codebook::parse("2 2 1 3\n0 9\n"); },
                   "line 2: word 9 does not fit in n = 2 letters of an alphabet of 3");
    expect_invalid([] { codebook::parse("2 2 1 300\n0 1\n"); }, "alphabet A = 300");
    expect_invalid([] { codebook::parse("2 2 1 3 4\n0 1\n"); }, "3 or 4 numbers");
    // from_spec: a file has its own alphabet, which must be the one asked for
    const std::string path = temp_path("qary.codebook");
    cb.save(path);
    EXPECT_EQ(codebook::from_spec("file:" + path, 4), cb);
    EXPECT_EQ(codebook::from_spec(path, 4), cb);
    expect_invalid([&] { codebook::from_spec("file:" + path); },
                   "the code's alphabet is 4, not alphabet = 2");
    expect_invalid(
        [] { codebook::from_spec("builtin:ld3-modvec6", 4); },
        "built-in codebooks and files without an A in their header are binary");
    std::remove(path.c_str());
}

TEST(codebook, qary_random_follows_its_documented_algorithm)
{
    // A^n a power of two: the top log2(A^n) bits (A = 4, n = 3: 6 bits)
    {
        const codebook cb = codebook::random(3, 10, 1, 7, 4);
        bsid::philox_stream s(7, 1ULL << 63);
        std::vector<uint32_t> expect;
        while (expect.size() < 10) {
            const uint32_t w = s.next_u32() >> 26;
            if (std::find(expect.begin(), expect.end(), w) == expect.end())
                expect.push_back(w);
        }
        EXPECT_EQ(cb.books()[0], expect);
        EXPECT_EQ(cb.spec(), "random:3:10:1:7");
    }
    // otherwise words below 2^32 mod A^n are drawn again (A = 3, n = 5: 243)
    {
        const codebook cb = codebook::random(5, 40, 2, 9, 3);
        const uint64_t m = 243, reject = (1ULL << 32) % m;
        bsid::philox_stream s(9, (1ULL << 63) + 1);
        std::vector<uint32_t> expect;
        while (expect.size() < 40) {
            const uint32_t x = s.next_u32();
            if (x < reject)
                continue;
            const uint32_t w = uint32_t((x - reject) % m);
            if (std::find(expect.begin(), expect.end(), w) == expect.end())
                expect.push_back(w);
        }
        EXPECT_EQ(cb.books()[1], expect);
    }
    // a full book over a non-power-of-two space is a permutation of it
    const codebook full = codebook::random(5, 243, 1, 3, 3);
    std::vector<uint32_t> sorted = full.books()[0];
    std::sort(sorted.begin(), sorted.end());
    for (uint32_t k = 0; k < 243; ++k)
        ASSERT_EQ(sorted[k], k);
    EXPECT_EQ(codebook::from_spec("random:5:40:2:9", 3),
              codebook::random(5, 40, 2, 9, 3));
    // the binary random code is unchanged by the alphabet argument
    EXPECT_EQ(codebook::random(8, 16, 2, 1, 2), codebook::random(8, 16, 2, 1));
}

TEST(codebook, qary_sparse_is_lowest_weight_then_increasing)
{
    // against a brute force over the whole space: sort by (letters not 0, value)
    for (const auto& [n, A] :
         { std::pair{ 3, 3 }, { 4, 4 }, { 3, 5 }, { 2, 7 }, { 5, 3 } }) {
        uint64_t words = 1;
        for (int k = 0; k < n; ++k)
            words *= uint64_t(A);
        std::vector<std::pair<int, uint32_t>> all;
        for (uint32_t w = 0; w < words; ++w) {
            int weight = 0;
            for (uint32_t v = w; v; v /= uint32_t(A))
                weight += v % uint32_t(A) != 0;
            all.push_back({ weight, w });
        }
        std::sort(all.begin(), all.end());
        for (int q : { 2, 5, int(std::min<uint64_t>(words, 40)), int(words) }) {
            if (uint64_t(q) > words || q > 65536)
                continue;
            const codebook cb = codebook::sparse(n, q, A);
            ASSERT_EQ(cb.q(), q);
            for (int D = 0; D < q; ++D)
                ASSERT_EQ(cb.books()[0][size_t(D)], all[size_t(D)].second)
                    << "n " << n << " A " << A << " q " << q << " D " << D;
        }
    }
    // a large space, only the first words needed: 4^16 words, weight <= 1 first
    const codebook big = codebook::sparse(16, 1 + 48 + 1, 4);
    EXPECT_EQ(big.books()[0][1], 1u);
    EXPECT_EQ(big.books()[0][3], 3u);
    EXPECT_EQ(big.books()[0][4], 4u);
    EXPECT_EQ(big.books()[0][48], 3u << 30);
    EXPECT_EQ(big.books()[0][49], 5u); // the first of weight 2: letters ..0011
    EXPECT_EQ(codebook::from_spec("sparse:4:10", 3), codebook::sparse(4, 10, 3));
}
