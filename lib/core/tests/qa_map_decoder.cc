/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU MAP decoder against an exact brute-force APP: for tiny codes, sum
// P(y | X(D)) over all q^N messages with the full-frame lattice. The
// reference is written here, independently of the decoder. Random cases are
// drawn from a seed printed at the start (set BSID_TEST_SEED to replay one).
// Every decoder here is built with backend "cpu", never "auto" (which is the
// GPU where there is one); lib/cuda/qa_map_decoder_cuda.cc checks the CUDA
// backend against the brute force and against this one. Every test that
// decodes frames also checks that the frames it expects to decode get status
// ok, so that a decoder that refuses every frame (uniform posteriors) fails.

#include "qa_reference.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/lattice.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gtest/gtest.h>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>

using namespace bsid;
using namespace bsid::qa;

namespace {

decoder_config cpu_config(const codebook& cb, const channel_params& ch, int N)
{
    decoder_config cfg(cb, ch, N);
    cfg.backend = backend_kind::cpu;
    return cfg;
}

decoder_config config_for(const tiny_case& tc, precision_kind p, storage_kind s)
{
    decoder_config cfg = cpu_config(tc.cb, tc.ch, tc.N);
    cfg.precision = p;
    cfg.storage = s;
    return cfg;
}


const precision_kind precisions[] = { precision_kind::dual, precision_kind::single };
const storage_kind storages[] = { storage_kind::global, storage_kind::local };

// The number of indices where the hard decisions of post (N x q) differ from msg.
int symbol_errors(const std::vector<double>& post, const std::vector<int64_t>& msg, int q)
{
    const int N = int(msg.size());
    std::vector<int32_t> d(msg.size());
    hard_decisions(post.data(), N, q, d.data());
    int errors = 0;
    for (int i = 0; i < N; ++i)
        errors += d[size_t(i)] != msg[size_t(i)];
    return errors;
}

/*
 * The status a received frame of rho bits must get on a channel where every
 * step of the lattice is possible (Pi > 0, Pd > 0, 0 < Ps < 1): empty for
 * rho = 0, drift_out_of_range for an end drift outside m_tau; otherwise every
 * word has positive probability as soon as N corridors can take the drift
 * from 0 to rho - tau (each codeword's change in [max(m_n^-, -n), m_n^+];
 * the boundaries in between stay between 0 and rho - tau, inside m_tau).
 */
frame_status status_on_a_full_channel(const map_decoder& dec, size_t rho)
{
    if (rho == 0)
        return frame_status::empty;
    const long long d = (long long)rho - dec.tau();
    if (!dec.limits().mtau.contains(d))
        return frame_status::drift_out_of_range;
    const drift_range& mn = dec.limits().mn;
    const long long lo = (long long)dec.N() * std::max(mn.lo, -dec.n());
    const long long hi = (long long)dec.N() * mn.hi;
    return d >= lo && d <= hi ? frame_status::ok : frame_status::impossible;
}

} // namespace

TEST(map_decoder, exact_against_brute_force_with_wide_limits)
{
    std::mt19937_64 rng(test_seed());
    for (int trial = 0; trial < 60; ++trial) {
        const tiny_case tc = random_case(rng, trial % 2 == 1);
        const auto ref = brute_force_app(tc, nullptr);
        for (auto p : precisions)
            for (auto s : storages) {
                auto cfg = config_for(tc, p, s);
                wide_limits(cfg, tc);
                auto dec = map_decoder::make(cfg);
                std::vector<double> post(size_t(tc.N * tc.cb.q()));
                const frame_view f{ tc.y.data(),
                                    tc.y.size(),
                                    tc.priors.empty() ? nullptr : tc.priors.data() };
                const auto r = dec->decode(f, post.data());
                ASSERT_TRUE(r.ok()) << r.reason;
                const double tol = p == precision_kind::dual ? 1e-9 : 1e-4;
                EXPECT_LT(max_abs_diff(post, ref), tol)
                    << "trial " << trial << " " << to_string(p) << " " << to_string(s)
                    << " N=" << tc.N << " n=" << tc.cb.n() << " q=" << tc.cb.q() << " "
                    << tc.ch.repr();
            }
    }
}

