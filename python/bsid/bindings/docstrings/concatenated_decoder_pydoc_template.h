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
  Docstrings of the Python bindings of gr::bsid::concatenated_decoder, written
  from the Doxygen comments of include/gnuradio/bsid/concatenated_decoder.h
  (see README.md here). The build copies this file to
  concatenated_decoder_pydoc.h in the build tree whether or not Doxygen is
  enabled. Keep it in step with the header.
 */


static const char* __doc_gr_bsid_concatenated_decoder =
    R"doc(Iterative decoder of the concatenated scheme: received frames of bits in,
the outer code's decoded information bits out.

The inner MAP decoder (as bsid.map_decoder) and belief propagation over the
LDPC outer code, passing extrinsic information both ways for up to iterations
passes of up to bp_iterations BP iterations each; a frame stops as soon as its
decisions satisfy every check (docs/concatenated.md). Frames are decoded in
batches of up to max_batch (one decode_batch per pass). The frames are those
of bsid.ldpc_encoder then bsid.codebook_encoder: N =
symbol_mapping(q_o, n, q).n_inner inner symbols per frame, from the outer
code and the codebook.

Input: unpacked bits (or, input "llr", float LLRs, as for bsid.map_decoder),
a len_tag_key tag on the first bit of each received frame (tagged framing),
or a plain bitstream (stream framing).

Output per frame: K = k log2(q_o) unpacked information bits (bytes 0/1), the
decisions at the outer code's information positions, each symbol MSB first
(bsid.ldpc_encoder's input order), with on its first item: a len_tag_key tag
(K), "bsid_frame_ok" (PMT bool: the decisions satisfy every check) and
"bsid_iterations" (PMT long: the passes run, 0 for an erasure). A frame that
does not decode within the passes still gives its last decisions, with
bsid_frame_ok false.

Erasures: as for bsid.map_decoder, a frame the inner decoder refuses (empty,
not bits, end drift outside the limits, probability 0, a decoder failure or
an exception from the core for that frame), a frame cut short (by the next
length tag, the end of the stream, or a "bsid_truncated" tag), a length tag
that is not a non-negative integer, each frame an upstream
"bsid_frames_lost" tag reports and, with stream framing, each frame out of
sync still gives a full output frame: K zero bits with bsid_frame_ok false
and a "bsid_erasure" tag (a PMT symbol: the status name). Frames in equal
frames out. Bits outside any tagged frame are discarded and counted
(bits_discarded()). Other tags on a frame's first bit are put on its first
output item.

The channel: with follow_channel_tags, "bsid_channel" tags (from
bsid.channel) set the channel of the frame they are on and those after;
otherwise set_channel applies to frames that begin after the call.

With a sync_word, every frame begins with it, weighed through the channel.

Stream framing (framing "stream"; docs/receiving.md): the inner stream
decoder finds the frames of a plain bitstream, with the stream parameters of
bsid.map_decoder; each frame it decodes in sync is cut at its most probable
start and end and decoded through the iterative loop as a tagged frame (its
sync word first), and carries a "bsid_drift" tag as bsid.map_decoder's; a
frame out of sync is an erasure ("sync_lost"; "truncated" for the frame the
stream ends inside). The start of each frame follows the inner decoder alone
(the outer code does not feed back into synchronization). Input tags other
than start tags and "bsid_channel" are not passed on; the frames found are
decoded in batches of up to max_batch, as tagged frames are.

Bad parameters raise ValueError naming the parameter; backend "cuda" without
a CUDA backend raises RuntimeError.

Constructor Specific Documentation:

Args:
    codebook : the inner code (bsid.codebook), the same as the codebook encoder's
    outer : the outer code (bsid.ldpc_code), the same as the LDPC encoder's; with the codebook's q it fixes N and K
    Pi : insertion probability of the channel the decoder assumes
    Pd : deletion probability of the channel the decoder assumes
    Ps : substitution probability of the channel the decoder assumes
    iterations : passes of the iterative decoder, at least 1 (default 10)
    bp_iterations : belief-propagation iterations per pass, at least 1 (default 50)
    backend : "cpu", "cuda" or "auto" (default "auto")
    precision : "float" or "double", of the inner decoder (default "float")
    storage : "global", "local" or "auto" (default "auto")
    Pr : drift exclusion probability of the limits, in (0, 1) (default 1e-10)
    max_batch : most frames decoded together, at least 1 (default 64)
    len_tag_key : the tagged-stream length key (default "packet_len")
    follow_channel_tags : decode with the channel of upstream "bsid_channel" tags (from bsid.channel) (default True)
    sync_word : the word that begins every frame ("0110..."; "" for none), as the codebook encoder sends it (default "")
    framing : "tagged" (frames by len_tag_key tags) or "stream" (a plain bitstream; docs/receiving.md) (default "tagged")
    input : "bits" (byte items, 0 or 1) or "llr" (float items, soft decisions) (default "bits")
    lookahead : stream framing: the next frame's symbols weighed after a frame's end, 0 to N; -1: 0 with a sync word, 2 without (default -1)
    start_tag_key : stream framing: the key of start tags (default "bsid_start")
    acquire_window : stream framing: half width in bits of the start prior around a start tag or a found sync word (default 4)
    tag_after_sync_word : stream framing: a start tag is on the bit after the sync word (True) or on the frame's first bit (False) (default True)
    sync_threshold : stream framing: the least log-likelihood ratio against random bits of a frame in sync; below it, sync_lost (default 0.0)
    search : stream framing: look for frames without start tags after losing sync (default True)
    synchronized_at_start : stream framing: the first frame begins at the first input bit (default True))doc";


