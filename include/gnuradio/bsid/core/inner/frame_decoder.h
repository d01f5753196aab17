/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_FRAME_DECODER_H
#define INCLUDED_BSID_CORE_FRAME_DECODER_H

#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace bsid {

/*!
 * How a frame's end is known (docs/design.md section 3, "Frame boundaries"):
 * `known`, the frame's last bit is received as rx[L-1]; `free`, the frame
 * ends at any position e <= L and rx[e:L] is the look-ahead (the next
 * frame's sync word and first K symbols) followed by random bits.
 */
enum class end_mode { known, free };

//! "known" | "free"
end_mode parse_end_mode(const std::string& s);
std::string to_string(end_mode e);

/*!
 * The letters of a sync word written as text ("" for none) over an alphabet
 * of A letters: bits as "0110..."; four letters as "ACGT..." (A, C, G, T =
 * 0, 1, 2, 3; either case); up to ten letters as digits "0123..."; any
 * alphabet as comma-separated integers "0,5,2" (the only form beyond ten).
 * Throws std::invalid_argument naming the item that is not a letter.
 */
std::vector<uint8_t> parse_sync_word(const std::string& text, int alphabet = 2);

//! Weights over positions (indices into a received segment).
struct position_weights {
    std::vector<long long> positions;
    std::vector<double> weights;
};

/*!
 * \brief One received sequence of a frame: L bits or L LLRs (set exactly
 * one), as pointers into caller memory.
 */
struct frame_read {
    const uint8_t* bits = nullptr; //!< L received bits, one 0/1 per byte
    const double* llr = nullptr;   //!< or L received LLRs
    size_t L = 0;
    const double* logprob = nullptr; //!< or L A log-probabilities (letters)

    received_items items(int alphabet = 2) const
    {
        return { bits, llr, alphabet, logprob };
    }
};

/*!
 * \brief One decode of a received segment rx[0:L] (docs/design.md section 3).
 *
 * start: the start prior pi(s) over the position s of the frame's first
 * transmitted bit (distinct positions in [0, L], non-negative finite
 * weights with a positive sum; normalized for you); unset: pi(0) = 1.
 * lookahead: K, the next frame's symbols weighed after a free end
 * (0 <= K <= N; only with end_mode::free).
 */
struct frame_request {
    const uint8_t* bits = nullptr; //!< L received bits (letters), one per byte
    const double* llr = nullptr;   //!< or L received LLRs (frame_view::llr)
    //! or L A log-probabilities over an alphabet of A > 2 (frame_view::logprob)
    const double* logprob = nullptr;
    size_t L = 0;
    const double* priors = nullptr; //!< N x q symbol priors, or null for uniform
    bool log_priors = false;        //!< priors as natural logs (frame_view::log_priors)
    bool extrinsic = false;         //!< extrinsic output (frame_view::extrinsic)
    std::optional<position_weights> start;
    end_mode end = end_mode::known;
    int lookahead = 0;
    /*!
     * With a free end: whether the bits after the end begin the next frame
     * (its sync word and first K symbols, then random bits), or are random
     * bits only (false: the end of a stream; K must then be 0).
     */
    bool next_frame_follows = true;
    /*!
     * Also the frame's expected channel events (frame_decode_result::events
     * and item_posteriors; docs/design.md section 3, "Channel estimation"):
     * the sync word's and the codewords' events, not the look-ahead's (they
     * are the next frame's).
     */
    bool events = false;
    /*!
     * With events: also the item posteriors (frame_decode_result::
     * item_posteriors). Without them (false: the result's vector stays
     * empty) the CPU backend counts the events by a forward pass alone,
     * about twice as fast (docs/design.md, "E-step").
     */
    bool item_posteriors = true;
    /*!
     * false: the symbol posteriors are not asked for (frame_outputs::
     * posteriors; frame_decode_result::posteriors may then be uniform).
     */
    bool posteriors = true;
    /*!
     * With events: also the substitution counts (frame_decode_result::
     * substitution_counts), for estimating a substitution matrix.
     */
    bool substitution_counts = false;
    /*!
     * The bits between the start prior's first position s_0 and a start s
     * are random bits (each weighs 1/2), so that starts are compared on the
     * same bits rx[s_0:L]: the weight of start s is pi(s) 2^-(s - s_0). For a
     * prior that knows nothing of the bits before the frame (a search over a
     * window); a carried forward end metric has weighed them already (false).
     * The log-likelihood ratio is the same either way.
     */
    bool random_before = false;
    /*!
     * With a free end followed by the next frame: the probability that what
     * follows the end is not the next frame but random bits (a burst, a
     * frame lost): T(e) = (1 - gap) T_next(e) + gap 2^-(L - e). Then a frame
     * followed by garbage is decoded nearly as between its true boundaries,
     * instead of stretching its end to reach a sync word. In [0, 1).
     */
    double gap = 0;
    /*!
     * Further received sequences of the same frame, beside the first (bits
     * or llr, L). The frame decoder decodes one read per request: a request
     * with any is refused (frame_status::invalid_input). Several reads that
     * each span the frame (from its first letter to its last) are
     * reads_decoder's (reads/reads_decoder.h, docs/reads.md).
     */
    std::vector<frame_read> more_reads;