TEST(map_decoder, exact_against_restricted_reference_with_default_limits)
{
    std::mt19937_64 rng(test_seed() + 1);
    int decoded = 0;
    for (int trial = 0; trial < 60; ++trial) {
        const tiny_case tc = random_case(rng, trial % 2 == 0);
        for (auto p : precisions)
            for (auto s : storages) {
                auto dec = map_decoder::make(config_for(tc, p, s));
                std::vector<double> post(size_t(tc.N * tc.cb.q()));
                const frame_view f{ tc.y.data(),
                                    tc.y.size(),
                                    tc.priors.empty() ? nullptr : tc.priors.data() };
                const auto r = dec->decode(f, post.data());
                const auto ref = restricted_reference(tc, *dec, r);
                if (!ref)
                    continue;
                ASSERT_TRUE(r.ok()) << r.reason;
                ++decoded;
                EXPECT_LT(max_abs_diff(post, *ref),
                          p == precision_kind::dual ? 1e-9 : 1e-4)
                    << "trial " << trial << " " << to_string(p) << " " << to_string(s);
            }
    }
    EXPECT_GT(decoded, 100);
}

TEST(map_decoder, global_and_local_storage_are_identical)
{
    std::mt19937_64 rng(test_seed() + 2);
    const codebook cb = codebook::builtin("ld3-modvec6");
    for (double p : { 0.0, 0.01, 0.05 }) {
        const channel_params ch(p, p, p / 2);
        std::vector<int64_t> msg(40);
        for (auto& s : msg)
            s = int64_t(rng() % 16);
        const auto bits = cb.encode(msg.data(), msg.size());
        const auto t = transmit(ch, bits.data(), bits.size(), 7, uint64_t(p * 1000));
        for (auto prec : precisions) {
            std::vector<std::vector<double>> out;
            for (auto s : storages) {
                decoder_config cfg = cpu_config(cb, ch, 40);
                cfg.precision = prec;
                cfg.storage = s;
                auto dec = map_decoder::make(cfg);
                EXPECT_EQ(dec->backend(), backend_kind::cpu);
                EXPECT_EQ(dec->storage(), s);
                out.emplace_back(size_t(40 * 16));
                const auto r =
                    dec->decode({ t.rx.data(), t.rx.size(), nullptr }, out.back().data());
                ASSERT_TRUE(r.ok()) << "p=" << p << " " << to_string(prec) << " "
                                    << to_string(s) << ": " << r.reason;
                if (p == 0.0) {
                    // noiseless: the sent codewords, with certainty
                    EXPECT_EQ(symbol_errors(out.back(), msg, 16), 0) << to_string(prec);
                    for (int i = 0; i < 40; ++i)
                        EXPECT_EQ(out.back()[size_t(i * 16 + msg[size_t(i)])], 1.0) << i;
                }
            }
            EXPECT_EQ(out[0], out[1]) << "p=" << p; // bit-identical
        }
    }
}

