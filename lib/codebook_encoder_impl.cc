/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "codebook_encoder_impl.h"
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

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
      // throws for a character that is not a letter of the codebook's alphabet
      d_sync(::bsid::parse_sync_word(sync_word, codebook.alphabet()))
{
    if (N < 1) {
        throw std::invalid_argument("codebook_encoder: N = " + std::to_string(N) +
                                    " must be at least 1");
    }
    // Tags are placed by hand: the length tag is rewritten, the others move
    // to the first bit of their symbol.
    set_tag_propagation_policy(TPP_DONT);
    // A frame goes out once all its symbols have come (so that a frame with
    // a bad symbol is dropped whole), in pieces of any size; still, a call
    // gets room for a codeword and the sync word at least, so that calls that
    // write a bit or two at a time (each a scheduler round) are not made.
    const long F = long(d_sync.size()) + long(N) * long(codebook.n());
    set_min_noutput_items(int(d_sync.size()) + codebook.n());
    set_min_output_buffer(std::max<long>(4096, std::min<long>(2 * F, 1L << 22)));
    set_relative_rate(uint64_t(F), uint64_t(N));
    d_sym.reserve(size_t(N));
}

namespace {
const pmt::pmt_t lost_key = pmt::intern("bsid_frames_lost");
} // namespace

void codebook_encoder_impl::forecast(int noutput_items,
                                     gr_vector_int& ninput_items_required)
{
    // bits on their way need no input; otherwise a symbol makes n bits
    ninput_items_required[0] =
        d_bits_at < d_bits.size() ? 0 : std::max(1, noutput_items / d_cb.n());
}

std::string codebook_encoder_impl::error() const
{
    std::lock_guard<std::mutex> lock(d_error_mutex);
    return d_error;
}

void codebook_encoder_impl::drop(const std::string& why)
{
    const uint64_t n = ++d_dropped;
    ++d_lost_pending;
    {
        std::lock_guard<std::mutex> lock(d_error_mutex);
        d_error = why;
    }
    // the first in full, later ones at debug level (the count is in
    // frames_dropped() and in the log when the flowgraph stops)
    if (n == 1) {
        GR_LOG_ERROR(d_logger,
                     "a frame is dropped: " + why +
                         "; the next frame sent carries a bsid_frames_lost tag, so "
                         "that the decoder puts out an erasure in its place");
    } else {
        GR_LOG_DEBUG(d_logger, "a frame is dropped: " + why);
    }
    d_sym.clear();
    d_sym_tags.clear();
    d_bad.clear();
}

void codebook_encoder_impl::finish_frame()
{
    if (!d_bad.empty()) {
        drop(d_bad);
        return;
    }
    const int n = d_cb.n();
    const size_t G = d_sync.size();
    d_bits.assign(d_sync.begin(), d_sync.end());
    d_bits.resize(G + size_t(d_N) * size_t(n));
    for (size_t i = 0; i < size_t(d_N); ++i) {
        const uint32_t w = d_cb.word(i, d_sym[i]);
        for (int r = 0; r < n; ++r) // the first letter (bit) most significant
            d_bits[G + i * size_t(n) + size_t(r)] = uint8_t(d_cb.letter(w, r));
    }
    d_bits_at = 0;
    d_bit_tags.clear();
    d_bit_tag_at = 0;
    gr::tag_t len;
    len.key = d_len_key;
    len.value = pmt::from_long(long(d_bits.size()));
    len.srcid = alias_pmt();
    d_bit_tags.emplace_back(0, len);
    if (d_lost_pending > 0) {
        gr::tag_t lost;
        lost.key = lost_key;
        lost.value = pmt::from_long(long(d_lost_pending));
        lost.srcid = alias_pmt();
        d_bit_tags.emplace_back(0, lost);
        d_lost_pending = 0;
    }
    // other tags: at the first bit of their symbol (W's first for symbol 0)
    for (const auto& [i, tag] : d_sym_tags)
        d_bit_tags.emplace_back(i == 0 ? 0 : G + i * size_t(n), tag);
    ++d_frames;
    d_sym.clear();
    d_sym_tags.clear();
}