static const char* __doc_gr_bsid_concatenated_decoder_concatenated_decoder_0 =
    R"doc()doc";


static const char* __doc_gr_bsid_concatenated_decoder_concatenated_decoder_1 =
    R"doc()doc";


static const char* __doc_gr_bsid_concatenated_decoder_make =
    R"doc(Make an iterative decoder of the concatenated scheme: received frames of the
codebook's bits (len_tag_key tags, or a plain bitstream with framing
"stream") in, K = k log2(q_o) decoded information bits per frame out, each
frame tagged with len_tag_key, bsid_frame_ok and bsid_iterations (and
bsid_erasure for an erasure). Frames in equal frames out. Bad parameters
raise ValueError naming the parameter; backend "cuda" without a CUDA backend
raises RuntimeError.

Args:
    codebook : the inner code (bsid.codebook), the same as the codebook encoder's
    outer : the outer code (bsid.ldpc_code), the same as the LDPC encoder's; with the codebook's q it fixes N and K
    Pi : insertion probability of the channel the decoder assumes
    Pd : deletion probability of the channel the decoder assumes
    Ps : substitution probability of the channel the decoder assumes
    iterations : passes of the iterative decoder, at least 1 (default 10)
    bp_iterations : belief-propagation iterations per pass, at least 1 (default 50))doc";


static const char* __doc_gr_bsid_concatenated_decoder_set_channel =
    R"doc(Set the channel the decoder assumes.

Safe to call while the flowgraph runs; it applies to frames that begin after
the call. Once a "bsid_channel" tag has arrived (with follow_channel_tags),
the tags set the channel and this call changes nothing. Invalid values throw
std::invalid_argument (ValueError in Python) and leave the decoder as it was.

Args:
    Pi : insertion probability
    Pd : deletion probability
    Ps : substitution probability)doc";


static const char* __doc_gr_bsid_concatenated_decoder_frames =
    R"doc(Output frames produced, erasures included.)doc";


static const char* __doc_gr_bsid_concatenated_decoder_erasures =
    R"doc(Output frames that are erasures (each tagged "bsid_erasure").)doc";


static const char* __doc_gr_bsid_concatenated_decoder_frames_ok =
    R"doc(Output frames that decoded to a codeword (bsid_frame_ok true).)doc";


static const char* __doc_gr_bsid_concatenated_decoder_bits_discarded =
    R"doc(Input bits that belonged to no tagged frame.)doc";


static const char* __doc_gr_bsid_concatenated_decoder_bits_per_frame =
    R"doc(Information bits per output frame (K = k log2 q_o).)doc";


static const char* __doc_gr_bsid_concatenated_decoder_symbols_per_frame =
    R"doc(Inner symbols per frame (N), as the codebook encoder sends them.)doc";


static const char* __doc_gr_bsid_concatenated_decoder_backend =
    R"doc(The backend in use ("cpu" or "cuda").)doc";
