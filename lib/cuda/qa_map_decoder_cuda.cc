/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA backend against the CPU backend in double precision and against
// the brute-force APP. Every test skips cleanly when no GPU is usable (CI and
// the development machines: the runtime answers cudaErrorInsufficientDriver).
// Equal statuses on both backends are not enough: the frames that must
// decode are checked to be ok, so that backends refusing every frame fail.

#include "launch_plan.h"
#include "qa_log_capture.h"
#include "qa_reference.h"
#include "runtime/backends.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <tuple>

using namespace bsid;
using namespace bsid::qa;

namespace {

class cuda_decoder : public ::testing::Test
{
protected:
    void SetUp() override
    {
        std::string why;
        if (!cuda_device_available(0, &why))
            GTEST_SKIP() << "no GPU: " << why;
    }
};

std::unique_ptr<map_decoder>
make(decoder_config cfg, backend_kind b, precision_kind p, storage_kind s)
{
    cfg.backend = b;
    cfg.precision = p;
    cfg.storage = s;
    return map_decoder::make(cfg);
}

const precision_kind precisions[] = { precision_kind::dual, precision_kind::single };
const storage_kind storages[] = { storage_kind::global, storage_kind::local };

// A batch of frames for one configuration: several sent frames (different
// received lengths), an empty one, one far outside the drift limits, one with
// a byte that is not a bit; priors on every other frame if asked.
struct batch {
    std::vector<std::vector<uint8_t>> rx;
    std::vector<std::vector<double>> priors;
    std::vector<frame_view> views;
};

batch make_batch(const codebook& cb,
                 const channel_params& ch,
                 int N,
                 bool with_priors,
                 std::mt19937_64& rng)
{
    batch b;
    std::uniform_int_distribution<int> sym(0, cb.q() - 1);
    for (int k = 0; k < 4; ++k) {
        std::vector<int64_t> msg(static_cast<size_t>(N));
        for (auto& d : msg)
            d = sym(rng);
        const auto bits = cb.encode(msg.data(), msg.size());
        auto rx = transmit(ch, bits.data(), bits.size(), rng(), uint64_t(k)).rx;
        if (rx.empty())
            rx.push_back(1);
        b.rx.push_back(rx);
    }
    b.rx.push_back({});                                              // empty
    b.rx.push_back(std::vector<uint8_t>(size_t(N) * cb.n() * 3, 0)); // drift far out
    b.rx.push_back(b.rx[0]);
    b.rx.back()[0] = 9; // not a bit
    std::uniform_real_distribution<double> u(0.05, 1.0);
    for (size_t k = 0; k < b.rx.size(); ++k) {
        std::vector<double> pr;
        if (with_priors && k % 2 == 0) {
            pr.resize(size_t(N) * cb.q());
            for (auto& v : pr)
                v = u(rng);
        }
        b.priors.push_back(pr);
    }
    for (size_t k = 0; k < b.rx.size(); ++k) {
        b.views.push_back({ b.rx[k].data(),
                            b.rx[k].size(),
                            b.priors[k].empty() ? nullptr : b.priors[k].data() });
    }
    return b;
}

std::vector<std::vector<double>>
decode_all(map_decoder& dec, const batch& b, std::vector<frame_result>& res)
{
    std::vector<std::vector<double>> post(b.views.size(),
                                          std::vector<double>(size_t(dec.N()) * dec.q()));
    std::vector<double*> outs;
    for (auto& p : post)
        outs.push_back(p.data());
    res = dec.decode_batch(b.views, outs);
    return post;
}

// The statuses a make_batch batch must get on a channel with insertions and
// deletions, from any backend: the sent frames (0 to 3) decode wherever the
// limits hold their end drift, frame 4 is empty, frame 6 holds a byte that
// is not a bit. (Frame 5, far from the sent length, is compared with the CPU.)
void expect_batch_statuses(const map_decoder& dec,
                           const batch& b,
                           const std::vector<frame_result>& res,
                           const std::string& what)
{
    ASSERT_EQ(res.size(), b.rx.size()) << what;
    for (size_t k = 0; k < 4; ++k) {
        const bool fits =
            dec.limits().mtau.contains((long long)b.rx[k].size() - dec.tau());
        EXPECT_EQ(res[k].status,
                  fits ? frame_status::ok : frame_status::drift_out_of_range)
            << what << " frame " << k << ": " << res[k].reason;
    }
    EXPECT_EQ(res[4].status, frame_status::empty) << what;
    EXPECT_EQ(res[6].status, frame_status::invalid_input) << what;
}

// A make_batch batch through the CUDA backend in every precision and storage
// against the CPU's: the statuses (expect_batch_statuses, and the CPU's for
// the others) and the posteriors of the frames decoded (1e-9 in double,
// 1e-4 in float); `what` names the case.
void expect_batch_matches_cpu(const decoder_config& cfg,
                              const batch& b,
                              const std::string& what)
{
    std::vector<frame_result> ref_res, res;
    auto cpu = make(cfg, backend_kind::cpu, precision_kind::dual, storage_kind::global);
    const auto ref = decode_all(*cpu, b, ref_res);
    expect_batch_statuses(*cpu, b, ref_res, "cpu " + what);
    for (auto p : precisions)
        for (auto s : storages) {
            auto dec = make(cfg, backend_kind::cuda, p, s);
            ASSERT_EQ(dec->backend(), backend_kind::cuda);
            const std::string w = what +
                                  " M_tau=" + std::to_string(dec->limits().mtau.size()) +
                                  " " + to_string(p) + " " + to_string(s);
            const auto got = decode_all(*dec, b, res);
            expect_batch_statuses(*dec, b, res, w);
            for (size_t k = 0; k < got.size(); ++k) {
                ASSERT_EQ(res[k].status, ref_res[k].status)
                    << w << " frame " << k << ": " << res[k].reason;
                if (ref_res[k].ok()) {
                    EXPECT_LT(max_abs_diff(got[k], ref[k]),
                              p == precision_kind::dual ? 1e-9 : 1e-4)
                        << w << " frame " << k;
                }
            }
        }
}

} // namespace

TEST_F(cuda_decoder, matches_cpu_double_on_random_configurations)
{
    std::mt19937_64 rng(test_seed());
    std::uniform_real_distribution<double> u(0, 1);
    int decoded = 0;
    for (int q : { 2, 4, 16, 64, 1024 }) {
        for (int P : { 1, 3 }) {
            int nmin = 1;
            while ((1 << nmin) < q)
                ++nmin;
            const int n =
                std::uniform_int_distribution<int>(nmin, std::min(20, nmin + 6))(rng);
            const int N = q >= 1024 ? 3 : std::uniform_int_distribution<int>(2, 24)(rng);
            const codebook cb = codebook::random(n, q, P, rng());
            const channel_params ch(0.2 * u(rng), 0.2 * u(rng), 0.2 * u(rng));
            const bool with_priors = u(rng) < 0.5;
            const batch b = make_batch(cb, ch, N, with_priors, rng);
            decoder_config cfg(cb, ch, N);
            std::vector<frame_result> ref_res;
            auto cpu =
                make(cfg, backend_kind::cpu, precision_kind::dual, storage_kind::global);
            const auto ref = decode_all(*cpu, b, ref_res);
            EXPECT_EQ(ref_res[4].status, frame_status::empty);
            EXPECT_EQ(ref_res[6].status, frame_status::invalid_input);
            for (auto p : precisions)
                for (auto s : storages) {
                    auto gpu = make(cfg, backend_kind::cuda, p, s);
                    ASSERT_EQ(gpu->backend(), backend_kind::cuda);
                    std::vector<frame_result> res;
                    const auto got = decode_all(*gpu, b, res);
                    const double tol = p == precision_kind::dual ? 1e-9 : 1e-4;
                    for (size_t k = 0; k < got.size(); ++k) {
                        EXPECT_EQ(res[k].status, ref_res[k].status)
                            << "q=" << q << " n=" << n << " P=" << P << " frame " << k
                            << ": " << res[k].reason << " / " << ref_res[k].reason;
                        if (!ref_res[k].ok())
                            continue;
                        ++decoded;
                        EXPECT_LT(max_abs_diff(got[k], ref[k]), tol)
                            << "q=" << q << " n=" << n << " P=" << P << " N=" << N << " "
                            << ch.repr() << " " << to_string(p) << " " << to_string(s)
                            << " frame " << k << (with_priors ? " priors" : "");
                    }
                }
        }
    }
    EXPECT_GT(decoded, 100);
}

