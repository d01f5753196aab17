/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CHANNEL_H
#define INCLUDED_BSID_CHANNEL_H

#include <gnuradio/block.h>
#include <gnuradio/bsid/api.h>
#include <cstdint>
#include <string>

namespace gr {
namespace bsid {

/*!
 * \brief BSID channel emulator: random insertions, deletions and
 * substitutions on a stream of unpacked bits.
 * \ingroup bsid
 *
 * \details
 * Each input bit sees k >= 0 insertions of random bits (probability
 * Pi^k (1 - Pi)), then is deleted (Pd / (1 - Pi)) or passed, and a passed bit
 * is flipped with probability Ps. Variable rate.
 *
 * Tagged frames (a \p len_tag_key tag on the first bit of each frame): frame k
 * of the run goes through the same random stream as
 * bsid.transmit(channel_params(Pi, Pd, Ps), bits, seed, frame=k), so the
 * block's output equals the core function's. A frame's insertions come before
 * its bits, and frames never mix. The block rewrites each length tag to the
 * received length rho, and moves every other tag to the output position of
 * the bit it was on (the next received bit if that one was deleted).
 * With \p drift_tags, a "bsid_drift" tag (long, rho - tau) marks the first
 * item of each output frame. A frame whose bits are all deleted cannot carry a
 * tag: it is counted, and a "bsid_frames_lost" tag (long: frames lost just
 * before this one) marks the first item of the next frame (a loss at the very
 * end of the stream has no item left: it is counted and logged). A
 * "bsid_channel" tag (f64vector: Pi, Pd, Ps; over A > 2 letters Pi, Pd, Ps,
 * A) marks the first frame and each frame whose settings differ from the
 * previous tag's, so that bsid.map_decoder can decode every frame with the
 * channel it went through.
 *
 * Over an \p alphabet of A > 2 letters (bsid.channel_params(..., alphabet=A),
 * docs/dna.md) the items are letters in [0, A), one per byte: an inserted
 * letter is uniformly random, and a substituted one each of the A - 1 others
 * alike.
 *
 * A frame that receives fewer bits than its length tag says (the next
 * length tag comes early, or the stream ends: an encoder input that is not a
 * multiple of N) is put out with what it received, logged, and tagged
 * "bsid_truncated" (uint64: the input bits that never came); the decoder
 * makes it a "truncated" erasure. A length tag that is not a non-negative
 * integer is passed on unchanged, and the bits after it go through as an
 * untagged stream.
 *
 * An untagged stream is one endless frame 0. Input bytes other than 0 and 1
 * (letters: A or more) are an error: the block logs it, emits what it produced before,
 * and ends its stream; error() returns the message.
 *
 * set_Pi, set_Pd, set_Ps and set_channel take effect at the next frame
 * (immediately on an untagged stream) and are safe to call while the
 * flowgraph runs. Invalid values throw std::invalid_argument and leave the
 * channel unchanged.
 */
class BSID_API channel : virtual public gr::block
{
public:
    typedef std::shared_ptr<channel> sptr;

    /*!
     * \param Pi, Pd, Ps   insertion, deletion and substitution probabilities
     * \param seed         the run's seed
     * \param len_tag_key  the tagged-stream length key
     * \param drift_tags   add a "bsid_drift" tag to each output frame
     * \param alphabet     the letters, 2 (bits) to 256 (DNA's four: A, C, G, T
     *                     as 0..3); items are bytes in [0, alphabet)
     */
    static sptr make(double Pi,
                     double Pd,
                     double Ps,
                     uint64_t seed,
                     const std::string& len_tag_key = "packet_len",
                     bool drift_tags = false,
                     int alphabet = 2);

    virtual void set_Pi(double Pi) = 0;
    virtual void set_Pd(double Pd) = 0;
    virtual void set_Ps(double Ps) = 0;
    virtual void set_channel(double Pi, double Pd, double Ps) = 0;
    virtual double Pi() const = 0;
    virtual double Pd() const = 0;
    virtual double Ps() const = 0;

    //! Frames passed (lost ones included) and frames lost entirely.
    virtual uint64_t frames() const = 0;
    virtual uint64_t frames_lost() const = 0;
    //! Why the block stopped on bad input ("" while all is well).
    virtual std::string error() const = 0;
};

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_CHANNEL_H */