TEST(map_decoder, batch_equals_repeated_decode_with_statuses)
{
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.01);
    const int N = 30;
    std::vector<std::vector<uint8_t>> frames;
    std::vector<std::vector<double>> priors;
    std::vector<std::vector<int64_t>> msgs;
    for (int k = 0; k < 9; ++k) {
        std::vector<int64_t> msg(N);
        for (int i = 0; i < N; ++i)
            msg[size_t(i)] = (i * 7 + k) % 16;
        const auto bits = cb.encode(msg.data(), msg.size());
        frames.push_back(transmit(ch, bits.data(), bits.size(), 3, uint64_t(k)).rx);
        msgs.push_back(msg);
    }
    frames[2].clear();                           // empty
    frames[4][5] = 7;                            // not a bit
    frames[6].resize(frames[6].size() + 200, 0); // drift far beyond the limits
    priors.assign(frames.size(), std::vector<double>(size_t(N * 16), 1.0));
    priors[1][3] = 50.0;
    decoder_config cfg = cpu_config(cb, ch, N);
    cfg.threads = 3;
    auto dec = map_decoder::make(cfg);
    std::vector<frame_view> views;
    std::vector<std::vector<double>> batch(frames.size(),
                                           std::vector<double>(size_t(N * 16)));
    std::vector<double*> outs;
    for (size_t k = 0; k < frames.size(); ++k) {
        views.push_back(
            { frames[k].data(), frames[k].size(), k % 2 ? priors[k].data() : nullptr });
        outs.push_back(batch[k].data());
    }
    const auto results = dec->decode_batch(views, outs);
    for (size_t k = 0; k < frames.size(); ++k) {
        std::vector<double> single(size_t(N * 16));
        const auto r = dec->decode(views[k], single.data());
        EXPECT_EQ(results[k].status, r.status) << k;
        EXPECT_EQ(results[k].reason, r.reason) << k;
        EXPECT_EQ(batch[k], single) << k;
    }
    EXPECT_EQ(results[2].status, frame_status::empty);
    EXPECT_EQ(results[4].status, frame_status::invalid_input);
    EXPECT_NE(results[4].reason.find("byte 7 at position 5"), std::string::npos);
    EXPECT_EQ(results[6].status, frame_status::drift_out_of_range);
    EXPECT_NE(results[6].reason.find("outside the drift limits"), std::string::npos);
    for (size_t k : { 0, 1, 3, 5, 7, 8 }) {
        EXPECT_TRUE(results[k].ok()) << k << ": " << results[k].reason;
        // decoded, not uniform: at Pi = Pd = Ps = 0.01 the decisions are the
        // message but for a rare symbol
        EXPECT_LE(symbol_errors(batch[k], msgs[k], 16), 2) << k;
    }
    for (size_t k : { 2, 4, 6 })
        for (double v : batch[k])
            EXPECT_EQ(v, 1.0 / 16) << k; // refused: uniform
}

TEST(map_decoder, impossible_frames)
{
    // A perfect channel cannot turn a codeword into a word outside the code.
    const codebook cb(3, { { 0, 7 } });
    decoder_config cfg = cpu_config(cb, channel_params(0, 0, 0), 2);
    for (auto p : precisions) {
        cfg.precision = p;
        auto dec = map_decoder::make(cfg);
        std::vector<double> post(4);
        const std::vector<uint8_t> good = { 1, 1, 1, 0, 0, 0 };
        ASSERT_TRUE(dec->decode({ good.data(), good.size(), nullptr }, post.data()).ok());
        EXPECT_EQ(post, (std::vector<double>{ 0, 1, 1, 0 }));
        const std::vector<uint8_t> bad = { 1, 0, 1, 0, 0, 0 };
        const auto r = dec->decode({ bad.data(), bad.size(), nullptr }, post.data());
        EXPECT_EQ(r.status, frame_status::impossible);
        EXPECT_NE(r.reason.find("probability 0"), std::string::npos) << r.reason;
        for (double v : post)
            EXPECT_EQ(v, 0.5);
    }
    // Priors that exclude the only consistent message make the frame impossible too.
    auto dec = map_decoder::make(cfg);
    const std::vector<uint8_t> good = { 1, 1, 1, 0, 0, 0 };
    const std::vector<double> pri = { 1, 0, 1, 0 }; // symbol 0 first: contradicts 111
    std::vector<double> post(4);
    EXPECT_EQ(dec->decode({ good.data(), good.size(), pri.data() }, post.data()).status,
              frame_status::impossible);
    // and priors that allow it change nothing
    const std::vector<double> allow = { 0, 1, 1, 0 };
    ASSERT_TRUE(
        dec->decode({ good.data(), good.size(), allow.data() }, post.data()).ok());
    EXPECT_EQ(post, (std::vector<double>{ 0, 1, 1, 0 }));
}

