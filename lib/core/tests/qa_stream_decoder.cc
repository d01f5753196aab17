/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// stream_decoder on the CPU: the second frame of a stream against a brute
// force over both frames jointly; long streams through one continuous
// channel against genie framing; chunks of any size; start tags; a burst of
// random bits; the end of the stream; bad input.

#include "framing/search_parts.h"
#include "qa_frame_reference.h"
#include "qa_sanitized.h"
#include "qa_stream_reference.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/framing/stream_batch.h>
#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <gtest/gtest.h>
#include <cmath>
#include <map>
#include <random>

using namespace bsid;

namespace {

using qa::make_stream;
using qa::sanitized; // the long stream is shorter under the sanitizers

std::shared_ptr<frame_decoder> cpu_decoder(const codebook& cb,
                                           const channel_params& ch,
                                           int N,
                                           const std::vector<uint8_t>& W,
                                           precision_kind prec = precision_kind::single,
                                           int threads = 2)
{
    decoder_config cfg(cb, ch, N);
    cfg.backend = backend_kind::cpu;
    cfg.precision = prec;
    cfg.threads = threads;
    return std::make_shared<frame_decoder>(cfg, W);
}

// symbol errors of a frame's hard decisions against the message
long long symbol_errors(const stream_frame& f, const std::vector<int32_t>& msg, int q)
{
    return qa::symbol_errors(f.posteriors, msg, q);
}

std::vector<stream_frame> push_all(stream_decoder& sd,
                                   const std::vector<uint8_t>& rx,
                                   size_t chunk,
                                   const std::vector<size_t>& tags = {})
{
    std::vector<stream_frame> out;
    for (size_t at = 0; at < rx.size(); at += chunk) {
        const size_t c = std::min(chunk, rx.size() - at);
        std::vector<size_t> here;
        for (size_t t : tags)
            if (t >= at && t < at + c)
                here.push_back(t - at);
        auto got = sd.push(rx.data() + at, c, here);
        for (auto& f : got)
            out.push_back(std::move(f));
    }
    for (auto& f : sd.flush())
        out.push_back(std::move(f));
    return out;
}

} // namespace

TEST(stream_decoder, second_frame_matches_a_joint_brute_force)
{
    // frame 2's posteriors with frame 1's trimmed forward end metric as its
    // start prior equal the marginals of both frames decoded jointly: frame
    // 1 under its start prior, frame 2 over the segment the stream decoder
    // read, with its free end and look-ahead
    const codebook cb = qa::tiny_code();
    const channel_params ch(0.1, 0.15, 0.05);
    const int N = 2, q = cb.q();
    for (const std::string Ws : { "", "101" }) {
        const auto W = parse_sync_word(Ws);
        const int G = int(W.size());
        for (int K : { 0, 1 }) {
            decoder_config cfg = qa::covering(cb, ch, N, 24, G, backend_kind::cpu);
            cfg.precision = precision_kind::dual;
            cfg.Pr = 1e-30; // (the limits are explicit; Pr trims the carried prior)
            auto fd = std::make_shared<frame_decoder>(cfg, W);
            stream_options opt;
            opt.lookahead = K;
            opt.first_start = position_weights{ { 0, 1, 2 }, { 0.7, 0.2, 0.1 } };
            opt.sync_threshold =
                -std::numeric_limits<double>::infinity(); // never lose sync
            stream_decoder sd(fd, opt);
            const auto s = make_stream(cb, ch, N, W, 24, 5 + uint64_t(K) + uint64_t(G));
            const auto frames = push_all(sd, s.rx, s.rx.size());
            ASSERT_GE(frames.size(), 2u);
            const stream_frame& f2 = frames[1];
            ASSERT_TRUE(frames[0].result.ok()) << frames[0].result.reason;
            ASSERT_TRUE(f2.result.ok()) << f2.result.reason;
            const long long S2 = f2.segment_end;
            ASSERT_LT(S2, (long long)s.rx.size()) << "the segment must not be cut";
            const uint8_t* rx = s.rx.data();
            // T2(e2): the next frame's W and K symbols, then random bits, to
            // S2; or, with probability gap, random bits from e2 on
            std::vector<double> T2(size_t(S2 + 1), 0.0);
            const double gap = sd.options().gap_probability;
            EXPECT_GT(gap, 0); // (the default: the reference weighs it)
            for (long long e = 0; e <= S2; ++e) {
                qa::each_message(K, q, [&](const std::vector<int>& m) {
                    const auto x = qa::sent_bits(cb, W, m);
                    const auto row = full_lattice_last_row(
                        ch, x.data(), x.size(), rx + e, size_t(S2 - e));
                    for (long long c = 0; c <= S2 - e; ++c)
                        T2[size_t(e)] += std::pow(double(q), -K) * row[size_t(c)] *
                                         std::ldexp(1.0, -int(S2 - e - c));
                });
                T2[size_t(e)] =
                    (1 - gap) * T2[size_t(e)] + gap * std::ldexp(1.0, -int(S2 - e));
            }
            // F1(e1): frame 1 from its start prior to an end at e1
            std::vector<double> F1(size_t(S2 + 1), 0.0);
            qa::each_message(N, q, [&](const std::vector<int>& m) {
                const auto x = qa::sent_bits(cb, W, m);
                for (size_t k = 0; k < opt.first_start->positions.size(); ++k) {
                    const long long s1 = opt.first_start->positions[k];
                    const auto row = full_lattice_last_row(
                        ch, x.data(), x.size(), rx + s1, size_t(S2 - s1));
                    for (long long c = 0; c <= S2 - s1; ++c)
                        F1[size_t(s1 + c)] += opt.first_start->weights[k] *
                                              std::pow(double(q), -N) * row[size_t(c)];
                }
            });
            // frame 2 from e1 to e2, summed over both frames' boundaries
            std::vector<double> post(size_t(N) * q, 0.0);
            double total = 0;
            qa::each_message(N, q, [&](const std::vector<int>& m) {
                const auto x = qa::sent_bits(cb, W, m);
                for (long long e1 = 0; e1 <= S2; ++e1) {
                    if (F1[size_t(e1)] == 0)
                        continue;
                    const auto row = full_lattice_last_row(
                        ch, x.data(), x.size(), rx + e1, size_t(S2 - e1));
                    for (long long c = 0; c <= S2 - e1; ++c) {
                        const double v =
                            F1[size_t(e1)] * row[size_t(c)] * T2[size_t(e1 + c)];
                        for (int i = 0; i < N; ++i)
                            post[size_t(i) * q + size_t(m[size_t(i)])] += v;
                        total += v;
                    }
                }
            });
            const std::string what = "W='" + Ws + "' K=" + std::to_string(K);
            for (size_t k = 0; k < post.size(); ++k)
                EXPECT_NEAR(f2.posteriors[k], post[k] / total, 1e-9)
                    << what << " entry " << k;
        }
    }
}

