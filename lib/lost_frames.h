/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Frames a block lost and puts out no items for (the channel's frames lost
// whole, the stream receiver's erasures with output "received"): counted,
// and the count carried by a "bsid_frames_lost" tag on the first item of the
// next frame it puts out, so that frame k stays frame k downstream.

#ifndef INCLUDED_BSID_LOST_FRAMES_H
#define INCLUDED_BSID_LOST_FRAMES_H

#include "output_queue.h"
#include <gnuradio/logger.h>
#include <pmt/pmt.h>
#include <cstdint>
#include <string>

namespace gr {
namespace bsid {

class lost_frames
{
public:
    //! One more frame lost.
    void add() { ++d_pending; }
    //! Whether a count waits for the next frame.
    bool pending() const { return d_pending > 0; }
    //! The count so far, on item `start` of the queue (the next frame's first).
    template <typename T>
    void tag_next(output_queue<T>& queue, uint64_t start)
    {
        static const pmt::pmt_t key = pmt::intern("bsid_frames_lost");
        if (d_pending > 0) {
            queue.tag(start, key, pmt::from_long(long(d_pending)));
            d_pending = 0;
        }
    }
    //! The stream has ended: a count left has no item to carry it (logged;
    //! `counter` names the block's method that counts them).
    void end_of_stream(const gr::logger_ptr& logger, const std::string& counter)
    {
        if (d_pending > 0) {
            GR_LOG_WARN(logger,
                        std::to_string(d_pending) +
                            " frames were lost at the end of the stream; no item is "
                            "left to carry their bsid_frames_lost count (" +
                            counter + " counts them)");
            d_pending = 0;
        }
    }

private:
    uint64_t d_pending = 0;
};

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_LOST_FRAMES_H */
