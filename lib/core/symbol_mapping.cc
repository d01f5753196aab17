/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "format.h"
#include <gnuradio/bsid/core/symbol_mapping.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace bsid {

namespace {

constexpr double neg_inf = -std::numeric_limits<double>::infinity();

int log2_exact(int q)
{
    int b = 0;
    while ((1 << b) < q)
        ++b;
    return (1 << b) == q ? b : -1;
}

// The bit of global position g (MSB first within each symbol of w bits) in
// the symbols of `word`.
inline int bit_at(const int32_t* word, long long g, int w)
{
    return (word[g / w] >> (w - 1 - int(g % w))) & 1;
}

} // namespace

double log_sum_exp(const double* x, int n)
{
    double mx = neg_inf;
    for (int i = 0; i < n; ++i)
        mx = std::max(mx, x[i]);
    if (mx == neg_inf)
        return neg_inf;
    double s = 0;
    for (int i = 0; i < n; ++i)
        s += std::exp(x[i] - mx);
    return mx + std::log(s);
}

symbol_mapping::symbol_mapping(int q_outer, int n_outer, int q_inner)
    : d_qo(q_outer), d_qi(q_inner), d_n(n_outer)
{
    d_a = log2_exact(q_outer);
    d_b = log2_exact(q_inner);
    if (d_a < 1) {
        throw std::invalid_argument(detail::concat(
            "symbol_mapping: the outer code's q = ", q_outer, " is not a power of two"));
    }
    if (n_outer < 1) {
        throw std::invalid_argument(
            detail::concat("symbol_mapping: the outer code has n = ",
                           n_outer,
                           " symbols; it needs at least 1"));
    }
    if (q_inner != q_outer && d_b < 1) {
        throw std::invalid_argument(detail::concat(
            "symbol_mapping: the inner code's q = ",
            q_inner,
            " is neither the outer code's q = ",
            q_outer,
            " nor a power of two, so its symbols hold no whole number of bits to map "
            "the outer symbols through"));
    }
    const long long bits = (long long)n_outer * d_a;
    const long long N = identity() ? n_outer : (bits + d_b - 1) / d_b;
    if (N > std::numeric_limits<int>::max()) {
        throw std::invalid_argument("symbol_mapping: too many inner symbols");
    }
    d_N = int(N);
    d_pad = identity() ? 0 : int(N * d_b - bits);
}

void symbol_mapping::to_inner(const int32_t* outer, int32_t* inner) const
{
    if (identity()) {
        std::copy(outer, outer + d_n, inner);
        return;
    }
    const long long bits = (long long)d_n * d_a;
    for (int j = 0; j < d_N; ++j) {
        int32_t v = 0;
        for (int t = 0; t < d_b; ++t) {
            const long long g = (long long)j * d_b + t;
            v = (v << 1) | (g < bits ? bit_at(outer, g, d_a) : 0);
        }
        inner[j] = v;
    }
}

void symbol_mapping::inner_to_outer(const double* inner_prob, double* outer_log) const
{
    if (identity()) {
        for (size_t t = 0; t < size_t(d_n) * size_t(d_qo); ++t)
            outer_log[t] = inner_prob[t] > 0 ? std::log(inner_prob[t]) : neg_inf;
        return;
    }
    // bit marginals of every transmitted bit: lm[2 g + v] = ln P(bit g = v)
    const long long bits = (long long)d_n * d_a;
    std::vector<double> lm(size_t(2 * bits));
    std::vector<double> m0(static_cast<size_t>(d_b)), m1(static_cast<size_t>(d_b));
    for (int j = 0; j < d_N; ++j) {
        const double* p = inner_prob + size_t(j) * size_t(d_qi);
        // pad bits (global position >= bits) are known zeros: symbols with
        // one set are left out
        const long long g0 = (long long)j * d_b;
        const int live = int(std::min<long long>(d_b, std::max<long long>(0, bits - g0)));
        const int pad_mask = (1 << (d_b - live)) - 1; // the low d_b - live bits
        std::fill(m0.begin(), m0.end(), 0.0);
        std::fill(m1.begin(), m1.end(), 0.0);
        double total = 0;
        for (int x = 0; x < d_qi; ++x) {
            if ((x & pad_mask) != 0 || !(p[x] > 0))
                continue;
            total += p[x];
            for (int t = 0; t < live; ++t)
                ((x >> (d_b - 1 - t)) & 1 ? m1 : m0)[size_t(t)] += p[x];
        }
        for (int t = 0; t < live; ++t) {
            double* o = lm.data() + 2 * (g0 + t);
            if (!(total > 0)) { // nothing possible: no information
                o[0] = o[1] = 0;
                continue;
            }
            o[0] = m0[size_t(t)] > 0 ? std::log(m0[size_t(t)]) : neg_inf;
            o[1] = m1[size_t(t)] > 0 ? std::log(m1[size_t(t)]) : neg_inf;
        }
    }
    for (int i = 0; i < d_n; ++i) {
        double* out = outer_log + size_t(i) * size_t(d_qo);
        const double* b = lm.data() + 2 * (long long)i * d_a;
        for (int y = 0; y < d_qo; ++y) {
            double s = 0;
            for (int t = 0; t < d_a; ++t)
                s += b[2 * t + ((y >> (d_a - 1 - t)) & 1)];
            out[y] = s;
        }
    }
}

void symbol_mapping::outer_to_inner(const double* outer_log, double* inner_log) const
{
    if (identity()) {
        std::copy(outer_log, outer_log + size_t(d_n) * size_t(d_qo), inner_log);
        return;
    }
    const long long bits = (long long)d_n * d_a;
    std::vector<double> lm(size_t(2 * bits));
    std::vector<double> v0(static_cast<size_t>(d_qo)), v1(static_cast<size_t>(d_qo));
    for (int i = 0; i < d_n; ++i) {
        const double* row = outer_log + size_t(i) * size_t(d_qo);
        for (int t = 0; t < d_a; ++t) {
            int c0 = 0, c1 = 0;
            for (int y = 0; y < d_qo; ++y) {
                if ((y >> (d_a - 1 - t)) & 1)
                    v1[size_t(c1++)] = row[y];
                else
                    v0[size_t(c0++)] = row[y];
            }
            double* o = lm.data() + 2 * ((long long)i * d_a + t);
            o[0] = log_sum_exp(v0.data(), c0);
            o[1] = log_sum_exp(v1.data(), c1);
            if (o[0] == neg_inf && o[1] == neg_inf)
                o[0] = o[1] = 0; // a row with nothing possible: no information
        }
    }
    for (int j = 0; j < d_N; ++j) {
        double* out = inner_log + size_t(j) * size_t(d_qi);
        const long long g0 = (long long)j * d_b;
        for (int x = 0; x < d_qi; ++x) {
            double s = 0;
            for (int t = 0; t < d_b && s != neg_inf; ++t) {
                const int v = (x >> (d_b - 1 - t)) & 1;
                const long long g = g0 + t;
                s += g < bits ? lm[size_t(2 * g + v)] : (v ? neg_inf : 0.0);
            }
            out[x] = s;
        }
    }
}

} // namespace bsid
