/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_ERROR_COUNTER_H
#define INCLUDED_BSID_CORE_ERROR_COUNTER_H

#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/reads/reads_decoder.h>
#include <gnuradio/bsid/core/sim/frame_source.h>
#include <cstdint>
#include <vector>

namespace bsid {

//! What became of one simulated frame.
struct frame_errors {
    frame_status status = frame_status::ok;
    int32_t symbol_errors = 0; //!< decided symbols that differ from the sent ones
    int32_t bit_errors = 0;    //!< differing bits, through the symbol-to-bit map
};

/*!
 * \brief Decodes batches of simulated frames and counts their errors: the
 * error-rate simulator's inner loop, kept in C++ so that it keeps up with the
 * GPU.
 *
 * Decisions are MAP symbol decisions (hard_decisions(): the largest
 * posterior, ties within a relative 1e-12 to the lowest index). Bits come
 * from the symbol-to-bit map of docs/design.md section 2: symbol D is its
 * bits_per_symbol(q) = ceil(log2 q) bits, MSB first, so the bit errors of a
 * symbol are the popcount of D xor D'. A frame the decoder refuses is an
 * erasure: its decisions are -1, and every symbol and every bit of it counts
 * as an error.
 */
class error_counter
{
public:
    //! threads: for the decisions and counts (0: all cores); the decoder has its own.
    explicit error_counter(map_decoder& dec, int threads = 0);
    //! Frames that begin with a sync word: decoded by a frame_decoder (start 0, known
    //! end).
    explicit error_counter(frame_decoder& dec, int threads = 0);
    /*!
     * Frames of several reads (frame_batch::reads): each decoded from all
     * its reads by `dec` (a read that cannot be decoded is left out; a
     * frame none can decode is an erasure).
     */
    explicit error_counter(reads_decoder& dec, int threads = 0);

    //! Decodes the batch (one decode_batch call) and counts each frame's errors.
    const std::vector<frame_errors>& run(const frame_batch& batch);

    //! The decisions of the last run: size() rows of N symbols (-1 for an erasure).
    const std::vector<int32_t>& decisions() const { return d_decisions; }
    const std::vector<frame_errors>& errors() const { return d_errors; }

    //! ceil(log2 q): bits per symbol in the symbol-to-bit map.
    static int bits_per_symbol(int q)
    {
        int m = 0;
        while ((1LL << m) < q)
            ++m;
        return m;
    }

private:
    map_decoder& d_dec;
    frame_decoder* d_frames = nullptr; // set: frames with a sync word go through it
    reads_decoder* d_reads = nullptr;  // set: frames of several reads go through it
    int d_threads;
    std::vector<double> d_post;
    std::vector<int32_t> d_decisions;
    std::vector<frame_errors> d_errors;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_ERROR_COUNTER_H */
