/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_POSITION_LATTICE_H
#define INCLUDED_BSID_CORE_POSITION_LATTICE_H

#include "inner/codeword_trie.h"
#include "inner/cpu_lattice.h" // cpu::isa
#include <gnuradio/bsid/core/inner/model.h>
#include <cstddef>

namespace bsid {
namespace cpu {

/*
 * The CPU decoder's lattice by position (docs/design.md section 3, "The CPU
 * lattice"). A lattice (eqn:F) depends on the book, the codeword and where in
 * the received items it starts, not on the symbol index: the decoder's states
 * (i, m') that start at one received position with one book share it. Here
 * the vector lanes are W consecutive start positions (a "group"), one book's
 * codewords are walked as a trie of their prefixes (codeword_trie.h: one row
 * per distinct prefix), and a level of the trie is many independent rows, so
 * that the horizontal steps' chains of one row overlap with the others'
 * instead of waiting on each other. Every node is model::lattice_cell (row n
 * model::lattice_last_cell), the same numbers as corridor_lattice.
 */

//! W: the lanes (start positions) of a group, one vector of the isa's width.
int position_lanes(isa i, size_t real_size);

//! What stays the same from one group's lattice to the next.
template <typename real>
struct position_shape {
    lattice_weights<real> w{};
    int n = 0;   //!< codeword letters (rows 1 .. n)
    int dlo = 0; //!< the corridor of drifts [dlo, dhi] (m_n)
    int dhi = 0;
    int A = 2; //!< letters
    /*!
     * Rows r kept divided by del^r (model::lattice_cell_unit_del: two
     * multiply-adds a node instead of three), the caller's diagonal weights
     * dw divided by del, and the leaves multiplied by del_n = del^n; only
     * where unit_del_fits says the rows stay in the type's range.
     */
    bool unit_del = false;
    real del_n = 1;
};

/*!
 * Whether rows divided by del^r stay finite and normal in real: del in (0,
 * 1] and a bound on every node, ((wmax / del + 1) / (1 - ins))^n / (1 - ins)
 * with wmax the largest diagonal weight, below 1e30 for float and 1e300 for
 * double.
 */
template <typename real>
bool unit_del_fits(const lattice_weights<real>& w, int n, double wmax);

/*!
 * One group's lattice for one chunk of a book's trie. Lane l is the codeword
 * that starts at received item s0 + l; dw[x dw_stride + j - dw_first] is the
 * diagonal weight of letter x sent and item j received (model::soft_diag's
 * mixture for a soft item), readable for j in [s0, s0 + W - 1 + n + dhi).
 * Nodes beyond
 * the received items (column c > rho - s0 - l) are zeros, as in
 * corridor_lattice; the lanes' nodes before item 0 are not (a start position
 * below 0 is no state of the decoder; its lane holds finite values nobody
 * reads).
 */
template <typename real>
struct position_call {
    const codeword_trie::chunk_trie* chunk = nullptr;
    const real* dw = nullptr; //!< letter 0's weight of item dw_first (see above)
    size_t dw_stride = 0;
    long long dw_first = 0;
    long long s0 = 0;
    long long rho = 0;
    real* scratch = nullptr; //!< position_scratch(...) values, 64-byte aligned
    //! leaf j's node k (end drift dlo + k) in lane l at out[(j Mn + k)
    //! out_stride + l]: out_stride is W for a group's block of its own, or
    //! a row of positions (position_blocks' rings)
    real* out = nullptr;
    size_t out_stride = 0;
    //! if not 0: the leaves are written out_copy values further too (the
    //! copy of a ring's first columns after its last)
    size_t out_copy = 0;
};

//! The scratch values position_lattice needs: two levels of `widest` rows, a
//! mask per column and the A letters' weights per column.
size_t position_scratch(int widest, int n, int dlo, int dhi, int W, int A);

//! The lattice of call's group and chunk, in lanes of isa i (i at most best_isa()).
template <typename real>
void position_lattice(isa i,
                      const position_shape<real>& shape,
                      const position_call<real>& call);

} // namespace cpu
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_POSITION_LATTICE_H */
