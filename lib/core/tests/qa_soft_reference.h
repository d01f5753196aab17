/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Test-only: the soft-input checks (docs/design.md section 3, "Soft input")
// shared by the CPU test (qa_soft_input.cc) and the CUDA test
// (lib/cuda/qa_map_decoder_cuda.cc), each run on one backend:
// - hard bits equal LLRs of +-infinity: tagged frames (both precisions and
//   storages, with priors), frame boundaries (sync word, spread start, free
//   end, look-ahead) and streams;
// - hard bits through a channel with Ps equal LLRs of +-ln((1 - Ps) / Ps)
//   through the same channel with Ps = 0;
// - the APPs of tiny codes with LLRs against the brute force (qa_reference.h);
// - NaN LLRs flag their frame only; LLRs of +-1e30 are hard bits.
// Tolerances: 1e-12 (double) and 1e-6 (float) for the identities, 1e-9 and
// 1e-4 against the brute force.

#ifndef INCLUDED_BSID_QA_SOFT_REFERENCE_H
#define INCLUDED_BSID_QA_SOFT_REFERENCE_H

#include "qa_frame_reference.h"
#include "qa_reference.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gtest/gtest.h>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace bsid {
namespace qa {

inline double identity_tol(precision_kind p)
{
    return p == precision_kind::dual ? 1e-12 : 1e-6;
}

//! Bits as LLRs of +-mag (mag = infinity: the hard bits themselves).
inline std::vector<double> llrs_of(const std::vector<uint8_t>& bits, double mag)
{
    std::vector<double> l(bits.size());
    for (size_t j = 0; j < bits.size(); ++j)
        l[j] = bits[j] ? mag : -mag;
    return l;
}

//! A frame of N random symbols of `cb` (with W before it) through `ch`.
inline std::vector<uint8_t> sent_frame(const codebook& cb,
                                       int N,
                                       const std::vector<uint8_t>& W,
                                       const channel_params& ch,
                                       uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<int64_t> msg(static_cast<size_t>(N));
    for (auto& s : msg)
        s = int64_t(rng() % uint64_t(cb.q()));
    std::vector<uint8_t> bits = W;
    const auto x = cb.encode(msg.data(), msg.size());
    bits.insert(bits.end(), x.begin(), x.end());
    return transmit(ch, bits.data(), bits.size(), seed, 1).rx;
}

//! A frame of LLRs, with optional priors.
inline frame_view soft_view(const std::vector<double>& llr,
                            const double* priors = nullptr)
{
    frame_view v;
    v.llr = llr.data();
    v.rho = llr.size();
    v.priors = priors;
    return v;
}

inline void expect_close(const std::vector<double>& a,
                         const std::vector<double>& b,
                         double tol,
                         const std::string& what)
{
    ASSERT_EQ(a.size(), b.size()) << what;
    for (size_t k = 0; k < a.size(); ++k)
        ASSERT_NEAR(a[k], b[k], tol) << what << ": entry " << k;
}

const precision_kind soft_precisions[] = { precision_kind::dual, precision_kind::single };
const storage_kind soft_storages[] = { storage_kind::global, storage_kind::local };

/*
 * Tagged frames: bits and the same frame as LLRs of +-infinity (and of
 * +-1e30), decoded in one batch, with and without priors.
 */
inline void check_hard_equals_infinite_llrs(backend_kind backend)
{
    const codebook cb = codebook::builtin("ld3-modvec6");
    const int N = 30;
    int checked = 0;
    for (const channel_params& ch :
         { channel_params(0.01, 0.01, 0.01), channel_params(0.03, 0.02, 0.0) }) {
        for (auto prec : soft_precisions)
            for (auto storage : soft_storages) {
                decoder_config cfg(cb, ch, N);
                cfg.backend = backend;
                cfg.precision = prec;
                cfg.storage = storage;
                auto dec = map_decoder::make(cfg);
                for (uint64_t seed = 1; seed <= 2; ++seed) {
                    const auto rx = sent_frame(cb, N, {}, ch, seed);
                    const auto inf_llr =
                        llrs_of(rx, std::numeric_limits<double>::infinity());
                    const auto big_llr = llrs_of(rx, 1e30);
                    std::vector<double> priors;
                    if (seed == 2) {
                        std::mt19937_64 g(seed);
                        for (int k = 0; k < N * cb.q(); ++k)
                            priors.push_back(0.05 + double(g() % 100) / 100);
                    }
                    const double* pr = priors.empty() ? nullptr : priors.data();
                    frame_view hard{ rx.data(), rx.size(), pr };
                    const frame_view soft = soft_view(inf_llr, pr);
                    const frame_view big = soft_view(big_llr, pr);
                    std::vector<std::vector<double>> post(
                        3, std::vector<double>(size_t(N * cb.q())));
                    const auto res = dec->decode_batch(
                        { hard, soft, big },
                        { post[0].data(), post[1].data(), post[2].data() });
                    const std::string what = to_string(prec) + " " + to_string(storage) +
                                             " seed " + std::to_string(seed);
                    for (const auto& r : res)
                        ASSERT_TRUE(r.ok()) << what << ": " << r.reason;
                    expect_close(post[1], post[0], identity_tol(prec), what + " +-inf");
                    expect_close(post[2], post[0], identity_tol(prec), what + " +-1e30");
                    // one frame alone too (the CUDA backend's batch of one)
                    std::vector<double> one(size_t(N * cb.q()));
                    ASSERT_TRUE(dec->decode(soft, one.data()).ok());
                    expect_close(one, post[0], identity_tol(prec), what + " alone");
                    ++checked;
                }
            }
    }
    EXPECT_EQ(checked, 16);
}

/*
 * Hard bits through a channel with Ps equal LLRs of +-ln((1 - Ps) / Ps)
 * through the same channel with Ps = 0 (the limits made equal: they do not
 * depend on Ps, but the test must not rely on it).
 */
inline void check_crossover_identity(backend_kind backend)
{
    const codebook cb = codebook::builtin("ld3-modvec6");
    const int N = 25;
    for (double Ps : { 0.01, 0.08 }) {
        const channel_params hard_ch(0.02, 0.01, Ps), soft_ch(0.02, 0.01, 0.0);
        for (auto prec : soft_precisions)
            for (auto storage : soft_storages) {
                decoder_config hc(cb, hard_ch, N), sc(cb, soft_ch, N);
                for (auto* c : { &hc, &sc }) {
                    c->backend = backend;
                    c->precision = prec;
                    c->storage = storage;
                    c->mtau = drift_range{ -12, 12 };
                    c->mn = drift_range{ -3, 4 };
                }
                auto hd = map_decoder::make(hc);
                auto sd = map_decoder::make(sc);
                const auto rx = sent_frame(cb, N, {}, hard_ch, 11);
                const auto llr = llrs_of(rx, std::log((1 - Ps) / Ps));
                std::vector<double> a(size_t(N * cb.q())), b(a.size());
                const auto ra = hd->decode(frame_view{ rx.data(), rx.size() }, a.data());
                const auto rb = sd->decode(soft_view(llr), b.data());
                const std::string what = "Ps " + std::to_string(Ps) + " " +
                                         to_string(prec) + " " + to_string(storage);
                ASSERT_TRUE(ra.ok()) << what << ": " << ra.reason;
                ASSERT_TRUE(rb.ok()) << what << ": " << rb.reason;
                expect_close(b, a, identity_tol(prec), what);
            }
    }
}

/*
 * Tiny codes with LLRs (qa::make_soft: random magnitudes, wrong signs,
 * +-infinity, +-1e30) against the brute force: the decoder's limits against
 * the restricted brute force, and limits that hold every path against the
 * whole lattice.
 */
inline void check_soft_brute_force(backend_kind backend)
{
    std::mt19937_64 rng(test_seed() + 71);
    int decoded = 0;
    for (int trial = 0; trial < 40; ++trial) {
        tiny_case tc = random_case(rng, trial % 2 == 0);
        make_soft(tc, rng);
        const long long rho = (long long)tc.llr.size(), tau = (long long)tc.N * tc.cb.n();
        for (bool wide : { false, true })
            for (auto prec : soft_precisions)
                for (auto storage : soft_storages) {
                    decoder_config cfg(tc.cb, tc.ch, tc.N);
                    cfg.backend = backend;
                    cfg.precision = prec;
                    cfg.storage = storage;
                    if (wide) {
                        cfg.mtau = drift_range{ -int(tau), int(rho) };
                        cfg.mn = drift_range{ -tc.cb.n(), int(rho) };
                    }
                    auto dec = map_decoder::make(cfg);
                    std::vector<double> post(size_t(tc.N * tc.cb.q()));
                    const frame_view f =
                        soft_view(tc.llr, tc.priors.empty() ? nullptr : tc.priors.data());
                    const auto r = dec->decode(f, post.data());
                    const std::string what = "trial " + std::to_string(trial) +
                                             (wide ? " wide " : " default ") +
                                             to_string(prec) + " " + to_string(storage);
                    if (!dec->limits().mtau.contains(rho - tau)) {
                        EXPECT_EQ(r.status, frame_status::drift_out_of_range) << what;
                        continue;
                    }
                    const auto ref = brute_force_app(tc, wide ? nullptr : &dec->limits());
                    double total = 0;
                    for (double v : ref)
                        total += v;
                    if (!std::isfinite(total)) { // zero probability
                        EXPECT_EQ(r.status, frame_status::impossible) << what << r.reason;
                        continue;
                    }
                    ASSERT_TRUE(r.ok()) << what << ": " << r.reason;
                    ++decoded;
                    EXPECT_LT(max_abs_diff(post, ref),
                              prec == precision_kind::dual ? 1e-9 : 1e-4)
                        << what;
                }
    }
    EXPECT_GT(decoded, 150);
}

/*
 * The frame decoder (sync word, spread start prior, free end, look-ahead
 * K = 1) and the stream decoder (frames back to back, chunks of 37 items)
 * give the same results for bits and for LLRs of +-infinity.
 */
inline void check_boundaries_and_streams_identity(backend_kind backend)
{
    const codebook cb = codebook::builtin("ld3-modvec6");
    const int N = 20;
    const auto W = parse_sync_word("01101001");
    const channel_params ch(0.01, 0.01, 0.01);
    for (auto prec : soft_precisions) {
        decoder_config cfg(cb, ch, N);
        cfg.backend = backend;
        cfg.precision = prec;
        auto dec = std::make_shared<frame_decoder>(cfg, W);
        const double tol = identity_tol(prec);
        // one segment: 3 bits, the frame, the next frame's start
        std::vector<uint8_t> rx = { 1, 0, 1 };
        for (uint64_t f = 0; f < 2; ++f) {
            const auto x = sent_frame(cb, N, W, ch, 40 + f);
            rx.insert(rx.end(), x.begin(), x.end());
        }
        const auto llr = llrs_of(rx, std::numeric_limits<double>::infinity());
        frame_request hr, sr;
        hr.bits = rx.data();
        sr.llr = llr.data();
        for (auto* r : { &hr, &sr }) {
            r->L = rx.size();
            r->start = position_weights{ { 0, 1, 2, 3, 4, 5 }, { 1, 1, 2, 4, 2, 1 } };
            r->end = end_mode::free;
            r->lookahead = 1;
        }
        const auto a = dec->decode(hr), b = dec->decode(sr);
        const std::string what = "frame decoder " + to_string(prec);
        ASSERT_TRUE(a.result.ok()) << what << ": " << a.result.reason;
        ASSERT_TRUE(b.result.ok()) << what << ": " << b.result.reason;
        expect_close(b.posteriors, a.posteriors, tol, what + " posteriors");
        expect_close(b.start.weights, a.start.weights, tol, what + " start");
        ASSERT_EQ(b.end_positions, a.end_positions) << what;
        expect_close(b.end_posterior, a.end_posterior, tol, what + " end");
        expect_close(b.end_forward, a.end_forward, tol, what + " forward end");
        EXPECT_NEAR(b.log_likelihood_ratio, a.log_likelihood_ratio, 1e3 * tol) << what;

        // a stream of 6 frames, bits and LLRs, pushed in chunks of 37 items
        std::vector<uint8_t> stream;
        for (uint64_t f = 0; f < 6; ++f) {
            const auto x = sent_frame(cb, N, W, ch, 60 + f);
            stream.insert(stream.end(), x.begin(), x.end());
        }
        const auto sl = llrs_of(stream, std::numeric_limits<double>::infinity());
        stream_options bo, so;
        so.input = input_kind::llr;
        stream_decoder bs(dec, bo), ss(dec, so);
        std::vector<stream_frame> fa, fb;
        for (size_t at = 0; at < stream.size(); at += 37) {
            const size_t c = std::min<size_t>(37, stream.size() - at);
            for (auto& f : bs.push(stream.data() + at, c))
                fa.push_back(std::move(f));
            for (auto& f : ss.push(sl.data() + at, c))
                fb.push_back(std::move(f));
        }
        for (auto& f : bs.flush())
            fa.push_back(std::move(f));
        for (auto& f : ss.flush())
            fb.push_back(std::move(f));
        ASSERT_EQ(fa.size(), fb.size()) << what;
        ASSERT_GE(fa.size(), 6u) << what;
        for (size_t k = 0; k < fa.size(); ++k) {
            const std::string wk =
                "stream " + to_string(prec) + " frame " + std::to_string(k);
            ASSERT_EQ(fa[k].result.status, fb[k].result.status) << wk;
            if (k < 6) {
                ASSERT_TRUE(fa[k].result.ok()) << wk << ": " << fa[k].result.reason;
            }
            EXPECT_EQ(fa[k].start, fb[k].start) << wk;
            EXPECT_EQ(fa[k].end, fb[k].end) << wk;
            expect_close(fb[k].posteriors, fa[k].posteriors, tol, wk);
        }
        EXPECT_EQ(ss.buffered() <= 2 * size_t(ss.frame_bits() + 64), true);
        EXPECT_THROW(ss.push(stream.data(), 1), std::invalid_argument); // bits to LLRs
    }
}

/*
 * A NaN LLR makes its frame an invalid_input erasure (finite, uniform
 * posteriors), and only its frame: in a batch, behind a sync word, in a
 * stream (frames in equal frames out).
 */
inline void check_bad_llrs(backend_kind backend)
{
    const codebook cb = codebook::builtin("ld3-modvec6");
    const int N = 20, Q = cb.q();
    const channel_params ch(0.01, 0.01, 0.01);
    decoder_config cfg(cb, ch, N);
    cfg.backend = backend;
    auto dec = map_decoder::make(cfg);
    const auto rx = sent_frame(cb, N, {}, ch, 5);
    auto good = llrs_of(rx, 4.0), bad = good;
    bad[5] = std::nan("");
    std::vector<std::vector<double>> post(3, std::vector<double>(size_t(N * Q)));
    const auto res =
        dec->decode_batch({ soft_view(good), soft_view(bad), soft_view(good) },
                          { post[0].data(), post[1].data(), post[2].data() });
    ASSERT_TRUE(res[0].ok()) << res[0].reason;
    ASSERT_TRUE(res[2].ok()) << res[2].reason;
    EXPECT_EQ(res[1].status, frame_status::invalid_input);
    EXPECT_NE(res[1].reason.find("position 5"), std::string::npos) << res[1].reason;
    for (double v : post[1])
        ASSERT_EQ(v, 1.0 / Q);
    expect_close(post[2], post[0], 0.0, "the frames around a NaN frame");

    // behind a sync word: a NaN inside W's bits
    const auto W = parse_sync_word("0110100111010010");
    decoder_config fc(cb, ch, N);
    fc.backend = backend;
    auto fdec = std::make_shared<frame_decoder>(fc, W);
    auto wrx = sent_frame(cb, N, W, ch, 6);
    auto wl = llrs_of(wrx, 3.0);
    wl[1] = std::nan("");
    frame_request r;
    r.llr = wl.data();
    r.L = wl.size();
    const auto got = fdec->decode(r);
    EXPECT_EQ(got.result.status, frame_status::invalid_input) << got.result.reason;
    for (double v : got.posteriors)
        ASSERT_TRUE(std::isfinite(v));

    // a stream of 6 frames with a NaN in frame 2: one erasure, 6 frames out,
    // re-acquired (by search) after it
    std::vector<uint8_t> stream;
    std::vector<long long> starts;
    for (uint64_t f = 0; f < 6; ++f) {
        starts.push_back((long long)stream.size());
        const auto x = sent_frame(cb, N, W, ch, 80 + f);
        stream.insert(stream.end(), x.begin(), x.end());
    }
    auto sl = llrs_of(stream, 5.0);
    sl[size_t(starts[2] + 30)] = std::nan("");
    stream_options so;
    so.input = input_kind::llr;
    stream_decoder sd(fdec, so);
    auto out = sd.push(sl.data(), sl.size());
    for (auto& f : sd.flush())
        out.push_back(std::move(f));
    ASSERT_EQ(out.size(), 6u);
    int invalid = 0;
    for (const auto& f : out) {
        for (double v : f.posteriors)
            ASSERT_TRUE(std::isfinite(v));
        invalid += f.result.status == frame_status::invalid_input;
    }
    EXPECT_EQ(invalid, 1);
    EXPECT_EQ(out[2].result.status, frame_status::invalid_input) << out[2].result.reason;
    for (size_t k : { 0, 1, 3, 4, 5 })
        EXPECT_TRUE(out[k].result.ok()) << k << ": " << out[k].result.reason;
    EXPECT_TRUE(out[3].acquired);
}

} // namespace qa
} // namespace bsid

#endif /* INCLUDED_BSID_QA_SOFT_REFERENCE_H */
