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
  Docstrings of the Python bindings of gr::bsid::channel, written from the
  Doxygen comments of include/gnuradio/bsid/channel.h (see README.md here).
  The build copies this file to channel_pydoc.h in the build tree whether or
  not Doxygen is enabled. Keep it in step with the header.
 */


static const char* __doc_gr_bsid_channel =
    R"doc(BSID channel emulator: random insertions, deletions and substitutions on a
stream of unpacked bits.

Each input bit sees k >= 0 insertions of random bits (probability
Pi^k (1 - Pi)), then is deleted (Pd / (1 - Pi)) or passed, and a passed bit
is flipped with probability Ps. Variable rate.

Tagged frames (a len_tag_key tag on the first bit of each frame): frame k of
the run goes through the same random stream as
bsid.transmit(channel_params(Pi, Pd, Ps), bits, seed, frame=k), so the
block's output equals the core function's. A frame's insertions come before
its bits, and frames never mix. The block rewrites each length tag to the
received length rho, and moves every other tag to the output position of the
bit it was on (the next received bit if that one was deleted). With
drift_tags, a "bsid_drift" tag (long, rho - tau) marks the first item of each
output frame. A frame whose bits are all deleted cannot carry a tag: it is
counted, and a "bsid_frames_lost" tag (long: frames lost just before this
one) marks the first item of the next frame (a loss at the very end of the
stream has no item left: it is counted and logged). A "bsid_channel" tag
(f64vector: Pi, Pd, Ps) marks the first frame and each frame whose settings
differ from the previous tag's, so that bsid.map_decoder can decode every
frame with the channel it went through.

A frame that receives fewer bits than its length tag says (the next length
tag comes early, or the stream ends: an encoder input that is not a multiple
of N) is put out with what it received, logged, and tagged "bsid_truncated"
(uint64: the input bits that never came); the decoder makes it a "truncated"
erasure. A length tag that is not a non-negative integer is passed on
unchanged, and the bits after it go through as an untagged stream.

An untagged stream is one endless frame 0. Input bytes other than 0 and 1 are
an error: the block logs it, emits what it produced before, and ends its
stream; error() returns the message.

set_Pi, set_Pd, set_Ps and set_channel take effect at the next frame
(immediately on an untagged stream) and are safe to call while the flowgraph
runs. Invalid values throw std::invalid_argument (ValueError in Python) and
leave the channel unchanged.

Constructor Specific Documentation:

Args:
    Pi : insertion probability (Pi >= 0)
    Pd : deletion probability (Pd >= 0, Pi + Pd < 1)
    Ps : substitution probability (0 <= Ps <= 1)
    seed : the run's seed
    len_tag_key : the tagged-stream length key (default "packet_len")
    drift_tags : add a "bsid_drift" tag to each output frame (default False))doc";


static const char* __doc_gr_bsid_channel_channel_0 = R"doc()doc";


static const char* __doc_gr_bsid_channel_channel_1 = R"doc()doc";


static const char* __doc_gr_bsid_channel_make =
    R"doc(Make a BSID channel emulator: random insertions, deletions and substitutions
on a stream of unpacked bits, frame by frame on a tagged stream.

Frame k of the run goes through the same random stream as
bsid.transmit(channel_params(Pi, Pd, Ps), bits, seed, frame=k). Each length
tag is rewritten to the received length rho; other tags move with their bits.
Invalid probabilities throw std::invalid_argument (ValueError in Python).

Args:
    Pi : insertion probability (Pi >= 0)
    Pd : deletion probability (Pd >= 0, Pi + Pd < 1)
    Ps : substitution probability (0 <= Ps <= 1)
    seed : the run's seed
    len_tag_key : the tagged-stream length key (default "packet_len")
    drift_tags : add a "bsid_drift" tag (long, rho - tau) to the first item
        of each output frame (default False)
    alphabet : the letters, 2 (bits, the default) to 256 (DNA's four: A, C,
        G, T as 0..3); items are bytes in [0, alphabet), and bsid_channel
        tags then carry (Pi, Pd, Ps, A))doc";


static const char* __doc_gr_bsid_channel_set_Pi = R"doc(Set the insertion probability Pi.

Takes effect at the next frame (immediately on an untagged stream) and is safe
to call while the flowgraph runs. The new value is checked together with the
current Pd and Ps; an invalid value throws std::invalid_argument (ValueError
in Python) and leaves the channel unchanged.

Args:
    Pi : insertion probability)doc";


static const char* __doc_gr_bsid_channel_set_Pd = R"doc(Set the deletion probability Pd.

Takes effect at the next frame (immediately on an untagged stream) and is safe
to call while the flowgraph runs. The new value is checked together with the
current Pi and Ps; an invalid value throws std::invalid_argument (ValueError
in Python) and leaves the channel unchanged.

Args:
    Pd : deletion probability)doc";


static const char* __doc_gr_bsid_channel_set_Ps =
    R"doc(Set the substitution probability Ps.

Takes effect at the next frame (immediately on an untagged stream) and is safe
to call while the flowgraph runs. The new value is checked together with the
current Pi and Pd; an invalid value throws std::invalid_argument (ValueError
in Python) and leaves the channel unchanged.

Args:
    Ps : substitution probability)doc";


static const char* __doc_gr_bsid_channel_set_channel =
    R"doc(Set the insertion, deletion and substitution probabilities at once.

Takes effect at the next frame (immediately on an untagged stream) and is safe
to call while the flowgraph runs. Invalid values throw std::invalid_argument
(ValueError in Python) and leave the channel unchanged.

Args:
    Pi : insertion probability
    Pd : deletion probability
    Ps : substitution probability)doc";


static const char* __doc_gr_bsid_channel_Pi =
    R"doc(The current insertion probability Pi.)doc";


static const char* __doc_gr_bsid_channel_Pd =
    R"doc(The current deletion probability Pd.)doc";


static const char* __doc_gr_bsid_channel_Ps =
    R"doc(The current substitution probability Ps.)doc";


static const char* __doc_gr_bsid_channel_frames =
    R"doc(Frames passed so far, lost ones included.)doc";


static const char* __doc_gr_bsid_channel_frames_lost =
    R"doc(Frames lost entirely (all their bits deleted).

Each such run of lost frames is reported downstream by a "bsid_frames_lost"
tag on the first item of the next frame.)doc";


static const char* __doc_gr_bsid_channel_error =
    R"doc(Why the block stopped on bad input ("" while all is well).)doc";
