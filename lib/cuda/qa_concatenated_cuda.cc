/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The concatenated decoder's device loop (device_concatenated_loop.h)
// against the host loop over the same CUDA decoders, and against the CPU
// loop: same statuses, iteration counts and decisions, posteriors within
// tolerance, the same observer calls, on schemes with equal q, with outer
// symbols through bits (pad bits included), soft input and erasures in the
// batch. Out of device memory, the batch falls back and no frame is lost.

#include "runtime/backends.h" // cuda_device_available
#include <gnuradio/bsid/core/outer/concatenated_decoder.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <gnuradio/bsid/core/sim/frame_source.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <cmath>
#include <random>
#include <tuple>

using namespace bsid;

namespace {

class cuda_loop : public ::testing::Test
{
protected:
    void SetUp() override
    {
        std::string why;
        if (!cuda_device_available(0, &why))
            GTEST_SKIP() << "no GPU: " << why;
    }
};

struct scheme {
    const char* name;
    codebook cb;
    ldpc_code code;
    channel_params ch;
};

std::vector<scheme> schemes()
{
    return {
        // equal q
        { "q16",
          codebook::random(6, 16, 3, 11),
          ldpc_code::regular(60, 30, 16, 3, 5),
          channel_params(0.04, 0.04, 0.01) },
        // two GF(4) symbols per inner symbol of q = 16
        { "gf4_in_q16",
          codebook::random(6, 16, 2, 3),
          ldpc_code::regular(40, 20, 4, 3, 2),
          channel_params(0.03, 0.03, 0.005) },
        // GF(16) over an inner q = 8 with a pad bit
        { "gf16_in_q8",
          codebook::random(5, 8, 2, 4),
          ldpc_code::regular(32, 16, 16, 2, 3),
          channel_params(0.03, 0.03, 0.005) },
        // GF(16) symbols as the message symbols of an inner code of four letters
        { "q16_letters",
          codebook::random(4, 16, 2, 3, 4),
          ldpc_code::regular(60, 30, 16, 3, 5),
          channel_params(0.02, 0.02, 0.01, 4) },
    };
}

struct outcome {
    std::vector<concatenated_result> res;
    std::vector<int32_t> dec;
    std::vector<double> post;
    std::vector<std::tuple<int, size_t, std::vector<int32_t>>> seen;
};

// Frames of the scheme: simulated ones, every fifth as LLRs (soft input;
// over letters A log-probabilities an item), then an empty frame and one far
// too long (erasures).
struct frames_of {
    frame_batch batch;
    std::vector<std::vector<double>> llr;
    std::vector<uint8_t> huge;
    std::vector<frame_view> views;
};

void make_frames(const scheme& s, int count, frames_of& f)
{
    frame_source src(s.cb, s.ch, s.code, 21);
    src.generate(0, size_t(count), f.batch);
    std::mt19937_64 rng(5);
    std::normal_distribution<double> noise(0.0, 0.7);
    f.llr.resize(size_t(count));
    for (int k = 0; k < count; ++k) {
        frame_view v = f.batch.view(size_t(k));
        const int A = s.ch.alphabet();
        if (k % 5 == 4) {
            auto& l = f.llr[size_t(k)];
            for (size_t t = 0; t < v.rho; ++t) {
                if (A == 2)
                    l.push_back((v.bits[t] ? 3.0 : -3.0) + noise(rng));
                else
                    for (int y = 0; y < A; ++y)
                        l.push_back((y == v.bits[t] ? 0.0 : -3.0) + noise(rng));
            }
            v.bits = nullptr;
            (A == 2 ? v.llr : v.logprob) = l.data();
        }
        f.views.push_back(v);
    }
    f.huge.assign(size_t(20 * s.code.n() * s.cb.n()), 1);
    f.views.push_back(frame_view{ nullptr, 0, nullptr });
    f.views.push_back(frame_view{ f.huge.data(), f.huge.size(), nullptr });
}

outcome run(concatenated_decoder& dec,
            const std::vector<frame_view>& views,
            bool device,
            size_t part = 0)
{
    const size_t K = views.size();
    const int n = dec.outer().n(), q = dec.outer().q();
    outcome o;
    o.dec.assign(K * size_t(n), -7);
    o.post.assign(K * size_t(n) * size_t(q), 7.0);
    std::vector<int32_t*> d(K);
    std::vector<double*> p(K);
    for (size_t k = 0; k < K; ++k) {
        d[k] = o.dec.data() + k * size_t(n);
        p[k] = o.post.data() + k * size_t(n) * size_t(q);
    }
    concatenated_options opt;
    opt.iterations = 4;
    opt.bp_iterations = 20;
    opt.device_loop = device;
    opt.device_part = part;
    o.res = dec.decode_batch(views, opt, d, p, [&](int pass, size_t k, const int32_t* x) {
        o.seen.emplace_back(pass, k, std::vector<int32_t>(x, x + n));
    });
    return o;
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b)
{
    double m = 0;
    for (size_t t = 0; t < a.size(); ++t) {
        if (a[t] == b[t])
            continue; // -infinity included
        m = std::max(m, std::abs(std::exp(a[t]) - std::exp(b[t])));
    }
    return m;
}

void expect_same(const outcome& a, const outcome& b, double tol, bool exact_counts)
{
    ASSERT_EQ(a.res.size(), b.res.size());
    for (size_t k = 0; k < a.res.size(); ++k) {
        EXPECT_EQ(a.res[k].status, b.res[k].status) << "frame " << k;
        EXPECT_EQ(a.res[k].syndrome_ok, b.res[k].syndrome_ok) << "frame " << k;
        EXPECT_EQ(a.res[k].iterations, b.res[k].iterations) << "frame " << k;
        if (exact_counts) {
            EXPECT_EQ(a.res[k].bp_iterations, b.res[k].bp_iterations) << "frame " << k;
        }
    }
    EXPECT_EQ(a.dec, b.dec);
    EXPECT_LE(max_diff(a.post, b.post), tol);
    EXPECT_EQ(a.seen, b.seen);
}

// the CUDA inner decoder's configuration for a scheme's frames
decoder_config cuda_config(const scheme& s, precision_kind prec)
{
    const int N = symbol_mapping(s.code.q(), s.code.n(), s.cb.q()).n_inner();
    decoder_config cfg(s.cb, s.ch, N);
    cfg.backend = backend_kind::cuda;
    cfg.precision = prec;
    return cfg;
}

} // namespace

