/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/format.h"
#include "runtime/parallel_loop.h"
#include <gnuradio/bsid/core/sim/error_counter.h>
#include <algorithm>
#include <bitset>
#include <stdexcept>

namespace bsid {

error_counter::error_counter(map_decoder& dec, int threads)
    : d_dec(dec), d_threads(resolve_threads(threads))
{
}

error_counter::error_counter(frame_decoder& dec, int threads)
    : d_dec(dec.primary()), d_frames(&dec), d_threads(resolve_threads(threads))
{
}

error_counter::error_counter(reads_decoder& dec, int threads)
    : d_dec(dec.single(0)), d_reads(&dec), d_threads(resolve_threads(threads))
{
}

const std::vector<frame_errors>& error_counter::run(const frame_batch& batch)
{
    const int N = d_dec.N(), q = d_dec.q();
    if (batch.N != N) {
        throw std::invalid_argument(detail::concat("error_counter: the batch has N = ",
                                                   batch.N,
                                                   " symbols per frame, the decoder N = ",
                                                   N));
    }
    const size_t K = batch.size(), NQ = size_t(N) * size_t(q);
    if (d_post.size() < K * NQ)
        d_post.resize(K * NQ);
    d_decisions.resize(K * size_t(N));
    d_errors.assign(K, frame_errors{});

    std::vector<double*> outs(K);
    for (size_t k = 0; k < K; ++k)
        outs[k] = d_post.data() + k * NQ;
    std::vector<frame_result> results;
    if (d_reads) {
        std::vector<frame_reads> frames(K);
        for (size_t k = 0; k < K; ++k)
            frames[k] = batch.reads_of(k);
        for (const auto& r : d_reads->decode_batch(frames, outs))
            results.push_back(r.result);
    } else {
        if (batch.reads != 1) {
            throw std::invalid_argument(
                detail::concat("error_counter: the batch has ",
                               batch.reads,
                               " reads per frame; a counter of one read takes one"));
        }
        std::vector<frame_view> views(K);
        for (size_t k = 0; k < K; ++k)
            views[k] = batch.view(k);
        results = d_frames ? d_frames->decode_batch(views, outs)
                           : d_dec.decode_batch(views, outs);
    }

    const int m = bits_per_symbol(q);
    detail::parallel_loop::shared().run(d_threads, K, [&](size_t k, int) {
        int32_t* dec = d_decisions.data() + k * size_t(N);
        frame_errors& e = d_errors[k];
        e.status = results[k].status;
        if (!results[k].ok()) {
            std::fill(dec, dec + N, -1);
            e.symbol_errors = N;
            e.bit_errors = N * m;
            return;
        }
        hard_decisions(outs[k], N, q, dec);
        const int32_t* sent = batch.sent(k);
        for (int i = 0; i < N; ++i) {
            if (dec[i] != sent[i]) {
                ++e.symbol_errors;
                e.bit_errors +=
                    int32_t(std::bitset<32>(uint32_t(dec[i] ^ sent[i])).count());
            }
        }
    });
    return d_errors;
}

} // namespace bsid
