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
            // terms from outside the corridor or before column 0 are zeros
            const real* diag = col >= 1 ? prev + size_t(k) * Q : nullptr;
            const real* vert = k + 1 < Mn ? prev + size_t(k + 1) * Q : nullptr;
            const real* horz =
                !last && k >= 1 && col >= 1 ? cur + size_t(k - 1) * Q : nullptr;
            const uint8_t y = diag && !c.yprob ? c.y[col - 1] : 0;
            const real* p =
                diag && c.yprob ? c.yprob + size_t(A) * size_t(col - 1) : nullptr;
#pragma omp simd
            for (size_t D = 0; D < Q; ++D) {
                real wd = real(0);
                if (diag) {
                    if (p) {
                        // a soft item: the letters' weights mixed by its probabilities
                        for (int l = 0; l < A; ++l)
                            wd += p[l] * qrow[l][D];
                    } else {
                        wd = qrow[y][D];
                    }
                }
                const real dv = diag ? diag[D] : real(0);
                const real vv = vert ? vert[D] : real(0);
                const real hv = horz ? horz[D] : real(0);
                dst[D] = last ? model::lattice_last_cell(wd, dv, del, vv)
                              : model::lattice_cell(wd, dv, del, vv, ins, hv);
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
