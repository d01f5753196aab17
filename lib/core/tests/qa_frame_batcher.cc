/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The frame batcher: the same results as decode_batch, in push order;
// batches by count, by delay and at flush; one decoder per batch; bad frames
// as erasures; bad options refused; producers and a consumer on other threads.

#include <gnuradio/bsid/core/runtime/frame_batcher.h>
#include <gnuradio/bsid/core/sim/frame_source.h>
#include <gtest/gtest.h>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

using namespace bsid;

namespace {

const codebook cb = codebook::random(6, 16, 2, 5);
constexpr int N = 20;

std::shared_ptr<frame_decoder> make_decoder(double p)
{
    decoder_config cfg(cb, channel_params(p, p, 0.0), N);
    cfg.backend = backend_kind::cpu;
    cfg.precision = precision_kind::dual;
    cfg.threads = 1;
    return std::make_shared<frame_decoder>(cfg);
}

frame_batch frames_of(size_t count, uint64_t seed)
{
    frame_source src(cb, channel_params(0.02, 0.02, 0.0), N, seed);
    frame_batch b;
    src.generate(0, count, b, 1);
    return b;
}

batched_frame bits_of(const frame_batch& b, size_t k)
{
    batched_frame f;
    f.bits = b.rx[k];
    return f;
}

// everything pushed so far, taken (waiting as needed)
std::vector<batched_result> take_all(frame_batcher& fb, size_t count)
{
    std::vector<batched_result> out;
    const auto t0 = std::chrono::steady_clock::now();
    while (out.size() < count &&
           std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120)) {
        auto got = fb.take(100.0);
        for (auto& r : got)
            out.push_back(std::move(r));
    }
    return out;
}

// decode_batch of the same frames with the same decoder
std::vector<std::vector<double>> direct(frame_decoder& dec,
                                        const std::vector<frame_view>& views,
                                        std::vector<frame_result>* res = nullptr)
{
    std::vector<std::vector<double>> post(views.size(),
                                          std::vector<double>(size_t(N) * cb.q()));
    std::vector<double*> outs;
    for (auto& p : post)
        outs.push_back(p.data());
    const auto r = dec.decode_batch(views, outs);
    if (res)
        *res = r;
    return post;
}

} // namespace

TEST(frame_batcher, results_equal_decode_batch_in_push_order)
{
    const auto b = frames_of(29, 3);
    auto dec = make_decoder(0.02);
    frame_batcher fb({ 8, 1000.0 });
    for (size_t k = 0; k < b.size(); ++k)
        EXPECT_EQ(fb.push(bits_of(b, k), dec), k);
    fb.flush(); // the last 5 without waiting for the delay
    const auto got = take_all(fb, b.size());
    ASSERT_EQ(got.size(), b.size());
    std::vector<frame_view> views;
    for (size_t k = 0; k < b.size(); ++k)
        views.push_back(b.view(k));
    const auto want = direct(*dec, views);
    for (size_t k = 0; k < got.size(); ++k) {
        EXPECT_EQ(got[k].sequence, k);
        EXPECT_TRUE(got[k].result.ok()) << got[k].result.reason;
        EXPECT_EQ(got[k].posteriors, want[k]) << "frame " << k;
    }
    // three full batches by count, then the flushed 5
    EXPECT_EQ(fb.batches(), 4u);
    EXPECT_EQ(fb.frames(), 29u);
    EXPECT_DOUBLE_EQ(fb.mean_batch(), 29.0 / 4.0);
    EXPECT_EQ(fb.outstanding(), 0u);
    EXPECT_TRUE(fb.take().empty());
}

TEST(frame_batcher, a_lone_frame_goes_after_the_delay)
{
    const auto b = frames_of(1, 4);
    frame_batcher fb({ 64, 30.0 });
    const auto t0 = std::chrono::steady_clock::now();
    fb.push(bits_of(b, 0), make_decoder(0.02));
    EXPECT_EQ(fb.outstanding(), 1u);
    const auto got = take_all(fb, 1); // no flush: the delay sends it
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
            .count();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_TRUE(got[0].result.ok());
    EXPECT_GE(ms, 30.0);
    EXPECT_EQ(fb.batches(), 1u);
}

