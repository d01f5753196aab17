/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_MAP_DECODER_IMPL_H
#define INCLUDED_BSID_MAP_DECODER_IMPL_H

#include "output_queue.h"
#include <gnuradio/bsid/core/map_decoder.h>
#include <gnuradio/bsid/map_decoder.h>
#include <atomic>
#include <memory>
#include <mutex>

namespace gr {
namespace bsid {

class map_decoder_impl : public map_decoder
{
public:
    enum class mode { posteriors, llr, hard };

    map_decoder_impl(const ::bsid::codebook& codebook,
                     int N,
                     double Pi,
                     double Pd,
                     double Ps,
                     const std::string& output,
                     const std::string& backend,
                     const std::string& precision,
                     const std::string& storage,
                     double Pr,
                     int max_batch,
                     float llr_scale,
                     float llr_clip,
                     const std::string& len_tag_key);

    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;
    bool stop() override;

    void set_channel(double Pi, double Pd, double Ps) override;
    uint64_t frames() const override { return d_frames; }
    uint64_t erasures() const override { return d_erasures; }
    uint64_t bits_discarded() const override { return d_bits_discarded; }
    std::string backend() const override;

private:
    //! A received frame waiting to be decoded, or an erasure decided already.
    struct frame {
        std::vector<uint8_t> bits;
        size_t rho = 0;             // bits received (bits holds them unless refused early)
        std::string erasure;        // status name, if already refused
        std::vector<gr::tag_t> tags; // other tags on the frame's first bit
    };

    std::unique_ptr<::bsid::map_decoder> build(double Pi, double Pd, double Ps) const;
    void begin_frame(long length, std::vector<gr::tag_t> tags);
    void end_frame();
    void decode_ready();
    //! Whether the upstream is done and, if in_this_call >= 0, all its
    //! remaining items are among the in_this_call items of this call (ask
    //! before consume_each, which moves the read pointer at once).
    bool input_ended(long in_this_call) const;
    //! Queues one output frame: the decoded posteriors, or (erasure not empty) an erasure.
    void emit(const frame& f, const double* post, const std::string& erasure);

    // configuration
    ::bsid::decoder_config d_cfg;
    const mode d_mode;
    const int d_max_batch;
    const float d_llr_scale, d_llr_clip;
    const pmt::pmt_t d_len_key;
    size_t d_items_per_frame;

    mutable std::mutex d_dec_mutex; // guards d_dec against set_channel
    std::unique_ptr<::bsid::map_decoder> d_dec;

    // input assembly
    bool d_in_frame = false;
    frame d_cur;
    long d_cur_left = 0;
    bool d_cur_store = true; // false: the frame will be refused, do not keep its bits
    std::vector<frame> d_ready;

    output_queue<uint8_t> d_queue;
    // counters: written by the work thread, read from any thread
    std::atomic<uint64_t> d_frames{ 0 }, d_erasures{ 0 }, d_bits_discarded{ 0 };
};

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_MAP_DECODER_IMPL_H */