TEST_F(cuda_decoder, local_storage_in_many_windows)
{
    // windows of W symbol indices (decoder_config::local_window), cut from
    // the frame's end (plan_local_windows): the backward pass makes gamma
    // again window by window but the last, which the forward pass left. W = 3
    // and 7 leave a first window of 1 and 5 indices, W = 4 divides N, W = 39
    // is two windows (1 + 39) and W = 1 one index a window. Each against the
    // CPU, and every W the same values as W = 1 (the windows cut the same
    // steps)
    std::mt19937_64 rng(test_seed() + 7);
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.03, 0.02, 0.01);
    const int N = 40;
    const batch b = make_batch(cb, ch, N, true, rng);
    decoder_config cfg(cb, ch, N);
    std::vector<frame_result> ref_res, res;
    auto cpu = make(cfg, backend_kind::cpu, precision_kind::dual, storage_kind::global);
    const auto ref = decode_all(*cpu, b, ref_res);
    expect_batch_statuses(*cpu, b, ref_res, "cpu");
    for (auto p : precisions) {
        std::vector<std::vector<double>> first;
        for (int W : { 1, 3, 4, 7, 39 }) {
            cfg.cuda.local_window = W;
            auto gpu = make(cfg, backend_kind::cuda, p, storage_kind::local);
            ASSERT_EQ(gpu->backend(), backend_kind::cuda);
            const auto got = decode_all(*gpu, b, res);
            expect_batch_statuses(*gpu, b, res, "cuda " + to_string(p));
            for (size_t k = 0; k < got.size(); ++k) {
                ASSERT_EQ(res[k].status, ref_res[k].status) << k << " W " << W;
                if (ref_res[k].ok()) {
                    EXPECT_LT(max_abs_diff(got[k], ref[k]),
                              p == precision_kind::dual ? 1e-9 : 1e-4)
                        << k << " W " << W;
                    if (!first.empty()) {
                        EXPECT_EQ(max_abs_diff(got[k], first[k]), 0.0) << k << " W " << W;
                    }
                }
            }
            if (first.empty())
                first = got;
        }
    }
}

// norm_scan_kernel sums the steps' normalizers 1024 at a time: a frame of
// more than 1024 steps (alpha's sum) and a backward window of more than 1024
// (local storage) take its second round. The log evidence and the boundary
// metrics are made from those sums: both against the CPU on such frames.
TEST_F(cuda_decoder, long_frames_sum_their_normalizers_as_the_cpu)
{
    std::mt19937_64 rng(test_seed() + 29);
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.01);
    const int N = 1300;
    batch b = make_batch(cb, ch, N, true, rng);
    decoder_config cfg(cb, ch, N);
    cfg.cuda.local_window =
        1100; // windows of 200 and 1100 indices (backward: 1100 first)
    const size_t F = b.rx.size(),
                 Mt = size_t(map_decoder::make(cfg)->limits().mtau.size());
    struct out {
        std::vector<std::vector<double>> metrics;
        std::vector<double> evidence;
        std::vector<frame_result> res;
    };
    auto run = [&](map_decoder& dec) {
        out o;
        o.metrics.assign(F, std::vector<double>(2 * Mt, -1.0));
        o.evidence.assign(F, 0.0);
        for (size_t k = 0; k < F; ++k) {
            b.views[k].boundary_metrics = o.metrics[k].data();
            b.views[k].log_evidence = &o.evidence[k];
        }
        decode_all(dec, b, o.res);
        return o;
    };
    auto cpu = make(cfg, backend_kind::cpu, precision_kind::dual, storage_kind::global);
    const out ref = run(*cpu);
    size_t ok = 0;
    for (size_t k = 0; k < F; ++k)
        ok += ref.res[k].ok() ? 1 : 0;
    ASSERT_GE(ok, 4u); // the four sent frames
    for (auto p : precisions)
        for (auto s : storages) {
            auto gpu = make(cfg, backend_kind::cuda, p, s);
            ASSERT_EQ(gpu->backend(), backend_kind::cuda);
            const out got = run(*gpu);
            const std::string what = to_string(p) + " " + to_string(s);
            // relative to the evidence's size (thousands of nats): a float
            // lattice's rounding, about 1e-6 a step, stays far below 1e-5
            const double rel = p == precision_kind::dual ? 1e-9 : 1e-5;
            const double tol = p == precision_kind::dual ? 1e-9 : 1e-4;
            for (size_t k = 0; k < F; ++k) {
                ASSERT_EQ(got.res[k].status, ref.res[k].status) << what << " " << k;
                if (!ref.res[k].ok()) {
                    EXPECT_EQ(got.evidence[k], -std::numeric_limits<double>::infinity())
                        << what << " " << k;
                    continue;
                }
                EXPECT_NEAR(got.evidence[k],
                            ref.evidence[k],
                            rel * std::max(1.0, std::abs(ref.evidence[k])))
                    << what << " frame " << k;
                EXPECT_LT(max_abs_diff(got.metrics[k], ref.metrics[k]), tol)
                    << what << " frame " << k;
            }
        }
}

TEST_F(cuda_decoder, tiny_codes_match_brute_force)
{
    std::mt19937_64 rng(test_seed() + 1);
    for (int trial = 0; trial < 30; ++trial) {
        const tiny_case tc = random_case(rng, trial % 2 == 1);
        const auto ref = brute_force_app(tc, nullptr);
        decoder_config cfg(tc.cb, tc.ch, tc.N);
        const int rho = int(tc.y.size()), tau = tc.N * tc.cb.n();
        cfg.mtau = drift_range{ -tau, rho };
        cfg.mn = drift_range{ -tc.cb.n(), rho };
        for (auto p : precisions)
            for (auto s : storages) {
                auto dec = make(cfg, backend_kind::cuda, p, s);
                std::vector<double> post(size_t(tc.N * tc.cb.q()));
                const auto r =
                    dec->decode({ tc.y.data(),
                                  tc.y.size(),
                                  tc.priors.empty() ? nullptr : tc.priors.data() },
                                post.data());
                ASSERT_TRUE(r.ok()) << r.reason;
                EXPECT_LT(max_abs_diff(post, ref),
                          p == precision_kind::dual ? 1e-9 : 1e-4)
                    << "trial " << trial << " " << to_string(p) << " " << to_string(s);
            }
    }
}

TEST_F(cuda_decoder, tiny_codes_match_restricted_reference_with_default_limits)
{
    // the limits computed from Pr, as the brute force restricts P(y|X) to
    // them: the CUDA backend's truncation against the exact reference, not
    // only against the CPU's
    std::mt19937_64 rng(test_seed() + 3);
    int decoded = 0;
    for (int trial = 0; trial < 60; ++trial) {
        const tiny_case tc = random_case(rng, trial % 2 == 0);
        const decoder_config cfg(tc.cb, tc.ch, tc.N);
        const frame_view f{ tc.y.data(),
                            tc.y.size(),
                            tc.priors.empty() ? nullptr : tc.priors.data() };
        for (auto p : precisions)
            for (auto s : storages) {
                auto dec = make(cfg, backend_kind::cuda, p, s);
                ASSERT_EQ(dec->backend(), backend_kind::cuda);
                std::vector<double> post(size_t(tc.N * tc.cb.q()));
                const auto r = dec->decode(f, post.data());
                const auto ref = restricted_reference(tc, *dec, r);
                if (!ref)
                    continue;
                ASSERT_TRUE(r.ok()) << "trial " << trial << " " << to_string(p) << " "
                                    << to_string(s) << ": " << r.reason;
                ++decoded;
                EXPECT_LT(max_abs_diff(post, *ref),
                          p == precision_kind::dual ? 1e-9 : 1e-4)
                    << "trial " << trial << " " << to_string(p) << " " << to_string(s);
            }
    }
    EXPECT_GT(decoded, 100);
}

