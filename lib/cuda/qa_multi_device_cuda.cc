/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One decoder over several GPUs (decoder_config::devices): a batch split over
// two devices gives the posteriors, statuses, boundary metrics, evidence and
// events of one device, bit for bit, in float and double; "all" takes every
// device; a device that does not exist is refused. Every test skips cleanly
// on a machine with fewer than two GPUs (lib/core/tests/qa_device_split.cc checks
// the same splitting over CPU decoders everywhere).

#include "qa_env_guard.h"
#include "qa_split_batch.h"
#include "runtime/backends.h"
#include "runtime/device_split_decoder.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gtest/gtest.h>
#include <cstring>
#include <random>
#include <string>

using namespace bsid;

namespace {

class multi_device : public ::testing::Test
{
protected:
    void SetUp() override
    {
        const int count = cuda_device_count();
        if (count < 2)
            GTEST_SKIP() << "fewer than two GPUs (" << count << ")";
    }
    // the devices come from the configuration alone
    qa::scoped_env d_device{ "BSID_CUDA_DEVICE", nullptr };
};

decoder_config cuda_config(const std::string& book,
                           const channel_params& ch,
                           int N,
                           precision_kind p,
                           std::vector<int> devices)
{
    decoder_config cfg(codebook::builtin(book), ch, N);
    cfg.backend = backend_kind::cuda;
    cfg.precision = p;
    cfg.cuda.devices = std::move(devices);
    return cfg;
}

const precision_kind precisions[] = { precision_kind::single, precision_kind::dual };

} // namespace

// S500: N = 500 over ld3-modvec6 at Pi = Pd = 0.01, a batch of sent frames.
TEST_F(multi_device, s500_two_devices_equal_one)
{
    const channel_params ch(0.01, 0.01, 0.0);
    for (auto p : precisions) {
        auto one = map_decoder::make(cuda_config("ld3-modvec6", ch, 500, p, {}));
        auto two = map_decoder::make(cuda_config("ld3-modvec6", ch, 500, p, { 0, 1 }));
        ASSERT_EQ(one->backend(), backend_kind::cuda);
        ASSERT_EQ(two->backend(), backend_kind::cuda);
        auto* split = dynamic_cast<device_split_decoder*>(two.get());
        ASSERT_NE(split, nullptr);
        ASSERT_EQ(split->parts(), 2u);
        const size_t F = 48, Nq = size_t(500) * size_t(one->q());
        std::mt19937_64 g(21);
        std::vector<std::vector<uint8_t>> rx(F);
        std::vector<frame_view> views;
        for (size_t k = 0; k < F; ++k) {
            std::vector<int64_t> msg(500);
            for (auto& m : msg)
                m = int64_t(g() % uint64_t(one->q()));
            const auto sent = one->config().cb.encode(msg.data(), msg.size());
            rx[k] = transmit(ch, sent.data(), sent.size(), 21, k).rx;
            views.push_back({ rx[k].data(), rx[k].size() });
        }
        std::vector<std::vector<double>> a(F, std::vector<double>(Nq)),
            b(F, std::vector<double>(Nq));
        std::vector<double*> pa, pb;
        for (size_t k = 0; k < F; ++k) {
            pa.push_back(a[k].data());
            pb.push_back(b[k].data());
        }
        const auto ra = one->decode_batch(views, pa);
        const auto rb = two->decode_batch(views, pb);
        for (size_t k = 0; k < F; ++k) {
            EXPECT_EQ(ra[k].status, frame_status::ok) << k << ": " << ra[k].reason;
            EXPECT_EQ(rb[k].status, ra[k].status) << k;
            EXPECT_TRUE(qa::same_bits(a[k], b[k])) << "frame " << k;
        }
        // both devices took part
        for (size_t d = 0; d < 2; ++d)
            EXPECT_GT(split->part(d).peak_device_bytes(), 0u) << d;
    }
}

