/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_GALOIS_FIELD_H
#define INCLUDED_BSID_CORE_GALOIS_FIELD_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bsid {

/*!
 * \brief The finite field GF(2^m), m = 1..8, for the outer LDPC code
 * (docs/concatenated.md).
 *
 * An element is an integer 0 .. q - 1 whose bits are the coefficients of a
 * polynomial in x (bit j: x^j); addition is XOR, and multiplication is modulo
 * the primitive polynomial primitive_polynomial(m) (as an integer with bit m
 * set): x^2+x+1, x^3+x+1, x^4+x+1, x^5+x^2+1, x^6+x+1, x^7+x^3+1,
 * x^8+x^4+x^3+x^2+1. The alist format's coefficients use the same
 * convention, so 2 is the element x, a primitive element.
 */
class galois_field
{
public:
    //! q = 2^m, m = 1..8; throws std::invalid_argument for anything else.
    explicit galois_field(int q);

    int q() const { return d_q; }
    int m() const { return d_m; }

    static int primitive_polynomial(int m);

    static int add(int a, int b) { return a ^ b; }
    int mul(int a, int b) const
    {
        return (a == 0 || b == 0) ? 0
                                  : d_exp[size_t(d_log[size_t(a)] + d_log[size_t(b)])];
    }
    //! The multiplicative inverse; throws std::invalid_argument for 0.
    int inv(int a) const;
    //! a / b; throws std::invalid_argument for b = 0.
    int div(int a, int b) const { return mul(a, inv(b)); }
    //! alpha^e for the primitive element alpha = x.
    int exp(int e) const
    {
        return d_exp[size_t(((e % (d_q - 1)) + (d_q - 1)) % (d_q - 1))];
    }
    //! log_alpha(a) for a != 0.
    int log(int a) const { return d_log[size_t(a)]; }
    //! Whether a is an element (0 <= a < q).
    bool contains(long long a) const { return a >= 0 && a < d_q; }

private:
    int d_q, d_m;
    std::vector<int> d_exp; // 2 (q - 1) entries, so that mul needs no modulo
    std::vector<int> d_log; // q entries (d_log[0] unused)
};

/*!
 * \brief The unnormalized Walsh-Hadamard transform of v (q = 2^m values) in
 * place: V(s) = sum_x (-1)^popcount(s & x) v(x). It turns the convolution
 * over GF(2^m) addition (XOR) into a product; applied twice it gives q v.
 */
void walsh_hadamard(double* v, int q);

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_GALOIS_FIELD_H */
