/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Channel estimation (docs/design.md section 3, "Channel estimation") on the CPU backend:
// the E-step's expected events and item posteriors against a brute-force enumeration of
// every path (qa_event_reference.h), hard and soft, with and without priors, in both
// precisions and storage modes; EM's log-likelihood never decreasing; recovery of known
// channels; bad input.

#include "qa_event_reference.h"
#include "qa_reference.h"
#include "qa_sanitized.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/estimation/channel_estimator.h>
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <gtest/gtest.h>
#include <cmath>
#include <random>
#include <stdexcept>

using namespace bsid;
using namespace bsid::qa;

namespace {

TEST(channel_estimation, expected_events_equal_the_brute_force)
{
    std::mt19937_64 rng(test_seed());
    int checked = 0;
    const int trials = sanitized ? 8 : 40;
    for (int trial = 0; trial < trials; ++trial) {
        const bool soft = trial % 2 == 1, priors = trial % 3 == 2;
        // under a sanitizer (many times slower) shorter frames: the paths
        // to enumerate grow about fourfold per received item
        const events_case c = tiny_events_case(rng, soft, priors, sanitized ? 8 : 12);
        const int rho = int(c.rx.size()), tau = c.N * c.cb.n();
        const reference_events ref =
            brute_force_events(c.cb,
                               c.N,
                               c.ch,
                               c.rx.data(),
                               soft ? c.llr.data() : nullptr,
                               rho,
                               priors ? c.prior.data() : nullptr);
        for (auto prec : { precision_kind::dual, precision_kind::single }) {
            for (auto st : { storage_kind::global, storage_kind::local }) {
                auto dec =
                    map_decoder::make(every_path_config(c, backend_kind::cpu, prec, st));
                frame_view f = case_frame(c, soft, priors);
                event_counts ev;
                std::vector<double> items(2 * size_t(rho), -1.0);
                f.events = &ev;
                f.item_posteriors = items.data();
                std::vector<double> post(size_t(c.N * c.cb.q()));
                const frame_result r = dec->decode(f, post.data());
                ASSERT_TRUE(r.ok()) << r.reason;
                // double: the brute force's digits; float: the events are
                // summed in double, from alpha and beta over a float lattice
                const double item_tol = prec == precision_kind::dual ? 1e-9 : 1e-5;
                const double tol = item_tol * (tau + rho);
                const std::string what =
                    "trial " + std::to_string(trial) + (soft ? " soft" : " hard") +
                    (priors ? " priors " : " ") + to_string(prec) + " " + to_string(st);
                EXPECT_NEAR(ev.ins, ref.ev.ins, tol) << what;
                EXPECT_NEAR(ev.del, ref.ev.del, tol) << what;
                EXPECT_NEAR(ev.trans, ref.ev.trans, tol) << what;
                EXPECT_NEAR(ev.subst, ref.ev.subst, tol) << what;
                for (size_t j = 0; j < items.size(); ++j)
                    EXPECT_NEAR(items[j], ref.items[j], item_tol)
                        << what << " item " << j;
                // every sent bit is deleted or transmitted
                EXPECT_NEAR(ev.del + ev.trans, tau, 1e-9 * tau) << what;
                // the counts alone (no item posteriors: the forward pass of
                // counts) and no symbol posteriors: the same events and evidence
                event_counts ev2;
                double lev = 0, lev2 = 0;
                f.log_evidence = &lev;
                ASSERT_TRUE(dec->decode(f, post.data()).ok());
                frame_view g = f;
                g.events = &ev2;
                g.item_posteriors = nullptr;
                g.posteriors = false;
                g.log_evidence = &lev2;
                const frame_result r2 = dec->decode(g, post.data());
                ASSERT_TRUE(r2.ok()) << r2.reason;
                EXPECT_EQ(lev, lev2) << what;
                EXPECT_NEAR(ev2.ins, ref.ev.ins, tol) << what << " counts";
                EXPECT_NEAR(ev2.del, ref.ev.del, tol) << what << " counts";
                EXPECT_NEAR(ev2.trans, ref.ev.trans, tol) << what << " counts";
                EXPECT_NEAR(ev2.subst, ref.ev.subst, tol) << what << " counts";
                for (double p : post)
                    EXPECT_EQ(p, 1.0 / c.cb.q()) << what << ": posteriors not asked for";
                ++checked;
            }
        }
    }
    EXPECT_EQ(checked, 4 * trials);
}

TEST(channel_estimation, frame_decoder_events_with_a_sync_word_and_a_start_prior)
{
    // the sync word's events (its own lattice from every start) and the
    // codewords' (the backend), against the brute force over W || X(D)
    std::mt19937_64 rng(test_seed() + 1);
    const int trials = sanitized ? 4 : 12;
    for (int trial = 0; trial < trials; ++trial) {
        const bool soft = trial % 2 == 1;
        events_case c = tiny_events_case(rng, soft, false);
        c.N = 1 + trial % 2; // W and at most 6 codeword bits: tau <= 8
        c.cb = codebook::random(2 + (trial / 2) % 2, 2 + int(rng() % 2), 1, rng());
        if (c.N * c.cb.n() > 6)
            c.N = 1;
        const std::vector<uint8_t> W = { 1, 0 };
        // the segment: one item before the frame, then W || X(D) through the channel
        std::vector<int64_t> msg(static_cast<size_t>(c.N));
        for (auto& m : msg)
            m = int64_t(rng() % uint64_t(c.cb.q()));
        std::vector<uint8_t> tx = W;
        const auto bits = c.cb.encode(msg.data(), msg.size());
        tx.insert(tx.end(), bits.begin(), bits.end());
        auto t = transmit(c.ch, tx.data(), tx.size(), rng(), 0);
        while (t.rx.size() > 8)
            t.rx.pop_back();
        std::vector<uint8_t> rx = { uint8_t(rng() & 1) };
        rx.insert(rx.end(), t.rx.begin(), t.rx.end());
        std::vector<double> llr;
        for (uint8_t b : rx)
            llr.push_back((b ? 1.0 : -1.0) * (0.3 + 3 * double(rng() % 100) / 100));
        const int L = int(rx.size());
        const std::vector<std::pair<int, double>> starts = { { 0, 0.3 }, { 1, 0.7 } };
        const reference_events ref = brute_force_events(c.cb,
                                                        c.N,
                                                        c.ch,
                                                        rx.data(),
                                                        soft ? llr.data() : nullptr,
                                                        L,
                                                        nullptr,
                                                        W,
                                                        starts);
        decoder_config cfg(c.cb, c.ch, c.N);
        cfg.backend = backend_kind::cpu;
        cfg.precision = precision_kind::dual;
        const int tau = 2 + c.N * c.cb.n();
        cfg.mtau = drift_range{ -tau, L };
        cfg.mn = drift_range{ -c.cb.n(), L };
        frame_decoder fd(cfg, W);
        frame_request r;
        if (soft)
            r.llr = llr.data();
        else
            r.bits = rx.data();
        r.L = size_t(L);
        r.start = position_weights{ { 0, 1 }, { 0.3, 0.7 } };
        r.events = true;
        const frame_decode_result got = fd.decode(r);
        ASSERT_TRUE(got.result.ok()) << got.result.reason;
        const std::string what =
            "trial " + std::to_string(trial) + (soft ? " soft" : " hard");
        const double tol = 1e-9 * (tau + L);
        EXPECT_NEAR(got.events.ins, ref.ev.ins, tol) << what;
        EXPECT_NEAR(got.events.del, ref.ev.del, tol) << what;
        EXPECT_NEAR(got.events.trans, ref.ev.trans, tol) << what;
        EXPECT_NEAR(got.events.subst, ref.ev.subst, tol) << what;
        ASSERT_EQ(got.item_posteriors.size(), 2 * size_t(L));
        for (size_t j = 0; j < got.item_posteriors.size(); ++j)
            EXPECT_NEAR(got.item_posteriors[j], ref.items[j], 1e-9)
                << what << " item " << j;
        EXPECT_NEAR(got.events.del + got.events.trans, tau, 1e-9 * tau) << what;
    }
}

// Frames of N random symbols of cb through ch (frame k of seed), as bits
// and as BPSK LLRs with noise deviation sigma (LLR 2 y / sigma^2).
struct frame_set {
    std::vector<std::vector<uint8_t>> rx;
    std::vector<std::vector<double>> llr;
    std::vector<frame_view> views(bool soft) const
    {
        std::vector<frame_view> v;
        for (size_t k = 0; k < rx.size(); ++k) {
            frame_view f;
            if (soft)
                f.llr = llr[k].data();
            else
                f.bits = rx[k].data();
            f.rho = rx[k].size();
            v.push_back(f);
        }
        return v;
    }
};

frame_set make_frames(const codebook& cb,
                      int N,
                      const channel_params& ch,
                      uint64_t seed,
                      int count,
                      double sigma = 0.6)
{
    frame_set fs;
    philox_stream src(seed, 99);
    std::mt19937_64 noise_rng(seed);
    std::normal_distribution<double> noise(0.0, sigma);
    std::vector<int64_t> msg(static_cast<size_t>(N));
    for (int k = 0; k < count; ++k) {
        for (auto& d : msg)
            d = int64_t(src.next_u32() % uint32_t(cb.q()));
        const auto bits = cb.encode(msg.data(), msg.size());
        fs.rx.push_back(transmit(ch, bits.data(), bits.size(), seed, uint64_t(k)).rx);
        std::vector<double> l;
        for (uint8_t b : fs.rx.back())
            l.push_back(2.0 * (2.0 * b - 1.0 + noise(noise_rng)) / (sigma * sigma));
        fs.llr.push_back(std::move(l));
    }
    return fs;
}

decoder_config estimation_config(const codebook& cb, const channel_params& initial, int N)
{
    decoder_config cfg(cb, initial, N);
    cfg.backend = backend_kind::cpu;
    cfg.precision = precision_kind::dual;
    return cfg;
}


TEST(channel_estimation, log_likelihood_never_decreases)
{
    const codebook cb = codebook::from_spec("builtin:ld3-modvec6");
    const int N = sanitized ? 12 : 40, count = sanitized ? 4 : 12;
    const uint64_t base = test_seed();
    for (uint64_t s = 0; s < 3; ++s) {
        for (const bool soft : { false, true }) {
            const frame_set fs =
                make_frames(cb, N, channel_params(0.04, 0.02, 0.02), base + s, count);
            estimate_options opt;
            opt.iterations = sanitized ? 3 : 8;
            opt.tolerance = 0; // every iteration
            opt.llr_scale = 0.5;
            const channel_estimate est = estimate_channel(
                estimation_config(cb, channel_params(0.01, 0.05, 0.001), N),
                fs.views(soft),
                opt);
            const std::string what =
                "seed " + std::to_string(base + s) + (soft ? " llr" : " bits");
            EXPECT_EQ(est.iterations, opt.iterations) << what;
            EXPECT_EQ(est.log_likelihoods.size(), size_t(opt.iterations)) << what;
            expect_non_decreasing(est.log_likelihoods, what);
            EXPECT_EQ(est.frames_used, size_t(count)) << what;
            // every sent bit was deleted or transmitted
            EXPECT_NEAR(
                est.events.del + est.events.trans, double(N) * cb.n() * count, 1e-6)
                << what;
        }
    }
}

// The relative error of an estimate
double rel(double est, double truth) { return std::fabs(est - truth) / truth; }

TEST(channel_estimation, recovers_a_known_channel)
{
    if (sanitized)
        GTEST_SKIP() << "numerics only (the other tests cover the code under sanitizers)";
    // 150 frames of 100 symbols: 120000 bits, about 1200 substitutions and
    // deletions (standard deviations near 3 %) and 2400 insertions
    const codebook cb = codebook::from_spec("builtin:ld3-modvec6");
    const channel_params truth(0.02, 0.01, 0.01);
    const frame_set fs = make_frames(cb, 100, truth, 7, 150);
    const channel_estimate est = estimate_channel(
        estimation_config(cb, channel_params(0.01, 0.01, 0.01), 100), fs.views(false));
    EXPECT_TRUE(est.converged);
    EXPECT_LT(rel(est.ch.Pi(), truth.Pi()), 0.1) << est.ch.repr();
    EXPECT_LT(rel(est.ch.Pd(), truth.Pd()), 0.1) << est.ch.repr();
    EXPECT_LT(rel(est.ch.Ps(), truth.Ps()), 0.1) << est.ch.repr();
    expect_non_decreasing(est.log_likelihoods, "bits");
}

TEST(channel_estimation, recovers_a_channel_without_insertions_and_the_llr_scale)
{
    if (sanitized)
        GTEST_SKIP() << "numerics only (the other tests cover the code under sanitizers)";
    // Pi = 0: EM drives Pi to 0 by a constant factor per iteration; soft
    // input of BPSK at sigma 0.6 with the LLRs halved: c returns to about 2
    const codebook cb = codebook::from_spec("builtin:ld3-modvec6");
    // 100 frames of 100 symbols: 1600 deletions, 800 substitutions
    const channel_params truth(0.0, 0.02, 0.01);
    const frame_set fs = make_frames(cb, 100, truth, 11, 100, 0.6);
    frame_set halved = fs;
    for (auto& l : halved.llr)
        for (auto& v : l)
            v *= 0.5;
    estimate_options opt;
    opt.llr_scale = 1.0;
    const channel_estimate est =
        estimate_channel(estimation_config(cb, channel_params(0.01, 0.01, 0.01), 100),
                         halved.views(true),
                         opt);
    EXPECT_TRUE(est.converged);
    EXPECT_LT(est.ch.Pi(), 1e-4) << est.ch.repr();
    EXPECT_LT(rel(est.ch.Pd(), truth.Pd()), 0.1) << est.ch.repr();
    EXPECT_LT(rel(est.ch.Ps(), truth.Ps()), 0.15) << est.ch.repr();
    EXPECT_NEAR(est.llr_scale, 2.0, 0.2);
    expect_non_decreasing(est.log_likelihoods, "llr");
}

TEST(channel_estimation, tagged_frames_with_a_sync_word_and_a_stream)
{
    if (sanitized)
        GTEST_SKIP() << "numerics only (the other tests cover the code under sanitizers)";
    // The same channel realization sent as tagged frames with a sync word and
    // as one stream of those frames back to back: both estimates move from
    // the wrong start to the truth, and the stream's counts every frame.
    const codebook cb = codebook::from_spec("builtin:ld3-modvec6");
    const std::vector<uint8_t> W = parse_sync_word("0110100111010010");
    const channel_params truth(0.02, 0.01, 0.01);
    const int N = 60, count = 30;
    philox_stream src(5, 7);
    std::vector<uint8_t> stream_tx;
    std::vector<std::vector<uint8_t>> tagged;
    std::vector<int64_t> msg(static_cast<size_t>(N));
    for (int k = 0; k < count; ++k) {
        for (auto& d : msg)
            d = int64_t(src.next_u32() % 16u);
        std::vector<uint8_t> tx = W;
        const auto bits = cb.encode(msg.data(), msg.size());
        tx.insert(tx.end(), bits.begin(), bits.end());
        tagged.push_back(transmit(truth, tx.data(), tx.size(), 5, uint64_t(k)).rx);
        stream_tx.insert(stream_tx.end(), tx.begin(), tx.end());
    }
    std::vector<frame_view> views;
    for (const auto& f : tagged) {
        frame_view v;
        v.bits = f.data();
        v.rho = f.size();
        views.push_back(v);
    }
    const decoder_config cfg =
        estimation_config(cb, channel_params(0.01, 0.01, 0.005), N);
    const channel_estimate t = estimate_channel(cfg, views, {}, W);
    EXPECT_TRUE(t.converged);
    EXPECT_EQ(t.frames_used, size_t(count));
    // every sent bit, the sync word's included, was deleted or transmitted
    EXPECT_NEAR(t.events.del + t.events.trans, double(count) * (16 + N * 8), 1e-6);
    expect_non_decreasing(t.log_likelihoods, "tagged with a sync word");
    EXPECT_LT(rel(t.ch.Pi(), truth.Pi()), 0.25) << t.ch.repr();
    EXPECT_LT(rel(t.ch.Pd(), truth.Pd()), 0.25) << t.ch.repr();

    const auto rx = transmit(truth, stream_tx.data(), stream_tx.size(), 6, 0).rx;
    stream_options so;
    const channel_estimate st = estimate_channel_stream(
        cfg, received_items{ rx.data(), nullptr }, rx.size(), {}, W, so);
    EXPECT_EQ(st.frames_used, size_t(count));
    EXPECT_EQ(st.frames_refused, 0u);
    EXPECT_NEAR(st.events.del + st.events.trans, double(count) * (16 + N * 8), 1e-3);
    EXPECT_LT(rel(st.ch.Pi(), truth.Pi()), 0.25) << st.ch.repr();
    EXPECT_LT(rel(st.ch.Pd(), truth.Pd()), 0.25) << st.ch.repr();
    EXPECT_GT(st.log_likelihoods.back(), st.log_likelihoods.front());
    // bad input
    EXPECT_THROW(estimate_channel_stream(cfg, received_items{}, 0, {}, W, so),
                 std::invalid_argument);
}

TEST(channel_estimation, fixed_parameters_stay)
{
    const codebook cb = codebook::from_spec("builtin:ld3-modvec6");
    const frame_set fs = make_frames(cb, 20, channel_params(0.02, 0.02, 0), 3, 6);
    estimate_options opt;
    opt.fix_Ps = true;
    opt.iterations = 4;
    const channel_estimate est = estimate_channel(
        estimation_config(cb, channel_params(0.01, 0.01, 0.0), 20), fs.views(false), opt);
    EXPECT_EQ(est.ch.Ps(), 0.0);
    EXPECT_EQ(est.events.subst, 0.0);
    opt.fix_Ps = false;
    opt.fix_Pd = true;
    const channel_estimate e2 =
        estimate_channel(estimation_config(cb, channel_params(0.01, 0.03, 0.01), 20),
                         fs.views(false),
                         opt);
    EXPECT_EQ(e2.ch.Pd(), 0.03);
    EXPECT_GT(e2.ch.Pi(), 0.0);
}

TEST(channel_estimation, a_fixed_llr_scale_stays_and_its_events_are_the_same)
{
    // With the LLR scale fixed the E-step asks for no item posteriors (the
    // counts alone, no backward pass): one iteration from the same start
    // must give the same events and channel as with the scale free, whose
    // E-step runs the edges and gathers the items' posteriors.
    const codebook cb = codebook::from_spec("builtin:ld3-modvec6");
    const frame_set fs = make_frames(cb, 20, channel_params(0.03, 0.02, 0.01), 5, 6);
    const decoder_config cfg =
        estimation_config(cb, channel_params(0.01, 0.01, 0.01), 20);
    estimate_options opt;
    opt.iterations = 1;
    opt.llr_scale = 0.7;
    const channel_estimate free_scale = estimate_channel(cfg, fs.views(true), opt);
    opt.fix_llr_scale = true;
    const channel_estimate fixed = estimate_channel(cfg, fs.views(true), opt);
    EXPECT_EQ(fixed.llr_scale, 0.7);
    EXPECT_NE(free_scale.llr_scale, 0.7); // the free scale moved
    EXPECT_EQ(fixed.frames_used, free_scale.frames_used);
    auto near = [](double a, double b) {
        return std::fabs(a - b) <= 1e-9 * std::fabs(b);
    };
    EXPECT_TRUE(near(fixed.events.ins, free_scale.events.ins));
    EXPECT_TRUE(near(fixed.events.del, free_scale.events.del));
    EXPECT_TRUE(near(fixed.events.trans, free_scale.events.trans));
    EXPECT_TRUE(near(fixed.events.subst, free_scale.events.subst));
    EXPECT_TRUE(near(fixed.ch.Pi(), free_scale.ch.Pi())) << fixed.ch.repr();
    EXPECT_TRUE(near(fixed.ch.Pd(), free_scale.ch.Pd())) << fixed.ch.repr();
    EXPECT_TRUE(near(fixed.ch.Ps(), free_scale.ch.Ps())) << fixed.ch.repr();
    // and over more iterations the fixed scale stays
    opt.iterations = 3;
    EXPECT_EQ(estimate_channel(cfg, fs.views(true), opt).llr_scale, 0.7);

    // the same from a stream of LLRs (frames behind a sync word)
    const std::vector<uint8_t> W = parse_sync_word("0110100111010010");
    std::vector<uint8_t> tx;
    philox_stream src(9, 3);
    std::vector<int64_t> msg(20);
    for (int k = 0; k < 8; ++k) {
        for (auto& d : msg)
            d = int64_t(src.next_u32() % 16u);
        const auto bits = cb.encode(msg.data(), msg.size());
        tx.insert(tx.end(), W.begin(), W.end());
        tx.insert(tx.end(), bits.begin(), bits.end());
    }
    const auto rx =
        transmit(channel_params(0.03, 0.02, 0.01), tx.data(), tx.size(), 9, 0).rx;
    std::vector<double> llr;
    for (uint8_t b : rx)
        llr.push_back(b ? 3.0 : -3.0);
    opt.iterations = 1;
    opt.fix_llr_scale = false;
    const received_items items{ nullptr, llr.data() };
    const channel_estimate free_stream =
        estimate_channel_stream(cfg, items, llr.size(), opt, W, stream_options{});
    opt.fix_llr_scale = true;
    const channel_estimate fixed_stream =
        estimate_channel_stream(cfg, items, llr.size(), opt, W, stream_options{});
    EXPECT_GT(fixed_stream.frames_used, 4u);
    EXPECT_EQ(fixed_stream.frames_used, free_stream.frames_used);
    EXPECT_EQ(fixed_stream.llr_scale, 0.7);
    EXPECT_NE(free_stream.llr_scale, 0.7);
    EXPECT_TRUE(near(fixed_stream.events.ins, free_stream.events.ins));
    EXPECT_TRUE(near(fixed_stream.events.del, free_stream.events.del));
    EXPECT_TRUE(near(fixed_stream.events.trans, free_stream.events.trans));
    EXPECT_TRUE(near(fixed_stream.events.subst, free_stream.events.subst));
}

TEST(channel_estimation, bad_input_gets_a_clear_error)
{
    const codebook cb = codebook::from_spec("builtin:ld3-modvec6");
    const decoder_config cfg =
        estimation_config(cb, channel_params(0.01, 0.01, 0.01), 20);
    const frame_set fs = make_frames(cb, 20, channel_params(0.01, 0.01, 0.01), 5, 3);
    auto message = [&](const decoder_config& c,
                       const std::vector<frame_view>& v,
                       const estimate_options& o) -> std::string {
        try {
            estimate_channel(c, v, o);
        } catch (const std::exception& e) {
            return e.what();
        }
        return "";
    };
    // no frames
    EXPECT_NE(message(cfg, {}, {}).find("no frames"), std::string::npos);
    // every frame refused: empty, not bits, far outside the limits
    {
        std::vector<uint8_t> bad = fs.rx[0], lone = { 1 };
        bad[5] = 2;
        std::vector<frame_view> v(3);
        v[0].bits = bad.data();
        v[0].rho = bad.size();
        v[1].bits = lone.data();
        v[1].rho = 0;
        v[2].bits = lone.data();
        v[2].rho = 1; // 159 bits short: an end drift outside any limits
        decoder_config c = cfg;
        c.mtau = drift_range{ -40, 40 };
        c.mn = drift_range{ -8, 8 };
        const std::string m = message(c, v, {});
        EXPECT_NE(m.find("refused every frame"), std::string::npos) << m;
        EXPECT_NE(m.find("(1 empty, 1 invalid_input, 1 drift_out_of_range; the first: "),
                  std::string::npos)
            << m;
    }
    // a frame the decoder refuses is left out, the others estimate
    {
        std::vector<frame_view> v = fs.views(false);
        const std::vector<uint8_t> bad = { 0, 2, 1 };
        frame_view f;
        f.bits = bad.data();
        f.rho = bad.size();
        v.push_back(f);
        estimate_options o;
        o.iterations = 2;
        const channel_estimate est = estimate_channel(cfg, v, o);
        EXPECT_EQ(est.frames_used, 3u);
        EXPECT_EQ(est.frames_refused, 1u);
        ASSERT_FALSE(est.notes.empty());
        EXPECT_NE(est.notes[0].find("frame 3 refused"), std::string::npos)
            << est.notes[0];
    }
    // an initial point outside the valid range is not a channel at all
    EXPECT_THROW(channel_params(0.6, 0.5, 0.0), std::invalid_argument);
    // a parameter to estimate that starts at 0 would stay there
    {
        const std::string m =
            message(estimation_config(cb, channel_params(0.0, 0.01, 0.01), 20),
                    fs.views(false),
                    {});
        EXPECT_NE(m.find("Pi = 0 would stay 0"), std::string::npos) << m;
    }
    // bad options
    {
        estimate_options o;
        o.iterations = 0;
        EXPECT_NE(message(cfg, fs.views(false), o).find("iterations"), std::string::npos);
        o = {};
        o.tolerance = -1;
        EXPECT_NE(message(cfg, fs.views(false), o).find("tolerance"), std::string::npos);
        o = {};
        o.llr_scale = 0;
        EXPECT_NE(message(cfg, fs.views(true), o).find("LLR scale"), std::string::npos);
        std::vector<frame_view> v = fs.views(false);
        frame_boundaries b;
        v[0].boundaries = &b;
        EXPECT_NE(message(cfg, v, {}).find("boundary"), std::string::npos);
    }
}

TEST(channel_estimation, a_step_out_of_range_is_clamped_and_noted)
{
    // Known data (one-hot priors: the word 00 was sent) received as 11 with
    // Ps = 0: neither 1 can be a transmitted bit, so every item was inserted
    // and every bit deleted (T = 0), and the M-step's Pi + Pd would be 1.
    const codebook cb(2, { { 0u, 2u } });
    const std::vector<double> prior = { 1.0, 0.0 };
    const std::vector<uint8_t> rx = { 1, 1 };
    frame_view f;
    f.bits = rx.data();
    f.rho = rx.size();
    f.priors = prior.data();
    decoder_config cfg = estimation_config(cb, channel_params(0.3, 0.3, 0.0), 1);
    cfg.mtau = drift_range{ -2, 2 };
    cfg.mn = drift_range{ -2, 2 };
    estimate_options opt;
    opt.fix_Ps = true;
    opt.iterations = 2;
    const channel_estimate est = estimate_channel(cfg, { f }, opt);
    EXPECT_NEAR(est.events.trans, 0.0, 1e-15);
    EXPECT_NEAR(est.events.ins, 2.0, 1e-12);
    EXPECT_NEAR(est.events.del, 2.0, 1e-12);
    EXPECT_LT(est.ch.Pi() + est.ch.Pd(), 1.0);
    EXPECT_NEAR(est.ch.Pi() + est.ch.Pd(), 1 - 1e-6, 1e-12);
    EXPECT_NEAR(est.ch.Pi(), est.ch.Pd(), 1e-12);
    ASSERT_FALSE(est.notes.empty());
    EXPECT_NE(est.notes[0].find("leaves the valid range"), std::string::npos)
        << est.notes[0];
}

} // namespace
