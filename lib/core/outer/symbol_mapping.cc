/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/format.h"
#include <gnuradio/bsid/core/outer/symbol_mapping.h>
#include <gnuradio/bsid/core/outer/symbol_mapping_math.h>
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

mapping::shape symbol_mapping::shape() const
{
    mapping::shape s;
    s.a = d_a;
    s.b = d_b;
    s.qo = d_qo;
    s.qi = d_qi;
    s.bits = (long long)d_n * d_a;
    return s;
}

size_t symbol_mapping::scratch_size() const
{
    return identity() ? 0 : size_t(2 * shape().bits);
}

void symbol_mapping::inner_to_outer(const double* inner_prob, double* outer_log) const
{
    std::vector<double> scratch(scratch_size());
    inner_to_outer(inner_prob, outer_log, scratch.data());
}

void symbol_mapping::outer_to_inner(const double* outer_log, double* inner_log) const
{
    std::vector<double> scratch(scratch_size());
    outer_to_inner(outer_log, inner_log, scratch.data());
}

void symbol_mapping::inner_to_outer(const double* inner_prob,
                                    double* outer_log,
                                    double* lm) const noexcept
{
    if (identity()) {
        for (int i = 0; i < d_n; ++i)
            mapping::log_row(inner_prob + size_t(i) * size_t(d_qo),
                             d_qo,
                             outer_log + size_t(i) * size_t(d_qo));
        return;
    }
    const mapping::shape s = shape();
    for (int j = 0; j < d_N; ++j)
        mapping::inner_bits(s, j, inner_prob + size_t(j) * size_t(d_qi), lm);
    for (int i = 0; i < d_n; ++i)
        mapping::outer_row(s, i, lm, outer_log + size_t(i) * size_t(d_qo));
}

void symbol_mapping::outer_to_inner(const double* outer_log,
                                    double* inner_log,
                                    double* lm) const noexcept
{
    if (identity()) {
        std::copy(outer_log, outer_log + size_t(d_n) * size_t(d_qo), inner_log);
        return;
    }
    const mapping::shape s = shape();
    for (int i = 0; i < d_n; ++i)
        mapping::outer_bits(s, i, outer_log + size_t(i) * size_t(d_qo), lm);
    for (int j = 0; j < d_N; ++j)
        mapping::inner_row(s, j, lm, inner_log + size_t(j) * size_t(d_qi));
}

} // namespace bsid
