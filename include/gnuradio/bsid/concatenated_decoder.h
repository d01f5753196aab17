/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CONCATENATED_DECODER_H
#define INCLUDED_BSID_CONCATENATED_DECODER_H

#include <gnuradio/block.h>
#include <gnuradio/bsid/api.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/options/receiver_options.h>
#include <gnuradio/bsid/core/outer/ldpc_code.h>
#include <cstdint>
#include <string>

namespace gr {
namespace bsid {

/*!
 * \brief Iterative decoder of the concatenated scheme: received frames of
 * bits in, the outer code's decoded information bits out.
 * \ingroup bsid
 *
 * \details
 * The inner MAP decoder (as bsid.map_decoder) and belief propagation over
 * the LDPC outer code, passing extrinsic information both ways for up to
 * \p iterations passes of up to \p bp_iterations BP iterations each; a frame
 * stops as soon as its decisions satisfy every check (bsid::
 * concatenated_decoder, docs/concatenated.md). Frames are decoded in
 * batches of up to \p max_batch (one decode_batch per pass). The frames are
 * those of bsid.ldpc_encoder then bsid.codebook_encoder: N =
 * symbol_mapping(q_o, n, q).n_inner() inner symbols per frame, from the
 * outer code and the codebook.
 *
 * Input: unpacked bits (or, \p input "llr", float LLRs, or \p input
 * "logprob", vectors of A float log-probabilities, as for
 * bsid.map_decoder), a \p len_tag_key tag on the first bit of each received
 * frame (tagged framing), or a plain bitstream (stream framing).
 *
 * Output per frame: K = k log2(q_o) unpacked information bits (bytes 0/1),
 * the decisions at the outer code's information positions, each symbol MSB
 * first (bsid.ldpc_encoder's input order), with on its first item: a \p
 * len_tag_key tag (K), "bsid_frame_ok" (PMT bool: the decisions satisfy
 * every check) and "bsid_iterations" (PMT long: the passes run, 0 for an
 * erasure). A frame that does not decode within the passes still gives its
 * last decisions, with bsid_frame_ok false.
 *
 * Erasures: as for bsid.map_decoder, a frame the inner decoder refuses
 * (empty, not bits, end drift outside the limits, probability 0, a decoder
 * failure or an exception from the core for that frame), a frame cut short
 * (by the next length tag, the end of the stream, or a "bsid_truncated"
 * tag), a length tag that is not a non-negative integer, each frame an
 * upstream "bsid_frames_lost" tag reports and, with stream framing, each
 * frame out of sync still gives a full output frame: K zero bits with
 * bsid_frame_ok false and a "bsid_erasure" tag (a PMT symbol: the status
 * name, bsid::frame_status). Frames in equal frames out. Bits outside any
 * tagged frame are discarded and counted (bits_discarded()). Other tags on
 * a frame's first bit are put on its first output item.
 *
 * The channel: with \p follow_channel_tags, "bsid_channel" tags (from
 * bsid.channel) set the channel of the frame they are on and those after;
 * otherwise set_channel applies to frames that begin after the call.
 *
 * With a \p sync_word, every frame begins with it, weighed through the
 * channel (bsid::frame_decoder).
 *
 * Stream framing (\p framing "stream"; docs/receiving.md): the inner
 * bsid::stream_decoder finds the frames of a plain bitstream, with the
 * stream parameters of bsid.map_decoder; each frame it decodes in sync is
 * cut at its most probable start and end and decoded through the iterative
 * loop as a tagged frame (its sync word first), and carries a "bsid_drift"
 * tag as bsid.map_decoder's; a frame out of sync is an erasure
 * ("sync_lost"; "truncated" for the frame the stream ends inside). The
 * start of each frame follows the inner decoder alone (the outer code does
 * not feed back into synchronization). Input tags other than start tags and
 * "bsid_channel" are not passed on; the frames found are decoded in batches
 * of up to \p max_batch, as tagged frames are.
 */
class BSID_API concatenated_decoder : virtual public gr::block
{
public:
    typedef std::shared_ptr<concatenated_decoder> sptr;

    /*!
     * \param codebook    the inner code (bsid.codebook), the same as the
     *                    codebook encoder's
     * \param outer       the outer code (bsid.ldpc_code), the same as the
     *                    LDPC encoder's; with the codebook's q it fixes N and K
     * \param channel     the channel the decoder assumes (Pi, Pd, Ps)
     * \param iterations  passes of the iterative decoder, at least 1
     * \param bp_iterations belief-propagation iterations per pass, at least 1
     * \param options     how the inner decoder runs, how frames are found and
     *        what comes in (bsid::receiver_options; the receiver options of
     *        bsid.map_decoder but output, estimate_every, priors_input,
     *        max_delay_ms and devices, which must keep their defaults)
     *
     * Bad parameters throw std::invalid_argument (ValueError in Python),
     * naming the parameter; backend "cuda" without a CUDA backend throws
     * std::runtime_error.
     */
    static sptr make(const ::bsid::codebook& codebook,
                     const ::bsid::ldpc_code& outer,
                     const ::bsid::channel_params& channel,
                     int iterations = 10,
                     int bp_iterations = 50,
                     const ::bsid::receiver_options& options = {});

    /*!
     * \brief Set the channel the decoder assumes.
     *
     * Safe to call while the flowgraph runs; it applies to frames that
     * begin after the call. Once a "bsid_channel" tag has arrived (with
     * follow_channel_tags), the tags set the channel and this call changes
     * nothing. Invalid values throw std::invalid_argument (ValueError in
     * Python) and leave the decoder as it was.
     *
     * \param Pi insertion probability
     * \param Pd deletion probability
     * \param Ps substitution probability
     */
    virtual void set_channel(double Pi, double Pd, double Ps) = 0;

    //! Output frames produced, erasures included.
    virtual uint64_t frames() const = 0;
    //! Output frames that are erasures (each tagged "bsid_erasure").
    virtual uint64_t erasures() const = 0;
    //! Output frames that decoded to a codeword (bsid_frame_ok true).
    virtual uint64_t frames_ok() const = 0;
    //! Input bits that belonged to no tagged frame.
    virtual uint64_t bits_discarded() const = 0;
    //! Information bits per output frame (K = k log2 q_o).
    virtual int bits_per_frame() const = 0;
    //! Inner symbols per frame (N), as the codebook encoder sends them.
    virtual int symbols_per_frame() const = 0;
    //! The backend in use ("cpu" or "cuda").
    virtual std::string backend() const = 0;
};

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_CONCATENATED_DECODER_H */
