/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The MAP decoder over an alphabet of A > 2 letters (the CPU lattice of
// inner/letters_lattice.cc) against the brute force of qa_reference.h, which
// enumerates every message and sums P(y | x) from the model's statement:
// uniform and matrix substitutions, priors and the extrinsic output, both
// precisions and both storages; frame boundaries (sync words of letters,
// start priors, free ends, look-ahead) against qa_frame_reference.h's brute
// force; soft items (A log-probabilities each); and what is refused clearly.

#include "qa_letters_reference.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/estimation/event_counts.h>
#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

using namespace bsid;
using namespace bsid::qa;

TEST(letters, exact_against_brute_force_with_wide_limits)
{
    check_letters_wide_limits(backend_kind::cpu, test_seed() + 40, 60);
}

TEST(letters, exact_against_restricted_reference_with_default_limits)
{
    check_letters_default_limits(backend_kind::cpu, test_seed() + 41, 60);
}

TEST(letters, extrinsic_and_log_priors_against_brute_force)
{
    check_letters_extrinsic(backend_kind::cpu, test_seed() + 42, 24);
}

TEST(letters, batches_decode_each_frame_as_alone)
{
    std::mt19937_64 rng(test_seed() + 43);
    const codebook cb = codebook::random(4, 16, 3, 5, 4);
    const channel_params ch(0.02, 0.02, 0.03, 4);
    decoder_config cfg(cb, ch, 30);
    cfg.backend = backend_kind::cpu;
    auto dec = map_decoder::make(cfg);
    std::vector<std::vector<uint8_t>> rx;
    std::vector<frame_view> views;
    for (int k = 0; k < 6; ++k) {
        std::vector<int64_t> msg(30);
        for (auto& s : msg)
            s = int64_t(rng() % 16);
        const auto x = cb.encode(msg.data(), msg.size());
        rx.push_back(transmit(ch, x.data(), x.size(), 9, uint64_t(k)).rx);
    }
    rx[3][2] = 4; // not a letter: that frame alone is refused
    for (const auto& r : rx)
        views.push_back(frame_view{ r.data(), r.size() });
    std::vector<double> post(views.size() * 30 * 16);
    std::vector<double*> outs;
    for (size_t k = 0; k < views.size(); ++k)
        outs.push_back(post.data() + k * 30 * 16);
    const auto results = dec->decode_batch(views, outs);
    for (size_t k = 0; k < views.size(); ++k) {
        std::vector<double> one(30 * 16);
        const auto r = dec->decode(views[k], one.data());
        EXPECT_EQ(results[k].status, r.status) << k;
        if (k == 3) {
            EXPECT_EQ(r.status, frame_status::invalid_input);
            EXPECT_NE(
                r.reason.find("received byte 4 at position 2 is not a letter of the "
                              "alphabet (expected 0 to 3)"),
                std::string::npos)
                << r.reason;
            continue;
        }
        ASSERT_TRUE(r.ok()) << r.reason;
        for (size_t j = 0; j < one.size(); ++j)
            ASSERT_EQ(post[k * one.size() + j], one[j]) << k;
    }
}

TEST(letters, frame_boundaries_against_brute_force)
{
    check_letters_boundaries(backend_kind::cpu,
                             { { 3, "2,0,1" }, { 4, "GAT" }, { 8, "7,0,3" } },
                             false,
                             test_seed() + 42);
}

TEST(letters, soft_items_against_brute_force)
{
    check_letters_boundaries(
        backend_kind::cpu, { { 3, "1,2" }, { 4, "CG" } }, true, test_seed() + 43);
}

TEST(letters, sync_words_of_letters_are_parsed_and_checked)
{
    EXPECT_EQ(parse_sync_word("ACGTacgt", 4),
              (std::vector<uint8_t>{ 0, 1, 2, 3, 0, 1, 2, 3 }));
    EXPECT_EQ(parse_sync_word("0123", 4), (std::vector<uint8_t>{ 0, 1, 2, 3 }));
    EXPECT_EQ(parse_sync_word("0, 2,1", 3), (std::vector<uint8_t>{ 0, 2, 1 }));
    EXPECT_EQ(parse_sync_word("255,0", 256), (std::vector<uint8_t>{ 255, 0 }));
    EXPECT_EQ(parse_sync_word("10", 11), (std::vector<uint8_t>{ 10 }));
    EXPECT_EQ(parse_sync_word("2012", 3), (std::vector<uint8_t>{ 2, 0, 1, 2 }));
    EXPECT_EQ(parse_sync_word("0110"), (std::vector<uint8_t>{ 0, 1, 1, 0 }));
    EXPECT_EQ(parse_sync_word("1,0", 2), (std::vector<uint8_t>{ 1, 0 }));
    EXPECT_TRUE(parse_sync_word("", 5).empty());
    for (const auto& [text, A, says] :
         std::vector<std::tuple<std::string, int, std::string>>{
             { "ACGU", 4, "character 3 is not one of A, C, G, T" },
             { "0124", 4, "character 3" },
             { "0,3", 3, "item 1 ('3') is not a letter" },
             { "0,,1", 5, "item 1 ('')" },
             { "AC", 3, "character 0 is not a letter 0 to 2" },
             { "012", 2, "character 2 is not 0 or 1" },
             { "-1", 8, "character 0 is not a letter 0 to 7" },
             { "-1", 11, "item 0 ('-1')" },
             { "11", 11, "item 0 ('11')" },
             { "1", 1, "alphabet 1" } }) {
        try {
            parse_sync_word(text, A);
            ADD_FAILURE() << text;
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
        }
    }
    // a sync word's letters must be the channel's
    decoder_config cfg(tiny_letters_code(3), channel_params(0.01, 0.01, 0.01, 3), 2);
    EXPECT_THROW(frame_decoder(cfg, { 0, 3 }), std::invalid_argument);
}

TEST(letters, bad_soft_items_are_refused_not_decoded)
{
    const codebook cb = tiny_letters_code(4);
    decoder_config cfg(cb, channel_params(0.05, 0.05, 0.05, 4), 2);
    frame_decoder dec(cfg, parse_sync_word("AC", 4));
    const double inf = std::numeric_limits<double>::infinity();
    for (const auto& [bad, says] : std::vector<std::pair<double, std::string>>{
             { std::nan(""), "is nan" },
             { inf, "is inf" },
             { -inf, "every letter's log-probability is -inf" } }) {
        std::vector<double> lp(6 * 4, -1.0);
        if (bad == -inf)
            std::fill(lp.begin() + 8, lp.begin() + 12, -inf);
        else
            lp[9] = bad;
        frame_request r;
        r.logprob = lp.data();
        r.L = 6;
        const auto got = dec.decode(r);
        EXPECT_EQ(got.result.status, frame_status::invalid_input) << says;
        EXPECT_NE(got.result.reason.find(says), std::string::npos) << got.result.reason;
        EXPECT_NE(got.result.reason.find("position 2"), std::string::npos)
            << got.result.reason;
        for (double v : got.posteriors)
            EXPECT_TRUE(std::isfinite(v));
    }
    // log-probabilities are for letters: bits take LLRs
    decoder_config bits(codebook(2, { { 0, 3 } }), channel_params(0.05, 0.05, 0.05), 2);
    auto bdec = map_decoder::make(bits);
    std::vector<double> lp(8, -0.7), post(4);
    frame_view f;
    f.logprob = lp.data();
    f.rho = 4;
    const auto r = bdec->decode(f, post.data());
    EXPECT_EQ(r.status, frame_status::invalid_input);
    EXPECT_NE(r.reason.find("over bits give LLRs"), std::string::npos) << r.reason;
}

// A stream of `frames` frames of letters (sync word W, then N symbols of
// cb), sent through ch in one piece, with `burst` random letters after frame
// `burst_after`: the received letters; the sent messages in msgs and where
// each frame's first letter lies in the received stream (sent position plus
// the drift there) in starts.
std::vector<uint8_t> letter_stream(const codebook& cb,
                                   const channel_params& ch,
                                   int N,
                                   const std::vector<uint8_t>& W,
                                   int frames,
                                   int burst_after,
                                   int burst,
                                   std::mt19937_64& rng,
                                   std::vector<std::vector<int64_t>>& msgs,
                                   std::vector<long long>& starts)
{
    std::vector<uint8_t> sent;
    std::vector<size_t> at;
    for (int f = 0; f < frames; ++f) {
        std::vector<int64_t> msg(static_cast<size_t>(N));
        for (auto& d : msg)
            d = int64_t(rng() % uint64_t(cb.q()));
        const auto x = cb.encode(msg.data(), msg.size());
        at.push_back(sent.size());
        sent.insert(sent.end(), W.begin(), W.end());
        sent.insert(sent.end(), x.begin(), x.end());
        msgs.push_back(msg);
        if (f == burst_after)
            for (int j = 0; j < burst; ++j)
                sent.push_back(uint8_t(rng() % uint64_t(ch.alphabet())));
    }
    const transmission t = transmit(ch, sent.data(), sent.size(), rng(), 0);
    for (size_t a : at)
        starts.push_back((long long)a + t.drift[a]);
    return t.rx;
}

// the symbol errors of a frame's decisions against msg
int symbol_errors(const std::vector<double>& post, const std::vector<int64_t>& msg, int q)
{
    int e = 0;
    for (size_t i = 0; i < msg.size(); ++i) {
        const auto* row = post.data() + i * size_t(q);
        e += int(std::max_element(row, row + q) - row) != msg[i];
    }
    return e;
}

TEST(letters, stream_decoding_with_and_without_a_sync_word_of_letters)
{
    std::mt19937_64 rng(test_seed() + 44);
    // P = 3 books, N = 20: without a sync word the frame's alignment is
    // found by blind acquisition (its books do not repeat within it)
    const codebook cb = codebook::random(4, 16, 3, 5, 4);
    const channel_params ch(0.01, 0.01, 0.01, 4);
    const int N = 20, frames = 24;
    for (const auto& [W, soft] : std::vector<std::pair<std::vector<uint8_t>, bool>>{
             { parse_sync_word("ACGTTGCA", 4), false },
             { parse_sync_word("ACGTTGCA", 4), true },
             { {}, false } }) {
        std::vector<std::vector<int64_t>> msgs;
        std::vector<long long> starts;
        // a burst of 37 random letters after frame 9: the frames after it
        // are found again, and none is put out ok at a wrong alignment
        const auto rx = letter_stream(cb, ch, N, W, frames, 9, 37, rng, msgs, starts);
        decoder_config cfg(cb, ch, N);
        cfg.backend = backend_kind::cpu;
        stream_options opt;
        opt.input = soft ? input_kind::logprob : input_kind::bits;
        stream_decoder sd(std::make_shared<frame_decoder>(cfg, W), opt);
        // soft: the letters with a confidence of 0.9 (the others 0.1 / 3)
        std::vector<double> lp;
        for (uint8_t y : rx)
            for (int l = 0; l < 4; ++l)
                lp.push_back(std::log(l == y ? 0.9 : 0.1 / 3));
        std::vector<stream_frame> out;
        for (size_t at = 0; at < rx.size(); at += 97) {
            const size_t count = std::min<size_t>(97, rx.size() - at);
            const auto got = soft ? sd.push(lp.data() + 4 * at, count)
                                  : sd.push(rx.data() + at, count);
            out.insert(out.end(), got.begin(), got.end());
        }
        const auto tail = sd.flush();
        out.insert(out.end(), tail.begin(), tail.end());
        ASSERT_GE(out.size(), size_t(frames - 1));
        // each ok frame is one of the frames sent, at its place in the
        // stream (the sent frame nearest its start, within a quarter of a
        // frame), and decoded with the channel's errors only: at most N/2
        // wrong (this weak code at these rates leaves up to about 6 of 20),
        // where a frame read at a wrong alignment, by whole code periods
        // too, has about 15/16 of its symbols wrong; every frame but the
        // burst's is ok
        int ok = 0;
        for (const auto& f : out) {
            if (!f.result.ok())
                continue;
            ++ok;
            size_t k = 0;
            for (size_t j = 1; j < starts.size(); ++j)
                if (std::llabs(starts[j] - f.start) < std::llabs(starts[k] - f.start))
                    k = j;
            const std::string what =
                std::string(soft ? "soft " : "hard ") + "G=" + std::to_string(W.size()) +
                " frame " + std::to_string(f.index) + " start " + std::to_string(f.start);
            EXPECT_LE(std::llabs(starts[k] - f.start), (8 + 4 * N) / 4) << what;
            EXPECT_LE(symbol_errors(f.posteriors, msgs[k], cb.q()), N / 2)
                << what << " sent at " << starts[k];
        }
        // (without a sync word a burst costs a frame or two more: blind
        // acquisition flags what it cannot tell apart)
        EXPECT_GE(ok, frames - (W.empty() ? 5 : 2))
            << (soft ? "soft" : "hard") << " G=" << W.size();
    }
}

TEST(letters, soft_bits_and_a_binary_matrix_are_refused_clearly)
{
    const codebook cb = codebook::random(3, 8, 1, 1, 4);
    const channel_params ch(0.01, 0.01, 0.01, 4);
    decoder_config cfg(cb, ch, 5);
    cfg.backend = backend_kind::cpu;
    // a binary channel with a substitution matrix: the binary decoders take
    // one Ps, so it is refused rather than decoded as the matrix's mean
    decoder_config bin(codebook(3, { { 0, 7 } }),
                       channel_params(0.01, 0.01, 0, 2, { 0.9, 0.1, 0.3, 0.7 }),
                       4);
    for (auto b : { backend_kind::cpu, backend_kind::automatic }) {
        bin.backend = b;
        try {
            map_decoder::make(bin);
            ADD_FAILURE() << "a binary matrix was decoded";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(
                std::string(e.what()).find("binary channel with a substitution matrix"),
                std::string::npos)
                << e.what();
        }
    }
    auto dec = map_decoder::make(cfg);
    std::vector<double> post(5 * 8);
    // LLRs are soft bits
    const std::vector<double> llr(15, 1.0);
    frame_view soft{ nullptr, 15 };
    soft.llr = llr.data();
    auto r = dec->decode(soft, post.data());
    EXPECT_EQ(r.status, frame_status::invalid_input);
    EXPECT_NE(r.reason.find("LLR items are soft bits"), std::string::npos) << r.reason;
    for (double v : post)
        EXPECT_TRUE(std::isfinite(v));
}
