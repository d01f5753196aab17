/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_CONCATENATED_COUNTER_H
#define INCLUDED_BSID_CORE_CONCATENATED_COUNTER_H

#include <gnuradio/bsid/core/outer/concatenated_decoder.h>
#include <gnuradio/bsid/core/sim/frame_source.h>
#include <cstdint>
#include <vector>

namespace bsid {

//! What became of one simulated frame of a concatenated scheme.
struct concatenated_errors {
    frame_status status = frame_status::ok; //!< the inner decoder's, first pass
    int32_t symbol_errors = 0; //!< wrong information symbols after the last pass
    int32_t bit_errors = 0;    //!< their wrong bits (log2 q_o per symbol)
    int32_t iterations = 0;    //!< passes run
    int32_t bp_iterations = 0; //!< belief-propagation iterations, all passes
    bool syndrome_ok = false;  //!< the decisions form a codeword
    bool undetected() const { return syndrome_ok && symbol_errors > 0; }
};

/*!
 * \brief Decodes batches of simulated frames of a concatenated scheme
 * (frame_source with an outer code) and counts the errors of their
 * information symbols: bsid-sim's loop for --outer.
 *
 * A frame the inner decoder refuses on the first pass is an erasure: every
 * information symbol and bit counts as an error, on every pass.
 */
class concatenated_counter
{
public:
    //! threads: for the counts (0: all cores).
    concatenated_counter(concatenated_decoder& dec,
                         const concatenated_options& opt,
                         int threads = 0);
    /*!
     * Frames of several reads (frame_source::set_reads): each decoded from
     * all its reads by `reads` as the inner decoder
     * (concatenated_decoder::decode_reads_batch). Both decoders must
     * outlive this object.
     */
    concatenated_counter(concatenated_decoder& dec,
                         reads_decoder& reads,
                         const concatenated_options& opt,
                         int threads = 0);

    //! Decodes the batch and counts each frame's errors.
    const std::vector<concatenated_errors>& run(const frame_batch& batch);

    const std::vector<concatenated_errors>& errors() const { return d_errors; }
    /*!
     * size() x I flags of the last run: entry k I + t - 1 is 1 when frame k's
     * information decisions after pass t were wrong. A frame that stopped
     * before pass t keeps its last decisions.
     */
    const std::vector<uint8_t>& wrong_after() const { return d_wrong; }
    //! size() x n codeword decisions of the last run (-1 for an erasure).
    const std::vector<int32_t>& decisions() const { return d_decisions; }
    const concatenated_options& options() const { return d_opt; }

private:
    concatenated_decoder& d_dec;
    reads_decoder* d_reads = nullptr; // frames of several reads
    concatenated_options d_opt;
    int d_threads;
    std::vector<concatenated_errors> d_errors;
    std::vector<uint8_t> d_wrong;
    std::vector<int32_t> d_decisions;
    std::vector<int32_t> d_info; // size() x k: the information symbols of d_decisions
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_CONCATENATED_COUNTER_H */
