/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/bsid/core/sim/error_counter.h>
#include <gtest/gtest.h>
#include <bitset>
#include <vector>

namespace {

const bsid::codebook cb = bsid::codebook::builtin("ld3-modvec6");

std::unique_ptr<bsid::map_decoder> cpu_decoder(const bsid::channel_params& ch, int N)
{
    bsid::decoder_config cfg(cb, ch, N);
    cfg.backend = bsid::backend_kind::cpu;
    cfg.precision = bsid::precision_kind::dual;
    cfg.threads = 2;
    return bsid::map_decoder::make(cfg);
}

TEST(error_counter, bits_per_symbol)
{
    EXPECT_EQ(bsid::error_counter::bits_per_symbol(2), 1);
    EXPECT_EQ(bsid::error_counter::bits_per_symbol(3), 2);
    EXPECT_EQ(bsid::error_counter::bits_per_symbol(16), 4);
    EXPECT_EQ(bsid::error_counter::bits_per_symbol(17), 5);
    EXPECT_EQ(bsid::error_counter::bits_per_symbol(65536), 16);
}

TEST(error_counter, noiseless_channel_has_no_errors)
{
    const bsid::channel_params ch(0, 0, 0);
    auto dec = cpu_decoder(ch, 20);
    bsid::frame_source src(cb, ch, 20, 1);
    bsid::frame_batch batch;
    src.generate(0, 6, batch);
    bsid::error_counter count(*dec);
    const auto& e = count.run(batch);
    ASSERT_EQ(e.size(), 6u);
    for (const auto& x : e) {
        EXPECT_EQ(x.status, bsid::frame_status::ok);
        EXPECT_EQ(x.symbol_errors, 0);
        EXPECT_EQ(x.bit_errors, 0);
    }
    EXPECT_EQ(count.decisions(), batch.symbols);
}

TEST(error_counter, counts_match_decode_and_hard_decisions)
{
    // a noisy channel: every frame decoded alone, decided and counted by hand
    const bsid::channel_params ch(0.03, 0.03, 0.03);
    const int N = 30;
    auto dec = cpu_decoder(ch, N);
    bsid::frame_source src(cb, ch, N, 5);
    bsid::frame_batch batch;
    src.generate(0, 12, batch);
    bsid::error_counter count(*dec, 1);
    const auto e = count.run(batch);
    int total = 0;
    std::vector<double> post(size_t(N) * 16);
    std::vector<int32_t> d(N);
    for (size_t k = 0; k < batch.size(); ++k) {
        ASSERT_TRUE(dec->decode(batch.view(k), post.data()).ok());
        bsid::hard_decisions(post.data(), N, 16, d.data());
        int sym = 0, bits = 0;
        for (int i = 0; i < N; ++i) {
            sym += d[size_t(i)] != batch.sent(k)[i];
            bits +=
                int(std::bitset<32>(uint32_t(d[size_t(i)] ^ batch.sent(k)[i])).count());
            EXPECT_EQ(count.decisions()[k * N + size_t(i)], d[size_t(i)]);
        }
        EXPECT_EQ(e[k].symbol_errors, sym) << "frame " << k;
        EXPECT_EQ(e[k].bit_errors, bits) << "frame " << k;
        total += sym;
    }
    EXPECT_GT(total, 0); // the channel is bad enough to test something
}

TEST(error_counter, refused_frames_are_erasures_with_every_symbol_wrong)
{
    const bsid::channel_params ch(0.01, 0.01, 0);
    const int N = 10;
    auto dec = cpu_decoder(ch, N);
    bsid::frame_source src(cb, ch, N, 2);
    bsid::frame_batch batch;
    src.generate(0, 3, batch);
    batch.rx[1].resize(batch.rx[1].size() + 200); // end drift far outside m_tau
    batch.rx[2].clear();                          // nothing received
    bsid::error_counter count(*dec);
    const auto& e = count.run(batch);
    EXPECT_EQ(e[1].status, bsid::frame_status::drift_out_of_range);
    EXPECT_EQ(e[2].status, bsid::frame_status::empty);
    for (size_t k : { size_t(1), size_t(2) }) {
        EXPECT_EQ(e[k].symbol_errors, N);
        EXPECT_EQ(e[k].bit_errors, 4 * N);
        for (int i = 0; i < N; ++i)
            EXPECT_EQ(count.decisions()[k * N + size_t(i)], -1);
    }
    EXPECT_EQ(e[0].status, bsid::frame_status::ok);
}

TEST(error_counter, rejects_a_batch_of_another_length)
{
    const bsid::channel_params ch(0.01, 0.01, 0);
    auto dec = cpu_decoder(ch, 10);
    bsid::frame_source src(cb, ch, 11, 2);
    bsid::frame_batch batch;
    src.generate(0, 1, batch);
    bsid::error_counter count(*dec);
    EXPECT_THROW(count.run(batch), std::invalid_argument);
}

} // namespace
