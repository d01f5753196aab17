/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The brute-force reference of frame_decoder (docs/design.md section 3,
// "Frame boundaries"), shared by the CPU and CUDA tests: every message,
// every start and every end of a tiny frame, weighed by
//   P(D) pi(s) R(rx[s:e] | W || X(D)) T(e)
// with R the full, unconstrained lattice and T summed over every look-ahead
// message and end. Quadratic and exponential: tiny codes only. Soft input
// (LLRs; log-probabilities over A > 2 letters) and every alphabet of more
// than two letters go through qa_reference.h's own lattice (corridor_R),
// written from the model independently of the library; random letters weigh
// 1/A each.

#ifndef INCLUDED_BSID_QA_FRAME_REFERENCE_H
#define INCLUDED_BSID_QA_FRAME_REFERENCE_H

#include "qa_reference.h"
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/inner/lattice.h>
#include <gtest/gtest.h>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace bsid {
namespace qa {

struct frame_reference {
    std::vector<double> post;     // N q
    std::vector<double> start;    // over the request's start positions, sorted
    std::vector<double> end, fwd; // over positions 0 .. L
    double log_evidence = 0;      // ln of the total weight
    double log_lr = 0;            // ln sum_s pi(s) Z_s 2^(L - s)
};

// W || X(D) for the message `msg` (symbols), books from index 0, as letters
inline std::vector<uint8_t>
sent_bits(const codebook& cb, const std::vector<uint8_t>& W, const std::vector<int>& msg)
{
    std::vector<uint8_t> x = W;
    for (size_t i = 0; i < msg.size(); ++i) {
        const auto w = letters_of(cb.word(i, msg[i]), cb.n(), cb.alphabet());
        x.insert(x.end(), w.begin(), w.end());
    }
    return x;
}

// what one item weighs against: 2 for bits, A for letters
inline double random_letter_count(const channel_params& ch) { return ch.alphabet(); }

/*
 * The last row of the full lattice of x against rx[from : from + len]: the
 * library's for bits, qa_reference.h's independent corridor_R (one call per
 * column, a corridor no path leaves) for LLRs and for letters (hard, or A
 * log-probabilities per item in `llr`).
 */
inline std::vector<double> last_row(const channel_params& ch,
                                    const std::vector<uint8_t>& x,
                                    const std::vector<uint8_t>& rx,
                                    const std::vector<double>& llr,
                                    long long from,
                                    long long len)
{
    if (llr.empty() && ch.alphabet() == 2)
        return full_lattice_last_row(
            ch, x.data(), x.size(), rx.data() + from, size_t(len));
    const size_t width = ch.alphabet() == 2 ? 1 : size_t(ch.alphabet());
    std::vector<double> row(size_t(len + 1));
    for (long long c = 0; c <= len; ++c)
        row[size_t(c)] =
            corridor_R(ch,
                       x,
                       llr.empty() ? rx.data() + from : nullptr,
                       int(c),
                       -int(x.size()),
                       int(c),
                       llr.empty() ? nullptr : llr.data() + size_t(from) * width);
    return row;
}

// every message of `count` symbols, in turn
template <typename F>
void each_message(int count, int q, F f)
{
    std::vector<int> msg(size_t(count), 0);
    while (true) {
        f(msg);
        int i = 0;
        while (i < count && ++msg[size_t(i)] == q)
            msg[size_t(i++)] = 0;
        if (i == count)
            return;
    }
}

inline frame_reference
brute_force(const codebook& cb,
            const channel_params& ch,
            int N,
            const std::vector<uint8_t>& W,
            const std::vector<uint8_t>& rx,
            std::vector<double> priors,    // N q, or empty
            const position_weights& start, // sorted
            end_mode end,
            int K,
            const std::vector<double>& llr = {}) // soft: replaces rx
{
    const int q = cb.q();
    const double A = random_letter_count(ch);
    const size_t width = ch.alphabet() == 2 ? 1 : size_t(ch.alphabet());
    for (size_t i = 0; i < priors.size() / size_t(q); ++i) {
        // rows normalized, as P(D) (the evidence depends on it)
        double sum = 0;
        for (int D = 0; D < q; ++D)
            sum += priors[i * size_t(q) + size_t(D)];
        for (int D = 0; D < q; ++D)
            priors[i * size_t(q) + size_t(D)] /= sum;
    }
    const long long L = (long long)(llr.empty() ? rx.size() : llr.size() / width);
    // T(e): known: 1 at L; free: the next frame's W and K symbols, then random
    // letters
    std::vector<double> T(size_t(L + 1), 0.0);
    if (end == end_mode::known) {
        T[size_t(L)] = 1.0;
    } else {
        for (long long e = 0; e <= L; ++e) {
            double t = 0;
            each_message(K, q, [&](const std::vector<int>& m2) {
                const auto x = sent_bits(cb, W, m2);
                const auto row = last_row(ch, x, rx, llr, e, L - e);
                for (long long c = 0; c <= L - e; ++c)
                    t += std::pow(double(q), -K) * row[size_t(c)] *
                         std::pow(A, -double(L - e - c));
            });
            T[size_t(e)] = t;
        }
    }
    frame_reference ref;
    ref.post.assign(size_t(N) * q, 0.0);
    ref.start.assign(start.positions.size(), 0.0);
    ref.end.assign(size_t(L + 1), 0.0);
    ref.fwd.assign(size_t(L + 1), 0.0);
    double total = 0, total_fwd = 0;
    each_message(N, q, [&](const std::vector<int>& msg) {
        double pD = priors.empty() ? std::pow(double(q), -N) : 1.0; // P(D)
        for (int i = 0; i < N && !priors.empty(); ++i)
            pD *= priors[size_t(i) * q + size_t(msg[size_t(i)])];
        const auto x = sent_bits(cb, W, msg);
        for (size_t k = 0; k < start.positions.size(); ++k) {
            const long long s = start.positions[k];
            const auto row = last_row(ch, x, rx, llr, s, L - s);
            for (long long c = 0; c <= L - s; ++c) {
                const double f = pD * start.weights[k] * row[size_t(c)];
                const double v = f * T[size_t(s + c)];
                ref.fwd[size_t(s + c)] += f;
                total_fwd += f;
                ref.start[k] += v;
                ref.end[size_t(s + c)] += v;
                for (int i = 0; i < N; ++i)
                    ref.post[size_t(i) * q + size_t(msg[size_t(i)])] += v;
                total += v;
            }
        }
    });
    ref.log_evidence = std::log(total);
    double lr = 0;
    for (size_t k = 0; k < start.positions.size(); ++k)
        lr += ref.start[k] * std::pow(A, double(L - start.positions[k]));
    ref.log_lr = std::log(lr);
    for (auto* v : { &ref.post, &ref.start, &ref.end })
        for (double& x : *v)
            x = total > 0 ? x / total : 0.0;
    for (double& x : ref.fwd)
        x = total_fwd > 0 ? x / total_fwd : 0.0;
    if (end == end_mode::known)
        std::fill(ref.fwd.begin(), ref.fwd.end(), 0.0), ref.fwd[size_t(L)] = 1.0;
    // the posteriors: N rows of the marginals, each summing to 1
    return ref;
}

/*
 * Decodes with `dec` and compares every output with the brute force within
 * `tol` (absolute, on probabilities).
 */
inline void expect_matches_reference(frame_decoder& dec,
                                     const std::vector<uint8_t>& rx,
                                     const std::vector<double>& priors,
                                     const std::optional<position_weights>& start,
                                     end_mode end,
                                     int K,
                                     double tol,
                                     const std::string& what,
                                     const std::vector<double>& llr = {})
{
    frame_request r;
    const int A = dec.config().ch.alphabet();
    if (llr.empty())
        r.bits = rx.data();
    else if (A == 2)
        r.llr = llr.data();
    else
        r.logprob = llr.data();
    r.L = llr.empty() ? rx.size() : A == 2 ? llr.size() : llr.size() / size_t(A);
    r.priors = priors.empty() ? nullptr : priors.data();
    r.start = start;
    r.end = end;
    r.lookahead = K;
    const frame_decode_result got = dec.decode(r);
    ASSERT_TRUE(got.result.ok()) << what << ": " << got.result.reason;
    position_weights sp = start ? *start : position_weights{ { 0 }, { 1.0 } };
    double sum = 0;
    for (double w : sp.weights)
        sum += w;
    for (double& w : sp.weights)
        w /= sum;
    const auto ref = brute_force(dec.config().cb,
                                 dec.config().ch,
                                 dec.N(),
                                 dec.sync_word(),
                                 rx,
                                 priors,
                                 sp,
                                 end,
                                 K,
                                 llr);
    ASSERT_EQ(got.posteriors.size(), ref.post.size());
    for (size_t k = 0; k < ref.post.size(); ++k)
        ASSERT_NEAR(got.posteriors[k], ref.post[k], tol) << what << ": posterior " << k;
    // the evidence, and against random bits (relative 1e-9 in double)
    ASSERT_NEAR(got.log_evidence, ref.log_evidence, std::max(tol, 1e-9) * 10)
        << what << ": log evidence";
    ASSERT_NEAR(got.log_likelihood_ratio, ref.log_lr, std::max(tol, 1e-9) * 10)
        << what << ": log-likelihood ratio against random bits";
    ASSERT_EQ(got.start.positions, sp.positions) << what;
    for (size_t k = 0; k < ref.start.size(); ++k)
        ASSERT_NEAR(got.start.weights[k], ref.start[k], tol) << what << ": start " << k;
    // the ends the decoder lists, and nothing of the reference outside them
    std::vector<double> end_got(r.L + 1, 0.0), fwd_got(r.L + 1, 0.0);
    for (size_t k = 0; k < got.end_positions.size(); ++k) {
        const long long e = got.end_positions[k];
        ASSERT_TRUE(e >= 0 && e <= (long long)r.L) << what << ": end position " << e;
        end_got[size_t(e)] = got.end_posterior[k];
        fwd_got[size_t(e)] = got.end_forward[k];
    }
    for (size_t e = 0; e <= r.L; ++e) {
        ASSERT_NEAR(end_got[e], ref.end[e], tol) << what << ": end posterior at " << e;
        ASSERT_NEAR(fwd_got[e], ref.fwd[e], tol)
            << what << ": forward end metric at " << e;
    }
}

// a tiny code: n = 3, q = 2, P = 1 (so a look-ahead of K = 2 > P), for N = 2
inline codebook tiny_code() { return codebook(3, { { 0b011, 0b100 } }); }

// limits that hold every path of a segment of L bits
inline decoder_config covering(const codebook& cb,
                               const channel_params& ch,
                               int N,
                               int L,
                               int G,
                               backend_kind backend)
{
    decoder_config cfg(cb, ch, N);
    cfg.backend = backend;
    cfg.mtau = drift_range{ -(N * cb.n() + G), L };
    cfg.mn = drift_range{ -cb.n(), L };
    return cfg;
}

/*
 * Every boundary model against the brute force on one backend, for the code
 * cb over the channel ch (its alphabet) with each sync word of `words`
 * (parse_sync_word over the alphabet): float and double; global and local
 * storage; start at 0 and a spread start prior; known end, and free ends
 * with K = 0, 1, 2; uniform and random symbol priors; hard items, or with
 * soft, LLRs (bits) or A log-probabilities per item (letters) of random
 * confidence, some of them hard. Tolerances 1e-9 (double) and 1e-4 (float).
 */
inline void check_boundary_models(backend_kind backend,
                                  const codebook& cb,
                                  const channel_params& ch,
                                  const std::vector<std::string>& words,
                                  uint32_t seed,
                                  bool soft)
{
    const int N = 2;
    const int A = ch.alphabet();
    std::mt19937 g(seed);
    for (const std::string& W : words) {
        const auto sync = parse_sync_word(W, A);
        for (auto prec : { precision_kind::dual, precision_kind::single }) {
            for (auto storage : { storage_kind::global, storage_kind::local }) {
                const double tol = prec == precision_kind::dual ? 1e-9 : 1e-4;
                const int L = 9 + int(sync.size());
                decoder_config cfg = covering(cb, ch, N, L, int(sync.size()), backend);
                cfg.precision = prec;
                cfg.storage = storage;
                frame_decoder dec(cfg, sync);
                for (int trial = 0; trial < 3; ++trial) {
                    std::vector<uint8_t> rx(static_cast<size_t>(L));
                    for (auto& b : rx)
                        b = uint8_t(A == 2 ? g() & 1u : g() % unsigned(A));
                    // soft: LLRs of random magnitude, signs from rx, some
                    // hard; letters: rx's letter the likeliest, some
                    // letters impossible, some items hard
                    std::vector<double> llr;
                    for (size_t j = 0; soft && j < rx.size(); ++j) {
                        const bool hard = g() % 7 == 0;
                        if (A == 2) {
                            const double mag =
                                hard ? std::numeric_limits<double>::infinity()
                                     : double(g() % 1000) / 125.0;
                            llr.push_back(rx[j] ? mag : -mag);
                            continue;
                        }
                        for (int y = 0; y < A; ++y) {
                            const bool none = hard || g() % 5 == 0;
                            llr.push_back(y == rx[j] ? double(g() % 100) / 50.0
                                          : none
                                              ? -std::numeric_limits<double>::infinity()
                                              : -double(g() % 1000) / 200.0);
                        }
                    }
                    std::vector<double> priors;
                    if (trial == 2) {
                        for (int k = 0; k < N * cb.q(); ++k)
                            priors.push_back(0.1 + double(g() % 100) / 100);
                    }
                    const position_weights spread{ { 0, 1, 3 }, { 0.5, 0.2, 0.3 } };
                    for (const auto& start :
                         { std::optional<position_weights>{},
                           std::optional<position_weights>{ spread } }) {
                        const std::string what =
                            "A=" + std::to_string(A) + " " + ch.repr() + " W='" + W +
                            "' " + to_string(prec) + " " + to_string(storage) +
                            " trial " + std::to_string(trial) +
                            (start ? " spread start" : " start 0");
                        expect_matches_reference(dec,
                                                 rx,
                                                 priors,
                                                 start,
                                                 end_mode::known,
                                                 0,
                                                 tol,
                                                 what + " known",
                                                 llr);
                        for (int K : { 0, 1, 2 }) {
                            expect_matches_reference(dec,
                                                     rx,
                                                     priors,
                                                     start,
                                                     end_mode::free,
                                                     K,
                                                     tol,
                                                     what +
                                                         " free K=" + std::to_string(K),
                                                     llr);
                        }
                    }
                }
            }
        }
    }
}

// check_boundary_models on the binary tiny code, with no sync word and G = 3
inline void
check_every_boundary_model(backend_kind backend, uint32_t seed = 0, bool soft = false)
{
    check_boundary_models(backend,
                          tiny_code(),
                          channel_params(0.1, 0.15, 0.05),
                          { "", "101" },
                          seed ? seed : uint32_t(12345),
                          soft);
}

} // namespace qa
} // namespace bsid

#endif /* INCLUDED_BSID_QA_FRAME_REFERENCE_H */
