/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "channel_impl.h"
#include "core_log_handler.h"
#include <gnuradio/io_signature.h>
#include <algorithm>

namespace gr {
namespace bsid {

namespace {
const pmt::pmt_t drift_key = pmt::intern("bsid_drift");
const pmt::pmt_t truncated_key = pmt::intern("bsid_truncated");
const pmt::pmt_t channel_key = pmt::intern("bsid_channel");
} // namespace

channel::sptr channel::make(double Pi,
                            double Pd,
                            double Ps,
                            uint64_t seed,
                            const std::string& len_tag_key,
                            bool drift_tags,
                            int alphabet)
{
    return gnuradio::make_block_sptr<channel_impl>(
        Pi, Pd, Ps, seed, len_tag_key, drift_tags, alphabet);
}

channel_impl::channel_impl(double Pi,
                           double Pd,
                           double Ps,
                           uint64_t seed,
                           const std::string& len_tag_key,
                           bool drift_tags,
                           int alphabet)
    : gr::block("channel",
                gr::io_signature::make(1, 1, sizeof(uint8_t)),
                gr::io_signature::make(1, 1, sizeof(uint8_t))),
      d_params(Pi, Pd, Ps, alphabet),
      d_seed(seed),
      d_len_key(pmt::intern(len_tag_key)),
      d_drift_tags(drift_tags),
      d_asm(pmt::intern(len_tag_key),
            pmt::PMT_NIL) // frames-lost counts pass as other tags
{
    install_core_log_handler();
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
    std::lock_guard<std::mutex> lock(d_params_mutex);
    d_params = d_params.with_rates(Pi, Pd, Ps); // throws, leaving the channel unchanged
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
    (void)noutput_items;
    // Queued output needs no input, nor does a frame still open when the
    // upstream is done (one more call puts it out, truncated); otherwise any
    // input makes progress.
    ninput_items_required[0] =
        d_queue.size() > 0 ||
                ((d_asm.in_frame() || d_lost.pending()) && upstream_done(*this, -1))
            ? 0
            : 1;
}

// ---- the input's frames (frame_assembler::events)

void channel_impl::begin(uint64_t length, std::vector<gr::tag_t> tags)
{
    const auto p = current_params(); // a frame is sent with the settings at its start
    d_frame.emplace(p, d_seed, d_frames); // frame k: stream (seed, k)
    d_frame_len = length;
    d_frame_out.clear();
    d_frame_tags.clear();
    for (const auto& t : tags)
        d_frame_tags.push_back({ 0, t.key, t.value, t.srcid });
    ++d_frames;
}

void channel_impl::invalid(const gr::tag_t& tag,
                           const std::string& why,
                           std::vector<gr::tag_t> tags)
{
    if (!d_warned_invalid) {
        d_warned_invalid = true;
        GR_LOG_WARN(d_logger,
                    "the '" + pmt::symbol_to_string(d_len_key) + "' tag on input item " +
                        std::to_string(tag.offset) + " is not a frame length: " + why +
                        "; such tags are passed on, and the bits after them go "
                        "through as an untagged stream");
    }
    d_queue.tag(d_queue.end(), tag.key, tag.value, tag.srcid);
    for (const auto& t : tags)
        d_queue.tag(d_queue.end(), t.key, t.value, t.srcid);
}

void channel_impl::items(const uint8_t* in, size_t count)
{
    d_frame->process(in, count, d_frame_out);
}

void channel_impl::end() { finish_frame(0); }

void channel_impl::cut(uint64_t missing, bool stream_ended)
{
    GR_LOG_WARN(d_logger,
                "frame " + std::to_string(d_frames - 1) + " ends " +
                    std::to_string(missing) + " of its " + std::to_string(d_frame_len) +
                    " bits short (" +
                    (stream_ended ? "the stream ended" : "the next frame started") +
                    "); it is put out tagged bsid_truncated");
    finish_frame(missing);
}

void channel_impl::inner_tag(const gr::tag_t& tag, uint64_t offset)
{
    (void)offset; // carried to the output position of the same input bit
    d_frame_tags.push_back({ d_frame_out.size(), tag.key, tag.value, tag.srcid });
}

void channel_impl::outside(const uint8_t* in, size_t count, std::vector<gr::tag_t> tags)
{
    for (const auto& t : tags)
        d_queue.tag(d_queue.end(), t.key, t.value, t.srcid);
    const auto p = current_params();
    if (!d_stream) {
        d_stream = std::make_unique<::bsid::channel_emulator>(p, d_seed, 0);
    } else if (d_stream->params() != p) {
        d_stream->set_params(p);
    }
    std::vector<uint8_t> rx;
    d_stream->process(in, count, rx);
    d_queue.push(rx.data(), rx.size());
}

void channel_impl::finish_frame(uint64_t missing)
{
    const uint64_t start = d_queue.end();
    const long rho = long(d_frame_out.size());
    if (rho == 0) {
        // Nothing to carry a tag: count the loss and report it on the next frame.
        ++d_frames_lost;
        d_lost.add();
        for (const auto& t : d_frame_tags)
            d_queue.tag(start, t.key, t.value, t.srcid);
    } else {
        d_queue.tag(start, d_len_key, pmt::from_long(rho));
        const auto p = d_frame->params();
        if (!d_tagged_params || *d_tagged_params != p) {
            // the settings this frame was sent with, when they change
            d_queue.tag(start,
                        channel_key,
                        p.alphabet() == 2
                            ? pmt::init_f64vector(
                                  3, std::vector<double>{ p.Pi(), p.Pd(), p.Ps() })
                            : pmt::init_f64vector(
                                  4,
                                  std::vector<double>{
                                      p.Pi(), p.Pd(), p.Ps(), double(p.alphabet()) }));
            d_tagged_params = p;
        }
        if (d_drift_tags) {
            d_queue.tag(
                start, drift_key, pmt::from_long(rho - long(d_frame_len - missing)));
        }
        if (missing > 0)
            d_queue.tag(start, truncated_key, pmt::from_uint64(missing));
        d_lost.tag_next(d_queue, start);
        for (const auto& t : d_frame_tags)
            d_queue.tag(start + t.offset, t.key, t.value, t.srcid);
        d_queue.push(d_frame_out.data(), d_frame_out.size());
    }
    d_frame.reset();
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
    const long nin = !d_error.empty()                        ? 0
                     : d_queue.size() < queue_cap || d_frame ? ninput_items[0]
                                                             : 0;
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, in0, in0 + uint64_t(nin));
    bool ended = false;
    try {
        d_asm.feed(in, size_t(nin), in0, std::move(tags), *this);
        // asked before consume_each (frame_assembler.h, upstream_done)
        ended = (d_asm.in_frame() || d_lost.pending()) && nin == ninput_items[0] &&
                upstream_done(*this, nin);
    } catch (const std::invalid_argument& e) {
        // Input that is not bits: a clear error, then the stream ends cleanly
        // after what was already produced (an exception would leave the
        // flowgraph waiting on this block).
        // (only this thread writes d_error; the lock is for error() elsewhere)
        std::string err = std::string(e.what()) + " (input items from " +
                          std::to_string(in0) + " to " +
                          std::to_string(in0 + uint64_t(nin)) + ")";
        GR_LOG_ERROR(d_logger, err);
        std::lock_guard<std::mutex> lock(d_params_mutex);
        d_error = std::move(err);
    }
    consume_each(int(nin));
    if (ended) {
        d_asm.finish(*this); // the open frame never completes: put out, truncated
        d_lost.end_of_stream(d_logger, "frames_lost()");
    }

    const size_t n = d_queue.pop(out, size_t(noutput_items), [&](const queued_tag& t) {
        add_item_tag(0, t.offset, t.key, t.value, t.srcid);
    });
    return int(n);
}

} // namespace bsid
} // namespace gr
