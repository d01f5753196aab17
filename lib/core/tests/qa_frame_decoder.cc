/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// frame_decoder on the CPU backend against the brute force
// (qa_frame_reference.h): start priors, known and free ends, look-ahead,
// sync words, symbol priors; float and double, global and local storage.
// The CUDA backend runs the same cases in lib/cuda/qa_frame_decoder_cuda.cc.

#include "qa_frame_reference.h"
#include "qa_reference.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gtest/gtest.h>
#include <cmath>
#include <limits>
#include <random>

using namespace bsid;

namespace {

std::vector<uint8_t> random_bits(size_t count, std::mt19937& g)
{
    std::vector<uint8_t> v(count);
    for (auto& b : v)
        b = uint8_t(g() & 1u);
    return v;
}

} // namespace

TEST(frame_decoder, brute_force_every_boundary_model)
{
    qa::check_every_boundary_model(backend_kind::cpu);
}

TEST(frame_decoder, default_request_is_map_decoder_decode)
{
    // no sync word, pi(0) = 1, known end: the same posteriors and statuses, to the bit
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.02, 0.02, 0.01);
    const int N = 30;
    std::mt19937 g(7);
    for (auto prec : { precision_kind::single, precision_kind::dual }) {
        decoder_config cfg(cb, ch, N);
        cfg.backend = backend_kind::cpu;
        cfg.precision = prec;
        frame_decoder fdec(cfg);
        auto dec = map_decoder::make(cfg);
        for (int k = 0; k < 6; ++k) {
            const auto sent = random_bits(size_t(N) * cb.n(), g);
            auto rx = transmit(ch, sent.data(), sent.size(), 3, uint64_t(k)).rx;
            if (k == 4)
                rx.resize(3); // drift out of range
            if (k == 5)
                rx.clear(); // empty
            std::vector<double> want(size_t(N) * cb.q());
            const auto r = dec->decode({ rx.data(), rx.size() }, want.data());
            frame_request req;
            req.bits = rx.data();
            req.L = rx.size();
            const auto got = fdec.decode(req);
            EXPECT_EQ(got.result.status, r.status) << got.result.reason;
            EXPECT_EQ(got.result.reason, r.reason);
            EXPECT_EQ(got.posteriors, want);
            if (k < 4) {
                ASSERT_TRUE(r.ok()) << r.reason;
                EXPECT_EQ(got.start.positions, std::vector<long long>{ 0 });
                EXPECT_EQ(got.end_positions,
                          std::vector<long long>{ (long long)rx.size() });
                EXPECT_EQ(got.end_posterior, std::vector<double>{ 1.0 });
            }
        }
    }
}

TEST(frame_decoder, free_end_finds_where_the_frame_ends)
{
    // a frame followed by random bits: the end posterior peaks at its true end
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    const int N = 40;
    decoder_config cfg(cb, ch, N);
    cfg.backend = backend_kind::cpu;
    cfg.precision = precision_kind::dual;
    frame_decoder dec(cfg, parse_sync_word("01101001"));
    std::mt19937 g(11);
    for (int k = 0; k < 4; ++k) {
        std::vector<uint8_t> sent = parse_sync_word("01101001");
        const auto body = random_bits(size_t(N) * cb.n(), g);
        sent.insert(sent.end(), body.begin(), body.end());
        auto rx = transmit(ch, sent.data(), sent.size(), 5, uint64_t(k)).rx;
        const long long true_end = (long long)rx.size() + 2; // two garbage bits before
        // then the next frame, as the model has it: its sync word, then (to us) random
        // bits
        auto tail = parse_sync_word("01101001");
        const auto more = random_bits(40, g);
        tail.insert(tail.end(), more.begin(), more.end());
        std::vector<uint8_t> seg = random_bits(2, g);
        seg.insert(seg.end(), rx.begin(), rx.end());
        seg.insert(seg.end(), tail.begin(), tail.end());
        frame_request r;
        r.bits = seg.data();
        r.L = seg.size();
        position_weights sp;
        for (long long s = 0; s <= 5; ++s)
            sp.positions.push_back(s), sp.weights.push_back(1.0);
        r.start = sp;
        r.end = end_mode::free;
        const auto got = dec.decode(r);
        ASSERT_TRUE(got.result.ok()) << got.result.reason;
        const auto best_end =
            std::max_element(got.end_posterior.begin(), got.end_posterior.end()) -
            got.end_posterior.begin();
        EXPECT_EQ(got.end_positions[size_t(best_end)], true_end);
        const auto best_start =
            std::max_element(got.start.weights.begin(), got.start.weights.end()) -
            got.start.weights.begin();
        EXPECT_EQ(got.start.positions[size_t(best_start)], 2);
        EXPECT_GT(got.start.weights[size_t(best_start)], 0.9);
    }
}

