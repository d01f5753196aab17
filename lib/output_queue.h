/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Items a block has produced but not yet written, with their tags: the
// channel and the decoder emit whole frames across as many work() calls as
// the output buffer needs, so no frame depends on a buffer's size.

#ifndef INCLUDED_BSID_OUTPUT_QUEUE_H
#define INCLUDED_BSID_OUTPUT_QUEUE_H

#include <pmt/pmt.h>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <vector>

namespace gr {
namespace bsid {

//! A tag waiting in a queue: its offset counts items from the queue's start.
struct queued_tag {
    uint64_t offset;
    pmt::pmt_t key;
    pmt::pmt_t value;
    pmt::pmt_t srcid;
};

/*!
 * \brief A FIFO of output items (item_size bytes each, stored as T) and tags.
 *
 * Offsets are absolute item counts since the queue was made: item k of the
 * stream the queue feeds is queue item k, so a tag's queue offset is also its
 * offset relative to the block's first output item.
 */
template <typename T>
class output_queue
{
public:
    explicit output_queue(size_t items_per_entry = 1) : d_width(items_per_entry) {}

    //! Items pushed so far (the offset the next pushed item will have).
    uint64_t end() const { return d_begin + size(); }
    //! Items waiting.
    uint64_t size() const { return (d_data.size() - d_head) / d_width; }

    void push(const T* items, size_t count)
    {
        d_data.insert(d_data.end(), items, items + count * d_width);
    }
    //! Tags are kept sorted by offset as they come (in order of arrival among
    //! equal offsets); they mostly come in order, so this is an append.
    void
    tag(uint64_t offset, pmt::pmt_t key, pmt::pmt_t value, pmt::pmt_t srcid = pmt::PMT_F)
    {
        queued_tag t{ offset, std::move(key), std::move(value), std::move(srcid) };
        if (d_tags.empty() || d_tags.back().offset <= offset) {
            d_tags.push_back(std::move(t));
            return;
        }
        const auto at = std::upper_bound(
            d_tags.begin(), d_tags.end(), offset, [](uint64_t o, const queued_tag& x) {
                return o < x.offset;
            });
        d_tags.insert(at, std::move(t));
    }
    //! Tags waiting.
    size_t tags_waiting() const { return d_tags.size(); }

    /*!
     * Moves up to max_items to out. Calls emit(tag) for every tag whose
     * offset falls among the items moved; returns the number moved.
     */
    template <typename Emit>
    size_t pop(T* out, size_t max_items, Emit emit)
    {
        const size_t n = std::min<size_t>(max_items, size());
        std::copy(d_data.begin() + long(d_head),
                  d_data.begin() + long(d_head + n * d_width),
                  out);
        d_head += n * d_width;
        if (d_head == d_data.size()) {
            d_data.clear();
            d_head = 0;
        } else if (d_head > d_data.size() / 2) { // compact now and then, not per call
            d_data.erase(d_data.begin(), d_data.begin() + long(d_head));
            d_head = 0;
        }
        const uint64_t stop = d_begin + n;
        // sorted already: the tags of the items moved are at the front
        while (!d_tags.empty() && d_tags.front().offset < stop) {
            emit(d_tags.front());
            d_tags.pop_front();
        }
        d_begin = stop;
        return n;
    }

private:
    size_t d_width;
    uint64_t d_begin = 0;
    std::vector<T> d_data; // items from d_head on are waiting
    size_t d_head = 0;
    std::deque<queued_tag> d_tags; // sorted by offset
};

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_OUTPUT_QUEUE_H */
