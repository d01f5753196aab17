/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "qa_expect.h"
#include <gnuradio/bsid/core/outer/galois_field.h>
#include <gnuradio/bsid/core/outer/ldpc_code.h>
#include <gnuradio/bsid/core/runtime/errors.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

using bsid::galois_field;
using bsid::ldpc_code;
using bsid::qa::expect_invalid;
using bsid::qa::temp_path;

namespace {

// Carry-less multiplication reduced modulo poly, bit by bit.
int slow_mul(int a, int b, int m, int poly)
{
    int prod = 0;
    for (int j = 0; j < m; ++j) {
        if (b & (1 << j)) {
            prod ^= a << j;
        }
    }
    for (int j = 2 * m - 2; j >= m; --j) {
        if (prod & (1 << j)) {
            prod ^= poly << (j - m);
        }
    }
    return prod;
}

// Uniform on 0 .. range - 1 (range small; the bias of a plain modulo of a
// 32-bit word is irrelevant for a test's sampling).
int draw(bsid::philox_stream& s, int range)
{
    return int(s.next_u32() % uint32_t(range));
}

std::vector<int32_t> random_info(const ldpc_code& c, uint64_t seed)
{
    bsid::philox_stream s(seed, 7);
    std::vector<int32_t> u(size_t(c.k()));
    for (auto& x : u) {
        x = draw(s, c.q());
    }
    return u;
}

bool same_entries(const ldpc_code& a, const ldpc_code& b)
{
    if (a.entries().size() != b.entries().size()) {
        return false;
    }
    for (size_t t = 0; t < a.entries().size(); ++t) {
        const auto &x = a.entries()[t], &y = b.entries()[t];
        if (x.row != y.row || x.col != y.col || x.coef != y.coef) {
            return false;
        }
    }
    return true;
}

// H as a dense M x n matrix (0 where there is no entry).
std::vector<std::vector<int>> dense(const ldpc_code& c)
{
    std::vector<std::vector<int>> H(size_t(c.M()), std::vector<int>(size_t(c.n()), 0));
    for (const auto& e : c.entries()) {
        H[size_t(e.row)][size_t(e.col)] = e.coef;
    }
    return H;
}

// The (7,4) Hamming code's H, as MacKay's alist with zero padding, comments
// and blank lines.
const char* hamming_alist = "# the (7,4) Hamming code\n"
                            "7 3\n"
                            "3 4\n"
                            "\n"
                            "3 2 2 2 1 1 1\n"
                            "4 4 4\n"
                            "# columns\n"
                            "1 2 3\n"
                            "1 2 0\n"
                            "1 3 0\n"
                            "2 3 0\n"
                            "1 0 0\n"
                            "2 0 0\n"
                            "3 0 0\n"
                            "# rows\n"
                            "1 2 3 5\n"
                            "1 2 4 6\n"
                            "1 3 4 7\n";

// Small GF(4) code (see small_gf4_code): its non-binary alist.
const char* gf4_alist = "5 2 4\n"
                        "2 4\n"
                        "1 2 1 2 2\n"
                        "4 4\n"
                        "1 1\n"
                        "1 2 2 1\n"
                        "2 3\n"
                        "1 1 2 2\n"
                        "1 3 2 1\n"
                        "1 1 2 2 4 1 5 3\n"
                        "2 1 3 3 4 2 5 1\n";

ldpc_code small_gf4_code()
{
    // H = [1 2 0 1 3; 0 1 3 2 1] over GF(4) (x^2 + x + 1; 2 = x, 3 = x + 1).
    // Columns 3 and 4 are dependent ((x+1) x = 1), so with pivots from the
    // back the parity positions are 4 and 2, and the information 0, 1, 3.
    return ldpc_code(4,
                     5,
                     2,
                     { { 0, 0, 1 },
                       { 0, 1, 2 },
                       { 0, 3, 1 },
                       { 0, 4, 3 },
                       { 1, 1, 1 },
                       { 1, 2, 3 },
                       { 1, 3, 2 },
                       { 1, 4, 1 } });
}

std::string replace_line(const std::string& text, int line, const std::string& with)
{
    std::string out;
    int number = 1;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) {
            end = text.size();
        }
        out += number == line ? with : text.substr(start, end - start);
        out += '\n';
        ++number;
        start = end + 1;
    }
    return out;
}

} // namespace

// ---------------------------------------------------------------------------
// galois_field

