/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "bsid_link.h"
#include <gnuradio/io_signature.h>

namespace downstream {

bsid_link::sptr bsid_link::make(const ::bsid::codebook& codebook,
                                int N,
                                const ::bsid::channel_params& channel,
                                uint64_t seed)
{
    return gnuradio::make_block_sptr<bsid_link>(codebook, N, channel, seed);
}

bsid_link::bsid_link(const ::bsid::codebook& codebook,
                     int N,
                     const ::bsid::channel_params& channel,
                     uint64_t seed)
    : gr::hier_block2("bsid_link",
                      gr::io_signature::make(1, 1, sizeof(int32_t)),
                      gr::io_signature::make(1, 1, sizeof(int32_t)))
{
    d_encoder = gr::bsid::codebook_encoder::make(codebook, N);
    d_channel = gr::bsid::channel::make(channel.Pi(), channel.Pd(), channel.Ps(), seed);
    ::bsid::receiver_options options;
    options.output.kind = "hard";
    options.decoding.backend = "cpu";
    d_decoder = gr::bsid::map_decoder::make(codebook, N, channel, options);

    connect(self(), 0, d_encoder, 0);
    connect(d_encoder, 0, d_channel, 0);
    connect(d_channel, 0, d_decoder, 0);
    connect(d_decoder, 0, self(), 0);
}

} // namespace downstream
