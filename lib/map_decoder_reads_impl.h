/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bsid.map_decoder with reads = M > 1 (docs/reads.md, "In a flowgraph"): M
// inputs of tagged frames, the k-th frame of each input a read of the same
// frame, decoded together by bsid::reads_decoder.

#ifndef INCLUDED_BSID_MAP_DECODER_READS_IMPL_H
#define INCLUDED_BSID_MAP_DECODER_READS_IMPL_H

#include "decoder_output.h"
#include "frame_assembler.h"
#include "output_queue.h"
#include <gnuradio/bsid/core/reads/reads_decoder.h>
#include <gnuradio/bsid/map_decoder.h>
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>

namespace gr {
namespace bsid {

//! The block for options.input.reads > 1 (map_decoder::make's choice).
map_decoder::sptr make_map_decoder_reads(const ::bsid::codebook& codebook,
                                         int N,
                                         const ::bsid::channel_params& channel,
                                         const ::bsid::receiver_options& options);

class map_decoder_reads_impl : public map_decoder
{
public:
    map_decoder_reads_impl(const ::bsid::codebook& codebook,
                           int N,
                           const ::bsid::channel_params& channel,
                           const ::bsid::receiver_options& options);

    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

    void set_channel(double Pi, double Pd, double Ps) override;
    uint64_t frames() const override { return d_frames; }
    uint64_t erasures() const override { return d_erasures; }
    uint64_t bits_discarded() const override { return d_discarded; }
    std::string backend() const override;
    uint64_t estimates() const override { return 0; }
    uint64_t priors_discarded() const override { return 0; }
    double mean_batch() const override;
    uint64_t batches() const override { return d_batches; }
    std::vector<std::string> warnings() const override { return {}; }
    uint64_t warning_count() const override { return 0; }

private:
    //! One input's k-th frame: its items (bytes or floats) and channel, or
    //! why there is none (a status name: truncated, invalid_tag, frame_lost).
    struct read_slot {
        std::vector<uint8_t> items; // item bytes
        size_t count = 0;           // items
        std::string missing;
        std::vector<gr::tag_t> tags; // on its first item
        ::bsid::channel_params ch{ 0, 0, 0 };
    };
    struct input_reader; // one input's frame_assembler events

    std::shared_ptr<::bsid::reads_decoder>
    decoder_for(const std::vector<::bsid::channel_params>& chans);
    //! Decodes the frames every input has reached (or an ended input lacks).
    void decode_ready();
    //! Input r gives no more frames: it has ended, or it lost its pairing
    //! (its later frames' reads are then missing, as invalid_tag).
    bool no_more_slots(int r) const;
    void emit(const std::vector<gr::tag_t>& tags,
              const double* post,
              const std::string& erasure,
              const pmt::pmt_t& reads_tag);

    ::bsid::decoder_config d_cfg;
    const int d_M;
    const output_mode d_mode;
    const int d_max_batch;
    const float d_llr_scale, d_llr_clip;
    const ::bsid::read_method d_method;
    const pmt::pmt_t d_len_key;
    const int d_floats; // soft items: floats an item (0: bytes)
    const size_t d_item_bytes;
    const bool d_follow_channel;
    size_t d_items_per_frame;

    std::vector<std::unique_ptr<input_reader>> d_in;
    std::vector<std::deque<read_slot>> d_slots;
    std::vector<bool> d_over; // input r has ended and its frames are all in

    std::mutex d_mutex; // guards d_channel (set_channel from any thread)
    ::bsid::channel_params d_channel;
    std::vector<std::pair<std::vector<::bsid::channel_params>,
                          std::shared_ptr<::bsid::reads_decoder>>>
        d_decoders;

    output_queue<uint8_t> d_queue;
    std::atomic<uint64_t> d_frames{ 0 }, d_erasures{ 0 }, d_discarded{ 0 };
    std::atomic<uint64_t> d_batches{ 0 }, d_batched{ 0 };
};

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_MAP_DECODER_READS_IMPL_H */