TEST(stream_decoder, follows_a_long_stream_like_genie_framing)
{
    // 10^4 frames back to back through one continuous channel, decoded with
    // no genie: every frame comes out, at its index; with a sync word fewer
    // than 1 in 10^3 is erased (the sync word's test), without one fewer
    // than 2 in 10^3 (a frame's edges must favour its own books over a
    // neighbour's: ld3-modvec6 repeats every 6 codewords); the MAP
    // boundaries are the true ones almost always, memory stays flat, and the
    // symbol errors of the frames put out ok stay within 1.2x of decoding
    // the same frames between their true boundaries. N = 50 here (10^4 S500
    // frames take the CPU an hour; the GPU test qa_stream_decoder_cuda runs
    // them)
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    const int N = 50, frames = sanitized ? 400 : 10000;
    for (const std::string Ws : { "", "0110100111010010" }) {
        const auto W = parse_sync_word(Ws);
        auto fd = cpu_decoder(cb, ch, N, W);
        stream_decoder sd(fd);
        const auto s = make_stream(cb, ch, N, W, frames, 99);
        size_t peak = 0;
        std::vector<stream_frame> out;
        for (size_t at = 0; at < s.rx.size(); at += 1000) {
            for (auto& f :
                 sd.push(s.rx.data() + at, std::min<size_t>(1000, s.rx.size() - at)))
                out.push_back(std::move(f));
            peak = std::max(peak, sd.buffered());
        }
        for (auto& f : sd.flush())
            out.push_back(std::move(f));
        ASSERT_EQ(out.size(), size_t(frames)) << "W='" << Ws << "'";
        // genie framing: each frame between its true boundaries
        std::vector<frame_view> views;
        std::vector<std::vector<double>> gpost(static_cast<size_t>(frames),
                                               std::vector<double>());
        std::vector<double*> ptrs;
        for (int k = 0; k < frames; ++k) {
            views.push_back({ s.rx.data() + s.starts[size_t(k)],
                              size_t(s.starts[size_t(k) + 1] - s.starts[size_t(k)]) });
            gpost[size_t(k)].resize(size_t(N) * cb.q());
            ptrs.push_back(gpost[size_t(k)].data());
        }
        const auto gres = fd->decode_batch(views, ptrs);
        long long errs = 0, gerrs = 0, wrong_ends = 0, erased = 0;
        for (int k = 0; k < frames; ++k) {
            const auto& f = out[size_t(k)];
            ASSERT_EQ(f.index, uint64_t(k));
            ASSERT_TRUE(gres[size_t(k)].ok());
            if (!f.result.ok()) {
                ASSERT_TRUE(f.result.status == frame_status::sync_ambiguous ||
                            f.result.status == frame_status::sync_lost)
                    << "frame " << k << ": " << f.result.reason;
                ++erased;
                continue;
            }
            EXPECT_LE(std::llabs(f.start - s.starts[size_t(k)]), 8) << "frame " << k;
            errs += symbol_errors(f, s.messages[size_t(k)], cb.q());
            stream_frame g;
            g.posteriors = gpost[size_t(k)];
            gerrs += symbol_errors(g, s.messages[size_t(k)], cb.q());
            wrong_ends += f.end != s.starts[size_t(k) + 1];
            EXPECT_TRUE(std::isfinite(f.log_likelihood_ratio) &&
                        f.log_likelihood_ratio > 0);
        }
        EXPECT_LE(erased, Ws.empty() ? frames / 500 : frames / 1000)
            << "W='" << Ws << "'";
        EXPECT_LE(double(errs), 1.2 * double(gerrs) + 2) << "W='" << Ws << "'";
        EXPECT_LE(wrong_ends, frames / 10) << "W='" << Ws << "'";
        // flat memory: a few frames' worth, however long the stream (a
        // search reads half a frame length either side of its frame length,
        // its frame and the whole next frame)
        EXPECT_LE(peak, size_t(6 * s.F + 1000)) << "W='" << Ws << "'";
    }
}

