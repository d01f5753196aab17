/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The last lattice row's nodes inside the frame, and pass L's terms alpha
// beta: shared by the register kernels (lattice_kernel_reg.cuh) and pass L
// from the position table (lattice_kernel_table.cuh), so that both make the
// same products.

#ifndef INCLUDED_BSID_CUDA_LATTICE_TERMS_CUH
#define INCLUDED_BSID_CUDA_LATTICE_TERMS_CUH

#include "lattice_kernels.cuh"

namespace bsid {
namespace cuda {

// Which nodes k of a lattice's last row (row n) lie inside the frame, as
// bits: node (r, k) consumes the received bits up to r + k - 1 + m_n^- past
// its state's position, so with `left` = (bits from the state's position to
// the frame's end) - m_n^-, it is inside when r + k <= left. A node inside
// depends only on nodes inside (its three neighbours have r + k no larger
// than its own), so the lattice runs unmasked and only the last row's
// outside nodes are set to 0: every path into them consumes a bit that does
// not exist. (Nodes before the frame's start are the zero corner, 0 from
// row 0 on.)
__device__ __forceinline__ unsigned long long lattice_keep_mask(long long left, int n)
{
    const long long kmax = left - n; // the last node kept
    return kmax >= 63 ? ~0ull : kmax < 0 ? 0ull : (2ull << kmax) - 1ull;
}

// Pass L's terms at index i of frame f and state a: aux[e] = alpha_i(a)
// beta_{i+1}(a + d) / Lambda_i times out_scale for each node e of the last
// row (d = dlo + e) that counts, inside the frame (lattice_keep_mask) and
// ending at a state inside m_tau, else 0 (all 0 for a state past M_tau or
// outside the frame). Returns whether one is not 0. Pass L by index
// (lattice_kernel_reg) and from the position table (lattice_table_kernel)
// both take their terms here: the same products, bit for bit. WIDE: the
// nodes past p.Mn are 0.
template <typename real, int MN, bool WIDE = false>
__device__ __forceinline__ bool
pass_l_terms(const launch_params<real>& p, int f, int i, int a, real (&aux)[MN])
{
    static_assert(MN < 64, "one bit per node of a row");
    const long long rho = p.rho[f];
    const long long start = (long long)p.n * i + p.mtlo + a;
    const bool inside = a < p.Mt && start >= 0 && start <= rho;
    const unsigned long long keep =
        inside ? lattice_keep_mask(rho - start - p.dlo, p.n) | ~((1ull << MN) - 1ull)
               : ~0ull;
    const double al = inside ? p.alpha[((long long)f * (p.N + 1) + i) * p.Mt + a] *
                                   lattice_pass_L_scale(p, f, i)
                             : 0.0;
    const double* bn = p.beta + ((long long)f * (p.N + 1) + i + 1) * p.Mt;
    const real scale = p.out_scale;
    bool any = false;
#pragma unroll
    for (int e = 0; e < MN; ++e) {
        const int b = a + p.dlo + e;
        const bool counts = (!WIDE || e < p.Mn) && inside && b >= 0 && b < p.Mt &&
                            ((keep >> e) & 1ull) != 0;
        aux[e] = counts ? real(al * bn[b] * double(scale)) : real(0);
        any = any || aux[e] != real(0);
    }
    return any;
}

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_LATTICE_TERMS_CUH */
