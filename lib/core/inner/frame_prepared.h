/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What frame_decoder.cc and frame_boundaries.cc share (internal to
// lib/core): the state of one request between its preparation and its
// outputs, and the boundary math's helpers.

#ifndef INCLUDED_BSID_CORE_INNER_FRAME_PREPARED_H
#define INCLUDED_BSID_CORE_INNER_FRAME_PREPARED_H

#include "channel/letter_scale.h"
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

namespace bsid {

namespace frame_detail {

using bsid::ln2;

// exp(v - max v), in place; false if every value is -inf (all zero). With
// log_scale, *log_scale = ln sum exp(v) (the scale that the backend's
// normalization of the result divides out).
bool exp_relative(std::vector<double>& v, double* log_scale = nullptr);

// ln((1 - gap) e^logT + gap A^-rest): an end's tail weight when, with
// probability gap, what follows the end is not the next frame but random
// letters (lnA = ln A)
double with_gap(double logT, double gap, long long rest, double lnA);

} // namespace frame_detail

// Everything one request needs between its preparation and its outputs.
struct frame_decoder::prepared {
    bool refused = false; // decided before decoding (result holds why)
    frame_result result;
    bool plain = false;             // the backend's own boundaries (the default decode)
    position_weights start;         // the start prior, sorted, normalized
    bool random_before = false;     // frame_request::random_before, with a spread prior
    int A = 2;                      // the alphabet (2: bits)
    double lnA = frame_detail::ln2; // ln A
    /*
     * ln of the factor that takes a start's exact weight to the backend's
     * scale, relative to codeword 0's earliest start x_lo: A^(s - x_lo), and
     * with random_before the A^-(s - s_0) of the letters before s on top.
     */
    double start_scale(long long s, long long x_lo) const
    {
        const long long from = random_before ? start.positions.front() : s;
        return double(from - x_lo) * lnA;
    }
    std::vector<std::vector<double>> wrow; // per start: R(rx[s:s+c] | W), c = 0..
    long long p0 = 0;                      // the backend's bit 0 is rx[p0]
    int lo_b = 0, hi_b = 0;                // the backend's state range
    std::shared_ptr<map_decoder> dec;
    frame_boundaries bounds;
    std::vector<long long> end_e; // free end with look-ahead: the positions asked for
    std::vector<double> metrics;  // alpha_N then beta_0
    std::vector<double> post;
    event_counts events;       // frame_request::events: the backend's part
    std::vector<double> items; // and its item posteriors (A L)
    std::vector<double> pairs; // and its substitution counts (A x A), if asked
    // the evidence: the start and end weights given to the backend are the
    // exact ones (times 2^(x - x_lo) and 2^-(e - e_lo)) over these scales
    double log_scale_start = 0, log_scale_end = 0;
    double backend_evidence = -std::numeric_limits<double>::infinity();
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_INNER_FRAME_PREPARED_H */
