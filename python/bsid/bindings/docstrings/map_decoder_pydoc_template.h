/*
 * Copyright 2026 Free Software Foundation, Inc.
 *
 * This file is part of GNU Radio
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, bsid, __VA_ARGS__)
/*
  Docstrings of the Python bindings of gr::bsid::map_decoder, written from
  the Doxygen comments of include/gnuradio/bsid/map_decoder.h (see README.md
  here). The build copies this file to map_decoder_pydoc.h in the build tree
  whether or not Doxygen is enabled. Keep it in step with the header.
 */


static const char* __doc_gr_bsid_map_decoder =
    R"doc(MAP synchronization decoder: received frames of bits in, soft symbol outputs
for an outer decoder out.

Input: unpacked bits, a len_tag_key tag on the first bit of each received
frame (value rho). The block collects each frame internally, whatever its
length, and hands it to a frame batcher, which decodes frames in batches with
the core decoder's decode_batch on a thread of its own while the block goes on
receiving: a batch goes when it holds max_batch frames, when its oldest frame
has waited max_delay_ms, or when the input ends. Batches thus gather frames
across work() calls, and the output keeps the input's order. mean_batch() and
batches() report the batches; the block logs them when the flowgraph stops.

Output per frame, by output, with a len_tag_key tag on its first item:
 - "posteriors": N items, each a vector of q floats summing to 1;
 - "llr": N ceil(log2 q) floats, bit LLRs ln P(b=1) - ln P(b=0) (GNU Radio's
   sign: positive means 1), each probability floored at 1e-300, symbol bits
   MSB first, then times llr_scale and clipped to +-llr_clip (0: no clip);
 - "hard": N int32 symbols, the most likely (ties to the lowest index);
 - "extrinsic": N items, each a vector of q floats: the natural log of each
   symbol's extrinsic probabilities (its posterior without its own prior,
   computed directly), each probability floored at 1e-300 before the log (no
   -inf or NaN), each row's log-sum-exp 0; without priors, the log posteriors.
   Hard decisions are taken on the posterior and have no extrinsic form: an
   output name such as "extrinsic_hard" is refused.
"posteriors", "llr" and "hard" are posteriors, the priors included.
 - "received" (framing "stream" only): each frame the stream receiver
   decodes in sync, as received (its items from its decoded start to its
   decoded end), with a length tag and its bsid_drift tag, for a decoder of
   tagged frames (reads > 1 from several receivers); an erasure puts out
   nothing, and a "bsid_frames_lost" tag on the next frame counts it.

Erasures: a frame the decoder refuses (empty, not bits, end drift outside the
limits, probability 0, a decoder failure), a frame cut short (by the next
length tag, the end of the stream, or a "bsid_truncated" tag from the
channel), a length tag that is not a non-negative integer, and each frame
that an upstream "bsid_frames_lost" tag reports, still produces a full output
frame: uniform posteriors, zero LLRs, symbols -1 or rows of ln(1/q)
(extrinsic), with a "bsid_erasure" tag
(a PMT symbol: the status name, bsid.frame_status_names) on its first item.
erasures() counts them. Bits outside any tagged frame are discarded and
counted (bits_discarded()).

Tags: the len_tag_key tags are rewritten to the output frame length and the
"bsid_frames_lost" tags are consumed. Any other tag on the first bit of a
received frame is passed, unchanged, to the first item of that frame's
output; tags elsewhere are dropped.

The channel: with follow_channel_tags (the default), a "bsid_channel" tag
(Pi, Pd, Ps, which bsid.channel puts on its first frame and whenever its
settings change) makes the decoder decode that frame and the following ones
with that channel, so that each frame is decoded with the channel it was sent
through, whatever the delay between the blocks. Once such a tag has arrived,
the tags set the channel and set_channel changes nothing more. Without those
tags (or with follow_channel_tags False, for a mismatched decoder),
set_channel applies to frames that begin after the call; frames already
received keep the channel they began with. It is safe to call while the
flowgraph runs. The backend and the drift limits are logged at start and at
each change.

