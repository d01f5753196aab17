/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/format.h"
#include "runtime/parallel_loop.h"
#include <gnuradio/bsid/core/sim/concatenated_counter.h>
#include <algorithm>
#include <bitset>
#include <stdexcept>

namespace bsid {

concatenated_counter::concatenated_counter(concatenated_decoder& dec,
                                           const concatenated_options& opt,
                                           int threads)
    : d_dec(dec), d_opt(opt), d_threads(resolve_threads(threads))
{
    if (opt.iterations < 1 || opt.bp_iterations < 1) {
        throw std::invalid_argument(detail::concat("concatenated_counter: iterations = ",
                                                   opt.iterations,
                                                   " and bp_iterations = ",
                                                   opt.bp_iterations,
                                                   " must each be at least 1"));
    }
}

concatenated_counter::concatenated_counter(concatenated_decoder& dec,
                                           reads_decoder& reads,
                                           const concatenated_options& opt,
                                           int threads)
    : concatenated_counter(dec, opt, threads)
{
    d_reads = &reads;
}

const std::vector<concatenated_errors>&
concatenated_counter::run(const frame_batch& batch)
{
    const outer_code& code = d_dec.outer();
    const int kk = code.k(), n = code.n(), I = d_opt.iterations;
    if (batch.k != kk || batch.N != d_dec.inner().N()) {
        throw std::invalid_argument(
            detail::concat("concatenated_counter: the batch has k = ",
                           batch.k,
                           " information and N = ",
                           batch.N,
                           " inner symbols per frame; the decoder k = ",
                           kk,
                           " and N = ",
                           d_dec.inner().N(),
                           " (frames of a frame_source with this outer code)"));
    }
    if (batch.reads != 1 && !d_reads) {
        throw std::invalid_argument(detail::concat(
            "concatenated_counter: the batch has ",
            batch.reads,
            " reads per frame; a counter without a reads decoder takes one"));
    }
    const size_t K = batch.size();
    d_errors.assign(K, concatenated_errors{});
    d_wrong.assign(K * size_t(I), 1);
    d_decisions.resize(K * size_t(n));
    d_info.resize(K * size_t(kk));
    std::vector<frame_view> views(K);
    std::vector<int32_t*> dec(K);
    for (size_t j = 0; j < K; ++j) {
        views[j] = batch.view(j);
        dec[j] = d_decisions.data() + j * size_t(n);
    }
    // after each pass: the frame's information symbols, kept in d_info, and
    // are they right? (later passes inherit the answer until the frame runs
    // again). The observer sees every pass a frame runs, and the last one's
    // decisions are the frame's decisions (a frame not refused on pass 1
    // runs it), so d_info ends with each ok frame's information decisions.
    auto wrong = [&](size_t j, const int32_t* w) {
        int32_t* info = d_info.data() + j * size_t(kk);
        code.extract(w, info);
        return !std::equal(info, info + kk, batch.sent_info(j));
    };
    const concatenated_decoder::observer watch =
        [&](int pass, size_t j, const int32_t* w) {
            const uint8_t bad = wrong(j, w) ? 1 : 0;
            std::fill(d_wrong.begin() + long(j * size_t(I)) + (pass - 1),
                      d_wrong.begin() + long((j + 1) * size_t(I)),
                      bad);
        };
    std::vector<concatenated_result> res;
    if (d_reads) {
        std::vector<frame_reads> frames(K);
        for (size_t j = 0; j < K; ++j)
            frames[j] = batch.reads_of(j);
        res = d_dec.decode_reads_batch(*d_reads, frames, d_opt, dec, {}, watch);
    } else {
        res = d_dec.decode_batch(views, d_opt, dec, {}, watch);
    }

    int m = 0;
    while ((1 << m) < code.q())
        ++m;
    detail::parallel_loop::shared().run(d_threads, K, [&](size_t j, int) {
        concatenated_errors& e = d_errors[j];
        e.status = res[j].status;
        e.iterations = res[j].iterations;
        e.bp_iterations = res[j].bp_iterations;
        e.syndrome_ok = res[j].syndrome_ok;
        if (!res[j].ok()) {
            e.symbol_errors = kk;
            e.bit_errors = kk * m;
            return;
        }
        const int32_t* info = d_info.data() + j * size_t(kk);
        const int32_t* sent = batch.sent_info(j);
        for (int t = 0; t < kk; ++t) {
            const int32_t d = info[t];
            if (d != sent[t]) {
                ++e.symbol_errors;
                e.bit_errors += int32_t(std::bitset<32>(uint32_t(d ^ sent[t])).count());
            }
        }
    });
    return d_errors;
}

} // namespace bsid
