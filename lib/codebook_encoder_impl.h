/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CODEBOOK_ENCODER_IMPL_H
#define INCLUDED_BSID_CODEBOOK_ENCODER_IMPL_H

#include <gnuradio/bsid/codebook_encoder.h>
#include <pmt/pmt.h>
#include <atomic>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace gr {
namespace bsid {

class codebook_encoder_impl : public codebook_encoder
{
public:
    codebook_encoder_impl(const ::bsid::codebook& codebook,
                          int N,
                          const std::string& len_tag_key,
                          const std::string& sync_word);

    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;
    bool stop() override;

    uint64_t frames() const override { return d_frames; }
    uint64_t frames_dropped() const override { return d_dropped; }
    std::string error() const override;

private:
    //! The frame collected in d_sym: encoded into d_bits, or dropped.
    void finish_frame();
    //! Drops the frame being collected (why: the reason, logged).
    void drop(const std::string& why);
    //! Writes pending bits (and their tags) into out from `made` on.
    int write_pending(uint8_t* out, int made, int room);

    const ::bsid::codebook d_cb;
    const int d_N;
    const pmt::pmt_t d_len_key;
    const std::vector<uint8_t> d_sync; // W, sent before each frame

    // the frame being collected: its symbols, the other tags on them (by
    // symbol index), and why it cannot be sent (its first bad symbol)
    std::vector<int32_t> d_sym;
    std::vector<std::pair<size_t, gr::tag_t>> d_sym_tags;
    std::string d_bad;
    bool d_skip = false; // after a wrong length tag: symbols dropped until the next one
    // the encoded frame on its way out, and its tags (by bit index)
    std::vector<uint8_t> d_bits;
    size_t d_bits_at = 0;
    std::vector<std::pair<size_t, gr::tag_t>> d_bit_tags;
    size_t d_bit_tag_at = 0;
    uint64_t d_lost_pending = 0; // frames dropped since the last frame sent

    std::atomic<uint64_t> d_frames{ 0 }, d_dropped{ 0 };
    mutable std::mutex d_error_mutex;
    std::string d_error; // why the last frame was dropped
};

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_CODEBOOK_ENCODER_IMPL_H */