TEST(galois_field, axioms_for_every_q)
{
    EXPECT_EQ(galois_field::primitive_polynomial(1), 0b11);
    EXPECT_EQ(galois_field::primitive_polynomial(2), 0b111);
    EXPECT_EQ(galois_field::primitive_polynomial(3), 0b1011);
    EXPECT_EQ(galois_field::primitive_polynomial(4), 0b10011);
    EXPECT_EQ(galois_field::primitive_polynomial(5), 0b100101);
    EXPECT_EQ(galois_field::primitive_polynomial(6), 0b1000011);
    EXPECT_EQ(galois_field::primitive_polynomial(7), 0b10001001);
    EXPECT_EQ(galois_field::primitive_polynomial(8), 0b100011101);
    for (int m = 1; m <= 8; ++m) {
        const int q = 1 << m;
        SCOPED_TRACE(q);
        const galois_field gf(q);
        ASSERT_EQ(gf.q(), q);
        ASSERT_EQ(gf.m(), m);
        const int poly = galois_field::primitive_polynomial(m);
        int mismatches = 0;
        for (int a = 0; a < q; ++a) {
            for (int b = 0; b < q; ++b) {
                mismatches += gf.mul(a, b) != slow_mul(a, b, m, poly);
            }
        }
        EXPECT_EQ(mismatches, 0);
        for (int a = 1; a < q; ++a) {
            EXPECT_EQ(gf.mul(a, gf.inv(a)), 1) << a;
            EXPECT_EQ(gf.exp(gf.log(a)), a);
            EXPECT_EQ(gf.div(gf.mul(a, 3 % q), a), 3 % q);
        }
        // x^e runs through every nonzero element once
        std::set<int> powers;
        for (int e = 0; e < q - 1; ++e) {
            const int v = gf.exp(e);
            EXPECT_TRUE(v >= 1 && v < q);
            EXPECT_EQ(gf.log(v), e);
            powers.insert(v);
        }
        EXPECT_EQ(int(powers.size()), q - 1);
        EXPECT_EQ(gf.exp(q - 1), 1);
        EXPECT_EQ(gf.exp(-1), gf.inv(gf.exp(1)));
        if (q > 2) {
            EXPECT_EQ(gf.exp(1), 2); // x is the primitive element
        }
        // distributivity and associativity on samples
        bsid::philox_stream s(uint64_t(q), 1);
        for (int t = 0; t < 2000; ++t) {
            const int a = draw(s, q), b = draw(s, q), c = draw(s, q);
            ASSERT_EQ(gf.mul(a, galois_field::add(b, c)),
                      galois_field::add(gf.mul(a, b), gf.mul(a, c)));
            ASSERT_EQ(gf.mul(gf.mul(a, b), c), gf.mul(a, gf.mul(b, c)));
            ASSERT_EQ(gf.mul(a, b), gf.mul(b, a));
        }
        EXPECT_TRUE(gf.contains(q - 1));
        EXPECT_FALSE(gf.contains(q));
        EXPECT_FALSE(gf.contains(-1));
        EXPECT_THROW(gf.inv(0), std::invalid_argument);
        EXPECT_THROW(gf.div(1, 0), std::invalid_argument);
    }
    for (int bad : { 0, 1, 3, 6, 12, 257, 512, -2 }) {
        EXPECT_THROW(galois_field{ bad }, std::invalid_argument) << bad;
    }
    EXPECT_THROW(galois_field::primitive_polynomial(9), std::invalid_argument);
}

