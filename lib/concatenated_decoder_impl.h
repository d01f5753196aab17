/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CONCATENATED_DECODER_IMPL_H
#define INCLUDED_BSID_CONCATENATED_DECODER_IMPL_H

#include "frame_collector.h"
#include "output_queue.h"
#include <gnuradio/bsid/concatenated_decoder.h>
#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/outer/concatenated_decoder.h>
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>

namespace gr {
namespace bsid {

class concatenated_decoder_impl : public concatenated_decoder
{
public:
    concatenated_decoder_impl(const ::bsid::codebook& codebook,
                              const ::bsid::ldpc_code& outer,
                              const ::bsid::channel_params& channel,
                              int iterations,
                              int bp_iterations,
                              const ::bsid::receiver_options& options);

    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;
    bool stop() override;

    void set_channel(double Pi, double Pd, double Ps) override;
    uint64_t frames() const override { return d_frames; }
    uint64_t erasures() const override { return d_erasures; }
    uint64_t frames_ok() const override { return d_frames_ok; }
    uint64_t bits_discarded() const override { return d_rx.bits_discarded(); }
    int bits_per_frame() const override { return d_K; }
    int symbols_per_frame() const override { return d_cfg.N; }
    std::string backend() const override;

private:
    //! The decoders for one channel: the frame decoder (W weighed, if any)
    //! and the iterative decoder over it.
    struct decoder {
        std::shared_ptr<::bsid::frame_decoder> fd;
        std::unique_ptr<::bsid::concatenated_decoder> cd;
    };
    using collector = frame_collector<decoder>;
    using decoder_ptr = collector::decoder_ptr;
    using frame = collector::frame;

    //! What became of one decoded frame.
    struct outcome {
        std::string erasure; // status name, or "" when decoded
        std::vector<int32_t> decisions;
        int iterations = 0;
        bool ok = false; // the decisions form a codeword
    };

    //! A decoder for the channel (d_rx builds them, and logs each).
    decoder_ptr build(const ::bsid::channel_params& ch) const;
    //! Decodes stored frames with one decoder; an exception from the core
    //! becomes a decoder_error erasure of the frame that threw.
    std::vector<outcome> decode(decoder& dec, const std::vector<const frame*>& fs);
    //! Moves frames from d_ready to the output queue, decoding them in
    //! batches, until the queue holds `cap` items or nothing is ready.
    void produce(uint64_t cap);
    //! Queues one output frame: the decisions' information bits, or (erasure
    //! not empty) zeros.
    void emit(const std::vector<gr::tag_t>& tags,
              const outcome* o,
              const std::string& erasure);
    // stream framing
    void stream_work(const void* in, size_t count, uint64_t in0);
    void emit_stream(const std::vector<::bsid::stream_frame>& frames);

    // configuration (the outer code first: the decoders refer to it; d_cfg.ch:
    // the channel the block was made with, the current one is d_rx.channel())
    const ::bsid::ldpc_code d_code;
    ::bsid::decoder_config d_cfg;
    ::bsid::concatenated_options d_opt;
    const int d_bits; // log2 q_o
    const int d_K;    // information bits per output frame
    const int d_max_batch;
    const pmt::pmt_t d_len_key;
    const std::vector<uint8_t> d_sync;
    const bool d_soft; // input "llr" or "logprob": float items
    const bool d_stream;

    // the input's frames (tagged, or the stream decoder's, which emit_stream
    // adds to the ready ones) and the decoder (channel) for each
    collector d_rx;

    output_queue<uint8_t> d_queue;
    std::atomic<uint64_t> d_frames{ 0 }, d_erasures{ 0 }, d_frames_ok{ 0 };
};

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_CONCATENATED_DECODER_IMPL_H */
