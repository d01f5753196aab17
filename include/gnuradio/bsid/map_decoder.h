/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_MAP_DECODER_H
#define INCLUDED_BSID_MAP_DECODER_H

#include <gnuradio/block.h>
#include <gnuradio/bsid/api.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/options/receiver_options.h>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace bsid {

/*!
 * \brief MAP synchronization decoder: received frames of bits in, soft symbol
 * outputs for an outer decoder out.
 * \ingroup bsid
 *
 * \details
 * Input: unpacked bits, a \p len_tag_key tag on the first bit of each received
 * frame (value rho). The block collects each frame internally, whatever its
 * length, and hands it to a frame batcher (bsid::frame_batcher), which
 * decodes frames in batches with the core decoder's decode_batch on a
 * thread of its own while the block goes on receiving: a batch goes when it
 * holds \p max_batch frames, when its oldest frame has waited
 * \p max_delay_ms, or when the input ends. Batches thus gather frames across
 * work() calls (a GPU sees batches, not single frames), and the output keeps
 * the input's order. mean_batch() and batches() report the batches, and the
 * block logs them when the flowgraph stops.
 *
 * Output per frame, by \p output, with a \p len_tag_key tag on its first item:
 *  - "posteriors": N items, each a vector of q floats summing to 1;
 *  - "llr": N ceil(log2 q) floats, bit LLRs ln P(b=1) - ln P(b=0) (GNU
 *    Radio's sign: positive means 1), each probability floored at 1e-300,
 *    symbol bits MSB first, then times \p llr_scale and clipped to
 *    +-\p llr_clip (0: no clip);
 *  - "hard": N int32 symbols, the most likely (ties to the lowest index);
 *  - "extrinsic": N items, each a vector of q floats: the natural log of
 *    each symbol's extrinsic probabilities (its posterior without its own
 *    prior, computed directly by the decoder, not as posterior over prior),
 *    each probability floored at 1e-300 before the log, so no value is
 *    -inf or NaN; each row's log-sum-exp is 0 (up to that floor). Without
 *    priors it is the log of the posteriors. Hard decisions are taken on
 *    the posterior and have no extrinsic form: an output name that asks for
 *    both (e.g. "extrinsic_hard") is refused.
 * "posteriors", "llr" and "hard" are always posteriors, the priors
 * included (the LLRs are not extrinsic LLRs).
 *  - "received" (stream framing only): each frame the stream receiver
 *    decodes in sync, as received: its input items from its decoded start
 *    (the first bit of its sync word, if any) to its decoded end, with a
 *    length tag (the received length) and its bsid_drift tag, for a decoder
 *    of tagged frames (reads > 1 fed by several receivers: docs/reads.md,
 *    "A diversity receiver"). Bytes for bit or letter input; floats for soft
 *    input: an LLR per bit, or A log-probabilities per letter. An erasure
 *    puts out nothing: a "bsid_frames_lost" tag on the next frame counts it.
 *
 * Erasures: a frame the decoder refuses (empty, not bits, end drift outside
 * the limits, probability 0, a decoder failure), a frame cut short (by the
 * next length tag, the end of the stream, or a "bsid_truncated" tag from the
 * channel), a length tag that is not a non-negative integer, and each frame
 * that an upstream "bsid_frames_lost" tag reports, still produces a full
 * output frame: uniform posteriors, zero LLRs, symbols -1 or rows of
 * ln(1/q) (extrinsic), with a
 * "bsid_erasure" tag (a PMT symbol: the status name, bsid::frame_status) on
 * its first item. erasures() counts them. Bits outside any tagged frame are
 * discarded and counted (bits_discarded()). Other tags on a frame's first
 * bit are put on its first output item; tags elsewhere are not passed on.
 *
 * The channel: with \p follow_channel_tags (the default), a "bsid_channel"
 * tag (f64vector Pi, Pd, Ps, which bsid.channel puts on its first frame and
 * whenever its settings change) makes the decoder decode that frame and the
 * following ones with that channel, so that each frame is decoded with the
 * channel it was sent through, whatever the delay between the blocks. Once
 * such a tag has arrived, the tags set the channel and set_channel changes
 * nothing more. Without those tags (or with follow_channel_tags false, for a
 * mismatched decoder), set_channel applies to frames that begin after the
 * call; frames already received keep the channel they began with. It is safe
 * to call while the flowgraph runs. The backend and the drift limits are
 * logged at start and at each change.
 *
 * With a \p sync_word W of G bits, every received frame begins with W (the
 * encoder's sync_word) and is decoded with W weighed through the channel
 * (bsid::frame_decoder); the drift limits then bound the drift at codeword
 * boundaries after W.
 *
 * Stream framing (\p framing "stream"; docs/receiving.md): the input is a
 * plain bitstream, with no length tags, decoded frame after frame by
 * bsid::stream_decoder: each frame's start prior is the previous frame's
 * forward end metric, so drift is followed indefinitely; its end is free
 * and weighed with the next frame's sync word and \p lookahead symbols.
 * Every frame length of received bits gives one output frame: decoded, or
 * an erasure ("sync_lost" while unsynchronized, "truncated" for the frame
 * the stream ends inside, "invalid_input" for a frame with a byte that is
 * not a bit). A \p start_tag_key tag (for instance from
 * digital.correlate_access_code_tag_bb with the sync word as access code
 * and this key as its tag name) acquires: the frame starts G bits before
 * the tagged bit (\p tag_after_sync_word) or at it, within
 * +-\p acquire_window bits. A frame whose log-likelihood ratio against
 * random bits is below \p sync_threshold loses sync; with \p search, the
 * decoder then looks for the next frame itself (its sync word, or a start
 * prior a frame wide without one). With \p synchronized_at_start the first
 * frame begins at the first input bit; otherwise the decoder starts
 * unsynchronized. Each decoded output frame carries a "bsid_drift" tag: a
 * dict {"start": start drift, "end": end drift, "end_probability": P(the MAP
 * end)}, drift being the MAP position less the nominal one (the last start
 * tag or acquisition plus whole frame lengths). max_batch and max_delay_ms
 * do not apply (one stream is sequential, decoded frame by frame on the
 * scheduler thread); set_channel and bsid_channel tags apply to
 * the frames decoded after them. \p len_tag_key tags are put on the output
 * as in tagged framing; input tags are not passed on.
 *
 * Soft input (\p input "llr"; docs/receiving.md, "Soft input"): the input
 * items are floats, one LLR ln p(r | 1) - ln p(r | 0) per received item
 * (GNU Radio's sign: positive means 1; +-inf are hard bits), in either
 * framing, and "bits" above means these items. A NaN makes its frame an
 * "invalid_input" erasure. Connecting a byte stream to a decoder made for
 * LLRs, or the reverse, is refused by GNU Radio when the flowgraph is
 * connected (the item sizes differ). Over A > 2 letters (the codebook's
 * alphabet) soft input is \p input "logprob": each input item is a vector of
 * A floats, ln p(r | y) for y = 0 .. A-1 up to a constant (-inf: an
 * impossible letter; a NaN, a +inf or all -inf make the frame an
 * "invalid_input" erasure), a basecaller's output for DNA; over bits,
 * "logprob" items of two floats are taken as the LLR lp(1) - lp(0).
 * Channel estimation (\p estimate_every K > 0, either framing, with or
 * without a sync word;
 * docs/receiving.md, "Channel estimation"): the block keeps the last K
 * frames it decoded and, after every K, re-estimates the channel from them
 * (bsid::estimate_channel, expectation-maximization over the decoder's
 * lattice, from the channel in use) on a thread of its own while it goes on
 * decoding. A finished estimate is logged and applied to the frames that
 * begin after it (for soft input its LLR scale too: the input LLRs are
 * multiplied by it), and posted on the message port "channel_estimate" as
 * a dict: Pi, Pd, Ps, llr_scale, iterations, converged, frames,
 * frames_seen (frames given to the estimator when it started),
 * log_likelihood, applied (false while "bsid_channel" tags set the channel:
 * the tags win) and, for an estimate that failed, error. estimates()
 * counts them. With stream framing the frames estimated from are those
 * decoded in sync, each cut at its most probable start and end (as a
 * tagged frame, its sync word first).
 *
 * Priors (\p priors_input; docs/receiving.md, "Priors and the extrinsic
 * output"): a second input port of items of q floats (vlen q), N items per
 * frame, the natural log of each message symbol's prior probabilities, up
 * to a constant per row (-inf: an impossible symbol), from an outer
 * decoder. The k-th frame of the first input (decoded, or an erasure of any
 * kind, lost frames included) takes the k-th frame of priors, so the two
 * streams never slip. Without \p len_tag_key tags on the priors port its
 * frames are counted, N items each; from the first such tag on, a tag
 * starts each frame of priors: a value other than N (or one that is not a
 * count), a frame cut short by the next tag or the end of the priors, or a
 * row with a NaN, a +inf or only -inf makes that frame an "invalid_input"
 * erasure, whatever its bits (a tag of value L takes the next L items, or
 * those up to the next tag); items after a frame's last and before the
 * next tag belong to no frame and are discarded with a warning. Frames
 * whose priors never come (the priors stream ended first) are
 * "invalid_input" erasures too. The block asks for priors only for frames
 * it has received. Channel estimation (\p estimate_every) does not use the
 * priors. Tagged framing only: stream frames are found at run time, so
 * priors cannot be aligned to them, and make() refuses the two together.
 * Several reads (\p reads M > 1; docs/reads.md, "In a flowgraph"): M inputs
 * of tagged frames, the k-th frame of each input a read of the same frame
 * (a DNA cluster, the same frame from several receivers), decoded together
 * by bsid::reads_decoder (\p read_method "joint": exact, up to 3 reads;
 * "combine": any number). A frame is decoded once every input has its k-th
 * frame or has ended. A missing read (lost, cut short, an invalid length
 * tag, its input ended) or one the decoder cannot use is left out and the
 * frame decoded from the others; every output frame carries a "bsid_reads"
 * tag, a dict: used (the reads decoded from), reads (each input's status,
 * "ok" or why it was left out) and, with "combine", rounds. With
 * \p follow_channel_tags each input follows its own "bsid_channel" tags.
 * Tagged framing only, without a sync word, priors input or channel
 * estimation (make() refuses them); frames are decoded as they complete on
 * every input, at most \p max_batch a call (\p max_delay_ms does not apply).
 */
