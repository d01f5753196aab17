/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Irregular LDPC codes by progressive edge growth (ldpc_code::peg): the
// column degrees asked for, distinct checks per column, full rank and
// codewords that satisfy H; no length-4 cycle wherever the regular
// construction avoids them too, and a girth at least the regular code's;
// reproducible specs; errors.

#include "qa_expect.h"
#include <gnuradio/bsid/core/outer/ldpc_code.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <vector>

using bsid::ldpc_code;
using bsid::ldpc_degree;
using bsid::qa::expect_invalid;

namespace {

std::vector<std::vector<int>> checks_of(const ldpc_code& c)
{
    std::vector<std::vector<int>> out(static_cast<size_t>(c.n()));
    for (const auto& e : c.entries())
        out[size_t(e.col)].push_back(e.row);
    return out;
}

// The Tanner graph's girth (its shortest cycle, in edges; 0 if none), by a
// breadth-first search from every variable node.
int girth(const ldpc_code& c)
{
    const int n = c.n(), M = c.M();
    const auto vc = checks_of(c);
    std::vector<std::vector<int>> cv(static_cast<size_t>(M));
    for (int j = 0; j < n; ++j)
        for (int r : vc[size_t(j)])
            cv[size_t(r)].push_back(j);
    int best = 0;
    // nodes: variables 0 .. n-1, checks n .. n+M-1
    std::vector<int> dist(size_t(n + M)), parent(size_t(n + M));
    for (int s = 0; s < n; ++s) {
        std::fill(dist.begin(), dist.end(), -1);
        dist[size_t(s)] = 0;
        parent[size_t(s)] = -1;
        std::vector<int> queue{ s };
        for (size_t h = 0; h < queue.size(); ++h) {
            const int u = queue[h];
            const auto& nb = u < n ? vc[size_t(u)] : cv[size_t(u - n)];
            for (int w0 : nb) {
                const int w = u < n ? w0 + n : w0;
                if (w == parent[size_t(u)])
                    continue;
                if (dist[size_t(w)] < 0) {
                    dist[size_t(w)] = dist[size_t(u)] + 1;
                    parent[size_t(w)] = u;
                    queue.push_back(w);
                } else {
                    const int cycle = dist[size_t(u)] + dist[size_t(w)] + 1;
                    if (best == 0 || cycle < best)
                        best = cycle;
                }
            }
        }
    }
    return best;
}

} // namespace

TEST(ldpc_peg, degrees_rank_and_codewords)
{
    struct setup {
        int n, M, q;
        std::vector<ldpc_degree> degrees;
    };
    const std::vector<setup> setups = {
        { 200, 100, 16, { { 2, 0.5 }, { 3, 0.3 }, { 8, 0.2 } } },
        { 120, 40, 2, { { 3, 1.0 } } },
        { 90, 30, 256, { { 2, 0.4 }, { 4, 0.6 } } },
        { 10, 4, 4, { { 2, 1.0 / 3 }, { 3, 1.0 / 3 }, { 4, 1.0 / 3 } } },
    };
    std::mt19937_64 rng(7);
    for (const auto& s : setups) {
        const ldpc_code c = ldpc_code::peg(s.n, s.M, s.q, s.degrees, 5);
        SCOPED_TRACE(c.spec());
        EXPECT_EQ(c.n(), s.n);
        EXPECT_EQ(c.M(), s.M);
        EXPECT_EQ(c.rank(), s.M);
        EXPECT_EQ(c.q(), s.q);
        // the degrees: each fraction of n, rounded by largest remainder
        std::map<int, int> want, got;
        int assigned = 0;
        std::vector<std::pair<double, int>> rest;
        for (const auto& d : s.degrees) {
            want[d.degree] = int(d.fraction * s.n);
            assigned += want[d.degree];
            rest.push_back({ d.fraction * s.n - want[d.degree], d.degree });
        }
        std::stable_sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) {
            return a.first > b.first;
        });
        for (size_t t = 0; assigned < s.n; ++t, ++assigned)
            ++want[rest[t].second];
        const auto vc = checks_of(c);
        for (const auto& col : vc) {
            ++got[int(col.size())];
            EXPECT_EQ(std::set<int>(col.begin(), col.end()).size(), col.size());
        }
        EXPECT_EQ(got, want);
        for (int r = 0; r < s.M; ++r)
            EXPECT_GT(c.row_start()[size_t(r) + 1], c.row_start()[size_t(r)]);
        for (const auto& e : c.entries()) {
            EXPECT_GE(e.coef, 1);
            EXPECT_LT(e.coef, s.q);
        }
        std::vector<int32_t> info(size_t(c.k())), word(size_t(c.n()));
        for (int t = 0; t < 5; ++t) {
            for (auto& v : info)
                v = int32_t(rng() % uint64_t(s.q));
            c.encode(info.data(), word.data());
            EXPECT_TRUE(c.is_codeword(word.data()));
        }
    }
}