TEST_F(cuda_decoder, state_space_of_4097_states)
{
    // M_tau = 4097 > 1024 (the paper's limit): the blocks loop over the states,
    // the row in shared memory (plan_ab_row_pad); M_tau = 6401: the row past
    // 48 KiB, read from global memory; both on ab_rows_kernel, which the log
    // names
    log_capture capture;
    auto& lines = capture.lines;
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    const int N = 60;
    for (const int half : { 2048, 3200 }) {
        decoder_config cfg(cb, ch, N);
        cfg.mtau = drift_range{ -half, half };
        const int Mt = 2 * half + 1;
        const int Mn = map_decoder::make(cfg)->limits().mn.size();
        EXPECT_EQ(cuda::plan_ab_row_pad(Mt, Mn, 512) > 0, half == 2048) << Mt;
        std::mt19937_64 rng(test_seed() + 2);
        const batch b = make_batch(cb, ch, N, false, rng);
        std::vector<frame_result> ref_res, res;
        auto cpu =
            make(cfg, backend_kind::cpu, precision_kind::dual, storage_kind::global);
        const auto ref = decode_all(*cpu, b, ref_res);
        expect_batch_statuses(*cpu, b, ref_res, "cpu");
        for (auto p : precisions)
            for (auto s : storages) {
                lines.clear();
                auto dec = make(cfg, backend_kind::cuda, p, s);
                ASSERT_EQ(dec->backend(), backend_kind::cuda);
                ASSERT_EQ(dec->limits().mtau.size(), Mt);
                const std::string form = half == 2048
                                             ? "(rows kernel, row in shared memory)"
                                             : "(rows kernel, row in global memory)";
                bool said = false;
                for (const auto& l : lines)
                    said = said || (l.find("alpha/beta block ") != std::string::npos &&
                                    l.find(form) != std::string::npos);
                EXPECT_TRUE(said) << Mt << ": expected '" << form << "' in the log";
                const auto got = decode_all(*dec, b, res);
                expect_batch_statuses(
                    *dec, b, res, "cuda " + to_string(p) + " " + to_string(s));
                for (size_t k = 0; k < got.size(); ++k) {
                    ASSERT_EQ(res[k].status, ref_res[k].status)
                        << k << " " << res[k].reason;
                    if (ref_res[k].ok()) {
                        EXPECT_LT(max_abs_diff(got[k], ref[k]),
                                  p == precision_kind::dual ? 1e-9 : 1e-4)
                            << Mt << " " << to_string(p) << " " << to_string(s)
                            << " frame " << k;
                    }
                }
            }
    }
}

TEST_F(cuda_decoder, impossible_frames_and_auto_backend)
{
    const codebook cb(3, { { 0, 7 } });
    decoder_config cfg(cb, channel_params(0, 0, 0), 2);
    for (auto p : precisions) {
        auto dec = make(cfg, backend_kind::cuda, p, storage_kind::automatic);
        std::vector<double> post(4);
        const std::vector<uint8_t> good = { 1, 1, 1, 0, 0, 0 },
                                   bad = { 1, 0, 1, 0, 0, 0 };
        ASSERT_TRUE(dec->decode({ good.data(), good.size(), nullptr }, post.data()).ok());
        EXPECT_EQ(post, (std::vector<double>{ 0, 1, 1, 0 }));
        const auto r = dec->decode({ bad.data(), bad.size(), nullptr }, post.data());
        EXPECT_EQ(r.status, frame_status::impossible) << r.reason;
        for (double v : post)
            EXPECT_EQ(v, 0.5);
    }
    cfg.backend = backend_kind::automatic;
    EXPECT_EQ(map_decoder::make(cfg)->backend(), backend_kind::cuda);
}

TEST_F(cuda_decoder, warp_and_block_recursions_agree)
{
    // alpha and beta run on one warp per frame up to 64 states (1 or 2 per
    // lane) and on the block kernels otherwise, or always with recursion
    // "block": both against the CPU backend, global and local
    std::mt19937_64 rng(test_seed() + 11);
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.01);
    for (int N : { 6, 60, 240, 500 }) {
        const batch b = make_batch(cb, ch, N, N == 60, rng);
        decoder_config cfg(cb, ch, N);
        for (const char* path : { "warp", "block" }) {
            cfg.cuda.recursion = std::string(path) == "block" ? recursion_kind::block
                                                              : recursion_kind::automatic;
            expect_batch_matches_cpu(cfg, b, "N=" + std::to_string(N) + " " + path);
        }
    }
}

// The one-warp recursions in every form they are compiled in: 8, 12, 16 and
// 32 drift changes a state (M_n of 6, 11, 15 and 25, explicit limits) with 1
// and 2 states a lane (M_tau of 21 and 51), each checked to have run on the
// warp kernel, against the CPU in both precisions and storages.
TEST_F(cuda_decoder, warp_recursion_every_shape)
{
    std::mt19937_64 rng(test_seed() + 12);
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.01);
    const int N = 40;
    const batch b = make_batch(cb, ch, N, true, rng);
    log_capture capture;
    auto& lines = capture.lines;
    for (const drift_range mt : { drift_range{ -10, 10 }, drift_range{ -25, 25 } })
        for (const drift_range mn : { drift_range{ -2, 3 },
                                      drift_range{ -3, 7 },
                                      drift_range{ -4, 10 },
                                      drift_range{ -6, 18 } }) {
            decoder_config cfg(cb, ch, N);
            cfg.mtau = mt;
            cfg.mn = mn;
            std::vector<frame_result> ref_res, res;
            auto cpu =
                make(cfg, backend_kind::cpu, precision_kind::dual, storage_kind::global);
            const auto ref = decode_all(*cpu, b, ref_res);
            size_t ok = 0;
            for (auto p : precisions)
                for (auto s : storages) {
                    lines.clear();
                    auto dec = make(cfg, backend_kind::cuda, p, s);
                    const std::string what = "M_tau " + std::to_string(mt.size()) +
                                             " M_n " + std::to_string(mn.size()) + " " +
                                             to_string(p) + " " + to_string(s);
                    bool warp = false;
                    for (const auto& l : lines)
                        warp = warp || l.find("alpha/beta warp") != std::string::npos;
                    EXPECT_TRUE(warp) << what;
                    const auto got = decode_all(*dec, b, res);
                    for (size_t k = 0; k < got.size(); ++k) {
                        ASSERT_EQ(res[k].status, ref_res[k].status)
                            << what << " frame " << k << ": " << res[k].reason;
                        if (!ref_res[k].ok())
                            continue;
                        ++ok;
                        EXPECT_LT(max_abs_diff(got[k], ref[k]),
                                  p == precision_kind::dual ? 1e-9 : 1e-4)
                            << what << " frame " << k;
                    }
                }
            // some frame of each form decoded in every precision and storage
            EXPECT_GE(ok, 4u) << "M_tau " << mt.size() << " M_n " << mn.size();
        }
}

// The segmented recursion (recursion "segmented": every batch whose shape
// allows, plan_segments) against the CPU: frames through the channel, with
// and without priors, refused frames among them, both precisions and
// storages (local storage runs the windows in a row); and frames with no
// path whose recursions stop inside a later segment (alpha) or the first
// (beta), and the reverse, so that phase 2 stops mid-frame.
TEST_F(cuda_decoder, segmented_recursion_matches_cpu)
{
    std::mt19937_64 rng(test_seed() + 13);
    const codebook cb = codebook::builtin("ld3-modvec6");
    // (M_tau of 48, 64 and 59: two states a lane; 25 (explicit): one)
    for (const auto& [N, p, mt] : { std::tuple<int, double, int>{ 60, 0.01, 0 },
                                    { 120, 0.01, 0 },
                                    { 840, 0.001, 0 },
                                    { 60, 0.01, 12 } }) {
        const channel_params ch(p, p, p);
        const batch b = make_batch(cb, ch, N, true, rng);
        decoder_config cfg(cb, ch, N);
        cfg.cuda.recursion = recursion_kind::segmented;
        if (mt > 0)
            cfg.mtau = drift_range{ -mt, mt };
        ASSERT_LE(map_decoder::make(cfg)->limits().mtau.size(), 64) << N;
        expect_batch_matches_cpu(cfg, b, "N=" + std::to_string(N));
    }
    // no path: deletions only, at most one a codeword; half of each frame
    // sent as it is, the other half zeros (a codeword with two ones or more
    // cannot become zeros)
    const int N = 120;
    const channel_params del(0.0, 0.02, 0.0);
    decoder_config cfg(cb, del, N);
    cfg.cuda.recursion = recursion_kind::segmented;
    cfg.mn = drift_range{ -1, 0 };
    std::vector<int64_t> msg(static_cast<size_t>(N));
    std::uniform_int_distribution<int> sym(0, cb.q() - 1);
    for (auto& d : msg)
        d = sym(rng);
    const auto sent = cb.encode(msg.data(), msg.size());
    std::vector<std::vector<uint8_t>> rx(3, sent);
    std::fill(rx[1].begin() + rx[1].size() / 2, rx[1].end(), 0); // alpha stops mid-frame
    std::fill(rx[2].begin(), rx[2].begin() + rx[2].size() / 2, 0); // beta does
    std::vector<frame_view> views;
    for (const auto& r : rx)
        views.push_back({ r.data(), r.size(), nullptr });
    const size_t NQ = size_t(N) * cb.q();
    std::vector<std::vector<double>> want(rx.size(), std::vector<double>(NQ));
    std::vector<double*> wout;
    for (auto& w : want)
        wout.push_back(w.data());
    auto cpu = make(cfg, backend_kind::cpu, precision_kind::dual, storage_kind::global);
    const auto ref_res = cpu->decode_batch(views, wout);
    ASSERT_TRUE(ref_res[0].ok()) << ref_res[0].reason;
    EXPECT_EQ(ref_res[1].status, frame_status::impossible);
    EXPECT_EQ(ref_res[2].status, frame_status::impossible);
    for (auto pk : precisions) {
        auto dec = make(cfg, backend_kind::cuda, pk, storage_kind::global);
        std::vector<std::vector<double>> got(rx.size(), std::vector<double>(NQ));
        std::vector<double*> gout;
        for (auto& g : got)
            gout.push_back(g.data());
        const auto r = dec->decode_batch(views, gout);
        for (size_t k = 0; k < rx.size(); ++k)
            EXPECT_EQ(r[k].status, ref_res[k].status) << to_string(pk) << " frame " << k;
        EXPECT_LT(max_abs_diff(got[0], want[0]),
                  pk == precision_kind::dual ? 1e-9 : 1e-4);
    }
}

