/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_CHANNEL_H
#define INCLUDED_BSID_CORE_CHANNEL_H

#include <gnuradio/bsid/core/channel/channel_params.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bsid {

/*!
 * \brief The channel emulator over unpacked letters (one per byte, in
 * [0, A) for the parameters' alphabet A; bits for A = 2).
 *
 * Each input letter sees k >= 0 insertions of uniformly random letters
 * (probability Pi^k (1 - Pi)), then is deleted (Pd / (1 - Pi)) or
 * transmitted, and a transmitted letter is substituted with its substitution
 * probability (Ps, or 1 - S[x][x] with a matrix), by one of the other letters
 * (uniformly, or as the matrix's row says). The insertions of a letter come
 * before it in the output.
 *
 * Rather than drawing per letter, the emulator samples the distance to the
 * next letter where anything may happen: with uniform substitutions a letter
 * is untouched with probability Pt (1 - Ps), so the run of untouched letters
 * is geometric and is copied as a block. The event at the end of the run is
 * then drawn conditioned on being one (an insertion run, a plain deletion, or
 * a substitution). With a matrix the run is drawn for the largest
 * substitution probability of any letter, and the event at its end is a
 * substitution only with the letter's own share (thinning), else the letter
 * passes untouched. A random letter takes log2 A bits of a random word when A
 * is a power of two (bits: one bit, as the binary channel always drew them),
 * and otherwise a word drawn without bias modulo A.
 *
 * All randomness of frame k under seed s comes from the Philox4x32-10 stream
 * (s, k) (philox.h), so a frame's output depends only on (params, bits, s, k),
 * never on threads or on how the input is split across process() calls.
 */
class channel_emulator
{
public:
    //! frame must be below 2^63 (higher stream ids are reserved).
    channel_emulator(const channel_params& params, uint64_t seed, uint64_t frame = 0);

    /*!
     * \brief Passes n input letters through the channel, appending the
     * received letters to rx. If drift is not null, drift[t] receives the
     * drift (received minus transmitted so far) before the events of input
     * letter t. Throws std::invalid_argument if an input byte is not a letter
     * of the alphabet (for bits: 0 or 1).
     */
    void process(const uint8_t* bits,
                 size_t n,
                 std::vector<uint8_t>& rx,
                 int32_t* drift = nullptr);

    //! Changes the parameters for the bits still to come.
    void set_params(const channel_params& params);
    const channel_params& params() const { return d_params; }

    //! Received minus transmitted bits so far.
    long long drift() const { return d_drift; }
    uint64_t bits_in() const { return d_bits_in; }
    uint64_t insertions() const { return d_insertions; }
    uint64_t deletions() const { return d_deletions; }
    uint64_t substitutions() const { return d_substitutions; }

private:
    void draw_skip();
    void event(uint8_t x, std::vector<uint8_t>& rx);
    uint8_t random_letter();
    uint32_t uniform_below(uint32_t m);
    bool substituted(uint8_t x);
    uint8_t substitute(uint8_t x);

    channel_params d_params;
    double d_pe;       // P(a bit is not passed untouched) = Pi + Pd + Pt Ps
    double d_log1m_pe; // log(1 - pe)
    double d_logPi;    // log(Pi)
    int d_letter_bits; // log2(alphabet) for a power of two, else 0
    philox_stream d_rng;
    long long d_skip = -1; // untouched bits before the next event; -1: not drawn
    uint32_t d_bitbuf = 0;
    int d_bits_left = 0;
    long long d_drift = 0;
    uint64_t d_bits_in = 0, d_insertions = 0, d_deletions = 0, d_substitutions = 0;
};

//! Output of transmit(): the received bits and the drift path.
struct transmission {
    std::vector<uint8_t> rx; //!< rho received bits
    std::vector<int32_t>
        drift; //!< tau + 1 values: drift before each input bit, then rho - tau
};

/*!
 * \brief Sends one frame of tau bits through the channel: frame `frame` of
 * seed `seed`. Reproducible on any thread and any device.
 */
transmission transmit(const channel_params& params,
                      const uint8_t* bits,
                      size_t tau,
                      uint64_t seed,
                      uint64_t frame = 0);

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_CHANNEL_H */
