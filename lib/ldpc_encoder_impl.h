/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_LDPC_ENCODER_IMPL_H
#define INCLUDED_BSID_LDPC_ENCODER_IMPL_H

#include <gnuradio/bsid/core/outer/symbol_mapping.h>
#include <gnuradio/bsid/ldpc_encoder.h>
#include <pmt/pmt.h>
#include <vector>

namespace gr {
namespace bsid {

class ldpc_encoder_impl : public ldpc_encoder
{
public:
    ldpc_encoder_impl(const ::bsid::ldpc_code& outer,
                      int inner_q,
                      const std::string& len_tag_key);

    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

    int bits_per_frame() const override { return d_K; }
    int symbols_per_frame() const override { return d_map.n_inner(); }
    uint64_t frames() const override { return d_frames; }
    std::string error() const override { return d_error; }

private:
    //! Encodes the K bits of one frame into out (N symbols).
    void encode(const uint8_t* bits, int32_t* out);

    const ::bsid::ldpc_code d_code;
    const ::bsid::symbol_mapping d_map;
    const int d_bits; // log2 q_o
    const int d_K;    // information bits per frame
    const pmt::pmt_t d_len_key;
    std::vector<int32_t> d_info, d_word; // k and n symbols
    uint64_t d_frames = 0;
    std::string d_error; // why the block stopped, if it did
};

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_LDPC_ENCODER_IMPL_H */