TEST_F(cuda_loop, device_loop_equals_the_host_loop_and_the_cpu)
{
    for (const auto& s : schemes()) {
        SCOPED_TRACE(s.name);
        frames_of f;
        make_frames(s, 40, f);
        for (auto prec : { precision_kind::dual, precision_kind::single }) {
            SCOPED_TRACE(to_string(prec));
            const decoder_config cfg = cuda_config(s, prec);
            auto inner = map_decoder::make(cfg);
            concatenated_decoder dec(*inner, s.code);
            ASSERT_TRUE(dec.has_device_loop());
            // through a frame decoder: the device loop without a sync word only
            frame_decoder plain(cfg), synced(cfg, { 0, 1, 1, 0 });
            EXPECT_TRUE(concatenated_decoder(plain, s.code).has_device_loop());
            EXPECT_FALSE(concatenated_decoder(synced, s.code).has_device_loop());
            const outcome dev = run(dec, f.views, true);
            const outcome host = run(dec, f.views, false);
            // the same decoders either way: everything equal up to the
            // device's rounding of the mapping's exp and log
            expect_same(dev, host, 1e-9, true);
            // the loop worked: frames decode, the erasures are flagged
            int ok = 0;
            for (size_t k = 0; k + 2 < dev.res.size(); ++k)
                ok += dev.res[k].syndrome_ok;
            EXPECT_GE(ok, 20); // most frames decode
            EXPECT_EQ(dev.res[dev.res.size() - 2].status, frame_status::empty);
            EXPECT_FALSE(dev.res.back().ok());
            for (size_t k = dev.res.size() - 2; k < dev.res.size(); ++k) {
                EXPECT_EQ(dev.res[k].iterations, 0);
                for (int i = 0; i < s.code.n(); ++i)
                    EXPECT_EQ(dev.dec[k * size_t(s.code.n()) + size_t(i)], -1);
            }
            if (prec == precision_kind::dual) {
                // the CPU loop (both decoders on the CPU, double): the same
                // decisions, posteriors within the backends' agreement
                decoder_config c = cfg;
                c.backend = backend_kind::cpu;
                auto cpu_inner = map_decoder::make(c);
                concatenated_decoder cpu(*cpu_inner, s.code);
                ASSERT_FALSE(cpu.has_device_loop());
                expect_same(dev, run(cpu, f.views, true), 1e-6, false);
            }
        }
    }
}

