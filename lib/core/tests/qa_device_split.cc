/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One decoder over several devices, without a GPU: the planner that splits a
// batch by received bits, the device lists, and the splitting decoder over 2
// and 3 CPU decoders against one CPU decoder, bit for bit
// (lib/cuda/qa_multi_device_cuda.cc does the same over GPUs).

#include "qa_env_guard.h"
#include "qa_split_batch.h"
#include "runtime/device_split_decoder.h"
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gtest/gtest.h>
#include <cmath>
#include <random>
#include <stdexcept>

using namespace bsid;

namespace {

long double work(const std::vector<size_t>& rho, size_t from, size_t to)
{
    long double w = 0;
    for (size_t i = from; i < to; ++i)
        w += (long double)rho[i];
    return w;
}

void expect_cover(const std::vector<index_range>& r, size_t frames, int devices)
{
    ASSERT_EQ(r.size(), size_t(devices));
    size_t at = 0;
    for (const auto& x : r) {
        EXPECT_EQ(x.begin, at);
        EXPECT_LE(x.begin, x.end);
        at = x.end;
    }
    EXPECT_EQ(at, frames);
}

std::vector<std::unique_ptr<map_decoder>> cpu_parts(const decoder_config& cfg, int count)
{
    std::vector<std::unique_ptr<map_decoder>> parts;
    for (int k = 0; k < count; ++k) {
        decoder_config c = cfg;
        c.threads = 1 + k % 2; // any share of the cores gives the same frames
        parts.push_back(map_decoder::make(c));
    }
    return parts;
}

decoder_config cpu_config(precision_kind p)
{
    decoder_config cfg(
        codebook::builtin("ld3-modvec6"), channel_params(0.03, 0.03, 0.01), 24);
    cfg.backend = backend_kind::cpu;
    cfg.precision = p;
    return cfg;
}

// A part that fails as a device can: every batch throws.
class failing_decoder final : public map_decoder
{
public:
    failing_decoder(const decoder_config& cfg, bool bad_argument)
        : map_decoder(cfg), d_bad_argument(bad_argument)
    {
    }
    frame_result decode(const frame_view&, double*) override
    {
        throw std::runtime_error("device lost");
    }
    std::vector<frame_result> decode_batch(const std::vector<frame_view>&,
                                           const std::vector<double*>&) override
    {
        if (d_bad_argument)
            throw std::invalid_argument("a bad argument");
        throw std::runtime_error("device lost");
    }
    backend_kind backend() const override { return backend_kind::cpu; }
    storage_kind storage() const override { return storage_kind::global; }

private:
    bool d_bad_argument;
};

} // namespace

TEST(device_split, plan_equal_frames_by_count)
{
    const std::vector<size_t> rho(10, 120);
    const auto r = plan_device_split(rho, 2);
    expect_cover(r, 10, 2);
    EXPECT_EQ(r[0], (index_range{ 0, 5 }));
    const auto r3 = plan_device_split(rho, 3);
    expect_cover(r3, 10, 3);
    // cuts nearest 400 and 800 bits: after frames 3 (360) or 4 (480) -> 3; 7 (840)
    EXPECT_EQ(r3[0], (index_range{ 0, 3 }));
    EXPECT_EQ(r3[1], (index_range{ 3, 7 }));
    EXPECT_EQ(r3[2], (index_range{ 7, 10 }));
    EXPECT_EQ(plan_device_split(rho, 1)[0], (index_range{ 0, 10 }));
}

TEST(device_split, plan_by_received_bits)
{
    // one long frame weighs as much as the three short ones after it
    const std::vector<size_t> rho{ 300, 100, 100, 100 };
    const auto r = plan_device_split(rho, 2);
    expect_cover(r, 4, 2);
    EXPECT_EQ(r[0], (index_range{ 0, 1 }));
    EXPECT_EQ(r[1], (index_range{ 1, 4 }));
    // a frame longer than all the others together: the rest share one device
    const auto big = plan_device_split({ 1, 1, 1000, 1 }, 3);
    expect_cover(big, 4, 3);
    EXPECT_EQ(work(std::vector<size_t>{ 1, 1, 1000, 1 }, big[1].begin, big[1].end), 1000);
}

