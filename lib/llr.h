/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Symbol posteriors to bit LLRs (docs/design.md section 2, "llr").

#ifndef INCLUDED_BSID_LLR_H
#define INCLUDED_BSID_LLR_H

#include <gnuradio/bsid/core/sim/error_counter.h>
#include <algorithm>
#include <cmath>
#include <cstddef>

namespace gr {
namespace bsid {

//! Bits per symbol in LLR output: ceil(log2 q), as the error counters map them.
inline int llr_bits_per_symbol(int q)
{
    return ::bsid::error_counter::bits_per_symbol(q);
}

/*!
 * \brief For each of N rows of q posteriors, ceil(log2 q) bit LLRs
 * ln P(b=1) - ln P(b=0) (GNU Radio's sign: positive means 1), symbol bits
 * MSB first. Each probability is floored at 1e-300 so that no LLR is
 * infinite. The LLR is then multiplied by scale and, if clip > 0, clipped to
 * [-clip, clip].
 */
inline void
posteriors_to_llr(const double* post, int N, int q, float scale, float clip, float* out)
{
    const int B = llr_bits_per_symbol(q);
    for (int i = 0; i < N; ++i) {
        const double* row = post + size_t(i) * size_t(q);
        for (int b = 0; b < B; ++b) {
            const int shift = B - 1 - b; // MSB first
            double p1 = 0, p0 = 0;
            for (int D = 0; D < q; ++D)
                ((D >> shift) & 1 ? p1 : p0) += row[D];
            double llr = std::log(std::max(p1, 1e-300)) - std::log(std::max(p0, 1e-300));
            llr *= double(scale);
            if (clip > 0)
                llr = std::clamp(llr, -double(clip), double(clip));
            *out++ = float(llr);
        }
    }
}

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_LLR_H */
