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

    uint64_t frames() const override { return d_frames; }
    std::string error() const override { return d_error; }

private:
    const ::bsid::codebook d_cb;
    const int d_N;
    const pmt::pmt_t d_len_key;
    const std::vector<uint8_t> d_sync; // W, sent before each frame
    uint64_t d_frame_start = 0;        // input offset where the current frame began
    uint64_t d_frames = 0;
    std::string d_error; // why the block stopped, if it did
};

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_CODEBOOK_ENCODER_IMPL_H */