// One frame's message, encoded and sent: frame k of `seed`.
std::vector<uint8_t> send(const codebook& cb,
                          const channel_params& ch,
                          int N,
                          uint64_t seed,
                          uint64_t k,
                          std::vector<int64_t>* msg_out = nullptr)
{
    std::mt19937_64 rng(seed * 1000 + k);
    std::uniform_int_distribution<int> sym(0, cb.q() - 1);
    std::vector<int64_t> msg(static_cast<size_t>(N));
    for (auto& m : msg)
        m = sym(rng);
    if (msg_out)
        *msg_out = msg;
    const auto bits = cb.encode(msg.data(), msg.size());
    std::vector<uint8_t> rx;
    channel_emulator(ch, seed, k).process(bits.data(), bits.size(), rx);
    return rx;
}

TEST_F(cuda_decoder, every_channel_float_and_double_match_the_cpu)
{
    // the drift limits of asymmetric channels (never clipped) and float
    // without underflow: every frame the CPU decodes in double, the GPU
    // decodes in both precisions and storage modes, within 1e-9 / 1e-4
    struct C {
        double Pi, Pd, Ps;
        int N;
    };
    const codebook cb = codebook::builtin("ld3-modvec6");
    for (C c : { C{ 0.02, 0.002, 0.0, 500 },
                 C{ 0.002, 0.02, 0.0, 500 },
                 C{ 0.1, 0.1, 0.0, 500 },
                 C{ 0.1, 0.1, 0.05, 300 },
                 C{ 0.2, 0.2, 0.0, 300 },
                 C{ 0.3, 0.01, 0.0, 200 },
                 C{ 0.01, 0.3, 0.0, 200 },
                 C{ 0.2, 0.0, 0.0, 200 },
                 C{ 0.0, 0.2, 0.0, 200 },
                 C{ 0.01, 0.01, 0.5, 200 } }) {
        const channel_params ch(c.Pi, c.Pd, c.Ps);
        decoder_config cfg(cb, ch, c.N);
        batch b;
        for (uint64_t k = 0; k < 3; ++k)
            b.rx.push_back(send(cb, ch, c.N, 7, k));
        for (auto& r : b.rx)
            b.views.push_back({ r.data(), r.size(), nullptr });
        std::vector<frame_result> ref_res, res;
        const auto ref = decode_all(
            *make(cfg, backend_kind::cpu, precision_kind::dual, storage_kind::global),
            b,
            ref_res);
        for (auto p : precisions)
            for (auto s : storages) {
                const auto got = decode_all(*make(cfg, backend_kind::cuda, p, s), b, res);
                for (size_t k = 0; k < got.size(); ++k) {
                    ASSERT_TRUE(ref_res[k].ok())
                        << ch.repr() << " frame " << k << ": " << ref_res[k].reason;
                    ASSERT_TRUE(res[k].ok())
                        << ch.repr() << " " << to_string(p) << " " << to_string(s)
                        << " frame " << k << ": " << res[k].reason;
                    EXPECT_LT(max_abs_diff(got[k], ref[k]),
                              p == precision_kind::dual ? 1e-9 : 1e-4)
                        << ch.repr() << " " << to_string(p) << " " << to_string(s)
                        << " frame " << k;
                }
            }
    }
}

TEST_F(cuda_decoder, log_priors_keep_their_range)
{
    // log-prior ratios of 200 (priors of 1e-87, below float's range) against
    // the sent symbol: not a hard zero in either precision
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    const int N = 60, Q = cb.q();
    std::vector<int64_t> msg;
    const auto rx = send(cb, ch, N, 3, 0, &msg);
    std::vector<double> lp(size_t(N) * Q, 0.0);
    for (int i = 0; i < N; ++i)
        lp[size_t(i) * Q + size_t(msg[size_t(i)])] = -200.0;
    decoder_config cfg(cb, ch, N);
    std::vector<double> ref(size_t(N) * Q), post(size_t(N) * Q);
    frame_view v{ rx.data(), rx.size(), lp.data(), true };
    ASSERT_TRUE(make(cfg, backend_kind::cpu, precision_kind::dual, storage_kind::global)
                    ->decode(v, ref.data())
                    .ok());
    for (auto p : precisions)
        for (auto s : storages) {
            ASSERT_TRUE(make(cfg, backend_kind::cuda, p, s)->decode(v, post.data()).ok());
            EXPECT_LT(max_abs_diff(post, ref), p == precision_kind::dual ? 1e-9 : 1e-4);
            for (int i = 0; i < N; ++i) {
                const double got = post[size_t(i) * Q + size_t(msg[size_t(i)])];
                const double want = ref[size_t(i) * Q + size_t(msg[size_t(i)])];
                EXPECT_GT(got, 0.0) << to_string(p) << " symbol " << i;
                EXPECT_NEAR(got / want, 1.0, p == precision_kind::dual ? 1e-9 : 1e-3)
                    << i;
            }
        }
}

TEST_F(cuda_decoder, settings_are_config_fields)
{
    const codebook cb = codebook::builtin("ld3-modvec6");
    decoder_config cfg(cb, channel_params(0.01, 0.01, 0.0), 10);
    cfg.backend = backend_kind::cuda;
    cfg.cuda.device = 1000; // no such device: a clear error, and auto takes the CPU
    EXPECT_THROW(map_decoder::make(cfg), std::runtime_error);
    cfg.backend = backend_kind::automatic;
    EXPECT_EQ(map_decoder::make(cfg)->backend(), backend_kind::cpu);
    cfg.cuda.device = 0;
    EXPECT_EQ(map_decoder::make(cfg)->backend(), backend_kind::cuda);
}

// The extrinsic output (frame_view::extrinsic, has_prior 2 in finish_kernel):
// the APP of symbol i with its own prior uniform and every other prior kept,
// from the enumeration once per symbol, as qa_concatenated's
// inner_extrinsic_equals_brute_force_with_priors does on the CPU. The priors
// hold zeros, where posterior over prior would be 0/0.
TEST_F(cuda_decoder, inner_extrinsic_equals_brute_force_with_priors)
{
    EXPECT_GT(check_extrinsic_against_brute_force(backend_kind::cuda, test_seed() + 17),
              10);
}