// The device loop in parts (concatenated_options::device_part), as a batch
// that does not fit the device runs: each part staged and run through every
// pass in turn, the results and the observer's calls those of the whole batch
// at once (parts of 1, 7 and 16 of 42 frames; the empty and the huge frame in
// the last part), in double and float.
TEST_F(cuda_loop, device_loop_in_parts_equals_the_whole_batch)
{
    for (const auto& s : schemes()) {
        SCOPED_TRACE(s.name);
        frames_of f;
        make_frames(s, 40, f);
        for (auto prec : { precision_kind::dual, precision_kind::single }) {
            SCOPED_TRACE(to_string(prec));
            auto inner = map_decoder::make(cuda_config(s, prec));
            concatenated_decoder dec(*inner, s.code);
            const outcome whole = run(dec, f.views, true);
            for (size_t part : { size_t(1), size_t(7), size_t(16) }) {
                SCOPED_TRACE(part);
                expect_same(run(dec, f.views, true, part), whole, 1e-9, true);
            }
        }
    }
}

// Local storage (windows of a few symbol indices, G made again for the
// backward pass) in the device loop: the same as the host loop, and as global
// storage up to the backends' agreement.
TEST_F(cuda_loop, local_storage_in_the_device_loop)
{
    const scheme s = schemes()[2]; // through bits, with a pad bit
    frames_of f;
    make_frames(s, 20, f);
    decoder_config cfg = cuda_config(s, precision_kind::dual);
    auto global = map_decoder::make(cfg);
    cfg.storage = storage_kind::local;
    cfg.cuda.local_window = 5;
    auto local = map_decoder::make(cfg);
    ASSERT_EQ(local->storage(), storage_kind::local);
    concatenated_decoder gdec(*global, s.code), ldec(*local, s.code);
    const outcome dev = run(ldec, f.views, true);
    expect_same(dev, run(ldec, f.views, false), 1e-9, true);
    expect_same(dev, run(gdec, f.views, true), 1e-6, false);
}

// The device nearly full: the device loop cannot run, the batch falls back
// (host loop, each decoder on the CPU where the device has no room) and every
// frame comes out as it would have.
TEST_F(cuda_loop, out_of_device_memory_falls_back_without_losing_a_frame)
{
    const scheme s = schemes()[0];
    frames_of f;
    make_frames(s, 12, f);
    decoder_config cfg(s.cb, s.ch, s.code.n());
    cfg.backend = backend_kind::cuda;
    cfg.precision = precision_kind::dual;
    auto inner = map_decoder::make(cfg);
    concatenated_decoder dec(*inner, s.code);
    const outcome before = run(dec, f.views, true);
    // fresh decoders (their tables on the device, no batch buffers yet)
    auto inner2 = map_decoder::make(cfg);
    concatenated_decoder dec2(*inner2, s.code);

    // take the device's free memory, leaving under 64 KiB
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    std::vector<void*> held;
    for (size_t chunk = size_t(1) << 30; chunk >= (size_t(64) << 10); chunk /= 2) {
        void* p = nullptr;
        while (cudaMalloc(&p, chunk) == cudaSuccess)
            held.push_back(p);
        cudaGetLastError();
    }
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    std::vector<std::string> warnings;
    set_log_handler([&](log_level l, const std::string& m) {
        if (l == log_level::warning)
            warnings.push_back(m);
    });
    outcome after;
    EXPECT_NO_THROW(after = run(dec2, f.views, true));
    set_log_handler(nullptr);
    for (void* p : held)
        cudaFree(p);
    ASSERT_EQ(after.res.size(), before.res.size());
    expect_same(after, before, 1e-6, false);
    EXPECT_FALSE(warnings.empty()) << "free: " << (free_b >> 10) << " KiB";
}
