/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bsid_bench --framing stream (docs/benchmarks.md): stream decoding of many
// streams at once against genie framing of the same frames.

#include "bench_args.h"
#include "bench_stream.h"

#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/framing/stream_batch.h>
#include <gnuradio/bsid/core/sim/philox.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace bench {

namespace {


// one stream: frames back to back through one channel, and where each was received
struct sent_stream {
    std::vector<uint8_t> rx;
    std::vector<std::vector<int32_t>> msgs;
    std::vector<long long> bounds; // frames + 1 received positions
};

sent_stream make_stream(const bsid::codebook& cb,
                        const bsid::channel_params& ch,
                        int N,
                        const std::vector<uint8_t>& W,
                        int frames,
                        uint64_t seed,
                        uint64_t id)
{
    sent_stream s;
    bsid::philox_stream src(seed, (1ULL << 62) + id);
    std::vector<uint8_t> bits;
    std::vector<uint8_t> x(size_t(N) * size_t(cb.n()));
    for (int k = 0; k < frames; ++k) {
        std::vector<int32_t> m(static_cast<size_t>(N));
        for (auto& d : m)
            d = int32_t(src.next_u32() % uint32_t(cb.q()));
        cb.encode(m.data(), m.size(), x.data());
        bits.insert(bits.end(), W.begin(), W.end());
        bits.insert(bits.end(), x.begin(), x.end());
        s.msgs.push_back(std::move(m));
    }
    auto t = bsid::transmit(ch, bits.data(), bits.size(), seed, id);
    const long long F = (long long)W.size() + (long long)N * cb.n();
    for (int k = 0; k <= frames; ++k)
        s.bounds.push_back(k * F + t.drift[size_t(k * F)]);
    s.rx = std::move(t.rx);
    return s;
}

long long
symbol_errors(const std::vector<double>& post, const std::vector<int32_t>& msg, int q)
{
    std::vector<int32_t> d(msg.size());
    bsid::hard_decisions(post.data(), int(msg.size()), q, d.data());
    long long e = 0;
    for (size_t i = 0; i < msg.size(); ++i)
        e += d[i] != msg[i];
    return e;
}

struct stream_config {
    std::string spec;
    bsid::codebook cb;
    bsid::channel_params ch;
    long long N, per, streams;
    std::string W;
    int K;
    int workers;
    bsid::decoder_config cfg;
};

// one configuration: genie framing, then stream decoding, timed for min_time each
void run_config(const stream_config& c,
                const std::vector<sent_stream>& sent,
                double min_time)
{
    const int q = c.cb.q();
    auto fd = std::make_shared<bsid::frame_decoder>(c.cfg, bsid::parse_sync_word(c.W));
    bsid::stream_options so;
    so.lookahead = c.K;

    // genie framing: every frame between its true boundaries, in one decode_batch
    std::vector<bsid::frame_view> views;
    for (long long k = 0; k < c.streams; ++k) {
        const auto& b = sent[size_t(k)].bounds;
        for (long long j = 0; j < c.per; ++j)
            views.push_back({ sent[size_t(k)].rx.data() + b[size_t(j)],
                              size_t(b[size_t(j) + 1] - b[size_t(j)]) });
    }
    std::vector<std::vector<double>> gpost(views.size(),
                                           std::vector<double>(size_t(c.N) * size_t(q)));
    std::vector<double*> outs;
    for (auto& p : gpost)
        outs.push_back(p.data());
    fd->decode_batch(views, outs); // warm-up
    double gsec = 0;
    unsigned long long gframes = 0, gok = 0;
    const auto g0 = std::chrono::steady_clock::now();
    do {
        for (const auto& r : fd->decode_batch(views, outs))
            gok += r.ok();
        gframes += views.size();
        gsec = seconds_since(g0);
    } while (gsec < min_time);

    // stream decoding: one stream_batch over all streams
    double worker_s = 0; // the workers' time, summed over them (stream_batch)
    double round_s = 0;  // its part in the rounds' decode_batch calls
    auto run_streams = [&](size_t* rounds) {
        bsid::stream_batch batch(fd, size_t(c.streams), so, c.workers);
        for (long long k = 0; k < c.streams; ++k) {
            batch.feed(size_t(k), sent[size_t(k)].rx.data(), sent[size_t(k)].rx.size());
            batch.end_of_stream(size_t(k));
        }
        auto out = batch.decode(rounds);
        worker_s += batch.worker_seconds();
        round_s += batch.round_seconds();
        return out;
    };
    size_t rounds = 0;
    run_streams(&rounds); // warm-up: a backend for each state space
    fd->set_profiling(true);
    fd->reset_profile();
    worker_s = 0;
    round_s = 0;
    double ssec = 0;
    unsigned long long sframes = 0, sok = 0;
    std::vector<std::vector<bsid::stream_frame>> last;
    const auto s0 = std::chrono::steady_clock::now();
    do {
        last = run_streams(&rounds);
        for (const auto& fs : last)
            for (const auto& f : fs)
                ++sframes, sok += f.result.ok();
        ssec = seconds_since(s0);
    } while (ssec < min_time);

    const bsid::frame_stage_times st = fd->profile();
    fd->set_profiling(false);
    // the last run against genie framing
    long long ser_s = 0, ser_g = 0, lost = 0, wrong_end = 0, miscount = 0, wrong_ok = 0;
    for (long long k = 0; k < c.streams; ++k) {
        const auto& fs = last[size_t(k)];
        const auto& s = sent[size_t(k)];
        miscount += (long long)fs.size() != c.per;
        for (long long j = 0; j < c.per; ++j) {
            ser_g += symbol_errors(gpost[size_t(k * c.per + j)], s.msgs[size_t(j)], q);
            if (size_t(j) >= fs.size())
                continue;
            const auto& f = fs[size_t(j)];
            lost += f.result.status == bsid::frame_status::sync_lost;
            wrong_end += f.end != s.bounds[size_t(j) + 1];
            const long long e = symbol_errors(f.posteriors, s.msgs[size_t(j)], q);
            ser_s += e;
            // an ok frame with most of its symbols wrong: read at a wrong
            // alignment (by index: the j-th frame out is the j-th sent)
            wrong_ok += f.result.ok() && 2 * e > c.N;
            if (f.result.ok() && 2 * e > c.N && std::getenv("BSID_BENCH_VERBOSE"))
                std::fprintf(
                    stderr,
                    "stream %lld frame %lld: ok at %lld, sent at %lld, %lld errors\n",
                    k,
                    j,
                    f.start,
                    s.bounds[size_t(j)],
                    e);
        }
    }
    const double symbols = double(c.streams * c.per * c.N);
    const double sfps = double(sok) / ssec, gfps = double(gok) / gsec;
    std::printf("{\"bench\":\"decode\",\"framing\":\"stream\",\"codebook\":\"%s\","
                "\"N\":%lld,\"n\":%d,\"q\":%d,\"Pi\":%g,\"Pd\":%g,\"Ps\":%g,\"Pr\":%g,"
                "\"sync_word\":\"%s\",\"lookahead\":%d,\"backend\":\"%s\","
                "\"storage\":\"%s\",\"precision\":\"%s\",\"threads\":%d,"
                "\"workers\":%d,\"streams\":%lld,\"stream_frames\":%lld,\"rounds\":%zu,"
                "\"frames\":%llu,"
                "\"frames_ok\":%llu,\"seconds\":%.6f,\"frames_per_s\":%.3f,"
                "\"mbit_per_s\":%.6f,\"genie\":{\"frames\":%llu,\"frames_ok\":%llu,"
                "\"seconds\":%.6f,\"frames_per_s\":%.3f},\"ratio_to_genie\":%.4f,"
                "\"ser\":%.6g,\"ser_genie\":%.6g,\"sync_lost\":%lld,\"wrong_ends\":%lld,"
                "\"streams_miscounted\":%lld,\"wrong_ok\":%lld,\"worker_s\":%.6f,"
                "\"stage_s_per_frame\":{\"prepare\":%.3g,"
                "\"lookahead\":%.3g,\"decode\":%.3g,\"finish\":%.3g,\"stream\":%.3g},"
                "\"rounds_s_per_frame\":%.3g}\n",
                c.spec.c_str(),
                c.N,
                c.cb.n(),
                q,
                c.ch.Pi(),
                c.ch.Pd(),
                c.ch.Ps(),
                c.cfg.Pr,
                c.W.c_str(),
                c.K,
                bsid::to_string(fd->primary().backend()).c_str(),
                bsid::to_string(fd->primary().storage()).c_str(),
                bsid::to_string(fd->primary().precision()).c_str(),
                bsid::resolve_threads(c.cfg.threads),
                c.workers,
                c.streams,
                c.per,
                rounds,
                sframes,
                sok,
                ssec,
                sfps,
                sfps * double(c.N) * std::log2(double(q)) / 1e6,
                gframes,
                gok,
                gsec,
                gfps,
                sfps / gfps,
                double(ser_s) / symbols,
                double(ser_g) / symbols,
                lost,
                wrong_end,
                miscount,
                wrong_ok,
                worker_s,
                st.prepare / double(sframes),
                st.lookahead / double(sframes),
                st.decode / double(sframes),
                st.finish / double(sframes),
                (worker_s - st.prepare - st.lookahead - st.decode - st.finish) /
                    double(sframes),
                round_s / double(sframes));
    std::fflush(stdout);
}

} // namespace

