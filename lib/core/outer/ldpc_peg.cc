/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Irregular LDPC codes by progressive edge growth (Hu, Eleftheriou and
// Arnold, IEEE Trans. Inf. Theory 51(1), 2005; docs/concatenated.md,
// "Generated codes").

#include "outer/ldpc_checks.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/outer/ldpc_code.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace bsid {

using namespace ldpc_detail;

namespace {

// The number of columns of each degree: fraction f of n, rounded so that
// they sum to n (the largest remainders round up; ties to the lower degree).
std::vector<int> column_degrees(int n, const std::vector<ldpc_degree>& dist)
{
    std::vector<long long> count(dist.size());
    std::vector<std::pair<double, size_t>> rest;
    long long sum = 0;
    for (size_t t = 0; t < dist.size(); ++t) {
        const double exact = dist[t].fraction * double(n);
        count[t] = (long long)std::floor(exact);
        sum += count[t];
        rest.push_back({ exact - double(count[t]), t });
    }
    std::stable_sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) {
        return a.first > b.first;
    });
    for (size_t t = 0; sum < n; ++t, ++sum)
        ++count[rest[t % rest.size()].second];
    std::vector<int> degrees;
    for (size_t t = 0; t < dist.size(); ++t)
        degrees.insert(degrees.end(), size_t(count[t]), dist[t].degree);
    std::sort(degrees.begin(), degrees.end()); // PEG places low degrees first
    return degrees;
}

} // namespace

std::string to_string(const std::vector<ldpc_degree>& dist)
{
    std::string s;
    for (size_t t = 0; t < dist.size(); ++t) {
        if (t)
            s += ',';
        char f[32];
        std::snprintf(f, sizeof f, "%.12g", dist[t].fraction);
        s += detail::concat(dist[t].degree, "=", f);
    }
    return s;
}

std::vector<ldpc_degree> parse_degrees(const std::string& text)
{
    std::vector<ldpc_degree> out;
    size_t pos = 0;
    while (pos <= text.size()) {
        const size_t comma = std::min(text.find(',', pos), text.size());
        const std::string item = text.substr(pos, comma - pos);
        const size_t eq = item.find('=');
        ldpc_degree d;
        try {
            if (eq == std::string::npos)
                throw std::invalid_argument("no '='");
            size_t used = 0;
            d.degree = std::stoi(item.substr(0, eq), &used);
            if (used != eq)
                throw std::invalid_argument("degree");
            const std::string f = item.substr(eq + 1);
            d.fraction = std::stod(f, &used);
            if (used != f.size())
                throw std::invalid_argument("fraction");
        } catch (const std::exception&) {
            fail("degrees '" + text + "': item '" + item +
                 "' is not DEGREE=FRACTION (for example 2=0.5,3=0.3,8=0.2)");
        }
        out.push_back(d);
        pos = comma + 1;
    }
    return out;
}

