/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CHANNEL_IMPL_H
#define INCLUDED_BSID_CHANNEL_IMPL_H

#include "frame_assembler.h"
#include "lost_frames.h"
#include "output_queue.h"
#include <gnuradio/bsid/channel.h>
#include <gnuradio/bsid/core/channel/channel.h>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>

namespace gr {
namespace bsid {

class channel_impl : public channel, private frame_assembler::events
{
public:
    channel_impl(double Pi,
                 double Pd,
                 double Ps,
                 uint64_t seed,
                 const std::string& len_tag_key,
                 bool drift_tags,
                 int alphabet);

    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

    void set_Pi(double Pi) override;
    void set_Pd(double Pd) override;
    void set_Ps(double Ps) override;
    void set_channel(double Pi, double Pd, double Ps) override;
    double Pi() const override;
    double Pd() const override;
    double Ps() const override;
    uint64_t frames() const override { return d_frames; }
    uint64_t frames_lost() const override { return d_frames_lost; }
    std::string error() const override;

private:
    ::bsid::channel_params current_params() const;
    //! Puts the frame out: its bits, length tag and tags; `missing` input
    //! bits never came (a truncated frame, tagged bsid_truncated).
    void finish_frame(uint64_t missing);

    // frame_assembler::events: the input's frames as they arrive
    void begin(uint64_t length, std::vector<gr::tag_t> tags) override;
    void invalid(const gr::tag_t& tag,
                 const std::string& why,
                 std::vector<gr::tag_t> tags) override;
    void items(const uint8_t* in, size_t count) override;
    void end() override;
    void cut(uint64_t missing, bool stream_ended) override;
    void inner_tag(const gr::tag_t& tag, uint64_t offset) override;
    void outside(const uint8_t* in, size_t count, std::vector<gr::tag_t> tags) override;

    mutable std::mutex d_params_mutex;
    ::bsid::channel_params d_params; // the latest settings (guarded)
    const uint64_t d_seed;
    const pmt::pmt_t d_len_key;
    const bool d_drift_tags;
    frame_assembler d_asm;

    // the frame being received: its emulator, output so far, and tags
    std::optional<::bsid::channel_emulator> d_frame;
    uint64_t d_frame_len = 0; // tau of the frame
    std::vector<uint8_t> d_frame_out;
    std::vector<queued_tag> d_frame_tags; // offsets relative to the frame's output
    // an untagged stream: one endless frame 0
    std::unique_ptr<::bsid::channel_emulator> d_stream;
    // the parameters last announced downstream (bsid_channel tag), if any
    std::optional<::bsid::channel_params> d_tagged_params;

    output_queue<uint8_t> d_queue;
    // counters: written by the work thread, read from any thread
    std::atomic<uint64_t> d_frames{ 0 }, d_frames_lost{ 0 };
    lost_frames d_lost; // frames lost since the last frame with output
    bool d_warned_invalid = false;
    std::string d_error; // why the block stopped, if it did (guarded by d_params_mutex)
};

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_CHANNEL_IMPL_H */
