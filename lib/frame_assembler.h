/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Frames from a tagged stream, as gr-digital's tagged streams delimit them:
// a length tag on a frame's first item gives its length in items. The
// channel and the decoder both read their input through this one class, so
// they agree on every odd case (docs/design.md section 2, "Tagged streams").

#ifndef INCLUDED_BSID_FRAME_ASSEMBLER_H
#define INCLUDED_BSID_FRAME_ASSEMBLER_H

#include <gnuradio/block.h>
#include <gnuradio/bsid/api.h>
#include <gnuradio/tags.h>
#include <pmt/pmt.h>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace bsid {

/*!
 * Whether the upstream of input `port` of `b` is done and, if in_this_call
 * >= 0, all its remaining items are among the in_this_call items of this
 * call (ask before consume, which moves the read pointer at once).
 */
BSID_API bool upstream_done(const gr::block& b, long in_this_call, int port = 0);

//! Most frames one bsid_frames_lost count may report (a larger count is an
//! invalid tag).
constexpr uint64_t max_frames_lost = uint64_t(1) << 20;

//! A tag's value read as a count (a length or a number of lost frames).
struct count_value {
    bool ok = false;
    uint64_t value = 0;
    std::string why; //!< why it is not a count, if !ok
};

/*!
 * Reads a count from any integer PMT (a long, a uint64) that is not
 * negative; anything else (a double, a symbol, a negative value) is refused
 * with a sentence saying what it is.
 */
BSID_API count_value read_count(const pmt::pmt_t& value);

/*!
 * \brief Splits a tagged stream into frames and reports them, in stream
 * order, to an events object.
 *
 * - A length tag whose value is a count starts a frame of that many items;
 *   one that is not starts no frame (invalid()): its items, up to the next
 *   length tag, lie outside any frame.
 * - A frame still open when the next length tag comes is cut short (cut()),
 *   as is one open when the stream ends (finish()).
 * - Several length tags on one item start frames that receive nothing,
 *   all but the last.
 * - A frames-lost count (when lost_key is set) is reported just before the
 *   next frame starts (lost()), or at the end of the stream.
 * - Other tags go with the frame they fall in: those on a frame's first item
 *   with begin(), the rest with inner_tag(); outside frames, with outside().
 */
class BSID_API frame_assembler
{
public:
    struct events {
        virtual ~events() = default;
        //! A frame of `length` items starts; `tags`: the other tags on its first item.
        virtual void begin(uint64_t length, std::vector<gr::tag_t> tags) = 0;
        //! A length tag that is not a count (`tag` is it, `why` says what is wrong).
        virtual void invalid(const gr::tag_t& tag,
                             const std::string& why,
                             std::vector<gr::tag_t> tags) = 0;
        //! The next `count` items of the open frame (in: their bytes).
        virtual void items(const uint8_t* in, size_t count) = 0;
        //! The open frame has all its items.
        virtual void end() = 0;
        //! The open frame ends `missing` items short: a frame started, or the stream
        //! ended.
        virtual void cut(uint64_t missing, bool stream_ended) = 0;
        //! `count` frames were lost before the next one.
        virtual void lost(uint64_t count) { (void)count; }
        //! A frames-lost tag whose value is not a count.
        virtual void invalid_lost(const gr::tag_t& tag, const std::string& why)
        {
            (void)tag;
            (void)why;
        }
        //! A tag on item `offset` of the open frame (offset >= 1).
        virtual void inner_tag(const gr::tag_t& tag, uint64_t offset)
        {
            (void)tag;
            (void)offset;
        }
        //! Items outside any frame, and the tags on the first of them.
        virtual void
        outside(const uint8_t* in, size_t count, std::vector<gr::tag_t> tags) = 0;
    };

    /*!
     * lost_key: the key of frames-lost counts, or PMT_NIL to treat them as
     * other tags. itemsize: bytes per item (the pointers that feed() takes
     * and the events get point at items of this size).
     */
    frame_assembler(pmt::pmt_t len_key, pmt::pmt_t lost_key, size_t itemsize = 1);

    /*!
     * Reports the `count` items in[0..count) whose first has absolute offset
     * `first`; `tags`: the tags on them (any order; offsets absolute).
     */
    void feed(const uint8_t* in,
              size_t count,
              uint64_t first,
              std::vector<gr::tag_t> tags,
              events& ev);

    //! The stream has ended: an open frame is cut, a pending lost count reported.
    void finish(events& ev);

    bool in_frame() const { return d_in_frame; }
    //! Whether finish() has something to report: an open frame or a lost count.
    bool pending() const { return d_in_frame || d_lost > 0; }
    //! Items the open frame still needs.
    uint64_t left() const { return d_left; }
    //! Items of the open frame so far.
    uint64_t received() const { return d_received; }

private:
    void start(uint64_t length, std::vector<gr::tag_t> tags, events& ev);
    void flush_lost(events& ev);

    pmt::pmt_t d_len_key, d_lost_key;
    size_t d_itemsize;
    bool d_in_frame = false;
    uint64_t d_left = 0, d_received = 0;
    uint64_t d_lost = 0; // frames lost, not reported yet
};

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_FRAME_ASSEMBLER_H */
