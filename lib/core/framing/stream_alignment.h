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
#include <mutex>
#include <optional>
#include <vector>

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
 * The edge tests' values of a frame (alignment_judge::edge_margins): front
 * and back, ln LR of its edge codewords read as its own books less read as
 * a neighbour's (NaN where the edges are not checked); front_own and
 * back_own, ln LR as its own books against random items.
 */
struct edge_values {
    double front, back, front_own, back_own;
};
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
    //! The least spread of a front read's start prior (padded with weight 0).
    static constexpr long long front_spread = 7;
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
     * The edge tests' decodes (front own, front alt, back own, back alt; the
     * alt ones where edges_checked()): decoded as a step of their own, with
     * other streams' (stream_decoder: next(), complete()), each by the judge's
     * decoder for its role.
     * - The front: with the frame's start prior `start` over positions of y
     *   (avail items; its likely positions, padded with weight 0 to a spread
     *   of 2^k - 1, at least front_spread), its first J codewords read as
     *   books 0..J-1 (own) and as the previous frame's books N - p .. N - p +
     *   J - 1 (alt).
     * - The back: the frame ends at y[e] (its most probable end); the J
     *   codewords before it read as the frame's last books (own) and as the
     *   next frame's books p - J .. p - 1 (alt).
     * An edge with nothing to read (no start position within the items, no
     * room for the J codewords) has no request.
     */
    enum edge_role { front_own = 0, front_alt = 1, back_own = 2, back_alt = 3 };
    struct edge_reads {
        std::vector<frame_request> requests;
        std::vector<edge_role> roles; // each request's
    };
    edge_reads edge_requests(const received_items& y,
                             size_t avail,
                             const position_weights& start,
                             long long e) const;
    /*!
     * The decoder of a role: on the CPU (one frame a thread), or, with
     * `on_backend`, on the frame decoder's own backend (made on first use:
     * many streams' edges in one batch on a GPU).
     */
    frame_decoder& edge_decoder(edge_role role, bool on_backend) const;
    /*!
     * The tests' values from the results `got` of the reads of `roles`
     * (edge_requests' roles): front and back, ln LR as own less ln LR as alt
     * (NaN if not edges_checked(); -inf where own reads -inf or was not read,
     * +inf where only alt does); front_own and back_own, ln LR as own against
     * random items (-inf where it was not read or cannot be decoded).
     */
    edge_values edge_margins(const std::vector<edge_role>& roles,
                             const std::vector<frame_decode_result>& got) const;

    /*!
     * The automatic threshold: the 1e-4 quantile of ln LR of W itself sent
     * through the channel (20000 seeded draws), capped at G ln 2 / 2, so that
     * about 1 correct frame in 10^4 fails it (docs/receiving.md measures it).
     */
    static double default_sync_word_threshold(const decoder_config& cfg,
                                              const std::vector<uint8_t>& W);

private:
    int d_N = 0, d_G = 0, d_n = 0, d_p = 1, d_J = 0;
    int d_sync_hi = 0;
    double d_sync_threshold = 0;
    std::vector<uint8_t> d_W;
    channel_params d_ch;
    int d_edge_hi = 0; // the drift limit over J codewords
    std::unique_ptr<frame_decoder> d_front_own, d_front_alt, d_back_own, d_back_alt;
    // the same on the frame decoder's backend, made on first use
    std::optional<decoder_config> d_main; // (its configuration)
    std::vector<codebook> d_books;        // each role's books
    mutable std::mutex d_backend_mutex;
    mutable std::unique_ptr<frame_decoder> d_on_backend[4];
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_STREAM_ALIGNMENT_H */