int bench_stream(const std::map<std::string, std::string>& opt)
{
    const auto [N, spec, cb] = frame_code_option(opt);
    std::vector<long long> counts;
    for (double v : list_option(opt, "--streams", "256"))
        counts.push_back((long long)v);
    const long long most = *std::max_element(counts.begin(), counts.end());
    const long long per = int_option(opt, "--stream-frames", "8");
    if (*std::min_element(counts.begin(), counts.end()) < 1 || per < 1)
        throw std::invalid_argument("--streams and --stream-frames must be at least 1");
    const double min_time = number_option(opt, "--min-time", "2");
    const uint64_t seed = seed_option(opt);
    const std::string W = std::get<std::string>(receiver_option(opt, "--sync-word", ""));
    const auto Wbits = bsid::parse_sync_word(W);

    const auto channels = channel_grid_option(opt, "0.01", "0.01", "0");
    const auto backends = words_option(opt, "--backend", "auto");
    const auto storages = words_option(opt, "--storage", "auto");
    const auto precisions = words_option(opt, "--precision", "float");
    const auto Ks = list_option(opt, "--lookahead", "2");
    const auto workers = list_option(opt, "--workers", "2");
    const int threads = int(int_option(opt, "--threads", "0"));
    const double Pr = receiver_number(opt, "--Pr", "1e-10");
    const auto device_lists = bench::device_lists(opt);
    if (device_lists.size() != 1)
        throw std::invalid_argument("--devices: stream framing takes one device list");
    for (size_t c = 0; c < channels.size(); ++c) {
        const bsid::channel_params ch = channels[c];
        std::vector<sent_stream> sent;
        for (long long k = 0; k < most; ++k)
            sent.push_back(
                make_stream(cb, ch, int(N), Wbits, int(per), seed, uint64_t(k)));
        // every combination of the other options, in order
        std::vector<stream_config> configs;
        for (long long streams : counts)
            for (const auto& be : backends)
                for (const auto& st : storages)
                    for (const auto& pr : precisions)
                        for (double K : Ks)
                            for (double w : workers) {
                                bsid::decoder_config cfg(cb, ch, int(N));
                                cfg.backend = bsid::parse_backend(be);
                                cfg.storage = bsid::parse_storage(st);
                                cfg.precision = bsid::parse_precision(pr);
                                cfg.threads = threads;
                                cfg.Pr = Pr;
                                cfg.cuda.devices = bsid::parse_devices(device_lists[0]);
                                configs.push_back({ spec,
                                                    cb,
                                                    ch,
                                                    N,
                                                    per,
                                                    streams,
                                                    W,
                                                    int(K),
                                                    int(w),
                                                    cfg });
                            }
        for (const auto& c : configs)
            run_config(c, sent, min_time);
    }
    return 0;
}

} // namespace bench