// One decode_batch call over frames that differ in what they ask: extrinsic
// or posterior output, priors (plain or log, with zeros) or none. Each frame
// must equal decoding it alone on the CPU backend in double: a frame's
// has_prior (0, 1 or 2) must not leak into its neighbours' outputs.
TEST_F(cuda_decoder, mixed_extrinsic_batch_matches_cpu_frame_by_frame)
{
    const double inf = std::numeric_limits<double>::infinity();
    std::mt19937_64 rng(test_seed() + 23);
    std::uniform_real_distribution<double> u(0, 1);
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.02, 0.02, 0.01);
    const int N = 30, Q = cb.q();
    const int K = 12;
    std::vector<std::vector<uint8_t>> rx;
    std::vector<std::vector<double>> priors;
    std::vector<frame_view> views;
    for (int k = 0; k < K; ++k) {
        rx.push_back(send(cb, ch, N, 11, uint64_t(k)));
        // k % 4: 0 nothing, 1 priors, 2 priors + extrinsic, 3 extrinsic alone;
        // the priors are log priors on every other frame that has them
        const bool has = k % 4 == 1 || k % 4 == 2;
        const bool as_logs = has && (k / 4) % 2 == 1;
        std::vector<double> pr;
        if (has) {
            pr.resize(size_t(N) * Q);
            for (int i = 0; i < N; ++i) {
                for (int D = 0; D < Q; ++D) {
                    const double v = u(rng) < 0.15 ? 0.0 : u(rng);
                    pr[size_t(i) * Q + D] = v;
                }
                pr[size_t(i) * Q + size_t(rng() % Q)] += 0.5; // no zero rows
            }
            if (as_logs)
                for (auto& v : pr)
                    v = v > 0 ? std::log(v) : -inf;
        }
        priors.push_back(pr);
    }
    for (int k = 0; k < K; ++k) {
        frame_view f{ rx[size_t(k)].data(),
                      rx[size_t(k)].size(),
                      priors[size_t(k)].empty() ? nullptr : priors[size_t(k)].data() };
        f.log_priors = (k % 4 == 1 || k % 4 == 2) && (k / 4) % 2 == 1;
        f.extrinsic = k % 4 >= 2;
        views.push_back(f);
    }
    decoder_config cfg(cb, ch, N);
    auto cpu = make(cfg, backend_kind::cpu, precision_kind::dual, storage_kind::global);
    std::vector<std::vector<double>> ref(size_t(K), std::vector<double>(size_t(N) * Q));
    for (int k = 0; k < K; ++k) {
        const auto r = cpu->decode(views[size_t(k)], ref[size_t(k)].data());
        ASSERT_TRUE(r.ok()) << "frame " << k << ": " << r.reason;
    }
    // the extrinsic output differs from the posterior where there are priors
    {
        frame_view f = views[2];
        f.extrinsic = false;
        std::vector<double> post(size_t(N) * Q);
        ASSERT_TRUE(cpu->decode(f, post.data()).ok());
        EXPECT_GT(max_abs_diff(post, ref[2]), 1e-3);
    }
    for (int window : { 0, 3 }) {
        cfg.cuda.local_window = window;
        for (auto p : precisions)
            for (auto s : storages) {
                if (window && s != storage_kind::local)
                    continue;
                auto gpu = make(cfg, backend_kind::cuda, p, s);
                ASSERT_EQ(gpu->backend(), backend_kind::cuda);
                std::vector<std::vector<double>> got(size_t(K),
                                                     std::vector<double>(size_t(N) * Q));
                std::vector<double*> outs;
                for (auto& g : got)
                    outs.push_back(g.data());
                const auto res = gpu->decode_batch(views, outs);
                ASSERT_EQ(res.size(), size_t(K));
                for (int k = 0; k < K; ++k) {
                    ASSERT_TRUE(res[size_t(k)].ok())
                        << to_string(p) << " " << to_string(s) << " window " << window
                        << " frame " << k << ": " << res[size_t(k)].reason;
                    EXPECT_LT(max_abs_diff(got[size_t(k)], ref[size_t(k)]),
                              p == precision_kind::dual ? 1e-9 : 1e-4)
                        << to_string(p) << " " << to_string(s) << " window " << window
                        << " frame " << k << " (kind " << k % 4 << ")";
                }
            }
    }
}

// cuda_options::streams: a batch split into chunks that several lanes
// decode at once (each on its own stream) gives every frame what one lane
// gives it: statuses, posteriors, boundary metrics, evidence and expected
// events, with refused frames and priors spread over the chunks; and the
// frames the CPU decodes agree with it. 1050 and 1099 frames make 5 chunks
// (plan_chunk), which 2, 3 and 5 lanes take in turn.
TEST_F(cuda_decoder, lanes_decode_as_one_lane)
{
    std::mt19937_64 rng(test_seed() + 23);
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.01);
    for (const auto& [N, copies] : { std::pair<int, int>{ 60, 150 }, { 6, 157 } }) {
        batch b;
        for (int c = 0; c < copies; ++c) {
            batch one = make_batch(cb, ch, N, c % 3 == 0, rng);
            for (size_t k = 0; k < one.rx.size(); ++k) {
                b.rx.push_back(one.rx[k]);
                b.priors.push_back(one.priors[k]);
            }
        }
        const size_t F = b.rx.size();
        decoder_config cfg(cb, ch, N);
        const size_t Mt = size_t(map_decoder::make(cfg)->limits().mtau.size());
        // what each lane count writes, besides the posteriors
        struct extras {
            std::vector<std::vector<double>> metrics, items;
            std::vector<double> evidence;
            std::vector<event_counts> events;
        };
        auto views_into = [&](extras& x) {
            x.metrics.assign(F, std::vector<double>(2 * Mt, -1.0));
            x.items.assign(F, std::vector<double>());
            x.evidence.assign(F, -1.0);
            x.events.assign(F, event_counts{});
            std::vector<frame_view> v;
            for (size_t k = 0; k < F; ++k) {
                frame_view f{ b.rx[k].data(),
                              b.rx[k].size(),
                              b.priors[k].empty() ? nullptr : b.priors[k].data() };
                if (k % 3 == 1) {
                    f.boundary_metrics = x.metrics[k].data();
                    f.log_evidence = &x.evidence[k];
                }
                if (k % 5 == 2) {
                    f.events = &x.events[k];
                    x.items[k].assign(2 * b.rx[k].size(), -1.0);
                    f.item_posteriors = x.items[k].data();
                }
                v.push_back(f);
            }
            return v;
        };
        auto cpu =
            make(cfg, backend_kind::cpu, precision_kind::dual, storage_kind::global);
        extras cpu_x;
        b.views = views_into(cpu_x);
        std::vector<frame_result> cpu_res;
        const auto cpu_post = decode_all(*cpu, b, cpu_res);
        for (auto p : precisions)
            for (auto s : storages) {
                std::vector<frame_result> ref_res;
                std::vector<std::vector<double>> ref_post;
                extras ref_x;
                for (int lanes : { 1, 2, 3, 8 }) {
                    cfg.cuda.streams = lanes;
                    auto dec = make(cfg, backend_kind::cuda, p, s);
                    extras x;
                    b.views = views_into(x);
                    std::vector<frame_result> res;
                    const auto post = decode_all(*dec, b, res);
                    const std::string what = "N=" + std::to_string(N) + " " +
                                             to_string(p) + " " + to_string(s) +
                                             " lanes=" + std::to_string(lanes);
                    ASSERT_EQ(res.size(), F) << what;
                    size_t ok = 0;
                    for (size_t k = 0; k < F; ++k) {
                        ASSERT_EQ(res[k].status, cpu_res[k].status)
                            << what << " frame " << k << ": " << res[k].reason;
                        if (res[k].ok()) {
                            ++ok;
                            EXPECT_LT(max_abs_diff(post[k], cpu_post[k]),
                                      p == precision_kind::dual ? 1e-9 : 1e-4)
                                << what << " frame " << k;
                        }
                    }
                    EXPECT_GE(ok, F / 3) << what; // the sent frames decode
                    if (lanes == 1) {
                        ref_res = res;
                        ref_post = post;
                        ref_x = std::move(x);
                        continue;
                    }
                    for (size_t k = 0; k < F; ++k) {
                        EXPECT_EQ(res[k].reason, ref_res[k].reason) << what << " " << k;
                        EXPECT_LE(max_abs_diff(post[k], ref_post[k]), 1e-12)
                            << what << " frame " << k;
                        EXPECT_LE(max_abs_diff(x.metrics[k], ref_x.metrics[k]), 1e-12)
                            << what << " frame " << k;
                        if (std::isfinite(ref_x.evidence[k]))
                            EXPECT_NEAR(x.evidence[k], ref_x.evidence[k], 1e-9)
                                << what << " frame " << k;
                        else
                            EXPECT_EQ(x.evidence[k], ref_x.evidence[k])
                                << what << " " << k;
                        EXPECT_NEAR(x.events[k].ins, ref_x.events[k].ins, 1e-9) << k;
                        EXPECT_NEAR(x.events[k].del, ref_x.events[k].del, 1e-9) << k;
                        EXPECT_NEAR(x.events[k].trans, ref_x.events[k].trans, 1e-9) << k;
                        EXPECT_NEAR(x.events[k].subst, ref_x.events[k].subst, 1e-9) << k;
                        EXPECT_LE(max_abs_diff(x.items[k], ref_x.items[k]), 1e-12)
                            << what << " frame " << k;
                    }
                }
            }
    }
}

