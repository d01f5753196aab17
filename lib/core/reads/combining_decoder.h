/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The combining decoder of several reads (docs/reads.md, "The combiner"):
// one forward-backward per read on the single decoder, each taking the other
// reads' extrinsic outputs as its priors, in rounds; its cost grows
// linearly in the number of reads.

#ifndef INCLUDED_BSID_CORE_COMBINING_DECODER_H
#define INCLUDED_BSID_CORE_COMBINING_DECODER_H

#include <gnuradio/bsid/core/reads/reads_decoder.h>
#include <vector>

namespace bsid {
namespace reads {

//! A read as the single decoder takes a frame (no priors, default boundaries).
inline frame_view read_view(const frame_read& rd)
{
    frame_view v;
    v.bits = rd.bits;
    v.llr = rd.llr;
    v.logprob = rd.logprob;
    v.rho = rd.L;
    return v;
}

/*!
 * One frame for the combiner: 2 or more reads that passed the single
 * decoder's checks, the channel of each (an index into the decoders the
 * combiner is given), the caller's priors as given (N x q, or their logs;
 * null: uniform) and whether the output is extrinsic.
 */
struct combine_frame {
    std::vector<frame_read> reads;
    std::vector<int> channel;
    const double* priors = nullptr;
    bool log_priors = false;
    bool extrinsic = false;
};

/*!
 * What the combiner made of a frame: its status, each read's (a read of
 * probability 0 on its own is left out: impossible), the rounds run and
 * whether the last one met the tolerance. When one read is left it is
 * decoded alone (`single` set: the caller decodes it, exactly as the
 * single decoder does), the output untouched.
 */
struct combine_outcome {
    frame_result result;
    std::vector<frame_result> reads;
    int rounds = 0;
    bool converged = false;
    int single = -1; //!< the one read left, or -1
};

/*!
 * The combiner's buffers, kept between batches (a batch's are tens of MB:
 * allocating them again for every batch would cost a good part of it).
 */
struct combine_workspace {
    size_t NQ = 0, reads = 0;
    std::vector<double> ext;       //!< frame k's read r output at (k reads + r) NQ
    std::vector<double> prior0;    //!< frame k's priors, normalized, at k NQ
    std::vector<double> prev;      //!< frame k's posteriors of the round before
    std::vector<double> job_prior; //!< a round's priors, one row block per decode
    double* ext_of(size_t k, int r) { return ext.data() + (k * reads + size_t(r)) * NQ; }
    const double* ext_of(size_t k, int r) const
    {
        return ext.data() + (k * reads + size_t(r)) * NQ;
    }
};

/*!
 * Runs the combiner's rounds (combine_options) over every frame at once:
 * each round is one decode_batch of each channel's decoder over the frames'
 * reads still in play, in lockstep (Jacobi: every read of a round takes the
 * other reads' outputs of the round before); the host's share (the priors
 * of each read, the posteriors) on `threads` threads. Writes N q posteriors
 * (or extrinsic outputs) per frame; never throws for a frame.
 */
std::vector<combine_outcome> combine_batch(const std::vector<map_decoder*>& decoders,
                                           const combine_options& opts,
                                           const std::vector<combine_frame>& frames,
                                           const std::vector<double*>& post,
                                           int threads,
                                           combine_workspace& ws);

} // namespace reads
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_COMBINING_DECODER_H */
