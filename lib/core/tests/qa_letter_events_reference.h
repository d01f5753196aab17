/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Test-only: the expected channel events over A > 2 letters (the E-step of
// estimation) against the brute force of qa_event_reference.h, on any
// backend (qa_letter_estimation.cc: the CPU; qa_letters_cuda.cc: CUDA):
// A in {3, 4, 8}, uniform and matrix substitutions, hard letters or A
// log-probabilities per item, priors, the item posteriors and the
// substitution counts, both precisions and storages; and the frame decoder's
// events with a sync word of letters and a start prior.

#ifndef INCLUDED_BSID_QA_LETTER_EVENTS_REFERENCE_H
#define INCLUDED_BSID_QA_LETTER_EVENTS_REFERENCE_H

#include "qa_event_reference.h"
#include "qa_letters_reference.h"
#include <gnuradio/bsid/core/channel/soft_input.h>
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace bsid {
namespace qa {

// A tiny case over A letters small enough for brute_force_letter_events:
// N, n <= 2, and the received word cut to at most max_rx items and 2e7 paths.
inline tiny_case letter_events_case(
    std::mt19937_64& rng, int A, bool matrix, bool priors, bool soft, size_t max_rx = 7)
{
    tiny_case tc = letters_case(rng, A, matrix, priors, false);
    while (tc.cb.n() * tc.N > 4)
        tc = letters_case(rng, A, matrix, priors, false);
    double msgs = 1;
    for (int i = 0; i < tc.N; ++i)
        msgs *= tc.cb.q();
    const int tau = tc.N * tc.cb.n();
    while (tc.y.size() > max_rx ||
           (tc.y.size() > 1 &&
            msgs * brute_force_paths(tau, int(tc.y.size()), soft, A) > 2e7))
        tc.y.pop_back();
    if (soft)
        make_soft_letters(tc, rng);
    return tc;
}

// The items' probabilities of a tiny case (A per item), or null for hard letters.
inline std::vector<double> case_probabilities(const tiny_case& tc)
{
    if (tc.llr.empty())
        return {};
    const int A = tc.ch.alphabet();
    std::vector<double> prob(size_t(A) * tc.y.size());
    received_items items;
    items.alphabet = A;
    items.logprob = tc.llr.data();
    item_probabilities(items, tc.y.size(), prob.data());
    return prob;
}

inline void expect_events_near(const event_counts& got,
                               const std::vector<double>& items,
                               const std::vector<double>& pairs,
                               const reference_events& ref,
                               double item_tol,
                               double tol,
                               const std::string& what)
{
    EXPECT_NEAR(got.ins, ref.ev.ins, tol) << what;
    EXPECT_NEAR(got.del, ref.ev.del, tol) << what;
    EXPECT_NEAR(got.trans, ref.ev.trans, tol) << what;
    EXPECT_NEAR(got.subst, ref.ev.subst, tol) << what;
    ASSERT_EQ(items.size(), ref.items.size()) << what;
    for (size_t j = 0; j < items.size(); ++j)
        EXPECT_NEAR(items[j], ref.items[j], item_tol) << what << " item entry " << j;
    ASSERT_EQ(pairs.size(), ref.pairs.size()) << what;
    double sum = 0, off = 0;
    const size_t A = size_t(std::lround(std::sqrt(double(pairs.size()))));
    for (size_t k = 0; k < pairs.size(); ++k) {
        EXPECT_NEAR(pairs[k], ref.pairs[k], tol) << what << " pair " << k;
        sum += pairs[k];
        off += k / A != k % A ? pairs[k] : 0.0;
    }
    // the counts add up to the transmissions and the substitutions
    EXPECT_NEAR(sum, got.trans, 1e-9 * (1 + got.trans)) << what;
    EXPECT_NEAR(off, got.subst, 1e-9 * (1 + got.trans)) << what;
}

// map_decoder's events over letters, with wide limits (every path)
inline void check_letter_events(backend_kind b, uint64_t seed, int trials)
{
    std::mt19937_64 rng(seed);
    int checked = 0;
    for (int trial = 0; trial < trials; ++trial) {
        const int A = trial % 3 == 0 ? 3 : trial % 3 == 1 ? 4 : 8;
        const bool matrix = trial % 2 == 1, soft = trial % 4 >= 2,
                   priors = trial % 5 == 4;
        const tiny_case tc = letter_events_case(rng, A, matrix, priors, soft);
        const int rho = int(tc.y.size()), tau = tc.N * tc.cb.n();
        const std::vector<double> prob = case_probabilities(tc);
        std::vector<double> pri = tc.priors;
        for (int i = 0; priors && i < tc.N; ++i) { // normalized rows for the reference
            double s = 0;
            for (int D = 0; D < tc.cb.q(); ++D)
                s += pri[size_t(i * tc.cb.q() + D)];
            for (int D = 0; D < tc.cb.q(); ++D)
                pri[size_t(i * tc.cb.q() + D)] /= s;
        }
        const reference_events ref =
            brute_force_letter_events(tc.cb,
                                      tc.N,
                                      tc.ch,
                                      tc.y.data(),
                                      soft ? prob.data() : nullptr,
                                      rho,
                                      priors ? pri.data() : nullptr);
        for (auto prec : letters_precisions) {
            for (auto st : letters_storages) {
                decoder_config cfg = letters_config(tc, b, prec, st);
                cfg.mtau = drift_range{ -tau, rho }; // every path
                cfg.mn = drift_range{ -tc.cb.n(), rho };
                auto dec = map_decoder::make(cfg);
                frame_view f = letters_view(tc, priors ? tc.priors.data() : nullptr);
                event_counts ev;
                std::vector<double> items(size_t(A) * size_t(rho), -1.0);
                std::vector<double> pairs(size_t(A * A), -1.0);
                f.events = &ev;
                f.item_posteriors = items.data();
                f.substitution_counts = pairs.data();
                std::vector<double> post(size_t(tc.N * tc.cb.q()));
                const frame_result r = dec->decode(f, post.data());
                ASSERT_TRUE(r.ok()) << r.reason;
                // double: the brute force's digits; float: the events are
                // summed in double, from alpha and beta over a float lattice
                const double item_tol = prec == precision_kind::dual ? 1e-9 : 1e-5;
                expect_events_near(ev,
                                   items,
                                   pairs,
                                   ref,
                                   item_tol,
                                   item_tol * (tau + rho),
                                   "trial " + std::to_string(trial) + " " +
                                       what(tc, prec, st) + (priors ? " priors" : ""));
                EXPECT_NEAR(ev.del + ev.trans, tau, 1e-9 * tau);
                ++checked;
            }
        }
    }
    EXPECT_EQ(checked, 4 * trials);
}

// frame_decoder's events over letters: a sync word of letters (its own
// lattice from every start) and the codewords' (the backend), with a start
// prior over two positions, against the brute force over W || X(D)
inline void check_letter_events_sync_word(backend_kind b, uint64_t seed, int trials)
{
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < trials; ++trial) {
        const int A = trial % 2 == 0 ? 3 : 4;
        const bool matrix = trial % 4 >= 2, soft = trial % 3 == 1;
        tiny_case tc = letter_events_case(rng, A, matrix, false, false);
        tc.N = 1;
        const std::vector<uint8_t> W = { 1, uint8_t(A - 1) };
        std::vector<int64_t> msg = { int64_t(rng() % uint64_t(tc.cb.q())) };
        std::vector<uint8_t> tx = W;
        const auto x = tc.cb.encode(msg.data(), msg.size());
        tx.insert(tx.end(), x.begin(), x.end());
        auto t = transmit(tc.ch, tx.data(), tx.size(), rng(), 0);
        while (t.rx.size() > 6)
            t.rx.pop_back();
        std::vector<uint8_t> rx = { uint8_t(rng() % uint64_t(A)) };
        rx.insert(rx.end(), t.rx.begin(), t.rx.end());
        tc.y = rx;
        tc.llr.clear();
        if (soft)
            make_soft_letters(tc, rng);
        const std::vector<double> prob = case_probabilities(tc);
        const int L = int(rx.size());
        const std::vector<std::pair<int, double>> starts = { { 0, 0.3 }, { 1, 0.7 } };
        const reference_events ref =
            brute_force_letter_events(tc.cb,
                                      1,
                                      tc.ch,
                                      rx.data(),
                                      soft ? prob.data() : nullptr,
                                      L,
                                      nullptr,
                                      W,
                                      starts);
        decoder_config cfg =
            letters_config(tc, b, precision_kind::dual, storage_kind::global);
        const int tau = 2 + tc.cb.n();
        cfg.mtau = drift_range{ -tau, L };
        cfg.mn = drift_range{ -tc.cb.n(), L };
        frame_decoder fd(cfg, W);
        frame_request r;
        if (soft)
            r.logprob = tc.llr.data();
        else
            r.bits = rx.data();
        r.L = size_t(L);
        r.start = position_weights{ { 0, 1 }, { 0.3, 0.7 } };
        r.events = true;
        r.substitution_counts = true;
        const frame_decode_result got = fd.decode(r);
        ASSERT_TRUE(got.result.ok()) << got.result.reason;
        expect_events_near(got.events,
                           got.item_posteriors,
                           got.substitution_counts,
                           ref,
                           1e-9,
                           1e-9 * (tau + L),
                           "trial " + std::to_string(trial) + " " +
                               what(tc, precision_kind::dual, storage_kind::global));
        EXPECT_NEAR(got.events.del + got.events.trans, tau, 1e-9 * tau);
    }
}

} // namespace qa
} // namespace bsid

#endif /* INCLUDED_BSID_QA_LETTER_EVENTS_REFERENCE_H */
