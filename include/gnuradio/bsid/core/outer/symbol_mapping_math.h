/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The row math of symbol_mapping (symbol_mapping.h), written once for the
 * host (symbol_mapping.cc) and the device (the CUDA concatenated loop):
 * outer and inner symbols meet through the bits of the codeword, MSB first
 * within each symbol, with the last inner symbol padded by known zero bits.
 * Bit marginals are kept as lm[2 g + v] = ln P(bit g = v) for the n a bits
 * g of a codeword. Each function does one row, so that a device runs a
 * thread per row in two phases (rows to bits, then bits to rows).
 */

#ifndef INCLUDED_BSID_CORE_SYMBOL_MAPPING_MATH_H
#define INCLUDED_BSID_CORE_SYMBOL_MAPPING_MATH_H

#include <gnuradio/bsid/core/inner/model.h> // BSID_HD, math.h

namespace bsid {
namespace mapping {

//! The sizes a mapping's rows need: a = log2 q_o, b = log2 q_i, bits = n a.
struct shape {
    int a = 0, b = 0;
    int qo = 0, qi = 0;
    long long bits = 0;
};

/*!
 * Inner symbol j's linear probabilities p (q_i, zeros allowed) to the bit
 * marginals of its live bits (lm as above). Symbols with a pad bit set are
 * left out; a row with nothing possible gives no information (0, 0).
 */
BSID_HD void inner_bits(const shape& s, int j, const double* p, double* lm)
{
    const long long g0 = (long long)j * s.b;
    long long rest = s.bits - g0;
    const int live = int(rest < 0 ? 0 : rest > s.b ? s.b : rest);
    const int pad_mask = (1 << (s.b - live)) - 1; // the low b - live bits
    double m0[32], m1[32];
    for (int t = 0; t < live; ++t)
        m0[t] = m1[t] = 0;
    double total = 0;
    for (int x = 0; x < s.qi; ++x) {
        if ((x & pad_mask) != 0 || !(p[x] > 0))
            continue;
        total += p[x];
        for (int t = 0; t < live; ++t) {
            if ((x >> (s.b - 1 - t)) & 1)
                m1[t] += p[x];
            else
                m0[t] += p[x];
        }
    }
    for (int t = 0; t < live; ++t) {
        double* o = lm + 2 * (g0 + t);
        if (!(total > 0)) {
            o[0] = o[1] = 0;
            continue;
        }
        o[0] = m0[t] > 0 ? ::log(m0[t]) : -INFINITY;
        o[1] = m1[t] > 0 ? ::log(m1[t]) : -INFINITY;
    }
}

//! Outer symbol i's log-probabilities (q_o) from the bit marginals.
BSID_HD void outer_row(const shape& s, int i, const double* lm, double* out)
{
    const double* bm = lm + 2 * (long long)i * s.a;
    for (int y = 0; y < s.qo; ++y) {
        double sum = 0;
        for (int t = 0; t < s.a; ++t)
            sum += bm[2 * t + ((y >> (s.a - 1 - t)) & 1)];
        out[y] = sum;
    }
}

//! log-sum-exp of row[y] over the y whose bit t (of a, MSB first) is v.
BSID_HD double log_sum_exp_where(const double* row, int q, int a, int t, int v)
{
    double mx = -INFINITY;
    for (int y = 0; y < q; ++y) {
        if (((y >> (a - 1 - t)) & 1) == v)
            mx = row[y] > mx ? row[y] : mx;
    }
    if (mx == -INFINITY)
        return -INFINITY;
    double sum = 0;
    for (int y = 0; y < q; ++y) {
        if (((y >> (a - 1 - t)) & 1) == v)
            sum += ::exp(row[y] - mx);
    }
    return mx + ::log(sum);
}

/*!
 * Outer symbol i's log-probabilities (q_o, up to a constant) to its bits'
 * marginals; a row with nothing possible gives no information.
 */
BSID_HD void outer_bits(const shape& s, int i, const double* row, double* lm)
{
    for (int t = 0; t < s.a; ++t) {
        double* o = lm + 2 * ((long long)i * s.a + t);
        o[0] = log_sum_exp_where(row, s.qo, s.a, t, 0);
        o[1] = log_sum_exp_where(row, s.qo, s.a, t, 1);
        if (o[0] == -INFINITY && o[1] == -INFINITY)
            o[0] = o[1] = 0;
    }
}

//! Inner symbol j's log-prior (q_i) from the bit marginals; pad bits are 0.
BSID_HD void inner_row(const shape& s, int j, const double* lm, double* out)
{
    const long long g0 = (long long)j * s.b;
    for (int x = 0; x < s.qi; ++x) {
        double sum = 0;
        for (int t = 0; t < s.b && sum != -INFINITY; ++t) {
            const int v = (x >> (s.b - 1 - t)) & 1;
            const long long g = g0 + t;
            sum += g < s.bits ? lm[2 * g + v] : (v ? -INFINITY : 0.0);
        }
        out[x] = sum;
    }
}

//! The identity mapping's inner-to-outer row: logs of q probabilities.
BSID_HD void log_row(const double* p, int q, double* out)
{
    for (int x = 0; x < q; ++x)
        out[x] = p[x] > 0 ? ::log(p[x]) : -INFINITY;
}

} // namespace mapping
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_SYMBOL_MAPPING_MATH_H */
