/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "bench_args.h"
#include "bench_estimate.h"
#include "bench_frames.h"
#include <gnuradio/bsid/core/estimation/channel_estimator.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace bench {

namespace {

// |estimate - truth| / truth, or the absolute error where the truth is 0
double rel_error(double est, double truth)
{
    return truth != 0 ? std::fabs(est - truth) / truth : std::fabs(est);
}

} // namespace

int bench_estimate(const std::map<std::string, std::string>& opt)
{
    const auto [N, spec, cb] = frame_code_option(opt);
    const bsid::channel_params truth = channel_option(opt, "0.02", "0.01", "0.005");
    const auto init = list_option(opt, "--initial", "0.01,0.01,0.01");
    if (init.size() != 3)
        throw std::invalid_argument("--initial takes Pi,Pd,Ps");
    // over the channel's alphabet (--alphabet)
    const bsid::channel_params initial(init[0], init[1], init[2], truth.alphabet());
    const long long count = count_option(opt, "--frames", "200");
    const uint64_t seed = seed_option(opt);
    const auto backends = words_option(opt, "--backend", "auto");
    const auto precisions = words_option(opt, "--precision", "double");
    const auto inputs = words_option(opt, "--input", "bits");
    const double llr_sigma = llr_sigma_option(opt);
    bsid::estimate_options eo;
    eo.iterations = int(int_option(opt, "--iterations", "100"));
    eo.tolerance = number_option(opt, "--tolerance", "1e-4");
    for (const auto& name : words_option(opt, "--fix", ""))
        eo.fix(name); // (an unknown name: estimate_options::fix's error)
    const int threads = int(int_option(opt, "--threads", "0"));

    const auto rx = channel_frames(cb, N, truth, seed, count);
    const auto llr = bpsk_llrs(rx, llr_sigma, seed);
    for (const auto& in : inputs) {
        const bool soft = bsid::parse_input_kind(in) == bsid::input_kind::llr;
        if (bsid::parse_input_kind(in) == bsid::input_kind::logprob ||
            (soft && truth.alphabet() != 2))
            throw std::invalid_argument("--bench estimate: --input " + in +
                                        ": the benchmark's soft input is BPSK LLRs, of "
                                        "bits; over letters it takes --input bits");
        std::vector<bsid::frame_view> views;
        for (size_t k = 0; k < rx.size(); ++k) {
            bsid::frame_view v;
            if (soft)
                v.llr = llr[k].data();
            else
                v.bits = rx[k].data();
            v.rho = rx[k].size();
            views.push_back(v);
        }
        for (const auto& be : backends) {
            for (const auto& pr : precisions) {
                bsid::decoder_config cfg(cb, initial, int(N));
                cfg.backend = bsid::parse_backend(be);
                cfg.precision = bsid::parse_precision(pr);
                cfg.threads = threads;
                const auto used = bsid::map_decoder::make(cfg); // the backend, resolved
                const auto t0 = std::chrono::steady_clock::now();
                const bsid::channel_estimate est = bsid::estimate_channel(cfg, views, eo);
                const double s =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                        .count();
                std::printf(
                    "{\"bench\":\"estimate\",\"codebook\":\"%s\",\"N\":%lld,\"frames\":%"
                    "lld,"
                    "\"input\":\"%s\",\"backend\":\"%s\",\"precision\":\"%s\","
                    "\"cpu_isa\":\"%s\",\"threads\":%d,\"true\":[%g,%g,%g],\"initial\":[%"
                    "g,%g,%g],"
                    "\"estimate\":[%.6g,%.6g,%.6g],\"llr_scale\":%.6g,"
                    "\"rel_error\":[%.4g,%.4g,%.4g],\"iterations\":%d,\"converged\":%s,"
                    "\"frames_used\":%zu,\"frames_refused\":%zu,\"seconds\":%.3f,"
                    "\"seconds_per_iteration\":%.4f,\"log_likelihood\":[%.10g,%.10g],"
                    "\"M_tau\":%d,\"M_n\":%d}\n",
                    spec.c_str(),
                    N,
                    count,
                    in.c_str(),
                    bsid::to_string(used->backend()).c_str(),
                    pr.c_str(),
                    bsid::cpu_isa().c_str(),
                    bsid::resolve_threads(threads),
                    truth.Pi(),
                    truth.Pd(),
                    truth.Ps(),
                    initial.Pi(),
                    initial.Pd(),
                    initial.Ps(),
                    est.ch.Pi(),
                    est.ch.Pd(),
                    est.ch.Ps(),
                    est.llr_scale,
                    rel_error(est.ch.Pi(), truth.Pi()),
                    rel_error(est.ch.Pd(), truth.Pd()),
                    rel_error(est.ch.Ps(), truth.Ps()),
                    est.iterations,
                    est.converged ? "true" : "false",
                    est.frames_used,
                    est.frames_refused,
                    s,
                    s / est.iterations,
                    est.log_likelihoods.front(),
                    est.log_likelihoods.back(),
                    est.mtau.size(),
                    est.mn.size());
                std::fflush(stdout);
            }
        }
    }
    return 0;
}

} // namespace bench
