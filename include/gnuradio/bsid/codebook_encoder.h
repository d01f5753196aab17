/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CODEBOOK_ENCODER_H
#define INCLUDED_BSID_CODEBOOK_ENCODER_H

#include <gnuradio/block.h>
#include <gnuradio/bsid/api.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <string>

namespace gr {
namespace bsid {

/*!
 * \brief Codebook encoder: q-ary message symbols to n-bit codewords.
 * \ingroup bsid
 *
 * \details
 * Input: int32 message symbols in [0, q). Output: unpacked bits (one 0/1 per
 * byte), n per symbol, the most significant bit of each codeword first; over a
 * codebook of A > 2 letters (DNA's four: A, C, G, T as 0..3), one letter in
 * [0, A) per byte, the codeword's first letter first. Symbol i of a frame
 * uses book i mod P of the codebook.
 *
 * Frames hold N symbols. On a tagged stream a frame starts at each \p
 * len_tag_key tag (whose value must be N); on an untagged stream frames are cut
 * every N symbols from the start. With a \p sync_word W of G bits, each frame's
 * bits are W then its codewords. Each output frame of G + tau bits (tau = n N)
 * starts with a \p len_tag_key tag of value G + tau. Other tags move to the
 * first bit of their symbol (the first bit of W for a frame's first symbol).
 *
 * A frame goes out once all its N symbols have come. A frame with a symbol
 * outside [0, q) is dropped whole, as are a tagged frame whose length tag is
 * not N (its symbols, up to the next length tag) and a tagged frame cut short
 * by the next length tag: each is counted (frames_dropped()), logged (the
 * first in full, with the stream position; a summary when the flowgraph
 * stops), and error() names the last. The next frame sent carries a
 * "bsid_frames_lost" tag (long: the frames dropped just before it), so that
 * bsid.map_decoder puts out an erasure for each and the frame count stays
 * right. A stream that ends inside a frame leaves that frame unsent (logged).
 */
class BSID_API codebook_encoder : virtual public gr::block
{
public:
    typedef std::shared_ptr<codebook_encoder> sptr;

    /*!
     * \param codebook    the inner code (bsid.codebook)
     * \param N           message symbols per frame
     * \param len_tag_key the tagged-stream length key
     * \param sync_word   the word sent before every frame ("0110..."; over letters
     *                    "ACGT..." for four, digits or comma-separated integers;
     *                    "" for none)
     */
    static sptr make(const ::bsid::codebook& codebook,
                     int N,
                     const std::string& len_tag_key = "packet_len",
                     const std::string& sync_word = "");

    //! Frames sent so far.
    virtual uint64_t frames() const = 0;
    //! Frames dropped for bad input (a symbol outside [0, q), a wrong length tag).
    virtual uint64_t frames_dropped() const = 0;
    //! Why the last frame was dropped for bad input ("" while none was).
    virtual std::string error() const = 0;
};

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_CODEBOOK_ENCODER_H */
