/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Test-only: the exact brute-force APP that every decoder backend is checked
// against, written independently of the decoders. For tiny codes it sums
// P(y | X(D)) over all q^N messages.

#ifndef INCLUDED_BSID_QA_REFERENCE_H
#define INCLUDED_BSID_QA_REFERENCE_H

#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/lattice.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <vector>

namespace bsid {
namespace qa {

//! Seed of this run's random cases: BSID_TEST_SEED, or the clock (printed).
inline uint64_t test_seed()
{
    static const uint64_t seed = [] {
        const char* env = std::getenv("BSID_TEST_SEED");
        const uint64_t s =
            env ? std::strtoull(env, nullptr, 10)
                : uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
        std::cout << "random cases from BSID_TEST_SEED=" << s << std::endl;
        return s;
    }();
    return seed;
}

inline std::vector<uint8_t> bits_of(uint32_t w, int n)
{
    std::vector<uint8_t> b(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r)
        b[size_t(r)] = uint8_t((w >> (n - 1 - r)) & 1u);
    return b;
}

//! The n base-A digits of w, the most significant first (bits for A = 2).
inline std::vector<uint8_t> letters_of(uint32_t w, int n, int A)
{
    std::vector<uint8_t> d(static_cast<size_t>(n));
    for (int r = n - 1; r >= 0; --r) {
        d[size_t(r)] = uint8_t(w % uint32_t(A));
        w /= uint32_t(A);
    }
    return d;
}

/*
 * P(received y | letter x transmitted) from the model's statement (the issue
 * of the q-ary channel): 1 - Ps for y = x, Ps / (A - 1) for each other
 * letter, or the matrix entry S[x][y] when one is given.
 */
inline double letter_emission(const channel_params& ch, int x, int y)
{
    const int A = ch.alphabet();
    if (!ch.substitution().empty())
        return ch.substitution()[size_t(x * A + y)];
    return x == y ? 1 - ch.Ps() : ch.Ps() / (A - 1);
}

/*
 * The diagonal weight of sending bit x and receiving item c, written from the
 * issue's soft-input model: hard bits Pt (1 - Ps) or Pt Ps; an LLR l gives
 * p1 = 1 / (1 + e^-l), p0 = 1 / (1 + e^l) and Pt ((1 - Ps) p(x) + Ps p(1 - x)).
 * Over A > 2 letters `llr` holds A log-probabilities per item instead (item
 * c's at [A c]): with w(y) = e^lp(y) / sum_y' e^lp(y'), the weight is
 * Pt sum_y w(y) P(y | x).
 */
inline double item_weight(
    const channel_params& ch, const uint8_t* y, const double* llr, int c, uint8_t x)
{
    if (!llr && ch.alphabet() != 2)
        return ch.Pt() * letter_emission(ch, x, y[c]);
    if (llr && ch.alphabet() != 2) {
        const int A = ch.alphabet();
        const double* lp = llr + size_t(A) * size_t(c);
        double top = lp[0], z = 0, v = 0;
        for (int l = 1; l < A; ++l)
            top = std::max(top, lp[l]);
        for (int l = 0; l < A; ++l) {
            z += std::exp(lp[l] - top);
            v += std::exp(lp[l] - top) * letter_emission(ch, x, l);
        }
        return ch.Pt() * v / z;
    }
    if (!llr)
        return y[c] == x ? ch.Pt() * (1 - ch.Ps()) : ch.Pt() * ch.Ps();
    const double l = llr[c];
    const double p1 = 1 / (1 + std::exp(-l)), p0 = 1 / (1 + std::exp(l));
    return ch.Pt() * ((1 - ch.Ps()) * (x ? p1 : p0) + ch.Ps() * (x ? p0 : p1));
}

// R(y|x) with every node's drift c - r inside [dlo, dhi] (independent table);
// llr, if not null, replaces the bits y (soft input: item_weight).
inline double corridor_R(const channel_params& ch,
                         const std::vector<uint8_t>& x,
                         const uint8_t* y,
                         int L,
                         int dlo,
                         int dhi,
                         const double* llr = nullptr)
{
    const int n = int(x.size());
    std::vector<double> F(size_t((n + 1) * (L + 1)), 0.0);
    auto at = [&](int r, int c) -> double& { return F[size_t(r * (L + 1) + c)]; };
    auto inside = [&](int r, int c) { return c - r >= dlo && c - r <= dhi; };
    for (int r = 0; r <= n; ++r)
        for (int c = 0; c <= L; ++c) {
            if (!inside(r, c))
                continue;
            double v = (r == 0 && c == 0) ? 1.0 : 0.0;
            if (c > 0 && r < n && inside(r, c - 1))
                v += ch.Pi() / ch.alphabet() * at(r, c - 1); // a uniform letter
            if (r > 0 && inside(r - 1, c))
                v += ch.Pd() * at(r - 1, c);
            if (r > 0 && c > 0 && inside(r - 1, c - 1))
                v += item_weight(ch, y, llr, c - 1, x[size_t(r - 1)]) * at(r - 1, c - 1);
            at(r, c) = v;
        }
    return at(n, L);
}

/*
 * P(y | X) for one message's letters X (N codewords of n), restricted as the
 * decoder restricts it: a forward pass over the codeword-boundary drifts
 * inside m_tau, each codeword's lattice with every node's drift change
 * inside m_n, from drift 0 to the end drift rho - tau. llr, if not null,
 * replaces y (A values per item over more than two letters).
 */
inline double restricted_likelihood(const channel_params& ch,
                                    const std::vector<uint8_t>& X,
                                    int n,
                                    int N,
                                    const uint8_t* y,
                                    const double* llr,
                                    long long rho,
                                    const decoder_limits& limits)
{
    const size_t width = ch.alphabet() == 2 ? 1 : size_t(ch.alphabet());
    const long long tau = (long long)N * n;
    const auto& mt = limits.mtau;
    const auto& mn = limits.mn;
    std::vector<double> P(size_t(mt.size()), 0.0), Pn(size_t(mt.size()));
    P[size_t(-mt.lo)] = 1;
    for (int i = 0; i < N; ++i) {
        std::fill(Pn.begin(), Pn.end(), 0.0);
        const std::vector<uint8_t> x(X.begin() + i * n, X.begin() + (i + 1) * n);
        for (int m1 = mt.lo; m1 <= mt.hi; ++m1) {
            if (P[size_t(m1 - mt.lo)] == 0)
                continue;
            const long long s = (long long)i * n + m1;
            if (s < 0 || s > rho)
                continue;
            for (int d = mn.lo; d <= mn.hi; ++d) {
                const int m2 = m1 + d;
                const long long len = n + d;
                if (m2 < mt.lo || m2 > mt.hi || len < 0 || s + len > rho)
                    continue;
                Pn[size_t(m2 - mt.lo)] +=
                    P[size_t(m1 - mt.lo)] *
                    corridor_R(ch,
                               x,
                               llr ? nullptr : y + s,
                               int(len),
                               mn.lo,
                               mn.hi,
                               llr ? llr + size_t(s) * width : nullptr);
            }
        }
        std::swap(P, Pn);
    }
    const long long end = rho - tau;
    return mt.contains(end) ? P[size_t(end - mt.lo)] : 0.0;
}

struct tiny_case {
    codebook cb;
    channel_params ch;
    int N;
    std::vector<uint8_t> y;
    std::vector<double> priors; // empty: uniform
    // soft input (y unused): one LLR per received item; over A > 2 letters, A
    // log-probabilities per item
    std::vector<double> llr;
};

/*
 * The exact APP by enumeration. If `limits` is given, P(y|X) is restricted as
 * the decoder restricts it: codeword-boundary drifts inside m_tau, and every
 * lattice node's drift within a codeword inside m_n; otherwise the full-frame
 * lattice gives the untruncated P(y|X).
 */
inline std::vector<double> brute_force_app(const tiny_case& tc,
                                           const decoder_limits* limits)
{
    const int N = tc.N, q = tc.cb.q(), n = tc.cb.n();
    const double* llr = tc.llr.empty() ? nullptr : tc.llr.data();
    const size_t width = tc.ch.alphabet() == 2 ? 1 : size_t(tc.ch.alphabet());
    const long long rho = (long long)(llr ? tc.llr.size() / width : tc.y.size());
    std::vector<double> app(size_t(N * q), 0.0);
    std::vector<int> msg(size_t(N), 0);
    double total = 0;
    for (;;) {
        double prior = 1;
        std::vector<uint8_t> X;
        for (int i = 0; i < N; ++i) {
            if (!tc.priors.empty())
                prior *= tc.priors[size_t(i * q + msg[size_t(i)])];
            const auto w =
                letters_of(tc.cb.word(size_t(i), msg[size_t(i)]), n, tc.cb.alphabet());
            X.insert(X.end(), w.begin(), w.end());
        }
        double p = 0;
        if (!limits) {
            // the whole lattice: a corridor no path leaves
            p = corridor_R(
                tc.ch, X, tc.y.data(), int(rho), -int(X.size()), int(rho), llr);
        } else {
            p = restricted_likelihood(tc.ch, X, n, N, tc.y.data(), llr, rho, *limits);
        }
        for (int i = 0; i < N; ++i)
            app[size_t(i * q + msg[size_t(i)])] += prior * p;
        total += prior * p;
        int k = 0;
        while (k < N && ++msg[size_t(k)] == q)
            msg[size_t(k++)] = 0;
        if (k == N)
            break;
    }
    for (auto& v : app)
        v /= total / 1.0;
    // rows already sum to 1 (each message counted once per position)
    return app;
}

//! A random tiny case: N <= 4, n <= 4, q <= 4, P in {2, 3}, random channel,
//! a frame sent through it (never empty), optional random priors.
inline tiny_case random_case(std::mt19937_64& rng, bool with_priors)
{
    std::uniform_int_distribution<int> Nd(1, 4), nd(2, 4), Pd(2, 3);
    std::uniform_real_distribution<double> u(0, 1);
    const int n = nd(rng), P = Pd(rng);
    const int q = std::uniform_int_distribution<int>(2, std::min(4, 1 << n))(rng);
    const int N = Nd(rng);
    codebook cb = codebook::random(n, q, P, rng());
    const channel_params ch(
        0.3 * u(rng), 0.3 * u(rng), u(rng) < 0.3 ? 0.0 : 0.2 * u(rng));
    std::vector<int64_t> msg(static_cast<size_t>(N));
    for (auto& s : msg)
        s = std::uniform_int_distribution<int>(0, q - 1)(rng);
    const auto bits = cb.encode(msg.data(), msg.size());
    auto t = transmit(ch, bits.data(), bits.size(), rng(), 0);
    if (t.rx.empty())
        t.rx.push_back(uint8_t(rng() & 1)); // empty frames are refused by design
    std::vector<double> pri;
    if (with_priors) {
        pri.resize(size_t(N * q));
        for (auto& v : pri)
            v = u(rng) < 0.15 ? 0.0 : u(rng);
        for (int i = 0; i < N; ++i)
            pri[size_t(i * q + int(rng() % q))] += 0.5; // no zero rows
    }
    return { cb, ch, N, t.rx, pri };
}

/*!
 * Soft input for a tiny case: each received bit b as an LLR of sign 2b - 1
 * and a random magnitude in (0, 8), a tenth of them with the wrong sign, a
 * few +-infinity (hard) and +-1e30; the bits are then unused.
 */
inline void make_soft(tiny_case& tc, std::mt19937_64& rng)
{
    std::uniform_real_distribution<double> u(0, 1);
    tc.llr.resize(tc.y.size());
    for (size_t j = 0; j < tc.y.size(); ++j) {
        const double sign = (tc.y[j] ? 1.0 : -1.0) * (u(rng) < 0.1 ? -1.0 : 1.0);
        const double v = u(rng);
        const double mag = v < 0.05   ? std::numeric_limits<double>::infinity()
                           : v < 0.08 ? 1e30
                                      : 8 * u(rng);
        tc.llr[j] = sign * mag;
    }
    // y stays: a test may compare against the hard decisions
}

/*
 * The reference for a decode of tc with the decoder's own limits:
 * brute_force_app restricted as the decoder restricts P(y | X); or nothing
 * where the decoder must refuse the frame, after checking that it did: its
 * drift outside m_tau (drift_out_of_range), or zero probability within the
 * limits (impossible).
 */
inline std::optional<std::vector<double>>
restricted_reference(const tiny_case& tc, const map_decoder& dec, const frame_result& r)
{
    const size_t width = tc.ch.alphabet() == 2 ? 1 : size_t(tc.ch.alphabet());
    const long long rho =
        (long long)(tc.llr.empty() ? tc.y.size() : tc.llr.size() / width);
    if (!dec.limits().mtau.contains(rho - (long long)tc.N * tc.cb.n())) {
        EXPECT_EQ(r.status, frame_status::drift_out_of_range) << r.reason;
        return std::nullopt;
    }
    auto ref = brute_force_app(tc, &dec.limits());
    double total = 0;
    for (double v : ref)
        total += v;
    if (!std::isfinite(total)) { // zero probability within the limits
        EXPECT_EQ(r.status, frame_status::impossible) << r.reason;
        return std::nullopt;
    }
    return ref;
}

/*
 * The extrinsic output by enumeration: symbol i's APP with its own prior made
 * uniform and every other prior kept, once per symbol (the full lattice).
 */
inline std::vector<double> brute_force_extrinsic(const tiny_case& tc)
{
    const int N = tc.N, q = tc.cb.q();
    std::vector<double> ref(size_t(N * q));
    for (int i = 0; i < N; ++i) {
        tiny_case one = tc;
        if (one.priors.empty())
            one.priors.assign(size_t(N * q), 1.0);
        std::fill(one.priors.begin() + i * q, one.priors.begin() + (i + 1) * q, 1.0);
        const auto app = brute_force_app(one, nullptr);
        std::copy(app.begin() + i * q, app.begin() + (i + 1) * q, ref.begin() + i * q);
    }
    return ref;
}

//! A tiny case's priors as natural logs (-infinity for a zero); counts the zeros.
inline std::vector<double> log_priors_of(const tiny_case& tc, int& zeros)
{
    std::vector<double> logs(tc.priors.size());
    for (size_t t = 0; t < logs.size(); ++t) {
        logs[t] = tc.priors[t] > 0 ? std::log(tc.priors[t])
                                   : -std::numeric_limits<double>::infinity();
        zeros += tc.priors[t] == 0;
    }
    return logs;
}

//! Limits wide enough for every path of a tiny case's frame.
inline void wide_limits(decoder_config& cfg, const tiny_case& tc)
{
    const int rho = int(tc.y.size()), tau = tc.N * tc.cb.n();
    cfg.mtau = drift_range{ -tau, rho };
    cfg.mn = drift_range{ -tc.cb.n(), rho };
}

inline double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b)
{
    double m = 0;
    for (size_t k = 0; k < a.size(); ++k)
        m = std::max(m, std::abs(a[k] - b[k]));
    return m;
}

/*
 * The extrinsic output (frame_view::extrinsic) of `backend` against
 * brute_force_extrinsic on 40 tiny cases with priors holding zeros (where
 * posterior over prior would be 0/0), both precisions and storages, priors
 * plain and as logs. Returns the number of zero priors met.
 */
inline int check_extrinsic_against_brute_force(backend_kind backend, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    int zeros = 0;
    for (int trial = 0; trial < 40; ++trial) {
        const tiny_case tc = random_case(rng, true);
        const auto ref = brute_force_extrinsic(tc);
        const auto logs = log_priors_of(tc, zeros);
        for (auto p : { precision_kind::single, precision_kind::dual })
            for (auto s : { storage_kind::global, storage_kind::local })
                for (bool as_logs : { false, true }) {
                    decoder_config cfg(tc.cb, tc.ch, tc.N);
                    cfg.backend = backend;
                    cfg.precision = p;
                    cfg.storage = s;
                    wide_limits(cfg, tc);
                    auto dec = map_decoder::make(cfg);
                    EXPECT_EQ(dec->backend(), backend);
                    frame_view f{ tc.y.data(),
                                  tc.y.size(),
                                  as_logs ? logs.data() : tc.priors.data() };
                    f.log_priors = as_logs;
                    f.extrinsic = true;
                    std::vector<double> ext(ref.size());
                    const auto r = dec->decode(f, ext.data());
                    EXPECT_TRUE(r.ok()) << r.reason;
                    EXPECT_LT(max_abs_diff(ext, ref),
                              p == precision_kind::dual ? 1e-9 : 1e-4)
                        << "trial " << trial << " " << to_string(p) << " " << to_string(s)
                        << (as_logs ? " log priors" : "");
                }
    }
    return zeros;
}

} // namespace qa
} // namespace bsid

#endif /* INCLUDED_BSID_QA_REFERENCE_H */
