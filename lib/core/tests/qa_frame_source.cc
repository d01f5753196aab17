/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/sim/frame_source.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <gtest/gtest.h>
#include <cmath>
#include <vector>

namespace {

const bsid::codebook cb = bsid::codebook::builtin("ld3-modvec6");
const bsid::channel_params ch(0.02, 0.01, 0.01);

TEST(frame_source, same_frames_for_any_threads_and_batching)
{
    const bsid::frame_source src(cb, ch, 30, 7);
    bsid::frame_batch one, a, b;
    src.generate(5, 24, one, 1);
    // the same frames in two batches, over two threads, into a reused batch
    src.generate(5, 10, a, 2);
    src.generate(100, 3, b, 2);
    src.generate(15, 14, b, 2);
    ASSERT_EQ(one.size(), 24u);
    EXPECT_EQ(one.first, 5u);
    EXPECT_EQ(b.first, 15u);
    for (size_t k = 0; k < 24; ++k) {
        const auto& other = k < 10 ? a : b;
        const size_t j = k < 10 ? k : k - 10;
        EXPECT_EQ(one.rx[k], other.rx[j]) << "frame " << k;
        for (int i = 0; i < 30; ++i)
            EXPECT_EQ(one.sent(k)[i], other.sent(j)[i]);
    }
}

TEST(frame_source, frames_are_messages_encoded_and_sent_through_the_channel)
{
    const int N = 40;
    const bsid::frame_source src(cb, ch, N, 3);
    bsid::frame_batch batch;
    src.generate(0, 8, batch, 0);
    for (uint64_t k = 0; k < 8; ++k) {
        // the full frame: tx is the encoded message, rx and drift are transmit()'s
        const auto f = src.frame(k);
        EXPECT_EQ(f.index, k);
        std::vector<int32_t> msg(N);
        src.message(k, msg.data());
        EXPECT_EQ(f.symbols, msg);
        EXPECT_EQ(std::vector<int32_t>(batch.sent(k), batch.sent(k) + N), msg);
        std::vector<uint8_t> tx(size_t(N) * 8);
        cb.encode(msg.data(), size_t(N), tx.data());
        EXPECT_EQ(f.tx, tx);
        const auto t = bsid::transmit(ch, tx.data(), tx.size(), 3, k);
        EXPECT_EQ(f.rx, t.rx);
        EXPECT_EQ(f.drift, t.drift);
        EXPECT_EQ(batch.rx[k], t.rx);
        EXPECT_EQ(batch.view(k).rho, t.rx.size());
    }
}

TEST(frame_source, message_stream_layout)
{
    // q = 16: each symbol is the top four bits of one word of stream
    // (seed, 2^63 + 2^62 + k) (docs/random-numbers.md)
    const bsid::frame_source src(cb, ch, 64, 11);
    std::vector<int32_t> msg(64);
    src.message(9, msg.data());
    bsid::philox_stream s(11, (1ULL << 63) + (1ULL << 62) + 9);
    for (int i = 0; i < 64; ++i)
        EXPECT_EQ(msg[i], int32_t(s.next_u32() >> 28)) << i;
}

TEST(frame_source, symbols_are_uniform_for_any_q)
{
    // q = 5 exercises the rejection step; chi-square at about the 1e-4 level
    for (int q : { 2, 5, 16, 1000 }) {
        const auto code = bsid::codebook::sparse(q == 1000 ? 10 : 4, q);
        const int N = 200;
        const bsid::frame_source src(code, bsid::channel_params(0, 0, 0), N, 1);
        std::vector<double> count(size_t(q), 0.0);
        std::vector<int32_t> msg(N);
        const int frames = q == 1000 ? 1000 : 100;
        for (int k = 0; k < frames; ++k) {
            src.message(uint64_t(k), msg.data());
            for (int32_t d : msg) {
                ASSERT_GE(d, 0);
                ASSERT_LT(d, q);
                count[size_t(d)] += 1;
            }
        }
        const double e = double(frames) * N / q;
        double chi2 = 0;
        for (double c : count)
            chi2 += (c - e) * (c - e) / e;
        const int df = q - 1;
        const double a = 2.0 / (9.0 * df), z = 3.719; // Wilson-Hilferty
        EXPECT_LT(chi2, df * std::pow(1 - a + z * std::sqrt(a), 3)) << "q = " << q;
    }
}

TEST(frame_source, rejects_bad_arguments)
{
    EXPECT_THROW(bsid::frame_source(cb, ch, 0, 1), std::invalid_argument);
    const bsid::frame_source src(cb, ch, 4, 1);
    bsid::frame_batch b;
    EXPECT_THROW(src.generate(bsid::frame_source::max_frames - 2, 3, b),
                 std::invalid_argument);
    EXPECT_NO_THROW(src.generate(bsid::frame_source::max_frames - 2, 2, b));
    EXPECT_THROW(src.frame(bsid::frame_source::max_frames), std::invalid_argument);
    EXPECT_THROW(src.generate(0, 1, b, -1), std::invalid_argument);
}

} // namespace
