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