TEST(stream_decoder, chunks_of_any_size_give_the_same_frames)
{
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.02, 0.02, 0.01);
    const int N = 12;
    const auto W = parse_sync_word("01101001");
    const auto s = make_stream(cb, ch, N, W, 20, 3);
    auto fd = cpu_decoder(cb, ch, N, W, precision_kind::dual);
    std::vector<std::vector<stream_frame>> runs;
    for (size_t chunk : { size_t(1), size_t(7), size_t(113), s.rx.size() }) {
        stream_decoder sd(fd);
        runs.push_back(push_all(sd, s.rx, chunk));
    }
    ASSERT_EQ(runs[0].size(), 20u);
    for (size_t r = 1; r < runs.size(); ++r) {
        ASSERT_EQ(runs[r].size(), runs[0].size());
        for (size_t k = 0; k < runs[0].size(); ++k) {
            EXPECT_EQ(runs[r][k].result.status, runs[0][k].result.status);
            EXPECT_EQ(runs[r][k].start, runs[0][k].start);
            EXPECT_EQ(runs[r][k].end, runs[0][k].end);
            EXPECT_EQ(runs[r][k].posteriors, runs[0][k].posteriors);
        }
    }
}

TEST(stream_decoder, a_burst_of_random_bits_is_flagged_and_reacquired)
{
    // three frame lengths of random bits in the middle of a stream with
    // sync words: flagged within two frames, then decoding re-acquires by
    // searching for the sync word; frames in (the burst counted as three)
    // equal frames out
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    const int N = 30, before = 10, after = 10;
    const auto W = parse_sync_word("0110100111010010");
    for (bool tags : { false, true }) {
        const auto a = make_stream(cb, ch, N, W, before, 21);
        const auto b = make_stream(cb, ch, N, W, after, 22);
        std::mt19937 g(5);
        std::vector<uint8_t> rx(a.rx.begin(), a.rx.begin() + a.starts[before]);
        const long long burst_at = (long long)rx.size();
        for (long long j = 0; j < 3 * a.F; ++j)
            rx.push_back(uint8_t(g() & 1u));
        const long long resume = (long long)rx.size();
        rx.insert(rx.end(), b.rx.begin(), b.rx.end());
        std::vector<size_t>
            tag_at; // on the bit after each sync word, as a correlator puts them
        if (tags) {
            for (int k = 0; k < before; ++k)
                tag_at.push_back(size_t(a.starts[size_t(k)] + 16));
            for (int k = 0; k < after; ++k)
                tag_at.push_back(size_t(resume + b.starts[size_t(k)] + 16));
        }
        auto fd = cpu_decoder(cb, ch, N, W);
        stream_decoder sd(fd);
        const auto out = push_all(sd, rx, 500, tag_at);
        ASSERT_EQ(out.size(), size_t(before + 3 + after)) << (tags ? "tags" : "search");
        for (int k = 0; k < before; ++k)
            EXPECT_TRUE(out[size_t(k)].result.ok())
                << k << ": " << out[size_t(k)].result.reason;
        // flagged within two frames of the burst's start
        EXPECT_EQ(out[before].result.status, frame_status::sync_lost);
        for (int k = before; k < before + 3; ++k)
            EXPECT_EQ(out[size_t(k)].result.status, frame_status::sync_lost) << k;
        for (int k = 0; k < after; ++k) {
            const auto& f = out[size_t(before + 3 + k)];
            EXPECT_TRUE(f.result.ok()) << k << ": " << f.result.reason;
            EXPECT_EQ(f.start, resume + b.starts[size_t(k)]) << k;
            EXPECT_LE(symbol_errors(f, b.messages[size_t(k)], cb.q()), 3) << k;
        }
        EXPECT_TRUE(out[size_t(before + 3)].acquired);
        EXPECT_EQ(out[size_t(before + 3)].nominal_start, out[size_t(before + 3)].start);
        (void)burst_at;
    }
}

TEST(stream_decoder, acquires_at_a_start_tag_and_ignores_tags_inside_frames)
{
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    const int N = 20, frames = 8;
    const auto W = parse_sync_word("0110100111010010");
    const auto s = make_stream(cb, ch, N, W, frames, 8);
    // noise before the first frame: the decoder starts unsynchronized and
    // acquires at the tag (on the bit after the first sync word)
    std::mt19937 g(1);
    std::vector<uint8_t> rx;
    const long long lead = 37;
    for (long long j = 0; j < lead; ++j)
        rx.push_back(uint8_t(g() & 1u));
    rx.insert(rx.end(), s.rx.begin(), s.rx.end());
    std::vector<size_t> tags = { size_t(lead + s.starts[0] + 16),
                                 // a tag in the middle of frame 2, and two
                                 // closer together than a frame
                                 size_t(lead + s.starts[2] + 70),
                                 size_t(lead + s.starts[4] + 16),
                                 size_t(lead + s.starts[4] + 50) };
    auto fd = cpu_decoder(cb, ch, N, W);
    stream_options opt;
    opt.first_start.reset();
    opt.search = false; // only tags acquire
    stream_decoder sd(fd, opt);
    const auto out = push_all(sd, rx, 64, tags);
    // the lead (less than a frame) gives no frame; then every frame decodes
    ASSERT_EQ(out.size(), size_t(frames));
    for (int k = 0; k < frames; ++k) {
        EXPECT_TRUE(out[size_t(k)].result.ok())
            << k << ": " << out[size_t(k)].result.reason;
        EXPECT_EQ(out[size_t(k)].start, lead + s.starts[size_t(k)]) << k;
    }
    EXPECT_TRUE(out[0].acquired);
    EXPECT_EQ(out[0].nominal_start, lead + s.starts[0]);
    // the tag at frame 4 anchors its nominal start
    EXPECT_EQ(out[4].nominal_start, lead + s.starts[4]);
    EXPECT_EQ(out[4].start_drift(), 0);
}

