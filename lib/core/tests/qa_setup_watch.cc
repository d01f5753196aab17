/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A setup that does not fit the frames is reported, never decoded silently
// (docs/receiving.md, "A setup that does not fit the frames"): a decoder
// one or two symbols short or long of the frames warns, with and without a
// sync word, in float and double, through the frame lengths alone and
// through the stream decoder; a right setup never warns, nor does a sample
// clock offset of the examples' size.

#include "qa_sanitized.h"
#include "qa_stream_reference.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/framing/setup_watch.h>
#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <gtest/gtest.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

using namespace bsid;
using bsid::qa::sanitized;

namespace {

class setup_watch_test : public ::testing::Test
{
protected:
    void SetUp() override { set_log_level(log_level::off); }
    void TearDown() override { set_log_level(log_level::warning); }
};

// the received lengths of `frames` frames of F bits sent through ch, each
// also stretched by `slip` bits a frame (a sample clock offset, rounded
// where it accumulates)
std::vector<long long> received_lengths(
    const channel_params& ch, long long F, int frames, double slip, uint64_t seed)
{
    std::vector<uint8_t> x(size_t(F), 0);
    std::vector<long long> out;
    for (int k = 0; k < frames; ++k) {
        const auto t = transmit(ch, x.data(), x.size(), seed, uint64_t(k));
        const long long clock = std::llround(slip * (k + 1)) - std::llround(slip * k);
        out.push_back((long long)t.rx.size() + clock);
    }
    return out;
}

std::shared_ptr<frame_decoder> decoder(const codebook& cb,
                                       const channel_params& ch,
                                       int N,
                                       const std::vector<uint8_t>& W,
                                       precision_kind prec)
{
    decoder_config cfg(cb, ch, N);
    cfg.backend = backend_kind::cpu;
    cfg.precision = prec;
    cfg.threads = 2;
    return std::make_shared<frame_decoder>(cfg, W);
}

const std::vector<uint8_t> W16 = parse_sync_word("0110100111010010");

} // namespace

TEST_F(setup_watch_test, the_right_n_is_never_flagged_by_the_lengths)
{
    // many frames of many setups, lengths straight from the channel: the
    // length test stays silent (its false alarms are far below 1 in 10^5)
    const int frames = sanitized ? 400 : 3000;
    for (int n : { 4, 8, 12 })
        for (int N : { 10, 100, 500 })
            for (double P : { 0.0, 0.001, 0.01, 0.03 }) {
                const channel_params ch(P, P, 0.0);
                const long long F = 16 + (long long)N * n;
                setup_watch w("t", F, N, n, ch);
                for (long long r : received_lengths(ch, F, frames, 0.0, uint64_t(n * N)))
                    EXPECT_FALSE(w.add_length_drift(double(r - F)))
                        << "n " << n << " N " << N << " P " << P;
                EXPECT_EQ(w.count(), 0u);
            }
}

TEST_F(setup_watch_test, a_clock_offset_of_the_examples_is_not_a_wrong_n)
{
    // docs/clock_slip.md: offsets up to +-5e-3 at N = 100, n = 8 (F = 816),
    // Pi = Pd = |offset|; a frame slips |offset| F <= 4.1 bits, never about
    // a whole codeword
    const int frames = sanitized ? 300 : 2000;
    for (double offset : { -5e-3, -2e-3, 1e-3, 2e-3, 5e-3 }) {
        const channel_params ch(std::fabs(offset), std::fabs(offset), 0.0);
        const long long F = 816;
        setup_watch w("t", F, 100, 8, ch);
        for (long long r : received_lengths(ch, F, frames, -offset * double(F), 7))
            w.add_length_drift(double(r - F));
        EXPECT_EQ(w.count(), 0u) << "offset " << offset;
    }
}

