/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "channel_impl.h"
#include <gnuradio/io_signature.h>
#include <algorithm>

namespace gr {
namespace bsid {

namespace {
const pmt::pmt_t drift_key = pmt::intern("bsid_drift");
const pmt::pmt_t lost_key = pmt::intern("bsid_frames_lost");
} // namespace

channel::sptr channel::make(double Pi,
                            double Pd,
                            double Ps,
                            uint64_t seed,
                            const std::string& len_tag_key,
                            bool drift_tags)
{
    return gnuradio::make_block_sptr<channel_impl>(Pi, Pd, Ps, seed, len_tag_key, drift_tags);
}

channel_impl::channel_impl(double Pi,
                           double Pd,
                           double Ps,
                           uint64_t seed,
                           const std::string& len_tag_key,
                           bool drift_tags)
    : gr::block("channel",
                gr::io_signature::make(1, 1, sizeof(uint8_t)),
                gr::io_signature::make(1, 1, sizeof(uint8_t))),
      d_params(Pi, Pd, Ps),
      d_seed(seed),
      d_len_key(pmt::intern(len_tag_key)),
      d_drift_tags(drift_tags)
{
    // Frames change length, so tags are moved by hand (a relative rate would
    // scale them to the wrong items).
    set_tag_propagation_policy(TPP_DONT);
}

::bsid::channel_params channel_impl::current_params() const
{
    std::lock_guard<std::mutex> lock(d_params_mutex);
    return d_params;
}

void channel_impl::set_channel(double Pi, double Pd, double Ps)
{
    const ::bsid::channel_params p(Pi, Pd, Ps); // throws, leaving the channel unchanged
    std::lock_guard<std::mutex> lock(d_params_mutex);
    d_params = p;
}
void channel_impl::set_Pi(double Pi) { set_channel(Pi, this->Pd(), this->Ps()); }
void channel_impl::set_Pd(double Pd) { set_channel(this->Pi(), Pd, this->Ps()); }
void channel_impl::set_Ps(double Ps) { set_channel(this->Pi(), this->Pd(), Ps); }
std::string channel_impl::error() const
{
    std::lock_guard<std::mutex> lock(d_params_mutex);
    return d_error;
}
double channel_impl::Pi() const { return current_params().Pi(); }
double channel_impl::Pd() const { return current_params().Pd(); }
double channel_impl::Ps() const { return current_params().Ps(); }

void channel_impl::forecast(int noutput_items, gr_vector_int& ninput_items_required)
{
    // Queued output needs no input; otherwise any input makes progress.
    ninput_items_required[0] = d_queue.size() > 0 ? 0 : 1;
    (void)noutput_items;
}

void channel_impl::start_frame(long length)
{
    d_frame.emplace(current_params(), d_seed, d_frames); // frame k: stream (seed, k)
    d_frame_left = std::max(0L, length);
    d_frame_len = d_frame_left;
    d_frame_out.clear();
    d_frame_tags.clear();
    ++d_frames;
    if (d_frame_left == 0) finish_frame();
}

void channel_impl::finish_frame()
{
    const uint64_t start = d_queue.end();
    const long rho = long(d_frame_out.size());
    if (rho == 0) {
        // Nothing to carry a tag: count the loss and report it on the next frame.
        ++d_frames_lost;
        ++d_lost_pending;
        for (const auto& t : d_frame_tags) d_queue.tag(start, t.key, t.value, t.srcid);
    } else {
        d_queue.tag(start, d_len_key, pmt::from_long(rho));
        if (d_drift_tags) {
            d_queue.tag(start, drift_key, pmt::from_long(rho - (d_frame_len - d_frame_left)));
        }
        if (d_lost_pending > 0) {
            d_queue.tag(start, lost_key, pmt::from_long(d_lost_pending));
            d_lost_pending = 0;
        }
        for (const auto& t : d_frame_tags) d_queue.tag(start + t.offset, t.key, t.value, t.srcid);
        d_queue.push(d_frame_out.data(), d_frame_out.size());
    }
    d_frame.reset();
    d_frame_left = 0;
}

int channel_impl::general_work(int noutput_items,
                               gr_vector_int& ninput_items,
                               gr_vector_const_void_star& input_items,
                               gr_vector_void_star& output_items)
{
    const auto* in = static_cast<const uint8_t*>(input_items[0]);
    auto* out = static_cast<uint8_t*>(output_items[0]);
    const uint64_t in0 = nitems_read(0);
    if (!d_error.empty() && d_queue.size() == 0) {
        return WORK_DONE;
    }

    // Consume input while the queue is short (frames in progress always
    // continue, so that a frame longer than any buffer still completes).
    const uint64_t queue_cap = std::max<uint64_t>(uint64_t(noutput_items) * 4, 1 << 16);
    long nin = d_queue.size() < queue_cap || d_frame ? ninput_items[0] : 0;
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, in0, in0 + uint64_t(nin));
    std::stable_sort(tags.begin(), tags.end(), gr::tag_t::offset_compare);

