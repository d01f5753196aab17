/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_READS_DECODER_H
#define INCLUDED_BSID_CORE_READS_DECODER_H

#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace bsid {

/*!
 * How several reads of one frame are decoded (docs/reads.md): `joint`, the
 * exact forward-backward recursion over the M-tuple of the reads' drifts
 * (M <= max_joint_reads); `combine`, one forward-backward per read, each
 * taking the other reads' extrinsic information as its priors, iterated
 * (any M; its cost grows linearly in M; approximate).
 */
enum class read_method { joint, combine };

//! "joint" | "combine"; throws std::invalid_argument for anything else.
read_method parse_read_method(const std::string& s);
std::string to_string(read_method m);

//! The most reads the joint decoder takes together.
constexpr int max_joint_reads = 3;
/*!
 * The joint decoder's memory bound: the joint states of one boundary, the
 * product of the reads' M_tau (2^20), and the forward metrics it keeps,
 * (N + 1) times that in doubles (2 GiB). A cluster beyond either is an
 * error (std::invalid_argument) that names the bound.
 */
constexpr size_t max_joint_states = size_t(1) << 20;
constexpr size_t max_joint_bytes = size_t(2) << 30;

/*!
 * The combining decoder's stopping rule (docs/reads.md, "The combiner"):
 * rounds of one forward-backward per read, each read's priors the caller's
 * priors times the other reads' extrinsic outputs of the round before; the
 * decoder stops after the first round (from the second on) in which no
 * posterior changed by more than `tolerance`, or after `iterations` rounds.
 */
struct combine_options {
    int iterations = 8;      //!< rounds at most (>= 1)
    double tolerance = 1e-4; //!< the largest change of a posterior that stops it
};

/*!
 * A decoder of several reads: the single-read decoder's settings (`base`:
 * codebook, N, backend, precision, Pr or explicit limits, threads), one
 * channel per read position (`channels`; empty: every read through
 * base.ch), the method and the combiner's rule. Each read has the drift
 * limits the single-read decoder would give its channel (the same Pr rule,
 * or base.mtau and base.mn).
 */
struct reads_config {
    decoder_config base;
    std::vector<channel_params> channels;
    read_method method = read_method::joint;
    combine_options combine;

    explicit reads_config(decoder_config b) : base(std::move(b)) {}
};

/*!
 * One frame's reads (each a frame_read: bits, LLRs or log-probabilities
 * over the decoder's alphabet, starting with the frame's first letter and
 * ending with its last), its optional N x q priors (or natural logs of
 * them) and whether the output is extrinsic (frame_input::extrinsic).
 */
struct frame_reads {
    std::vector<frame_read> reads;
    const double* priors = nullptr;
    bool log_priors = false;
    bool extrinsic = false;
};

/*!
 * What became of a frame decoded from several reads: its status (ok, or why
 * it is an erasure: no read could be decoded, or the reads together have
 * probability 0), each read's own status (ok where it was used, otherwise
 * why it was left out: empty, invalid_input, drift_out_of_range, or
 * impossible alone), how many reads were used, and for the combiner the
 * rounds it ran and whether it met its tolerance.
 */
struct reads_result {
    frame_result result;
    std::vector<frame_result> reads;
    int used = 0;
    int rounds = 0;
    bool converged = true;
    bool ok() const { return result.ok(); }
    //! ok, but some read was left out (the frame was decoded from the others)
    bool partial() const { return ok() && used < int(reads.size()); }
};

/*!
 * \brief Decodes a frame from M received reads of it (docs/reads.md): the
 * reads are independent given the frame, P(y_1..y_M | x) = prod_r P(y_r | x).
 *
 * A read that cannot be decoded (empty, an invalid item, an end drift outside
 * its limits, probability 0 on its own) is left out with its status and the
 * frame is decoded from the others; one read left gives exactly the single
 * decoder's decode. Posteriors (or extrinsic outputs) are N x q rows summing
 * to 1; a refused frame gets uniform rows and a status, never an exception.
 * Invalid arguments (priors, buffer counts, more reads than channels, a
 * joint cluster beyond max_joint_reads or the memory bound) throw
 * std::invalid_argument before any frame is decoded. Thread-safe.
 */
class reads_decoder
{
public:
    //! Throws std::invalid_argument for bad parameters (as map_decoder::make).
    explicit reads_decoder(const reads_config& cfg);
    ~reads_decoder();

    reads_result decode(const frame_reads& frame, double* post);
    //! decode() on each frame, the frames decoded together (on the threads,
    //! and for the combiner in one batch of the single decoder per round).
    std::vector<reads_result> decode_batch(const std::vector<frame_reads>& frames,
                                           const std::vector<double*>& post);

    const reads_config& config() const { return d_cfg; }
    int N() const { return d_cfg.base.N; }
    int q() const { return d_cfg.base.cb.q(); }
    //! The channel of read r (r < channels, or any r without per-read channels).
    const channel_params& channel(size_t r) const;
    //! The drift limits of read r.
    const decoder_limits& limits(size_t r) const;
    //! The single-read decoder of read r's channel.
    map_decoder& single(size_t r);

private:
    struct impl;
    reads_config d_cfg;
    std::unique_ptr<impl> d;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_READS_DECODER_H */