TEST(map_decoder, invalid_priors_and_limits_raise)
{
    const codebook cb = codebook::sparse(4, 4);
    const channel_params ch(0.01, 0.01, 0.0);
    auto dec = map_decoder::make(cpu_config(cb, ch, 2));
    const std::vector<uint8_t> y(8, 0);
    std::vector<double> post(8);
    auto expect_throw = [&](std::vector<double> pri, const std::string& what) {
        try {
            dec->decode({ y.data(), y.size(), pri.data() }, post.data());
            ADD_FAILURE() << "accepted priors; expected '" << what << "'";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
        }
    };
    expect_throw({ 1, 1, 1, 1, 1, -1, 1, 1 }, "priors[1][1] = -1");
    expect_throw({ 1, 1, NAN, 1, 1, 1, 1, 1 }, "priors[0][2] = nan");
    expect_throw({ 1, 1, 1, 1, 0, 0, 0, 0 }, "priors row 1 sums to 0");
    // not normalized is fine: rows are normalized (uniform rows: as without priors)
    const std::vector<double> scaled = { 2, 2, 2, 2, 5, 5, 5, 5 };
    std::vector<double> plain(8);
    ASSERT_TRUE(dec->decode({ y.data(), y.size(), nullptr }, plain.data()).ok());
    const auto r = dec->decode({ y.data(), y.size(), scaled.data() }, post.data());
    ASSERT_TRUE(r.ok()) << r.reason;
    EXPECT_LT(max_abs_diff(post, plain), 1e-6);
    // 00000000 is codeword 0 twice, the one word that needs no error
    EXPECT_GT(post[0], 0.9);
    EXPECT_GT(post[4], 0.9);

    decoder_config cfg = cpu_config(cb, ch, 2);
    cfg.mtau = drift_range{ -2, 2 };
    cfg.mn = drift_range{ 1, 2 };
    EXPECT_THROW(map_decoder::make(cfg), std::invalid_argument); // mn_lo > 0
    cfg.mn = drift_range{ -2, -1 };
    EXPECT_THROW(map_decoder::make(cfg), std::invalid_argument); // mn_hi < 0
    cfg.mn = drift_range{ -1, 1 };
    cfg.mtau = drift_range{ 1, 4 };
    EXPECT_THROW(map_decoder::make(cfg), std::invalid_argument); // mtau misses drift 0
    // a corridor wider than m_tau is a valid corridor: it bounds a drift change
    cfg.mtau = drift_range{ -2, 2 };
    cfg.mn = drift_range{ -3, 4 };
    EXPECT_EQ(map_decoder::make(cfg)->limits().mn, (drift_range{ -3, 4 }));
    cfg.mn = drift_range{ -1, 1 };
    EXPECT_EQ(map_decoder::make(cfg)->limits().mn, (drift_range{ -1, 1 }));
    decoder_config bad = cpu_config(cb, ch, 0);
    EXPECT_THROW(map_decoder::make(bad), std::invalid_argument);
    // backend "cuda" works where a GPU is usable, and is a clear error elsewhere
    decoder_config cuda(cb, ch, 2);
    cuda.backend = backend_kind::cuda;
    try {
        EXPECT_EQ(map_decoder::make(cuda)->backend(), backend_kind::cuda);
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("CUDA"), std::string::npos) << e.what();
    }
}

