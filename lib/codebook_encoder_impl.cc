/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "codebook_encoder_impl.h"
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <stdexcept>
#include <string>

namespace gr {
namespace bsid {

codebook_encoder::sptr codebook_encoder::make(const ::bsid::codebook& codebook,
                                              int N,
                                              const std::string& len_tag_key)
{
    return gnuradio::make_block_sptr<codebook_encoder_impl>(codebook, N, len_tag_key);
}

codebook_encoder_impl::codebook_encoder_impl(const ::bsid::codebook& codebook,
                                             int N,
                                             const std::string& len_tag_key)
    : gr::sync_interpolator("codebook_encoder",
                            gr::io_signature::make(1, 1, sizeof(int32_t)),
                            gr::io_signature::make(1, 1, sizeof(uint8_t)),
                            unsigned(codebook.n())),
      d_cb(codebook),
      d_N(N),
      d_len_key(pmt::intern(len_tag_key))
{
    if (N < 1) {
        throw std::invalid_argument("codebook_encoder: N = " + std::to_string(N) +
                                    " must be at least 1");
    }
    // Tags are placed by hand: the length tag is rewritten, the others move
    // to the first bit of their symbol.
    set_tag_propagation_policy(TPP_DONT);
}

int codebook_encoder_impl::work(int noutput_items,
                                gr_vector_const_void_star& input_items,
                                gr_vector_void_star& output_items)
{
    if (!d_error.empty()) {
        return WORK_DONE; // stop after the items before the bad input went out
    }
    const auto* in = static_cast<const int32_t*>(input_items[0]);
    auto* out = static_cast<uint8_t*>(output_items[0]);
    const int n = d_cb.n();
    const int nin = noutput_items / n;
    const uint64_t in0 = nitems_read(0);
    const uint64_t out0 = nitems_written(0);

    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, in0, in0 + uint64_t(nin));
    std::sort(tags.begin(), tags.end(), gr::tag_t::offset_compare);
    size_t ti = 0;

    int k = 0;
    for (; k < nin; ++k) {
        const uint64_t abs = in0 + uint64_t(k);
        for (; ti < tags.size() && tags[ti].offset == abs; ++ti) {
            const auto& tag = tags[ti];
            if (!pmt::eqv(tag.key, d_len_key)) {
                add_item_tag(
                    0, out0 + uint64_t(k) * uint64_t(n), tag.key, tag.value, tag.srcid);
                continue;
            }
            const long len = pmt::is_integer(tag.value) ? pmt::to_long(tag.value) : -1;
            if (len != d_N) {
                d_error =
                    "the frame tagged at input item " + std::to_string(abs) + " has " +
                    std::to_string(len) +
                    " symbols, but the encoder was built for N = " + std::to_string(d_N);
            } else if ((abs - d_frame_start) % uint64_t(d_N) != 0) {
                d_error = "a frame starts at input item " + std::to_string(abs) +
                          " before the previous frame's " + std::to_string(d_N) +
                          " symbols ended";
            }
            d_frame_start = abs;
        }
        const int32_t D = in[k];
        if (d_error.empty() && (D < 0 || D >= d_cb.q())) {
            d_error = "symbol " + std::to_string(D) + " at input item " +
                      std::to_string(abs) +
                      " is outside [0, q) with q = " + std::to_string(d_cb.q());
        }
        if (!d_error.empty()) {
            // A clear error, and the flowgraph stops cleanly (an exception
            // here would end this block's thread and leave the others waiting).
            GR_LOG_ERROR(d_logger, d_error);
            break;
        }
        const uint64_t i =
            (abs - d_frame_start) % uint64_t(d_N); // symbol index in its frame
        if (i == 0) {
            add_item_tag(0,
                         out0 + uint64_t(k) * uint64_t(n),
                         d_len_key,
                         pmt::from_long(long(d_N) * n));
            ++d_frames;
        }
        const uint32_t w = d_cb.word(size_t(i), D);
        for (int r = 0; r < n; ++r) {
            *out++ = uint8_t((w >> (n - 1 - r)) & 1u); // MSB first
        }
    }
    if (k == 0 && !d_error.empty()) {
        return WORK_DONE;
    }
    return k * n;
}

} // namespace bsid
} // namespace gr
