/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/format.h"
#include <gnuradio/bsid/core/outer/bp_math.h>
#include <gnuradio/bsid/core/outer/galois_field.h>
#include <stdexcept>

namespace bsid {

namespace {

// m for q = 2^m, m = 1..8; 0 for anything else.
int field_degree(int q)
{
    for (int m = 1; m <= 8; ++m) {
        if (q == (1 << m)) {
            return m;
        }
    }
    return 0;
}

} // namespace

int galois_field::primitive_polynomial(int m)
{
    // bit j is the coefficient of x^j; for m = 1 the "polynomial" x + 1 makes
    // x = 1, so GF(2) = {0, 1} comes out of the same table construction.
    static const int polys[9] = {
        0,
        0b11,        // x + 1
        0b111,       // x^2 + x + 1
        0b1011,      // x^3 + x + 1
        0b10011,     // x^4 + x + 1
        0b100101,    // x^5 + x^2 + 1
        0b1000011,   // x^6 + x + 1
        0b10001001,  // x^7 + x^3 + 1
        0b100011101, // x^8 + x^4 + x^3 + x^2 + 1
    };
    if (m < 1 || m > 8) {
        throw std::invalid_argument(
            detail::concat("galois_field: m = ", m, " must be between 1 and 8"));
    }
    return polys[m];
}

galois_field::galois_field(int q) : d_q(q), d_m(field_degree(q))
{
    if (d_m == 0) {
        throw std::invalid_argument(detail::concat(
            "galois_field: q = ", q, " must be 2^m with m = 1..8 (2, 4, 8, ..., 256)"));
    }
    const int poly = primitive_polynomial(d_m);
    const int order = q - 1; // of the multiplicative group
    d_exp.assign(size_t(2 * order), 0);
    d_log.assign(size_t(q), -1);
    int v = 1;
    for (int e = 0; e < order; ++e) {
        // x^e must run through every nonzero element exactly once
        if (v == 0 || v >= q || d_log[size_t(v)] != -1) {
            throw std::logic_error(detail::concat(
                "galois_field: polynomial ", poly, " is not primitive for q = ", q));
        }
        d_exp[size_t(e)] = v;
        d_exp[size_t(e + order)] = v;
        d_log[size_t(v)] = e;
        v <<= 1;
        if (v & q) {
            v ^= poly;
        }
    }
    if (v != 1) {
        throw std::logic_error(detail::concat(
            "galois_field: polynomial ", poly, " is not primitive for q = ", q));
    }
    d_log[0] = 0; // unused: mul() tests for zero first
}

int galois_field::inv(int a) const
{
    if (a == 0) {
        throw std::invalid_argument("galois_field: 0 has no inverse");
    }
    if (!contains(a)) {
        throw std::invalid_argument(
            detail::concat("galois_field: ", a, " is not an element of GF(", d_q, ")"));
    }
    return d_exp[size_t((d_q - 1 - d_log[size_t(a)]) % (d_q - 1))];
}

void walsh_hadamard(double* v, int q)
{
    if (q < 1 || (q & (q - 1)) != 0) {
        throw std::invalid_argument(
            detail::concat("walsh_hadamard: length ", q, " is not a power of two"));
    }
    bp::walsh_hadamard(v, q);
}

} // namespace bsid