TEST(stream_decoder, a_start_tag_overrides_a_wrong_alignment)
{
    // the decoder starts synchronized 40 bits (5 codewords) late or early:
    // every codeword it reads is still a codeword. Late: the tag of frame 0
    // lies before the carried start; early: the tag of frame 1 lies inside
    // the frame carried from frame 0. Where the sync word fits far better at
    // the tag, the decoder moves there, without shifting the frames' indices;
    // the frame read early (its sync word over codewords) is an erasure,
    // never ok, whatever the sync threshold.
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    const int N = 100, frames = 6;
    const auto W = parse_sync_word("0110100111010010");
    const auto s = make_stream(cb, ch, N, W, frames, 31);
    auto fd = cpu_decoder(cb, ch, N, W);
    for (long long shift : { 40LL, -40LL }) {
        // early: 40 bits of another frame's codewords before the stream
        std::vector<uint8_t> rx;
        if (shift < 0)
            rx.assign(s.rx.begin() + (s.starts[2] - 40), s.rx.begin() + s.starts[2]);
        const long long lead = (long long)rx.size();
        rx.insert(rx.end(), s.rx.begin(), s.rx.end());
        std::vector<size_t> tags;
        for (int k = shift > 0 ? 0 : 1; k < frames; ++k)
            tags.push_back(size_t(lead + s.starts[size_t(k)] + 16));
        stream_options opt;
        opt.first_start =
            position_weights{ { lead + shift > 0 ? lead + shift : 0 }, { 1.0 } };
        opt.search = false;
        // every frame in sync, a wrong alignment's too (the test does not
        // depend on the margin by which a shifted frame fails or passes)
        opt.sync_threshold = -1e9;
        stream_decoder sd(fd, opt);
        const auto out = push_all(sd, rx, 100, tags);
        const std::string what = "shift " + std::to_string(shift);
        ASSERT_EQ(out.size(), size_t(frames)) << what;
        if (shift < 0) { // the wrong alignment of frame 0
            EXPECT_EQ(out[0].result.status, frame_status::sync_lost) << what;
        }
        for (int k = shift > 0 ? 0 : 1; k < frames; ++k) {
            ASSERT_TRUE(out[size_t(k)].result.ok())
                << what << ", frame " << k << ": " << out[size_t(k)].result.reason;
            EXPECT_EQ(out[size_t(k)].start, lead + s.starts[size_t(k)])
                << what << ", " << k;
            EXPECT_LE(symbol_errors(out[size_t(k)], s.messages[size_t(k)], cb.q()),
                      N / 10)
                << what << ", " << k;
        }
        EXPECT_TRUE(out[shift > 0 ? 0 : 1].acquired) << what;
    }
}

TEST(stream_decoder, a_false_alarm_tag_while_hunting_keeps_the_frame_indices)
{
    // frame 3 is random bits (sync lost there); a correlator's false alarm
    // lies inside it, nearer to or farther from frame 4 than half a frame;
    // with or without it, every frame after the burst is put out at its own
    // index (an erasure, or its message)
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    const int N = 20, frames = 9;
    const auto W = parse_sync_word("0110100111010010");
    auto s = make_stream(cb, ch, N, W, frames, 32);
    std::mt19937 g(3);
    for (long long j = s.starts[3]; j < s.starts[4]; ++j)
        s.rx[size_t(j)] = uint8_t(g() & 1u);
    auto fd = cpu_decoder(cb, ch, N, W);
    for (long long before :
         { 0LL, 60LL, 140LL }) { // the false alarm, bits before frame 4
        std::vector<size_t> tags;
        for (int k = 0; k < frames; ++k)
            if (k != 3)
                tags.push_back(size_t(s.starts[size_t(k)] + 16));
        if (before > 0)
            tags.push_back(size_t(s.starts[4] - before + 16));
        std::sort(tags.begin(), tags.end());
        for (bool search : { false, true }) {
            stream_options opt;
            opt.search = search;
            stream_decoder sd(fd, opt);
            const auto out = push_all(sd, s.rx, 77, tags);
            const std::string what = "false alarm " + std::to_string(before) +
                                     " bits before frame 4, search " +
                                     std::to_string(search);
            ASSERT_EQ(out.size(), size_t(frames)) << what;
            EXPECT_FALSE(out[3].result.ok()) << what;
            int decoded = 0;
            for (int k = 4; k < frames; ++k) {
                if (!out[size_t(k)].result.ok())
                    continue;
                ++decoded;
                EXPECT_LE(symbol_errors(out[size_t(k)], s.messages[size_t(k)], cb.q()), 1)
                    << what << ": frame " << k << " is not the frame sent there";
            }
            EXPECT_GE(decoded, frames - 5) << what; // at most frame 4 lost too
        }
    }
}

TEST(stream_decoder, without_tags_or_search_frame_lengths_are_sync_lost)
{
    // never synchronized: one sync_lost erasure per frame length, then the
    // rest of the stream as one truncated erasure if it is at least half a
    // frame length (frame lengths to the nearest), else nothing
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    const int N = 10;
    auto fd = cpu_decoder(cb, ch, N, {});
    stream_options opt;
    opt.first_start.reset();
    opt.search = false;
    stream_decoder sd(fd, opt);
    std::vector<uint8_t> rx(size_t(3 * 80 + 40), 1);
    const auto out = push_all(sd, rx, 1);
    ASSERT_EQ(out.size(), 4u);
    for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(out[size_t(k)].result.status, frame_status::sync_lost);
        EXPECT_EQ(out[size_t(k)].nominal_start, 80 * k);
        for (double p : out[size_t(k)].posteriors)
            EXPECT_EQ(p, 1.0 / 16);
    }
    EXPECT_EQ(out[3].result.status, frame_status::truncated);
    stream_decoder sd2(fd, opt);
    std::vector<uint8_t> rx2(size_t(3 * 80 + 39), 1);
    EXPECT_EQ(push_all(sd2, rx2, 1000).size(), 3u);
}