    //! The received items, over the decoder's alphabet.
    received_items items(int alphabet = 2) const
    {
        return { bits, llr, alphabet, logprob };
    }
    //! bits, llr and logprob from y (L is the caller's).
    void set_items(const received_items& y)
    {
        bits = y.bits;
        llr = y.llr;
        logprob = y.logprob;
    }
    //! The request's received sequences: 1 + more_reads.size().
    size_t reads() const { return 1 + more_reads.size(); }
};

/*!
 * \brief What a frame decode gives: the symbol posteriors and the boundary
 * posteriors. Positions index the request's segment. Unless the status is
 * ok, the posteriors are uniform and the boundary posteriors all 0.
 */
struct frame_decode_result {
    frame_result result;
    std::vector<double> posteriors; //!< N x q, rows summing to 1
    //! P(the frame starts at s | rx), over the start prior's positions (sorted)
    position_weights start;
    /*!
     * The end positions e the state space allows (e <= L), ascending; the
     * end posterior lambda(e); and the forward end metric alpha_end(e), the
     * forward metric alpha_N at e normalized (lambda(e) / T(e) wherever T(e)
     * > 0): what a following frame uses as its start prior (lambda would
     * weigh rx[e:L] twice).
     */
    std::vector<long long> end_positions;
    std::vector<double> end_posterior, end_forward;
    /*!
     * ln Z, Z the total weight of the model, summed over messages, starts and
     * ends: sum P(D) pi(s) P(rx[s:e] | W || X(D)) T(e) (pi normalized). The
     * likelihood of the segment's bits from the frame's start on.
     */
    double log_evidence = -std::numeric_limits<double>::infinity();
    /*!
     * ln of the evidence against random bits:
     *   ln sum_s pi(s) P(rx[s:L] | a frame starting at s) / 2^-(L - s),
     * positive when the bits look more like a frame (and what follows it)
     * than like random bits (stream_decoder's test of synchronization).
     * -infinity for a refused frame.
     */
    double log_likelihood_ratio = -std::numeric_limits<double>::infinity();
    /*!
     * With frame_request::events: the expected insertions, deletions,
     * transmissions and substitutions of the frame (W || X(D) from its
     * start to its end), and (with frame_request::item_posteriors) for each
     * item of the segment the posterior that it is one of the frame's
     * transmitted letters received as y (entry A j + y, A the alphabet; for
     * bits 2 j: as 0, 2 j + 1: as 1). Zeros for a refused frame.
     */
    event_counts events;
    std::vector<double> item_posteriors;
    /*!
     * With frame_request::substitution_counts: A x A values, the expected
     * transmissions of letter x received as y at [x A + y]
     * (frame_outputs::substitution_counts). Zeros for a refused frame.
     */
    std::vector<double> substitution_counts;
};

//! Wall time of decode_batch's stages, summed over calls (profiling on):
//! preparing the requests (sync word lattices, tails, boundary weights), the
//! look-ahead decodes, the backends' decodes, and the boundary posteriors.
struct frame_stage_times {
    double prepare = 0, lookahead = 0, decode = 0, finish = 0;
};