TEST_F(setup_watch_test, frames_whole_codewords_longer_or_shorter_are_flagged)
{
    // frames of N + j symbols seen by a decoder of N: warned of within the
    // window, naming N + j
    // (within length_frames_max frames where a frame's drift spreads by
    // less than about n sqrt(length_frames_max) / 8 bits: at n = 4 not S500)
    for (int n : { 4, 8 })
        for (int N : { 20, 100, 500 })
            for (int j : { -2, -1, 1, 2 }) {
                if (n == 4 && N == 500)
                    continue;
                const channel_params ch(0.01, 0.01, 0.0);
                const long long F = 16 + (long long)N * n;
                setup_watch w("t", F, N, n, ch);
                int at = -1, k = 0;
                for (long long r : received_lengths(
                         ch, F + (long long)j * n, 400, 0.0, uint64_t(N + j)))
                    if (w.add_length_drift(double(r - F)) && at < 0)
                        at = k;
                    else
                        ++k;
                ASSERT_EQ(w.count(), 1u) << "n " << n << " N " << N << " j " << j;
                EXPECT_LT(at, int(setup_watch::length_frames_max));
                const std::string msg = w.warnings()[0];
                EXPECT_NE(msg.find(" = " + std::to_string(N + j) + " symbols?"),
                          std::string::npos)
                    << msg;
                EXPECT_NE(msg.find(j > 0 ? "later" : "earlier"), std::string::npos)
                    << msg;
            }
}

TEST_F(setup_watch_test, each_warning_is_given_once_and_copies_keep_theirs)
{
    const channel_params ch(0.01, 0.01, 0.0);
    setup_watch w("t", 816, 100, 8, ch);
    for (int k = 0; k < 500; ++k)
        w.add_length_drift(8.0 + (k % 3) - 1);
    EXPECT_EQ(w.count(), 1u);
    // the likelihood: below the prediction by likelihood_sigmas on average
    // over likelihood_frames frames; NaN and infinities are not frames
    EXPECT_FALSE(w.add_likelihood(std::nan(""), 200, 10));
    EXPECT_FALSE(w.add_likelihood(-INFINITY, 200, 10));
    for (size_t k = 0; k + 1 < setup_watch::likelihood_frames; ++k)
        EXPECT_FALSE(w.add_likelihood(178, 200, 10));
    EXPECT_TRUE(w.add_likelihood(178, 200, 10)); // mean 178 < 200 - 2 x 10
    for (int k = 0; k < 100; ++k)
        EXPECT_FALSE(w.add_likelihood(100, 200, 10));
    EXPECT_EQ(w.count(), 2u);
    const setup_watch copy = w;
    EXPECT_EQ(copy.warnings(), w.warnings());
    w.warn("a caller's own");
    EXPECT_EQ(w.count(), 3u);
    EXPECT_EQ(copy.count(), 2u);
    EXPECT_EQ(w.warnings().back(), "a caller's own");

    setup_watch fine("t", 816, 100, 8, ch);
    for (int k = 0; k < 100; ++k)
        EXPECT_FALSE(fine.add_likelihood(k % 2 ? 185 : 195, 200, 10)); // 190: within
    // a new channel restarts the windows: the frames before it do not count
    const int M = int(setup_watch::length_frames_min);
    for (int k = 0; k < M - 1; ++k)
        fine.add_length_drift(8);
    fine.set_channel(channel_params(0.002, 0.002, 0.0));
    for (int k = 0; k < M - 1; ++k)
        EXPECT_FALSE(fine.add_length_drift(8));
    EXPECT_TRUE(fine.add_length_drift(8));
}

TEST_F(setup_watch_test, each_frame_against_the_channel_it_went_through)
{
    // a block told of each frame's channel by bsid_channel tags: frames of the
    // right N through Pi = 0.05, Pd = 0.01 (34 bits of drift a frame at
    // F = 816, about 4 codewords) are no wrong N; a frame a codeword long is
    const channel_params set(0.01, 0.01, 0.0), tagged(0.05, 0.01, 0.0);
    const long long F = 816;
    setup_watch right("t", F, 100, 8, set), wrong("t", F, 100, 8, set);
    const auto lengths = received_lengths(tagged, F, 400, 0.0, 3);
    const auto longer = received_lengths(tagged, F + 8, 400, 0.0, 4);
    for (size_t k = 0; k < lengths.size(); ++k) {
        right.add_length_drift(double(lengths[k] - F), tagged);
        wrong.add_length_drift(double(longer[k] - F), tagged);
    }
    EXPECT_EQ(right.count(), 0u);
    ASSERT_EQ(wrong.count(), 1u);
    EXPECT_NE(wrong.warnings()[0].find("N + 1 = 101 symbols?"), std::string::npos)
        << wrong.warnings()[0];
    EXPECT_NEAR(setup_watch::predicted_drift(F, tagged), 816 * 0.04 / 0.95, 1e-9);
}

