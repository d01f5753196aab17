/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_STREAM_BATCH_H
#define INCLUDED_BSID_CORE_STREAM_BATCH_H

#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <memory>
#include <vector>

namespace bsid {

/*!
 * \brief Many independent streams decoded together (docs/design.md section
 * 3, "Stream decoding"): each stream is sequential, so a round takes the
 * next frame of every stream that has one ready and decodes them all in one
 * frame_decoder::decode_batch call (one GPU launch sequence). Each stream's
 * frames are those its own stream_decoder would give.
 *
 * `workers` host threads share the streams (stream k goes to worker k mod
 * workers) and run their rounds side by side: while one worker's batch is
 * on the backend, another prepares its next batch and finishes its last
 * (the host's share of a round would otherwise leave the GPU idle). A
 * worker's streams take their own steps (the next request; the alignment
 * tests of a decoded frame) on up to threads / workers host threads, threads
 * being the frame decoder's (decoder_config::threads; 0: all cores).
 *
 * Not thread-safe; the frame_decoder may be shared.
 */
class stream_batch
{
public:
    //! `streams` streams, each with the options `opt`; workers in [1, 64].
    stream_batch(std::shared_ptr<frame_decoder> dec,
                 size_t streams,
                 stream_options opt = {},
                 int workers = 2);

    size_t size() const { return d_streams.size(); }
    stream_decoder& stream(size_t k) { return d_streams.at(k); }

    //! Appends bits (and start tags at chunk positions) to stream k, without decoding.
    void feed(size_t k,
              const uint8_t* bits,
              size_t count,
              const std::vector<size_t>& tags = {});
    //! The same with LLRs (stream_options::input = llr).
    void
    feed(size_t k, const double* llr, size_t count, const std::vector<size_t>& tags = {});
    //! Stream k has ended (its last frames come out of the next decode()).
    void end_of_stream(size_t k);

    /*!
     * Decodes everything the streams' bits allow, in rounds of at most one
     * frame per stream (per worker); returns each stream's frames, in
     * order. `rounds`, if not null, receives the most rounds of a worker.
     * A worker's exception (an invalid argument) is thrown here.
     */
    std::vector<std::vector<stream_frame>> decode(size_t* rounds = nullptr);
    /*!
     * The workers' time in decode(), summed over the workers and the calls:
     * each worker's wall time, its streams' parallel steps counted in the
     * time of each host thread that ran them. The frame decoder's stage times
     * (profiling on, also summed over the threads that call it) are a part
     * of it; the rest is the stream decoders' own work and their edge tests'
     * decodes (the alignment judge's decoders, whose time the frame
     * decoder's profile does not hold).
     */
    double worker_seconds() const { return d_worker_seconds; }
    /*!
     * The part of worker_seconds() spent in the rounds' decodes (one
     * decode_stream_requests a round and worker: the frame decoder's batch and
     * the edge tests' batches): the rest of the frame decoder's time is the
     * decodes the streams' own steps make (the channel's prediction, once;
     * with a sync word, a suspect frame read from where W fits better).
     */
    double round_seconds() const { return d_round_seconds; }

private:
    std::shared_ptr<frame_decoder> d_dec;
    std::vector<stream_decoder> d_streams;
    int d_workers;
    double d_worker_seconds = 0;
    double d_round_seconds = 0;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_STREAM_BATCH_H */