TEST(device_split, plan_fewer_frames_than_devices)
{
    const auto one = plan_device_split({ 500 }, 3);
    expect_cover(one, 1, 3);
    EXPECT_EQ(one[0].size() + one[1].size() + one[2].size(), 1u); // one device decodes it
    const auto two = plan_device_split({ 500, 500 }, 4);
    expect_cover(two, 2, 4);
    int busy = 0;
    for (const auto& x : two) {
        EXPECT_LE(x.size(), 1u);
        busy += x.size() == 1;
    }
    EXPECT_EQ(busy, 2);
    expect_cover(plan_device_split({}, 2), 0, 2);
    // no work at all (every frame empty): by count
    const auto zero = plan_device_split(std::vector<size_t>(7, 0), 2);
    expect_cover(zero, 7, 2);
    EXPECT_EQ(zero[0], (index_range{ 0, 3 }));
}

TEST(device_split, plan_refuses_no_devices)
{
    EXPECT_THROW(plan_device_split({ 1, 2 }, 0), std::invalid_argument);
    EXPECT_THROW(plan_device_split({ 1, 2 }, -2), std::invalid_argument);
}

// Random batches: every cut is the one nearest its quantile of the work, so
// no device gets more than its share plus one frame.
TEST(device_split, plan_cuts_are_nearest_the_quantiles)
{
    std::mt19937_64 g(11);
    for (int trial = 0; trial < 300; ++trial) {
        const size_t F = g() % 40;
        const int D = 1 + int(g() % 8);
        std::vector<size_t> rho(F);
        for (auto& x : rho)
            x = g() % 4 == 0 ? 0 : size_t(g() % (trial % 2 ? 100000 : 50));
        const auto r = plan_device_split(rho, D);
        expect_cover(r, F, D);
        const long double total = work(rho, 0, F);
        size_t biggest = 0;
        for (size_t x : rho)
            biggest = std::max(biggest, x);
        for (int k = 1; k < D && total > 0; ++k) {
            const long double target = total * k / D;
            const long double at = std::fabs(work(rho, 0, r[size_t(k - 1)].end) - target);
            for (size_t i = 0; i <= F; ++i)
                ASSERT_LE(at, std::fabs(work(rho, 0, i) - target)) << trial << " " << k;
        }
        for (const auto& x : r)
            EXPECT_LE(work(rho, x.begin, x.end), total / D + biggest) << trial;
    }
}

TEST(device_split, parse_devices)
{
    EXPECT_EQ(parse_devices(""), std::vector<int>{});
    EXPECT_EQ(parse_devices("0"), std::vector<int>{ 0 });
    EXPECT_EQ(parse_devices("0,1,3"), (std::vector<int>{ 0, 1, 3 }));
    EXPECT_EQ(parse_devices(" 2 , 0"), (std::vector<int>{ 2, 0 }));
    const auto all = parse_devices("all");
    ASSERT_EQ(all.size(), size_t(cuda_device_count()));
    for (size_t d = 0; d < all.size(); ++d)
        EXPECT_EQ(all[d], int(d));
    for (const char* bad : { "0,0",
                             "1, 1",
                             "-1",
                             "0,",
                             ",",
                             ",1",
                             "a",
                             "1.5",
                             "0;1",
                             "0 1",
                             "99999999999",
                             "ALL" }) {
        try {
            parse_devices(bad);
            ADD_FAILURE() << "'" << bad << "' was taken";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"),
                      std::string::npos)
                << e.what();
        }
    }
}