TEST(frame_decoder, bad_requests_are_clear_errors_or_statuses)
{
    const codebook cb = qa::tiny_code();
    const channel_params ch(0.1, 0.1, 0.0);
    frame_decoder dec(qa::covering(cb, ch, 2, 12, 0, backend_kind::cpu));
    const std::vector<uint8_t> rx(8, 1);
    auto request = [&]() {
        frame_request r;
        r.bits = rx.data();
        r.L = rx.size();
        return r;
    };
    auto expect_error = [&](frame_request r, const std::string& words) {
        try {
            dec.decode(r);
            ADD_FAILURE() << "accepted; expected an error with '" << words << "'";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    };
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    auto with_start = [&](std::vector<long long> pos, std::vector<double> w) {
        auto r = request();
        r.start = position_weights{ pos, w };
        return r;
    };
    expect_error(with_start({}, {}), "no positions");
    expect_error(with_start({ 0, 1 }, { 0.0, 0.0 }), "every weight is 0");
    expect_error(with_start({ 0 }, { -1.0 }), "not a finite non-negative");
    expect_error(with_start({ 0 }, { nan }), "not a finite non-negative");
    expect_error(with_start({ 0 }, { inf }), "not a finite non-negative");
    expect_error(with_start({ 9 }, { 1.0 }), "outside the segment");
    expect_error(with_start({ -1 }, { 1.0 }), "outside the segment");
    expect_error(with_start({ 1, 1 }, { 1.0, 1.0 }), "given twice");
    expect_error(with_start({ 0, 1 }, { 1.0 }), "2 positions but 1 weights");
    auto r = request();
    r.end = end_mode::free;
    r.lookahead = -1;
    expect_error(r, "lookahead");
    r.lookahead = 3;
    expect_error(r, "lookahead");
    r = request();
    r.lookahead = 1; // a look-ahead with a known end
    expect_error(r, "end = free");
    EXPECT_THROW(parse_sync_word("01x1"), std::invalid_argument);
    EXPECT_THROW(parse_end_mode("maybe"), std::invalid_argument);
    // a segment too short for any end is a status, not an error (no
    // deletions: a frame of 6 bits cannot end 2 bits after its start)
    decoder_config cfg(cb, channel_params(0.1, 0.0, 0.0), 2);
    cfg.backend = backend_kind::cpu;
    frame_decoder narrow(cfg);
    const std::vector<uint8_t> two(2, 0);
    frame_request shortr;
    shortr.bits = two.data();
    shortr.L = two.size();
    shortr.end = end_mode::free;
    shortr.start = position_weights{ { 2 }, { 1.0 } };
    const auto res = narrow.decode(shortr);
    EXPECT_FALSE(res.result.ok());
    for (double p : res.posteriors)
        EXPECT_EQ(p, 0.5);
    for (double p : res.end_posterior)
        EXPECT_EQ(p, 0.0);
    // bits that are not bits: a status
    std::vector<uint8_t> bad(8, 1);
    bad[3] = 7;
    frame_request b;
    b.bits = bad.data();
    b.L = bad.size();
    b.end = end_mode::free;
    EXPECT_EQ(dec.decode(b).result.status, frame_status::invalid_input);
}

TEST(frame_decoder, several_reads_of_a_frame_are_refused)
{
    // frame_request::more_reads: one read per request is decoded; more are a
    // status with a reason, on every path (plain, sync word, free end, a
    // batch beside a good request), never the first read alone
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.02, 0.02, 0.01);
    const int N = 10;
    std::mt19937 g(11);
    const auto sent = random_bits(size_t(N) * cb.n(), g);
    const auto rx = transmit(ch, sent.data(), sent.size(), 3, 1).rx;
    const auto rx2 = transmit(ch, sent.data(), sent.size(), 3, 2).rx;
    std::vector<double> llr2(rx2.size());
    for (size_t j = 0; j < rx2.size(); ++j)
        llr2[j] = rx2[j] ? 4.0 : -4.0;
    decoder_config cfg(cb, ch, N);
    cfg.backend = backend_kind::cpu;
    for (const char* W : { "", "0110" }) {
        frame_decoder dec(cfg, parse_sync_word(W));
        std::vector<uint8_t> frame = parse_sync_word(W);
        frame.insert(frame.end(), rx.begin(), rx.end());
        for (auto end : { end_mode::known, end_mode::free }) {
            frame_request one;
            one.bits = frame.data();
            one.L = frame.size();
            one.end = end;
            one.events = true;
            EXPECT_EQ(one.reads(), 1u);
            frame_request two = one;
            two.more_reads.push_back({ rx2.data(), nullptr, rx2.size() });
            frame_request three = two;
            three.more_reads.push_back({ nullptr, llr2.data(), llr2.size() });
            EXPECT_EQ(three.reads(), 3u);
            const auto got = dec.decode_batch({ one, two, three });
            ASSERT_EQ(got.size(), 3u);
            EXPECT_TRUE(got[0].result.ok()) << got[0].result.reason;
            for (size_t k : { size_t(1), size_t(2) }) {
                const auto& r = got[k];
                EXPECT_EQ(r.result.status, frame_status::invalid_input);
                EXPECT_NE(r.result.reason.find("several reads"), std::string::npos)
                    << r.result.reason;
                EXPECT_NE(r.result.reason.find(std::to_string(k + 1) + " reads"),
                          std::string::npos)
                    << r.result.reason;
                for (double p : r.posteriors)
                    EXPECT_EQ(p, 1.0 / cb.q());
                for (double p : r.end_posterior)
                    EXPECT_EQ(p, 0.0);
                for (double p : r.item_posteriors)
                    EXPECT_EQ(p, 0.0);
                EXPECT_EQ(r.log_likelihood_ratio,
                          -std::numeric_limits<double>::infinity());
            }
            EXPECT_EQ(dec.decode(two).result.status, frame_status::invalid_input);
        }
    }
}