// The batch's last frames run pass L in parts (plan_tail_parts), each
// part's statuses, the indices where refused frames stopped, and posteriors
// copied out while the later parts' pass L runs: in global storage, without
// priors or the E-step. Reached here on purpose, on one lane (one chunk of
// 150 frames, 100 of which pass the host's check: parts of 50, 25 and 25)
// and on two (1128 frames: the last chunk of 104, 68 checked: 34, 17 and
// 17), checked to give three parts or more from the frames that pass the
// host's check. A deletion-only channel with at most one deletion a
// codeword gives frames with no path, which the device refuses in every
// part (alpha or beta stops mid-frame), beside frames the host refuses
// (empty, not bits) and frames that decode; boundary metrics and evidence
// are asked for on some frames. Every frame as the same decoder gives it
// decoding it alone (one frame: one pass L; its status and the reason with
// its index, its posteriors to 1e-12, metrics and evidence), and the CPU's
// statuses and posteriors (1e-9 double, 1e-4 float).
TEST_F(cuda_decoder, the_last_frames_in_parts_decode_as_one_pass_L)
{
    std::mt19937_64 rng(test_seed() + 41);
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.0, 0.005, 0.0);
    const int N = 60;
    decoder_config cfg(cb, ch, N);
    cfg.mn = drift_range{ -1, 0 };              // a codeword loses one bit at most
    cfg.cuda.recursion = recursion_kind::block; // as for one frame alone
    std::uniform_int_distribution<int> sym(0, cb.q() - 1);
    for (const auto& [copies, lanes] : { std::pair<int, int>{ 25, 1 }, { 188, 2 } }) {
        std::vector<std::vector<uint8_t>> rx;
        for (int c = 0; c < copies; ++c) {
            std::vector<int64_t> msg(static_cast<size_t>(N));
            for (auto& d : msg)
                d = sym(rng);
            const auto sent = cb.encode(msg.data(), msg.size());
            rx.push_back(transmit(ch, sent.data(), sent.size(), rng(), uint64_t(c)).rx);
            rx.push_back(sent);
            // no path: zeros where a codeword with two ones or more was sent
            rx.push_back(sent);
            std::fill(
                rx.back().begin() + long(sent.size() / 2 + c % 7), rx.back().end(), 0);
            rx.push_back(sent);
            std::fill(
                rx.back().begin(), rx.back().begin() + long(sent.size() / 2 - c % 5), 0);
            rx.push_back({}); // empty: refused on the host
            rx.push_back(sent);
            rx.back()[size_t(c) % sent.size()] = 2; // not a bit: refused on the host
        }
        const size_t F = rx.size();
        cfg.cuda.streams = lanes;
        const size_t Mt = size_t(map_decoder::make(cfg)->limits().mtau.size());
        std::vector<std::vector<double>> metrics(F, std::vector<double>(2 * Mt, -1.0));
        std::vector<double> evidence(F, -1.0);
        batch b;
        b.rx = rx;
        for (size_t k = 0; k < F; ++k) {
            frame_view f{ b.rx[k].data(), b.rx[k].size(), nullptr };
            if (k % 4 == 1) {
                f.boundary_metrics = metrics[k].data();
                f.log_evidence = &evidence[k];
            }
            b.views.push_back(f);
        }
        auto cpu =
            make(cfg, backend_kind::cpu, precision_kind::dual, storage_kind::global);
        std::vector<frame_result> cpu_res;
        const auto cpu_post = decode_all(*cpu, b, cpu_res);
        // the parts are cut from the last chunk's frames that pass the host's
        // check (refused: which of them the device refuses)
        const size_t chunk = cuda::plan_chunk(F, lanes);
        std::vector<bool> refused;
        for (size_t k = (F - 1) / chunk * chunk; k < F; ++k) {
            const auto st = cpu_res[k].status;
            if (st == frame_status::ok || st == frame_status::impossible)
                refused.push_back(st == frame_status::impossible);
        }
        const std::vector<size_t> parts = cuda::plan_tail_parts(refused.size());
        ASSERT_GE(parts.size(), 4u) << F << ": " << refused.size(); // three parts or more
        for (size_t i = 0; i + 1 < parts.size(); ++i) // the device refuses in each part
            ASSERT_TRUE(std::any_of(refused.begin() + long(parts[i]),
                                    refused.begin() + long(parts[i + 1]),
                                    [](bool r) { return r; }))
                << F << " part " << i;
        for (auto p : precisions) {
            const std::string what = std::to_string(F) + " frames " + to_string(p);
            auto dec = make(cfg, backend_kind::cuda, p, storage_kind::global);
            std::vector<frame_result> res;
            const auto post = decode_all(*dec, b, res);
            ASSERT_EQ(res.size(), F) << what;
            size_t ok = 0, sent_ok = 0;
            for (size_t k = 0; k < F; ++k) {
                ASSERT_EQ(res[k].status, cpu_res[k].status)
                    << what << " frame " << k << ": " << res[k].reason;
                std::vector<double> alone(post[k].size(), -1.0), alone_metrics(2 * Mt);
                double alone_evidence = -1.0;
                frame_view v = b.views[k];
                if (v.boundary_metrics) {
                    v.boundary_metrics = alone_metrics.data();
                    v.log_evidence = &alone_evidence;
                }
                const auto r = dec->decode_batch({ v }, { alone.data() });
                EXPECT_EQ(r[0].status, res[k].status) << what << " frame " << k;
                EXPECT_EQ(r[0].reason, res[k].reason) << what << " frame " << k;
                EXPECT_LE(max_abs_diff(post[k], alone), 1e-12) << what << " frame " << k;
                if (!res[k].ok())
                    continue;
                ++ok;
                sent_ok += k % 6 == 1;
                EXPECT_LT(max_abs_diff(post[k], cpu_post[k]),
                          p == precision_kind::dual ? 1e-9 : 1e-4)
                    << what << " frame " << k;
                if (v.boundary_metrics) {
                    EXPECT_LE(max_abs_diff(metrics[k], alone_metrics), 1e-12)
                        << what << " frame " << k;
                    EXPECT_NEAR(evidence[k], alone_evidence, 1e-9) << what << " " << k;
                }
            }
            EXPECT_EQ(sent_ok, size_t(copies)) << what; // every frame sent as it is
            EXPECT_GE(ok, sent_ok) << what;
        }
    }
}

// The register kernel's renormalization path (launch_plan.h,
// register_weights::renorm_rows): float rows are divided by Pd^r, and when
// Pd^R would leave float's range within a codeword, row R is multiplied back
// by Pd^R. Reached on purpose here: each configuration is checked to have
// renormalized rows in its plan and to be served by the register kernels
// (n <= 32, band + M_n <= 48), then decoded in float, hard and soft,
// global and local, against the CPU in double.
TEST_F(cuda_decoder, register_kernel_renormalized_rows_match_the_cpu)
{
    struct C {
        const char* codebook;
        double Pi, Pd;
        int N;
        unsigned rows; // the plan's renormalized rows
    };
    for (C c : { C{ "builtin:ld3-modvec6", 1e-3, 1e-3, 200, 1u << 6 }, // n 8, R 6
                 C{ "random:10:32:1:1", 0.01, 0.01, 100, 1u << 9 },    // n 10, R 9
                 C{ "random:16:16:1:1", 0.01, 0.01, 60, 1u << 9 },     // n 16, R 9
                 C{ "random:20:16:1:1", 3e-3, 3e-3, 40, (1u << 7) | (1u << 14) } }) {
        const codebook cb = codebook::from_spec(c.codebook);
        const channel_params ch(c.Pi, c.Pd, 0.0);
        const auto plan = cuda::plan_register_weights(ch, cb.n(), true);
        ASSERT_TRUE(plan.usable) << c.codebook;
        ASSERT_EQ(plan.renorm_rows, c.rows) << c.codebook;
        decoder_config cfg(cb, ch, c.N);
        auto cpu =
            make(cfg, backend_kind::cpu, precision_kind::dual, storage_kind::global);
        const int band = cb.n() <= 8 ? 8 : cb.n() <= 12 ? 12 : cb.n() <= 16 ? 16 : 32;
        ASSERT_LE(cpu->limits().mn.size() + band, 48) << c.codebook << ": general kernel";
        batch b;
        std::vector<std::vector<double>> llr;
        std::mt19937_64 noise(test_seed() + 31);
        std::normal_distribution<double> gauss(0.0, 0.6);
        for (uint64_t k = 0; k < 6; ++k) {
            b.rx.push_back(send(cb, ch, c.N, 5, k));
            std::vector<double> l;
            for (uint8_t bit : b.rx.back())
                l.push_back(2 * ((2.0 * bit - 1) + gauss(noise)) / (0.6 * 0.6));
            llr.push_back(l);
        }
        for (bool soft : { false, true }) {
            b.views.clear();
            for (size_t k = 0; k < b.rx.size(); ++k) {
                frame_view v;
                v.rho = b.rx[k].size();
                if (soft)
                    v.llr = llr[k].data();
                else
                    v.bits = b.rx[k].data();
                b.views.push_back(v);
            }
            std::vector<frame_result> ref_res, res;
            const auto ref = decode_all(*cpu, b, ref_res);
            for (auto s : storages) {
                cfg.cuda.local_window = s == storage_kind::local ? 7 : 0;
                auto dec = make(cfg, backend_kind::cuda, precision_kind::single, s);
                const auto got = decode_all(*dec, b, res);
                for (size_t k = 0; k < got.size(); ++k) {
                    const std::string what = std::string(c.codebook) + " " +
                                             (soft ? "soft" : "hard") + " " +
                                             to_string(s) + " frame " + std::to_string(k);
                    ASSERT_TRUE(ref_res[k].ok()) << what << ": " << ref_res[k].reason;
                    ASSERT_TRUE(res[k].ok()) << what << ": " << res[k].reason;
                    EXPECT_LT(max_abs_diff(got[k], ref[k]), 1e-4) << what;
                }
            }
            cfg.cuda.local_window = 0;
        }
    }
}

