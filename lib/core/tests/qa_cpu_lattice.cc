/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU decoder's lane kernels (cpu_lattice.h) against corridor_lattice in
// double (itself checked against independent references in qa_lattice):
// every plan this machine runs (instruction set, vector bytes, groups), hard
// and soft input, float and double, random corridors and frame ends; then
// the decoder at codebook sizes that take the lane kernel and that do not,
// against the brute-force reference.

#include "inner/cpu_lattice.h"
#include "qa_reference.h"
#include "runtime/aligned_vector.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/lattice.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

namespace cpu = bsid::cpu;
using bsid::channel_params;

namespace {

// All plans with the machine's instruction sets, for values of real_size bytes.
std::vector<cpu::lane_plan> all_plans()
{
    std::vector<cpu::lane_plan> plans;
    for (int i = 0; i <= int(cpu::best_isa()); ++i) {
        const int maxb = i == 2 ? 64 : i == 1 ? 32 : 16;
        for (int b = 16; b <= maxb; b *= 2)
            for (int g : { 1, 2, 4 })
                plans.push_back({ cpu::isa(i), b, g });
    }
    return plans;
}

struct lattice_case {
    int n, q, dlo, dhi;
    long long avail;
    channel_params ch;
    std::vector<uint8_t> x;   // q words of n bits, word-major
    std::vector<uint8_t> y;   // avail received bits
    std::vector<double> prob; // 2 avail probabilities (soft)
};

lattice_case random_case(bsid::philox_stream& rng, int q)
{
    lattice_case c{ 1 + int(rng.next_u32() % 10),
                    q,
                    0,
                    0,
                    0,
                    channel_params(0.3 * rng.next_open01(),
                                   0.3 * rng.next_open01(),
                                   0.2 * rng.next_open01()),
                    {},
                    {},
                    {} };
    c.dlo = -int(rng.next_u32() % (c.n + 1));
    c.dhi = int(rng.next_u32() % 7);
    // frame ends before, inside and after the corridor's columns
    c.avail = (long long)(rng.next_u32() % (c.n + c.dhi + 3));
    c.x.resize(size_t(c.n) * size_t(q));
    for (auto& b : c.x)
        b = uint8_t(rng.next_u32() & 1u);
    c.y.resize(size_t(c.avail));
    for (auto& b : c.y)
        b = uint8_t(rng.next_u32() & 1u);
    for (long long j = 0; j < c.avail; ++j) {
        // a mix of hard and soft items
        const double p1 =
            (rng.next_u32() % 4 == 0) ? double(rng.next_u32() & 1u) : rng.next_open01();
        c.prob.push_back(1.0 - p1);
        c.prob.push_back(p1);
    }
    return c;
}

// corridor_lattice (plan bytes 0) or a lane plan, in precision real
template <typename real>
std::vector<double> run(const lattice_case& c, bool soft, const cpu::lane_plan* plan)
{
    const cpu::lattice_shape<real> shape{
        bsid::lattice_weights<real>::ratio(c.ch), c.n, c.q, c.dlo, c.dhi
    };
    std::vector<std::vector<real>> tab(size_t(2 * c.n), std::vector<real>(size_t(c.q)));
    std::vector<const real*> qsel;
    for (int r = 0; r < c.n; ++r)
        for (int b = 0; b < 2; ++b) {
            for (int D = 0; D < c.q; ++D)
                tab[size_t(2 * r + b)][size_t(D)] =
                    shape.w.diag(c.x[size_t(D) * c.n + size_t(r)], unsigned(b));
            qsel.push_back(tab[size_t(2 * r + b)].data());
        }
    const std::vector<real> prob(c.prob.begin(), c.prob.end());
    const int Mn = c.dhi - c.dlo + 1;
    std::vector<real> scratch(cpu::lattice_lanes_scratch(shape));
    // guard values around the output: the kernels write exactly Mn q values
    std::vector<real> out(size_t(Mn) * size_t(c.q) + 2, real(-7));
    cpu::lattice_call<real> call;
    call.qsel = qsel.data();
    call.y = c.y.data();
    call.yprob = soft ? prob.data() : nullptr;
    call.avail = c.avail;
    call.scratch = scratch.data();
    call.out = out.data() + 1;
    if (plan) {
        cpu::corridor_lattice_plan<real>(*plan, shape, call);
    } else {
        bsid::corridor_lattice<real>(shape.w,
                                     c.n,
                                     c.q,
                                     call.qsel,
                                     call.y,
                                     call.yprob,
                                     c.avail,
                                     c.dlo,
                                     c.dhi,
                                     call.scratch,
                                     call.out);
    }
    EXPECT_EQ(out.front(), real(-7));
    EXPECT_EQ(out.back(), real(-7));
    return std::vector<double>(out.begin() + 1, out.end() - 1);
}

template <typename real>
void check_plans(double rtol, double atol)
{
    bsid::philox_stream rng(2026, 11);
    const auto plans = all_plans();
    ASSERT_FALSE(plans.empty());
    int compared = 0;
    for (const auto& plan : plans) {
        const int per_pass = plan.bytes / int(sizeof(real)) * plan.groups;
        for (int trial = 0; trial < 12; ++trial) {
            // one pass or several
            const int q = per_pass * (1 + int(rng.next_u32() % 3));
            const auto c = random_case(rng, q);
            for (bool soft : { false, true }) {
                const auto want = run<double>(c, soft, nullptr);
                const auto got = run<real>(c, soft, &plan);
                ASSERT_EQ(got.size(), want.size());
                for (size_t j = 0; j < want.size(); ++j) {
                    const int d = c.dlo + int(j / size_t(q));
                    const long long col = c.n + d;
                    if (col < 0 || col > c.avail) {
                        EXPECT_EQ(got[j], 0.0); // beyond the received bits
                    } else {
                        EXPECT_NEAR(got[j], want[j], atol + rtol * want[j])
                            << "isa " << int(plan.isa) << " bytes " << plan.bytes
                            << " groups " << plan.groups << " q " << q << " n " << c.n
                            << " corridor [" << c.dlo << ", " << c.dhi << "] avail "
                            << c.avail << " soft " << soft << " value " << j;
                    }
                    ++compared;
                }
            }
        }
    }
    EXPECT_GT(compared, 1000);
}

} // namespace