ldpc_code ldpc_code::peg(
    int n, int M, int q, const std::vector<ldpc_degree>& degrees, uint64_t seed)
{
    checked_q(q);
    const std::string what = detail::concat("PEG code n = ", n, ", M = ", M);
    if (n < 1 || M < 1)
        fail(what + ": n and M must be at least 1");
    if (M >= n)
        fail(what + ": M must be below n (a full-rank H with M >= n leaves no "
                    "information symbols)");
    if ((long long)n * M > max_dense_bytes)
        fail(what + ": too large for the dense encoder");
    if (degrees.empty())
        fail(what + ": no column degrees given");
    double total_fraction = 0;
    for (size_t t = 0; t < degrees.size(); ++t) {
        const auto& d = degrees[t];
        if (d.degree < 1 || d.degree > M)
            fail(what + detail::concat(": column degree ", d.degree, " must be 1 .. M"));
        if (!(d.fraction >= 0) || !std::isfinite(d.fraction))
            fail(what + detail::concat(": the fraction of degree ",
                                       d.degree,
                                       " must be a non-negative number"));
        for (size_t u = 0; u < t; ++u)
            if (degrees[u].degree == d.degree)
                fail(what + detail::concat(": column degree ", d.degree, " given twice"));
        total_fraction += d.fraction;
    }
    if (std::fabs(total_fraction - 1) > 1e-6)
        fail(what +
             detail::concat(": the column fractions sum to ", total_fraction, ", not 1"));
    const std::vector<int> col_degree = column_degrees(n, degrees);
    long long edges = 0; // at least n > M: every check can get one
    for (int d : col_degree)
        edges += d;
    const std::string spec = detail::concat(
        "ldpc-peg:", n, ":", M, ":", q, ":", to_string(degrees), ":", seed);

    constexpr int attempts = 100;
    std::vector<std::vector<int32_t>> var_checks(static_cast<size_t>(n));
    std::vector<std::vector<int32_t>> check_vars(static_cast<size_t>(M));
    // BFS marks, by stamp: a check reached, a variable reached
    std::vector<uint32_t> check_seen(static_cast<size_t>(M)),
        var_seen(static_cast<size_t>(n));
    uint32_t stamp = 0;
    std::vector<int> check_level(static_cast<size_t>(M));
    std::vector<int32_t> frontier, next, candidates, far;
    for (int attempt = 0; attempt < attempts; ++attempt) {
        philox_stream rng(seed, (1ULL << 63) + (1ULL << 59) + uint64_t(attempt));
        for (auto& v : var_checks)
            v.clear();
        for (auto& c : check_vars)
            c.clear();
        // among `from`, the checks of least degree; one of them at random
        auto least_degree = [&](const std::vector<int32_t>& from) {
            size_t best = std::numeric_limits<size_t>::max();
            candidates.clear();
            for (int32_t c : from) {
                const size_t d = check_vars[size_t(c)].size();
                if (d < best) {
                    best = d;
                    candidates.clear();
                }
                if (d == best)
                    candidates.push_back(c);
            }
            return candidates[uniform_below(rng, uint32_t(candidates.size()))];
        };
        std::vector<int32_t> all_checks(static_cast<size_t>(M));
        for (int c = 0; c < M; ++c)
            all_checks[size_t(c)] = c;
        for (int j = 0; j < n; ++j) {
            for (int k = 0; k < col_degree[size_t(j)]; ++k) {
                int32_t chosen;
                if (k == 0) {
                    chosen = least_degree(all_checks);
                } else {
                    // Expand the tree from j level by level. Stop when it
                    // stops growing (choose among the checks never reached)
                    // or when the next level would reach every check
                    // (choose among those not reached before it): the
                    // farthest checks, so the new edge closes no short cycle.
                    ++stamp;
                    var_seen[size_t(j)] = stamp;
                    frontier.assign(1, j);
                    size_t reached = 0;
                    int level = 0;
                    for (;; ++level) {
                        next.clear();
                        for (int32_t v : frontier)
                            for (int32_t c : var_checks[size_t(v)])
                                if (check_seen[size_t(c)] != stamp) {
                                    check_seen[size_t(c)] = stamp;
                                    check_level[size_t(c)] = level;
                                    ++reached;
                                    for (int32_t u : check_vars[size_t(c)])
                                        if (var_seen[size_t(u)] != stamp) {
                                            var_seen[size_t(u)] = stamp;
                                            next.push_back(u);
                                        }
                                }
                        if (reached == size_t(M) || next.empty())
                            break;
                        frontier.swap(next);
                    }
                    // every check reached: those of the last level (level >=
                    // 1, as j has fewer than M checks); otherwise those never
                    // reached. Neither holds one of j's own checks.
                    far.clear();
                    for (int c = 0; c < M; ++c) {
                        const bool pick = reached == size_t(M)
                                              ? check_level[size_t(c)] == level
                                              : check_seen[size_t(c)] != stamp;
                        if (pick)
                            far.push_back(c);
                    }
                    chosen = least_degree(far);
                }
                var_checks[size_t(j)].push_back(chosen);
                check_vars[size_t(chosen)].push_back(j);
            }
        }
        if (std::any_of(check_vars.begin(), check_vars.end(), [](const auto& c) {
                return c.empty();
            }))
            continue;
        std::vector<entry> entries;
        entries.reserve(size_t(edges));
        for (int j = 0; j < n; ++j)
            for (int32_t c : var_checks[size_t(j)]) {
                entry e;
                e.row = c;
                e.col = j;
                entries.push_back(e);
            }
        std::sort(entries.begin(), entries.end(), by_row_col);
        for (auto& e : entries)
            e.coef = int32_t(1 + uniform_below(rng, uint32_t(q - 1)));
        ldpc_code code(q, n, M, entries, true, spec);
        if (code.rank() == M)
            return code;
    }
    fail(what + detail::concat(" (q = ",
                               q,
                               ", degrees ",
                               to_string(degrees),
                               ", seed ",
                               seed,
                               "): no code of full rank in ",
                               attempts,
                               " attempts; use other degrees or another seed"));
}

} // namespace bsid