int codebook_encoder_impl::write_pending(uint8_t* out, int made, int room)
{
    const uint64_t out0 = nitems_written(0);
    const size_t take = std::min(d_bits.size() - d_bits_at, size_t(room - made));
    for (; d_bit_tag_at < d_bit_tags.size() &&
           d_bit_tags[d_bit_tag_at].first < d_bits_at + take;
         ++d_bit_tag_at) {
        const auto& [at, tag] = d_bit_tags[d_bit_tag_at];
        add_item_tag(0,
                     out0 + uint64_t(made) + uint64_t(at - d_bits_at),
                     tag.key,
                     tag.value,
                     tag.srcid);
    }
    std::copy(d_bits.begin() + long(d_bits_at),
              d_bits.begin() + long(d_bits_at + take),
              out + made);
    d_bits_at += take;
    return made + int(take);
}

int codebook_encoder_impl::general_work(int noutput_items,
                                        gr_vector_int& ninput_items,
                                        gr_vector_const_void_star& input_items,
                                        gr_vector_void_star& output_items)
{
    const auto* in = static_cast<const int32_t*>(input_items[0]);
    auto* out = static_cast<uint8_t*>(output_items[0]);
    const int nin = ninput_items[0];
    const uint64_t in0 = nitems_read(0);
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, in0, in0 + uint64_t(nin));
    std::sort(tags.begin(), tags.end(), gr::tag_t::offset_compare);
    size_t ti = 0;
    int k = 0;    // input symbols consumed
    int made = 0; // output bits produced
    while (true) {
        made = write_pending(out, made, noutput_items);
        if (d_bits_at < d_bits.size() || k == nin)
            break; // the output is full, or the input used up
        const uint64_t abs = in0 + uint64_t(k);
        for (; ti < tags.size() && tags[ti].offset == abs; ++ti) {
            const auto& tag = tags[ti];
            if (!pmt::eqv(tag.key, d_len_key)) {
                if (!d_skip)
                    d_sym_tags.emplace_back(d_sym.size(), tag);
                continue;
            }
            // a frame starts here
            if (!d_sym.empty())
                drop("a frame starts at input item " + std::to_string(abs) +
                     " (a length tag) before the previous frame's " +
                     std::to_string(d_N) + " symbols ended (it had " +
                     std::to_string(d_sym.size()) + ")");
            d_skip = false;
            const long len = pmt::is_integer(tag.value) ? pmt::to_long(tag.value) : -1;
            if (len != d_N) {
                // its symbols are not a frame of this encoder's: dropped
                // until the next length tag
                drop(
                    "the frame tagged at input item " + std::to_string(abs) + " has " +
                    std::to_string(len) +
                    " symbols, but the encoder was built for N = " + std::to_string(d_N));
                d_skip = true;
            }
        }
        const int32_t D = in[k++];
        if (d_skip)
            continue;
        if (d_bad.empty() && (D < 0 || D >= d_cb.q()))
            d_bad = "symbol " + std::to_string(D) + " at input item " +
                    std::to_string(abs) +
                    " is outside [0, q) with q = " + std::to_string(d_cb.q()) +
                    " (symbol " + std::to_string(d_sym.size()) + " of its frame)";
        d_sym.push_back(D);
        if (d_sym.size() == size_t(d_N))
            finish_frame();
    }
    consume_each(k);
    return made;
}

bool codebook_encoder_impl::stop()
{
    if (!d_sym.empty()) {
        GR_LOG_WARN(d_logger,
                    "the input ended inside a frame: its " +
                        std::to_string(d_sym.size()) + " of " + std::to_string(d_N) +
                        " symbols were not sent");
    }
    if (d_dropped > 0) {
        GR_LOG_WARN(d_logger,
                    std::to_string(d_dropped.load()) + " of " +
                        std::to_string(d_dropped.load() + d_frames.load()) +
                        " frames dropped (the last: " + error() + ")");
    }
    return true;
}

} // namespace bsid
} // namespace gr
