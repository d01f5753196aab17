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
#include <gnuradio/bsid/core/channel/soft_input.h>
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
 * that book. Positions are cut into groups of W (the lattice's lanes),
 * group g holding positions pos0 + g W .. + W - 1 (pos0 = m_tau^-).
 *
 * A group's blocks are kept in slots, direct-mapped by (book, group): with
 * storage "global" every group of a frame keeps its own slot, so that each
 * lattice runs once per frame; with "local" a book keeps the groups of about
 * one window of states, so that each lattice runs once in the forward pass
 * and once in the backward pass. Where even that does not fit the memory
 * given, nothing is kept ("streaming"): each index computes its window's
 * lattices, one chunk of codewords at a time. All three compute every value
 * the same way and sum in the same order, so the storage modes give the
 * same posteriors bit for bit.
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
    int W;              //!< lanes: positions per group
    int n, N, P, q, A;  //!< the code and the frame
    int Mt, Mn, dlo;    //!< the state spaces
    long long pos0;     //!< the first position, m_tau^-
    long long groups;   //!< groups in a frame
    int span;           //!< the most groups one index's states touch
    int books_kept;     //!< books whose windows can share groups
    size_t slot_values; //!< one slot: q Mn W values
    size_t GS;          //!< a G or weight row: Mt + 2 W (lanes of state a at a + W)
    cpu::position_shape<real> shape;
    std::vector<codeword_trie> tries; //!< per book
    std::vector<real> diag;           //!< A x A: letter x sent, y received
    int widest = 1;

    //! Where a frame's blocks are kept: `books` books of `per_book` groups
    //! each (slot of (book, g): (book mod books) per_book + g mod per_book);
    //! books = 0 keeps none (streaming).
    struct layout {
        long long per_book = 0;
        int books = 0;
    };
    //! Global: every group of every book whose windows share groups; local:
    //! one window (and one group more) of each such book.
    layout storage(bool global) const;
    //! Bytes a workspace holds for a frame's blocks in that layout.
    size_t bytes(const layout& l) const;
    //! The first and last group of index i's states.
    long long first_group(int i) const;
    long long last_group(int i) const;
};

//! One thread's blocks for the frame it decodes.
template <typename real>
class position_blocks
{
public:
    /*!
     * A frame's start: the letters' diagonal weights by received item
     * (hard items, or soft ones whose probabilities `prob` holds, A per
     * item) and slots in layout l, all empty.
     */
    void prepare(const position_plan<real>& plan,
                 const uint8_t* letters,
                 const real* prob,
                 long long rho,
                 const typename position_plan<real>::layout& l);

    /*!
     * For index i: G[e GS + a + W] (a state, e drift change) gets the sums
     * over D of prior[D] R, or of R / q without a prior, if G is not null,
     * and acc[D W + l] += sum_e wt[e GS + a + W] R over the states a in lane
     * l of each group, if wt is not null (G is zeroed first; acc is not).
     * Returns the seconds spent in lattices (0 unless timed).
     */
    double index_sums(
        int i, const double* prior, double* G, const double* wt, double* acc, bool timed);

    //! Lattices run since prepare (for tests of the storage modes).
    long long lattices() const { return d_lattices; }

private:
    const real* group_block(int book, long long g, double& seconds, bool timed);
    void uniform_sums(int book, const real* R, double* G, size_t gs);
    double* gsum(size_t slot)
    {
        return d_gsums.data() + slot * size_t(d_plan->Mn * d_plan->W);
    }
    void run_chunk(int book, long long g, int chunk, real* out);

    const position_plan<real>* d_plan = nullptr;
    long long d_rho = 0;
    long long d_jlo = 0; // dw's first item
    aligned_vector<real> d_dw;
    size_t d_dw_stride = 0; // letter x's weight of item j at d_dw[x stride + j - jlo]
    aligned_vector<real> d_slots;
    aligned_vector<double>
        d_gsums; // per slot: its group's sums of a uniform prior (Mn W)
    size_t d_last_slot = 0;
    std::vector<long long> d_tags;
    aligned_vector<real> d_piece; // one chunk's blocks (streaming)
    aligned_vector<real> d_scratch;
    typename position_plan<real>::layout d_layout;
    long long d_lattices = 0;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_POSITION_BLOCKS_H */