/*!
 * \brief The MAP decoder with frame boundaries as probabilities: a start
 * prior, a known or free end with a look-ahead, and a sync word W of G bits
 * that begins every frame (docs/design.md section 3, "Frame boundaries").
 *
 * The weight of message D, start s and end e is
 *   P(D) pi(s) P(rx[s:e] | W || X(D)) T(e),
 * where T(e) weighs rx[e:L]: the next frame's W and its first K symbols
 * (uniform priors, books 0..K-1), then random bits of weight 1/2 each (T = 1,
 * e = L, for a known end). All outputs are the exact marginals of this
 * weight within the drift limits; the state space covers the start prior's
 * whole support plus the frame's drift limits (a prior is never trimmed).
 *
 * It runs on the backends of map_decoder (CPU or CUDA, either precision and
 * storage): the sync word, the start prior and the end become the boundary
 * conditions alpha_0 and beta_N (frame_boundaries), and alpha_N and beta_0
 * come back for the boundary posteriors. With no sync word, pi(0) = 1 and a
 * known end, a decode is map_decoder::decode, to the last bit.
 *
 * Thread-safe: the backends it holds (one per state space) are shared.
 */
class frame_decoder
{
public:
    //! cfg: as for map_decoder::make (its mtau/mn, if set, bound the drift
    //! at codeword boundaries, after W, relative to the frame's start).
    //! Throws std::invalid_argument for bad parameters.
    explicit frame_decoder(const decoder_config& cfg,
                           std::vector<uint8_t> sync_word = {});
    ~frame_decoder();

    //! Decodes one segment. Invalid requests (a bad start prior, a position
    //! outside the segment, K out of range) throw std::invalid_argument.
    frame_decode_result decode(const frame_request& request);

    /*!
     * Decodes many segments; equal to decode() on each in turn. All requests
     * are checked before any is decoded; a frame's own failure is its status.
     */
    std::vector<frame_decode_result>
    decode_batch(const std::vector<frame_request>& requests);

    /*!
     * Frames that start at position 0 (with W, if any) and end with their
     * last bit, as map_decoder::decode_batch takes them: without a sync
     * word this is the primary backend's decode (or decode_batch) itself.
     */
    std::vector<frame_result> decode_batch(const std::vector<frame_view>& frames,
                                           const std::vector<double*>& post);

    //! map_decoder::check_length for such frames, W counted: whether a frame
    //! of rho received bits can be decoded at all.
    frame_result check_length(size_t rho) const;

    //! The decoder of frames that start at drift 0 (no start spread).
    map_decoder& primary();
    const map_decoder& primary() const { return *d_primary; }
    const decoder_config& config() const { return d_cfg; }
    const std::vector<uint8_t>& sync_word() const { return d_sync; }
    //! The drift limits at codeword boundaries, relative to the frame's start.
    const decoder_limits& limits() const { return d_limits; }
    int N() const { return d_cfg.N; }
    int q() const { return d_cfg.cb.q(); }
    long long tau() const { return (long long)d_cfg.N * d_cfg.cb.n(); }

    //! Per-stage timing of decode_batch (bsid_bench), off by default.
    void set_profiling(bool on) { d_profiling = on; }
    frame_stage_times profile() const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_times;
    }
    void reset_profile()
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_times = {};
    }

private:
    struct prepared;
    /*
     * random_tail: a free end is followed by random bits only (the look-ahead
     * decode itself, whose tail is not a further frame's sync word).
     */
    std::vector<frame_decode_result>
    decode_batch(const std::vector<frame_request>& requests, bool random_tail);
    void prepare(const frame_request& r, prepared& p, bool random_tail);
    std::shared_ptr<map_decoder> backend(int lo, int hi);
    frame_decoder& lookahead_decoder(int K);
    void finish(const frame_request& r, prepared& p, frame_decode_result& out) const;
    //! The sync word's expected events (frame_request::events), added to out's.
    void sync_word_events(const frame_request& r,
                          const prepared& p,
                          const double* beta0,
                          frame_decode_result& out) const;
    //! f(k) for k < R on the decoder's threads; rethrows the first exception (by k)
    template <typename F>
    void for_each_request(size_t R, F f) const;

    decoder_config d_cfg;
    std::vector<uint8_t> d_sync;
    decoder_limits d_limits;
    std::shared_ptr<map_decoder> d_primary;
    mutable std::mutex d_mutex; // guards the caches and the times
    bool d_profiling = false;
    frame_stage_times d_times;
    std::vector<std::pair<std::pair<int, int>, std::shared_ptr<map_decoder>>> d_backends;
    std::map<int, std::unique_ptr<frame_decoder>> d_lookahead;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_FRAME_DECODER_H */
