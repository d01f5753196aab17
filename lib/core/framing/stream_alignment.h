/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Whether a frame the stream decoder found is at its true alignment
// (docs/design.md section 3, "Stream decoding: is the alignment right?";
// docs/receiving.md, "What each setup guarantees"). A frame read a whole
// number of code periods early or late still reads valid codewords, so a
// likelihood against random bits does not tell it apart; these tests compare
// alignments with each other on the same received bits.

#ifndef INCLUDED_BSID_CORE_STREAM_ALIGNMENT_H
#define INCLUDED_BSID_CORE_STREAM_ALIGNMENT_H

#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <memory>

namespace bsid {

/*!
 * The period p of a codebook's book sequence as the decoder sees it: the
 * least p >= 1 with book i and book i + p holding the same codewords (as a
 * multiset) for every i. With uniform symbol priors a frame's likelihood
 * depends only on those sets, so a frame shifted by p codewords reads
 * codewords as likely as the true ones wherever it overlaps its own frame.
 */
int book_period(const codebook& cb);

class alignment_judge;
/*!
 * The alignment_judge of a frame decoder, made once and shared by every
 * stream decoder that asks with the same decoder, threshold and input (a
 * stream_batch has hundreds of streams, and a judge holds four small
 * decoders and a threshold drawn from 20000 lattices).
 */
std::shared_ptr<const alignment_judge>
shared_alignment_judge(const std::shared_ptr<frame_decoder>& dec,
                       double sync_word_threshold,
                       input_kind input);

/*!
 * The checks of a frame's alignment for one frame decoder (code, N, sync
 * word W of G bits, channel):
 * - with W: the sync word must fit at the frame's most probable start, its
 *   likelihood ratio against random bits over W's own lattice (every end
 *   within W's drift limits) at least e^sync_word_threshold();
 * - without W, when the code's period p is shorter than the frame and does
 *   not divide N: the frame's first (last) J = min(p, 8) codewords must read
 *   as its own books by at least edge_margin nats better than as the books
 *   of the previous (next) frame's codewords that a shift by whole periods
 *   would put there, on the same received bits;
 * - without W and with p < N dividing N, shifts by whole periods cannot be
 *   told apart at all (shifts_indistinguishable()).
 * Thread-safe after construction (the edge decoders are shared).
 */
class alignment_judge
{
public:
    //! The margin, in nats, by which a frame's edges must favour its own books.
    static constexpr double edge_margin = 5.0;
    /*!
     * sync_word_threshold: ln of the least likelihood ratio W must have at a
     * frame's start; NaN: automatic (default_sync_word_threshold; for soft
     * items, whose noise only the demodulator knows, G ln 2 / 2 lower).
     */
    alignment_judge(const frame_decoder& dec,
                    double sync_word_threshold,
                    input_kind input);

    int period() const { return d_p; }
    //! No sync word, and p < N divides N: shifts by p codewords are invisible.
    bool shifts_indistinguishable() const
    {
        return d_G == 0 && d_p < d_N && d_N % d_p == 0;
    }
    //! No sync word, p < N, p not dividing N: the edges tell shifts apart.
    bool edges_checked() const { return d_front_alt != nullptr; }
    double sync_word_threshold() const { return d_sync_threshold; }

    /*!
     * ln of W's likelihood ratio against random bits with its first bit at
     * y[0]: ln sum_c P(y[0:c] | W) 2^c over c <= min(avail, G + the drift
     * limit); -inf for no bits. prob: y's item probabilities, if computed.
     */
    double sync_word_fit(const received_items& y,
                         size_t avail,
                         const double* prob = nullptr) const;

    /*!
     * The front edge test: with the frame's start prior `start` over
     * positions of y (avail items), ln LR of its first J codewords read as
     * books 0..J-1 less ln LR of the same bits read as the previous frame's
     * books N - p .. N - p + J - 1. NaN if not edges_checked(). own: the
     * first of the two (the J codewords against random bits), if wanted.
     */
    double front_margin(const received_items& y,
                        size_t avail,
                        const position_weights& start,
                        double* own = nullptr) const;
    /*!
     * The back edge test: the frame ends at y[e] (its most probable end);
     * ln LR of the J codewords before it read as the frame's last books less
     * read as the next frame's books p - J .. p - 1.
     */
    double back_margin(const received_items& y, long long e, double* own = nullptr) const;

    /*!
     * The automatic threshold: the 1e-4 quantile of ln LR of W itself sent
     * through the channel (20000 seeded draws), capped at G ln 2 / 2, so that
     * about 1 correct frame in 10^4 fails it (docs/receiving.md measures it).
     */
    static double default_sync_word_threshold(const decoder_config& cfg,
                                              const std::vector<uint8_t>& W);

private:
    double edge_llr(frame_decoder& d,
                    const received_items& y,
                    size_t L,
                    const position_weights& start) const;

    int d_N = 0, d_G = 0, d_n = 0, d_p = 1, d_J = 0;
    int d_sync_hi = 0;
    double d_sync_threshold = 0;
    std::vector<uint8_t> d_W;
    channel_params d_ch;
    int d_edge_hi = 0; // the drift limit over J codewords
    std::unique_ptr<frame_decoder> d_front_own, d_front_alt, d_back_own, d_back_alt;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_STREAM_ALIGNMENT_H */