class BSID_API map_decoder : virtual public gr::block
{
public:
    typedef std::shared_ptr<map_decoder> sptr;

    /*!
     * \param codebook the inner code (bsid.codebook)
     * \param N        message symbols per frame
     * \param channel  the channel the decoder assumes (Pi, Pd, Ps)
     * \param options  what the decoder puts out, how it decodes, how it finds
     *        frames and what else it takes in (bsid::receiver_options; each
     *        option's meaning is in bsid::receiver_option_table(), whose
     *        names are the Python keywords of bsid.map_decoder)
     */
    static sptr make(const ::bsid::codebook& codebook,
                     int N,
                     const ::bsid::channel_params& channel,
                     const ::bsid::receiver_options& options = {});

    //! The channel for frames that begin after the call (unless bsid_channel tags set
    //! it).
    virtual void set_channel(double Pi, double Pd, double Ps) = 0;

    //! Output frames produced, and how many of them are erasures.
    virtual uint64_t frames() const = 0;
    virtual uint64_t erasures() const = 0;
    //! Input bits that belonged to no tagged frame.
    virtual uint64_t bits_discarded() const = 0;
    //! The backend in use ("cpu" or "cuda").
    virtual std::string backend() const = 0;
    //! Channel estimates finished (estimate_every), applied or not.
    virtual uint64_t estimates() const = 0;
    //! Items of the priors input that belonged to no frame of priors (priors_input).
    virtual uint64_t priors_discarded() const = 0;
    //! Batches decoded so far (tagged framing; 0 with stream framing).
    virtual uint64_t batches() const = 0;
    //! Their mean size in frames (0 before the first).
    virtual double mean_batch() const = 0;
    /*!
     * What the decoder warns of, latest last, each also logged once: frames
     * whose lengths say N does not fit them, frames far worse than the
     * channel predicts (stream framing, bits), a setup whose alignments
     * cannot be told apart (docs/receiving.md, "A setup that does not fit
     * the frames").
     */
    virtual std::vector<std::string> warnings() const = 0;
    //! How many warnings were given.
    virtual uint64_t warning_count() const = 0;
};

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_MAP_DECODER_H */
