/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A search's window of starts decoded in parts (docs/design.md section 3,
// "Stream decoding: a search in parts"). The frame decoder's weight of a
// message, start s and end e is linear in the start prior pi(s), so a window
// cut into parts S_j, each decoded with its prior pi_j (pi restricted to S_j
// and normalized, mass m_j), gives the window's results exactly:
//   ln LR = ln sum_j m_j e^(l_j), l_j part j's ln LR, and every posterior
//   (of starts, of ends) is the parts' weighed by c_j = m_j e^(l_j) / e^(ln LR).
// A window of thousands of starts decoded whole is one state space of
// thousands of states, whose recursion a GPU walks in one block; its parts
// are a few hundred states each, decoded side by side in one batch.

#ifndef INCLUDED_BSID_CORE_SEARCH_PARTS_H
#define INCLUDED_BSID_CORE_SEARCH_PARTS_H

#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <vector>

namespace bsid {
namespace detail {

struct search_parts {
    std::vector<frame_request> requests; //!< one per part, over the same segment
    std::vector<double> mass;            //!< each part's share of the prior's mass
};

/*!
 * `whole` cut into parts of at most `starts` consecutive start positions
 * (of its prior, which must be set): each part a copy of `whole` with its
 * positions and a weight-0 position at their padded top (so that parts of
 * one width share a state space), within the segment. Parts with no mass
 * are left out.
 */
search_parts cut_search(const frame_request& whole, size_t starts);

/*!
 * The parts' results (in cut_search's order, with its masses) as the
 * window's: its status (ok if any part decoded), log-likelihood ratio and
 * evidence, start and end posteriors. The symbol posteriors, the forward
 * end metric and the events are not merged (empty): a search reads none of
 * them. An alphabet of A letters: the evidence's scale, A per item.
 */
frame_decode_result merge_search_parts(std::vector<frame_decode_result>& parts,
                                       const std::vector<double>& mass,
                                       int alphabet);

} // namespace detail
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_SEARCH_PARTS_H */
