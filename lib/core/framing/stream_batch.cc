/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Many streams, one decode_batch per round: the stream decoders' steps
// (next, complete) with the frame decodes gathered across streams.

#include <gnuradio/bsid/core/framing/stream_batch.h>
#include <algorithm>
#include <chrono>
#include <exception>
#include <stdexcept>
#include <thread>

namespace bsid {

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
    std::vector<double> busy(P, 0.0);
    // worker w: rounds over streams w, w + P, ...
    auto work = [&](size_t w) {
        const auto t0 = std::chrono::steady_clock::now();
        struct timer { // (the worker's time, however it leaves)
            const std::chrono::steady_clock::time_point t0;
            double& into;
            ~timer()
            {
                into =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                        .count();
            }
        } time_it{ t0, busy[w] };
        try {
            while (true) {
                std::vector<frame_request> requests;
                std::vector<size_t> which;
                for (size_t k = w; k < S; k += P) {
                    if (auto r = d_streams[k].next(out[k])) {
                        requests.push_back(std::move(*r));
                        which.push_back(k);
                    }
                }
                if (requests.empty())
                    break;
                auto results = d_dec->decode_batch(requests);
                ++count[w];
                for (size_t j = 0; j < which.size(); ++j)
                    d_streams[which[j]].complete(std::move(results[j]), out[which[j]]);
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
    for (double b : busy)
        d_worker_seconds += b;
    for (const auto& e : err) {
        if (e)
            std::rethrow_exception(e);
    }
    if (rounds)
        *rounds = *std::max_element(count.begin(), count.end());
    return out;
}

} // namespace bsid
