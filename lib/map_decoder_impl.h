/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_MAP_DECODER_IMPL_H
#define INCLUDED_BSID_MAP_DECODER_IMPL_H

#include "decoder_output.h"
#include "frame_collector.h"
#include "lost_frames.h"
#include "output_queue.h"
#include <gnuradio/bsid/core/estimation/channel_tracker.h>
#include <gnuradio/bsid/core/framing/setup_watch.h>
#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/runtime/frame_batcher.h>
#include <gnuradio/bsid/map_decoder.h>
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>

namespace gr {
namespace bsid {

class map_decoder_impl : public map_decoder
{
public:
    using mode = output_mode;

    map_decoder_impl(const ::bsid::codebook& codebook,
                     int N,
                     const ::bsid::channel_params& channel,
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
    uint64_t bits_discarded() const override { return d_rx.bits_discarded(); }
    std::string backend() const override;
    uint64_t estimates() const override { return d_estimates; }
    uint64_t priors_discarded() const override { return d_priors_discarded; }
    double mean_batch() const override;
    uint64_t batches() const override;
    std::vector<std::string> warnings() const override;
    uint64_t warning_count() const override;

private:
    // the decoder for one channel: a frame decoder (its primary backend
    // decodes frames without a sync word exactly as map_decoder does)
    using collector = frame_collector<::bsid::frame_decoder>;
    using decoder_ptr = collector::decoder_ptr;
    using frame = collector::frame;

    //! A frame's priors (priors_input): N q natural logs, or an erasure.
    struct prior_frame {
        std::vector<double> logs;
        std::string erasure; // status name, if the priors are refused
        std::string why;     // and why
    };

    //! A decoder for the channel (d_rx builds them, and logs each).
    decoder_ptr build(const ::bsid::channel_params& ch) const;
    /*!
     * Moves frames from d_rx.ready() through the batcher to the output
     * queue, in order, until the queue holds `cap` items or nothing more is
     * known. At the input's end (input_over) every frame goes to the decoder
     * at once and the call waits for the results; otherwise it waits
     * (wait_ms, 0: not at all) only for the first result the output needs.
     */
    void produce(uint64_t cap, bool input_over, double wait_ms);
    //! Ready frames into the flight (those to decode to the batcher), as far
    //! as the flight's room and the priors received allow.
    void admit();
    //! Puts out the flight's front entries whose outcome is known, in order.
    void drain(uint64_t cap, double wait_ms);
    //! Stream framing: the bits go to the stream decoder, its frames to the queue.
    void stream_work(const void* in, size_t count, uint64_t in0);
    void emit_stream(const std::vector<::bsid::stream_frame>& frames);
    //! Output "received": a stream frame's received items as a tagged frame.
    void emit_received(const ::bsid::stream_frame& f,
                       const std::vector<gr::tag_t>& tags,
                       const std::string& erasure);
    //! Channel estimation: a decoded frame's items to the tracker, and
    //! finished estimates applied (or, with wait, the one running too).
    void track(std::vector<uint8_t>&& bits, std::vector<double>&& llr);
    void take_estimates(bool wait);
    void apply_estimate(const ::bsid::channel_tracker::update& u);
    //! Queues one output frame: the decoded posteriors, or (erasure not empty) an
    //! erasure.
    void emit(const std::vector<gr::tag_t>& tags,
              const double* post,
              const std::string& erasure);
    //! An output frame on its way, in stream order: an erasure decided
    //! already, or a frame the batcher decodes (its result the next one).
    struct in_flight {
        std::vector<gr::tag_t> tags; // put on its first output item
        std::string erasure;         // status name, if not decoded
        bool decoded = false;        // the batcher's result of `sequence`
        uint64_t sequence = 0;
        std::vector<double> llr; // soft input with an LLR gain: the LLRs as they came
        ::bsid::channel_params ch{ 0, 0, 0 }; // the channel it is decoded with
    };
    //! Frames the flight holds at most (decoding, waiting, results not put out).
    size_t flight_room() const { return 4 * size_t(d_max_batch); }

    // priors_input: the priors port's frames, as they arrive
    void feed_priors(const float* in, size_t count, uint64_t first);
    void start_prior(uint64_t length, std::string erasure, std::string why);
    void finish_prior(bool cut);
    //! Frames received (lost ones counted) that have no priors yet.
    uint64_t frames_without_priors() const;
    //! Pops the next frame's priors; false if none has come.
    bool take_prior(prior_frame& p);

    // configuration (d_cfg.ch: the channel the block was made with; the
    // current one is d_rx.channel())
    ::bsid::decoder_config d_cfg;
    const mode d_mode;
    const int d_max_batch;
    const float d_llr_scale, d_llr_clip;
    const pmt::pmt_t d_len_key;
    const std::vector<uint8_t> d_sync; // W before every frame
    const bool d_soft;                 // input "llr" or "logprob": float items
    size_t d_items_per_frame;
    const bool d_stream; // stream framing

    // the input's frames (tagged, or the stream decoder's) and the decoder
    // (channel) for each
    collector d_rx;

    output_queue<uint8_t> d_queue;
    // tagged framing: the batcher the frames are decoded by (on its worker
    // thread), the output frames on their way and the results taken
    const double d_max_delay_ms;
    std::unique_ptr<::bsid::frame_batcher> d_batcher;
    std::deque<in_flight> d_flight;
    std::deque<::bsid::batched_result> d_results;
    // channel estimation (estimate_every): the work thread's only
    std::unique_ptr<::bsid::channel_tracker> d_tracker;
    double d_llr_gain = 1.0; // soft input: the estimated LLR scale, applied
    std::atomic<bool> d_new_initial{ false }; // set_channel: the tracker's start moved
    std::atomic<uint64_t> d_estimates{ 0 };
    bool d_estimates_final = false; // tagged framing: the input ended, estimates posted
    //! Stream framing with estimation: a frame found in sync to the tracker.
    void track_stream_frame(const ::bsid::stream_frame& f);
    // priors_input: the frames of priors not yet used, the one arriving
    const bool d_priors;
    std::deque<prior_frame> d_prior_ready;
    prior_frame d_pcur;
    bool d_pin_frame = false;   // a frame of priors is arriving
    uint64_t d_pleft = 0;       // its items still to come
    bool d_ptagged = false;     // a length tag has come on the priors port
    bool d_priors_over = false; // the priors stream has ended
    bool d_priors_missing_logged = false;
    uint64_t d_prior_frames = 0; // frames of priors completed (for the log)
    std::atomic<uint64_t> d_priors_discarded{ 0 };
    // does the setup fit the frames? Tagged framing: the block's watch of the
    // decoded frames' lengths; stream framing: the stream decoder's
    std::optional<::bsid::setup_watch> d_watch;
    const ::bsid::stream_decoder* d_stream_decoder = nullptr;
    // counters: written by the work thread, read from any thread
    std::atomic<uint64_t> d_frames{ 0 }, d_erasures{ 0 };
    lost_frames d_lost; // output "received": erasures not yet put out
};

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_MAP_DECODER_IMPL_H */