// Decodes frames of cfg's channel, as bits and as LLRs, on the CUDA backend
// in both precisions and storages, each decoder first checked to have taken
// the lattice kernel `form` (its log line, "lattice: ..."), against the CPU
// in double; returns the frames decoded ok.
size_t expect_form_matches_cpu(const decoder_config& cfg,
                               const std::string& form,
                               const std::string& float_form = "")
{
    const codebook& cb = cfg.cb;
    const channel_params& ch = cfg.ch;
    std::vector<std::vector<uint8_t>> rx;
    std::vector<std::vector<double>> llr;
    std::mt19937_64 noise(test_seed() + 41);
    std::normal_distribution<double> gauss(0.0, 0.6);
    for (uint64_t k = 0; k < 4; ++k) {
        rx.push_back(send(cb, ch, cfg.N, 9, k));
        std::vector<double> l;
        for (uint8_t bit : rx.back())
            l.push_back(2 * ((2.0 * bit - 1) + gauss(noise)) / (0.6 * 0.6));
        llr.push_back(l);
    }
    log_capture capture;
    auto& lines = capture.lines;
    size_t ok = 0;
    auto cpu = make(cfg, backend_kind::cpu, precision_kind::dual, storage_kind::global);
    for (bool soft : { false, true }) {
        batch b;
        for (size_t k = 0; k < rx.size(); ++k) {
            frame_view v;
            v.rho = rx[k].size();
            if (soft)
                v.llr = llr[k].data();
            else
                v.bits = rx[k].data();
            b.views.push_back(v);
        }
        std::vector<frame_result> ref_res, res;
        const auto ref = decode_all(*cpu, b, ref_res);
        for (auto p : precisions)
            for (auto s : storages) {
                decoder_config c = cfg;
                c.cuda.local_window = s == storage_kind::local ? 5 : 0;
                lines.clear();
                auto dec = make(c, backend_kind::cuda, p, s);
                const std::string want =
                    p == precision_kind::single && !float_form.empty() ? float_form
                                                                       : form;
                const std::string what = ch.repr() + " " + (soft ? "soft " : "hard ") +
                                         to_string(p) + " " + to_string(s);
                bool said = false;
                for (const auto& l : lines)
                    said = said || l.find("lattice: " + want) != std::string::npos;
                EXPECT_TRUE(said) << what << ": expected 'lattice: " << want << "'";
                const auto got = decode_all(*dec, b, res);
                for (size_t k = 0; k < got.size(); ++k) {
                    EXPECT_EQ(res[k].status, ref_res[k].status)
                        << what << " frame " << k << ": " << res[k].reason;
                    if (!ref_res[k].ok() || !res[k].ok())
                        continue;
                    ++ok;
                    EXPECT_LT(max_abs_diff(got[k], ref[k]),
                              p == precision_kind::dual ? 1e-9 : 1e-4)
                        << what << " frame " << k;
                }
            }
    }
    return ok;
}

// The register kernels' corridors past 32 nodes (up to reg_max_corridor =
// 40, codewords of up to 8 bits): S500's code at Pi = Pd = 0.2 (M_n = 33)
// and 0.25 (M_n = 37), hard and soft, against the CPU.
TEST_F(cuda_decoder, register_kernel_corridors_past_32_nodes)
{
    const codebook cb = codebook::builtin("ld3-modvec6");
    for (const auto& [p, N] : { std::pair<double, int>{ 0.2, 60 }, { 0.25, 40 } }) {
        decoder_config cfg(cb, channel_params(p, p, 0.0), N);
        const int Mn = map_decoder::make(cfg)->limits().mn.size();
        ASSERT_GT(Mn, 32) << p;
        ASSERT_LE(Mn, 40) << p;
        EXPECT_GE(expect_form_matches_cpu(cfg, "registers"), 16u) << p;
    }
}

// The register kernels' band of 12-bit codewords: n = 12 (its exact loop, no
// test per row) and n = 10 (rows tested against n), hard and soft, both
// precisions and storages, against the CPU.
TEST_F(cuda_decoder, register_kernel_band_of_12_bits)
{
    decoder_config n12(
        codebook::from_spec("random:12:64:1:1"), channel_params(0.05, 0.05, 0.0), 20);
    EXPECT_GE(expect_form_matches_cpu(n12, "registers"), 16u);
    decoder_config n10(
        codebook::from_spec("random:10:32:1:1"), channel_params(0.02, 0.02, 0.01), 30);
    EXPECT_GE(expect_form_matches_cpu(n10, "registers"), 16u);
}

// The register kernels' zero corner (plan_reg_corner), each form reached on
// purpose through the corridor's lower end m_n^-: for n = 8 and 16 nodes, the
// wide corner (m_n = [-7, 8], S500's), the narrow one ([-5, 10]) and none
// ([-2, 13]); for n = 12 and 25 nodes the wide one (11). Hard and soft, both
// precisions and storages, against the CPU.
TEST_F(cuda_decoder, register_kernel_zero_corners)
{
    decoder_config s500(
        codebook::builtin("ld3-modvec6"), channel_params(0.01, 0.01, 0.0), 40);
    for (const auto& [lo, corner] :
         { std::pair<int, int>{ -7, 7 }, { -5, 5 }, { -2, 0 } }) {
        decoder_config c = s500;
        c.mn = drift_range{ lo, lo + 15 };
        EXPECT_GE(expect_form_matches_cpu(
                      c, "registers, zero corner " + std::to_string(corner)),
                  16u)
            << lo;
    }
    decoder_config n12(
        codebook::from_spec("random:12:64:1:1"), channel_params(0.05, 0.05, 0.0), 20);
    n12.mn = drift_range{ -11, 13 };
    EXPECT_GE(expect_form_matches_cpu(n12, "registers, zero corner 11"), 16u);
}

