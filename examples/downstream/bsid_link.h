/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_DOWNSTREAM_BSID_LINK_H
#define INCLUDED_DOWNSTREAM_BSID_LINK_H

#include <gnuradio/bsid/channel.h>
#include <gnuradio/bsid/codebook_encoder.h>
#include <gnuradio/bsid/map_decoder.h>
#include <gnuradio/hier_block2.h>
#include <cstdint>
#include <memory>

namespace downstream {

/*!
 * \brief A GNU Radio block of another project, built on gr-bsid's blocks: a
 * link protected by an inner code over the BSID channel.
 *
 * Input: int32 symbols in [0, q), with a "packet_len" tag of value N on the
 * first symbol of each frame. Output: per frame, the N symbols that
 * bsid::map_decoder finds most likely (its "hard" output), with its tags
 * ("bsid_erasure" on a frame it could not decode). Inside:
 * bsid::codebook_encoder -> bsid::channel -> bsid::map_decoder.
 */
class bsid_link : public gr::hier_block2
{
public:
    using sptr = std::shared_ptr<bsid_link>;

    static sptr make(const ::bsid::codebook& codebook,
                     int N,
                     const ::bsid::channel_params& channel,
                     uint64_t seed);

    bsid_link(const ::bsid::codebook& codebook,
              int N,
              const ::bsid::channel_params& channel,
              uint64_t seed);

    //! The decoder inside, for its counters (erasures(), frames()).
    gr::bsid::map_decoder::sptr decoder() const { return d_decoder; }

private:
    gr::bsid::codebook_encoder::sptr d_encoder;
    gr::bsid::channel::sptr d_channel;
    gr::bsid::map_decoder::sptr d_decoder;
};

} // namespace downstream

#endif /* INCLUDED_DOWNSTREAM_BSID_LINK_H */
