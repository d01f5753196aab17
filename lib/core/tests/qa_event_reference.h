/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Test-only: the expected channel events of a frame by brute force, written
// from the channel model independently of the decoders: every message, and
// for each every path of events (insertion, deletion, transmission received
// as 0 or 1) that turns its bits into the received items, enumerated one by
// one. Tiny frames only (tau + rho up to about 16).

#ifndef INCLUDED_BSID_QA_EVENT_REFERENCE_H
#define INCLUDED_BSID_QA_EVENT_REFERENCE_H

#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/channel/channel_params.h>
#include <gnuradio/bsid/core/estimation/event_counts.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace bsid {
namespace qa {

struct reference_events {
    event_counts ev;
    std::vector<double> items; // A rho: P(item j sent and received as y) at [A j + y]
    std::vector<double> pairs; // A x A: expected transmissions of x received as y
};

/*
 * Over the channel's alphabet of A letters: prob, if not null, replaces the
 * received letters rx (soft input: item j received as y weighs
 * prob[A j + y]; an inserted item 1/A, as a random letter); prior (N q,
 * normalized) or null for uniform. With a sync word W (sync) every frame
 * sends W || X(D); with starts, the frame's first item is rx[s] with weight
 * pi(s) (normalized here), and it ends with rx[rho - 1].
 */
inline reference_events
brute_force_letter_events(const codebook& cb,
                          int N,
                          const channel_params& ch,
                          const uint8_t* rx,
                          const double* prob,
                          int rho,
                          const double* prior = nullptr,
                          const std::vector<uint8_t>& sync = {},
                          std::vector<std::pair<int, double>> starts = { { 0, 1.0 } })
{
    const int n = cb.n(), q = cb.q(), G = int(sync.size()), tau = G + N * n;
    const int A = ch.alphabet();
    double pi_sum = 0;
    for (const auto& st : starts)
        pi_sum += st.second;
    auto p_item = [&](int c, int y) {
        if (!prob)
            return rx[c] == y ? 1.0 : 0.0;
        return prob[size_t(A) * size_t(c) + size_t(y)];
    };
    // long double sums: a frame has millions of paths, and a double sum of
    // that many terms would carry an error near 1e-9 itself
    long double Z = 0, ins = 0, del = 0, trans = 0, subst = 0;
    std::vector<long double> items(size_t(A) * size_t(rho), 0.0L);
    std::vector<long double> pairs(size_t(A) * size_t(A), 0.0L);
    std::vector<uint8_t> x(static_cast<size_t>(tau));
    std::copy(sync.begin(), sync.end(), x.begin());
    std::vector<int> got(static_cast<size_t>(rho), -1);  // -1 inserted, else y
    std::vector<int> sent(static_cast<size_t>(rho), -1); // the letter transmitted
    long long msgs = 1;
    for (int i = 0; i < N; ++i)
        msgs *= q;
    for (long long m = 0; m < msgs; ++m) {
        long long v = m;
        double pD = 1;
        for (int i = 0; i < N; ++i) {
            const int D = int(v % q);
            v /= q;
            pD *= prior ? prior[size_t(i) * q + D] : 1.0 / q;
            const uint32_t w = cb.word(i, D);
            for (int r = 0; r < n; ++r)
                x[size_t(G + i * n + r)] = uint8_t(cb.letter(w, r));
        }
        if (pD == 0)
            continue;
        // depth-first over the paths; counts of this path so far
        struct counts {
            int ins = 0, del = 0, trans = 0, subst = 0;
        };
        int first = 0; // the frame's first item: items before it are not the frame's
        auto walk = [&](auto&& self, int r, int c, long double w, counts k) -> void {
            if (w == 0)
                return;
            if (r == tau) { // no insertion after the last letter
                if (c != rho)
                    return;
                const long double p = (long double)pD * w;
                Z += p;
                ins += p * k.ins;
                del += p * k.del;
                trans += p * k.trans;
                subst += p * k.subst;
                for (int j = first; j < rho; ++j) {
                    if (got[size_t(j)] >= 0) {
                        items[size_t(A) * size_t(j) + size_t(got[size_t(j)])] += p;
                        pairs[size_t(sent[size_t(j)] * A + got[size_t(j)])] += p;
                    }
                }
                return;
            }
            if (c < rho) { // an insertion of a random letter
                got[size_t(c)] = -1;
                counts k1 = k;
                ++k1.ins;
                self(self, r, c + 1, w * ch.Pi() / A, k1);
            }
            { // a deletion
                counts k1 = k;
                ++k1.del;
                self(self, r + 1, c, w * ch.Pd(), k1);
            }
            if (c < rho) { // a transmission, received as y
                for (int y = 0; y < A; ++y) {
                    const bool other = y != x[size_t(r)];
                    counts k1 = k;
                    ++k1.trans;
                    k1.subst += other ? 1 : 0;
                    got[size_t(c)] = y;
                    sent[size_t(c)] = x[size_t(r)];
                    self(self,
                         r + 1,
                         c + 1,
                         w * ch.Pt() * ch.emission(x[size_t(r)], unsigned(y)) *
                             p_item(c, y),
                         k1);
                }
            }
        };
        for (const auto& [s0, pi] : starts) {
            std::fill(got.begin(), got.end(), -1);
            first = s0;
            if (pi > 0)
                walk(walk, 0, s0, (long double)(pi / pi_sum), counts{});
        }
    }
    reference_events acc;
    acc.ev.ins = double(ins / Z);
    acc.ev.del = double(del / Z);
    acc.ev.trans = double(trans / Z);
    acc.ev.subst = double(subst / Z);
    for (const long double p : items)
        acc.items.push_back(double(p / Z));
    for (const long double p : pairs)
        acc.pairs.push_back(double(p / Z));
    return acc;
}

/*
 * The same over bits: llr, if not null, replaces the bits (soft input: item
 * j received as b weighs p_j(b) = 1 / (1 + e^(-+l_j))).
 */
inline reference_events brute_force_events(const codebook& cb,
                                           int N,
                                           const channel_params& ch,
                                           const uint8_t* rx,
                                           const double* llr,
                                           int rho,
                                           const double* prior = nullptr,
                                           const std::vector<uint8_t>& sync = {},
                                           std::vector<std::pair<int, double>> starts = {
                                               { 0, 1.0 } })
{
    std::vector<double> prob;
    if (llr) {
        for (int c = 0; c < rho; ++c) {
            prob.push_back(1 / (1 + std::exp(llr[c])));
            prob.push_back(1 / (1 + std::exp(-llr[c])));
        }
    }
    return brute_force_letter_events(
        cb, N, ch, rx, llr ? prob.data() : nullptr, rho, prior, sync, std::move(starts));
}

// EM's property: ln P(rx | theta_k) never decreases, up to the rounding of a
// sum of frames' log-likelihoods (the estimation tests, bits and letters).
inline void expect_non_decreasing(const std::vector<double>& ll, const std::string& what)
{
    ASSERT_GE(ll.size(), 2u) << what;
    for (size_t k = 1; k < ll.size(); ++k)
        EXPECT_GE(ll[k], ll[k - 1] - 1e-12 * std::fabs(ll[k - 1]))
            << what << " step " << k;
    EXPECT_GT(ll.back(), ll.front()) << what;
}

struct events_case {
    codebook cb;
    channel_params ch;
    int N;
    std::vector<uint8_t> rx;
    std::vector<double> llr;   // soft input, or empty
    std::vector<double> prior; // normalized, or empty
};

// The paths brute_force_events walks for one message: each a sequence of t
// transmissions, tau - t deletions and rho - t insertions, and with soft
// input each transmission taken as any of the A letters (A^t); hard items
// prune the others.
inline double brute_force_paths(int tau, int rho, bool soft, int A = 2)
{
    double total = 0;
    for (int t = 0; t <= std::min(tau, rho); ++t) {
        // (tau + rho - t)! / (t! (tau - t)! (rho - t)!)
        double m = 1;
        for (int k = 1; k <= tau + rho - t; ++k)
            m *= k;
        for (int k = 2; k <= t; ++k)
            m /= k;
        for (int k = 2; k <= tau - t; ++k)
            m /= k;
        for (int k = 2; k <= rho - t; ++k)
            m /= k;
        total += soft ? m * std::pow(double(A), t) : m;
    }
    return total;
}
constexpr double brute_force_max_paths = 1e8; // about a second of one core

// A frame small enough to enumerate every path: tau <= 9, rho <= max_rx, and
// at most brute_force_max_paths paths over all messages (the received word
// cut shorter where needed, so that no seed draws a case that takes the
// oracle minutes) (the CPU and CUDA tests of the events).
inline events_case
tiny_events_case(std::mt19937_64& rng, bool soft, bool priors, size_t max_rx = 12)
{
    std::uniform_real_distribution<double> u(0, 1);
    const int n = 2 + int(rng() % 2), N = 1 + int(rng() % 3);
    const int q = 2 + int(rng() % 3);
    codebook cb = codebook::random(n, q, 1 + int(rng() % 2), rng());
    const channel_params ch(
        0.05 + 0.2 * u(rng), 0.05 + 0.2 * u(rng), u(rng) < 0.2 ? 0.0 : 0.25 * u(rng));
    std::vector<int64_t> msg(static_cast<size_t>(N));
    for (auto& s : msg)
        s = int64_t(rng() % uint64_t(q));
    const auto bits = cb.encode(msg.data(), msg.size());
    auto t = transmit(ch, bits.data(), bits.size(), rng(), 0);
    double msgs = 1;
    for (int i = 0; i < N; ++i)
        msgs *= q;
    while (t.rx.size() > max_rx ||
           (t.rx.size() > 1 && msgs * brute_force_paths(N * n, int(t.rx.size()), soft) >
                                   brute_force_max_paths))
        t.rx.pop_back();
    if (t.rx.empty())
        t.rx.push_back(uint8_t(rng() & 1));
    events_case c{ cb, ch, N, t.rx, {}, {} };
    if (soft) {
        for (uint8_t b : t.rx) // noisy LLRs, some of them wrong, some infinite
            c.llr.push_back(u(rng) < 0.1 ? (b ? HUGE_VAL : -HUGE_VAL)
                                         : (b ? 1.0 : -1.0) * (4 * u(rng) - 0.8));
    }
    if (priors) {
        c.prior.resize(size_t(N * q));
        for (int i = 0; i < N; ++i) {
            double s = 0;
            for (int D = 0; D < q; ++D)
                s += (c.prior[size_t(i * q + D)] = u(rng) < 0.2 ? 0.0 : u(rng) + 0.01);
            if (s == 0)
                s = c.prior[size_t(i * q)] = 1;
            for (int D = 0; D < q; ++D)
                c.prior[size_t(i * q + D)] /= s;
        }
    }
    return c;
}

// A decoder for case c on backend b that allows every path (the brute
// force's: drifts -tau .. rho at the boundaries, -n .. rho a codeword).
inline decoder_config
every_path_config(const events_case& c, backend_kind b, precision_kind p, storage_kind s)
{
    const int rho = int(c.rx.size()), tau = c.N * c.cb.n();
    decoder_config cfg(c.cb, c.ch, c.N);
    cfg.backend = b;
    cfg.precision = p;
    cfg.storage = s;
    cfg.mtau = drift_range{ -tau, rho };
    cfg.mn = drift_range{ -c.cb.n(), rho };
    return cfg;
}

// Case c's frame: its bits, or its LLRs where soft; its priors where asked.
inline frame_view case_frame(const events_case& c, bool soft, bool priors)
{
    frame_view f;
    if (soft)
        f.llr = c.llr.data();
    else
        f.bits = c.rx.data();
    f.rho = c.rx.size();
    f.priors = priors ? c.prior.data() : nullptr;
    return f;
}

} // namespace qa
} // namespace bsid

#endif /* INCLUDED_BSID_QA_EVENT_REFERENCE_H */