TEST(frame_batcher, a_batch_holds_one_decoder)
{
    const auto b = frames_of(5, 5);
    auto a = make_decoder(0.02), c = make_decoder(0.03);
    const std::vector<std::shared_ptr<frame_decoder>> order{ a, a, c, c, a };
    frame_batcher fb({ 16, 1000.0 });
    for (size_t k = 0; k < 5; ++k)
        fb.push(bits_of(b, k), order[k]);
    fb.flush();
    const auto got = take_all(fb, 5);
    ASSERT_EQ(got.size(), 5u);
    EXPECT_EQ(fb.batches(), 3u);
    for (size_t k = 0; k < 5; ++k) {
        const auto want = direct(*order[k], { b.view(k) });
        EXPECT_EQ(got[k].posteriors, want[0]) << "frame " << k;
    }
    // the two channels decode differently
    EXPECT_NE(direct(*a, { b.view(0) })[0], direct(*c, { b.view(0) })[0]);
}

TEST(frame_batcher, bad_frames_are_erasures_among_good_ones)
{
    const auto b = frames_of(3, 6);
    auto dec = make_decoder(0.02);
    frame_batcher fb({ 8, 1000.0 });
    fb.push(bits_of(b, 0), dec);
    fb.push(batched_frame{}, dec); // empty
    batched_frame bad = bits_of(b, 1);
    bad.bits[3] = 5; // not a bit
    fb.push(bad, dec);
    batched_frame soft;
    soft.soft = true;
    for (uint8_t x : b.rx[2])
        soft.llr.push_back(x ? 4.0 : -4.0);
    soft.llr[2] = std::numeric_limits<double>::quiet_NaN();
    fb.push(soft, dec);
    fb.push(bits_of(b, 2), dec);
    fb.flush();
    const auto got = take_all(fb, 5);
    ASSERT_EQ(got.size(), 5u);
    EXPECT_TRUE(got[0].result.ok());
    EXPECT_EQ(got[1].result.status, frame_status::empty);
    EXPECT_EQ(got[2].result.status, frame_status::invalid_input);
    EXPECT_EQ(got[3].result.status, frame_status::invalid_input);
    EXPECT_TRUE(got[4].result.ok());
    for (size_t k = 1; k < 4; ++k)
        for (double p : got[k].posteriors)
            EXPECT_DOUBLE_EQ(p, 1.0 / cb.q());
}

// Recycled posterior buffers (here filled with NaN first) are written whole
// by the decoder: the same results as fresh ones, refused frames included.
TEST(frame_batcher, recycled_buffers_give_the_same_results)
{
    const auto b = frames_of(6, 8);
    auto dec = make_decoder(0.02);
    frame_batcher fb({ 4, 1000.0 });
    auto push_all = [&] {
        for (size_t k = 0; k < b.size(); ++k)
            fb.push(k == 2 ? batched_frame{} : bits_of(b, k), dec); // frame 2 empty
        fb.flush();
    };
    push_all();
    const auto first = take_all(fb, b.size());
    ASSERT_EQ(first.size(), b.size());
    for (const auto& r : first) {
        std::vector<double> used = r.posteriors;
        std::fill(used.begin(), used.end(), std::numeric_limits<double>::quiet_NaN());
        fb.recycle(std::move(used));
    }
    fb.recycle(std::vector<double>(3, 0.0)); // the wrong size: not used
    push_all();
    const auto again = take_all(fb, b.size());
    ASSERT_EQ(again.size(), b.size());
    for (size_t k = 0; k < b.size(); ++k) {
        EXPECT_EQ(again[k].result.status, first[k].result.status);
        EXPECT_EQ(again[k].posteriors, first[k].posteriors) << "frame " << k;
    }
    EXPECT_EQ(again[2].result.status, frame_status::empty);
}

