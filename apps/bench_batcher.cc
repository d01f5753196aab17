/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "bench_args.h"
#include "bench_batcher.h"
#include "bench_frames.h"
#include <gnuradio/bsid/core/runtime/frame_batcher.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <stdexcept>
#include <thread>

namespace bench {

namespace {

double process_cpu_seconds()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

} // namespace

int bench_batcher(const std::map<std::string, std::string>& opt)
{
    const auto [N, spec, cb] = frame_code_option(opt);
    const bsid::channel_params ch = channel_option(opt, "0.01", "0.01", "0");
    const long long count = count_option(opt, "--frames", "4096");
    const uint64_t seed = seed_option(opt);
    const int threads = int(int_option(opt, "--threads", "0"));
    const auto backends = words_option(opt, "--backend", "auto");
    const auto precisions = words_option(opt, "--precision", "float");
    const auto batches = list_option(opt, "--batch", "256");
    const double delay = receiver_number(opt, "--max-delay-ms", "10");
    const double pace_ms = number_option(opt, "--pace-ms", "0");
    if (!(pace_ms >= 0.0) || pace_ms > 60e3)
        throw std::invalid_argument("--pace-ms takes a number of ms in [0, 60000]");
    const auto pace = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double, std::milli>(pace_ms));

    const auto rx = channel_frames(cb, N, ch, seed, count);
    const size_t NQ = size_t(N) * size_t(cb.q());
    for (const auto& be : backends) {
        for (const auto& pr : precisions) {
            bsid::decoder_config cfg(cb, ch, int(N));
            cfg.backend = bsid::parse_backend(be);
            cfg.precision = bsid::parse_precision(pr);
            cfg.threads = threads;
            auto dec = std::make_shared<bsid::frame_decoder>(cfg);
            for (const double bd : batches) {
                const int B = int(bd);
                if (B < 1 || double(B) != bd)
                    throw std::invalid_argument("--batch takes whole numbers >= 1");
                // raw decode_batch over batches of B (warmed up first)
                const size_t rows = static_cast<size_t>(B);
                std::vector<std::vector<double>> post(rows, std::vector<double>(NQ));
                std::vector<double*> outs;
                for (auto& p : post)
                    outs.push_back(p.data());
                auto raw_batch = [&](size_t first) {
                    std::vector<bsid::frame_view> views;
                    for (size_t k = first; k < std::min<size_t>(first + B, rx.size());
                         ++k)
                        views.push_back({ rx[k].data(), rx[k].size(), nullptr });
                    dec->decode_batch(
                        views,
                        std::vector<double*>(outs.begin(),
                                             outs.begin() + long(views.size())));
                };
                raw_batch(0);
                auto t0 = std::chrono::steady_clock::now();
                for (size_t first = 0; first < rx.size(); first += size_t(B))
                    raw_batch(first);
                const double raw_s = seconds_since(t0);
                // the batcher, fed one frame at a time, taken as they come and
                // their buffers recycled; run twice over the frames: first
                // fresh (its buffers allocated as it goes), then warm, as the
                // raw batches are (their buffers and the decoder's memory in
                // place)
                bsid::frame_batcher fb({ B, delay });
                auto run = [&](uint64_t& erasures, double& cpu_s) {
                    size_t taken = 0;
                    // counts the results and gives their buffers back
                    auto consume = [&](std::vector<bsid::batched_result>&& results) {
                        for (auto& r : results) {
                            erasures += !r.result.ok();
                            ++taken;
                            fb.recycle(std::move(r.posteriors));
                        }
                    };
                    const auto start = std::chrono::steady_clock::now();
                    const double cpu0 = process_cpu_seconds();
                    for (size_t k = 0; k < rx.size(); ++k) {
                        if (pace_ms > 0.0)
                            std::this_thread::sleep_until(start + long(k) * pace);
                        bsid::batched_frame f;
                        f.bits = rx[k];
                        fb.push(std::move(f), dec);
                        consume(fb.take());
                    }
                    fb.flush();
                    while (taken < rx.size())
                        consume(fb.take(100.0));
                    cpu_s = process_cpu_seconds() - cpu0;
                    return seconds_since(start);
                };
                uint64_t cold_erasures = 0, erasures = 0;
                double cold_cpu_s = 0, cpu_s = 0;
                const double cold_s = run(cold_erasures, cold_cpu_s);
                const uint64_t cold_batches = fb.batches();
                const double s = run(erasures, cpu_s);
                const uint64_t batches = fb.batches() - cold_batches;
                const double fps = double(count - (long long)erasures) / s;
                const double cold_fps = double(count - (long long)cold_erasures) / cold_s;
                const double raw_fps = double(count) / raw_s;
                std::printf(
                    "{\"bench\":\"batcher\",\"codebook\":\"%s\",\"N\":%lld,\"Pi\":%g,"
                    "\"Pd\":%g,\"Ps\":%g,\"backend\":\"%s\",\"precision\":\"%s\","
                    "\"frames\":%lld,\"max_batch\":%d,\"max_delay_ms\":%g,\"pace_ms\":%g,"
                    "\"erasures\":%llu,\"batches\":%llu,\"mean_batch\":%.2f,"
                    "\"seconds\":%.4f,\"frames_per_s\":%.1f,\"raw_frames_per_s\":%.1f,"
                    "\"ratio_to_raw\":%.4f,\"cold_frames_per_s\":%.1f,"
                    "\"cold_ratio_to_raw\":%.4f,\"cpu_s_per_frame\":%.6f,"
                    "\"cpu_share\":%.4f}\n",
                    spec.c_str(),
                    N,
                    ch.Pi(),
                    ch.Pd(),
                    ch.Ps(),
                    bsid::to_string(dec->primary().backend()).c_str(),
                    pr.c_str(),
                    count,
                    B,
                    delay,
                    pace_ms,
                    (unsigned long long)erasures,
                    (unsigned long long)batches,
                    double(count) / double(std::max<uint64_t>(batches, 1)),
                    s,
                    fps,
                    raw_fps,
                    fps / raw_fps,
                    cold_fps,
                    cold_fps / raw_fps,
                    cpu_s / double(count),
                    cpu_s / s);
                std::fflush(stdout);
            }
        }
    }
    return 0;
}

} // namespace bench
