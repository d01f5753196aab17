/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bsid_bench: throughput benchmarks, one JSON line per configuration
// (docs/design.md section 7). Results belong in docs/benchmarks.md.
//
//   bsid_bench --bench channel [-N 500] [-n 8] [--tau T] [--Pi L] [--Pd L]
//              [--Ps L] [--threads L] [--frames K] [--min-time S] [--seed S]
//              [--drift 0|1]
//   bsid_bench --bench decode [-N 500] [-n 8] [-q 16] [--codebook SPEC]
//              [--Pi L] [--Pd L] [--Ps L] [--backend L] [--storage L]
//              [--precision L] [--threads L] [--batch K] [--min-time S]
//              [--min-calls K] [--compare cpu] [--no-profile]
//
// L is a value or a comma list; the benchmark runs every combination.

#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/channel/channel_params.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/sim/philox.h>

#include "bench_args.h"
#include "bench_batcher.h"
#include "bench_concatenated.h"
#include "bench_estimate.h"
#include "bench_frames.h"
#include "bench_reads.h"
#include "bench_stream.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

const char* usage =
    R"(usage: bsid_bench --bench channel|decode|estimate|concatenated|batcher [options]

Benchmarks, one JSON line per configuration on stdout:
  channel   the BSID channel emulator (bsid::transmit) on random frames
  decode    the MAP decoder (decode_batch) on frames sent through the channel
  estimate  channel estimation (estimate_channel) on frames sent through a
            known channel: the estimate, its errors, iterations and time
  concatenated  the iterative decoder of a concatenated scheme on a batch of
            simulated frames: frames/s, information Mbit/s, frame errors,
            passes and BP iterations
  batcher   the frame batcher fed one frame at a time, against decode_batch
            of the same frames in batches of --batch

