/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_STREAM_DECODER_H
#define INCLUDED_BSID_CORE_STREAM_DECODER_H

#include <gnuradio/bsid/core/framing/setup_watch.h>
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace bsid {

class alignment_judge; // lib/core/framing/stream_alignment.h
struct edge_values;    // (the same)

/*!
 * A request of a stream decoder's step and the frame decoder that decodes
 * it: the stream's own, or one of its alignment judge's edge decoders.
 */
struct stream_request {
    frame_decoder* decoder = nullptr;
    frame_request request;
};

/*!
 * The requests decoded, each by its decoder, the results in their order:
 * the requests of one decoder in one decode_batch; the batches of decoders
 * off the CPU at once, each on a thread of its own beside the first
 * decoder's, the CPU's one after another (stream_batch gathers many
 * streams' steps into one call). The requests are moved from.
 */
std::vector<frame_decode_result>
decode_stream_requests(std::vector<stream_request>& requests);

/*!
 * \brief How a stream_decoder follows a stream (docs/design.md section 3,
 * "Stream decoding"; docs/receiving.md for a receiver's view).
 */
struct stream_options {
    /*!
     * K: the next frame's symbols weighed after each frame's end (0 <= K <=
     * N), or auto_lookahead: 0 with a sync word (it places the end alone), 2
     * without (docs/benchmarks.md, "Stream decoding": the choice measured).
     */
    int lookahead = auto_lookahead;
    static constexpr int auto_lookahead = -1;
    /*!
     * The first frame's start: a prior over absolute stream positions (the
     * position of the frame's first transmitted bit, its sync word's first
     * bit if it has one). Unset: the decoder starts unsynchronized and
     * acquires at the first start tag or sync word it finds.
     */
    std::optional<position_weights> first_start = position_weights{ { 0 }, { 1.0 } };
    /*!
     * Half width, in bits, of the start prior put around a start tag or a
     * sync word found by search: uniform over [t - w, t + w].
     */
    int acquire_window = 4;
    /*!
     * Where a frame starts relative to its start tag: start = tag + offset.
     * Unset: -G, for a tag on the bit after the sync word (as
     * digital.correlate_access_code_tag_bb puts it when its access code is
     * the frame's sync word).
     */
    std::optional<long long> tag_offset;
    /*!
     * The test of synchronization: a decoded frame whose log-likelihood
     * ratio against random bits (frame_decode_result::log_likelihood_ratio,
     * natural log) is below this loses sync. 0: the frame must be more
     * likely than random bits.
     */
    double sync_threshold = 0.0;
    /*!
     * A frame is in sync only if its log-likelihood ratio is at least
     * sync_threshold + sync_margin: 1 nat, far above the rounding of either
     * precision (a frame of random bits at Ps = 1/2 has a ratio of exactly
     * 0, which float computes as +1e-6).
     */
    static constexpr double sync_margin = 1.0;
    /*!
     * With a sync word: ln of the least likelihood ratio against random bits
     * that the sync word must have at a frame's most probable start (over
     * W's own lattice, so an insertion or deletion in W is no miss). NaN:
     * automatic, the 1e-4 quantile of a correct sync word's through the
     * decoder's channel (docs/receiving.md, "Loss of sync"), G ln 2 / 2
     * lower for LLR input (the soft items' noise is the demodulator's).
     */
    double sync_word_threshold = std::numeric_limits<double>::quiet_NaN();
    /*!
     * The probability that a frame is followed by something other than the
     * next frame (a burst, garbage): each frame's end is weighed as
     * (1 - gap) the next frame's sync word and K symbols + gap random bits
     * (frame_request::gap), so that the frame before a burst decodes as
     * between its true boundaries. 0: the next frame always follows.
     */
    double gap_probability = 1e-3;
    /*!
     * While unsynchronized without a start tag, look for the next frame:
     * with a sync word, by its likelihood at every position of a frame
     * length of bits, then a decode around the best one; without, by a
     * decode whose start prior spans a whole frame length. false: wait for
     * a start tag.
     */
    bool search = true;
    /*!
     * Whether a search's window of starts is decoded in parts of
     * stream_decoder::search_part_starts (one request each, in one batch)
     * rather than whole: the same posteriors and likelihood ratio within
     * rounding (the decode is linear in the start prior). Unset: as the
     * decoder's backend prefers (map_decoder::wide_frames_in_parts: parts on
     * the GPU, whole on the CPU).
     */
    std::optional<bool> search_in_parts;
    /*!
     * Where a frame's edge tests (docs/receiving.md, "Loss of sync", test 4:
     * four short decodes a frame without a sync word) are decoded: on the
     * frame decoder's backend (true), with many streams' in one batch, or on
     * the CPU (false). Unset: on the backend in a stream_batch, on the CPU
     * for a stream alone, as before (on a GPU each of one frame's four small
     * decodes would be a call of its own).
     */
    std::optional<bool> edges_on_backend;
    /*!
     * Whether a carried frame whose verdict waits for its edge tests has the
     * next frame decoded beside them, from where it ends, in the same step
     * (docs/design.md, "Many streams"): the result is used only if the
     * frame is taken and the next frame's request is then the same, so the
     * frames put out are the same either way; a frame that loses sync wastes
     * that decode. Unset: in a stream_batch (one round a frame instead of
     * two), not for a stream alone (its steps are sequential anyway).
     */
    std::optional<bool> decode_ahead;
    /*!
     * What the stream's items are: bits (push(const uint8_t*, ...)) or LLRs
     * (push(const float*, ...), soft input); the other kind is refused.
     */
    input_kind input = input_kind::bits;
    /*!
     * Also each decoded frame's expected channel events (stream_frame::events
     * and item_posteriors; docs/design.md section 3, "Channel estimation").
     */
    bool events = false;
    //! With events: also the item posteriors (frame_request::item_posteriors).
    bool item_posteriors = true;
    //! With events: also their substitution counts (stream_frame::substitution_counts).
    bool substitution_counts = false;
};

/*!
 * \brief One frame put out by a stream_decoder: decoded, or an erasure
 * (uniform posteriors) with the reason. Positions are absolute: bit k of the
 * stream is the k-th bit ever pushed, from 0.
 */
struct stream_frame {
    uint64_t index = 0;             //!< k: frames put out before this one
    frame_result result;            //!< ok, or why it is an erasure
    std::vector<double> posteriors; //!< N x q, rows summing to 1
    //! where frame k should start: the last anchor (a start tag, an
    //! acquisition or the first frame's start) plus whole frame lengths
    long long nominal_start = 0, nominal_end = 0; //!< nominal_end = nominal_start + F
    //! the most probable start (the first bit of its sync word, if any) and
    //! end (one past its last bit); -1 for an erasure
    long long start = -1, end = -1;
    double start_probability = 0, end_probability = 0; //!< their posteriors
    //! the frame's log-likelihood ratio against random bits (-inf if not decoded)
    double log_likelihood_ratio = -std::numeric_limits<double>::infinity();
    bool acquired = false; //!< decoded from an acquisition (tag or search)
    //! the received bits [segment_begin, segment_end) its decode read (-1: none)
    long long segment_begin = -1, segment_end = -1;
    /*!
     * With stream_options::events, for a decoded frame: its expected events
     * and (with stream_options::item_posteriors), for each item of
     * [segment_begin, segment_end), the posterior that
     * it is one of the frame's transmitted letters received as y (entry A j
     * + y; for bits 2 j: as 0, 2 j + 1: as 1); zeros and empty otherwise.
     * With stream_options::substitution_counts also the A x A counts of
     * frame_decode_result::substitution_counts.
     */
    event_counts events;
    std::vector<double> item_posteriors;
    std::vector<double> substitution_counts;
    //! start - nominal_start and end - nominal_end (0 for an erasure)
    long long start_drift() const { return start < 0 ? 0 : start - nominal_start; }
    long long end_drift() const { return end < 0 ? 0 : end - nominal_end; }
};

/*!
 * \brief Decodes an unbounded received bitstream, frame after frame
 * (docs/design.md section 3, "Stream decoding").
 *
 * Bits come in chunks of any size (push); frames come out in order, decoded
 * or as erasures, and every frame length of received bits gives one frame
 * out (equal frames in and out). Frame k + 1's start prior is frame k's
 * forward end metric, trimmed from both tails while the mass dropped stays
 * <= Pr (the decoder's), so that drift is followed indefinitely; only the
 * bits still needed are kept.
 *
 * A frame is decoded once the stream holds its segment: from its earliest
 * start to its latest end, s_max + F + m^+ (F = G + N n transmitted bits,
 * m^+ the frame's upper drift limit), then G + K n more bits (the next
 * frame's sync word and K symbols) and the upper drift limit over those.
 *
 * A frame whose log-likelihood ratio against random bits is below the
 * threshold, or that the decoder refuses, loses sync: it is put out as a
 * `sync_lost` erasure, as is each further frame length of bits until the
 * decoder re-acquires, at a start tag or by a search. A stream that ends
 * inside a frame puts it out as a `truncated` erasure (flush).
 *
 * Not thread-safe (one stream); the frame_decoder may be shared.
 */
class stream_decoder
{
public:
    //! Throws std::invalid_argument for bad options.
    stream_decoder(std::shared_ptr<frame_decoder> dec, stream_options opt = {});

    /*!
     * Appends received bits (one per byte; a byte other than 0 or 1 makes
     * the frame it falls in an `invalid_input` erasure) and decodes every
     * frame that is complete. start_tags: positions of start tags within
     * this chunk (0 .. count - 1, any order).
     */
    std::vector<stream_frame>
    push(const uint8_t* bits, size_t count, const std::vector<size_t>& start_tags = {});
    /*!
     * The same for a stream of soft items: LLRs (stream_options::input =
     * llr; count values), or over A > 2 letters A log-probabilities per item
     * (input = logprob; count A values, item j's at [A j]). An invalid item
     * (a NaN LLR; a NaN or +inf log-probability, or all -inf) makes the frame
     * it falls in an `invalid_input` erasure.
     */
    std::vector<stream_frame>
    push(const double* llr, size_t count, const std::vector<size_t>& start_tags = {});

    //! The end of the stream: the frames that can still be decoded, then a
    //! frame the stream ends inside as a `truncated` erasure. Push nothing after.
    std::vector<stream_frame> flush();

    /*
     * The same in steps, for decoding frames of many streams in one batch
     * (stream_batch): feed() appends without decoding; next() advances
     * without decoding, puts erasures into out, and returns the requests of
     * its next step (their bits stay valid until the next feed() or
     * complete()), or none if more bits are needed: one frame; a search's
     * window of starts, on a backend that decodes wide frames sooner in
     * parts (map_decoder::wide_frames_in_parts: the GPU), cut into parts of
     * search_part_starts; a search's (or a held frame's) reads of its
     * start's shifts by whole periods; or a frame's edge tests, decoded by
     * the alignment judge's decoders. Each request names its decoder
     * (decode_stream_requests decodes them). complete() takes their
     * results, in order.
     */
    void
    feed(const uint8_t* bits, size_t count, const std::vector<size_t>& start_tags = {});
    void
    feed(const double* llr, size_t count, const std::vector<size_t>& start_tags = {});
    std::vector<stream_request> next(std::vector<stream_frame>& out);
    void complete(std::vector<frame_decode_result> results,
                  std::vector<stream_frame>& out);
    //! The most starts of one request of a search (next()).
    static constexpr long long search_part_starts = 256;
    //! From now on the stream has ended (next() then finishes it).
    void end_of_stream() { d_ended = true; }

    /*!
     * Decodes the frames decoded from now on with `dec`: another channel (a
     * receiver's estimate, or a block's set_channel). It must have the same
     * code, N and sync word; throws std::invalid_argument otherwise, and
     * std::logic_error while a request is pending.
     */
    void set_decoder(std::shared_ptr<frame_decoder> dec);

    long long received() const { return d_base + (long long)buffered(); }
    //! Items held (the flat memory: about two segments at most)
    size_t buffered() const
    {
        return d_opt.input == input_kind::bits ? d_buf.size()
                                               : d_llr.size() / item_width();
    }
    bool synchronized() const { return d_mode == mode::synced; }
    uint64_t frames_out() const { return d_k; }
    //! F = G + N n, the transmitted bits of a frame
    long long frame_bits() const { return d_F; }
    //! The options, with the look-ahead resolved (never auto_lookahead).
    const stream_options& options() const { return d_opt; }
    frame_decoder& decoder() { return *d_dec; }
    //! The sync word threshold in use (the automatic one resolved).
    double sync_word_threshold() const;
    /*!
     * What the decoder warns of, latest last, each logged once: a setup
     * whose alignments cannot be told apart, and frames that do not fit the
     * setup (setup_watch: a wrong N, a channel far worse than the one set).
     */
    std::vector<std::string> warnings() const { return d_watch->warnings(); }
    //! How many warnings were given.
    size_t warning_count() const { return d_watch->count(); }

private:
    enum class mode { synced, hunting };
    enum class pending_kind { none, synced, search, shifts, edges };

    long long nominal(uint64_t k) const
    {
        return d_anchor + (long long)(k - d_anchor_k) * d_F;
    }
    //! Where the segment of a frame whose latest start is s_max ends (a
    //! search's look-ahead is the whole next frame).
    long long segment_end(long long s_max, bool search = false) const;
    void derive(); // the limits' constants from d_dec
    void acquire(long long at, std::vector<stream_frame>& out);
    void lose_sync(const frame_result& why, std::vector<stream_frame>& out);
    void
    erase(frame_status status, const std::string& reason, std::vector<stream_frame>& out);
    void erase_until(long long at, std::vector<stream_frame>& out);
    void lose_block(const std::string& why,
                    std::vector<stream_frame>& out,
                    frame_status status = frame_status::sync_lost);
    //! Whether a decoded frame is in sync at its true alignment; why: if not.
    //! shifts_settle: set when only a carried frame's edges reading slightly
    //! worse than random items (within edge_margin) fail it, so that its
    //! start's comparison with its shifts by whole periods decides instead.
    //! edges: the frame's edge tests' values, once read; without them, a
    //! frame whose verdict needs them sets needs_edges (and is not in sync
    //! yet: complete() reads them, a step of their own, and judges again).
    bool judge(const frame_decode_result& r,
               pending_kind kind,
               frame_result& why,
               bool* shifts_settle,
               const edge_values* edges,
               bool* needs_edges);
    //! complete()'s verdict on a frame or a search, given its edge tests'
    //! values once read (edges), or none yet.
    void settle(frame_decode_result result,
                pending_kind kind,
                const edge_values* edges,
                std::vector<stream_frame>& out);
    //! The edge tests' reads of the frame awaiting them (d_edge_wait), whose
    //! roles it keeps for edges_read.
    std::vector<stream_request> edge_step();
    //! That frame judged with its edge tests' results (got: edge_step's).
    void edges_read(std::vector<frame_decode_result> got, std::vector<stream_frame>& out);
    //! The next frame's start prior from frame r taken (its segment from
    //! seg): r's forward end metric trimmed from both tails while the mass
    //! dropped stays <= Pr, normalized, in absolute positions; none where
    //! that metric is all 0.
    std::optional<position_weights> carried_prior(const frame_decode_result& r,
                                                  long long seg) const;
    //! A frame's request from `prior` (absolute) over [its first position,
    //! seg_end): tail_model, the next frame's W and K symbols weighed after
    //! it; acquired, its starts a window (the items before them random).
    frame_request carried_request(const position_weights& prior,
                                  long long seg_end,
                                  bool tail_model,
                                  bool acquired) const;
    //! The next frame's request decoded ahead, beside the edge tests of the
    //! frame awaiting them (stream_options::decode_ahead), from where that
    //! frame ends if taken; none where it cannot be asked for yet.
    std::optional<stream_request> ahead_request();
    //! The result decoded ahead, if it was asked for with the same inputs
    //! of carried_request as the frame about to be asked for (its request
    //! then the same: the decode is a function of it); dropped either way.
    std::optional<frame_decode_result>
    decoded_ahead(long long seg_end, bool tail_model, bool acquired);
    //! With a sync word: the best fit of W within half a frame length of s
    //! (outside s's own window), if any fits better than `than`.
    bool other_sync_word(long long s, double than, long long* at, double* fit) const;
    //! What a read (llr_at) weighs after the frame's end: the stream's
    //! look-ahead; the whole next frame (or, by gap_probability, random
    //! items); the whole next frame, no gap; random items only (over the
    //! same items as the whole next frame's read).
    enum class read_after { lookahead, next_frame, next_frame_no_gap, nothing };
    //! The log-likelihood ratio of the frame decoded with a start prior of
    //! +-acquire_window around `at`, the items before it random, and `after`
    //! after its end (-inf if it cannot be decoded; with `short_of_items`,
    //! that is set when the reason is that the stream does not hold the segment).
    double llr_at(long long at,
                  read_after after = read_after::lookahead,
                  bool* short_of_items = nullptr);
    //! llr_at's request, to decode with others in one batch; none if the
    //! read cannot be decoded (its ln LR is then -inf).
    std::optional<frame_request>
    read_request(long long at, read_after after, bool* short_of_items = nullptr) const;
    //! The search's start prior over [lo, hi): where the frame before it
    //! ended (d_follows) by 1 - gap_probability, uniform by gap_probability;
    //! uniform when no frame decoded ok precedes it.
    position_weights search_prior(long long lo, long long hi) const;
    //! Without a sync word, p < N: a search's start s and its shifts by
    //! whole periods, each read in the stream's model (frames follow each
    //! other but for gaps of gap_probability). The shifts and their reads
    //! (requests, to decode in one batch), or `why` when they cannot be
    //! compared (the stream's end cuts a shift's reads).
    struct period_shift {
        long long x;
        double prev, next, alone, score;
    };
    struct shift_reads {
        long long start = -1; // the search's start (shift 0)
        std::vector<period_shift> shifts;
        std::vector<frame_request> reads;
        std::vector<double period_shift::*> field; // the read's term
        std::vector<size_t> of;                    // and its shift
    };
    bool period_shift_reads(long long s, shift_reads& plan, frame_result& why) const;
    //! Of the shifts read, the one that reads clearly best, or -1 and why
    //! none does.
    long long best_of_period_shifts(shift_reads& plan,
                                    const std::vector<frame_decode_result>& got,
                                    frame_result& why);
    //! After a search: the frame found at s acquired, or (s < 0) its frame
    //! length of items lost, for `lost`.
    void found(long long s, const frame_result& lost, std::vector<stream_frame>& out);
    void warn(const std::string& what);
    void take(frame_decode_result& r, bool acquired, std::vector<stream_frame>& out);
    bool invalid_in(long long from, long long to, long long* where) const;
    //! Why the item at stream position pos was refused (invalid_in).
    std::string invalid_item_at(long long pos) const;
    //! The starts in [from, to) where W fits best, one per cluster, best
    //! first, at most `count`, each fitting at least the threshold.
    std::vector<long long>
    search_sync_word(long long from, long long to, size_t count) const;
    //! ln of the sync word's likelihood ratio against random bits at start s
    //! (-inf: no bits there); prob: the soft items' probabilities from s on
    double sync_word_fit(long long s, const double* prob = nullptr) const;
    //! A start tag inside the frame about to be decoded, where the sync word
    //! fits far better than at the frame's carried start: acquire there.
    bool override_by_tag(std::vector<stream_frame>& out);
    void trim();
    template <typename Item> // uint8_t bits or double LLRs: feed, then decode
    std::vector<stream_frame>
    push_items(const Item* items, size_t count, const std::vector<size_t>& start_tags);
    void check_chunk(input_kind kind,
                     bool present,
                     size_t count,
                     const std::vector<size_t>& start_tags) const;
    void add_tags(long long pos0, const std::vector<size_t>& start_tags);
    received_items items_at(long long pos) const; // the buffer from position pos
    //! The values one soft item holds: A log-probabilities, or one LLR.
    size_t item_width() const
    {
        return d_opt.input == input_kind::logprob ? size_t(d_alphabet) : 1;
    }
    void advance_hunt();
    void process_tags_synced();

    std::shared_ptr<frame_decoder> d_dec;
    std::shared_ptr<const alignment_judge> d_judge;
    stream_options d_opt;
    std::optional<setup_watch> d_watch; // (set in the constructor)
    // the last frame in sync (its index and most probable start), for the
    // watch's length drifts between consecutive frames in sync
    uint64_t d_last_ok_k = 0;
    long long d_last_ok_start = -1;
    static constexpr uint64_t watch_gap = 4;
    long long d_F = 0, d_G = 0, d_offset = 0;
    long long d_tail = 0;        // G + K n + the upper drift limit over those bits
    long long d_search_tail = 0; // a search's: the whole next frame (K = N)
    int d_hi = 0;                // the frame's upper end drift limit m^+
    bool d_ended = false;
    bool d_finished = false; // ended, and everything put out
    int d_sync_hi = 0;       // the upper drift limit over the sync word's G bits

    int d_alphabet = 2;         // the channel's letters (2: bits)
    std::vector<uint8_t> d_buf; // letters from position d_base on (input bits)
    // or LLRs (input llr), or A log-probabilities per item (input logprob),
    // from position d_base on
    std::vector<double> d_llr;
    long long d_base = 0;
    std::deque<long long> d_tags;    // frame starts from start tags, ascending
    std::deque<long long> d_invalid; // positions of items that were not valid

    mode d_mode = mode::hunting;
    position_weights d_prior;      // synced: the next frame's start prior (absolute)
    long long d_hunt = 0;          // hunting: where the next frame length of bits begins
    long long d_acquire_block = 0; // the frame length of bits the last acquisition is for
    long long d_floor = 0;         // hunting: tags before this are stale
    long long d_search_floor =
        0; // hunting: no frame starts before this (the last frame's end)
    std::vector<long long>
        d_cands;        // hunting: the search's sync word positions left to try
    struct search_try { // hunting: a candidate of the frame length, decoded
        bool in_sync;
        frame_result why;
        bool decoded;    // the decoder accepted it
        double llr;      // its log-likelihood ratio (the whole next frame weighed)
        long long start; // its most probable start
    };
    std::vector<search_try> d_tries;
    //! Of the candidates tried (d_tries), the start of the one kept, or -1
    //! and why none is.
    long long pick_candidate(frame_result& why) const;
    // the log-likelihood ratios of the latest frames in sync: a carried frame
    // far below them (drop_sigmas standard deviations) is searched for again
    std::deque<double> d_recent;
    static constexpr size_t recent_min = 4, recent_max = 32;
    static constexpr double drop_sigmas = 4.0;
    // a frame length outside d_odd (drift over F bits beyond these limits
    // has probability below odd_length_probability) makes a frame suspect
    static constexpr double odd_length_probability = 1e-6;
    drift_range d_odd;
    // what the channel predicts for a frame's log-likelihood ratio (calibrate());
    // a frame below min(mean - implausible_sigmas sd, mean / 2) is not in sync
    void calibrate();
    static constexpr size_t calibration_frames = 24;
    static constexpr double implausible_sigmas = 6.0, acquired_sigmas = 3.0;
    bool d_calibrated = false;
    // followed by the next frame's W and K symbols (a request with a tail)
    double d_expected_mean = 0, d_expected_sd = 0;
    // followed by nothing (a whole frame at the stream's end, no tail)
    double d_expected_end_mean = 0, d_expected_end_sd = 0;
    std::string d_lost_why; // why the frame being searched for lost sync
    // hunting after a frame carried in sync lost it: the end posterior of the
    // frame decoded ok before it (where the lost frame starts if no gap lies
    // between them); empty when no such frame precedes the search
    position_weights d_follows;
    bool d_acquired_follows = false; // a search's frame, where d_follows said
    //! Whether a frame starting at s follows the frame decoded ok before it
    //! (within acquire_window of d_follows' support).
    bool follows_previous(long long s) const
    {
        return !d_follows.positions.empty() &&
               s + d_opt.acquire_window >= d_follows.positions.front() &&
               s - d_opt.acquire_window <= d_follows.positions.back();
    }
    bool d_acquired = false;  // the next frame is decoded from an acquisition
    bool d_by_search = false; // that acquisition is a search's (its block searched)
    long long d_anchor = 0;   // nominal start of frame d_anchor_k
    uint64_t d_anchor_k = 0;
    uint64_t d_k = 0; // the next frame's index

    pending_kind d_pending = pending_kind::none;
    std::vector<double> d_part_mass;     // a search's parts: their start prior's mass
    std::optional<long long> d_shift_at; // a search's start, its shifts to read
    shift_reads d_shift_plan;            // and, pending, their reads
    //! The times a search's comparison with its shifts moved on, its best
    //! the outermost shift read (best_at_edge), at most max_shift_moves,
    //! and the way the last move went (+1 later, -1 earlier, 0 none)
    int d_shift_moves = 0, d_shift_way = 0;
    static constexpr int max_shift_moves = 4;
    //! Whether s, the shift that read best, lies at the edge of the shifts
    //! read where a shift beyond it could have been (+1: the latest, -1:
    //! the earliest, a shift before it no earlier than `lo`, the search's
    //! first start; 0: neither): a shift further on may read better still,
    //! and is compared before s is taken.
    static int
    best_at_edge(const shift_reads& plan, long long s, long long unit, long long lo);
    //! A code period's items (shifts by whole periods step by it)
    long long period_items() const;
    //! The earliest start a search of the frame length at d_hunt considers
    long long search_block_start() const;
    //! Whether the stream holds the items of the reads of s's shifts (up to
    //! the latest shift's whole next frame), or has ended
    bool shift_items_held(long long s) const;
    //! A carried frame held while its start is compared with its shifts by
    //! whole periods (judge's shifts_settle): put out if its start reads
    //! clearly best, else lost as `why` says (its frame length searched).
    struct held_frame {
        frame_decode_result result;
        frame_result why;
        long long start = 0; // its most probable start
    };
    std::optional<held_frame> d_held;
    //! A frame (or a search's merged result) whose verdict awaits its edge
    //! tests' reads; the request's segment (d_seg, ...) stays until then.
    struct edge_wait {
        frame_decode_result result;
        pending_kind kind;
        //! each read's role, as asked for (alignment_judge::edge_role)
        std::vector<int> roles;
        bool ahead = false; //!< the next frame's decode asked for too, last
    };
    std::optional<edge_wait> d_edge_wait;
    //! The next frame's decode asked for ahead (ahead_request), its result
    //! once read: used by next() if it asks for the same request.
    struct ahead_decode {
        frame_decoder* decoder = nullptr;
        position_weights prior; // carried_request's inputs (tail_model true,
        long long seg_end = 0;  // acquired false)
        std::optional<frame_decode_result> result;
    };
    std::optional<ahead_decode> d_ahead;
    //! The held frame's shifts read (or, before the stream holds their
    //! items, nothing yet: false); the frame settled at once where they
    //! cannot be read.
    bool held_shift_reads(std::vector<frame_request>& reads,
                          std::vector<stream_frame>& out);
    //! The held frame put out if s, the shift that read clearly best, is its
    //! start; else lost (`lost`: why no shift did, if none).
    void
    settle_held(long long s, const frame_result& lost, std::vector<stream_frame>& out);
    long long d_seg = 0;     // the pending request's segment starts here
    long long d_seg_end = 0; // and ends here
    bool d_req_cut = false;  // the stream ends where the pending frame may not be whole
    bool d_req_tail =
        false; // the pending frame is followed by the next one's W and K symbols
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_STREAM_DECODER_H */
