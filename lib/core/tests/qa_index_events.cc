/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU's E-step by lanes (estimation/index_events_cpu.h) against
// model::codeword_events run one start state at a time: the same counts,
// item posteriors, substitution counts and total weight (the counts both
// from the edges' pass and from the forward pass of counts), on every
// instruction set, for the lane counts known at compile time (16, 8) and any
// other, bits and four letters, hard and soft items, frames that end inside
// the states' lattices, skipped states and zero priors.

#include "estimation/index_events_cpu.h"
#include "qa_reference.h"
#include "runtime/aligned_vector.h"
#include <gnuradio/bsid/core/estimation/event_counts.h>
#include <gtest/gtest.h>
#include <cmath>
#include <random>
#include <vector>

using namespace bsid;

namespace {

struct events_case {
    int n, dlo, Mn, L, A, Mt;
    long long first, rho;
    bool soft, prior, pairs;
};

// What both sides see: a random index of a random frame.
struct index_data {
    events_case k;
    std::vector<double> qw, xd, prob, alpha, mass, beta, prior;
    std::vector<uint8_t> x;
    double ins = 0, del = 0;
    int lo = 0, hi = 0;
    double negligible = 0;
};

index_data random_index(const events_case& k, std::mt19937_64& g)
{
    std::uniform_real_distribution<double> u(0.0, 1.0);
    index_data d;
    d.k = k;
    d.ins = 0.02 + 0.1 * u(g);
    d.del = 0.5 + 0.5 * u(g);
    const size_t rows = size_t(k.n) * size_t(k.A) * size_t(k.L);
    for (size_t j = 0; j < rows; ++j)
        d.qw.push_back(0.05 + 2.0 * u(g));
    for (int j = 0; j < k.n * k.L; ++j) {
        d.x.push_back(uint8_t(g() % uint64_t(k.A)));
        d.xd.push_back(double(d.x.back()));
    }
    for (long long c = 0; c < k.rho; ++c) {
        double s = 0;
        std::vector<double> w(size_t(k.A));
        if (k.soft) {
            for (auto& v : w)
                s += (v = u(g) + (u(g) < 0.2 ? 0.0 : 1e-3));
        } else {
            w[g() % uint64_t(k.A)] = s = 1.0;
        }
        for (double v : w)
            d.prob.push_back(v / s);
    }
    for (int a = 0; a < k.Mt; ++a) {
        // some states carry nothing, some too little to count
        const double r = u(g);
        d.alpha.push_back(r < 0.15 ? 0.0 : std::pow(10.0, -6.0 * u(g)));
        d.beta.push_back(r > 0.9 ? 0.0 : std::pow(10.0, -6.0 * u(g)));
        d.mass.push_back(r > 0.8 && r <= 0.9 ? 1e-30 : d.alpha.back() * (0.5 + u(g)));
    }
    if (k.prior) {
        for (int D = 0; D < k.L; ++D)
            d.prior.push_back(D > 0 && u(g) < 0.2 ? 0.0 : 0.01 + u(g));
    }
    const long long s0 = k.first;
    d.lo = int(std::clamp<long long>(-s0, 0, k.Mt));
    d.hi = int(std::clamp<long long>(k.rho - s0 + 1, d.lo, k.Mt));
    double m = 0;
    for (double v : d.mass)
        m += v;
    d.negligible = 1e-17 * m;
    return d;
}

struct sums {
    double ins = 0, del = 0, trans = 0, subst = 0, lambda = 0;
    std::vector<double> items, pairs; // A per item from `first`, A x A
};

// model::codeword_events, one start state and one lane set at a time
sums reference(const index_data& d)
{
    const events_case& k = d.k;
    sums s;
    s.items.assign(size_t(k.A) * size_t(k.Mt + k.n + k.Mn), 0.0);
    s.pairs.assign(size_t(k.A) * size_t(k.A), 0.0);
    std::vector<double> F(size_t(k.n + 1) * size_t(k.Mn) * size_t(k.L));
    std::vector<double> B(2 * size_t(k.Mn) * size_t(k.L)), endw(size_t(k.Mn)),
        scale(size_t(k.L));
    for (int a = d.lo; a < d.hi; ++a) {
        if (d.alpha[size_t(a)] == 0.0 || !(d.mass[size_t(a)] >= d.negligible))
            continue;
        bool any = false;
        for (int e = 0; e < k.Mn; ++e) {
            const int b = a + k.dlo + e;
            endw[size_t(e)] = b >= 0 && b < k.Mt ? d.beta[size_t(b)] : 0.0;
            any = any || endw[size_t(e)] != 0.0;
        }
        if (!any)
            continue;
        for (int D = 0; D < k.L; ++D)
            scale[size_t(D)] =
                d.alpha[size_t(a)] * (k.prior ? d.prior[size_t(D)] : 1.0 / k.L);
        const long long start = k.first + a;
        event_counts ev;
        s.lambda += model::codeword_events(
            k.n,
            k.dlo,
            k.Mn,
            k.rho - start,
            d.ins,
            d.del,
            k.L,
            k.A,
            d.qw.data(),
            d.x.data(),
            d.prob.data() + size_t(k.A) * size_t(start),
            endw.data(),
            scale.data(),
            F.data(),
            B.data(),
            ev,
            [&](long long c, int b, double v) {
                s.items[size_t(k.A) * size_t(a + c) + size_t(b)] += v;
            },
            k.pairs ? s.pairs.data() : nullptr);
        s.ins += ev.ins;
        s.del += ev.del;
        s.trans += ev.trans;
        s.subst += ev.subst;
    }
    return s;
}

// counts: items and pairs not asked for (the forward pass of counts)
sums by_lanes(const index_data& d, cpu::isa i, bool counts)
{
    const events_case& k = d.k;
    const size_t L = size_t(k.L);
    aligned_vector<double> lanes(4 * L, 0.0),
        scratch(cpu::index_events_scratch(k.n, k.Mn, k.L, k.A));
    aligned_vector<double> items(size_t(k.A) * size_t(k.Mt + k.n + k.Mn) * L, 0.0);
    aligned_vector<double> pairs(size_t(k.A) * size_t(k.A) * L, 0.0);
    cpu::index_events_call c;
    c.n = k.n;
    c.dlo = k.dlo;
    c.Mn = k.Mn;
    c.L = k.L;
    c.A = k.A;
    c.ins = d.ins;
    c.del = d.del;
    c.qw = d.qw.data();
    c.x = d.xd.data();
    c.Mt = k.Mt;
    c.lo = d.lo;
    c.hi = d.hi;
    c.first = k.first;
    c.rho = k.rho;
    c.prob = d.prob.data();
    c.hard = !k.soft;
    c.alpha = d.alpha.data();
    c.mass = d.mass.data();
    c.negligible = d.negligible;
    c.beta_next = d.beta.data();
    c.prior = k.prior ? d.prior.data() : nullptr;
    c.scratch = scratch.data();
    c.to.ins = lanes.data();
    c.to.del = lanes.data() + L;
    c.to.trans = lanes.data() + 2 * L;
    c.to.subst = lanes.data() + 3 * L;
    c.to.items = counts ? nullptr : items.data();
    c.to.pairs = k.pairs && !counts ? pairs.data() : nullptr;
    sums s;
    s.lambda = cpu::index_events(i, c);
    auto add = [&](const double* v) {
        double t = 0;
        for (size_t l = 0; l < L; ++l)
            t += v[l];
        return t;
    };
    s.ins = add(c.to.ins);
    s.del = add(c.to.del);
    s.trans = add(c.to.trans);
    s.subst = add(c.to.subst);
    for (size_t j = 0; j < items.size() / L; ++j)
        s.items.push_back(add(items.data() + j * L));
    for (size_t j = 0; j < pairs.size() / L; ++j)
        s.pairs.push_back(add(pairs.data() + j * L));
    return s;
}

void expect_close(double want, double got, double scale, const std::string& what)
{
    EXPECT_NEAR(got, want, 1e-12 * scale) << what;
}

void check(const events_case& k, std::mt19937_64& g)
{
    const index_data d = random_index(k, g);
    const sums want = reference(d);
    ASSERT_GT(want.lambda, 0.0) << "a case with no weight tests nothing: n " << k.n
                                << " L " << k.L << " A " << k.A << " soft " << k.soft;
    for (int i = 0; i <= int(cpu::best_isa()); ++i) {
        for (bool counts : { false, true }) {
            const sums got = by_lanes(d, cpu::isa(i), counts);
            const std::string at =
                "isa " + std::to_string(i) + " L " + std::to_string(k.L) + " A " +
                std::to_string(k.A) + " rho " + std::to_string(k.rho) +
                (k.soft ? " soft" : " hard") + (counts ? " counts" : " edges");
            const double w = want.lambda;
            expect_close(want.lambda, got.lambda, w, at + " lambda");
            expect_close(want.ins, got.ins, w, at + " ins");
            expect_close(want.del, got.del, w, at + " del");
            expect_close(want.trans, got.trans, w, at + " trans");
            expect_close(want.subst, got.subst, w, at + " subst");
            EXPECT_GT(want.ins * want.del * want.trans, 0.0)
                << at << ": every kind of edge counts";
            if (counts)
                continue; // items and pairs: the edges' pass alone
            ASSERT_EQ(want.items.size(), got.items.size());
            for (size_t j = 0; j < want.items.size(); ++j)
                expect_close(
                    want.items[j], got.items[j], w, at + " item " + std::to_string(j));
            if (k.pairs) {
                for (size_t j = 0; j < want.pairs.size(); ++j)
                    expect_close(want.pairs[j],
                                 got.pairs[j],
                                 w,
                                 at + " pair " + std::to_string(j));
            }
        }
    }
}

} // namespace

TEST(index_events, lanes_equal_codeword_events_state_by_state)
{
    std::mt19937_64 g{ qa::test_seed() };
    for (int L : { 16, 8, 5, 2 }) {
        for (int A : { 2, 4 }) {
            for (bool soft : { false, true }) {
                // n = 8 and a corridor of 16 as S500's; the state range
                // starts before the frame and the frame ends inside the
                // last states' lattices
                events_case k{ 8, -7, 16, L, A, 40, -5, 60, soft, soft, soft };
                check(k, g);
                // no zero corner (dlo = 0) and a short codeword
                k = { 3, 0, 4, L, A, 12, 2, 30, soft, !soft, true };
                check(k, g);
                // a corridor wider than the codeword's rows
                k = { 4, -9, 12, L, A, 20, 0, 200, soft, true, false };
                check(k, g);
            }
        }
    }
}