Options (L: a value or a comma-separated list; every combination runs):
  -N N            message symbols per frame (default 500)
  -n n            bits per codeword (default 8); a frame has tau = n N bits
  --tau T         frame length in bits (overrides -N and -n)
  --Pi L --Pd L --Ps L
                  channel probabilities (default 0.01 each)
  --threads L     host threads, frames spread over them (default 1)
  --frames K      frames per timed batch (default: about 2^24 bits' worth)
  --min-time S    run batches for at least S seconds (default 1)
  --seed S        channel seed (default 1)
  --drift 0|1     1: bsid::transmit with its drift path (the Python API);
                  0: the streaming emulator, received bits only (default 1)

Decoder options (--bench decode; defaults are config S500, Pi = Pd = 0.01, Ps = 0;
the rates frames_per_s, mbit_per_s and cells_per_s count the frames decoded ok,
frames_ok; erasures counts those the decoder refused):
  -q q            message symbols per codeword (default 16)
  --alphabet A    the channel's letters, 2 (bits, default) to 256: the code
                  (--codebook random: and sparse: specs, or -n and -q) is over
                  them
  --codebook SPEC codebook spec (default random:n:q:1:1; it fixes n and q)
  --backend L     cpu | cuda | auto (default auto)
  --storage L     global | local | auto (default auto)
  --precision L   float | double (default float)
  --input L       bits | llr (default bits): llr decodes the same frames as
                  soft decisions, each received bit b as the LLR 2 y / s^2 of
                  y = 2b - 1 + s n (BPSK in Gaussian noise n, s = --llr-sigma)
  --llr-sigma S   the noise of --input llr (default 0.5)
  --batch K       frames per decode_batch call (default max(16, 4 threads))
  --min-calls K   at least K timed decode_batch calls (default 1); each call's
                  time, host to host, is reported (call_ms: min, median, p90,
                  max; with --batch 1, the one-frame latency)
  --cuda-streams L  CUDA: lanes decoding a batch's chunks at once, overlapping
                  host work with kernels (cuda_options::streams; 1: one
                  chunk at a time; default 0: the backend's default, 2)
  --share-g L     CUDA: 1 (default) the register kernels make G once per book
                  and received position where that saves threads, 0 once per
                  index and state (decoder_config::share_g; the same values)
  --local-window K  CUDA local storage: symbol indices per window, as far as
                  memory allows (decoder_config::local_window; default 0:
                  within 192 MiB of the window's metrics)
  --Pr X          drift exclusion probability (default 1e-10)
  --devices D     CUDA: the GPUs one decoder splits each batch over, "all" or
                  indices like 0,1 (decoder_config::devices; default: device 0);
                  alternatives separated by '/' ("0/0,1": one GPU, then two;
                  stream framing: one list)
  --compare cpu   also decode the same frames with the CPU backend (all
                  threads) and report the speed ratio
  --no-profile    skip the profiled batch run after the timed ones for
                  stage_s_per_frame (the stage times of the decoder's passes);
                  the JSON then has no stage_s_per_frame (genie framing; takes
                  no value)
  --framing F     genie (default): frames between their true boundaries;
                  stream: many streams of frames sent back to back through
                  one channel each, decoded by the stream decoder one frame of
                  each stream per batch, against genie framing of the same
                  frames in the same run (frames_per_s counts frames decoded
                  ok; ratio_to_genie, SER, sync losses, wrong MAP ends, and
                  wrong_ok: frames put out ok with most symbols wrong;
                  stage_s_per_frame: the frame decoder's stages and the
                  stream decoders' own work, in the workers' seconds, which
                  add up to worker_s, the workers' time summed over them)
  --streams S     streams (stream framing; default 256)
  --stream-frames K  frames per stream (stream framing; default 8)
  --lookahead L   the stream decoder's look-ahead K (stream framing; default 2)
  --sync-word W   the frames' sync word, e.g. 0110100111010010 (default none)
  --workers L     host threads taking turns on the backend (stream framing;
                  default 2)
  --reads L       decode each frame from L reads, each through its own
                  realization of the channel (bsid::reads_decoder,
                  docs/reads.md); the JSON's bench is "reads": frames_per_s
                  counts frames (clusters) decoded ok, symbol_error_rate and
                  frame_error_rate those of the last call against the sent
                  messages. With it: --read-method L (joint | combine; default
                  joint), --iterations and --tolerance (the combiner's rule;
                  default 8 and 1e-4), --batch (frames per call; default
                  1024), --threads (default 0: all cores), --backend,
                  --precision, --Pr

Estimation options (--bench estimate; -N, --codebook, --backend, --precision
(default double), --input, --llr-sigma, --threads (default 0: all cores),
--seed as above):
  --Pi X --Pd X --Ps X  the true channel (default 0.02, 0.01, 0.005)
  --initial Pi,Pd,Ps    the initial point (default 0.01,0.01,0.01)
  --frames K            frames (default 200)
  --iterations I        at most I iterations (default 100)
  --tolerance X         relative change that stops it (default 1e-4)
  --fix NAMES           keep these at their initial values: a comma list of
                        Pi, Pd, Ps, llr_scale
Concatenated options (--bench concatenated; --codebook (default
random:5:16:1000:1), --backend, --precision (the inner decoder's; default
float), --threads (default 0: all cores), --seed, --min-time as above):
  --outer SPEC          the outer LDPC code (default ldpc-regular:1000:125:16:3:1)
  --Pi X --Pd X --Ps X  the channel (default 0.0105, 0.0105, 0)
  --frames K            frames in the batch (default 1024)
  --iterations I        passes, at most (default 10)
  --bp-iterations B     BP iterations per pass, at most (default 50)
  --loop L              device and/or host: concatenated_options::device_loop
                        (default device; the host loop where there is no
                        device loop)
Batcher options (--bench batcher; -N, --codebook, --Pi, --Pd, --Ps, --backend,
--precision, --threads, --seed as for decode):
  --frames K            frames (default 4096)
  --batch L             max_batch of the batcher and the raw batches (default 256)
  --max-delay-ms X      the batcher's max_delay_ms (default 10)
  --pace-ms X           push a frame every X ms, as a receiver would (default
                        0: as fast as the batcher takes them)
  The frames go through one batcher twice: cold_frames_per_s is the first
  pass (its result buffers allocated as it goes), frames_per_s the second
  (buffers recycled), against the raw batches after their warm-up call.
  cpu_s_per_frame and cpu_share are the process's CPU time over the second
  pass, per frame and per second of it (threads waiting use none).
  -h, --help      this text

Decoded message bits/s count N log2(q) bits per frame; lattice cells follow the
paper: N q M_tau (n M_n - m_n^-(m_n^- - 1)/2) per frame.
)";

struct channel_result {
    double seconds = 0;
    uint64_t frames = 0, bits_in = 0, bits_out = 0;
    uint64_t insertions = 0, deletions = 0, substitutions = 0;
};

// Runs `frames` frames (ids first..first+frames-1) over `threads` threads.
void run_channel_batch(const bsid::channel_params& ch,
                       const std::vector<std::vector<uint8_t>>& pool,
                       uint64_t seed,
                       uint64_t first,
                       long long frames,
                       int threads,
                       bool drift,
                       channel_result& acc)
{
    uint64_t bits_out = 0, ins = 0, del = 0, sub = 0;
#pragma omp parallel num_threads(threads) reduction(+ : bits_out, ins, del, sub)
    {
        std::vector<uint8_t> rx;
#pragma omp for schedule(static)
        for (long long k = 0; k < frames; ++k) {
            const auto& bits = pool[size_t(k) % pool.size()];
            const uint64_t id = first + uint64_t(k);
            if (drift) {
                const auto t = bsid::transmit(ch, bits.data(), bits.size(), seed, id);
                bits_out += t.rx.size();
            } else {
                bsid::channel_emulator em(ch, seed, id);
                rx.clear();
                em.process(bits.data(), bits.size(), rx);
                bits_out += rx.size();
                ins += em.insertions();
                del += em.deletions();
                sub += em.substitutions();
            }
        }
    }
    acc.frames += uint64_t(frames);
    acc.bits_in += uint64_t(frames) * pool[0].size();
    acc.bits_out += bits_out;
    acc.insertions += ins;
    acc.deletions += del;
    acc.substitutions += sub;
}

int bench_channel(const std::map<std::string, std::string>& opt)
{
    long long tau =
        bench::int_option(opt, "-N", "500") * bench::int_option(opt, "-n", "8");
    if (opt.count("--tau"))
        tau = bench::int_option(opt, "--tau", "");
    if (tau < 1)
        throw std::invalid_argument("the frame length tau must be at least 1 bit");
    const auto channels = bench::channel_grid_option(opt, "0.01", "0.01", "0.01");
    const auto thr = bench::list_option(opt, "--threads", "1");
    const double min_time = bench::number_option(opt, "--min-time", "1");
    const uint64_t seed = bench::seed_option(opt);
    const bool drift = bench::int_option(opt, "--drift", "1") != 0;
    const long long batch = opt.count("--frames")
                                ? bench::count_option(opt, "--frames", "")
                                : std::max(1LL, (1LL << 24) / tau);

    // A pool of random input frames, drawn once, outside the timing.
    std::vector<std::vector<uint8_t>> pool(16, std::vector<uint8_t>(size_t(tau)));
    bsid::philox_stream src(seed ^ 0x5eedULL, 1);
    for (auto& f : pool)
        for (auto& b : f)
            b = uint8_t(src.next_u32() & 1u);

    for (size_t c = 0; c < channels.size(); ++c) {
        const bsid::channel_params ch = channels[c];
        for (double t : thr) {
            const int threads = int(t);
            if (threads < 1)
                throw std::invalid_argument("--threads must be at least 1");
            channel_result warm, res;
            run_channel_batch(
                ch, pool, seed, 0, std::min(batch, 8LL), threads, drift, warm);
            const auto t0 = std::chrono::steady_clock::now();
            double elapsed = 0;
            do {
                run_channel_batch(ch, pool, seed, res.frames, batch, threads, drift, res);
                elapsed =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                        .count();
            } while (elapsed < min_time);
            res.seconds = elapsed;
            std::printf("{\"bench\":\"channel\",\"api\":\"%s\",\"Pi\":%g,\"Pd\":%g,"
                        "\"Ps\":%g,\"tau\":%lld,\"threads\":%d,\"frames\":%llu,"
                        "\"seconds\":%.6f,\"mbit_per_s\":%.3f,"
                        "\"mbit_per_s_per_thread\":%.3f,\"frames_per_s\":%.1f,"
                        "\"rx_bits_per_tx_bit\":%.6f",
                        drift ? "transmit" : "channel_emulator",
                        ch.Pi(),
                        ch.Pd(),
                        ch.Ps(),
                        tau,
                        threads,
                        (unsigned long long)res.frames,
                        res.seconds,
                        double(res.bits_in) / res.seconds / 1e6,
                        double(res.bits_in) / res.seconds / 1e6 / threads,
                        double(res.frames) / res.seconds,
                        double(res.bits_out) / double(res.bits_in));
            if (!drift) {
                const double b = double(res.bits_in);
                std::printf(",\"insertions_per_bit\":%.6g,\"deletions_per_bit\":%.6g,"
                            "\"substitutions_per_bit\":%.6g",
                            double(res.insertions) / b,
                            double(res.deletions) / b,
                            double(res.substitutions) / b);
            }
            std::printf(",\"omp_max_threads\":%d}\n", omp_get_max_threads());
            std::fflush(stdout);
        }
    }
    return 0;
}


struct decode_run {
    double seconds = 0;
    uint64_t frames = 0, erasures = 0;
    std::vector<double> call_seconds; // each timed decode_batch call, sorted
    bsid::stage_times stages;         // of one profiled batch after the timed ones
    uint64_t profiled_frames = 0;     // 0: not profiled
};

decode_run time_decoder(bsid::map_decoder& dec,
                        const std::vector<bsid::frame_view>& views,
                        double min_time,
                        long long min_calls,
                        bool profile)
{
    const size_t NQ = size_t(dec.N()) * size_t(dec.q());
    std::vector<std::vector<double>> posts(views.size(), std::vector<double>(NQ));
    std::vector<double*> outs;
    for (auto& p : posts)
        outs.push_back(p.data());
    dec.decode_batch(views, outs); // warm-up: workspaces, page faults
    decode_run r;
    const auto t0 = std::chrono::steady_clock::now();
    do {
        const auto c0 = std::chrono::steady_clock::now();
        const auto res = dec.decode_batch(views, outs);
        const auto c1 = std::chrono::steady_clock::now();
        r.call_seconds.push_back(std::chrono::duration<double>(c1 - c0).count());
        for (const auto& x : res)
            r.erasures += !x.ok();
        r.frames += views.size();
        r.seconds = std::chrono::duration<double>(c1 - t0).count();
    } while (r.seconds < min_time || (long long)r.call_seconds.size() < min_calls);
    std::sort(r.call_seconds.begin(), r.call_seconds.end());
    if (!profile)
        return r;
    // the stage times from one more batch, profiled apart: profiling times
    // each stage with events and decodes one chunk at a time, which the
    // timed batches must not
    dec.set_profiling(true);
    dec.reset_profile();
    dec.decode_batch(views, outs);
    r.stages = dec.profile();
    r.profiled_frames = views.size();
    dec.set_profiling(false);
    return r;
}

int bench_decode(const std::map<std::string, std::string>& opt)
{
    const auto [N, spec, cb] = bench::frame_code_option(opt);
    const auto channels = bench::channel_grid_option(opt, "0.01", "0.01", "0");
    const auto thr = bench::list_option(opt, "--threads", "1");
    const auto backends = bench::words_option(opt, "--backend", "auto");
    const auto storages = bench::words_option(opt, "--storage", "auto");
    const auto precisions = bench::words_option(opt, "--precision", "float");
    const auto cuda_streams = bench::list_option(opt, "--cuda-streams", "0");
    const auto share_gs = bench::list_option(opt, "--share-g", "1");
    for (double sg : share_gs)
        if (sg != 0 && sg != 1)
            throw std::invalid_argument("--share-g takes 0 or 1");
    const long long local_window = bench::int_option(opt, "--local-window", "0");
    if (local_window < 0 || local_window > INT_MAX)
        throw std::invalid_argument(
            "--local-window must be 0 (auto) or a count of indices");
    const auto device_lists = bench::device_lists(opt);
    const auto inputs = bench::words_option(opt, "--input", "bits");
    for (const auto& in : inputs)
        bsid::parse_input_kind(in); // "bits" or "llr", before any work
    const double llr_sigma = bench::llr_sigma_option(opt);
    const double min_time = bench::number_option(opt, "--min-time", "2");
    const long long min_calls = bench::count_option(opt, "--min-calls", "1");
    const double Pr = bench::receiver_number(opt, "--Pr", "1e-10");
    const uint64_t seed = bench::seed_option(opt);
    const std::string compare = bench::option(opt, "--compare", "");
    if (!compare.empty() && compare != "cpu") {
        throw std::invalid_argument("--compare takes only 'cpu'");
    }
    const bool profile = !opt.count("--no-profile");
    const double bits_per_symbol = std::log2(double(cb.q()));

    for (size_t c = 0; c < channels.size(); ++c) {
        const bsid::channel_params ch = channels[c];
        for (double t : thr) {
            const int threads = bsid::resolve_threads(int(t));
            const long long batch = opt.count("--batch")
                                        ? bench::count_option(opt, "--batch", "")
                                        : std::max(16, 4 * threads);
            // the frames: random messages through the channel, frame k of `seed`
            const auto rx = bench::channel_frames(cb, N, ch, seed, batch);
            std::vector<bsid::frame_view> bit_views, llr_views;
            for (const auto& f : rx)
                bit_views.push_back({ f.data(), f.size(), nullptr });
            // the same frames as soft decisions (--input llr)
            const auto llr = bench::bpsk_llrs(rx, llr_sigma, seed);
            for (const auto& l : llr) {
                bsid::frame_view v;
                v.llr = l.data();
                v.rho = l.size();
                llr_views.push_back(v);
            }

            for (const auto& in : inputs)
                for (const auto& be : backends)
                    for (const auto& st : storages)
                        for (const auto& pr : precisions)
                            for (double cs : cuda_streams)
                                for (double sg : share_gs)
                                    for (const auto& dl : device_lists) {
                                        bsid::decoder_config cfg(cb, ch, int(N));
                                        cfg.cuda.streams = int(cs);
                                        cfg.cuda.share_g = sg != 0;
                                        cfg.cuda.local_window = int(local_window);
                                        cfg.cuda.devices = bsid::parse_devices(dl);
                                        cfg.backend = bsid::parse_backend(be);
                                        cfg.storage = bsid::parse_storage(st);
                                        cfg.precision = bsid::parse_precision(pr);
                                        cfg.threads = threads;
                                        cfg.Pr = Pr;
                                        auto dec = bsid::map_decoder::make(cfg);
                                        const auto& views =
                                            in == "llr" ? llr_views : bit_views;
                                        const decode_run r = time_decoder(
                                            *dec, views, min_time, min_calls, profile);
                                        // rates count the frames decoded ok
                                        const double fps =
                                            double(r.frames - r.erasures) / r.seconds;
                                        const auto& L = dec->limits();
                                        std::printf(
                                            "{\"bench\":\"decode\",\"codebook\":\"%s\","
                                            "\"N\":%lld,\"n\":%d,\"q\":%d,"
                                            "\"alphabet\":%d,\"Pi\":%g,"
                                            "\"Pd\":%g,\"Ps\":%g,\"Pr\":%g,"
                                            "\"backend\":\"%s\",\"storage\":\"%s\","
                                            "\"precision\":\"%s\",\"input\":\"%s\","
                                            "\"cpu_isa\":\"%s\","
                                            "\"threads\":%d,\"cuda_streams\":%d,"
                                            "\"local_window\":%d,"
                                            "\"devices\":\"%s\",\"share_g\":%d,"
                                            "\"batch\":%lld,"
                                            "\"frames\":%llu,\"frames_ok\":%llu,"
                                            "\"erasures\":%llu,\"seconds\":%.6f,"
                                            "\"frames_per_s\":%.3f,"
                                            "\"mbit_per_s\":%.6f,\"M_tau\":%d,"
                                            "\"M_n\":%d,\"cells_per_frame\":%.6g,"
                                            "\"cells_per_s\":%.6g,",
                                            spec.c_str(),
                                            N,
                                            cb.n(),
                                            cb.q(),
                                            cb.alphabet(),
                                            ch.Pi(),
                                            ch.Pd(),
                                            ch.Ps(),
                                            Pr,
                                            bsid::to_string(dec->backend()).c_str(),
                                            bsid::to_string(dec->storage()).c_str(),
                                            bsid::to_string(dec->precision()).c_str(),
                                            in.c_str(),
                                            bsid::cpu_isa().c_str(),
                                            threads,
                                            int(cs),
                                            int(local_window),
                                            dl.c_str(),
                                            int(cfg.cuda.share_g),
                                            batch,
                                            (unsigned long long)r.frames,
                                            (unsigned long long)(r.frames - r.erasures),
                                            (unsigned long long)r.erasures,
                                            r.seconds,
                                            fps,
                                            fps * double(N) * bits_per_symbol / 1e6,
                                            int(L.mtau.size()),
                                            int(L.mn.size()),
                                            dec->cells_per_frame(),
                                            dec->cells_per_frame() * fps);
                                        if (profile) {
                                            // per frame of the profiled batch
                                            const double F = double(
                                                std::max<uint64_t>(r.profiled_frames, 1));
                                            std::printf(
                                                "\"stage_s_per_frame\":{\"gamma\":%.6g,"
                                                "\"alpha\":%.6g,\"beta\":%.6g,"
                                                "\"L\":%.6g},",
                                                r.stages.gamma / F,
                                                r.stages.alpha / F,
                                                r.stages.beta / F,
                                                r.stages.L / F);
                                        }
                                        std::printf(
                                            "\"gamma_bytes_per_frame\":%.0f,"
                                            "\"peak_device_bytes\":%zu",
                                            double(N) * L.mtau.size() * L.mn.size() *
                                                cb.q() *
                                                (dec->precision() ==
                                                         bsid::precision_kind::single
                                                     ? 4
                                                     : 8),
                                            dec->peak_device_bytes());
                                        // each call's time, host to host (batch 1:
                                        // the one-frame latency)
                                        const auto& cs_ = r.call_seconds;
                                        const auto pct = [&](double q) {
                                            return cs_[std::min(
                                                cs_.size() - 1,
                                                size_t(q * double(cs_.size())))];
                                        };
                                        std::printf(
                                            ",\"calls\":%zu,\"call_ms\":{\"min\":%.6g,"
                                            "\"median\":%.6g,\"p90\":%.6g,"
                                            "\"max\":%.6g}",
                                            cs_.size(),
                                            1e3 * cs_.front(),
                                            1e3 * pct(0.5),
                                            1e3 * pct(0.9),
                                            1e3 * cs_.back());
                                        if (!compare.empty()) {
                                            bsid::decoder_config cc = cfg;
                                            cc.backend = bsid::backend_kind::cpu;
                                            cc.threads = 0;
                                            auto cpu = bsid::map_decoder::make(cc);
                                            const decode_run c = time_decoder(
                                                *cpu, views, min_time, 1, false);
                                            const double cfps =
                                                double(c.frames - c.erasures) / c.seconds;
                                            std::printf(
                                                ",\"compare\":{\"backend\":\"cpu\","
                                                "\"threads\":%d,"
                                                "\"frames_per_s\":%.3f,\"speedup\":%."
                                                "3f}",
                                                bsid::resolve_threads(0),
                                                cfps,
                                                cfps > 0 ? fps / cfps : 0.0);
                                        }
                                        std::printf("}\n");
                                        std::fflush(stdout);
                                    }
        }
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    std::map<std::string, std::string> opt;
    bool help = false;
    try {
        opt = bench::read_options(argc, argv, help);
    } catch (const bsid::command_line_error& e) {
        std::cerr << "bsid_bench: " << e.what() << "\n" << usage;
        return 2;
    }
    if (help) {
        std::cout << usage;
        return 0;
    }
    const std::string bench = opt.count("--bench") ? opt["--bench"] : "";
    try {
        if (bench == "channel") {
            return bench_channel(opt);
        }
        if (bench == "estimate")
            return bench::bench_estimate(opt);
        if (bench == "concatenated")
            return bench::bench_concatenated(opt);
        if (bench == "batcher")
            return bench::bench_batcher(opt);
        if (bench == "decode") {
            const std::string framing =
                opt.count("--framing") ? opt["--framing"] : "genie";
            if (framing == "stream") {
                if (opt.count("--no-profile")) {
                    std::cerr << "bsid_bench: --no-profile needs --framing genie\n";
                    return 2;
                }
                return bench::bench_stream(opt);
            }
            if (opt.count("--reads") || opt.count("--read-method")) {
                if (framing != "genie") {
                    std::cerr << "bsid_bench: --reads needs --framing genie\n";
                    return 2;
                }
                return bench::bench_reads(opt);
            }
            if (framing != "genie") {
                std::cerr << "bsid_bench: --framing '" << framing
                          << "' is not one of genie, stream\n";
                return 2;
            }
            for (const char* k : { "--streams",
                                   "--stream-frames",
                                   "--lookahead",
                                   "--sync-word",
                                   "--workers" }) {
                if (opt.count(k)) {
                    std::cerr << "bsid_bench: " << k << " needs --framing stream\n";
                    return 2;
                }
            }
            return bench_decode(opt);
        }
        std::cerr << "bsid_bench: unknown or missing --bench '" << bench
                  << "' (available: channel, decode, estimate, concatenated, batcher)\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "bsid_bench: " << e.what() << "\n";
        return 1;
    }
}