TEST(galois_field, walsh_hadamard_turns_xor_convolution_into_product)
{
    for (int m = 1; m <= 8; ++m) {
        const int q = 1 << m;
        SCOPED_TRACE(q);
        bsid::philox_stream s(42, uint64_t(q));
        const size_t uq = static_cast<size_t>(q);
        std::vector<double> a(uq), b(uq), conv(uq, 0.0);
        for (int x = 0; x < q; ++x) {
            a[size_t(x)] = s.next_open01() - 0.3;
            b[size_t(x)] = s.next_open01();
        }
        for (int x = 0; x < q; ++x) {
            for (int y = 0; y < q; ++y) {
                conv[size_t(x ^ y)] += a[size_t(x)] * b[size_t(y)];
            }
        }
        // one transform by its definition
        std::vector<double> A = a;
        bsid::walsh_hadamard(A.data(), q);
        for (int z = 0; z < q; ++z) {
            double direct = 0;
            for (int x = 0; x < q; ++x) {
                direct += (__builtin_popcount(unsigned(z & x)) & 1) ? -a[size_t(x)]
                                                                    : a[size_t(x)];
            }
            EXPECT_NEAR(A[size_t(z)], direct, 1e-12);
        }
        std::vector<double> B = b;
        bsid::walsh_hadamard(B.data(), q);
        std::vector<double> P(static_cast<size_t>(q));
        for (int z = 0; z < q; ++z) {
            P[size_t(z)] = A[size_t(z)] * B[size_t(z)];
        }
        bsid::walsh_hadamard(P.data(), q);
        for (int z = 0; z < q; ++z) {
            EXPECT_NEAR(P[size_t(z)] / q, conv[size_t(z)], 1e-12) << z;
        }
        // applied twice: q v
        bsid::walsh_hadamard(A.data(), q);
        for (int x = 0; x < q; ++x) {
            EXPECT_NEAR(A[size_t(x)] / q, a[size_t(x)], 1e-12);
        }
    }
    double v[3] = { 1, 2, 3 };
    EXPECT_THROW(bsid::walsh_hadamard(v, 3), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// construction, rank and encoder

TEST(ldpc_code, small_gf4_code_pivots_from_the_back)
{
    const ldpc_code c = small_gf4_code();
    EXPECT_EQ(c.q(), 4);
    EXPECT_EQ(c.n(), 5);
    EXPECT_EQ(c.M(), 2);
    EXPECT_EQ(c.rank(), 2);
    EXPECT_EQ(c.k(), 3);
    EXPECT_DOUBLE_EQ(c.rate(), 0.6);
    EXPECT_EQ(c.info_positions(), (std::vector<int32_t>{ 0, 1, 3 }));
    // the sparse structure
    EXPECT_EQ(c.row_start(), (std::vector<int32_t>{ 0, 4, 8 }));
    EXPECT_EQ(c.col_start(), (std::vector<int32_t>{ 0, 1, 3, 4, 6, 8 }));
    EXPECT_EQ(c.col_entries(), (std::vector<int32_t>{ 0, 1, 4, 5, 2, 6, 3, 7 }));
    for (int j = 0; j < c.n(); ++j) {
        for (int32_t t = c.col_start()[size_t(j)]; t < c.col_start()[size_t(j) + 1];
             ++t) {
            EXPECT_EQ(c.entries()[size_t(c.col_entries()[size_t(t)])].col, j);
        }
    }
    // every info word encodes to a codeword, the q^k codewords are distinct
    // and are all the words H accepts
    std::set<std::vector<int32_t>> codewords;
    for (int w = 0; w < 64; ++w) {
        const std::vector<int32_t> u = { w & 3, (w >> 2) & 3, (w >> 4) & 3 };
        std::vector<int32_t> cw(5, -1), back(3);
        c.encode(u.data(), cw.data());
        EXPECT_TRUE(c.is_codeword(cw.data()));
        EXPECT_EQ(cw[0], u[0]);
        EXPECT_EQ(cw[1], u[1]);
        EXPECT_EQ(cw[3], u[2]);
        c.extract(cw.data(), back.data());
        EXPECT_EQ(back, u);
        codewords.insert(cw);
    }
    EXPECT_EQ(codewords.size(), 64u);
    int accepted = 0;
    for (int w = 0; w < 1024; ++w) {
        std::vector<int32_t> word(5);
        for (int j = 0; j < 5; ++j) {
            word[size_t(j)] = (w >> (2 * j)) & 3;
        }
        if (c.is_codeword(word.data())) {
            ++accepted;
            EXPECT_EQ(codewords.count(word), 1u);
        }
    }
    EXPECT_EQ(accepted, 64);
    // the same code from its non-binary alist, in any entry order
    const ldpc_code p = ldpc_code::parse_alist(gf4_alist);
    EXPECT_TRUE(same_entries(c, p));
    EXPECT_EQ(c.alist(), std::string(gf4_alist));
}

TEST(ldpc_code, encode_regular_codes)
{
    struct cfg {
        int n, M, q, wc;
    };
    for (const cfg g : { cfg{ 96, 48, 2, 3 },
                         cfg{ 64, 32, 4, 2 },
                         cfg{ 64, 32, 4, 3 },
                         cfg{ 60, 20, 16, 2 },
                         cfg{ 60, 30, 16, 3 },
                         cfg{ 40, 20, 256, 2 },
                         cfg{ 48, 24, 256, 3 } }) {
        SCOPED_TRACE(::testing::Message()
                     << "n " << g.n << " M " << g.M << " q " << g.q << " wc " << g.wc);
        const ldpc_code c = ldpc_code::regular(g.n, g.M, g.q, g.wc, 5);
        ASSERT_EQ(c.rank(), g.M);
        ASSERT_EQ(c.k(), g.n - g.M);
        for (uint64_t trial = 0; trial < 20; ++trial) {
            const auto u = random_info(c, trial);
            std::vector<int32_t> cw(size_t(c.n())), back(size_t(c.k()));
            c.encode(u.data(), cw.data());
            ASSERT_TRUE(c.is_codeword(cw.data()));
            c.extract(cw.data(), back.data());
            ASSERT_EQ(back, u);
            // one changed symbol breaks exactly the checks of its column
            bsid::philox_stream s(trial, 9);
            const int pos = draw(s, c.n());
            cw[size_t(pos)] ^= 1 + draw(s, c.q() - 1);
            EXPECT_EQ(c.unsatisfied(cw.data()), g.wc);
            EXPECT_FALSE(c.is_codeword(cw.data()));
        }
        // the all-zero word is a codeword; encode rejects a bad symbol by index
        std::vector<int32_t> zero(size_t(c.n()), 0), u(size_t(c.k()), 0);
        EXPECT_TRUE(c.is_codeword(zero.data()));
        u[3] = g.q;
        expect_invalid([&] { c.encode(u.data(), zero.data()); }, "at index 3");
        u[3] = -1;
        expect_invalid([&] { c.encode(u.data(), zero.data()); }, "at index 3");
        zero[7] = g.q;
        expect_invalid([&] { c.unsatisfied(zero.data()); }, "at position 7");
    }
}

TEST(ldpc_code, dependent_rows)
{
    // binary: row 2 repeats row 0
    std::vector<ldpc_code::entry> dup = { { 0, 0, 1 }, { 0, 1, 1 }, { 0, 3, 1 },
                                          { 1, 1, 1 }, { 1, 2, 1 }, { 1, 3, 1 },
                                          { 1, 4, 1 }, { 2, 0, 1 }, { 2, 1, 1 },
                                          { 2, 3, 1 } };
    expect_invalid([&] { ldpc_code(2, 5, 3, dup); }, "has rank 2");
    expect_invalid([&] { ldpc_code(2, 5, 3, dup); }, "M = 3 checks");
    const ldpc_code c(2, 5, 3, dup, true);
    EXPECT_EQ(c.rank(), 2);
    EXPECT_EQ(c.k(), 3);
    EXPECT_EQ(c.M(), 3);
    EXPECT_EQ(c.info_positions(), (std::vector<int32_t>{ 0, 1, 2 }));
    for (int w = 0; w < 8; ++w) {
        const std::vector<int32_t> u = { w & 1, (w >> 1) & 1, (w >> 2) & 1 };
        std::vector<int32_t> cw(5);
        c.encode(u.data(), cw.data());
        EXPECT_TRUE(c.is_codeword(cw.data()));
    }

    // GF(8): row 1 is x times row 0, dependent over GF(8) but not as bits
    // (x * 5 = x (x^2 + 1) = x^3 + x = 1 with x^3 + x + 1)
    const std::vector<ldpc_code::entry> scaled = {
        { 0, 0, 1 }, { 0, 1, 5 }, { 0, 2, 3 }, { 1, 0, 2 }, { 1, 1, 1 }, { 1, 2, 6 }
    };
    expect_invalid([&] { ldpc_code(8, 3, 2, scaled); }, "has rank 1");
    const ldpc_code s(8, 3, 2, scaled, true);
    EXPECT_EQ(s.k(), 2);
    EXPECT_EQ(s.info_positions(), (std::vector<int32_t>{ 0, 1 }));
    // the same pattern with coefficient 7 instead of 6 is of full rank
    auto full = scaled;
    full[5].coef = 7;
    EXPECT_EQ(ldpc_code(8, 3, 2, full).k(), 1);

    // binary rows of a column-weight-2 cycle sum to zero: rank M - 1
    std::vector<ldpc_code::entry> cycle;
    for (int j = 0; j < 6; ++j) {
        cycle.push_back({ j, j, 1 });
        cycle.push_back({ (j + 1) % 6, j, 1 });
    }
    expect_invalid([&] { ldpc_code(2, 6, 6, cycle); }, "has rank 5");
    EXPECT_EQ(ldpc_code(2, 6, 6, cycle, true).k(), 1);
    // the same over GF(4) with coefficients making it full rank: k = 0
    auto cycle4 = cycle;
    cycle4[0].coef = 2;
    const ldpc_code full4(4, 6, 6, cycle4);
    EXPECT_EQ(full4.k(), 0);
    std::vector<int32_t> cw(6, 9);
    full4.encode(nullptr, cw.data());
    EXPECT_EQ(cw, std::vector<int32_t>(6, 0));
}

TEST(ldpc_code, constructor_rejects_bad_matrices)
{
    const std::vector<ldpc_code::entry> ok = {
        { 0, 0, 1 }, { 0, 1, 1 }, { 1, 1, 1 }, { 1, 2, 1 }
    };
    EXPECT_EQ(ldpc_code(2, 3, 2, ok).k(), 1);
    expect_invalid([&] { ldpc_code(3, 3, 2, ok); }, "q = 3");
    expect_invalid([&] { ldpc_code(512, 3, 2, ok); }, "q = 512");
    expect_invalid([&] { ldpc_code(2, 0, 2, ok); }, "n = 0");
    expect_invalid([&] { ldpc_code(2, 3, 0, ok); }, "M = 0");
    auto bad = ok;
    bad[2].row = 2;
    expect_invalid([&] { ldpc_code(2, 3, 2, bad); }, "outside H");
    bad = ok;
    bad[3].col = -1;
    expect_invalid([&] { ldpc_code(2, 3, 2, bad); }, "outside H");
    bad = ok;
    bad[0].coef = 0;
    expect_invalid([&] { ldpc_code(2, 3, 2, bad); }, "coefficient 0");
    bad = ok;
    bad[0].coef = 4;
    expect_invalid([&] { ldpc_code(4, 3, 2, bad); }, "coefficient 4");
    bad = ok;
    bad.push_back({ 1, 2, 1 });
    expect_invalid([&] { ldpc_code(2, 3, 2, bad); }, "given twice");
    expect_invalid([&] { ldpc_code(2, 4, 2, ok); }, "column 3 of H has no entries");
    expect_invalid([&] { ldpc_code(2, 3, 3, ok); }, "row 2 of H has no entries");
    expect_invalid([&] { ldpc_code(2, 3, 2, {}); }, "no entries");
}

TEST(ldpc_code, elimination_is_fast_for_large_codes)
{
    const auto t0 = std::chrono::steady_clock::now();
    const ldpc_code b = ldpc_code::regular(5000, 2500, 2, 3, 1);
    const auto t1 = std::chrono::steady_clock::now();
    const ldpc_code g = ldpc_code::regular(2000, 1000, 256, 2, 1);
    const auto t2 = std::chrono::steady_clock::now();
    const double sb = std::chrono::duration<double>(t1 - t0).count();
    const double sg = std::chrono::duration<double>(t2 - t1).count();
    std::printf("regular(5000, 2500, q=2, wc=3): %.2f s; regular(2000, 1000, q=256, "
                "wc=2): %.2f s\n",
                sb,
                sg);
    EXPECT_EQ(b.k(), 2500);
    EXPECT_EQ(g.k(), 1000);
    for (const ldpc_code* c : { &b, &g }) {
        const auto u = random_info(*c, 3);
        std::vector<int32_t> cw(size_t(c->n()));
        c->encode(u.data(), cw.data());
        EXPECT_TRUE(c->is_codeword(cw.data()));
    }
    // generous bounds: a slow machine or a sanitizer build should still pass
    EXPECT_LT(sb, 30.0);
    EXPECT_LT(sg, 30.0);
}

// ---------------------------------------------------------------------------
// regular()

TEST(ldpc_code, regular_structure)
{
    for (const int q : { 2, 16 }) {
        for (const int wc : { 2, 3 }) {
            if (q == 2 && wc == 2) {
                continue;
            }
            const int n = 210, M = 100;
            SCOPED_TRACE(::testing::Message() << "q " << q << " wc " << wc);
            const ldpc_code c = ldpc_code::regular(n, M, q, wc, 11);
            EXPECT_EQ(c.spec(),
                      "ldpc-regular:210:100:" + std::to_string(q) + ":" +
                          std::to_string(wc) + ":11");
            EXPECT_EQ(c.n(), n);
            EXPECT_EQ(c.M(), M);
            EXPECT_EQ(c.rank(), M);
            const int lo = n * wc / M, hi = (n * wc + M - 1) / M;
            for (int i = 0; i < M; ++i) {
                const int w = c.row_start()[size_t(i) + 1] - c.row_start()[size_t(i)];
                EXPECT_TRUE(w == lo || w == hi) << "row " << i << " weight " << w;
            }
            std::vector<std::vector<int>> rows_of(static_cast<size_t>(n));
            std::set<int> coefs;
            for (const auto& e : c.entries()) {
                EXPECT_GE(e.coef, 1);
                EXPECT_LT(e.coef, q);
                coefs.insert(e.coef);
                rows_of[size_t(e.col)].push_back(e.row);
            }
            EXPECT_EQ(int(coefs.size()), q - 1); // all nonzero values are used
            for (int j = 0; j < n; ++j) {
                EXPECT_EQ(int(rows_of[size_t(j)].size()), wc) << "column " << j;
            }
            // no two columns share two rows (no length-4 cycle)
            int shared_pairs = 0;
            for (int a = 0; a < n; ++a) {
                for (int b = a + 1; b < n; ++b) {
                    int common = 0;
                    for (int r : rows_of[size_t(a)]) {
                        common += int(std::count(
                            rows_of[size_t(b)].begin(), rows_of[size_t(b)].end(), r));
                    }
                    shared_pairs += common >= 2;
                }
            }
            EXPECT_EQ(shared_pairs, 0);
            // reproducible from the seed, different for another
            EXPECT_EQ(ldpc_code::regular(n, M, q, wc, 11).alist(), c.alist());
            EXPECT_NE(ldpc_code::regular(n, M, q, wc, 12).alist(), c.alist());
        }
    }
}

TEST(ldpc_code, regular_construction_is_pinned)
{
    // The construction is part of the reproducibility contract: a spec names
    // one code forever. FNV-1a of the alist text of two small codes.
    auto fnv = [](const std::string& s) {
        uint64_t h = 1469598103934665603ULL;
        for (unsigned char ch : s) {
            h = (h ^ ch) * 1099511628211ULL;
        }
        return h;
    };
    const ldpc_code a = ldpc_code::regular(40, 20, 2, 3, 1);
    const ldpc_code b = ldpc_code::regular(20, 10, 8, 2, 1);
    EXPECT_EQ(fnv(a.alist()), 15097633339566669784ULL) << a.alist();
    EXPECT_EQ(fnv(b.alist()), 9520128853411451100ULL) << b.alist();
}

TEST(ldpc_code, regular_rejects_impossible_parameters)
{
    expect_invalid([] { ldpc_code::regular(100, 50, 2, 2, 1); }, "never of full rank");
    expect_invalid([] { ldpc_code::regular(100, 50, 4, 1, 1); }, "column weight 1");
    expect_invalid([] { ldpc_code::regular(100, 50, 4, 4, 1); }, "column weight 4");
    expect_invalid([] { ldpc_code::regular(100, 50, 3, 3, 1); }, "q = 3");
    expect_invalid([] { ldpc_code::regular(0, 50, 4, 3, 1); }, "n = 0");
    expect_invalid([] { ldpc_code::regular(100, 2, 4, 3, 1); },
                   "at least the column weight");
    expect_invalid([] { ldpc_code::regular(100, 100, 4, 3, 1); }, "M must be below n");
    expect_invalid([] { ldpc_code::regular(100, 200, 4, 3, 1); }, "M must be below n");
    // 100 columns of weight 3 need 300 distinct row pairs; 10 rows have 45
    expect_invalid([] { ldpc_code::regular(100, 10, 4, 3, 1); }, "row pairs");
    // feasible on paper but too tight for the greedy search
    expect_invalid([] { ldpc_code::regular(15, 10, 4, 3, 1); },
                   "no regular 4-cycle-free code of full rank found");
}

// ---------------------------------------------------------------------------
// the alist format

TEST(ldpc_code, alist_round_trip)
{
    for (const int q : { 2, 16 }) {
        SCOPED_TRACE(q);
        const ldpc_code c = ldpc_code::regular(90, 40, q, 3, 3);
        const std::string text = c.alist();
        const ldpc_code p = ldpc_code::parse_alist(text);
        EXPECT_TRUE(same_entries(c, p));
        EXPECT_EQ(p.q(), q);
        EXPECT_EQ(p.info_positions(), c.info_positions());
        EXPECT_EQ(p.col_entries(), c.col_entries());
        EXPECT_EQ(p.alist(), text);
        EXPECT_EQ(p.spec(), "");
        // the first line: "n M" for binary, "n M q" otherwise
        EXPECT_EQ(text.substr(0, text.find('\n')), q == 2 ? "90 40" : "90 40 16");

        const std::string path = temp_path("ldpc_rt_" + std::to_string(q) + ".alist");
        c.write_alist(path);
        const ldpc_code r = ldpc_code::read_alist(path);
        EXPECT_TRUE(same_entries(c, r));
        EXPECT_EQ(r.spec(), "ldpc:" + path);
        const ldpc_code s = ldpc_code::from_spec("ldpc:" + path);
        EXPECT_TRUE(same_entries(c, s));
        EXPECT_EQ(s.spec(), "ldpc:" + path);
        std::remove(path.c_str());
    }
    EXPECT_THROW(ldpc_code::read_alist(temp_path("ldpc_does_not_exist.alist")),
                 bsid::io_error);
    EXPECT_THROW(ldpc_code::read_alist(std::string(::testing::TempDir())),
                 bsid::io_error);
    EXPECT_THROW(ldpc_code::from_spec("ldpc:" + temp_path("ldpc_does_not_exist.alist")),
                 bsid::io_error);
    EXPECT_THROW(small_gf4_code().write_alist(temp_path("ldpc_no_such_dir/x.alist")),
                 bsid::io_error);
}

TEST(ldpc_code, hamming_alist_with_zero_padding)
{
    const ldpc_code c = ldpc_code::parse_alist(hamming_alist);
    EXPECT_EQ(c.q(), 2);
    EXPECT_EQ(c.n(), 7);
    EXPECT_EQ(c.M(), 3);
    EXPECT_EQ(c.k(), 4);
    EXPECT_EQ(c.info_positions(), (std::vector<int32_t>{ 0, 1, 2, 3 }));
    const std::vector<std::vector<int>> H = { { 1, 1, 1, 0, 1, 0, 0 },
                                              { 1, 1, 0, 1, 0, 1, 0 },
                                              { 1, 0, 1, 1, 0, 0, 1 } };
    EXPECT_EQ(dense(c), H);
    // 16 codewords of minimum distance 3
    int min_weight = 99;
    for (int w = 0; w < 16; ++w) {
        const std::vector<int32_t> u = {
            w & 1, (w >> 1) & 1, (w >> 2) & 1, (w >> 3) & 1
        };
        std::vector<int32_t> cw(7);
        c.encode(u.data(), cw.data());
        EXPECT_TRUE(c.is_codeword(cw.data()));
        if (w) {
            min_weight = std::min(min_weight, int(std::count(cw.begin(), cw.end(), 1)));
        }
    }
    EXPECT_EQ(min_weight, 3);
    // the canonical text drops the padding and the comments
    const ldpc_code again = ldpc_code::parse_alist(c.alist());
    EXPECT_TRUE(same_entries(c, again));
    EXPECT_EQ(c.alist().find('#'), std::string::npos);
    EXPECT_EQ(c.alist().find(" 0"), std::string::npos);
}

TEST(ldpc_code, alist_errors)
{
    const std::string h = hamming_alist; // lines: header 2, max weights 3, weights 5 and
                                         // 6, columns 8..14, rows 16..18
    ASSERT_NO_THROW(ldpc_code::parse_alist(h));
    auto bad = [](const std::string& text, const std::string& fragment) {
        expect_invalid([&] { ldpc_code::parse_alist(text); }, fragment);
    };
    bad("", "truncated");
    bad("# nothing\n\n", "truncated");
    bad(h.substr(0, h.rfind("1 3 4 7")), "truncated: expected the list of row 3");
    bad(h.substr(0, h.find("1 2 0")), "truncated: expected the list of column 2");
    bad(replace_line(h, 2, "7 3 2 1"), "line 2: expected the header");
    bad(replace_line(h, 2, "7"), "line 2: expected the header");
    bad(replace_line(h, 2, "7 3 3"), "q = 3");
    bad(replace_line(h, 2, "7 3 512"), "q = 512");
    bad(replace_line(h, 2, "0 3"), "n = 0");
    bad(replace_line(h, 3, "3"), "line 3: expected the maximum column and row weights");
    bad(replace_line(h, 5, "3 2 2 2 1 1"), "line 5: expected 7 column weights, found 6");
    bad(replace_line(h, 6, "4 4 4 4"), "line 6: expected 3 row weights, found 4");
    bad(replace_line(h, 5, "3 2 2 2 1 1 0"), "line 5: column 7 has weight 0");
    bad(replace_line(h, 6, "4 4 5"), "line 6: row 3 has weight 5, above the maximum");
    // a list whose count disagrees with its weight
    bad(replace_line(h, 8, "1 2 0"),
        "line 8: column 1 lists 2 rows, but its weight is 3");
    bad(replace_line(h, 16, "1 2 3 0"),
        "line 16: row 1 lists 3 columns, but its weight is 4");
    bad(replace_line(h, 9, "1 2 3 0"), "line 9: column 2 lists 4 values, more than");
    // indices out of range
    bad(replace_line(h, 12, "4 0 0"), "line 12: column 5: row index 4 is outside 1..3");
    bad(replace_line(h, 18, "1 3 4 8"), "line 18: row 3: column index 8 is outside 1..7");
    // duplicates, disagreement, garbage
    bad(replace_line(h, 9, "1 1 0"), "line 9: column 2 lists row 1 twice");
    bad(replace_line(h, 9, "1 3 0"), "disagree");
    bad(replace_line(h, 16, "1 2 3 6"), "disagree");
    bad(replace_line(h, 10, "1 3 x"),
        "line 10: 'x' is not a non-negative decimal integer");
    bad(replace_line(h, 10, "1 3 -1"), "'-1' is not a non-negative decimal integer");
    bad(h + "1\n", "line 19: unexpected data after the 3 row lists");
    bad(h + "# a comment is fine\n\n0 0\n", "line 21: unexpected data");
    EXPECT_NO_THROW(ldpc_code::parse_alist(h + "# a comment is fine\n\n"));

    // non-binary: lines 1..4 header, 5..9 columns, 10..11 rows
    const std::string g = gf4_alist;
    ASSERT_NO_THROW(ldpc_code::parse_alist(g));
    bad(replace_line(g, 5, "1 0"),
        "line 5: column 1, row 1: coefficient 0 is not a nonzero "
        "element of GF(4)");
    bad(replace_line(g, 5, "1 4"), "coefficient 4 is not a nonzero element of GF(4)");
    bad(replace_line(g, 5, "1"), "line 5: column 1: expected pairs 'row coefficient'");
    bad(replace_line(g, 5, "1 3"), "disagree"); // the coefficient differs from row 1's
    bad(replace_line(g, 10, "1 1 2 2 4 1 5 2"), "disagree");
    bad(replace_line(g, 5, "0 1"), "row index 0 is outside 1..2");
    // "0 0" pairs are padding
    const ldpc_code padded = ldpc_code::parse_alist(replace_line(g, 5, "1 1 0 0"));
    EXPECT_TRUE(same_entries(padded, small_gf4_code()));
    // an alist of GF(8) with a coefficient 9 is not GF(q)
    bad("3 1 8\n1 3\n1 1 1\n3\n1 1\n1 9\n1 2\n1 1 2 9 3 2\n",
        "line 6: column 2, row 1: coefficient 9 is not a nonzero element of GF(8)");
    // the non-binary form with q = 2 is read too
    EXPECT_EQ(
        ldpc_code::parse_alist("3 1 2\n1 3\n1 1 1\n3\n1 1\n1 1\n1 1\n1 1 2 1 3 1\n").k(),
        2);
    // a dependent row is refused after parsing, unless allowed
    const std::string dep = "3 2\n2 3\n2 2 2\n3 3\n1 2\n1 2\n1 2\n1 2 3\n1 2 3\n";
    bad(dep, "has rank 1");
    EXPECT_EQ(ldpc_code::parse_alist(dep, true).k(), 2);

    // a file with bad content: std::invalid_argument naming the file
    const std::string path = temp_path("ldpc_bad.alist");
    {
        std::ofstream f(path);
        f << replace_line(h, 12, "4 0 0");
    }
    expect_invalid([&] { ldpc_code::read_alist(path); }, path + "', line 12");
    std::remove(path.c_str());
}

// ---------------------------------------------------------------------------
// specs

TEST(ldpc_code, from_spec)
{
    const ldpc_code c = ldpc_code::from_spec("ldpc-regular:60:30:4:3:7");
    EXPECT_EQ(c.spec(), "ldpc-regular:60:30:4:3:7");
    EXPECT_EQ(c.alist(), ldpc_code::regular(60, 30, 4, 3, 7).alist());
    EXPECT_EQ(ldpc_code::from_spec("ldpc-regular:60:30:4:3:18446744073709551615").spec(),
              "ldpc-regular:60:30:4:3:18446744073709551615");
    const std::string path = temp_path("ldpc_spec.alist");
    c.write_alist(path);
    const ldpc_code r = ldpc_code::from_spec("ldpc:" + path);
    EXPECT_TRUE(same_entries(c, r));
    EXPECT_EQ(r.spec(), "ldpc:" + path);
    std::remove(path.c_str());

    expect_invalid([] { ldpc_code::from_spec(""); }, "ldpc-regular:n:M:q:wc:seed");
    expect_invalid([] { ldpc_code::from_spec("regular:60:30:4:3:7"); }, "ldpc:PATH");
    expect_invalid([] { ldpc_code::from_spec("ldpc"); }, "unknown LDPC code spec");
    expect_invalid([] { ldpc_code::from_spec("ldpc:"); }, "no alist file path");
    expect_invalid([] { ldpc_code::from_spec("ldpc-regular:60:30:4:3"); }, "five fields");
    expect_invalid([] { ldpc_code::from_spec("ldpc-regular:60:30:4:3:7:1"); },
                   "five fields");
    expect_invalid([] { ldpc_code::from_spec("ldpc-regular:60:x:4:3:7"); }, "M = 'x'");
    expect_invalid([] { ldpc_code::from_spec("ldpc-regular:60:30:4:3:-7"); },
                   "seed = '-7'");
    expect_invalid([] { ldpc_code::from_spec("ldpc-regular:60:30:4:3:"); }, "seed = ''");
    expect_invalid(
        [] { ldpc_code::from_spec("ldpc-regular:60:30:4:3:18446744073709551616"); },
        "seed = ");
    expect_invalid([] { ldpc_code::from_spec("ldpc-regular:99999999999:30:4:3:7"); },
                   "too large");
    expect_invalid([] { ldpc_code::from_spec("ldpc-regular:60:30:5:3:7"); }, "q = 5");
}