// the stream decoder: frames of N_true symbols decoded by a decoder of N
struct wrong_n_case {
    int N_true, N;
    bool sync;
    precision_kind prec;
};

TEST_F(setup_watch_test, the_stream_decoder_reports_a_wrong_n)
{
    const codebook cb = codebook::from_spec("builtin:ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    std::vector<wrong_n_case> cases = { { 100, 99, true, precision_kind::dual },
                                        { 100, 101, true, precision_kind::single },
                                        { 100, 98, true, precision_kind::dual },
                                        { 100, 99, false, precision_kind::single } };
    if (sanitized)
        cases.resize(2);
    for (const auto& c : cases) {
        // enough frames for the mean drift's standard error interval (about
        // 5 bits / sqrt(frames) each way with W, 9 without: a start found
        // without W is less sharp) to lie within n / 4 of j n
        const int frames = c.sync ? 80 : 160;
        const auto W = c.sync ? W16 : std::vector<uint8_t>{};
        const auto s = qa::make_stream(cb, ch, c.N_true, W, frames, 11);
        stream_decoder sd(decoder(cb, ch, c.N, W, c.prec));
        auto out = sd.push(s.rx.data(), s.rx.size());
        const auto tail = sd.flush();
        out.insert(out.end(), tail.begin(), tail.end());
        if (std::getenv("BSID_QA_VERBOSE"))
            for (const auto& f : out)
                std::printf("%llu %s %lld\n",
                            (unsigned long long)f.index,
                            to_string(f.result.status),
                            f.start);
        const std::string what = "N " + std::to_string(c.N) + " for " +
                                 std::to_string(c.N_true) + (c.sync ? ", W" : ", no W");
        ASSERT_GE(sd.warning_count(), 1u) << what;
        bool named = false;
        for (const auto& w : sd.warnings())
            named = named || w.find(" = " + std::to_string(c.N_true) + " symbols?") !=
                                 std::string::npos;
        EXPECT_TRUE(named) << what << ": " << sd.warnings()[0];
    }
}

TEST_F(setup_watch_test, the_stream_decoder_is_silent_on_a_right_setup)
{
    const codebook cb = codebook::from_spec("builtin:ld3-modvec6");
    for (double P : { 0.001, 0.01, 0.02 })
        for (bool sync : { true, false }) {
            const channel_params ch(P, P, 0.0);
            const auto W = sync ? W16 : std::vector<uint8_t>{};
            const auto s = qa::make_stream(cb, ch, 100, W, sanitized ? 20 : 60, 5);
            stream_decoder sd(decoder(cb, ch, 100, W, precision_kind::single));
            sd.push(s.rx.data(), s.rx.size());
            sd.flush();
            EXPECT_EQ(sd.warning_count(), 0u)
                << "P " << P << (sync ? " W: " : " no W: ")
                << (sd.warnings().empty() ? "" : sd.warnings()[0]);
        }
}

TEST_F(setup_watch_test, the_stream_decoder_reports_a_channel_far_worse_than_set)
{
    // frames through Pi = Pd = 0.02 into a decoder set for 0.01: they decode,
    // but read far below the prediction
    const codebook cb = codebook::from_spec("builtin:ld3-modvec6");
    const auto s = qa::make_stream(cb, channel_params(0.02, 0.02, 0.0), 100, W16, 40, 3);
    stream_decoder sd(
        decoder(cb, channel_params(0.01, 0.01, 0.0), 100, W16, precision_kind::dual));
    sd.push(s.rx.data(), s.rx.size());
    sd.flush();
    ASSERT_GE(sd.warning_count(), 1u);
    EXPECT_NE(sd.warnings().back().find("far worse than the decoder's channel predicts"),
              std::string::npos)
        << sd.warnings().back();
}