With a sync_word W of G bits, every received frame begins with W (the
encoder's sync_word) and is decoded with W weighed through the channel; the
drift limits then bound the drift at codeword boundaries after W.

Stream framing (framing="stream"; docs/receiving.md): the input is a plain
bitstream, with no length tags, decoded frame after frame; each frame's start
prior is the previous frame's forward end metric, so drift is followed
indefinitely. Every frame length of received bits gives one output frame:
decoded, or an erasure ("sync_lost" while unsynchronized, "truncated" for the
frame the stream ends inside, "invalid_input"). A start_tag_key tag (from
digital.correlate_access_code_tag_bb with the sync word as access code and
this key as tag name) acquires; with search, the decoder also finds frames by
itself after losing sync. Each decoded output frame carries a "bsid_drift" tag,
a dict {"start": start drift, "end": end drift, "end_probability": P(the MAP
end)}, drift being the MAP position less the nominal one (the last start tag
or acquisition plus whole frame lengths).

Soft input (input="llr"; docs/receiving.md, "Soft input"): the input items are
floats, one LLR ln p(r|1) - ln p(r|0) per received item (positive means 1;
+-inf are hard bits), in either framing. A NaN makes its frame an
"invalid_input" erasure. Connecting a byte stream to a decoder made for LLRs,
or the reverse, is refused when the flowgraph is connected.

Priors (priors_input=True; docs/receiving.md, "Priors and the extrinsic
output"): a second input port of vectors of q floats, N per frame, the natural
log of each message symbol's prior probabilities (any constant per row, -inf
for an impossible symbol). The k-th received frame (decoded, or an erasure of
any kind, lost frames included) takes the k-th frame of priors, so the two
streams never slip. Without len_tag_key tags on the priors port, its frames
are N items each, counted; from the first such tag on, a tag starts each frame
of priors: a value other than N, a frame of priors cut short (by the next tag
or the end of the priors), or a row with a NaN, a +inf or only -inf makes that
frame an "invalid_input" erasure; items after a frame's last and before the
next tag are discarded (priors_discarded()). Frames whose priors never come
are "invalid_input" erasures. Tagged framing only: make() refuses
priors_input with framing="stream" (stream frames are found at run time, so
priors cannot be aligned to them).

Several reads (reads=M > 1; docs/reads.md, "In a flowgraph"): M inputs of
tagged frames, the k-th frame of each input a read of the same frame, decoded
together (read_method "joint": exact, up to 3 reads; "combine": any number).
A missing read (lost, cut short, the input ended) or one the decoder cannot
use is left out and the frame decoded from the others; every output frame
carries a "bsid_reads" tag, a dict: used, reads (each input's status) and,
with "combine", rounds. Each input follows its own "bsid_channel" tags.
Tagged framing only, without a sync word, priors_input or estimate_every.

Constructor Specific Documentation:

Args:
    codebook : the inner code (bsid.codebook)
    N : message symbols per frame
    Pi : insertion probability of the channel the decoder assumes
    Pd : deletion probability of the channel the decoder assumes
    Ps : substitution probability of the channel the decoder assumes
    output : "posteriors", "llr", "hard" or "extrinsic" (default "posteriors")
    backend : "cpu", "cuda" or "auto" (default "auto")
    precision : "float" or "double" (default "float")
    storage : "global", "local" or "auto" (default "auto")
    Pr : drift exclusion probability of the limits (default 1e-10)
    max_batch : most frames decoded together (default 64)
    llr_scale : LLR multiplier ("llr" output; default 1.0)
    llr_clip : LLR magnitude limit, 0 for none ("llr" output; default 0.0)
    len_tag_key : the tagged-stream length key (default "packet_len")
    follow_channel_tags : decode with the channel of upstream "bsid_channel" tags (from bsid.channel) (default True)
    sync_word : the word that begins every frame ("0110..."; "" for none), as the encoder sends it (default "")
    framing : "tagged" (frames by len_tag_key tags) or "stream" (a plain bitstream decoded frame after frame; docs/receiving.md) (default "tagged")
    lookahead : stream framing: the next frame's symbols weighed after a frame's end; -1: 0 with a sync word, 2 without (default -1)
    start_tag_key : stream framing: the key of start tags, e.g. the tag name given to digital.correlate_access_code_tag_bb (default "bsid_start")
    acquire_window : stream framing: half width in bits of the start prior around a start tag or a found sync word (default 4)
    tag_after_sync_word : stream framing: a start tag is on the bit after the sync word (True) or on the frame's first bit (False) (default True)
    sync_threshold : stream framing: the least log-likelihood ratio against random bits of a frame in sync; below it, sync_lost (default 0.0)
    search : stream framing: look for frames without start tags after losing sync (default True)
    synchronized_at_start : stream framing: the first frame begins at the first input bit (default True)
    input : "bits" (byte items, 0 or 1) or "llr" (float items, soft decisions; docs/receiving.md) (default "bits")
    estimate_every : re-estimate the channel from the last this many decoded frames after every this many, on a thread of its own, apply it to the frames that begin after it, and post it on the message port "channel_estimate" (docs/receiving.md, "Channel estimation"; either framing: with stream framing, from the frames decoded in sync cut at their most probable start and end); 0: never (default 0)
    priors_input : a second input port of vectors of q floats, N per frame: the natural log of each message symbol's prior probabilities (any constant per row, -inf for an impossible symbol), the k-th frame of priors for the k-th received frame (tagged framing only; docs/receiving.md, "Priors and the extrinsic output") (default False)
    max_delay_ms : the longest a received frame waits for others to fill its batch, in milliseconds; finite and >= 0 (0: a batch goes as soon as the decoder is free); tagged framing (default 10.0)
    devices : the GPUs one decoder uses: "all", or indices like "0,1"; "": device 0 alone (or BSID_CUDA_DEVICE). With several, each batch is split among them by received bits and the output is the same bit for bit (docs/design.md section 5); a device that does not exist: RuntimeError with backend "cuda", the CPU with "auto"; a repeated or negative index: ValueError (default "")
    reads : M inputs of tagged frames, the k-th frame of each a read of the same frame (DNA reads, diversity receivers; docs/reads.md): each frame is decoded from the reads it has, a missing or refused read left out and named in the frame's bsid_reads tag; tagged framing, no priors input, sync word or channel estimation; 1: one input (default 1)
    read_method : with reads > 1: "joint" (exact, at most 3 reads) or "combine" (any number; docs/reads.md) (default "joint"))doc";


static const char* __doc_gr_bsid_map_decoder_map_decoder_0 = R"doc()doc";


static const char* __doc_gr_bsid_map_decoder_map_decoder_1 = R"doc()doc";


static const char* __doc_gr_bsid_map_decoder_make =
    R"doc(Make a MAP synchronization decoder: received frames of bits (a len_tag_key
tag on the first bit of each, value rho) in; per frame, with a len_tag_key
tag on its first item, N posterior vectors of q floats ("posteriors"),
N ceil(log2 q) bit LLRs ("llr"), N int32 symbols ("hard") or N vectors of q
extrinsic log-probabilities ("extrinsic") out; with priors_input, a second
input of N log-prior vectors of q floats per frame. Refused and
lost frames come out as erasures tagged "bsid_erasure".