TEST(ldpc_peg, no_short_cycles_the_regular_code_avoids)
{
    // column weight 3 and 2 at the sizes of the regular tests: PEG's girth is
    // at least the regular (4-cycle-free) construction's, for several seeds
    for (uint64_t seed : { 1, 2, 3 }) {
        for (int wc : { 2, 3 }) {
            const int n = 210, M = 100;
            const ldpc_code peg = ldpc_code::peg(n, M, 16, { { wc, 1.0 } }, seed);
            const ldpc_code reg = ldpc_code::regular(n, M, 16, wc, seed);
            const int gp = girth(peg), gr = girth(reg);
            EXPECT_GE(gp, 6) << peg.spec();
            EXPECT_GE(gp, gr) << peg.spec() << " against " << reg.spec();
        }
    }
    // an irregular code of the concatenated schemes' size stays 4-cycle-free
    const ldpc_code big =
        ldpc_code::peg(1000, 125, 16, { { 2, 0.3 }, { 3, 0.5 }, { 5, 0.2 } }, 1);
    EXPECT_GE(girth(big), 6);
}

TEST(ldpc_peg, specs_and_reproducibility)
{
    const std::vector<ldpc_degree> d = { { 2, 0.5 }, { 3, 0.3 }, { 8, 0.2 } };
    const ldpc_code c = ldpc_code::peg(200, 100, 16, d, 9);
    EXPECT_EQ(c.spec(), "ldpc-peg:200:100:16:2=0.5,3=0.3,8=0.2:9");
    EXPECT_EQ(ldpc_code::from_spec(c.spec()).alist(), c.alist());
    EXPECT_EQ(ldpc_code::peg(200, 100, 16, d, 9).alist(), c.alist());
    EXPECT_NE(ldpc_code::peg(200, 100, 16, d, 10).alist(), c.alist());
    const auto third = bsid::parse_degrees("2=0.333333333333,3=0.666666666667");
    ASSERT_EQ(third.size(), 2u);
    EXPECT_EQ(third[1].degree, 3);
    const ldpc_code t = ldpc_code::peg(30, 10, 4, third, 1);
    EXPECT_EQ(ldpc_code::from_spec(t.spec()).alist(), t.alist());
}

TEST(ldpc_peg, errors_name_the_problem)
{
    expect_invalid([] { ldpc_code::peg(100, 50, 16, { { 3, 0.5 } }, 1); }, "sum to 0.5");
    expect_invalid([] { ldpc_code::peg(100, 50, 16, { { 60, 1.0 } }, 1); }, "1 .. M");
    expect_invalid([] { ldpc_code::peg(100, 50, 16, {}, 1); }, "no column degrees");
    expect_invalid(
        [] {
            ldpc_code::peg(100, 50, 16, { { 3, 0.5 }, { 3, 0.5 } }, 1);
        },
        "given twice");
    expect_invalid([] { ldpc_code::peg(100, 50, 12, { { 3, 1.0 } }, 1); }, "q = 12");
    expect_invalid([] { ldpc_code::peg(50, 50, 16, { { 3, 1.0 } }, 1); }, "below n");
    expect_invalid(
        [] {
            ldpc_code::peg(100, 50, 16, { { 3, -0.5 }, { 2, 1.5 } }, 1);
        },
        "non-negative");
    expect_invalid([] { ldpc_code::from_spec("ldpc-peg:100:50:16:3=1"); }, "five fields");
    expect_invalid([] { ldpc_code::from_spec("ldpc-peg:100:50:16:3x1:1"); },
                   "DEGREE=FRACTION");
    // a binary code whose columns all have two ones is never of full rank
    expect_invalid(
        [] {
            ldpc_code::peg(100, 50, 2, { { 2, 1.0 } }, 1);
        },
        "no code of full rank");
}