TEST(cpu_lattice, every_plan_matches_corridor_lattice_in_double)
{
    check_plans<double>(1e-12, 1e-300);
}

TEST(cpu_lattice, every_plan_matches_corridor_lattice_in_float)
{
    // float's rounding over at most n (M_n + 1) nodes; values below the
    // float range are zeros
    check_plans<float>(2e-5, 1e-36);
}

TEST(cpu_lattice, plans_by_codebook_size)
{
    const int maxb = cpu::best_isa() == cpu::isa::avx512 ? 64
                     : cpu::best_isa() == cpu::isa::avx2 ? 32
                                                         : 16;
    // S500's q = 16 in float: two chains per row, of 8 floats where the
    // machine has 32-byte vectors
    auto p = cpu::plan_lanes(16, sizeof(float));
    EXPECT_EQ(p.isa, cpu::best_isa());
    EXPECT_EQ(p.bytes, std::min(maxb, 32));
    EXPECT_EQ(p.groups, 2);
    // 64 floats: the widest vectors, two groups
    p = cpu::plan_lanes(64, sizeof(float));
    EXPECT_EQ(p.bytes, maxb);
    EXPECT_EQ(p.groups, 2);
    // q not a multiple of the narrowest vector's lanes: corridor_lattice
    EXPECT_EQ(cpu::plan_lanes(6, sizeof(float)).bytes, 0);
    EXPECT_EQ(cpu::plan_lanes(3, sizeof(double)).bytes, 0);
    EXPECT_EQ(cpu::plan_lanes(2, sizeof(double)).bytes, 16);
    EXPECT_EQ(cpu::plan_lanes(4, sizeof(float)).bytes, 16);
}

TEST(cpu_lattice, invalid_plans_raise)
{
    const auto c = [] {
        bsid::philox_stream rng(7, 1);
        return random_case(rng, 8);
    }();
    const cpu::lane_plan bad_bytes{ cpu::isa::baseline, 24, 1 };
    const cpu::lane_plan bad_groups{ cpu::isa::baseline, 16, 3 };
    const cpu::lane_plan bad_q{ cpu::isa::baseline, 16, 4 }; // 16 floats a pass, q = 8
    const cpu::lane_plan wide_for_isa{ cpu::isa::baseline, 32, 1 };
    EXPECT_THROW(run<float>(c, false, &bad_bytes), std::invalid_argument);
    EXPECT_THROW(run<float>(c, false, &bad_groups), std::invalid_argument);
    EXPECT_THROW(run<float>(c, false, &bad_q), std::invalid_argument);
    EXPECT_THROW(run<float>(c, false, &wide_for_isa), std::invalid_argument);
}