// The wide register kernels (launch_plan.h, wide_slot), each band and
// padded corridor reached on purpose through explicit corridors: n = 20 and
// 40 nodes (the paper's memory case's shape; the exact loop with a corner of
// 19), n = 18 and 33 nodes (rows tested against n, 7 padded nodes), n = 24
// and 25 nodes (corner 15 in a corridor padded to 32), n = 30 and 21 nodes
// (band 32), n = 14 and 38, n = 16 and 40 (band 16), and n = 20 on a channel
// whose float rows are renormalized. Hard frames on the wide kernels, soft
// ones on the general kernel, both precisions and storages, against the CPU.
TEST_F(cuda_decoder, wide_register_kernels_match_the_cpu)
{
    struct form_case {
        const char* spec;
        int lo, hi, corner; // corner: in double
        double p;
    };
    for (const auto& c : { form_case{ "random:20:16:1:1", -20, 19, 19, 0.03 },
                           form_case{ "random:18:16:1:1", -16, 16, 0, 0.03 },
                           form_case{ "random:24:8:1:1", -15, 9, 15, 0.03 },
                           form_case{ "random:30:8:1:1", -10, 10, 0, 0.02 },
                           form_case{ "random:14:16:1:1", -19, 18, 0, 0.05 },
                           form_case{ "random:16:16:1:1", -20, 19, 16, 0.05 },
                           form_case{ "random:20:16:1:1", -20, 19, 19, 0.001 } }) {
        decoder_config cfg(
            codebook::from_spec(c.spec), channel_params(c.p, c.p, 0.01), 12);
        cfg.mn = drift_range{ c.lo, c.hi };
        const int n = cfg.cb.n(), Mn = c.hi - c.lo + 1;
        ASSERT_GT(cuda::reg_band(n) + Mn, 48) << c.spec;
        ASSERT_GE(cuda::wide_slot(n, Mn), 0) << c.spec;
        const unsigned rd = cuda::plan_register_weights(cfg.ch, n, false).renorm_rows,
                       rf = cuda::plan_register_weights(cfg.ch, n, true).renorm_rows;
        ASSERT_EQ(cuda::plan_wide_corner(n, Mn, c.lo, rd), c.corner) << c.spec;
        if (c.p < 0.01) { // the last case: float's rows renormalized (no corner)
            ASSERT_NE(rf, 0u);
        }
        const std::string form = "wide registers (general for soft input), zero corner ";
        EXPECT_GE(expect_form_matches_cpu(
                      cfg,
                      form + std::to_string(c.corner),
                      form + std::to_string(cuda::plan_wide_corner(n, Mn, c.lo, rf))),
                  16u)
            << c.spec << " " << Mn;
    }
}

// The general lattice kernel (corridors too wide for the register kernels)
// in both of its forms (kernel_launchers.h, plan_general): rows in shared
// memory, on a channel whose M_n passes 40 (n = 8) and on codewords of 30
// bits with 35 nodes (past the wide kernels too: 32 + 40 > 64), and rows in
// global scratch, with a corridor of 465
// nodes (explicit mn) whose rows do not fit a block's shared memory in
// double (they do in float). Hard and soft, against the CPU.
TEST_F(cuda_decoder, general_kernel_rows_in_shared_and_global_memory)
{
    const codebook s500 = codebook::builtin("ld3-modvec6");
    decoder_config poor(s500, channel_params(0.3, 0.3, 0.0), 30); // M_n = 41
    ASSERT_GT(map_decoder::make(poor)->limits().mn.size(), 40);
    EXPECT_GE(expect_form_matches_cpu(poor, "general, rows in shared memory"), 16u);
    decoder_config n30(
        codebook::from_spec("random:30:16:1:1"), channel_params(0.01, 0.01, 0.02), 30);
    n30.mn = drift_range{ -17, 17 };
    ASSERT_EQ(cuda::wide_slot(30, 35), -1);
    EXPECT_GE(expect_form_matches_cpu(n30, "general, rows in shared memory"), 16u);
    // a small m_tau with a corridor past the warp recursions' 32 drift
    // changes (explicit limits): alpha and beta on the block kernels
    decoder_config small_mt(s500, channel_params(0.05, 0.05, 0.0), 20);
    small_mt.mtau = drift_range{ -30, 30 };
    small_mt.mn = drift_range{ -8, 40 };
    EXPECT_GE(expect_form_matches_cpu(small_mt, "general, rows in shared memory"), 16u);
    decoder_config wide(s500, channel_params(0.05, 0.05, 0.0), 12);
    wide.mtau = drift_range{ -6, 6 };
    wide.mn = drift_range{ -4, 460 };
    EXPECT_GE(expect_form_matches_cpu(wide,
                                      "general, rows in global memory",
                                      "general, rows in shared memory"),
              16u);
}

// Pass G by position (decoder_config::share_g, plan_shared_g): the register
// kernels make G once per book and received position, shared by the indices
// whose states start there, for the frames without priors (those with priors
// take G by index in a second launch). The values are the same, so every
// posterior must equal G by index's bit for bit, and the CPU's (1e-9 in
// double, 1e-4 in float). Reached on purpose: each configuration's plan is
// checked to take G by position for the whole frame; the books' period P is
// 6, 1 and 3, the codewords exact (n = 8, 12), shorter than their band
// (n = 10), renormalized in float (n = 16) and in the wide kernels (n = 20,
// hard input); batches with priors on every other frame and without any,
// plus an empty frame, one far outside the limits and one not of bits; hard
// and soft input; global storage, and local storage in windows of 5 indices
// (each window's residues start at its first index i0).
TEST_F(cuda_decoder, g_by_position_equals_g_by_index)
{
    struct C {
        const char* spec;
        double p;
        int N;
        std::optional<drift_range> mn;
    };
    for (const C& c : { C{ "builtin:ld3-modvec6", 0.04, 40, {} },
                        C{ "random:8:16:1:1", 0.02, 40, {} },
                        C{ "random:12:64:3:1", 0.05, 20, {} },
                        C{ "random:10:32:1:1", 0.02, 30, {} },
                        C{ "random:16:16:1:1", 0.01, 60, {} },
                        C{ "random:20:16:1:1", 0.03, 12, drift_range{ -20, 19 } } }) {
        decoder_config cfg(
            codebook::from_spec(c.spec), channel_params(c.p, c.p, 0.01), c.N);
        cfg.mn = c.mn;
        const auto lim = map_decoder::make(cfg)->limits();
        const int n = cfg.cb.n(), P = cfg.cb.P(), Mt = lim.mtau.size();
        ASSERT_GT(cuda::plan_shared_g(n, P, Mt, c.N), 0)
            << c.spec << ": M_tau " << Mt << ", G by index";
        const bool wide = cuda::reg_band(n) + lim.mn.size() > 48;
        std::mt19937_64 rng(test_seed() + 59);
        for (bool priors : { true, false }) {
            batch b = make_batch(cfg.cb, cfg.ch, c.N, priors, rng);
            std::vector<std::vector<double>> llr;
            for (const auto& rx : b.rx) {
                std::vector<double> l;
                for (uint8_t bit : rx) // a byte that is not a bit stays one
                    l.push_back(bit > 1 ? std::nan("") : bit ? 4.0 : -4.0);
                llr.push_back(l);
            }
            for (bool soft : { false, true }) {
                if (soft && (wide || !priors))
                    continue; // soft input on the wide shapes: the general kernel
                for (size_t k = 0; k < b.views.size(); ++k) {
                    b.views[k].bits = soft ? nullptr : b.rx[k].data();
                    b.views[k].llr = soft ? llr[k].data() : nullptr;
                }
                std::vector<frame_result> ref_res;
                auto cpu = make(
                    cfg, backend_kind::cpu, precision_kind::dual, storage_kind::global);
                const auto ref = decode_all(*cpu, b, ref_res);
                for (auto p : precisions)
                    for (auto s : storages) {
                        const std::string what = std::string(c.spec) +
                                                 (priors ? " priors " : " ") +
                                                 (soft ? "soft " : "hard ") +
                                                 to_string(p) + " " + to_string(s);
                        decoder_config by = cfg;
                        by.cuda.local_window = s == storage_kind::local ? 5 : 0;
                        std::vector<frame_result> res[2];
                        std::vector<std::vector<double>> post[2];
                        for (bool share : { false, true }) {
                            by.cuda.share_g = share;
                            auto dec = make(by, backend_kind::cuda, p, s);
                            post[share] = decode_all(*dec, b, res[share]);
                        }
                        size_t ok = 0;
                        for (size_t k = 0; k < b.views.size(); ++k) {
                            ASSERT_EQ(res[1][k].status, ref_res[k].status)
                                << what << " frame " << k << ": " << res[1][k].reason;
                            ASSERT_EQ(res[0][k].status, res[1][k].status)
                                << what << " frame " << k;
                            if (!res[1][k].ok())
                                continue;
                            ++ok;
                            EXPECT_EQ(max_abs_diff(post[1][k], post[0][k]), 0.0)
                                << what << " frame " << k;
                            EXPECT_LT(max_abs_diff(post[1][k], ref[k]),
                                      p == precision_kind::dual ? 1e-9 : 1e-4)
                                << what << " frame " << k;
                        }
                        EXPECT_GE(ok, 3u) << what; // the sent frames decode
                    }
            }
        }
    }
}
