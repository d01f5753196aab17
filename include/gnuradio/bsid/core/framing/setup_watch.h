/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_SETUP_WATCH_H
#define INCLUDED_BSID_CORE_SETUP_WATCH_H

#include <gnuradio/bsid/core/channel/channel_params.h>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace bsid {

/*!
 * \brief Watches the frames a decoder decodes for a setup that does not fit
 * them, and keeps the warnings a receiver gives (docs/receiving.md, "A setup
 * that does not fit the frames").
 *
 * A decoder one symbol short or long of the frames (N = 99 against 100)
 * still decodes them: each frame ends about a codeword off, read as n
 * insertions or deletions. Nothing in one frame says so; over many frames the
 * lengths do. Two checks, each warned of once:
 *
 * - Length: the mean z of the last frames' length drifts (a frame's
 *   received length less the F = G + N n bits sent, or the distance from one
 *   frame's start to the next's less F), less what the channel predicts,
 *   F (Pi - Pd) / (1 - Pi), lies a whole number j != 0 of codewords off: z is
 *   at least n / 2 and length_sigmas standard errors from 0, and its 1
 *   standard error interval lies within n / 4 of j n. Over at least
 *   length_frames_min frames, at most length_frames_max (the standard error
 *   shrinks with them: S500's drift of 9 bits a frame needs about 100; a
 *   drift more than 4 robust standard deviations from the median, a frame
 *   found far off after a burst, is left out). A
 *   sample clock offset moves frames too, by its offset times F bits a frame:
 *   at the offsets of docs/clock_slip.md (up to 5e-3, 4.1 bits a frame for
 *   F = 816) the interval stays outside.
 * - Likelihood: the mean log-likelihood ratio of the last likelihood_frames
 *   frames lies more than likelihood_sigmas of the channel's predicted
 *   standard deviation below its predicted mean (stream_decoder, bits).
 *
 * Thread-safe: frames may be added from several threads.
 */
class setup_watch
{
public:
    /*!
     * F = G + N n the transmitted bits of a frame, n the bits of a codeword,
     * N the symbols, ch the decoder's channel; who names the decoder in the
     * messages ("stream_decoder", "map_decoder").
     */
    setup_watch(std::string who, long long F, int N, int n, const channel_params& ch);
    //! A copy has the same windows and warnings (stream_batch copies its
    //! first stream decoder).
    setup_watch(const setup_watch& other);
    setup_watch& operator=(const setup_watch& other);

    /*!
     * One decoded frame's length drift (bits; a stream's drift per frame
     * between two frames in sync a few frames apart). Returns whether this
     * frame raised a warning.
     */
    bool add_length_drift(double drift);
    /*!
     * The same for a frame sent through another channel than the watch's
     * (a bsid_channel tag's): its drift is taken relative to that channel's
     * prediction.
     */
    bool add_length_drift(double drift, const channel_params& ch);
    /*!
     * A decoded frame of known boundaries, `received` items long (its drift
     * is received - F); ch: the channel it went through, if not the watch's.
     */
    bool add_received_length(size_t received);
    bool add_received_length(size_t received, const channel_params& ch);
    //! The drift of a frame of F bits the channel predicts: F (Pi - Pd) / (1 - Pi).
    static double predicted_drift(long long F, const channel_params& ch);
    /*!
     * One decoded frame's log-likelihood ratio against random bits, and what
     * the channel predicts for it (mean and standard deviation).
     */
    bool add_likelihood(double llr, double predicted_mean, double predicted_sd);
    //! The decoder's channel changed: the windows start over (a warning
    //! already given is not given again).
    void set_channel(const channel_params& ch);
    //! A warning of the caller's own (logged, and listed).
    void warn(const std::string& what);

    //! The warnings given, latest last.
    std::vector<std::string> warnings() const;
    //! How many warnings were given.
    size_t count() const;

    static constexpr size_t length_frames_min = 32, length_frames_max = 256;
    static constexpr double length_sigmas = 5.0;
    static constexpr size_t likelihood_frames = 16;
    static constexpr double likelihood_sigmas = 2.0;

private:
    void warn_locked(const std::string& what);
    std::string d_who;
    long long d_F = 0;
    int d_N = 0, d_n = 1;
    double d_mean = 0, d_sd = 0; // the channel's length drift of a frame
    mutable std::mutex d_mutex;
    std::deque<double> d_drifts;
    std::deque<double> d_llrs;
    bool d_length_said = false, d_likelihood_said = false;
    std::vector<std::string> d_warnings;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_SETUP_WATCH_H */