/*
 * The decoder with codebooks of 8, 16 and 32 words (the lane kernel with one
 * or two passes and, at 8 in float on AVX-512, the narrower vectors) and of
 * 6 words (corridor_lattice), hard and soft, float and double, both storage
 * modes: against the exact APP by enumeration within the decoder's limits.
 */
TEST(cpu_lattice, decoder_with_lane_kernels_against_brute_force)
{
    std::mt19937_64 rng(bsid::qa::test_seed() + 20);
    std::uniform_real_distribution<double> u(0, 1);
    int decoded = 0;
    for (int trial = 0; trial < 16; ++trial) {
        const int q = std::vector<int>{ 8, 16, 32, 6 }[size_t(trial % 4)];
        const int n = q == 32 ? 6 : 5;
        const int N = q == 32 ? 2 : 3;
        const auto cb = bsid::codebook::random(n, q, 1 + trial % 2, rng());
        const channel_params ch(0.1 * u(rng), 0.1 * u(rng), 0.05 * u(rng));
        std::vector<int64_t> msg(static_cast<size_t>(N));
        for (auto& s : msg)
            s = int64_t(rng() % uint64_t(q));
        const auto bits = cb.encode(msg.data(), msg.size());
        auto t = bsid::transmit(ch, bits.data(), bits.size(), rng(), 0);
        if (t.rx.empty())
            t.rx.push_back(1);
        bsid::qa::tiny_case tc{ cb, ch, N, t.rx, {}, {} };
        if (trial % 8 >= 4)
            bsid::qa::make_soft(tc, rng);
        for (auto p : { bsid::precision_kind::dual, bsid::precision_kind::single })
            for (auto s : { bsid::storage_kind::global, bsid::storage_kind::local }) {
                bsid::decoder_config cfg(cb, ch, N);
                cfg.backend = bsid::backend_kind::cpu;
                cfg.precision = p;
                cfg.storage = s;
                auto dec = bsid::map_decoder::make(cfg);
                std::vector<double> post(size_t(N * q));
                bsid::frame_view f{};
                if (tc.llr.empty()) {
                    f.bits = tc.y.data();
                } else {
                    f.llr = tc.llr.data();
                }
                f.rho = tc.y.size();
                const auto r = dec->decode(f, post.data());
                const long long drift = (long long)tc.y.size() - (long long)N * n;
                if (!dec->limits().mtau.contains(drift)) {
                    EXPECT_EQ(r.status, bsid::frame_status::drift_out_of_range);
                    continue;
                }
                const auto ref = bsid::qa::brute_force_app(tc, &dec->limits());
                ASSERT_TRUE(r.ok()) << r.reason;
                ++decoded;
                EXPECT_LT(bsid::qa::max_abs_diff(post, ref),
                          p == bsid::precision_kind::dual ? 1e-9 : 1e-4)
                    << "trial " << trial << " q " << q << " " << bsid::to_string(p) << " "
                    << bsid::to_string(s) << (tc.llr.empty() ? " hard" : " soft");
            }
    }
    EXPECT_GT(decoded, 40);
}

TEST(cpu_lattice, workspace_vectors_begin_on_a_cache_line_whatever_came_before)
{
    // the decoder's rows live in aligned_vector: each buffer begins on a
    // 64-byte boundary (an AVX-512 vector never straddles two lines), after
    // odd-sized allocations, when grown, and for each element type
    std::vector<std::unique_ptr<char[]>> odd;
    for (size_t k = 1; k <= 40; ++k) {
        odd.emplace_back(new char[k * 7]);
        bsid::aligned_vector<float> f(k);
        bsid::aligned_vector<double> d(3 * k + 1);
        bsid::aligned_vector<uint8_t> b(k);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(f.data()) % 64, 0u) << k;
        EXPECT_EQ(reinterpret_cast<uintptr_t>(d.data()) % 64, 0u) << k;
        EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 64, 0u) << k;
        d.resize(1000 * k);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(d.data()) % 64, 0u) << k;
        EXPECT_EQ(d[3 * k + 5], 0.0);
    }
}
