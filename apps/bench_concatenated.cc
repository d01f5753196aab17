/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "bench_args.h"
#include "bench_concatenated.h"
#include <gnuradio/bsid/core/outer/concatenated_decoder.h>
#include <gnuradio/bsid/core/sim/concatenated_counter.h>
#include <gnuradio/bsid/core/sim/frame_source.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace bench {

int bench_concatenated(const std::map<std::string, std::string>& opt)
{
    const std::string spec = option(opt, "--codebook", "random:5:16:1000:1");
    const std::string outer_spec = option(opt, "--outer", "ldpc-regular:1000:125:16:3:1");
    const bsid::codebook cb = bsid::codebook::from_spec(spec);
    const bsid::ldpc_code code = bsid::ldpc_code::from_spec(outer_spec);
    const bsid::channel_params ch = channel_option(opt, "0.0105", "0.0105", "0");
    const long long count = count_option(opt, "--frames", "1024");
    bsid::concatenated_options co;
    co.iterations = int(int_option(opt, "--iterations", "10"));
    co.bp_iterations = int(int_option(opt, "--bp-iterations", "50"));
    const uint64_t seed = seed_option(opt);
    const double min_time = number_option(opt, "--min-time", "1");
    const int threads = int(int_option(opt, "--threads", "0"));
    const auto backends = words_option(opt, "--backend", "auto");
    const auto precisions = words_option(opt, "--precision", "float");
    const auto loops = words_option(opt, "--loop", "device");

    const bsid::frame_source src(cb, ch, code, seed);
    bsid::frame_batch batch;
    src.generate(0, size_t(count), batch, threads);
    const double info_bits =
        double(code.k()) * std::log2(double(code.q())) * double(count);
    for (const auto& be : backends) {
        for (const auto& pr : precisions) {
            bsid::decoder_config cfg(cb, ch, src.N());
            cfg.backend = bsid::parse_backend(be);
            cfg.precision = bsid::parse_precision(pr);
            cfg.threads = threads;
            auto inner = bsid::map_decoder::make(cfg);
            bsid::concatenated_decoder dec(*inner, code, threads);
            // one inner pass over the same frames (no priors), for the split
            std::vector<bsid::frame_view> views;
            for (size_t k = 0; k < batch.size(); ++k) {
                bsid::frame_view v = batch.view(k);
                v.extrinsic = true;
                views.push_back(v);
            }
            const size_t NQ = size_t(src.N()) * size_t(cb.q());
            std::vector<double> out(views.size() * NQ);
            std::vector<double*> outs(views.size());
            for (size_t k = 0; k < views.size(); ++k)
                outs[k] = out.data() + k * NQ;
            inner->decode_batch(views, outs); // warm-up (buffers, clocks)
            auto t0 = std::chrono::steady_clock::now();
            inner->decode_batch(views, outs);
            const double inner_s = seconds_since(t0);
            for (const auto& lp : loops) {
                if (lp != "device" && lp != "host")
                    throw std::invalid_argument("--loop takes device and/or host, not " +
                                                lp);
                co.device_loop = lp == "device";
                bsid::concatenated_counter counter(dec, co, threads);
                counter.run(batch); // warm-up
                int runs = 0;
                double s = 0;
                t0 = std::chrono::steady_clock::now();
                do {
                    counter.run(batch);
                    ++runs;
                    s = seconds_since(t0);
                } while (s < min_time);
                long long frame_errors = 0, undetected = 0, passes = 0, bp_its = 0;
                for (const auto& e : counter.errors()) {
                    frame_errors +=
                        e.symbol_errors > 0 || e.status != bsid::frame_status::ok;
                    undetected += e.undetected();
                    passes += e.iterations;
                    bp_its += e.bp_iterations;
                }
                const double per = s / runs;
                std::printf(
                    "{\"bench\":\"concatenated\",\"codebook\":\"%s\",\"outer\":\"%s\","
                    "\"Pi\":%g,\"Pd\":%g,\"Ps\":%g,\"frames\":%lld,\"backend\":\"%s\","
                    "\"precision\":\"%s\",\"loop\":\"%s\",\"device_loop\":%s,"
                    "\"iterations\":%d,\"bp_iterations\":%d,\"threads\":%d,"
                    "\"frame_errors\":%lld,\"undetected\":%lld,\"mean_passes\":%.4f,"
                    "\"mean_bp_iterations\":%.3f,\"runs\":%d,\"seconds\":%.4f,"
                    "\"frames_per_s\":%.1f,\"info_mbit_per_s\":%.4f,"
                    "\"inner_pass_seconds\":%.4f}\n",
                    spec.c_str(),
                    outer_spec.c_str(),
                    ch.Pi(),
                    ch.Pd(),
                    ch.Ps(),
                    count,
                    bsid::to_string(inner->backend()).c_str(),
                    pr.c_str(),
                    lp.c_str(),
                    co.device_loop && dec.has_device_loop() ? "true" : "false",
                    co.iterations,
                    co.bp_iterations,
                    bsid::resolve_threads(threads),
                    frame_errors,
                    undetected,
                    double(passes) / double(count),
                    double(bp_its) / double(count),
                    runs,
                    per,
                    double(count) / per,
                    info_bits / per / 1e6,
                    inner_s);
                std::fflush(stdout);
            }
        }
    }
    return 0;
}

} // namespace bench
