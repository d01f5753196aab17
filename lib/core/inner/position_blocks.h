/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_POSITION_BLOCKS_H
#define INCLUDED_BSID_CORE_POSITION_BLOCKS_H

#include "inner/codeword_trie.h"
#include "inner/position_lattice.h"
#include "runtime/aligned_vector.h"
#include <gnuradio/bsid/core/channel/channel_params.h>
#include <gnuradio/bsid/core/inner/drift_limits.h>
#include <cstdint>
#include <vector>

namespace bsid {

/*
 * The CPU decoder's gamma blocks by received position (docs/design.md
 * section 3, "The CPU lattice"). State a of index i starts its codeword at
 * received item s = n i + m_tau^- + a and uses book i mod P; its block,
 * R(s, e, D) for the Mn drift changes e and the q codewords D, is the
 * lattice of that book at s, shared by every state that starts there with
 * that book. Positions are cut into groups of W (the lattice's lanes):
 * group g holds positions pos0 + g W .. + W - 1 (pos0 = m_tau^-).
 *
 * A book's blocks are kept in a ring of positions: codeword D's values of
 * drift change e are a row of `ring` columns, position s at column (s -
 * pos0) mod ring, and the first M_tau columns again after them (copied), so
 * that an index's states are contiguous columns. A group's lattice runs
 * when an index first needs it and stays until the ring comes round. The
 * books whose windows share groups (P n < M_tau + 2 W) keep a ring each, the
 * others share one. Where a ring of all q codewords does not fit the memory
 * given, a ring holds one chunk of codewords ("streaming": each index then
 * runs its window's lattices, chunk after chunk). Both give every value the
 * same way and sum in the same order.
 *
 * What an index needs of its blocks are two sums (index_sums):
 *   G_i(e, a) = sum_D P(D) R, eqn:alpha's G (P the prior, or 1/q), in
 *     double; without a prior it depends on (book, position) only, and is
 *     made once per group with the lattice;
 *   Q_i(D, b) = sum over the drift changes e (a = b - m_n^- - e) of from(a)
 *     R(a, e, D), in double: with from = alpha_i, eqn:L's sum over the start
 *     states, so that L_i(D) = P(D) sum_b Q_i(D, b) beta_{i+1}(b). (In
 *     double since alpha spans more than float's range: a state far below
 *     the likely ones in alpha may be where beta puts the frame's end.)
 */

//! What a decoder's position blocks share: the layout and the books' tries.
template <typename real>
struct position_plan {
    position_plan(const codebook& cb,
                  const channel_params& ch,
                  const decoder_limits& limits,
                  int N,
                  cpu::isa i);

    cpu::isa isa;
    int W;             //!< lanes: positions per group
    int n, N, P, q, A; //!< the code and the frame
    int Mt, Mn, dlo;   //!< the state spaces
    long long pos0;    //!< the first position, m_tau^-
    long long groups;  //!< groups in a frame
    int ring;          //!< columns of a ring: a multiple of W, at least M_tau + W
    int books_kept;    //!< rings: P where books' windows share groups, else 1
    cpu::position_shape<real> shape;
    std::vector<codeword_trie> tries; //!< per book
    std::vector<real> diag;           //!< A x A: letter x sent, y received (/ del)
    int widest = 1;
    int chunk = 1; //!< the most codewords of a chunk

    //! Bytes of a frame's blocks: the rings with all q codewords (streaming:
    //! one chunk's) and the sums of a uniform prior.
    size_t ring_bytes(bool streaming) const;
    //! A ring's row: its columns, then the first M_tau again (whole groups)
    int ring_row() const { return ring + (Mt + W - 1) / W * W; }
    //! Q's rows: M_tau rounded up to 16
    int Qs() const { return (Mt + 15) / 16 * 16; }
    //! Whether a uniform prior's G is kept by book and position for the frame
    //! (books whose windows share groups), or copied per index from the ring.
    bool uniform_by_position() const { return books_kept == P; }
    //! The first and last group of index i's states.
    long long first_group(int i) const;
    long long last_group(int i) const;
};

//! An index's G: G_i(e, a) at g[e stride + a].
struct index_G {
    const double* g = nullptr;
    size_t stride = 0;
};

//! One thread's blocks for the frame it decodes.
template <typename real>
class position_blocks
{
public:
    /*!
     * A frame's start: the letters' diagonal weights by received item
     * (hard items, or soft ones whose probabilities `prob` holds, A per
     * item) and empty rings.
     */
    void prepare(const position_plan<real>& plan,
                 const uint8_t* letters,
                 const real* prob,
                 long long rho,
                 bool streaming);

    /*!
     * For index i: G_i (with prior the index's normalized prior, null for a
     * uniform one), written to G (Mn Mt values) or, for a uniform prior kept
     * by position, where it is kept (valid until the next prepare); and, if
     * Q is not null, Q[D Qs + b] = Q_i(D, b) for b < Mt (plan.Qs() values a
     * row) with from[a] the weight of state a (see above). `seconds` gets
     * the time spent in lattices if timed.
     */
    index_G index_sums(int i,
                       const double* prior,
                       double* G,
                       const double* from,
                       double* Q,
                       bool timed,
                       double& seconds);

    //! Lattices (a group of one book, all its codewords) run since prepare.
    long long lattices() const { return d_lattices; }

private:
    // the rings' groups that index i needs, run where missing
    void fill(int i, int chunk, double& seconds, bool timed);
    // index i's sums over the leaves [j0, j1) of the ring at R
    void
    sums(int i, const real* R, int j0, int j1, const double* prior, double* G, double* Q);
    // the ring of a book's blocks: leaf 0's row of drift change 0
    real* ring_of(int book);
    // a uniform prior's G: the kept sums of a book, column 0, and their stride
    double* gsums_of(int book);
    size_t gsums_stride() const;

    const position_plan<real>* d_plan = nullptr;
    bool d_streaming = false;
    long long d_rho = 0;
    aligned_vector<real> d_dw;
    size_t d_dw_stride = 0; // letter x's weight of item j at d_dw[x stride + j - pos0]
    aligned_vector<real> d_rings; // per kept book: q (or a chunk) x Mn rows of ring_row()
    aligned_vector<double> d_gsums; // a uniform prior's G: by book and position, or ring
    std::vector<long long> d_tags;  // per ring and group slot: the (book, group) held
    aligned_vector<real> d_scratch;
    aligned_vector<double> d_from; // the states' weights with zeros around them
    long long d_lattices = 0;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_POSITION_BLOCKS_H */