TEST(map_decoder, no_nan_on_hard_channels)
{
    // p = 0.4 and N = 1, float and double: posteriors stay finite and normalized.
    // Every step of the lattice is possible on these channels, so each frame
    // gets the one status its length allows (status_on_a_full_channel): a
    // refusal of a decodable frame fails, as does decoding a refused one.
    int decoded = 0;
    for (auto p : precisions) {
        for (double pr : { 0.2, 0.4 }) {
            const codebook cb = codebook::random(6, 8, 2, 11);
            const channel_params ch(pr, pr, 0.1);
            for (int N : { 1, 20 }) {
                decoder_config cfg = cpu_config(cb, ch, N);
                cfg.precision = p;
                auto dec = map_decoder::make(cfg);
                std::vector<int64_t> msg(static_cast<size_t>(N), 3);
                const auto bits = cb.encode(msg.data(), msg.size());
                for (uint64_t k = 0; k < 10; ++k) {
                    const auto t = transmit(ch, bits.data(), bits.size(), 5, k);
                    std::vector<double> post(size_t(N * 8));
                    const auto r =
                        dec->decode({ t.rx.data(), t.rx.size(), nullptr }, post.data());
                    const frame_status want = status_on_a_full_channel(*dec, t.rx.size());
                    EXPECT_EQ(r.status, want)
                        << to_string(p) << " p=" << pr << " N=" << N << " frame " << k
                        << " rho=" << t.rx.size() << ": " << r.reason;
                    decoded += r.ok();
                    for (int i = 0; i < N; ++i) {
                        double s = 0;
                        for (int D = 0; D < 8; ++D) {
                            ASSERT_TRUE(std::isfinite(post[size_t(i * 8 + D)]));
                            s += post[size_t(i * 8 + D)];
                        }
                        EXPECT_NEAR(s, 1.0, 1e-9) << r.reason;
                    }
                    if (!r.ok()) {
                        for (double v : post)
                            EXPECT_EQ(v, 1.0 / 8) << "refused: uniform";
                    }
                }
            }
        }
    }
    // most of these 80 frames are decodable: a test that decodes none tests nothing
    EXPECT_GT(decoded, 40);
}

TEST(map_decoder, truncation_effect_is_small)
{
    // Pr = 1e-10 limits against limits that hold every likely path: the
    // corridor moves posteriors a little, and never by much.
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    const int N = 50;
    std::vector<int64_t> msg(N);
    for (int i = 0; i < N; ++i)
        msg[size_t(i)] = (5 * i + 1) % 16;
    const auto bits = cb.encode(msg.data(), msg.size());
    const auto t = transmit(ch, bits.data(), bits.size(), 1, 0);
    decoder_config cfg = cpu_config(cb, ch, N);
    cfg.precision = precision_kind::dual;
    std::vector<double> a(size_t(N * 16)), b(size_t(N * 16));
    auto r =
        map_decoder::make(cfg)->decode({ t.rx.data(), t.rx.size(), nullptr }, a.data());
    ASSERT_TRUE(r.ok()) << r.reason;
    cfg.mtau = drift_range{ -120, 120 };
    cfg.mn = drift_range{ -8, 40 };
    r = map_decoder::make(cfg)->decode({ t.rx.data(), t.rx.size(), nullptr }, b.data());
    ASSERT_TRUE(r.ok()) << r.reason;
    // decoded, not uniform: at Pi = Pd = 0.01 the decisions are the message
    // but for a rare symbol
    EXPECT_LE(symbol_errors(a, msg, 16), 2);
    EXPECT_LE(symbol_errors(b, msg, 16), 2);
    const double diff = max_abs_diff(a, b);
    EXPECT_LT(diff, 1e-4);
    std::cout << "max |posterior change| from the Pr = 1e-10 limits: " << diff
              << std::endl;
}

TEST(map_decoder, hard_decisions_break_ties_low)
{
    const double post[] = { 0.1,
                            0.4,
                            0.4,
                            0.1, // exact tie: 1
                            0.25,
                            0.25 * (1 + 1e-13),
                            0.25,
                            0.25, // within 1e-12: 0
                            0.1,
                            0.2,
                            0.3 * (1 + 1e-9),
                            0.3, // a real winner: 2
                            0,
                            0,
                            0,
                            1 };
    int32_t out[4];
    hard_decisions(post, 4, 4, out);
    EXPECT_EQ(out[0], 1);
    EXPECT_EQ(out[1], 0);
    EXPECT_EQ(out[2], 2);
    EXPECT_EQ(out[3], 3);
}