TEST(stream_decoder, the_end_of_the_stream)
{
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    const int N = 20;
    const auto W = parse_sync_word("01101001");
    const auto s = make_stream(cb, ch, N, W, 5, 4);
    auto fd = cpu_decoder(cb, ch, N, W);
    {
        // a stream that ends with its last frame: every frame, no more
        stream_decoder sd(fd);
        const auto out = push_all(sd, s.rx, 100);
        ASSERT_EQ(out.size(), 5u);
        for (const auto& f : out)
            EXPECT_TRUE(f.result.ok()) << f.result.reason;
        EXPECT_EQ(out[4].end, (long long)s.rx.size());
    }
    {
        // cut in the middle of the last frame: a truncated erasure
        stream_decoder sd(fd);
        std::vector<uint8_t> cut(s.rx.begin(), s.rx.begin() + s.starts[4] + 60);
        const auto out = push_all(sd, cut, 100);
        ASSERT_EQ(out.size(), 5u);
        for (int k = 0; k < 4; ++k)
            EXPECT_TRUE(out[size_t(k)].result.ok()) << out[size_t(k)].result.reason;
        EXPECT_EQ(out[4].result.status, frame_status::truncated) << out[4].result.reason;
    }
    {
        // an empty stream: nothing, and no error
        stream_decoder sd(fd);
        EXPECT_TRUE(sd.push(static_cast<const uint8_t*>(nullptr), 0).empty());
        EXPECT_TRUE(sd.flush().empty());
        EXPECT_EQ(sd.received(), 0);
    }
}

TEST(stream_decoder, bad_input)
{
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    const int N = 20, frames = 6;
    const auto W = parse_sync_word("0110100111010010");
    auto fd = cpu_decoder(cb, ch, N, W);
    {
        // a byte that is not a bit: its frame is an invalid_input erasure,
        // then the decoder re-acquires (by search); frames in equal frames out
        auto s = make_stream(cb, ch, N, W, frames, 12);
        s.rx[size_t(s.starts[2] + 40)] = 7;
        stream_decoder sd(fd);
        const auto out = push_all(sd, s.rx, 256);
        ASSERT_EQ(out.size(), size_t(frames));
        EXPECT_EQ(out[2].result.status, frame_status::invalid_input)
            << out[2].result.reason;
        for (int k : { 0, 1, 3, 4, 5 })
            EXPECT_TRUE(out[size_t(k)].result.ok())
                << k << ": " << out[size_t(k)].result.reason;
        EXPECT_TRUE(out[3].acquired);
    }
    {
        stream_decoder sd(fd);
        const uint8_t b[2] = { 0, 1 };
        EXPECT_THROW(sd.push(b, 2, { 2 }),
                     std::invalid_argument); // tag outside the chunk
        EXPECT_THROW(sd.push(static_cast<const uint8_t*>(nullptr), 3),
                     std::invalid_argument);
        sd.flush();
        EXPECT_THROW(sd.push(b, 2), std::invalid_argument); // after the end
    }
    const auto bad = [&](auto edit) {
        stream_options o;
        edit(o);
        EXPECT_THROW(stream_decoder(fd, o), std::invalid_argument);
    };
    bad([](stream_options& o) { o.lookahead = -2; });
    bad([](stream_options& o) { o.lookahead = N + 1; });
    bad([](stream_options& o) { o.acquire_window = -1; });
    bad([](stream_options& o) { o.sync_threshold = std::nan(""); });
    bad([](stream_options& o) { o.first_start = position_weights{ {}, {} }; });
    bad([](stream_options& o) { o.first_start = position_weights{ { -1 }, { 1.0 } }; });
    bad([](stream_options& o) {
        o.first_start = position_weights{ { 0, 1 }, { 0.0, 0.0 } };
    });
    bad([](stream_options& o) {
        o.first_start = position_weights{ { 0 }, { INFINITY } };
    });
    EXPECT_THROW(stream_decoder(nullptr), std::invalid_argument);
}