// Frames of every kind and length (qa_split_batch.h), on one device, on two,
// and on all of them.
TEST_F(multi_device, mixed_batch_equals_one_device)
{
    const channel_params ch(0.03, 0.03, 0.01);
    for (auto p : precisions) {
        auto one = map_decoder::make(cuda_config("ld3-modvec6", ch, 40, p, {}));
        const qa::split_batch batch(*one, 60, 8);
        const auto want = batch.decode(*one);
        for (const std::string list : { "0,1", "1,0", "all" }) {
            SCOPED_TRACE(list);
            auto many = map_decoder::make(
                cuda_config("ld3-modvec6", ch, 40, p, parse_devices(list)));
            ASSERT_EQ(many->backend(), backend_kind::cuda);
            qa::expect_same_outputs(want, batch.decode(*many), batch.expect_ok);
        }
    }
}

// frame_decoder's batches (a sync word, start priors, free ends) reach the split.
TEST_F(multi_device, frame_decoder_batches_equal_one_device)
{
    const channel_params ch(0.02, 0.02, 0.01);
    const auto sync = parse_sync_word("0110100110010110");
    frame_decoder one(cuda_config("ld3-modvec6", ch, 30, precision_kind::dual, {}), sync);
    frame_decoder two(cuda_config("ld3-modvec6", ch, 30, precision_kind::dual, { 0, 1 }),
                      sync);
    std::mt19937_64 g(4);
    const auto& cb = one.primary().config().cb;
    std::vector<std::vector<uint8_t>> rx(24);
    std::vector<frame_request> req(rx.size());
    for (size_t k = 0; k < rx.size(); ++k) {
        std::vector<int64_t> msg(30);
        for (auto& m : msg)
            m = int64_t(g() % uint64_t(cb.q()));
        auto sent = sync;
        const auto body = cb.encode(msg.data(), msg.size());
        sent.insert(sent.end(), body.begin(), body.end());
        rx[k] = transmit(ch, sent.data(), sent.size(), 4, k).rx;
        req[k].bits = rx[k].data();
        req[k].L = rx[k].size();
        if (k % 2) {
            req[k].end = end_mode::free;
            req[k].next_frame_follows = false; // random bits after it
        }
    }
    const auto a = one.decode_batch(req);
    const auto b = two.decode_batch(req);
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); ++k) {
        EXPECT_EQ(a[k].result.status, frame_status::ok)
            << k << ": " << a[k].result.reason;
        EXPECT_EQ(b[k].result.status, a[k].result.status) << k;
        EXPECT_TRUE(qa::same_bits(a[k].posteriors, b[k].posteriors)) << k;
        EXPECT_TRUE(qa::same_bits(a[k].end_posterior, b[k].end_posterior)) << k;
        EXPECT_TRUE(qa::same_bits(a[k].log_evidence, b[k].log_evidence)) << k;
    }
}

TEST_F(multi_device, all_takes_every_device)
{
    const int count = cuda_device_count();
    const auto all = parse_devices("all");
    ASSERT_EQ(all.size(), size_t(count));
    auto dec = map_decoder::make(cuda_config(
        "ld3-modvec6", channel_params(0.01, 0.01, 0), 20, precision_kind::single, all));
    auto* split = dynamic_cast<device_split_decoder*>(dec.get());
    ASSERT_NE(split, nullptr);
    EXPECT_EQ(split->parts(), size_t(count));
    for (int d = 0; d < count; ++d)
        EXPECT_EQ(split->part(size_t(d)).config().cuda.device, d);
    EXPECT_EQ(dec->config().cuda.device, 0); // the outer LDPC decoder's device
}

TEST_F(multi_device, a_device_that_does_not_exist_is_refused)
{
    const int count = cuda_device_count();
    decoder_config cfg = cuda_config("ld3-modvec6",
                                     channel_params(0.01, 0.01, 0),
                                     20,
                                     precision_kind::single,
                                     { 0, count });
    try {
        map_decoder::make(cfg);
        ADD_FAILURE() << "device " << count << " was taken";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("device " + std::to_string(count)),
                  std::string::npos)
            << e.what();
    }
    cfg.backend = backend_kind::automatic;
    EXPECT_EQ(map_decoder::make(cfg)->backend(), backend_kind::cpu);
}
