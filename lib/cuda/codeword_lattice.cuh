/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One codeword's corridor lattice on the device, shared by the general
// lattice kernel (lattice_kernel_general.cu) and the joint decoder's gamma
// kernel (joint_kernels.cuh): the cells from model.h, the diagonal weight by
// the channel model or, over letters, A P(y | x) mixed by the item's
// probabilities (as corridor_lattice_letters on the CPU).

#ifndef INCLUDED_BSID_CUDA_CODEWORD_LATTICE_CUH
#define INCLUDED_BSID_CUDA_CODEWORD_LATTICE_CUH

#include <gnuradio/bsid/core/inner/model.h>
#include <cstdint>

namespace bsid {
namespace cuda {

//! The diagonal weight over letters: letter x sent, the received item a
//! letter *y (A P(y | x), p.lw) or A probabilities w (their mixture).
template <typename real, typename Params>
__device__ __forceinline__ real
letter_weight(const Params& p, unsigned x, const uint8_t* y, const real* w)
{
    const real* row = p.lw + (long long)x * p.A;
    if (!w)
        return row[*y];
    real s = real(0);
    for (int l = 0; l < p.A; ++l)
        s += w[l] * row[l];
    return s;
}

/*!
 * Codeword `word` (n letters, most significant first; `top` = A^(n - 1),
 * the place value of its first letter) through the corridor lattice of Mn
 * nodes (drift dlo .. dlo + Mn - 1), in place in row[k stride], k < Mn: row
 * 0 from model::lattice_row0, rows 1 .. n from model::lattice_cell (row n
 * without its horizontal term). Going up in k, row[k] and row[k + 1] still
 * hold row r - 1 when read, and row[k - 1] already holds row r. The segment
 * read: hard items y or soft items sw (2 per bit, A per letter), `avail`
 * items to the frame's end; cells past it (or before it) are 0. On return
 * row[e stride] is node e of row n.
 *
 * Params: the kernel's parameters, read where they are (n, dlo, Mn, A, and
 * over letters lw, the A x A table A P(y | x)); Weights: the steps' weights
 * (ins, del, diag, diag_soft as lattice_weights has them).
 */
template <typename real, bool LETTERS, typename Params, typename Weights>
__device__ __forceinline__ void codeword_lattice(real* row,
                                                 long long stride,
                                                 uint32_t word,
                                                 uint32_t top,
                                                 const Params& p,
                                                 const Weights& w,
                                                 const uint8_t* y,
                                                 const real* sw,
                                                 long long avail)
{
    const int k0 = -p.dlo;
    for (int k = 0; k < p.Mn; ++k) {
        const bool in = k <= k0 || (long long)(k + p.dlo) <= avail;
        const real left = k > 0 ? row[(long long)(k - 1) * stride] : real(0);
        row[(long long)k * stride] =
            in ? model::lattice_row0(k, k0, w.ins, left) : real(0);
    }
    uint32_t place = top;
    for (int r = 1; r <= p.n; ++r) {
        const real ins = r < p.n ? w.ins : real(0);
        const unsigned x =
            LETTERS ? (word / place) % uint32_t(p.A) : (word >> (p.n - r)) & 1u;
        place /= uint32_t(p.A);
        for (int k = 0; k < p.Mn; ++k) {
            const long long c = (long long)r + p.dlo + k;
            real* cell = row + (long long)k * stride;
            if (c < 0 || c > avail) {
                *cell = real(0);
                continue;
            }
            // neighbours outside the corridor or before the segment are 0
            const real diag = c >= 1 ? *cell : real(0);
            real wdiag = real(0);
            if (c >= 1) {
                if (LETTERS) {
                    wdiag = letter_weight(p,
                                          x,
                                          sw ? nullptr : y + (c - 1),
                                          sw ? sw + (long long)p.A * (c - 1) : nullptr);
                } else if (sw) {
                    wdiag = w.diag_soft(x, sw[2 * (c - 1)], sw[2 * (c - 1) + 1]);
                } else {
                    wdiag = w.diag(x, y[c - 1]);
                }
            }
            const real vert = k + 1 < p.Mn ? row[(long long)(k + 1) * stride] : real(0);
            const real horz =
                k >= 1 && c >= 1 ? row[(long long)(k - 1) * stride] : real(0);
            *cell = model::lattice_cell(wdiag, diag, w.del, vert, ins, horz);
        }
    }
}

//! A^(n - 1): the place value of a codeword's first letter (1 for bits,
//! whose letters are read by shifts).
__device__ __forceinline__ uint32_t first_place(int n, int A, bool letters)
{
    uint32_t top = 1;
    if (letters)
        for (int r = 1; r < n; ++r)
            top *= uint32_t(A);
    return top;
}

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_CODEWORD_LATTICE_CUH */
