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
    void tag(uint64_t offset, pmt::pmt_t key, pmt::pmt_t value, pmt::pmt_t srcid = pmt::PMT_F)
    {
        d_tags.push_back({ offset, key, value, srcid });
    }

    /*!
     * Moves up to max_items to out. Calls emit(tag) for every tag whose
     * offset falls among the items moved; returns the number moved.
     */
    template <typename Emit>
    size_t pop(T* out, size_t max_items, Emit emit)
    {
        const size_t n = std::min<size_t>(max_items, size());
        std::copy(d_data.begin() + long(d_head), d_data.begin() + long(d_head + n * d_width), out);
        d_head += n * d_width;
        if (d_head == d_data.size()) {
            d_data.clear();
            d_head = 0;
        } else if (d_head > d_data.size() / 2) { // compact now and then, not per call
            d_data.erase(d_data.begin(), d_data.begin() + long(d_head));
            d_head = 0;
        }
        const uint64_t stop = d_begin + n;
        // tags may arrive out of order (a frame's tags after its items)
        std::stable_sort(d_tags.begin(), d_tags.end(), [](const queued_tag& a, const queued_tag& b) {
            return a.offset < b.offset;
        });
        size_t k = 0;
        while (k < d_tags.size() && d_tags[k].offset < stop) emit(d_tags[k++]);
        d_tags.erase(d_tags.begin(), d_tags.begin() + long(k));
        d_begin = stop;
        return n;
    }

private:
    size_t d_width;
    uint64_t d_begin = 0;
    std::vector<T> d_data; // items from d_head on are waiting
    size_t d_head = 0;
    std::vector<queued_tag> d_tags;
};

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_OUTPUT_QUEUE_H */
