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
//
// L is a value or a comma list; the benchmark runs every combination.

#include <gnuradio/bsid/core/channel.h>
#include <gnuradio/bsid/core/channel_params.h>
#include <gnuradio/bsid/core/philox.h>

#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

const char* usage = R"(usage: bsid_bench --bench channel [options]

Benchmarks, one JSON line per configuration on stdout:
  channel   the BSID channel emulator (bsid::transmit) on random frames

Options (L: a value or a comma-separated list; every combination runs):
  -N N            message symbols per frame (default 500)
  -n n            bits per codeword (default 8); a frame has tau = n N bits
  --tau T         frame length in bits (overrides -N and -n)
  --Pi L --Pd L --Ps L
                  channel probabilities (default 0.01 each)
  --threads L     OpenMP threads, frames spread over them (default 1)
  --frames K      frames per timed batch (default: about 2^24 bits' worth)
  --min-time S    run batches for at least S seconds (default 1)
  --seed S        channel seed (default 1)
  --drift 0|1     1: bsid::transmit with its drift path (the Python API);
                  0: the streaming emulator, received bits only (default 1)
  -h, --help      this text
)";

std::vector<double> parse_list(const std::string& opt, const std::string& s)
{
    std::vector<double> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) {
        char* end = nullptr;
        const double v = std::strtod(item.c_str(), &end);
        if (item.empty() || *end != '\0') {
            throw std::invalid_argument("option " + opt + ": '" + item + "' is not a number");
        }
        out.push_back(v);
    }
    if (out.empty()) {
        throw std::invalid_argument("option " + opt + " needs a value");
    }
    return out;
}

long long parse_int(const std::string& opt, const std::string& s)
{
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0') {
        throw std::invalid_argument("option " + opt + ": '" + s + "' is not an integer");
    }
    return v;
}

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
    auto get = [&](const std::string& k, const std::string& dflt) {
        auto it = opt.find(k);
        return it == opt.end() ? dflt : it->second;
    };
    long long tau = parse_int("-N", get("-N", "500")) * parse_int("-n", get("-n", "8"));
    if (opt.count("--tau")) tau = parse_int("--tau", opt.at("--tau"));
    if (tau < 1) throw std::invalid_argument("the frame length tau must be at least 1 bit");
    const auto Pis = parse_list("--Pi", get("--Pi", "0.01"));
    const auto Pds = parse_list("--Pd", get("--Pd", "0.01"));
    const auto Pss = parse_list("--Ps", get("--Ps", "0.01"));
    const auto thr = parse_list("--threads", get("--threads", "1"));
    const double min_time = parse_list("--min-time", get("--min-time", "1"))[0];
    const uint64_t seed = uint64_t(parse_int("--seed", get("--seed", "1")));
    const bool drift = parse_int("--drift", get("--drift", "1")) != 0;
    long long batch = opt.count("--frames") ? parse_int("--frames", opt.at("--frames"))
                                            : std::max(1LL, (1LL << 24) / tau);
    if (batch < 1) throw std::invalid_argument("--frames must be at least 1");

    // A pool of random input frames, drawn once, outside the timing.
    std::vector<std::vector<uint8_t>> pool(16, std::vector<uint8_t>(size_t(tau)));
    bsid::philox_stream src(seed ^ 0x5eedULL, 1);
    for (auto& f : pool)
        for (auto& b : f) b = uint8_t(src.next_u32() & 1u);

    for (double Pi : Pis)
        for (double Pd : Pds)
            for (double Ps : Pss)
                for (double t : thr) {
                    const bsid::channel_params ch(Pi, Pd, Ps);
                    const int threads = int(t);
                    if (threads < 1) throw std::invalid_argument("--threads must be at least 1");
                    channel_result warm, res;
                    run_channel_batch(ch, pool, seed, 0, std::min(batch, 8LL), threads, drift,
                                      warm);
                    const auto t0 = std::chrono::steady_clock::now();
                    double elapsed = 0;
                    do {
                        run_channel_batch(ch, pool, seed, res.frames, batch, threads, drift, res);
                        elapsed = std::chrono::duration<double>(
                                      std::chrono::steady_clock::now() - t0)
                                      .count();
                    } while (elapsed < min_time);
                    res.seconds = elapsed;
                    std::printf("{\"bench\":\"channel\",\"api\":\"%s\",\"Pi\":%g,\"Pd\":%g,"
                                "\"Ps\":%g,\"tau\":%lld,\"threads\":%d,\"frames\":%llu,"
                                "\"seconds\":%.6f,\"mbit_per_s\":%.3f,"
                                "\"mbit_per_s_per_thread\":%.3f,\"frames_per_s\":%.1f,"
                                "\"rx_bits_per_tx_bit\":%.6f",
                                drift ? "transmit" : "channel_emulator", Pi, Pd, Ps, tau,
                                threads, (unsigned long long)res.frames, res.seconds,
                                double(res.bits_in) / res.seconds / 1e6,
                                double(res.bits_in) / res.seconds / 1e6 / threads,
                                double(res.frames) / res.seconds,
                                double(res.bits_out) / double(res.bits_in));
                    if (!drift) {
                        const double b = double(res.bits_in);
                        std::printf(",\"insertions_per_bit\":%.6g,\"deletions_per_bit\":%.6g,"
                                    "\"substitutions_per_bit\":%.6g",
                                    double(res.insertions) / b, double(res.deletions) / b,
                                    double(res.substitutions) / b);
                    }
                    std::printf(",\"omp_max_threads\":%d}\n", omp_get_max_threads());
                    std::fflush(stdout);
                }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    std::map<std::string, std::string> opt;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            std::cout << usage;
            return 0;
        }
        if (a.empty() || a[0] != '-' || i + 1 >= argc) {
            std::cerr << "bsid_bench: unexpected argument '" << a << "'\n" << usage;
            return 2;
        }
        opt[a] = argv[++i];
    }
    static const char* known[] = { "--bench", "-N",        "-n",         "--tau",  "--Pi",
                                   "--Pd",    "--Ps",      "--threads",  "--frames",
                                   "--min-time", "--seed", "--drift" };
    for (const auto& kv : opt) {
        bool ok = false;
        for (const char* k : known) ok = ok || kv.first == k;
        if (!ok) {
            std::cerr << "bsid_bench: unknown option '" << kv.first << "'\n" << usage;
            return 2;
        }
    }
    const std::string bench = opt.count("--bench") ? opt["--bench"] : "";
    try {
        if (bench == "channel") {
            return bench_channel(opt);
        }
        std::cerr << "bsid_bench: unknown or missing --bench '" << bench
                  << "' (available: channel)\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "bsid_bench: " << e.what() << "\n";
        return 1;
    }
}
