/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What ldpc_code.cc, ldpc_alist.cc and ldpc_regular.cc share: the size
// limits and the checks of q (internal to lib/core).

#ifndef INCLUDED_BSID_CORE_OUTER_LDPC_CHECKS_H
#define INCLUDED_BSID_CORE_OUTER_LDPC_CHECKS_H

#include "runtime/format.h"
#include <gnuradio/bsid/core/outer/ldpc_code.h>
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

inline bool by_row_col(const ldpc_code::entry& a, const ldpc_code::entry& b)
{
    return a.row != b.row ? a.row < b.row : a.col < b.col;
}

} // namespace ldpc_detail
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_OUTER_LDPC_CHECKS_H */
