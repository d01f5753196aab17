/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_FRAME_BATCHER_H
#define INCLUDED_BSID_CORE_FRAME_BATCHER_H

#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <condition_variable>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace bsid {

//! When the frame batcher sends a batch off (docs/design.md, "The frame batcher").
struct batcher_options {
    //! Most frames per decode_batch call, at least 1.
    int max_batch = 64;
    //! Longest a frame waits for others before its batch goes, in ms (>= 0).
    double max_delay_ms = 10.0;
};

//! A received frame for the batcher: its items, owned, and how to decode it.
struct batched_frame {
    std::vector<uint8_t> bits; //!< received bits (0/1 bytes), or
    //! soft input: one LLR per received item, or over A > 2 letters A
    //! log-probabilities per item (frame_input::logprob)
    std::vector<double> llr;
    bool soft = false; //!< the items are llr, not bits
    /*!
     * The frame's symbol priors, N x q natural logs (up to a constant per
     * row; -inf: an impossible symbol), or empty for uniform priors
     * (frame_view::priors with log_priors). Another size than N q makes the
     * frame an invalid_input result.
     */
    std::vector<double> log_priors;
    //! The extrinsic probabilities instead of the posteriors (frame_view::extrinsic).
    bool extrinsic = false;
};

//! A frame the batcher has decoded, in the order the frames were pushed.
struct batched_result {
    uint64_t sequence = 0; //!< push()'s number for the frame
    frame_result result;   //!< the decoder's result (decoder_error if it threw)
    //! N x q (uniform unless result.ok(); empty if the host had no memory for them)
    std::vector<double> posteriors;
    //! The frame pushed, handed back (its items, e.g. for channel estimation).
    batched_frame frame;
};

/*!
 * \brief Collects received frames across calls and decodes them in batches
 * on a worker thread, so that a receiver can keep feeding it while a batch
 * decodes, and a GPU sees batches rather than single frames. A second
 * thread gets the next batch ready (its output buffers, which a fresh
 * buffer's first write makes the costly part) while one decodes.
 *
 * A batch goes to the decoder when it holds max_batch frames, when its
 * oldest frame has waited max_delay_ms, or at flush(). A batch holds
 * consecutive frames pushed with the same decoder (a receiver that changes
 * channel changes decoder between frames). Results come back in push order
 * (take()). A batch the decoder refuses with std::invalid_argument (a
 * frame's priors, which decode_batch checks before decoding any frame) is
 * decoded again frame by frame, so that only the frames it refuses become
 * invalid_input results. A decoder that throws anything else makes the
 * frames of that batch decoder_error results: the batcher and the process
 * go on. The decoders
 * must outlive the frames pushed with them (the batcher keeps a shared_ptr).
 * All members are safe to call from any thread.
 */
class frame_batcher
{
public:
    //! Throws std::invalid_argument for max_batch < 1 or a negative or NaN max_delay_ms.
    explicit frame_batcher(const batcher_options& opt);
    //! Decodes what was pushed (as flush()), then stops the worker.
    ~frame_batcher();
    frame_batcher(const frame_batcher&) = delete;
    frame_batcher& operator=(const frame_batcher&) = delete;

    //! Queues a frame to decode with dec; returns its sequence number (0, 1, ...).
    uint64_t push(batched_frame frame, std::shared_ptr<frame_decoder> dec);

    /*!
     * The decoded frames not taken yet, in push order, up to the first one
     * still being decoded. With wait_ms > 0, waits up to that long for at
     * least one when none is ready and some are outstanding.
     */
    std::vector<batched_result> take(double wait_ms = 0.0);

    //! Sends every frame pushed so far to the decoder without waiting for max_delay_ms.
    void flush();

    /*!
     * Gives a taken result's posteriors back for a later frame to be decoded
     * into (no allocation, no first write of the buffer); optional.
     */
    void recycle(std::vector<double>&& posteriors);

    //! Frames pushed and not yet taken.
    uint64_t outstanding() const;
    //! Batches decoded, frames decoded, and their mean batch size (0 before any).
    uint64_t batches() const;
    uint64_t frames() const;
    double mean_batch() const;

    const batcher_options& options() const { return d_opt; }

private:
    using clock = std::chrono::steady_clock;
    struct entry {
        uint64_t sequence = 0;
        batched_frame frame;
        std::shared_ptr<frame_decoder> dec;
        clock::time_point arrived;
    };
    // A batch taken off the queue with its output buffers (prepare()), on
    // its way to the decoder (decode_ready()).
    struct ready_batch {
        std::shared_ptr<frame_decoder> dec;
        std::vector<entry> frames;
        std::vector<batched_result> results;
    };
    void collect();      // the collector: forms and prepares the batches
    void decode_ready(); // the decoder thread: decodes them in order, publishes
    // the decode of one prepared batch (its views; the frames prepare()
    // refused are left out); throws only for want of host memory
    static void decode_batch_of(ready_batch& b);
    // a batch's results with their posterior buffers (recycled ones first,
    // taken with the lock held), and the frames an invalid size refuses
    void prepare(ready_batch& b, std::vector<std::vector<double>>&& spare) const;
    // decode_batch, a batch refused with std::invalid_argument decoded again
    // frame by frame; a frame refused so is invalid_input, other failures
    // decoder_error (no lock held)
    static std::vector<frame_result> decode(frame_decoder& dec,
                                            const std::vector<frame_view>& views,
                                            const std::vector<double*>& outs);
    // whether the front of the queue is due (the lock held)
    bool due(clock::time_point now) const;

    const batcher_options d_opt;
    mutable std::mutex d_mutex;
    std::condition_variable d_work;    // the collector: frames pushed, flush, stop
    std::condition_variable d_handoff; // the prepared batch: taken, or one ready
    std::condition_variable d_done;    // take(): results decoded
    std::deque<entry> d_pending;
    std::deque<batched_result> d_ready;       // decoded, in order
    std::vector<std::vector<double>> d_spare; // recycled posterior buffers
    uint64_t d_next = 0;                      // the next sequence number
    uint64_t d_flush_until = 0;               // frames below this sequence go at once
    uint64_t d_batches = 0, d_frames = 0, d_taken = 0;
    // the prepared batch waiting for the decoder thread, or null (one slot:
    // the next batch is formed while one decodes, not several ahead)
    std::unique_ptr<ready_batch> d_prepared;
    bool d_stop = false;
    bool d_collected = false; // the collector has ended (after d_stop)
    std::thread d_collector, d_decoder;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_FRAME_BATCHER_H */
