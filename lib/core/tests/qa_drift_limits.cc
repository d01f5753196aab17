/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// drift_pdf against an independent dynamic program, and the limits rule's
// defining properties. The 40-digit reference comparison lives in
// python/bsid/core/qa_drift_limits.py (it needs mpmath).

#include <gnuradio/bsid/core/inner/drift_limits.h>
#include <gtest/gtest.h>
#include <cmath>
#include <map>
#include <vector>

namespace {

// phi_T by convolving T copies of one bit's drift pmf: P(-1) = Pd (deleted
// outright), P(k) = Pi^k Pt + Pi^(k+1) Pd for k >= 0 (k insertions then sent,
// or k + 1 insertions then deleted).
// Only drift changes k <= kmax are kept; that is exact for every m <= kmax - T + 1.
std::map<int, double> convolve_pdf(int T, double Pi, double Pd, int kmax)
{
    const double Pt = 1 - Pi - Pd;
    std::vector<double> bit; // bit[k + 1] = P(drift change k)
    bit.push_back(Pd);
    double p = 1;
    for (int k = 0; k <= kmax; ++k, p *= Pi)
        bit.push_back(p * (Pt + Pi * Pd));
    std::vector<double> cur{ 1.0 }; // cur[x] = P(drift = x - t) after t bits
    for (int t = 0; t < T; ++t) {
        std::vector<double> next(cur.size() + bit.size() - 1, 0.0);
        for (size_t x = 0; x < cur.size(); ++x)
            for (size_t k = 0; k < bit.size(); ++k)
                next[x + k] += cur[x] * bit[k];
        cur.swap(next);
    }
    std::map<int, double> out;
    for (size_t x = 0; x < cur.size(); ++x)
        out[int(x) - T] = cur[x];
    return out;
}

void expect_close_rel(double got, double want, double rel, const char* what, int m)
{
    if (want == 0) {
        EXPECT_EQ(got, 0.0) << what << " m=" << m;
    } else {
        EXPECT_NEAR(got / want, 1.0, rel)
            << what << " m=" << m << " got " << got << " want " << want;
    }
}

} // namespace

TEST(drift_limits, pdf_matches_convolution)
{
    struct C {
        int T;
        double Pi, Pd;
    };
    for (C c : { C{ 1, 0.1, 0.2 },
                 C{ 8, 0.01, 0.01 },
                 C{ 40, 0.2, 0.2 },
                 C{ 40, 0.3, 0.05 },
                 C{ 25, 0.0, 0.1 },
                 C{ 25, 0.1, 0.0 },
                 C{ 60, 0.45, 0.45 } }) {
        const int mmax = c.T + 30;
        const auto ref = convolve_pdf(c.T, c.Pi, c.Pd, mmax + c.T);
        for (int m = -c.T - 2; m <= mmax; ++m) {
            const auto it = ref.find(m);
            const double want = it == ref.end() ? 0.0 : it->second;
            if (want < 1e-250)
                continue; // the convolution's own underflow
            expect_close_rel(bsid::drift_pdf(c.T, c.Pi, c.Pd, m), want, 1e-11, "phi", m);
        }
    }
}

TEST(drift_limits, pdf_special_channels)
{
    // no insertions: the drift is -(number of deletions), binomial
    EXPECT_NEAR(bsid::drift_pdf(10, 0.0, 0.1, -2), 45 * 0.01 * std::pow(0.9, 8), 1e-15);
    EXPECT_EQ(bsid::drift_pdf(10, 0.0, 0.1, 1), 0.0);
    // no deletions: negative binomial number of insertions
    EXPECT_NEAR(bsid::drift_pdf(10, 0.1, 0.0, 2), 55 * 0.01 * std::pow(0.9, 10), 1e-15);
    EXPECT_EQ(bsid::drift_pdf(10, 0.1, 0.0, -1), 0.0);
    // a perfect channel, and T = 0
    EXPECT_EQ(bsid::drift_pdf(100, 0.0, 0.0, 0), 1.0);
    EXPECT_EQ(bsid::drift_pdf(100, 0.0, 0.0, 1), 0.0);
    EXPECT_EQ(bsid::drift_pdf(0, 0.2, 0.2, 0), 1.0);
    EXPECT_EQ(bsid::drift_pdf(0, 0.2, 0.2, -1), 0.0);
    // more deletions than bits is impossible
    EXPECT_EQ(bsid::drift_pdf(5, 0.2, 0.2, -6), 0.0);
    EXPECT_GT(bsid::drift_pdf(5, 0.2, 0.2, -5), 0.0);
}

