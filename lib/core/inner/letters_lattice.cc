/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The corridor lattice over an alphabet of more than two letters
// (cpu_lattice.h, corridor_lattice_letters): the binary lattice's recursion
// (eqn:F, eqn:F_lastrow, through model.h's cells), with A diagonal weights per
// codeword letter instead of two.

#include "inner/cpu_lattice.h"
#include <algorithm>
#include <cstring>

namespace bsid {
namespace cpu {

template <typename real>
void corridor_lattice_letters(const lattice_shape<real>& s, const lattice_call<real>& c)
{
    const int n = s.n, A = s.letters, dlo = s.dlo;
    const int Mn = s.dhi - dlo + 1;
    const size_t Q = size_t(s.q);
    const real ins = s.w.ins, del = s.w.del;
    real* prev = c.scratch;
    real* cur = c.scratch + size_t(Mn) * Q;

    // Row 0: F(0, 0) = 1 at k0 = -dlo, then insertions only (model::lattice_row0).
    const int k0 = -dlo;
    for (int k = 0; k < Mn; ++k) {
        real* dst = prev + size_t(k) * Q;
        const long long col = (long long)dlo + k;
        if (k < k0 || col > c.avail) {
            std::fill(dst, dst + Q, real(0));
        } else if (k == k0) {
            std::fill(dst, dst + Q, real(1));
        } else {
            const real* left = dst - Q;
#pragma omp simd
            for (size_t D = 0; D < Q; ++D)
                dst[D] = model::lattice_row0(k, k0, ins, left[D]);
        }
    }

    // the two spare rows of the scratch (lattice_lanes_scratch): zeros, for
    // the terms from outside the corridor or before column 0, and a soft
    // item's diagonal weights; so that the cell loops have no branches
    real* const zero = c.scratch + 2 * size_t(Mn) * Q;
    real* const wrow = zero + Q;
    std::fill(zero, zero + Q, real(0));
    for (int r = 1; r <= n; ++r) {
        const bool last = r == n;
        const real* const* const qrow = c.qsel + size_t(A) * size_t(r - 1);
        for (int k = 0; k < Mn; ++k) {
            const long long col = (long long)r + dlo + k;
            real* dst = cur + size_t(k) * Q;
            if (col < 0 || col > c.avail) {
                std::fill(dst, dst + Q, real(0));
                continue;
            }
            const real* diag = col >= 1 ? prev + size_t(k) * Q : zero;
            const real* vert = k + 1 < Mn ? prev + size_t(k + 1) * Q : zero;
            const real* horz =
                !last && k >= 1 && col >= 1 ? cur + size_t(k - 1) * Q : zero;
            const real* wd = zero;
            if (col >= 1 && c.yprob) {
                // a soft item: the letters' weights mixed by its probabilities
                const real* p = c.yprob + size_t(A) * size_t(col - 1);
                const real* q0 = qrow[0];
#pragma omp simd
                for (size_t D = 0; D < Q; ++D)
                    wrow[D] = p[0] * q0[D];
                for (int l = 1; l < A; ++l) {
                    const real* ql = qrow[l];
                    const real pl = p[l];
#pragma omp simd
                    for (size_t D = 0; D < Q; ++D)
                        wrow[D] += pl * ql[D];
                }
                wd = wrow;
            } else if (col >= 1) {
                wd = qrow[c.y[col - 1]];
            }
            if (last) {
#pragma omp simd
                for (size_t D = 0; D < Q; ++D)
                    dst[D] = model::lattice_last_cell(wd[D], diag[D], del, vert[D]);
            } else {
#pragma omp simd
                for (size_t D = 0; D < Q; ++D)
                    dst[D] =
                        model::lattice_cell(wd[D], diag[D], del, vert[D], ins, horz[D]);
            }
        }
        std::swap(prev, cur);
    }
    // prev holds row n: node k has end drift dlo + k
    std::memcpy(c.out, prev, sizeof(real) * size_t(Mn) * Q);
}

template void corridor_lattice_letters<float>(const lattice_shape<float>&,
                                              const lattice_call<float>&);
template void corridor_lattice_letters<double>(const lattice_shape<double>&,
                                               const lattice_call<double>&);

} // namespace cpu
} // namespace bsid
