/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "frame_assembler.h"
#include "ldpc_encoder_impl.h"
#include <gnuradio/bsid/core/sim/error_counter.h>
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <stdexcept>
#include <string>

namespace gr {
namespace bsid {

ldpc_encoder::sptr ldpc_encoder::make(const ::bsid::ldpc_code& outer,
                                      int inner_q,
                                      const std::string& len_tag_key)
{
    return gnuradio::make_block_sptr<ldpc_encoder_impl>(outer, inner_q, len_tag_key);
}

ldpc_encoder_impl::ldpc_encoder_impl(const ::bsid::ldpc_code& outer,
                                     int inner_q,
                                     const std::string& len_tag_key)
    : gr::block("ldpc_encoder",
                gr::io_signature::make(1, 1, sizeof(uint8_t)),
                gr::io_signature::make(1, 1, sizeof(int32_t))),
      d_code(outer),
      d_map([&] {
          if (inner_q < 2 || inner_q > 65536) {
              throw std::invalid_argument(
                  "ldpc_encoder: inner_q = " + std::to_string(inner_q) +
                  " must be from 2 to 65536 (a codebook's q)");
          }
          // throws for an inner q that is not a power of two (and differs)
          return ::bsid::symbol_mapping(outer.q(), outer.n(), inner_q);
      }()),
      d_bits(::bsid::error_counter::bits_per_symbol(outer.q())),
      d_K(outer.k() * ::bsid::error_counter::bits_per_symbol(outer.q())),
      d_len_key(pmt::intern(len_tag_key)),
      d_info(size_t(outer.k())),
      d_word(size_t(outer.n()))
{
    // Tags are placed by hand: the length tag is rewritten, the others move
    // to the first symbol of their frame.
    set_tag_propagation_policy(TPP_DONT);
    set_output_multiple(d_map.n_inner()); // whole frames only
    set_relative_rate(uint64_t(d_map.n_inner()), uint64_t(d_K));
}

void ldpc_encoder_impl::forecast(int noutput_items, gr_vector_int& ninput_items_required)
{
    // A whole frame's bits, so that every call makes a frame: asking for
    // fewer, a call would make nothing while a frame's bits trickle in, and
    // a call that makes nothing is made again at once (a busy loop). Once
    // the upstream is done, one bit, so that a stream ending inside a frame
    // still reaches general_work, which reports it (a frame's worth would let
    // the scheduler end the block with the bits unseen).
    (void)noutput_items;
    ninput_items_required[0] = upstream_done(*this, -1) ? 1 : int(d_K);
}

void ldpc_encoder_impl::encode(const uint8_t* bits, int32_t* out)
{
    for (size_t t = 0; t < d_info.size(); ++t) {
        int32_t u = 0;
        for (int b = 0; b < d_bits; ++b) // MSB first
            u = (u << 1) | int32_t(bits[t * size_t(d_bits) + size_t(b)]);
        d_info[t] = u;
    }
    d_code.encode(d_info.data(), d_word.data());
    d_map.to_inner(d_word.data(), out);
}

int ldpc_encoder_impl::general_work(int noutput_items,
                                    gr_vector_int& ninput_items,
                                    gr_vector_const_void_star& input_items,
                                    gr_vector_void_star& output_items)
{
    if (!d_error.empty()) {
        return WORK_DONE; // stop after the frames before the bad input went out
    }
    const auto* in = static_cast<const uint8_t*>(input_items[0]);
    auto* out = static_cast<int32_t*>(output_items[0]);
    const long K = d_K, N = d_map.n_inner();
    const long nin = ninput_items[0];
    const uint64_t in0 = nitems_read(0);
    const uint64_t out0 = nitems_written(0);
    // asked before consume_each, which moves the read pointer at once
    const bool input_over = upstream_done(*this, nin);

    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, in0, in0 + uint64_t(nin));
    std::sort(tags.begin(), tags.end(), gr::tag_t::offset_compare);
    size_t ti = 0;

    long f = 0; // frames encoded in this call
    while ((f + 1) * K <= nin && (f + 1) * N <= noutput_items) {
        const uint64_t a = in0 + uint64_t(f * K); // the frame's first bit
        std::vector<gr::tag_t> pass;
        for (; ti < tags.size() && tags[ti].offset < a + uint64_t(K); ++ti) {
            const auto& t = tags[ti];
            if (!pmt::eqv(t.key, d_len_key)) {
                pass.push_back(t);
                continue;
            }
            const count_value len = read_count(t.value);
            if (t.offset != a) {
                d_error = "a frame starts at input item " + std::to_string(t.offset) +
                          ", inside the frame of " + std::to_string(K) +
                          " bits that began at input item " + std::to_string(a);
            } else if (!len.ok) {
                d_error = "the length tag at input item " + std::to_string(a) + " (" +
                          pmt::write_string(t.value) +
                          ") is not a frame length: " + len.why;
            } else if (len.value != uint64_t(K)) {
                d_error = "the frame tagged at input item " + std::to_string(a) +
                          " has " + pmt::write_string(t.value) +
                          " bits, but the outer code takes K = k log2(q) = " +
                          std::to_string(K);
            }
            if (!d_error.empty())
                break;
        }
        for (long i = 0; i < K && d_error.empty(); ++i) {
            const uint8_t b = in[f * K + i];
            if (b > 1) {
                d_error = "byte " + std::to_string(int(b)) + " at input item " +
                          std::to_string(a + uint64_t(i)) + " is not a bit (0 or 1)";
            }
        }
        if (!d_error.empty()) {
            // A clear error, and the flowgraph stops cleanly (an exception
            // here would end this block's thread and leave the others waiting).
            GR_LOG_ERROR(d_logger, d_error);
            break;
        }
        const uint64_t o = out0 + uint64_t(f * N);
        add_item_tag(0, o, d_len_key, pmt::from_long(N));
        for (const auto& t : pass)
            add_item_tag(0, o, t.key, t.value, t.srcid);
        encode(in + f * K, out + f * N);
        ++d_frames;
        ++f;
    }
    if (d_error.empty() && input_over && nin - f * K > 0 && nin - f * K < K) {
        d_error = "the stream ends inside a frame: " + std::to_string(nin - f * K) +
                  " of its " + std::to_string(K) + " bits arrived (from input item " +
                  std::to_string(in0 + uint64_t(f * K)) + ")";
        GR_LOG_ERROR(d_logger, d_error);
    }
    consume_each(int(f * K));
    if (f == 0 && !d_error.empty()) {
        return WORK_DONE;
    }
    return int(f * N);
}

} // namespace bsid
} // namespace gr
