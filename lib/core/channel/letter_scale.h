/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The scale of received letters against random ones (internal to lib/core):
// over an alphabet of A letters a received letter weighs 1/A by chance, so
// the decoders' likelihood ratios carry A^c for c letters (for bits, 2^c).

#ifndef INCLUDED_BSID_CORE_CHANNEL_LETTER_SCALE_H
#define INCLUDED_BSID_CORE_CHANNEL_LETTER_SCALE_H

#include <cmath>

namespace bsid {

constexpr double ln2 = 0.69314718055994530942;

//! ln A: one received letter against a random one (ln 2 for bits).
inline double ln_letters(int A) { return A == 2 ? ln2 : std::log(double(A)); }

//! x A^c without overflow in between (x a weight of about A^-c); ldexp for bits.
inline double times_letters_pow(double x, long long c, int A)
{
    if (A == 2)
        return std::ldexp(x, int(c));
    return x > 0 ? std::exp(std::log(x) + double(c) * std::log(double(A))) : 0.0;
}

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_CHANNEL_LETTER_SCALE_H */