Args:
    codebook : the inner code (bsid.codebook)
    N : message symbols per frame
    Pi : insertion probability of the channel the decoder assumes
    Pd : deletion probability of the channel the decoder assumes
    Ps : substitution probability of the channel the decoder assumes)doc";


static const char* __doc_gr_bsid_map_decoder_set_channel =
    R"doc(Set the channel the decoder assumes.

Safe to call while the flowgraph runs; it applies to frames that begin after
the call. Once a "bsid_channel" tag has arrived (with follow_channel_tags),
the tags set the channel and this call changes nothing. Invalid values throw
std::invalid_argument (ValueError in Python) and leave the decoder as it was.

Args:
    Pi : insertion probability
    Pd : deletion probability
    Ps : substitution probability)doc";


static const char* __doc_gr_bsid_map_decoder_frames =
    R"doc(Output frames produced, erasures included.)doc";


static const char* __doc_gr_bsid_map_decoder_erasures =
    R"doc(Output frames that are erasures (each tagged "bsid_erasure").)doc";


static const char* __doc_gr_bsid_map_decoder_bits_discarded =
    R"doc(Input bits that belonged to no tagged frame.)doc";


static const char* __doc_gr_bsid_map_decoder_backend =
    R"doc(The backend in use ("cpu" or "cuda").)doc";


static const char* __doc_gr_bsid_map_decoder_estimates =
    R"doc(Channel estimates finished (estimate_every), applied or not.)doc";


static const char* __doc_gr_bsid_map_decoder_priors_discarded =
    R"doc(Items of the priors input that belonged to no frame of priors (priors_input).)doc";


static const char* __doc_gr_bsid_map_decoder_batches =
    R"doc(Batches the decoder has decoded so far (tagged framing; 0 with stream framing).)doc";


static const char* __doc_gr_bsid_map_decoder_mean_batch =
    R"doc(The mean size of those batches in frames, at most max_batch (0 before the first).)doc";


static const char* __doc_gr_bsid_map_decoder_warnings =
    R"doc(What the decoder warns of, latest last, each also logged once: frames whose lengths say N does not fit them, frames far worse than the channel predicts (stream framing, bits), a setup whose alignments cannot be told apart (docs/receiving.md, "A setup that does not fit the frames").)doc";


static const char* __doc_gr_bsid_map_decoder_warning_count =
    R"doc(How many warnings were given.)doc";
