/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The bad-input matrix for the CUDA backend (the CPU side is
// lib/core/tests/qa_bad_input.cc): refused frames, hard channels and a state space
// larger than the device memory. The tests that need a GPU skip cleanly
// where none is usable; no_device_is_a_clear_error runs exactly there.

#include "runtime/backends.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gtest/gtest.h>
#include <cmath>
#include <string>
#include <vector>

using namespace bsid;

namespace {

class cuda_bad_input : public ::testing::Test
{
protected:
    void SetUp() override
    {
        std::string why;
        if (!cuda_device_available(0, &why))
            GTEST_SKIP() << "no GPU: " << why;
    }
};

const precision_kind precisions[] = { precision_kind::single, precision_kind::dual };

std::unique_ptr<map_decoder> make(const codebook& cb,
                                  const channel_params& ch,
                                  int N,
                                  backend_kind b,
                                  precision_kind p,
                                  storage_kind s = storage_kind::automatic)
{
    decoder_config cfg(cb, ch, N);
    cfg.backend = b;
    cfg.precision = p;
    cfg.storage = s;
    return map_decoder::make(cfg);
}

std::vector<uint8_t> encode(const codebook& cb, int N)
{
    std::vector<int64_t> msg(size_t(N), 0);
    for (int i = 0; i < N; ++i)
        msg[size_t(i)] = (5 * i + 3) % cb.q();
    return cb.encode(msg.data(), msg.size());
}

} // namespace

TEST(cuda_bad_input_no_device, no_device_is_a_clear_error)
{
    std::string why;
    if (cuda_device_available(0, &why))
        GTEST_SKIP() << "a GPU is usable here";
    EXPECT_FALSE(why.empty());
    decoder_config cfg(codebook::sparse(4, 4), channel_params(0.01, 0.01, 0), 2);
    cfg.backend = backend_kind::cuda;
    try {
        map_decoder::make(cfg);
        ADD_FAILURE() << "backend cuda accepted without a usable device";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("CUDA"), std::string::npos) << e.what();
    }
    cfg.backend = backend_kind::automatic;
    auto dec = map_decoder::make(cfg);
    EXPECT_EQ(dec->backend(), backend_kind::cpu);
    const std::vector<uint8_t> y = { 0, 0, 0, 1, 0, 0, 1, 0 };
    std::vector<double> post(8);
    EXPECT_TRUE(dec->decode({ y.data(), y.size(), nullptr }, post.data()).ok());
}

TEST_F(cuda_bad_input, refused_frames_match_the_cpu)
{
    const codebook cb = codebook::builtin("ld3-modvec6");
    const int N = 12;
    const channel_params ch(0.01, 0.01, 0.01);
    const auto x = encode(cb, N);
    std::vector<uint8_t> ten;
    for (int k = 0; k < 10; ++k)
        ten.insert(ten.end(), x.begin(), x.end());
    auto bad = x;
    bad[7] = 2;
    const std::vector<std::vector<uint8_t>> frames = { {}, { 1 }, x, ten, bad };
    for (auto p : precisions) {
        auto gpu = make(cb, ch, N, backend_kind::cuda, p);
        auto cpu = make(cb, ch, N, backend_kind::cpu, p);
        for (size_t k = 0; k < frames.size(); ++k) {
            std::vector<double> a(size_t(N) * 16, NAN), b(size_t(N) * 16, NAN);
            const frame_view f{ frames[k].data(), frames[k].size(), nullptr };
            const auto rg = gpu->decode(f, a.data());
            const auto rc = cpu->decode(f, b.data());
            EXPECT_EQ(rg.status, rc.status) << "frame " << k << ": " << rg.reason;
            for (size_t j = 0; j < a.size(); ++j) {
                ASSERT_TRUE(std::isfinite(a[j])) << "frame " << k;
                EXPECT_NEAR(a[j], b[j], 1e-4) << "frame " << k;
            }
        }
        // and in one batch, one result per frame
        std::vector<frame_view> views;
        std::vector<std::vector<double>> posts(frames.size(),
                                               std::vector<double>(size_t(N) * 16));
        std::vector<double*> outs;
        for (size_t k = 0; k < frames.size(); ++k) {
            views.push_back({ frames[k].data(), frames[k].size(), nullptr });
            outs.push_back(posts[k].data());
        }
        const auto rs = gpu->decode_batch(views, outs);
        ASSERT_EQ(rs.size(), frames.size());
        EXPECT_EQ(rs[0].status, frame_status::empty);
        EXPECT_EQ(rs[1].status, frame_status::drift_out_of_range);
        EXPECT_TRUE(rs[2].ok()) << rs[2].reason;
        EXPECT_EQ(rs[3].status, frame_status::drift_out_of_range);
        EXPECT_EQ(rs[4].status, frame_status::invalid_input);
    }
}

TEST_F(cuda_bad_input, hard_channels_give_no_nan)
{
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params chans[] = { channel_params(0, 0, 0),
                                     channel_params(0.4, 0.4, 0.4),
                                     channel_params(0, 0, 0.4) };
    for (auto p : precisions)
        for (const auto& ch : chans)
            for (int N : { 1, 25 }) {
                auto dec = make(cb, ch, N, backend_kind::cuda, p);
                const auto x = encode(cb, N);
                for (uint64_t k = 0; k < 3; ++k) {
                    const auto t = transmit(ch, x.data(), x.size(), 4, k);
                    std::vector<double> post(size_t(N) * 16, NAN);
                    const auto r =
                        dec->decode({ t.rx.data(), t.rx.size(), nullptr }, post.data());
                    for (int i = 0; i < N; ++i) {
                        double s = 0;
                        for (int D = 0; D < 16; ++D) {
                            ASSERT_TRUE(std::isfinite(post[size_t(i * 16 + D)]))
                                << ch.repr();
                            s += post[size_t(i * 16 + D)];
                        }
                        EXPECT_NEAR(s, 1.0, 1e-6) << ch.repr() << " " << r.reason;
                    }
                }
            }
}

TEST_F(cuda_bad_input, storage_larger_than_the_device)
{
    // N = 4000000 symbols at Pi = Pd = 0.01 (M_tau = 10401): G and L of one
    // frame need about 3 TB, far more than any device holds (N = 400000 needs
    // 97 GB, which an H200 holds), so "auto" picks local storage; an explicit
    // "global" is accepted and falls back to local when a frame is decoded.
    // Refused frames are answered without touching the lattice.
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0);
    const int N = 4000000;
    for (auto s : { storage_kind::automatic, storage_kind::global }) {
        std::unique_ptr<map_decoder> dec;
        try {
            dec = make(cb, ch, N, backend_kind::cuda, precision_kind::single, s);
        } catch (const std::exception& e) {
            // a clear error is acceptable too, never a crash
            EXPECT_NE(std::string(e.what()).find("memory"), std::string::npos)
                << e.what();
            continue;
        }
        if (s == storage_kind::automatic) {
            EXPECT_EQ(dec->storage(), storage_kind::local);
        }
        std::vector<double> post(size_t(N) * 16);
        const std::vector<uint8_t> one = { 1 };
        EXPECT_EQ(dec->decode({ nullptr, 0, nullptr }, post.data()).status,
                  frame_status::empty);
        EXPECT_EQ(dec->decode({ one.data(), one.size(), nullptr }, post.data()).status,
                  frame_status::drift_out_of_range);
        EXPECT_EQ(post[0], 1.0 / 16);
    }
}
