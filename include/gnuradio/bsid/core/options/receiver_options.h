/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_RECEIVER_OPTIONS_H
#define INCLUDED_BSID_CORE_RECEIVER_OPTIONS_H

/*
 * A receiver's settings as objects: what it puts out, how it decodes, how it
 * finds frames and what else it takes in. The decoder blocks are made from
 * them (with the code and the channel), the Python keywords of the blocks
 * fill them through receiver_option_table(), and the command lines read the
 * options they share with the blocks through the same table. Each field's
 * meaning is in the table's help (and in the blocks' documentation); the
 * defaults here are the blocks' defaults.
 */

#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/options/option_table.h>
#include <string>
#include <vector>

namespace bsid {

//! What a decoder block puts out for each frame.
struct output_options {
    std::string kind = "posteriors"; //!< "posteriors", "llr", "hard" or "extrinsic"
    float llr_scale = 1.0f;          //!< LLR multiplier ("llr")
    float llr_clip = 0.0f;           //!< LLR magnitude limit, 0 for none ("llr")
};

//! How the inner decoder runs.
struct decoding_options {
    std::string backend = "auto";    //!< "cpu", "cuda" or "auto"
    std::string precision = "float"; //!< "float" or "double"
    std::string storage = "auto";    //!< "global", "local" or "auto"
    double Pr = 1e-10;               //!< drift exclusion probability of the limits
    int max_batch = 64;              //!< most frames decoded together
    double max_delay_ms = 10.0;      //!< longest wait of a frame for its batch
    std::string devices;             //!< GPUs: "all", "0,1"; "": one
};

//! How frames are found in the input.
struct framing_options {
    std::string framing = "tagged";         //!< "tagged" or "stream"
    std::string len_tag_key = "packet_len"; //!< tagged frames' length key
    std::string sync_word;                  //!< the word that begins every frame
    int lookahead = stream_options::auto_lookahead;
    std::string start_tag_key = "bsid_start";
    int acquire_window = 4;
    bool tag_after_sync_word = true;
    double sync_threshold = 0.0;
    bool search = true;
    bool synchronized_at_start = true;
};

//! What comes in besides the frames, and what the receiver learns from them.
struct input_options {
    std::string kind = "bits"; //!< "bits", "llr" or "logprob" (A floats an item)
    bool follow_channel_tags = true;
    int estimate_every = 0;
    bool priors_input = false;
    int reads = 1;                     //!< inputs, each a read of the same frames
    std::string read_method = "joint"; //!< "joint" or "combine" (reads > 1)
};

//! A receiver's settings.
struct receiver_options {
    output_options output;
    decoding_options decoding;
    framing_options framing;
    input_options input;
};

/*!
 * Every receiver option by its name (the blocks' Python keywords: "output",
 * "backend", "sync_word", ...), in the map_decoder block's order, with its
 * help. The defaults are a default receiver_options'.
 */
BSID_CORE_SHARED_FUNCTION const option_table<receiver_options>& receiver_option_table();

/*!
 * The receiver options the concatenated decoder block takes, in its Python
 * and GRC order (after the code, the outer code, the channel and the
 * iteration counts). The table's others are the MAP decoder block's alone
 * (its outputs, estimation, priors input, batching delay and devices), and
 * refuse_options_not_taken() refuses them.
 */
BSID_CORE_SHARED_FUNCTION const std::vector<std::string>& concatenated_receiver_options();

/*!
 * std::invalid_argument "<block>: <name> is an option of bsid.map_decoder,
 * not of this block" for the first option of the table outside `taken` that
 * differs from its default: a C++ caller's setting that the block would
 * otherwise ignore silently.
 */
BSID_CORE_SHARED_FUNCTION void
refuse_options_not_taken(const receiver_options& options,
                         const std::vector<std::string>& taken,
                         const std::string& block);

/*!
 * The decoder_config of code cb, N symbols a frame and channel ch with the
 * decoding options: backend, precision, storage, Pr and devices parsed
 * (std::invalid_argument naming a bad one).
 */
BSID_CORE_SHARED_FUNCTION decoder_config make_decoder_config(const codebook& cb,
                                                             int N,
                                                             const channel_params& ch,
                                                             const decoding_options& d);

/*!
 * The stream_options of the framing options for a sync word of G bits and
 * the input kind (the tag offset is -G with tag_after_sync_word, else 0;
 * the first start is unset unless synchronized_at_start).
 */
BSID_CORE_SHARED_FUNCTION stream_options make_stream_options(const framing_options& f,
                                                             size_t G,
                                                             input_kind input);

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_RECEIVER_OPTIONS_H */