TEST(stream_batch, many_streams_decode_as_each_alone)
{
    // a round decodes the next frame of every stream; each stream's frames
    // are those of its own stream_decoder (streams of different lengths,
    // one with a burst that loses sync, one that starts unsynchronized).
    // With one worker the streams' own steps run on the decoder's 2 threads
    // (with 3, one each); without a sync word they include the edge tests
    // and, after the burst, the search's reads of shifts by whole periods.
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    const int N = 15;
    for (const auto& W :
         { parse_sync_word("0110100111010010"), std::vector<uint8_t>{} }) {
        auto fd = cpu_decoder(cb, ch, N, W, precision_kind::dual);
        std::vector<std::vector<uint8_t>> rx;
        for (int k = 0; k < 4; ++k)
            rx.push_back(make_stream(cb, ch, N, W, 3 + 2 * k, 40 + uint64_t(k)).rx);
        std::mt19937 g(2);
        for (int j = 0; j < 300; ++j)
            rx[2].insert(rx[2].begin() + 200, uint8_t(g() & 1u));
        stream_options opt;
        for (int workers : { 1, 3 }) {
            SCOPED_TRACE(::testing::Message()
                         << "sync word of " << W.size() << ", " << workers << " workers");
            stream_batch batch(fd, rx.size(), opt, workers);
            for (size_t k = 0; k < rx.size(); ++k) {
                batch.feed(k, rx[k].data(), rx[k].size());
                batch.end_of_stream(k);
            }
            size_t rounds = 0;
            const auto got = batch.decode(&rounds);
            ASSERT_EQ(got.size(), rx.size());
            size_t most = 0;
            for (size_t k = 0; k < rx.size(); ++k) {
                stream_decoder alone(fd, opt);
                const auto want = push_all(alone, rx[k], rx[k].size());
                ASSERT_EQ(got[k].size(), want.size()) << "stream " << k;
                for (size_t j = 0; j < want.size(); ++j) {
                    EXPECT_EQ(got[k][j].result.status, want[j].result.status)
                        << k << "/" << j;
                    EXPECT_EQ(got[k][j].result.reason, want[j].result.reason)
                        << k << "/" << j;
                    EXPECT_EQ(got[k][j].start, want[j].start) << k << "/" << j;
                    EXPECT_EQ(got[k][j].end, want[j].end) << k << "/" << j;
                    EXPECT_EQ(got[k][j].posteriors, want[j].posteriors) << k << "/" << j;
                }
                most = std::max(most, want.size());
            }
            EXPECT_GT(most, 8u);
            // about one round per frame of the longest stream, and a search of
            // a frame length at most four more (three sync word positions,
            // then the frame decoded from the one found)
            size_t searched = 0;
            for (const auto& s : got)
                for (const auto& f : s)
                    searched += f.acquired || !f.result.ok();
            EXPECT_LE(rounds, most + 2 + 4 * searched);
            bool lost = false;
            for (const auto& f : got[2])
                lost = lost || !f.result.ok();
            EXPECT_TRUE(lost);
            if (!W.empty()) {
                bool sync_lost = false;
                for (const auto& f : got[2])
                    sync_lost = sync_lost || f.result.status == frame_status::sync_lost;
                EXPECT_TRUE(sync_lost);
            }
        }
        EXPECT_THROW(stream_batch(fd, 2, opt, 0), std::invalid_argument);
    }
}

TEST(stream_batch, the_frame_decoders_stage_times_lie_within_the_workers_seconds)
{
    // The streams' own steps run on several host threads and decode frames
    // of their own there (a search's reads); the frame decoder's stage times
    // are summed over the threads that call it, and so are the workers'
    // seconds: the stages never exceed them (the stream benchmark's own
    // stage, the rest, is never negative). Every stream has a burst, so
    // that their searches run side by side.
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    const int N = 15;
    auto fd = cpu_decoder(cb, ch, N, {}, precision_kind::dual, 4);
    std::vector<std::vector<uint8_t>> rx;
    std::mt19937 g(4);
    for (int k = 0; k < 16; ++k) {
        rx.push_back(make_stream(cb, ch, N, {}, 6, 70 + uint64_t(k)).rx);
        for (int j = 0; j < 250; ++j)
            rx.back().insert(rx.back().begin() + 300, uint8_t(g() & 1u));
    }
    fd->set_profiling(true);
    for (int workers : { 1, 2 }) {
        fd->reset_profile();
        stream_batch batch(fd, rx.size(), stream_options{}, workers);
        for (size_t k = 0; k < rx.size(); ++k) {
            batch.feed(k, rx[k].data(), rx[k].size());
            batch.end_of_stream(k);
        }
        const auto got = batch.decode();
        size_t searched = 0;
        for (const auto& s : got)
            for (const auto& f : s)
                searched += f.acquired;
        EXPECT_GE(searched, rx.size()) << workers << " workers";
        const frame_stage_times t = fd->profile();
        const double stages = t.prepare + t.lookahead + t.decode + t.finish;
        EXPECT_GT(stages, 0.0);
        EXPECT_LE(stages, batch.worker_seconds()) << workers << " workers";
    }
}

