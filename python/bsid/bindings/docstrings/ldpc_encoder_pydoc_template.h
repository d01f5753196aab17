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
  Docstrings of the Python bindings of gr::bsid::ldpc_encoder, written
  from the Doxygen comments of include/gnuradio/bsid/ldpc_encoder.h (see
  README.md here). The build copies this file to ldpc_encoder_pydoc.h in
  the build tree whether or not Doxygen is enabled. Keep it in step with the
  header.
 */


static const char* __doc_gr_bsid_ldpc_encoder =
    R"doc(LDPC outer encoder: information bits to the inner code's message symbols.

Input: unpacked information bits (one 0/1 per byte), K = k log2(q_o) per
frame, for the outer code's k information symbols over GF(q_o). Output:
int32 inner message symbols in [0, q_i), N per frame, for
bsid.codebook_encoder.

Each frame is encoded as the simulator's frame_source encodes it
(docs/concatenated.md): the K bits, log2(q_o) per symbol, most significant
bit first, give the k information symbols; the outer code's systematic
encoder places them at its information positions and adds the parity
symbols (n in all); bsid.symbol_mapping cuts the codeword's bits, each symbol
MSB first, into N = ceil(n log2 q_o / log2 q_i) inner symbols of log2(q_i)
bits, MSB first, the last one padded with zero bits (for q_i = q_o, symbol
for symbol: N = n). bsid.concatenated_decoder inverts it.

Frames hold K bits. On a tagged stream a frame starts at each len_tag_key tag
(whose value must be K); on an untagged stream frames are cut every K bits
from the start. Each output frame of N symbols starts with a len_tag_key tag
of value N. Every other input tag moves to the first symbol of its frame.

A byte that is not 0 or 1, a length tag whose value is not K or that falls
inside a frame, and a stream that ends inside a frame are errors: the block
logs the error, naming the stream position, writes the frames before it, and
ends its stream (the flowgraph then finishes); error() returns the message.

Constructor Specific Documentation:

Args:
    outer : the outer code (bsid.ldpc_code)
    inner_q : the inner codebook's q (a power of two unless it equals the outer code's q); one outside 2 .. 65536, or one that is neither, raises ValueError
    len_tag_key : the tagged-stream length key (default "packet_len"))doc";


static const char* __doc_gr_bsid_ldpc_encoder_ldpc_encoder_0 = R"doc()doc";


static const char* __doc_gr_bsid_ldpc_encoder_ldpc_encoder_1 = R"doc()doc";


static const char* __doc_gr_bsid_ldpc_encoder_make =
    R"doc(Make an LDPC outer encoder: K = k log2(q_o) information bits per frame
(unpacked, MSB of each information symbol first) to N inner message symbols
(int32 in [0, q_i)), each output frame with a len_tag_key tag of value N.

Args:
    outer : the outer code (bsid.ldpc_code, e.g. bsid.ldpc_code.from_spec("ldpc-regular:240:48:16:3:1"))
    inner_q : the inner codebook's q (a power of two unless it equals the outer code's q; otherwise ValueError)
    len_tag_key : the tagged-stream length key (default "packet_len"))doc";


static const char* __doc_gr_bsid_ldpc_encoder_bits_per_frame =
    R"doc(Information bits per frame (K = k log2 q_o).)doc";


static const char* __doc_gr_bsid_ldpc_encoder_symbols_per_frame =
    R"doc(Inner symbols per frame (N).)doc";


static const char* __doc_gr_bsid_ldpc_encoder_frames = R"doc(Frames encoded so far.)doc";


static const char* __doc_gr_bsid_ldpc_encoder_error =
    R"doc(Why the block stopped on bad input ("" while all is well).)doc";
