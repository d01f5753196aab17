/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "codebook_encoder_impl.h"
#include <gnuradio/bsid/core/frame_decoder.h>
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <stdexcept>
#include <string>

namespace gr {
namespace bsid {

codebook_encoder::sptr codebook_encoder::make(const ::bsid::codebook& codebook,
                                              int N,
                                              const std::string& len_tag_key,
                                              const std::string& sync_word)
{
    return gnuradio::make_block_sptr<codebook_encoder_impl>(
        codebook, N, len_tag_key, sync_word);
}

codebook_encoder_impl::codebook_encoder_impl(const ::bsid::codebook& codebook,
                                             int N,
                                             const std::string& len_tag_key,
                                             const std::string& sync_word)
    : gr::block("codebook_encoder",
                gr::io_signature::make(1, 1, sizeof(int32_t)),
                gr::io_signature::make(1, 1, sizeof(uint8_t))),
      d_cb(codebook),
      d_N(N),
      d_len_key(pmt::intern(len_tag_key)),
      d_sync(::bsid::parse_sync_word(sync_word)) // throws for a character not 0 or 1
{
    if (N < 1) {
        throw std::invalid_argument("codebook_encoder: N = " + std::to_string(N) +
                                    " must be at least 1");
    }
    // Tags are placed by hand: the length tag is rewritten, the others move
    // to the first bit of their symbol.
    set_tag_propagation_policy(TPP_DONT);
    // A frame's first symbol needs room for W and its codeword at once. The
    // scheduler calls work only with that much room: with less, work could
    // make nothing, and a call that makes nothing is called again at once
    // (a busy loop while the downstream is slow).
    const int most_per_symbol = int(d_sync.size()) + codebook.n();
    set_min_noutput_items(most_per_symbol);
    set_min_output_buffer(std::max<long>(4096, 4 * long(most_per_symbol)));
    set_relative_rate(uint64_t(d_sync.size() + size_t(N) * size_t(codebook.n())),
                      uint64_t(N));
}

void codebook_encoder_impl::forecast(int noutput_items,
                                     gr_vector_int& ninput_items_required)
{
    // n bits per symbol, and G more for each frame's first: at most this many symbols fit
    ninput_items_required[0] =
        std::max(1, noutput_items / (d_cb.n() + int(d_sync.size())));
}

int codebook_encoder_impl::general_work(int noutput_items,
                                        gr_vector_int& ninput_items,
                                        gr_vector_const_void_star& input_items,
                                        gr_vector_void_star& output_items)
{
    if (!d_error.empty()) {
        return WORK_DONE; // stop after the items before the bad input went out
    }
    const auto* in = static_cast<const int32_t*>(input_items[0]);
    auto* out = static_cast<uint8_t*>(output_items[0]);
    const int n = d_cb.n();
    const int G = int(d_sync.size());
    const int nin = ninput_items[0];
    const uint64_t in0 = nitems_read(0);
    const uint64_t out0 = nitems_written(0);

    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, in0, in0 + uint64_t(nin));
    std::sort(tags.begin(), tags.end(), gr::tag_t::offset_compare);
    size_t ti = 0;

    int k = 0;    // input symbols consumed
    int made = 0; // output bits produced
    for (; k < nin; ++k) {
        const uint64_t abs = in0 + uint64_t(k);
        // where this symbol's frame starts, if a length tag says so (checked below)
        bool tagged_start = false;
        size_t t_end = ti;
        while (t_end < tags.size() && tags[t_end].offset == abs)
            tagged_start |= pmt::eqv(tags[t_end++].key, d_len_key);
        const uint64_t start = tagged_start ? abs : d_frame_start;
        const uint64_t i = (abs - start) % uint64_t(d_N); // symbol index in its frame
        const int need = n + (i == 0 ? G : 0);
        if (made + need > noutput_items)
            break; // no room for this symbol (and its frame's sync word): next call
        for (; ti < t_end; ++ti) {
            const auto& tag = tags[ti];
            if (!pmt::eqv(tag.key, d_len_key)) {
                add_item_tag(0, out0 + uint64_t(made), tag.key, tag.value, tag.srcid);
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
        if (i == 0) {
            add_item_tag(
                0, out0 + uint64_t(made), d_len_key, pmt::from_long(long(G + d_N * n)));
            ++d_frames;
            for (int b = 0; b < G; ++b)
                out[made++] = d_sync[size_t(b)];
        }
        const uint32_t w = d_cb.word(size_t(i), D);
        for (int r = 0; r < n; ++r)
            out[made++] = uint8_t((w >> (n - 1 - r)) & 1u); // MSB first
    }
    consume_each(k);
    if (k == 0 && !d_error.empty()) {
        return WORK_DONE;
    }
    return made;
}

} // namespace bsid
} // namespace gr