TEST(search_parts, cut_and_merged_they_give_the_whole_windows_results)
{
    // A search's request (a window of 700 starts, the whole next frame
    // after it, the items before a start random, a gap) decoded whole and in
    // parts of 256, 100 and 1 starts, merged: the same ln LR, evidence,
    // start and end posteriors, to rounding (double). The prior is the
    // stream's model after a frame decoded ok (most of its mass where that
    // frame ended, the rest uniform), so the parts' masses differ by
    // orders of magnitude; a window whose best start lies in a part of
    // little mass is merged as well as one where it lies in the heavy one.
    // In float the parts' decodes round apart from the whole's: within the
    // project's float tolerance (1e-4, of the ln LR's size for the logs).
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    const int N = 100;
    const auto a = make_stream(cb, ch, N, {}, 4, 71);
    for (auto prec : { precision_kind::dual, precision_kind::single })
        for (long long heavy : { a.starts[1] - 200, a.starts[1] + 3 }) {
            SCOPED_TRACE(::testing::Message()
                         << "prior's peak at " << heavy << ", " << to_string(prec));
            auto fd = cpu_decoder(cb, ch, N, {}, prec);
            const bool dual = prec == precision_kind::dual;
            const double tol_llr = dual ? 1e-9 : 1e-4, tol_post = dual ? 1e-12 : 1e-4;
            const long long s0 = a.starts[1] - 350;
            frame_request whole;
            whole.bits = a.rx.data() + s0;
            whole.L = size_t(a.starts[3] + 60 - s0);
            position_weights p;
            for (long long x = 0; x < 700; ++x) {
                p.positions.push_back(x);
                p.weights.push_back(1e-3 / 700 +
                                    (std::llabs(s0 + x - heavy) <= 2 ? 0.2 : 0.0));
            }
            whole.start = p;
            whole.end = end_mode::free;
            whole.lookahead = N;
            whole.next_frame_follows = true;
            whole.random_before = true;
            whole.gap = 1e-3;
            whole.posteriors = false;
            const frame_decode_result want = fd->decode(whole);
            ASSERT_TRUE(want.result.ok()) << want.result.reason;
            auto as_map = [](const std::vector<long long>& pos,
                             const std::vector<double>& w) {
                std::map<long long, double> m;
                for (size_t k = 0; k < pos.size(); ++k)
                    m[pos[k]] += w[k];
                return m;
            };
            auto expect_near = [&](const std::map<long long, double>& x,
                                   const std::map<long long, double>& y) {
                std::map<long long, double> all = x;
                for (const auto& [k, v] : y)
                    all[k] += 0.0;
                double worst = 0;
                for (const auto& [k, v] : all) {
                    const double u = x.count(k) ? x.at(k) : 0.0;
                    const double w = y.count(k) ? y.at(k) : 0.0;
                    worst = std::max(worst, std::fabs(u - w));
                }
                EXPECT_LT(worst, tol_post);
            };
            for (size_t part : { size_t(256), size_t(100), size_t(1) }) {
                SCOPED_TRACE(::testing::Message() << "parts of " << part);
                auto cut = detail::cut_search(whole, part);
                ASSERT_EQ(cut.requests.size(), (700 + part - 1) / part);
                double total = 0;
                for (double m : cut.mass)
                    total += m;
                EXPECT_NEAR(total, 1.0, 1e-12);
                auto got = fd->decode_batch(cut.requests);
                const auto merged = detail::merge_search_parts(got, cut.mass, 2);
                ASSERT_TRUE(merged.result.ok());
                EXPECT_NEAR(
                    merged.log_likelihood_ratio,
                    want.log_likelihood_ratio,
                    dual ? tol_llr
                         : tol_llr * std::max(1.0, std::fabs(want.log_likelihood_ratio)));
                EXPECT_NEAR(merged.log_evidence,
                            want.log_evidence,
                            dual ? tol_llr
                                 : tol_llr * std::max(1.0, std::fabs(want.log_evidence)));
                expect_near(as_map(merged.start.positions, merged.start.weights),
                            as_map(want.start.positions, want.start.weights));
                expect_near(as_map(merged.end_positions, merged.end_posterior),
                            as_map(want.end_positions, want.end_posterior));
            }
        }
    // a part that cannot be decoded counts for nothing; none: the first's refusal
    std::vector<frame_decode_result> none(2);
    none[0].result = { frame_status::impossible, "first" };
    none[1].result = { frame_status::impossible, "second" };
    EXPECT_EQ(detail::merge_search_parts(none, { 0.5, 0.5 }, 2).result.reason, "first");
    EXPECT_THROW(detail::merge_search_parts(none, { 1.0 }, 2), std::invalid_argument);
}

TEST(stream_decoder, a_search_in_parts_finds_what_the_whole_window_finds)
{
    // Without a sync word a search's start prior spans a frame length (800
    // starts here: 4 parts of search_part_starts). Decoded in parts and
    // merged (the GPU's way) or whole (the CPU's), the same frames come
    // out: every status and boundary, and each frame put out has the same
    // posteriors (it is decoded again from a window around the start
    // found). Bursts of 1 to 90 random bits (whole periods of 48 bits among
    // them) make searches that find the frame again, at a shifted start or
    // where it was, and the stream starts unsynchronized (a search from the
    // start). Through stream_batch too, whose rounds batch the parts and
    // the shifts' reads of every stream.
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    const int N = 100, frames = 6;
    auto fd = cpu_decoder(cb, ch, N, {}, precision_kind::dual);
    std::vector<std::vector<uint8_t>> rx;
    for (int k = 0; k < 4; ++k) {
        const auto a = make_stream(cb, ch, N, {}, frames, 60 + uint64_t(k));
        std::mt19937 g(uint32_t(k) + 3);
        std::vector<uint8_t> r = a.rx;
        for (int b : { 2, 4 }) { // a burst before frames 2 and 4 (from the end)
            const int len = k == 0 ? 48 : k == 1 ? 96 : 1 + int(g() % 90u);
            for (int j = 0; j < len; ++j)
                r.insert(r.begin() + a.starts[size_t(b)], uint8_t(g() & 1u));
        }
        rx.push_back(std::move(r));
    }
    for (bool unsynced : { false, true }) {
        SCOPED_TRACE(unsynced ? "unsynchronized" : "synchronized at the start");
        stream_options whole, parts;
        whole.search_in_parts = false;
        parts.search_in_parts = true;
        if (unsynced)
            whole.first_start.reset(), parts.first_start.reset();
        size_t searched = 0;
        std::vector<std::vector<stream_frame>> want;
        for (size_t k = 0; k < rx.size(); ++k) {
            stream_decoder a(fd, whole), b(fd, parts);
            want.push_back(push_all(a, rx[k], 333));
            const auto got = push_all(b, rx[k], 333);
            ASSERT_EQ(got.size(), want[k].size()) << "stream " << k;
            for (size_t j = 0; j < got.size(); ++j) {
                const auto &x = got[j], &y = want[k][j];
                EXPECT_EQ(x.result.status, y.result.status)
                    << k << "/" << j << ": " << x.result.reason << " against "
                    << y.result.reason;
                EXPECT_EQ(x.start, y.start) << k << "/" << j;
                EXPECT_EQ(x.end, y.end) << k << "/" << j;
                EXPECT_EQ(x.acquired, y.acquired) << k << "/" << j;
                if (x.result.ok()) {
                    EXPECT_EQ(x.posteriors, y.posteriors) << k << "/" << j;
                }
                searched += y.acquired;
            }
        }
        EXPECT_GE(searched, unsynced ? rx.size() : 2u); // the searches ran
        stream_batch batch(fd, rx.size(), parts, 2);
        for (size_t k = 0; k < rx.size(); ++k) {
            batch.feed(k, rx[k].data(), rx[k].size());
            batch.end_of_stream(k);
        }
        const auto got = batch.decode();
        for (size_t k = 0; k < rx.size(); ++k) {
            ASSERT_EQ(got[k].size(), want[k].size()) << "stream " << k;
            for (size_t j = 0; j < got[k].size(); ++j) {
                EXPECT_EQ(got[k][j].result.status, want[k][j].result.status);
                EXPECT_EQ(got[k][j].start, want[k][j].start) << k << "/" << j;
                if (got[k][j].result.ok()) {
                    EXPECT_EQ(got[k][j].posteriors, want[k][j].posteriors);
                }
            }
        }
    }
}