// Many batches queued at once: the collector forms and prepares the next
// batch while the decoder thread decodes one, and a consumer recycles
// (NaN-filled) buffers meanwhile. Every frame comes back once, in order,
// with decode_batch's posteriors; every batch is full but the flushed last.
TEST(frame_batcher, batches_prepared_while_others_decode)
{
    const auto b = frames_of(10, 9);
    auto dec = make_decoder(0.02);
    std::vector<frame_view> views;
    for (size_t k = 0; k < b.size(); ++k)
        views.push_back(b.view(k));
    const auto want = direct(*dec, views);
    frame_batcher fb({ 3, 60000.0 });
    const size_t count = 61;
    for (size_t k = 0; k < count; ++k)
        fb.push(bits_of(b, k % b.size()), dec);
    fb.flush();
    std::vector<batched_result> got;
    const auto t0 = std::chrono::steady_clock::now();
    while (got.size() < count &&
           std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120)) {
        for (auto& r : fb.take(100.0)) {
            std::vector<double> used = r.posteriors;
            std::fill(used.begin(), used.end(), std::numeric_limits<double>::quiet_NaN());
            fb.recycle(std::move(used));
            got.push_back(std::move(r));
        }
    }
    ASSERT_EQ(got.size(), count);
    for (size_t k = 0; k < count; ++k) {
        EXPECT_EQ(got[k].sequence, k);
        EXPECT_TRUE(got[k].result.ok()) << got[k].result.reason;
        EXPECT_EQ(got[k].posteriors, want[k % b.size()]) << "frame " << k;
        EXPECT_EQ(got[k].frame.bits, b.rx[k % b.size()]);
    }
    EXPECT_EQ(fb.batches(), 21u); // 20 of 3, then the flushed 1
    EXPECT_EQ(fb.outstanding(), 0u);
}

// Priors and the extrinsic output go through: the same posteriors as
// decode_batch with the same views.
TEST(frame_batcher, log_priors_and_extrinsic_as_decode_batch)
{
    const auto b = frames_of(4, 9);
    auto dec = make_decoder(0.02);
    const size_t NQ = size_t(N) * cb.q();
    std::vector<std::vector<double>> logs(4, std::vector<double>(NQ));
    for (size_t k = 0; k < 4; ++k)
        for (size_t i = 0; i < NQ; ++i)
            logs[k][i] = -0.1 * double((i * 7 + k) % 11); // uneven rows
    frame_batcher fb({ 8, 1000.0 });
    for (size_t k = 0; k < 4; ++k) {
        batched_frame f = bits_of(b, k);
        f.log_priors = logs[k];
        f.extrinsic = k % 2 == 1;
        fb.push(std::move(f), dec);
    }
    fb.flush();
    const auto got = take_all(fb, 4);
    ASSERT_EQ(got.size(), 4u);
    for (size_t k = 0; k < 4; ++k) {
        frame_view v = b.view(k);
        v.priors = logs[k].data();
        v.log_priors = true;
        v.extrinsic = k % 2 == 1;
        const auto want = direct(*dec, { v });
        EXPECT_TRUE(got[k].result.ok()) << got[k].result.reason;
        EXPECT_EQ(got[k].posteriors, want[0]) << "frame " << k;
        // the frame handed back, its items and priors as pushed
        EXPECT_EQ(got[k].frame.bits, b.rx[k]);
        EXPECT_EQ(got[k].frame.log_priors, logs[k]);
    }
    // the priors change the posteriors, and the extrinsic output differs from them
    EXPECT_NE(got[0].posteriors, direct(*dec, { b.view(0) })[0]);
    frame_view post1 = b.view(1);
    post1.priors = logs[1].data();
    post1.log_priors = true;
    EXPECT_NE(got[1].posteriors, direct(*dec, { post1 })[0]);
}

