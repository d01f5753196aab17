/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bsid_bench --bench decode --reads L (bench_reads.h).

#include "bench_args.h"
#include "bench_reads.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/reads/reads_decoder.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace bench {

namespace {

// `count` frames of N random symbols, each sent M times through `ch`: read r
// of frame k is channel frame k M + r of `seed`.
struct clusters {
    std::vector<std::vector<int64_t>> msg;
    std::vector<std::vector<std::vector<uint8_t>>> rx;
};

clusters make_clusters(const bsid::codebook& cb,
                       long long N,
                       const bsid::channel_params& ch,
                       uint64_t seed,
                       long long count,
                       int M)
{
    clusters c;
    bsid::philox_stream src(seed, 1ULL << 62);
    for (long long k = 0; k < count; ++k) {
        std::vector<int64_t> msg(static_cast<size_t>(N));
        for (auto& d : msg)
            d = int64_t(src.next_u32() % uint32_t(cb.q()));
        const auto bits = cb.encode(msg.data(), msg.size());
        std::vector<std::vector<uint8_t>> reads;
        for (int r = 0; r < M; ++r)
            reads.push_back(
                bsid::transmit(ch, bits.data(), bits.size(), seed, uint64_t(k * M + r))
                    .rx);
        c.msg.push_back(std::move(msg));
        c.rx.push_back(std::move(reads));
    }
    return c;
}

} // namespace

int bench_reads(const std::map<std::string, std::string>& opt)
{
    const auto [N, spec, cb] = frame_code_option(opt);
    const auto channels = channel_grid_option(opt, "0.01", "0.01", "0");
    const auto reads = list_option(opt, "--reads", "2");
    const auto methods = words_option(opt, "--read-method", "joint");
    for (const auto& m : methods)
        bsid::parse_read_method(m); // before any work
    for (double M : reads)
        if (M < 1 || M != std::floor(M) || M > 1024)
            throw std::invalid_argument("--reads takes counts of reads, 1 to 1024");
    const auto backends = words_option(opt, "--backend", "auto");
    const auto precisions = words_option(opt, "--precision", "float");
    const auto thr = list_option(opt, "--threads", "0");
    const double min_time = number_option(opt, "--min-time", "2");
    const double Pr = receiver_number(opt, "--Pr", "1e-10");
    const long long iterations = int_option(opt, "--iterations", "8");
    const double tolerance = number_option(opt, "--tolerance", "1e-4");
    const uint64_t seed = seed_option(opt);
    const long long batch = count_option(opt, "--batch", "1024");
    const double bits_per_symbol = std::log2(double(cb.q()));

    for (size_t c = 0; c < channels.size(); ++c) {
        const bsid::channel_params ch = channels[c];
        for (double Md : reads) {
            const int M = int(Md);
            const clusters cl = make_clusters(cb, N, ch, seed, batch, M);
            std::vector<bsid::frame_reads> frames;
            for (const auto& rx : cl.rx) {
                bsid::frame_reads f;
                for (const auto& y : rx)
                    f.reads.push_back({ y.data(), nullptr, y.size() });
                frames.push_back(std::move(f));
            }
            for (const auto& method : methods)
                for (const auto& be : backends)
                    for (const auto& pr : precisions)
                        for (double t : thr) {
                            bsid::decoder_config base(cb, ch, int(N));
                            base.backend = bsid::parse_backend(be);
                            base.precision = bsid::parse_precision(pr);
                            base.threads = int(t);
                            base.Pr = Pr;
                            bsid::reads_config rc(base);
                            rc.method = bsid::parse_read_method(method);
                            rc.combine.iterations = int(iterations);
                            rc.combine.tolerance = tolerance;
                            bsid::reads_decoder dec(rc);
                            const size_t NQ = size_t(N) * size_t(cb.q());
                            std::vector<std::vector<double>> posts(
                                frames.size(), std::vector<double>(NQ));
                            std::vector<double*> outs;
                            for (auto& p : posts)
                                outs.push_back(p.data());
                            auto res = dec.decode_batch(frames, outs); // warm-up
                            uint64_t done = 0, erasures = 0, calls = 0;
                            const auto t0 = std::chrono::steady_clock::now();
                            double secs = 0;
                            do {
                                res = dec.decode_batch(frames, outs);
                                ++calls;
                                done += frames.size();
                                for (const auto& r : res)
                                    erasures += !r.ok();
                                secs = seconds_since(t0);
                            } while (secs < min_time);
                            // errors and rounds of the last call
                            long long sym = 0, fe = 0, rounds = 0;
                            std::vector<int32_t> d(static_cast<size_t>(N));
                            for (size_t k = 0; k < frames.size(); ++k) {
                                bsid::hard_decisions(outs[k], int(N), cb.q(), d.data());
                                long long e = 0;
                                for (long long i = 0; i < N; ++i)
                                    e += !res[k].ok() ||
                                         d[size_t(i)] != cl.msg[k][size_t(i)];
                                sym += e;
                                fe += e > 0;
                                rounds += res[k].rounds;
                            }
                            const double fps = double(done - erasures) / secs;
                            long long S = 1;
                            for (int r = 0; r < M; ++r)
                                S *= dec.limits(size_t(r)).mtau.size();
                            const auto& L = dec.limits(0);
                            std::printf(
                                "{\"bench\":\"reads\",\"codebook\":\"%s\",\"N\":%lld,"
                                "\"n\":%d,\"q\":%d,\"alphabet\":%d,\"Pi\":%g,\"Pd\":%g,"
                                "\"Ps\":%g,\"Pr\":%g,\"reads\":%d,\"method\":\"%s\","
                                "\"backend\":\"%s\",\"precision\":\"%s\",\"threads\":%d,"
                                "\"batch\":%lld,\"calls\":%llu,\"frames\":%llu,"
                                "\"frames_ok\":%llu,\"erasures\":%llu,\"seconds\":%.6f,"
                                "\"frames_per_s\":%.3f,\"mbit_per_s\":%.6f,\"M_tau\":%d,"
                                "\"M_n\":%d,\"joint_states\":%lld,"
                                "\"symbol_error_rate\":%.6g,\"frame_error_rate\":%.6g,"
                                "\"mean_rounds\":%.4g}\n",
                                spec.c_str(),
                                N,
                                cb.n(),
                                cb.q(),
                                cb.alphabet(),
                                ch.Pi(),
                                ch.Pd(),
                                ch.Ps(),
                                Pr,
                                M,
                                method.c_str(),
                                bsid::to_string(dec.single(0).backend()).c_str(),
                                pr.c_str(),
                                bsid::resolve_threads(int(t)),
                                batch,
                                (unsigned long long)calls,
                                (unsigned long long)done,
                                (unsigned long long)(done - erasures),
                                (unsigned long long)erasures,
                                secs,
                                fps,
                                fps * double(N) * bits_per_symbol / 1e6,
                                L.mtau.size(),
                                L.mn.size(),
                                method == "joint" ? S : 0LL,
                                double(sym) / double(N * (long long)frames.size()),
                                double(fe) / double(frames.size()),
                                double(rounds) / double(frames.size()));
                            std::fflush(stdout);
                        }
        }
    }
    return 0;
}

} // namespace bench
