/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "frame_assembler.h"
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>
#include <algorithm>

namespace gr {
namespace bsid {

bool upstream_done(const gr::block& b, long in_this_call, int port)
{
    const auto d = b.detail();
    if (!d || port < 0 || d->ninputs() <= port)
        return false;
    const auto in = d->input(unsigned(port));
    gr::thread::scoped_lock guard(*in->mutex());
    // done first: once the upstream is done, items_available() is final
    return in->done() && (in_this_call < 0 || in->items_available() <= in_this_call);
}

count_value read_count(const pmt::pmt_t& value)
{
    count_value c;
    if (pmt::is_integer(value)) { // a long
        const long v = pmt::to_long(value);
        if (v < 0) {
            c.why = "the value " + std::to_string(v) + " is negative";
            return c;
        }
        c.ok = true;
        c.value = uint64_t(v);
        return c;
    }
    if (pmt::is_uint64(value)) {
        c.ok = true;
        c.value = pmt::to_uint64(value);
        return c;
    }
    c.why = "the value " + pmt::write_string(value) + " is not an integer" +
            (pmt::is_real(value) || pmt::is_complex(value)
                 ? " PMT (it is a number of another type)"
                 : "");
    return c;
}

frame_assembler::frame_assembler(pmt::pmt_t len_key, pmt::pmt_t lost_key, size_t itemsize)
    : d_len_key(std::move(len_key)), d_lost_key(std::move(lost_key)), d_itemsize(itemsize)
{
}

void frame_assembler::flush_lost(events& ev)
{
    if (d_lost > 0) {
        const uint64_t n = d_lost;
        d_lost = 0;
        ev.lost(n);
    }
}

void frame_assembler::start(uint64_t length, std::vector<gr::tag_t> tags, events& ev)
{
    d_in_frame = true;
    d_left = length;
    d_received = 0;
    ev.begin(length, std::move(tags));
    if (d_left == 0) {
        d_in_frame = false;
        ev.end();
    }
}

void frame_assembler::feed(const uint8_t* in,
                           size_t count,
                           uint64_t first,
                           std::vector<gr::tag_t> tags,
                           events& ev)
{
    std::stable_sort(tags.begin(), tags.end(), gr::tag_t::offset_compare);
    const bool lost_tags = !pmt::is_null(d_lost_key);
    size_t pos = 0, ti = 0;
    while (ti < tags.size() && tags[ti].offset < first)
        ++ti; // not ours
    while (pos < count) {
        const uint64_t abs = first + pos;
        std::vector<gr::tag_t> lengths, others;
        while (ti < tags.size() && tags[ti].offset == abs) {
            const gr::tag_t& t = tags[ti++];
            if (pmt::eqv(t.key, d_len_key)) {
                lengths.push_back(t);
            } else if (lost_tags && pmt::eqv(t.key, d_lost_key)) {
                const count_value c = read_count(t.value);
                if (c.ok) {
                    d_lost += std::min<uint64_t>(c.value, UINT64_MAX - d_lost);
                } else {
                    ev.invalid_lost(t, c.why);
                }
            } else {
                others.push_back(t);
            }
        }
        for (size_t k = 0; k < lengths.size(); ++k) {
            if (d_in_frame) {
                d_in_frame = false;
                ev.cut(d_left, false);
            }
            const bool last = k + 1 == lengths.size();
            std::vector<gr::tag_t> mine;
            if (last) {
                flush_lost(ev); // the frames lost before this one
                mine = std::move(others);
                others.clear();
            }
            const count_value c = read_count(lengths[k].value);
            if (c.ok) {
                start(c.value, std::move(mine), ev);
            } else {
                ev.invalid(lengths[k], c.why, std::move(mine));
            }
        }
        if (d_in_frame) {
            for (const auto& t : others)
                ev.inner_tag(t, d_received);
            others.clear();
        }

        // the run up to the next tag, the frame's end or the input's end
        uint64_t run = count - pos;
        if (ti < tags.size() && tags[ti].offset < first + count) {
            run = std::min<uint64_t>(run, tags[ti].offset - abs);
        }
        if (d_in_frame) {
            run = std::min(run, d_left);
            ev.items(in + pos * d_itemsize, size_t(run));
            d_left -= run;
            d_received += run;
            if (d_left == 0) {
                d_in_frame = false;
                ev.end();
            }
        } else {
            ev.outside(in + pos * d_itemsize, size_t(run), std::move(others));
        }
        pos += size_t(run);
    }
}

void frame_assembler::finish(events& ev)
{
    if (d_in_frame) {
        d_in_frame = false;
        ev.cut(d_left, true);
    }
    flush_lost(ev);
}

} // namespace bsid
} // namespace gr