// A frame whose priors the core refuses fails decode_batch for the whole
// batch: the batcher decodes the batch again frame by frame, and only that
// frame is an invalid_input result; priors of the wrong size likewise.
TEST(frame_batcher, refused_priors_are_that_frames_erasure_only)
{
    const auto b = frames_of(6, 10);
    auto dec = make_decoder(0.02);
    const size_t NQ = size_t(N) * cb.q();
    frame_batcher fb({ 8, 1000.0 });
    for (size_t k = 0; k < 6; ++k) {
        batched_frame f = bits_of(b, k);
        f.log_priors.assign(NQ, 0.0);
        if (k == 2)
            f.log_priors[5] = std::numeric_limits<double>::quiet_NaN();
        if (k == 4)
            f.log_priors.resize(NQ - 1);
        fb.push(std::move(f), dec);
    }
    fb.flush();
    const auto got = take_all(fb, 6);
    ASSERT_EQ(got.size(), 6u);
    EXPECT_EQ(fb.batches(), 1u);
    for (size_t k = 0; k < 6; ++k) {
        if (k == 2 || k == 4) {
            EXPECT_EQ(got[k].result.status, frame_status::invalid_input) << "frame " << k;
            for (double p : got[k].posteriors)
                EXPECT_DOUBLE_EQ(p, 1.0 / cb.q());
            continue;
        }
        EXPECT_TRUE(got[k].result.ok()) << "frame " << k << ": " << got[k].result.reason;
        // uniform log priors: the posteriors without priors
        EXPECT_EQ(got[k].posteriors, direct(*dec, { b.view(k) })[0]) << "frame " << k;
    }
    EXPECT_NE(got[2].result.reason.find("log priors[0][5]"), std::string::npos)
        << got[2].result.reason;
    EXPECT_NE(got[4].result.reason.find("log_priors has"), std::string::npos)
        << got[4].result.reason;
}

TEST(frame_batcher, bad_options_are_refused)
{
    EXPECT_THROW(frame_batcher({ 0, 1.0 }), std::invalid_argument);
    EXPECT_THROW(frame_batcher({ 4, -1.0 }), std::invalid_argument);
    EXPECT_THROW(frame_batcher({ 4, std::nan("") }), std::invalid_argument);
    EXPECT_THROW(frame_batcher({ 4, std::numeric_limits<double>::infinity() }),
                 std::invalid_argument);
    frame_batcher fb({ 4, 1.0 });
    EXPECT_THROW(fb.push(batched_frame{}, nullptr), std::invalid_argument);
}

// Two producers and a consumer on their own threads: every frame once, in
// sequence order; destroying the batcher with frames pending does not hang.
TEST(frame_batcher, producers_and_a_consumer_on_other_threads)
{
    const auto b = frames_of(8, 7);
    auto dec = make_decoder(0.02);
    frame_batcher fb({ 4, 2.0 });
    const size_t per = 12;
    std::atomic<bool> done{ false };
    std::vector<uint64_t> seen;
    std::thread consumer([&] {
        while (!done || fb.outstanding() > 0) {
            for (const auto& r : fb.take(5.0))
                seen.push_back(r.sequence);
        }
    });
    std::vector<std::thread> producers;
    for (int t = 0; t < 2; ++t) {
        producers.emplace_back([&, t] {
            for (size_t k = 0; k < per; ++k)
                fb.push(bits_of(b, (k + size_t(t)) % b.size()), dec);
        });
    }
    for (auto& p : producers)
        p.join();
    done = true;
    consumer.join();
    ASSERT_EQ(seen.size(), 2 * per);
    for (size_t k = 0; k < seen.size(); ++k)
        EXPECT_EQ(seen[k], k);
    EXPECT_LE(fb.mean_batch(), 4.0);

    frame_batcher pending({ 64, 60000.0 });
    for (size_t k = 0; k < 3; ++k)
        pending.push(bits_of(b, k), dec);
    // its destructor decodes the three and stops
}