TEST(frame_decoder, frames_at_position_zero_with_a_sync_word)
{
    // decode_batch over frame_views and check_length: what the blocks,
    // bsid_decode and count_errors call, with W counted and weighed
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    const int N = 20;
    const auto W = parse_sync_word("0110100111");
    decoder_config cfg(cb, ch, N);
    cfg.backend = backend_kind::cpu;
    cfg.precision = precision_kind::dual;
    frame_decoder dec(cfg, W);
    const long long G = (long long)W.size(), tau = dec.tau();
    EXPECT_TRUE(dec.check_length(size_t(G + tau)).ok());
    EXPECT_EQ(dec.check_length(0).status, frame_status::empty);
    const auto& lim = dec.limits().mtau; // the drift after W, rho - G - tau
    EXPECT_TRUE(dec.check_length(size_t(G + tau + lim.lo)).ok());
    EXPECT_EQ(dec.check_length(size_t(G + tau + lim.lo - 1)).status,
              frame_status::drift_out_of_range);
    EXPECT_EQ(dec.check_length(size_t(G + tau + lim.hi + 1)).status,
              frame_status::drift_out_of_range);
    EXPECT_TRUE(dec.check_length(size_t(G + tau + lim.hi)).ok());
    std::mt19937 g(5);
    std::vector<std::vector<uint8_t>> rx;
    std::vector<frame_view> views;
    for (int k = 0; k < 3; ++k) {
        std::vector<uint8_t> sent = W;
        const auto body = random_bits(size_t(tau), g);
        sent.insert(sent.end(), body.begin(), body.end());
        rx.push_back(transmit(ch, sent.data(), sent.size(), 2, uint64_t(k)).rx);
    }
    rx.push_back(
        std::vector<uint8_t>(5, 1)); // far too short: refused, like check_length says
    for (const auto& r : rx)
        views.push_back({ r.data(), r.size() });
    std::vector<std::vector<double>> post(rx.size(),
                                          std::vector<double>(size_t(N) * cb.q()));
    std::vector<double*> out;
    for (auto& p : post)
        out.push_back(p.data());
    const auto res = dec.decode_batch(views, out);
    for (size_t k = 0; k < rx.size(); ++k) {
        frame_request r;
        r.bits = rx[k].data();
        r.L = rx[k].size();
        const auto want = dec.decode(r);
        EXPECT_EQ(res[k].status, want.result.status) << k;
        EXPECT_EQ(post[k], want.posteriors) << k;
    }
    EXPECT_TRUE(res[0].ok());
    EXPECT_FALSE(res[3].ok());
}