TEST(map_decoder, published_state_space_and_cells)
{
    // S500: N=500, n=8, q=16, Pi=Pd=0.01, Pr=1e-10: m_n = [-7, 8] (Pr/4 for the
    // corridors) and m_tau = [-63, 64] (the union bound over 501 boundaries
    // with the rest), so N q M_tau (n M_n - m_n^- (m_n^- - 1)/2) = 500 16 128 (128 - 28).
    auto dec = map_decoder::make(
        cpu_config(codebook::builtin("ld3-modvec6"), channel_params(0.01, 0.01, 0), 500));
    EXPECT_EQ(dec->limits().mtau, (drift_range{ -63, 64 }));
    EXPECT_EQ(dec->limits().mn, (drift_range{ -7, 8 }));
    EXPECT_DOUBLE_EQ(dec->cells_per_frame(), 500.0 * 16 * 128 * 100);
}

TEST(map_decoder, log_priors_at_full_range)
{
    // log-domain priors: the same posteriors as the probabilities they stand
    // for (any constant per row), against the brute force on tiny codes, and
    // a log-prior ratio of 200 (1e-87, below float's range) not a hard zero
    std::mt19937_64 rng(test_seed() + 21);
    for (int trial = 0; trial < 20; ++trial) {
        tiny_case tc = random_case(rng, true);
        const int q = tc.cb.q();
        std::vector<double> lp(tc.priors.size());
        for (size_t k = 0; k < lp.size(); ++k)
            lp[k] = std::log(tc.priors[k]) + double(k / size_t(q)) * 7.0;
        // one symbol per row 200 below the others, in both forms
        for (int i = 0; i < tc.N; ++i) {
            lp[size_t(i) * q] -= 200.0;
            tc.priors[size_t(i) * q] *= std::exp(-200.0);
        }
        const auto ref = brute_force_app(tc, nullptr);
        decoder_config cfg = cpu_config(tc.cb, tc.ch, tc.N);
        const int rho = int(tc.y.size()), tau = tc.N * tc.cb.n();
        cfg.mtau = drift_range{ -tau, rho };
        cfg.mn = drift_range{ -tc.cb.n(), rho };
        for (auto p : { precision_kind::dual, precision_kind::single }) {
            cfg.precision = p;
            auto dec = map_decoder::make(cfg);
            std::vector<double> post(ref.size());
            const auto r =
                dec->decode({ tc.y.data(), tc.y.size(), lp.data(), true }, post.data());
            ASSERT_TRUE(r.ok()) << r.reason;
            EXPECT_LT(max_abs_diff(post, ref), p == precision_kind::dual ? 1e-9 : 1e-4)
                << trial;
            for (int i = 0; i < tc.N; ++i) {
                const double want = ref[size_t(i) * q];
                if (want > 0) {
                    // relative, far below 1e-38 in float too
                    EXPECT_NEAR(post[size_t(i) * q] / want,
                                1.0,
                                p == precision_kind::dual ? 1e-9 : 1e-4)
                        << trial << " " << i;
                }
            }
        }
    }
    // -inf is a zero prior; NaN, +inf and a row of -inf are refused with the entry named
    const codebook cb(3, { { 0, 7 } });
    auto dec = map_decoder::make(cpu_config(cb, channel_params(0.01, 0.01, 0), 2));
    const std::vector<uint8_t> y = { 1, 1, 1, 0, 0, 0 };
    std::vector<double> post(4);
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> lp = { 0, -inf, -3, 2 };
    ASSERT_TRUE(dec->decode({ y.data(), y.size(), lp.data(), true }, post.data()).ok());
    EXPECT_EQ(post[1], 0.0);
    EXPECT_EQ(post[0], 1.0);
    auto refused = [&](std::vector<double> v, const char* fragment) {
        try {
            dec->decode({ y.data(), y.size(), v.data(), true }, post.data());
            ADD_FAILURE() << "no exception for " << fragment;
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
                << e.what();
        }
    };
    refused({ 0, NAN, 0, 0 }, "log priors[0][1] = nan");
    refused({ 0, 0, inf, 0 }, "log priors[1][0] = inf");
    refused({ 0, 0, -inf, -inf }, "log priors row 1 is -inf everywhere");
}
