/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What bsid.map_decoder puts out for a frame (its `output` parameter), from
// the frame's posteriors (or extrinsic outputs), written once for the
// decoder of one read (map_decoder_impl) and of several (map_decoder_reads_impl).

#ifndef INCLUDED_BSID_DECODER_OUTPUT_H
#define INCLUDED_BSID_DECODER_OUTPUT_H

#include "llr.h"
#include "output_queue.h"
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <pmt/pmt.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace bsid {

//! What the decoder puts out; received: the stream receiver's frames as
//! received (their items cut at the decoded start and end), not decoded.
enum class output_mode { posteriors, llr, hard, extrinsic, received };

//! The key of an erased frame's status tag.
inline const pmt::pmt_t& erasure_key()
{
    static const pmt::pmt_t key = pmt::intern("bsid_erasure");
    return key;
}

inline output_mode parse_output_mode(const std::string& s)
{
    if (s == "posteriors")
        return output_mode::posteriors;
    if (s == "llr")
        return output_mode::llr;
    if (s == "hard")
        return output_mode::hard;
    if (s == "extrinsic")
        return output_mode::extrinsic;
    if (s == "received")
        return output_mode::received;
    if (s.find("extrinsic") != std::string::npos && s.find("hard") != std::string::npos) {
        throw std::invalid_argument(
            "map_decoder: output '" + s +
            "' asks for extrinsic hard decisions: hard decisions are taken on the "
            "posterior and have no extrinsic form (use output \"hard\", or "
            "\"extrinsic\" for the extrinsic log-probabilities)");
    }
    throw std::invalid_argument(
        "map_decoder: output '" + s +
        "' is not one of posteriors, llr, hard, extrinsic, received");
}

/*!
 * The bytes of one output item. received: the input's items (floats: its
 * soft items as the stream receiver keeps them: an LLR for a bit, A
 * log-probabilities for a letter).
 */
inline size_t output_item_size(output_mode m, int q, int input_floats = 0)
{
    switch (m) {
    case output_mode::received:
        return input_floats == 0
                   ? 1
                   : sizeof(float) * size_t(input_floats == 2 ? 1 : input_floats);
    case output_mode::posteriors:
    case output_mode::extrinsic:
        return sizeof(float) * size_t(q);
    case output_mode::llr:
        return sizeof(float);
    default:
        return sizeof(int32_t);
    }
}

//! The output items of one frame of N symbols.
inline size_t output_items_per_frame(output_mode m, int N, int q)
{
    return m == output_mode::llr ? size_t(N) * size_t(llr_bits_per_symbol(q)) : size_t(N);
}

/*!
 * A frame's output items into `queue`: from its N q posteriors (extrinsic
 * outputs for output_mode::extrinsic), or an erasure's (post null):
 * uniform posteriors, zero LLRs, symbols -1, rows of ln(1/q).
 */
inline void push_frame_output(output_mode mode,
                              const double* post,
                              int N,
                              int q,
                              float llr_scale,
                              float llr_clip,
                              output_queue<uint8_t>& queue)
{
    const bool erased = post == nullptr;
    switch (mode) {
    case output_mode::posteriors: {
        std::vector<float> v(size_t(N) * size_t(q));
        for (size_t k = 0; k < v.size(); ++k)
            v[k] = erased ? 1.0f / float(q) : float(post[k]);
        queue.push(reinterpret_cast<const uint8_t*>(v.data()), size_t(N));
        break;
    }
    case output_mode::llr: {
        std::vector<float> v(output_items_per_frame(mode, N, q), 0.0f);
        if (!erased)
            posteriors_to_llr(post, N, q, llr_scale, llr_clip, v.data());
        queue.push(reinterpret_cast<const uint8_t*>(v.data()), v.size());
        break;
    }
    case output_mode::extrinsic: {
        // natural logs, each probability floored at 1e-300 (as the LLRs are):
        // never -inf or NaN downstream; an erasure's rows are ln(1/q)
        std::vector<float> v(size_t(N) * size_t(q));
        for (size_t k = 0; k < v.size(); ++k)
            v[k] = erased ? float(-std::log(double(q)))
                          : float(std::log(std::max(post[k], 1e-300)));
        queue.push(reinterpret_cast<const uint8_t*>(v.data()), size_t(N));
        break;
    }
    case output_mode::hard: {
        std::vector<int32_t> v(size_t(N), -1);
        if (!erased)
            ::bsid::hard_decisions(post, N, q, v.data());
        queue.push(reinterpret_cast<const uint8_t*>(v.data()), v.size());
        break;
    }
    case output_mode::received:
        throw std::logic_error("push_frame_output: a received frame is not decoded");
    }
}

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_DECODER_OUTPUT_H */