TEST(drift_limits, pdf_sums_to_one_at_large_T)
{
    // T = 10^6 at p = 0.2: single terms underflow any float type, the sum must not.
    const long long T = 1000000;
    const auto r = bsid::drift_limits(T, 0.2, 0.2, 1e-10);
    // the limits sit near 6.5 sigma (sigma = 707); 10 sigma leaves < 1e-22 out
    const long long lo = r.lo - 2500, hi = r.hi + 2500;
    const auto v = bsid::drift_pdf(T, 0.2, 0.2, lo, hi);
    double sum = 0;
    for (double x : v)
        sum += x;
    EXPECT_NEAR(sum, 1.0, 1e-11);
    // the drift's variance per bit is Pi/(1-Pi)^2 + Pd(1-Pi-Pd)/(1-Pi)^2 = 0.5
    double var = 0;
    for (size_t k = 0; k < v.size(); ++k) {
        const double m = double(lo + (long long)k);
        var += v[k] * m * m;
    }
    EXPECT_NEAR(var / double(T), 0.5, 1e-6);
}

TEST(drift_limits, rule_properties)
{
    struct C {
        long long T;
        double Pi, Pd, Pr;
    };
    for (C c : { C{ 8, 0.01, 0.01, 1e-10 },
                 C{ 400, 0.1, 0.1, 1e-10 },
                 C{ 4000, 0.01, 0.01, 1e-10 },
                 C{ 1000, 0.05, 0.0, 1e-6 },
                 C{ 1000, 0.0, 0.05, 1e-6 },
                 C{ 500, 0.2, 0.05, 1e-3 } }) {
        const auto r = bsid::drift_limits(c.T, c.Pi, c.Pd, c.Pr);
        // the excluded mass is below Pr (summed over a generous window)
        const auto v = bsid::drift_pdf(c.T, c.Pi, c.Pd, -c.T, r.hi + 2000);
        double excluded = 0;
        for (size_t k = 0; k < v.size(); ++k) {
            const long long m = -c.T + (long long)k;
            if (!r.contains(m))
                excluded += v[k];
        }
        EXPECT_LT(excluded, c.Pr) << "T=" << c.T;
        // step 1 of the rule stopped where phi fell below Pr/2, and step 2
        // only widens into the decreasing tails
        EXPECT_LT(bsid::drift_pdf(c.T, c.Pi, c.Pd, r.lo - 1), c.Pr / 2) << "T=" << c.T;
        EXPECT_LT(bsid::drift_pdf(c.T, c.Pi, c.Pd, r.hi + 1), c.Pr / 2) << "T=" << c.T;
        // the rule grows from drift 0 unless phi(0) < Pr/2
        if (bsid::drift_pdf(c.T, c.Pi, c.Pd, 0) >= c.Pr / 2) {
            EXPECT_LE(r.lo, 0);
            EXPECT_GE(r.hi, 0);
        } else {
            EXPECT_FALSE(r.contains(0));
        }
    }
}

TEST(drift_limits, perfect_channel_and_validation)
{
    EXPECT_EQ(bsid::drift_limits(1000, 0, 0, 1e-10), (bsid::drift_range{ 0, 0 }));
    EXPECT_THROW(bsid::drift_limits(-1, 0.1, 0.1, 1e-10), std::invalid_argument);
    EXPECT_THROW(bsid::drift_limits(10, 0.6, 0.4, 1e-10), std::invalid_argument);
    EXPECT_THROW(bsid::drift_limits(10, 0.1, 0.1, 0.0), std::invalid_argument);
    EXPECT_THROW(bsid::drift_limits(10, 0.1, 0.1, 1.0), std::invalid_argument);
    EXPECT_THROW(bsid::drift_limits(10, 0.1, 0.1, std::nan("")), std::invalid_argument);
}

TEST(drift_limits, mode_start_when_drift_zero_is_unlikely)
{
    // Insertions only: after 2000 bits the drift is about 2000 * 0.1/0.9 = 222
    // and phi(0) = 0.9^2000 is far below Pr/2, so the rule starts at the mode.
    const auto r = bsid::drift_limits(2000, 0.1, 0.0, 1e-10);
    EXPECT_GT(r.lo, 100);
    EXPECT_LT(r.hi, 400);
    EXPECT_TRUE(r.contains(222));
    // The decoder's boundary space covers every boundary from drift 0 on.
    const auto L = bsid::compute_decoder_limits(250, 8, 0.1, 0.0, 1e-10);
    EXPECT_EQ(L.mtau.lo, 0);
    EXPECT_GE(L.mtau.hi, r.hi);
    EXPECT_EQ(L.mn.lo, 0); // no deletions: no drift change below 0
    EXPECT_GT(L.mn.hi, 0);
}

