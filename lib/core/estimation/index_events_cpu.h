/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_INDEX_EVENTS_CPU_H
#define INCLUDED_BSID_CORE_INDEX_EVENTS_CPU_H

/*
 * The E-step of the CPU decoder for one index (map_decoder_cpu's events):
 * the edge posteriors of model::codeword_events for every start state that
 * carries weight, with the q codewords as lanes in the vectors of the
 * machine's instruction set (runtime/isa.h) and the sums kept per lane.
 *
 * The same lattice and cells as model::codeword_events (the reference it is
 * tested against, qa_index_events), with work that lanes in vectors make
 * worth avoiding left out: the zero corner of the forward lattice (the nodes
 * below the start's drift that r rows cannot reach) and its backward values,
 * which no edge with forward weight reads; the diagonal weights, computed
 * once per node for the forward values, the backward values and the edges;
 * and the lanes' scales, folded into the backward values of the last row.
 */

#include "runtime/isa.h"
#include <cstddef>
#include <cstdint>

namespace bsid {
namespace cpu {

/*!
 * Where index_events puts the edges' posteriors: one sum per lane, so that
 * the lanes stay in vectors; the caller adds the lanes up (in lane order).
 * With items and pairs null, the counts come from a forward pass alone
 * (index_events).
 */
struct event_lanes {
    double* ins = nullptr;   //!< L sums of the horizontal edges
    double* del = nullptr;   //!< L sums of the vertical edges
    double* trans = nullptr; //!< L sums of the diagonal edges
    double* subst =
        nullptr; //!< L sums of the diagonal edges that received another letter
    double* items = nullptr; //!< (j A + b) L + l: item first + j received as b; or null
    double* pairs = nullptr; //!< (x A + b) L + l: letter x sent, b received; or null
};

//! One index's lattices: the codewords, the states and where the sums go.
struct index_events_call {
    // the codeword lattice (as model::codeword_events)
    int n = 0, dlo = 0, Mn = 0;
    int L = 0; //!< lanes: the q codewords
    int A = 2; //!< letters
    double ins = 0, del = 0;
    const double* qw = nullptr; //!< the book's weights (A r + b) L + l (codeword_events)
    const double* x = nullptr;  //!< the book's letters, as doubles
    // the index
    int Mt = 0;                        //!< start states
    int lo = 0, hi = 0;                //!< the states in the frame
    long long first = 0;               //!< the item state 0 starts at
    long long rho = 0;                 //!< the frame's items
    const double* prob = nullptr;      //!< the frame's items' probabilities, A each
    bool hard = false;                 //!< every item's probabilities are 0 and 1
    const double* alpha = nullptr;     //!< alpha_i(a), Mt
    const double* mass = nullptr;      //!< alpha_i(a) beta_i(a), Mt
    double negligible = 0;             //!< states of less mass are skipped
    const double* beta_next = nullptr; //!< beta_{i+1}(b), Mt
    const double* prior = nullptr;     //!< P(D), L, or null: uniform
    //! workspace of index_events_scratch(n, Mn, L, A) doubles
    double* scratch = nullptr;
    //! the lanes' sums (added)
    event_lanes to{};
};

//! The doubles of workspace index_events needs.
size_t index_events_scratch(int n, int Mn, int L, int A);

/*!
 * The edges' posteriors of every start state a in [lo, hi) with alpha_i(a)
 * != 0, mass >= negligible and some end state of weight, each lane of state
 * a scaled by alpha_i(a) P(D), added to call.to. Returns their total weight
 * lambda_i (what the caller divides by). isa: at most best_isa().
 *
 * With call.to.items and call.to.pairs null, only the four counts are asked
 * for: they then come from one forward pass per state that carries count
 * lattices beside F (a path's insertions are its deletions plus its drift
 * change, its transmissions n less its deletions), with no backward pass
 * and no lattice kept. Otherwise each state's lattice runs forward and
 * backward, and every edge's posterior is added where it belongs.
 */
double index_events(isa i, const index_events_call& call);

} // namespace cpu
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_INDEX_EVENTS_CPU_H */
