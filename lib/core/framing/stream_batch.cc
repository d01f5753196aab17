/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Many streams, one decode_batch per round: the stream decoders' steps
// (next, complete) with the frame decodes gathered across streams.

#include "runtime/parallel_loop.h"
#include "runtime/seconds_since.h"
#include <gnuradio/bsid/core/framing/stream_batch.h>
#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <optional>
#include <stdexcept>
#include <thread>

namespace bsid {

using detail::seconds_since;

stream_batch::stream_batch(std::shared_ptr<frame_decoder> dec,
                           size_t streams,
                           stream_options opt,
                           int workers)
    : d_dec(std::move(dec)), d_workers(workers)
{
    if (!d_dec)
        throw std::invalid_argument("stream_batch: no frame decoder");
    if (workers < 1 || workers > 64)
        throw std::invalid_argument("stream_batch: workers must lie in [1, 64]");
    // many streams' edge tests in one batch on the decoder's backend
    if (!opt.edges_on_backend)
        opt.edges_on_backend = true;
    // and the next frame decoded beside a frame's edge tests: a round a frame
    if (!opt.decode_ahead)
        opt.decode_ahead = true;
    d_streams.reserve(streams);
    if (streams > 0)
        d_streams.emplace_back(d_dec, opt);
    for (size_t k = 1; k < streams; ++k)
        d_streams.push_back(
            d_streams.front()); // the same start: the limits computed once
}

void stream_batch::feed(size_t k,
                        const uint8_t* bits,
                        size_t count,
                        const std::vector<size_t>& tags)
{
    d_streams.at(k).feed(bits, count, tags);
}

void stream_batch::feed(size_t k,
                        const double* llr,
                        size_t count,
                        const std::vector<size_t>& tags)
{
    d_streams.at(k).feed(llr, count, tags);
}

void stream_batch::end_of_stream(size_t k) { d_streams.at(k).end_of_stream(); }

std::vector<std::vector<stream_frame>> stream_batch::decode(size_t* rounds)
{
    const size_t S = d_streams.size();
    const size_t P = std::max<size_t>(1, std::min<size_t>(size_t(d_workers), S));
    std::vector<std::vector<stream_frame>> out(S);
    std::vector<size_t> count(P, 0);
    std::vector<std::exception_ptr> err(P);
    std::vector<double> busy(P, 0.0), in_rounds(P, 0.0);
    // the wall time of each worker's parallel steps, and their threads' time
    // in them: a worker's seconds count the latter instead of the former
    std::vector<double> steps_wall(P, 0.0), steps_threads(P, 0.0);
    // each worker's streams' own steps on up to this many threads (the
    // workers' loops each take their own)
    const int host_threads =
        std::max(1, resolve_threads(d_dec->config().threads) / int(P));
    // worker w: rounds over streams w, w + P, ...
    auto work = [&](size_t w) {
        const auto t0 = std::chrono::steady_clock::now();
        struct timer { // (the worker's time, however it leaves)
            const std::chrono::steady_clock::time_point t0;
            double& into;
            ~timer() { into = seconds_since(t0); }
        } time_it{ t0, busy[w] };
        try {
            // the worker's streams
            std::vector<size_t> mine;
            for (size_t k = w; k < S; k += P)
                mine.push_back(k);
            std::vector<std::vector<stream_request>> next(mine.size());
            // body(j) for j in [0, m) on the host's threads (each j a stream
            // of its own: the streams are independent); the first j's
            // exception, if any, thrown after all have run
            auto each_stream = [&](size_t m, const std::function<void(size_t)>& body) {
                std::vector<std::exception_ptr> failed(m);
                std::vector<double> took(m, 0.0);
                const auto s0 = std::chrono::steady_clock::now();
                detail::parallel_loop::shared().run(host_threads, m, [&](size_t j, int) {
                    const auto b0 = std::chrono::steady_clock::now();
                    try {
                        body(j);
                    } catch (...) {
                        failed[j] = std::current_exception();
                    }
                    took[j] = seconds_since(b0);
                });
                steps_wall[w] += seconds_since(s0);
                for (double x : took)
                    steps_threads[w] += x;
                for (const auto& e : failed) {
                    if (e)
                        std::rethrow_exception(e);
                }
            };
            while (true) {
                each_stream(mine.size(), [&](size_t j) {
                    next[j] = d_streams[mine[j]].next(out[mine[j]]);
                });
                // every stream's requests in one batch; stream which[i]'s
                // are requests first[i] .. first[i + 1] - 1
                std::vector<stream_request> requests;
                std::vector<size_t> which, first; // (indices into mine, requests)
                for (size_t j = 0; j < mine.size(); ++j) {
                    if (!next[j].empty()) {
                        which.push_back(j);
                        first.push_back(requests.size());
                        for (auto& r : next[j])
                            requests.push_back(std::move(r));
                    }
                }
                if (requests.empty())
                    break;
                first.push_back(requests.size());
                const auto r0 = std::chrono::steady_clock::now();
                auto results = decode_stream_requests(requests);
                in_rounds[w] += seconds_since(r0);
                ++count[w];
                each_stream(which.size(), [&](size_t i) {
                    const size_t k = mine[which[i]];
                    d_streams[k].complete(
                        std::vector<frame_decode_result>(
                            std::make_move_iterator(results.begin() + long(first[i])),
                            std::make_move_iterator(results.begin() +
                                                    long(first[i + 1]))),
                        out[k]);
                });
            }
        } catch (...) {
            err[w] = std::current_exception();
        }
    };
    std::vector<std::thread> threads;
    for (size_t w = 1; w < P; ++w)
        threads.emplace_back(work, w);
    work(0);
    for (auto& t : threads)
        t.join();
    for (size_t w = 0; w < P; ++w) {
        d_worker_seconds += busy[w] - steps_wall[w] + steps_threads[w];
        d_round_seconds += in_rounds[w];
    }
    for (const auto& e : err) {
        if (e)
            std::rethrow_exception(e);
    }
    if (rounds)
        *rounds = *std::max_element(count.begin(), count.end());
    return out;
}

} // namespace bsid