TEST(device_split, make_checks_the_device_list)
{
    qa::scoped_env device("BSID_CUDA_DEVICE", nullptr);
    decoder_config cfg = cpu_config(precision_kind::single);
    for (auto b : { backend_kind::cpu, backend_kind::cuda, backend_kind::automatic }) {
        cfg.backend = b;
        cfg.cuda.devices = { 0, 0 };
        EXPECT_THROW(map_decoder::make(cfg), std::invalid_argument);
        cfg.cuda.devices = { 1, -1 };
        EXPECT_THROW(map_decoder::make(cfg), std::invalid_argument);
    }
    // a device that does not exist: backend cuda says so, auto takes the CPU
    cfg.cuda.devices = { 0, 1000 };
    cfg.backend = backend_kind::cuda;
    EXPECT_THROW(map_decoder::make(cfg), std::runtime_error);
    cfg.cuda.devices = { 1000 };
    EXPECT_THROW(map_decoder::make(cfg), std::runtime_error);
    for (auto devices : { std::vector<int>{ 0, 1000 }, std::vector<int>{ 1000 } }) {
        cfg.cuda.devices = devices;
        cfg.backend = backend_kind::automatic;
        EXPECT_EQ(map_decoder::make(cfg)->backend(), backend_kind::cpu);
        cfg.backend = backend_kind::cpu; // the CPU takes no device
        EXPECT_EQ(map_decoder::make(cfg)->backend(), backend_kind::cpu);
    }
}

TEST(device_split, equals_one_decoder_bit_for_bit)
{
    for (auto p : { precision_kind::single, precision_kind::dual }) {
        const decoder_config cfg = cpu_config(p);
        auto one = map_decoder::make(cfg);
        const qa::split_batch batch(*one, 40, 5);
        const auto want = batch.decode(*one);
        for (int parts : { 2, 3 }) {
            device_split_decoder split(cfg, cpu_parts(cfg, parts));
            EXPECT_EQ(split.parts(), size_t(parts));
            EXPECT_EQ(split.backend(), backend_kind::cpu);
            EXPECT_EQ(split.peak_device_bytes(), 0u);
            qa::expect_same_outputs(want, batch.decode(split), batch.expect_ok);
            // again: the threads are kept between batches
            qa::expect_same_outputs(want, batch.decode(split), batch.expect_ok);
            // one frame at a time, on the first decoder
            for (size_t k = 0; k < batch.views.size(); k += 7) {
                std::vector<double> post(want.post[k].size());
                const auto r = split.decode(batch.views[k], post.data());
                EXPECT_EQ(r.status, want.results[k].status);
                EXPECT_TRUE(qa::same_bits(post, want.post[k])) << k;
            }
        }
    }
}

TEST(device_split, fewer_frames_than_devices)
{
    const decoder_config cfg = cpu_config(precision_kind::dual);
    auto one = map_decoder::make(cfg);
    device_split_decoder split(cfg, cpu_parts(cfg, 3));
    for (int frames : { 0, 1, 2 }) {
        const qa::split_batch batch(*one, frames, 9);
        qa::expect_same_outputs(batch.decode(*one), batch.decode(split), batch.expect_ok);
    }
}

TEST(device_split, bad_priors_throw_before_any_frame)
{
    const decoder_config cfg = cpu_config(precision_kind::single);
    auto one = map_decoder::make(cfg);
    device_split_decoder split(cfg, cpu_parts(cfg, 2));
    qa::split_batch batch(*one, 12, 3);
    std::vector<double> bad(size_t(cfg.N) * size_t(cfg.cb.q()), 0.5);
    bad[7] = -1;                         // not a probability
    batch.views[10].priors = bad.data(); // in the second device's range
    batch.views[10].log_priors = false;
    std::vector<std::vector<double>> out(batch.views.size(),
                                         std::vector<double>(bad.size(), 3.0));
    std::vector<double*> post;
    for (auto& o : out)
        post.push_back(o.data());
    EXPECT_THROW(split.decode_batch(batch.views, post), std::invalid_argument);
    for (const auto& o : out)
        EXPECT_EQ(o, std::vector<double>(bad.size(), 3.0)); // no frame was decoded
    EXPECT_THROW(split.decode_batch(batch.views, { post[0] }), std::invalid_argument);
    // and the decoder goes on
    batch.views[10].priors = nullptr;
    qa::expect_same_outputs(batch.decode(*one), batch.decode(split), batch.expect_ok);
}