TEST(drift_limits, codeword_exclusion)
{
    // Pr_n = 1 - (1 - Pr)^(1/N), exact for tiny Pr where 1 - Pr rounds
    EXPECT_NEAR(bsid::codeword_exclusion(1e-10, 500) / 2e-13, 1.0, 1e-9);
    EXPECT_NEAR(bsid::codeword_exclusion(0.5, 2), 1 - std::sqrt(0.5), 1e-15);
    EXPECT_DOUBLE_EQ(bsid::codeword_exclusion(1e-300, 1), 1e-300);
    EXPECT_THROW(bsid::codeword_exclusion(1e-10, 0), std::invalid_argument);
}

// P(drift after T bits lies outside r), from drift_pdf (independent of the
// binary-splitting convolution of boundary_limits).
double outside(long long T, double Pi, double Pd, const bsid::drift_range& r)
{
    if (T == 0)
        return r.contains(0) ? 0.0 : 1.0;
    double s = 0;
    const auto lo = bsid::drift_pdf(T, Pi, Pd, -T, r.lo - 1);
    for (double v : lo)
        s += v;
    // the upper tail, until the terms stop mattering
    for (long long m = r.hi + 1;; ++m) {
        const double v = bsid::drift_pdf(T, Pi, Pd, m);
        s += v;
        if (m > r.hi + 5 && (v == 0 || v < 1e-30 * s))
            break;
    }
    return s;
}

/*
 * The probability that a codeword's path leaves [lo, hi] at some lattice
 * node, event by event (an insertion stays on the bit, a deletion or a
 * transmission moves to the next one): a different formulation from the
 * per-bit one of corridor_limits.
 */
double corridor_exit_events(int n, double Pi, double Pd, const bsid::drift_range& r)
{
    const double Pt = 1 - Pi - Pd;
    const int M = r.hi - r.lo + 1;
    std::vector<double> at(size_t(M), 0.0); // the drift at the start of the current bit
    at[size_t(-r.lo)] = 1;
    double exit = 0;
    for (int t = 0; t < n; ++t) {
        std::vector<double> cur = at, next(size_t(M), 0.0);
        // insertions repeat on the same bit: iterate until nothing is left
        for (int k = 0; k <= M + 1; ++k) {
            std::vector<double> ins(size_t(M), 0.0);
            for (int x = 0; x < M; ++x) {
                const double w = cur[size_t(x)];
                if (w == 0)
                    continue;
                if (x + 1 < M)
                    ins[size_t(x + 1)] += w * Pi;
                else
                    exit += w * Pi;
                next[size_t(x)] += w * Pt;
                if (x - 1 >= 0)
                    next[size_t(x - 1)] += w * Pd;
                else
                    exit += w * Pd;
            }
            cur.swap(ins);
        }
        at.swap(next);
    }
    return exit;
}