TEST(stream_decoder, the_automatic_lookahead)
{
    // K by default: 0 with a sync word (it places the end alone), 2 without,
    // at most N (docs/benchmarks.md, "Stream decoding": the choice measured)
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    EXPECT_EQ(stream_decoder(cpu_decoder(cb, ch, 20, parse_sync_word("0110")))
                  .options()
                  .lookahead,
              0);
    EXPECT_EQ(stream_decoder(cpu_decoder(cb, ch, 20, {})).options().lookahead, 2);
    EXPECT_EQ(stream_decoder(cpu_decoder(cb, ch, 1, {})).options().lookahead, 1);
    stream_options o;
    o.lookahead = 3;
    EXPECT_EQ(stream_decoder(cpu_decoder(cb, ch, 20, {}), o).options().lookahead, 3);
}

TEST(stream_decoder, a_steps_requests_are_decoded_each_by_its_decoder)
{
    // decode_stream_requests: requests of two decoders (two channels)
    // interleaved give, in their order, what each decoder gives alone; a
    // request without a decoder is refused
    const codebook cb = codebook::builtin("ld3-modvec6");
    auto a = cpu_decoder(cb, channel_params(0.01, 0.01, 0.0), 12, {});
    auto b = cpu_decoder(cb, channel_params(0.03, 0.02, 0.01), 12, {});
    const auto s = make_stream(cb, channel_params(0.01, 0.01, 0.0), 12, {}, 5, 17);
    std::vector<stream_request> step;
    for (size_t k = 0; k < 5; ++k) {
        frame_request r;
        r.set_items(received_items{ s.rx.data() + s.starts[k], nullptr, 2 });
        r.L = size_t(s.starts[k + 1] - s.starts[k]);
        step.push_back({ k % 3 == 1 ? b.get() : a.get(), r });
    }
    const auto want = [&] {
        std::vector<frame_decode_result> w;
        for (const auto& x : step)
            w.push_back(x.decoder->decode(x.request));
        return w;
    }();
    auto copy = step;
    const auto got = decode_stream_requests(copy);
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k) {
        EXPECT_EQ(got[k].log_likelihood_ratio, want[k].log_likelihood_ratio) << k;
        EXPECT_EQ(got[k].posteriors, want[k].posteriors) << k;
    }
    EXPECT_NE(got[0].log_likelihood_ratio, got[1].log_likelihood_ratio);
    step[2].decoder = nullptr;
    EXPECT_THROW(decode_stream_requests(step), std::invalid_argument);
}

TEST(stream_decoder, edge_tests_give_the_same_frames_on_the_cpu_or_the_backend)
{
    // Without a sync word each carried frame's edge tests are a step of their
    // own (stream_request: the alignment judge's decoders): a stream alone
    // reads them on the CPU, a stream_batch on the frame decoder's backend
    // (the same CPU decoders here; qa_stream_decoder_cuda: the GPU). Either
    // way, alone or batched, the same frames come out, with bursts that
    // make searches and frames held for their edges among them.
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.01);
    const int N = 40;
    auto fd = cpu_decoder(cb, ch, N, {}, precision_kind::dual);
    std::vector<std::vector<uint8_t>> rx;
    for (int k = 0; k < 3; ++k) {
        const auto a = make_stream(cb, ch, N, {}, 12, 80 + uint64_t(k));
        std::vector<uint8_t> r = a.rx;
        std::mt19937 g(uint32_t(k) + 5);
        for (int j = 0; j < 30 + 20 * k; ++j)
            r.insert(r.begin() + a.starts[6], uint8_t(g() & 1u));
        rx.push_back(std::move(r));
    }
    for (const bool on_backend : { false, true }) {
        stream_options opt;
        opt.edges_on_backend = on_backend;
        stream_batch batch(fd, rx.size(), opt, 2);
        std::vector<std::vector<stream_frame>> alone;
        for (size_t k = 0; k < rx.size(); ++k) {
            stream_decoder sd(fd, opt);
            alone.push_back(push_all(sd, rx[k], 501));
            batch.feed(k, rx[k].data(), rx[k].size());
            batch.end_of_stream(k);
        }
        const auto got = batch.decode();
        size_t ok = 0;
        for (size_t k = 0; k < rx.size(); ++k) {
            ASSERT_EQ(got[k].size(), alone[k].size()) << "stream " << k;
            for (size_t j = 0; j < got[k].size(); ++j) {
                const auto &x = got[k][j], &y = alone[k][j];
                EXPECT_EQ(x.result.status, y.result.status) << k << "/" << j;
                EXPECT_EQ(x.result.reason, y.result.reason) << k << "/" << j;
                EXPECT_EQ(x.start, y.start) << k << "/" << j;
                EXPECT_EQ(x.end, y.end) << k << "/" << j;
                EXPECT_EQ(x.posteriors, y.posteriors) << k << "/" << j;
                ok += x.result.ok();
            }
        }
        EXPECT_GE(ok, 30u);
    }
}