TEST(device_split, a_failing_part_fails_its_frames_only)
{
    const decoder_config cfg = cpu_config(precision_kind::single);
    auto one = map_decoder::make(cfg);
    std::vector<std::unique_ptr<map_decoder>> parts;
    parts.push_back(map_decoder::make(cfg));
    parts.push_back(std::make_unique<failing_decoder>(cfg, false));
    device_split_decoder split(cfg, std::move(parts));
    const qa::split_batch batch(*one, 18, 4);
    const auto want = batch.decode(*one);
    const auto got = batch.decode(split);
    std::vector<size_t> rho;
    for (const auto& v : batch.views)
        rho.push_back(v.rho);
    const auto ranges = plan_device_split(rho, 2);
    ASSERT_GT(ranges[1].size(), 0u);
    for (size_t k = 0; k < want.results.size(); ++k) {
        if (k < ranges[0].end) {
            EXPECT_EQ(got.results[k].status, want.results[k].status) << k;
            EXPECT_TRUE(qa::same_bits(got.post[k], want.post[k])) << k;
        } else {
            EXPECT_EQ(got.results[k].status, frame_status::decoder_error) << k;
            EXPECT_NE(got.results[k].reason.find("device lost"), std::string::npos);
            EXPECT_EQ(got.post[k],
                      std::vector<double>(want.post[k].size(), 1.0 / cfg.cb.q()));
            EXPECT_TRUE(std::isinf(got.evidence[k]) && got.evidence[k] < 0);
        }
    }
    // an invalid argument from a part reaches the caller
    std::vector<std::unique_ptr<map_decoder>> refusing;
    refusing.push_back(map_decoder::make(cfg));
    refusing.push_back(std::make_unique<failing_decoder>(cfg, true));
    device_split_decoder split2(cfg, std::move(refusing));
    EXPECT_THROW(batch.decode(split2), std::invalid_argument);
}

TEST(device_split, parts_must_match)
{
    const decoder_config cfg = cpu_config(precision_kind::single);
    EXPECT_THROW(device_split_decoder(cfg, {}), std::invalid_argument);
    decoder_config other = cfg;
    other.N = cfg.N + 1;
    std::vector<std::unique_ptr<map_decoder>> parts;
    parts.push_back(map_decoder::make(cfg));
    parts.push_back(map_decoder::make(other));
    EXPECT_THROW(device_split_decoder(cfg, std::move(parts)), std::invalid_argument);
    decoder_config dual = cfg;
    dual.precision = precision_kind::dual;
    EXPECT_THROW(device_split_decoder(dual, cpu_parts(cfg, 2)), std::invalid_argument);
}

TEST(device_split, profile_sums_the_parts)
{
    const decoder_config cfg = cpu_config(precision_kind::single);
    auto one = map_decoder::make(cfg);
    device_split_decoder split(cfg, cpu_parts(cfg, 2));
    const qa::split_batch batch(*one, 10, 2);
    batch.decode(split);
    EXPECT_EQ(split.profile().alpha, 0.0); // off by default
    split.set_profiling(true);
    batch.decode(split);
    EXPECT_GT(split.profile().alpha, 0.0);
    EXPECT_GT(split.profile().L, 0.0);
    for (size_t k = 0; k < split.parts(); ++k)
        EXPECT_EQ(split.part(k).profile().alpha, 0.0); // moved into the sum
}
