/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_LDPC_ENCODER_H
#define INCLUDED_BSID_LDPC_ENCODER_H

#include <gnuradio/block.h>
#include <gnuradio/bsid/api.h>
#include <gnuradio/bsid/core/outer/ldpc_code.h>
#include <cstdint>
#include <string>

namespace gr {
namespace bsid {

/*!
 * \brief LDPC outer encoder: information bits to the inner code's message
 * symbols.
 * \ingroup bsid
 *
 * \details
 * Input: unpacked information bits (one 0/1 per byte), K = k log2(q_o) per
 * frame, for the outer code's k information symbols over GF(q_o). Output:
 * int32 inner message symbols in [0, q_i), N per frame, for
 * bsid.codebook_encoder.
 *
 * Each frame is encoded as the simulator's frame_source encodes it
 * (docs/concatenated.md): the K bits, log2(q_o) per symbol, most
 * significant bit first, give the k information symbols; the outer code's
 * systematic encoder places them at its information positions and adds the
 * parity symbols (n in all); bsid::symbol_mapping cuts the codeword's bits,
 * each symbol MSB first, into N = ceil(n log2 q_o / log2 q_i) inner symbols
 * of log2(q_i) bits, MSB first, the last one padded with zero bits (for q_i
 * = q_o, symbol for symbol: N = n). bsid.concatenated_decoder inverts it.
 *
 * Frames hold K bits. On a tagged stream a frame starts at each \p
 * len_tag_key tag (whose value must be K); on an untagged stream frames are
 * cut every K bits from the start. Each output frame of N symbols starts
 * with a \p len_tag_key tag of value N. Every other input tag moves to the
 * first symbol of its frame.
 *
 * A byte that is not 0 or 1, a length tag whose value is not K or that
 * falls inside a frame, and a stream that ends inside a frame are errors:
 * the block logs the error, naming the stream position, writes the frames
 * before it, and ends its stream (the flowgraph then finishes); error()
 * returns the message.
 */
class BSID_API ldpc_encoder : virtual public gr::block
{
public:
    typedef std::shared_ptr<ldpc_encoder> sptr;

    /*!
     * \param outer       the outer code (bsid.ldpc_code)
     * \param inner_q     the inner codebook's q (a power of two unless it equals
     *                    the outer code's q); one outside 2 .. 65536, or
     *                    one that is neither, throws std::invalid_argument
     *                    (ValueError in Python)
     * \param len_tag_key the tagged-stream length key
     */
    static sptr make(const ::bsid::ldpc_code& outer,
                     int inner_q,
                     const std::string& len_tag_key = "packet_len");

    //! Information bits per frame (K = k log2 q_o).
    virtual int bits_per_frame() const = 0;
    //! Inner symbols per frame (N).
    virtual int symbols_per_frame() const = 0;
    //! Frames encoded so far.
    virtual uint64_t frames() const = 0;
    //! Why the block stopped on bad input ("" while all is well).
    virtual std::string error() const = 0;
};

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_LDPC_ENCODER_H */
