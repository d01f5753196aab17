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
  Docstrings of the Python bindings of gr::bsid::codebook_encoder, written
  from the Doxygen comments of include/gnuradio/bsid/codebook_encoder.h (see
  README.md here). The build copies this file to codebook_encoder_pydoc.h in
  the build tree whether or not Doxygen is enabled. Keep it in step with the
  header.
 */


static const char* __doc_gr_bsid_codebook_encoder =
    R"doc(Codebook encoder: q-ary message symbols to n-bit codewords.

Input: int32 message symbols in [0, q). Output: unpacked bits (one 0/1 per
byte), n per symbol, the most significant bit of each codeword first.
Symbol i of a frame uses book i mod P of the codebook.

Frames hold N symbols. On a tagged stream a frame starts at each len_tag_key
tag (whose value must be N); on an untagged stream frames are cut every N
symbols from the start. With a sync_word W of G bits, each frame's bits are W
then its codewords. Each output frame of G + tau bits (tau = n N) starts with
a len_tag_key tag of value G + tau. Other tags move to the first bit of their
symbol (the first bit of W for a frame's first symbol).

A frame goes out once all its N symbols have come. A frame with a symbol
outside [0, q) is dropped whole, as are a tagged frame whose length tag is not
N (its symbols, up to the next length tag) and a tagged frame cut short by the
next length tag: each is counted (frames_dropped()), logged (the first in
full, with the stream position; a summary when the flowgraph stops), and
error() names the last. The next frame sent carries a "bsid_frames_lost" tag
(long: the frames dropped just before it), so that bsid.map_decoder puts out
an erasure for each and the frame count stays right. A stream that ends
inside a frame leaves that frame unsent (logged).

Constructor Specific Documentation:

Args:
    codebook : the inner code (bsid.codebook)
    N : message symbols per frame
    len_tag_key : the tagged-stream length key (default "packet_len")
    sync_word : the word sent before every frame ("0110..."; over letters
        "ACGT..." for four, digits or comma-separated integers; "" for none))doc";


static const char* __doc_gr_bsid_codebook_encoder_codebook_encoder_0 = R"doc()doc";


static const char* __doc_gr_bsid_codebook_encoder_codebook_encoder_1 = R"doc()doc";


static const char* __doc_gr_bsid_codebook_encoder_make =
    R"doc(Make a codebook encoder: q-ary message symbols (int32 in [0, q)) to n-bit
codewords, as unpacked bits, most significant bit first.

Frames hold N symbols; each output frame of G + tau bits (the sync word W of
G bits, then tau = n N bits of codewords) starts with a len_tag_key tag of
value G + tau. On a tagged stream the input len_tag_key tags must have the
value N.

Args:
    codebook : the inner code (bsid.codebook)
    N : message symbols per frame
    len_tag_key : the tagged-stream length key (default "packet_len")
    sync_word : the word sent before every frame ("0110..."; over letters
        "ACGT..." for four, digits or comma-separated integers; "" for none))doc";


static const char* __doc_gr_bsid_codebook_encoder_frames = R"doc(Frames sent so far.)doc";


static const char* __doc_gr_bsid_codebook_encoder_frames_dropped =
    R"doc(Frames dropped for bad input (a symbol outside [0, q), a wrong length tag).)doc";


static const char* __doc_gr_bsid_codebook_encoder_error =
    R"doc(Why the last frame was dropped for bad input ("" while none was).)doc";