    long pos = 0;
    size_t ti = 0;
    try {
    while (pos < nin && d_error.empty()) {
        const uint64_t abs = in0 + uint64_t(pos);
        // tags on this item: each length tag starts a frame (all but the last
        // of several on one item start frames with no bits), others are carried
        std::vector<long> lengths;
        std::vector<gr::tag_t> here;
        while (ti < tags.size() && tags[ti].offset == abs) {
            if (pmt::eqv(tags[ti].key, d_len_key)) {
                lengths.push_back(pmt::is_integer(tags[ti].value) ? pmt::to_long(tags[ti].value) : 0);
            } else {
                here.push_back(tags[ti]);
            }
            ++ti;
        }
        for (long frame_len : lengths) {
            if (d_frame) {
                GR_LOG_WARN(d_logger,
                            "a frame starts at input item " + std::to_string(abs) + " with " +
                                std::to_string(d_frame_left) +
                                " bits of the previous frame missing; it ends short");
                finish_frame();
            }
            start_frame(frame_len);
        }
        for (const auto& t : here) {
            if (d_frame) {
                d_frame_tags.push_back({ d_frame_out.size(), t.key, t.value, t.srcid });
            } else {
                d_queue.tag(d_queue.end(), t.key, t.value, t.srcid);
            }
        }
        // the run of bits up to the next tag (or the end of the frame/input)
        long run = nin - pos;
        if (ti < tags.size()) run = std::min<long>(run, long(tags[ti].offset - abs));
        if (d_frame) {
            run = std::min(run, d_frame_left);
            d_frame->process(in + pos, size_t(run), d_frame_out);
            d_frame_left -= run;
            pos += run;
            if (d_frame_left == 0) finish_frame();
        } else if (run > 0) {
            const auto p = current_params();
            if (!d_stream) {
                d_stream = std::make_unique<::bsid::channel_emulator>(p, d_seed, 0);
            } else if (d_stream->params() != p) {
                d_stream->set_params(p);
            }
            std::vector<uint8_t> rx;
            d_stream->process(in + pos, size_t(run), rx);
            d_queue.push(rx.data(), rx.size());
            pos += run;
        }
    }
    } catch (const std::invalid_argument& e) {
        // Input that is not bits: a clear error, then the stream ends cleanly
        // after what was already produced (an exception would leave the
        // flowgraph waiting on this block).
        // (only this thread writes d_error; the lock is for error() elsewhere)
        std::string err =
            std::string(e.what()) + " (input items from " + std::to_string(in0 + uint64_t(pos)) + ")";
        GR_LOG_ERROR(d_logger, err);
        std::lock_guard<std::mutex> lock(d_params_mutex);
        d_error = std::move(err);
    }
    consume_each(int(nin));

    const size_t n = d_queue.pop(out, size_t(noutput_items), [&](const queued_tag& t) {
        add_item_tag(0, t.offset, t.key, t.value, t.srcid);
    });
    return int(n);
}

} // namespace bsid
} // namespace gr
