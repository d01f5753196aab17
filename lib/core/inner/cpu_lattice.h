/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_CPU_LATTICE_H
#define INCLUDED_BSID_CORE_CPU_LATTICE_H

#include "runtime/isa.h"
#include <gnuradio/bsid/core/inner/model.h>
#include <cstddef>
#include <cstdint>

namespace bsid {
namespace cpu {

/*!
 * How corridor_lattice_lanes lays out the q codewords: vectors of `bytes`
 * bytes (16, 32 or 64; lanes = bytes / sizeof(real) codewords each), `groups`
 * of them (1, 2 or 4) advanced together through each row, so that a row has
 * that many independent chains of horizontal steps; the q codewords run in
 * q / (lanes groups) passes. bytes = 0: corridor_lattice (lattice.h) runs.
 */
struct lane_plan {
    cpu::isa isa = cpu::isa::baseline;
    int bytes = 0;
    int groups = 1;
};

/*!
 * The plan corridor_lattice_lanes uses for q codewords of `real_size` bytes:
 * the machine's best isa, the widest vectors whose lanes divide q but, where
 * q is one such vector, two of half the width (two chains of horizontal
 * steps per row), and two groups where q has them.
 */
lane_plan plan_lanes(int q, size_t real_size);

/*!
 * What stays the same from one corridor lattice of a decoder to the next:
 * the channel's step weights, the codewords' length n and their number q,
 * and the corridor of drifts [dlo, dhi] (corridor_lattice's parameters of
 * the same names, lattice.h).
 */
template <typename real>
struct lattice_shape {
    lattice_weights<real> w{};
    int n = 0;
    int q = 0;
    int dlo = 0;
    int dhi = 0;
    int letters = 2; //!< the alphabet A: qsel holds A rows per codeword letter
};

/*!
 * One lattice's inputs and outputs (corridor_lattice's parameters of the
 * same names): the codewords' diagonal weights qsel, the received bits y or,
 * if not null, soft items yprob from the codeword's start, how many received
 * bits exist from there (avail), the workspace, and the (dhi - dlo + 1) q
 * values of output.
 */
template <typename real>
struct lattice_call {
    const real* const* qsel = nullptr;
    const uint8_t* y = nullptr;
    const real* yprob = nullptr;
    long long avail = 0;
    real* scratch = nullptr; //!< lattice_lanes_scratch(shape) values
    real* out = nullptr;
};

/*!
 * corridor_lattice (lattice.h) on the parameters in shape and call, the same
 * output, for the CPU decoder, by plan_lanes(q, sizeof(real)): codewords in
 * vectors, a row's valid nodes found once per row, the horizontal neighbour
 * carried in a register, and every node the one formula model::lattice_cell
 * (terms from outside the corridor or the received bits are zeros; row n has
 * no horizontal term).
 */
template <typename real>
void corridor_lattice_lanes(const lattice_shape<real>& shape,
                            const lattice_call<real>& call);

/*!
 * The lattice over an alphabet of A = shape.letters > 2 letters: qsel holds A
 * rows per codeword letter r (qsel[A r + y][D]: the diagonal weight of
 * codeword D's letter r received as y), y holds letters, and a soft item is A
 * probabilities (yprob[A j + y]) that mix the A rows. The binary lattice's
 * recursion and output; corridor_lattice_lanes runs it when shape.letters is
 * not 2.
 */
template <typename real>
void corridor_lattice_letters(const lattice_shape<real>& shape,
                              const lattice_call<real>& call);

/*!
 * The same with a given plan (for tests, which reach every plan the machine
 * runs). Throws std::invalid_argument if the machine lacks plan.isa, if
 * bytes is not 0 or 16, 32, 64 within the isa, if groups is not 1, 2 or 4,
 * or if q is not a multiple of lanes times groups.
 */
template <typename real>
void corridor_lattice_plan(const lane_plan& plan,
                           const lattice_shape<real>& shape,
                           const lattice_call<real>& call);

//! The scratch size corridor_lattice_lanes needs, in values: two rows with a
//! zero node past each row's end.
template <typename real>
size_t lattice_lanes_scratch(const lattice_shape<real>& shape)
{
    return 2 * size_t(shape.dhi - shape.dlo + 2) * size_t(shape.q);
}

} // namespace cpu
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_CPU_LATTICE_H */
