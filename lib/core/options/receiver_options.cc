/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/bsid/core/options/receiver_options.h>
#include <algorithm>
#include <stdexcept>

namespace bsid {

const option_table<receiver_options>& receiver_option_table()
{
    static const option_table<receiver_options> table = [] {
        option_table<receiver_options> t;
        t.add(
            "output", "\"posteriors\", \"llr\", \"hard\" or \"extrinsic\"", [
            ](auto& o) -> auto& { return o.output.kind; });
        t.add(
            "backend", "\"cpu\", \"cuda\" or \"auto\"", [](auto& o) -> auto& {
                return o.decoding.backend;
            });
        t.add(
            "precision", "\"float\" or \"double\"", [](auto& o) -> auto& {
                return o.decoding.precision;
            });
        t.add(
            "storage", "\"global\", \"local\" or \"auto\"", [](auto& o) -> auto& {
                return o.decoding.storage;
            });
        t.add(
            "Pr", "drift exclusion probability of the limits", [](auto& o) -> auto& {
                return o.decoding.Pr;
            });
        t.add(
            "max_batch", "most frames decoded together", [](auto& o) -> auto& {
                return o.decoding.max_batch;
            });
        t.add(
            "llr_scale", "LLR multiplier (\"llr\" output)", [](auto& o) -> auto& {
                return o.output.llr_scale;
            });
        t.add(
            "llr_clip", "LLR magnitude limit, 0 for none (\"llr\" output)", [
            ](auto& o) -> auto& { return o.output.llr_clip; });
        t.add(
            "len_tag_key", "the tagged-stream length key", [](auto& o) -> auto& {
                return o.framing.len_tag_key;
            });
        t.add(
            "follow_channel_tags",
            "decode with the channel of upstream \"bsid_channel\" tags (from "
            "bsid.channel)",
            [](auto& o) -> auto& { return o.input.follow_channel_tags; });
        t.add(
            "sync_word",
            "the word that begins every frame (\"0110...\"; \"\" for none), as the "
            "encoder sends it",
            [](auto& o) -> auto& { return o.framing.sync_word; });
        t.add(
            "framing",
            "\"tagged\" (frames by len_tag_key tags) or \"stream\" (a plain bitstream "
            "decoded frame after frame; docs/receiving.md)",
            [](auto& o) -> auto& { return o.framing.framing; });
        t.add(
            "lookahead",
            "stream framing: the next frame's symbols weighed after a frame's end; "
            "-1: 0 with a sync word, 2 without",
            [](auto& o) -> auto& { return o.framing.lookahead; });
        t.add(
            "start_tag_key",
            "stream framing: the key of start tags, e.g. the tag name given to "
            "digital.correlate_access_code_tag_bb",
            [](auto& o) -> auto& { return o.framing.start_tag_key; });
        t.add(
            "acquire_window",
            "stream framing: half width in bits of the start prior around a start tag "
            "or a found sync word",
            [](auto& o) -> auto& { return o.framing.acquire_window; });
        t.add(
            "tag_after_sync_word",
            "stream framing: a start tag is on the bit after the sync word (True) or "
            "on the frame's first bit (False)",
            [](auto& o) -> auto& { return o.framing.tag_after_sync_word; });
        t.add(
            "sync_threshold",
            "stream framing: the least log-likelihood ratio against random bits of a "
            "frame in sync; below it, sync_lost",
            [](auto& o) -> auto& { return o.framing.sync_threshold; });
        t.add(
            "search",
            "stream framing: look for frames without start tags after losing sync",
            [](auto& o) -> auto& { return o.framing.search; });
        t.add(
            "synchronized_at_start",
            "stream framing: the first frame begins at the first input bit",
            [](auto& o) -> auto& { return o.framing.synchronized_at_start; });
        t.add(
            "input",
            "\"bits\" (byte items, 0 or 1) or \"llr\" (float items, soft decisions; "
            "docs/receiving.md)",
            [](auto& o) -> auto& { return o.input.kind; });
        t.add(
            "estimate_every",
            "re-estimate the channel from the last this many decoded frames after "
            "every this many, on a thread of its own, apply it to the frames that "
            "begin after it, and post it on the message port \"channel_estimate\" "
            "(docs/receiving.md, \"Channel estimation\"; either framing: with stream "
            "framing, from the frames decoded in sync cut at their most probable "
            "start and end); 0: never",
            [](auto& o) -> auto& { return o.input.estimate_every; });
        t.add(
            "priors_input",
            "a second input port of vectors of q floats, N per frame: the natural log "
            "of each message symbol's prior probabilities (any constant per row, -inf "
            "for an impossible symbol), the k-th frame of priors for the k-th "
            "received frame (tagged framing only; docs/receiving.md, \"Priors and the "
            "extrinsic output\")",
            [](auto& o) -> auto& { return o.input.priors_input; });
        t.add(
            "max_delay_ms",
            "the longest a received frame waits for others to fill its batch, in "
            "milliseconds; finite and >= 0 (0: a batch goes as soon as the decoder is "
            "free); tagged framing",
            [](auto& o) -> auto& { return o.decoding.max_delay_ms; });
        t.add(
            "devices",
            "the GPUs one decoder uses: \"all\", or indices like \"0,1\"; \"\": "
            "device 0 alone (or BSID_CUDA_DEVICE). With several, each batch is split "
            "among them by received bits and the output is the same bit for bit "
            "(docs/design.md section 5); a device that does not exist: RuntimeError "
            "with backend \"cuda\", the CPU with \"auto\"; a repeated or negative "
            "index: ValueError",
            [](auto& o) -> auto& { return o.decoding.devices; });
        t.add(
            "reads",
            "M inputs of tagged frames, the k-th frame of each a read of the same "
            "frame (DNA reads, diversity receivers; docs/reads.md): each frame is "
            "decoded from the reads it has, a missing or refused read left out and "
            "named in the frame's bsid_reads tag; tagged framing, no priors input, "
            "sync word or channel estimation; 1: one input",
            [](auto& o) -> auto& { return o.input.reads; });
        t.add(
            "read_method",
            "with reads > 1: \"joint\" (exact, at most 3 reads) or \"combine\" (any "
            "number; docs/reads.md)",
            [](auto& o) -> auto& { return o.input.read_method; });
        return t;
    }();
    return table;
}

const std::vector<std::string>& concatenated_receiver_options()
{
    // the Python and GRC order of bsid.concatenated_decoder (input comes
    // earlier than in the table)
    static const std::vector<std::string> names = { "backend",
                                                    "precision",
                                                    "storage",
                                                    "Pr",
                                                    "max_batch",
                                                    "len_tag_key",
                                                    "follow_channel_tags",
                                                    "sync_word",
                                                    "framing",
                                                    "input",
                                                    "lookahead",
                                                    "start_tag_key",
                                                    "acquire_window",
                                                    "tag_after_sync_word",
                                                    "sync_threshold",
                                                    "search",
                                                    "synchronized_at_start" };
    return names;
}

void refuse_options_not_taken(const receiver_options& options,
                              const std::vector<std::string>& taken,
                              const std::string& block)
{
    const receiver_options defaults;
    for (const auto& e : receiver_option_table().entries()) {
        if (std::find(taken.begin(), taken.end(), e.name) != taken.end())
            continue;
        if (e.get(options) != e.get(defaults)) {
            throw std::invalid_argument(block + ": " + e.name +
                                        " is an option of bsid.map_decoder, not of "
                                        "this block");
        }
    }
}

decoder_config make_decoder_config(const codebook& cb,
                                   int N,
                                   const channel_params& ch,
                                   const decoding_options& d)
{
    decoder_config cfg(cb, ch, N);
    cfg.backend = parse_backend(d.backend);
    cfg.precision = parse_precision(d.precision);
    cfg.storage = parse_storage(d.storage);
    cfg.Pr = d.Pr;
    cfg.cuda.devices = parse_devices(d.devices);
    return cfg;
}

stream_options make_stream_options(const framing_options& f, size_t G, input_kind input)
{
    stream_options opt;
    opt.lookahead = f.lookahead;
    opt.acquire_window = f.acquire_window;
    opt.tag_offset = f.tag_after_sync_word ? -(long long)G : 0;
    opt.sync_threshold = f.sync_threshold;
    opt.search = f.search;
    opt.input = input;
    if (!f.synchronized_at_start)
        opt.first_start.reset();
    return opt;
}

} // namespace bsid
