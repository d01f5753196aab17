/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What ldpc_code.cc, ldpc_alist.cc, ldpc_regular.cc and ldpc_peg.cc share:
// the size limits, the checks of q and a uniform draw (internal to lib/core).

#ifndef INCLUDED_BSID_CORE_OUTER_LDPC_CHECKS_H
#define INCLUDED_BSID_CORE_OUTER_LDPC_CHECKS_H

#include "runtime/format.h"
#include <gnuradio/bsid/core/outer/ldpc_code.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace bsid {
namespace ldpc_detail {

// The dense copy of H that the encoder is derived from has M n bytes.
constexpr long long max_dense_bytes = 1LL << 30;
// Sizes in an alist or a spec beyond this are refused before allocating.
constexpr unsigned long long max_size = 100000000ULL;

[[noreturn]] inline void fail(const std::string& what)
{
    throw std::invalid_argument("ldpc_code: " + what);
}

inline int checked_q(int q)
{
    for (int m = 1; m <= 8; ++m) {
        if (q == (1 << m)) {
            return q;
        }
    }
    fail(detail::concat("q = ", q, " must be 2^m with m = 1..8 (2, 4, 8, ..., 256)"));
}

// A uniform draw from 0 .. range - 1 (Lemire's multiply-and-reject).
inline uint32_t uniform_below(philox_stream& s, uint32_t range)
{
    const uint32_t reject_below = uint32_t((uint64_t(1) << 32) % range);
    uint64_t m = uint64_t(s.next_u32()) * range;
    while (uint32_t(m) < reject_below) {
        m = uint64_t(s.next_u32()) * range;
    }
    return uint32_t(m >> 32);
}

inline bool by_row_col(const ldpc_code::entry& a, const ldpc_code::entry& b)
{
    return a.row != b.row ? a.row < b.row : a.col < b.col;
}

} // namespace ldpc_detail
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_OUTER_LDPC_CHECKS_H */
