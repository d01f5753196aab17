/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_FRAME_STATUS_H
#define INCLUDED_BSID_CORE_FRAME_STATUS_H

#include <array>
#include <string>

namespace bsid {

/*!
 * \brief What became of a frame: decoded (ok), or why it is an erasure
 * (docs/design.md section 2, "Erasures"). The one vocabulary of the
 * decoders, the blocks' `bsid_erasure` tags, bsid_decode's "erasure" lines
 * and the Python statuses; new statuses are added here, at the end (the
 * Python `frame_status_names` and count_errors' status codes are indices).
 */
enum class frame_status {
    ok = 0,
    // refused by the decoder
    empty,              //!< rho = 0: nothing was received
    invalid_input,      //!< a received byte is not 0 or 1
    drift_out_of_range, //!< rho - tau lies outside [m_tau^-, m_tau^+]
    impossible,         //!< the frame has probability 0 under the model (and limits)
    decoder_error, //!< the decoder failed on this frame (out of memory, a device error)
    // decided by the blocks, before any decoding
    truncated,   //!< fewer bits arrived than the frame's length tag announced
    frame_lost,  //!< the channel lost the whole frame (a `bsid_frames_lost` count)
    invalid_tag, //!< the frame's length tag is not a non-negative integer
    // decided by the stream decoder
    sync_lost, //!< the stream decoder is not synchronized here (stream_decoder)
    //! a frame found, but its alignment is not clearly the best one (a shift
    //! by whole code periods, or another sync word position, fits nearly as
    //! well; docs/receiving.md, "What each setup guarantees")
    sync_ambiguous,
};

//! Every status, in the order of their values.
constexpr std::array<frame_status, 11> all_frame_statuses = {
    frame_status::ok,
    frame_status::empty,
    frame_status::invalid_input,
    frame_status::drift_out_of_range,
    frame_status::impossible,
    frame_status::decoder_error,
    frame_status::truncated,
    frame_status::frame_lost,
    frame_status::invalid_tag,
    frame_status::sync_lost,
    frame_status::sync_ambiguous,
};

/*!
 * A short stable name, the status's identifier: "ok", "empty",
 * "invalid_input", "drift_out_of_range", "impossible", "decoder_error",
 * "truncated", "frame_lost", "invalid_tag", "sync_lost", "sync_ambiguous".
 */
const char* to_string(frame_status s);

//! The status named `name` (to_string's inverse); throws std::invalid_argument.
frame_status parse_frame_status(const std::string& name);

//! The outcome for one frame: a status and, unless ok, a sentence saying why.
struct frame_result {
    frame_status status = frame_status::ok;
    std::string reason;
    bool ok() const { return status == frame_status::ok; }
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_FRAME_STATUS_H */