TEST(drift_limits, union_bound_holds_on_asymmetric_channels)
{
    struct C {
        long long N;
        int n;
        double Pi, Pd;
    };
    const double Pr = 1e-10;
    for (C c : { C{ 500, 8, 0.02, 0.002 },
                 C{ 500, 8, 0.002, 0.02 },
                 C{ 300, 8, 0.2, 0.0 },
                 C{ 300, 8, 0.0, 0.2 },
                 C{ 200, 8, 0.3, 0.01 },
                 C{ 200, 8, 0.01, 0.3 },
                 C{ 500, 8, 0.01, 0.01 },
                 C{ 100, 16, 0.05, 0.1 },
                 C{ 40, 32, 0.1, 0.0 } }) {
        const auto L = bsid::compute_decoder_limits(c.N, c.n, c.Pi, c.Pd, Pr);
        SCOPED_TRACE(::testing::Message()
                     << "N=" << c.N << " n=" << c.n << " Pi=" << c.Pi << " Pd=" << c.Pd
                     << " mtau=[" << L.mtau.lo << "," << L.mtau.hi << "] mn=[" << L.mn.lo
                     << "," << L.mn.hi << "]");
        // the boundaries: sum over i = 0..N of P(drift after i n bits outside m_tau)
        double boundaries = 0;
        for (long long i = 0; i <= c.N; ++i)
            boundaries += outside(i * c.n, c.Pi, c.Pd, L.mtau);
        // the corridors: N P(leaving m_n at some node) >= N P(change over n bits outside
        // m_n)
        const double leave = double(c.N) * corridor_exit_events(c.n, c.Pi, c.Pd, L.mn);
        const double change = double(c.N) * outside(c.n, c.Pi, c.Pd, L.mn);
        EXPECT_LT(leave, Pr / 2); // the corridors get at most half of Pr
        EXPECT_LE(change, leave * (1 + 1e-9));
        EXPECT_LT(boundaries + leave, Pr);
        // m_tau is the boundary rule for what the corridors leave
        EXPECT_EQ(
            L.mtau,
            bsid::boundary_limits(
                c.N,
                c.n,
                c.Pi,
                c.Pd,
                Pr - bsid::excluded_mass(c.N, c.n, c.Pi, c.Pd, L.mtau, L.mn).corridors));
        // excluded_mass computes the same two numbers
        const auto ex = bsid::excluded_mass(c.N, c.n, c.Pi, c.Pd, L.mtau, L.mn);
        EXPECT_NEAR(ex.boundaries, boundaries, 1e-6 * boundaries + 1e-30);
        EXPECT_NEAR(ex.corridors, leave, 1e-6 * leave + 1e-30);
        // the corridor is never clipped: deletions are allowed wherever Pd > 0,
        // and m_tau reaches below 0 when an early boundary can be negative
        EXPECT_LE(L.mn.lo, 0);
        EXPECT_GE(L.mn.hi, 0);
        if (c.Pd > 0) {
            EXPECT_LT(L.mn.lo, 0);
            EXPECT_LT(L.mtau.lo, 0);
        }
        if (c.Pi > 0) {
            EXPECT_GT(L.mn.hi, 0);
            EXPECT_GT(L.mtau.hi, 0);
        }
        // and not wasteful: one state less on either side leaves out at least
        // Pr/4 at the boundaries (rule 1 keeps every m with mu(m) >= half the budget)
        const double wider_lo =
            bsid::excluded_mass(c.N, c.n, c.Pi, c.Pd, { L.mtau.lo + 1, L.mtau.hi }, L.mn)
                .boundaries;
        const double wider_hi =
            bsid::excluded_mass(c.N, c.n, c.Pi, c.Pd, { L.mtau.lo, L.mtau.hi - 1 }, L.mn)
                .boundaries;
        if (L.mtau.lo < 0) {
            EXPECT_GE(wider_lo, Pr / 4);
        }
        if (L.mtau.hi > 0) {
            EXPECT_GE(wider_hi, Pr / 4);
        }
    }
}

TEST(drift_limits, asymmetric_reproduction_is_not_clipped)
{
    // Pi = 0.02, Pd = 0.002 (mean drift +72 over 4000 bits): the corridor
    // allows deletions and m_tau reaches the negative drifts of early boundaries
    const auto L = bsid::compute_decoder_limits(500, 8, 0.02, 0.002, 1e-10);
    EXPECT_LE(L.mn.lo, -5);
    EXPECT_LE(L.mtau.lo, -5);
    // and the final boundary's own limits (mean drift 72)
    const auto last = bsid::drift_limits(4000, 0.02, 0.002, 1e-10);
    EXPECT_GE(L.mtau.hi, last.hi);
    const auto M = bsid::compute_decoder_limits(500, 8, 0.002, 0.02, 1e-10);
    EXPECT_GE(M.mn.hi, 5);
    EXPECT_GE(M.mtau.hi, 5);
    EXPECT_LE(M.mtau.lo, bsid::drift_limits(4000, 0.002, 0.02, 1e-10).lo);
}

TEST(drift_limits, decoder_limits_hold_zero)
{
    for (double p : { 0.0, 1e-3, 1e-2, 0.1, 0.2 }) {
        const auto L = bsid::compute_decoder_limits(500, 8, p, p, 1e-10);
        EXPECT_TRUE(L.mtau.contains(0));
        EXPECT_TRUE(L.mn.contains(0));
        // symmetric channel: symmetric-ish spaces, at least the final boundary's
        const auto last = bsid::drift_limits(4000, p, p, 1e-10);
        EXPECT_LE(L.mtau.lo, last.lo);
        EXPECT_GE(L.mtau.hi, last.hi);
    }
    EXPECT_THROW(bsid::compute_decoder_limits(0, 8, 0.01, 0.01, 1e-10),
                 std::invalid_argument);
    EXPECT_THROW(bsid::compute_decoder_limits(10, 8, 0.01, 0.01, 0.0),
                 std::invalid_argument);
    EXPECT_THROW(bsid::compute_decoder_limits(10, 8, 0.7, 0.4, 1e-10),
                 std::invalid_argument);
}
