/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The next frame decoded ahead (stream_options::decode_ahead): beside a
// carried frame's edge tests, from where that frame ends. The rule: the frames
// put out are the same as without it, to the last bit, whatever the stream
// holds (bursts that make searches and held frames, start tags right and
// wrong, items that are not valid, soft items, letters, bits arriving in
// chunks between rounds); and a stream_batch then takes about one round a
// frame where it took two.

#include "qa_sanitized.h"
#include "qa_stream_reference.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/framing/stream_batch.h>
#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <gtest/gtest.h>
#include <random>

using namespace bsid;

namespace {

using qa::sanitized;

std::shared_ptr<frame_decoder> cpu_decoder(const codebook& cb,
                                           const channel_params& ch,
                                           int N,
                                           const std::vector<uint8_t>& W = {})
{
    decoder_config cfg(cb, ch, N);
    cfg.backend = backend_kind::cpu;
    cfg.precision = precision_kind::dual;
    cfg.threads = 2;
    return std::make_shared<frame_decoder>(cfg, W);
}

// one stream's items: bits (or letters), or LLRs where soft is not empty
struct stream_input {
    std::vector<uint8_t> bits;
    std::vector<double> soft;
    std::vector<size_t> tags; // start tags, stream positions
    size_t size() const { return soft.empty() ? bits.size() : soft.size(); }
};

// the streams through one stream_batch, fed `chunk` items at a time with a
// decode() after each (every stream's rounds summed into *rounds)
std::vector<std::vector<stream_frame>> decode_all(std::shared_ptr<frame_decoder> fd,
                                                  stream_options opt,
                                                  const std::vector<stream_input>& in,
                                                  size_t chunk,
                                                  size_t* rounds)
{
    stream_batch batch(fd, in.size(), opt, 2);
    std::vector<std::vector<stream_frame>> out(in.size());
    size_t longest = 0;
    for (const auto& s : in)
        longest = std::max(longest, s.size());
    *rounds = 0;
    auto take = [&](std::vector<std::vector<stream_frame>> got) {
        for (size_t k = 0; k < got.size(); ++k)
            for (auto& f : got[k])
                out[k].push_back(std::move(f));
    };
    for (size_t at = 0; at < longest; at += chunk) {
        for (size_t k = 0; k < in.size(); ++k) {
            const auto& s = in[k];
            if (at >= s.size())
                continue;
            const size_t c = std::min(chunk, s.size() - at);
            std::vector<size_t> tags;
            for (size_t t : s.tags)
                if (t >= at && t < at + c)
                    tags.push_back(t - at);
            if (s.soft.empty())
                batch.feed(k, s.bits.data() + at, c, tags);
            else
                batch.feed(k, s.soft.data() + at, c, tags);
        }
        size_t r = 0;
        take(batch.decode(&r));
        *rounds += r;
    }
    for (size_t k = 0; k < in.size(); ++k)
        batch.end_of_stream(k);
    size_t r = 0;
    take(batch.decode(&r));
    *rounds += r;
    return out;
}

void expect_same_frames(const std::vector<std::vector<stream_frame>>& a,
                        const std::vector<std::vector<stream_frame>>& b,
                        const std::string& what)
{
    ASSERT_EQ(a.size(), b.size()) << what;
    for (size_t k = 0; k < a.size(); ++k) {
        ASSERT_EQ(a[k].size(), b[k].size()) << what << ", stream " << k;
        for (size_t j = 0; j < a[k].size(); ++j) {
            const stream_frame &x = a[k][j], &y = b[k][j];
            EXPECT_EQ(x.index, y.index) << what << " " << k << "/" << j;
            EXPECT_EQ(x.result.status, y.result.status) << what << " " << k << "/" << j;
            EXPECT_EQ(x.result.reason, y.result.reason) << what << " " << k << "/" << j;
            EXPECT_EQ(x.start, y.start) << what << " " << k << "/" << j;
            EXPECT_EQ(x.end, y.end) << what << " " << k << "/" << j;
            EXPECT_EQ(x.acquired, y.acquired) << what << " " << k << "/" << j;
            EXPECT_EQ(x.segment_begin, y.segment_begin) << what << " " << k << "/" << j;
            EXPECT_EQ(x.segment_end, y.segment_end) << what << " " << k << "/" << j;
            EXPECT_EQ(x.log_likelihood_ratio, y.log_likelihood_ratio)
                << what << " " << k << "/" << j;
            EXPECT_EQ(x.posteriors, y.posteriors) << what << " " << k << "/" << j;
        }
    }
}

// `frames` frames through one channel, and a burst of random items of
// `burst` after frame `after` (none if burst is 0)
stream_input burst_stream(const codebook& cb,
                          const channel_params& ch,
                          int N,
                          int frames,
                          int after,
                          long long burst,
                          int seed)
{
    const auto s = qa::make_stream(cb, ch, N, {}, frames, uint64_t(seed));
    stream_input in;
    in.bits = s.rx;
    std::mt19937 g(uint32_t(seed) + 1000);
    for (long long j = 0; j < burst; ++j)
        in.bits.insert(in.bits.begin() + s.starts[size_t(after) + 1],
                       uint8_t(g() % unsigned(cb.alphabet())));
    return in;
}

} // namespace

TEST(stream_ahead, the_same_frames_whatever_the_stream_holds)
{
    // without a sync word (every carried frame's edges read: the step the
    // next frame is decoded beside), over bits and four letters, hard and
    // soft items, whole and in chunks of about a third of a frame
    const int frames = sanitized ? 6 : 12;
    struct setup {
        std::string what;
        codebook cb;
        int N;
        bool soft;
    };
    const std::vector<setup> setups = {
        { "S40 bits", codebook::builtin("ld3-modvec6"), 40, false },
        { "S40 LLRs", codebook::builtin("ld3-modvec6"), 40, true },
        { "letters, period 3", codebook::random(4, 16, 3, 5, 4), 20, false },
    };
    for (const auto& su : setups) {
        const channel_params ch(0.01, 0.01, 0.01, su.cb.alphabet());
        auto fd = cpu_decoder(su.cb, ch, su.N);
        const size_t F = size_t(su.N) * size_t(su.cb.n());
        std::vector<stream_input> in;
        // clean; bursts of a few items, of a frame length and more, and of
        // whole code periods (searches, and frames held for their shifts)
        const long long unit = (long long)su.cb.n() * 3;
        const std::vector<long long> bursts = { 0,        7,    (long long)F + 11,
                                                2 * unit, unit, 3 * unit + 1 };
        for (size_t b = 0; b < bursts.size(); ++b)
            in.push_back(burst_stream(
                su.cb, ch, su.N, frames, 2 + int(b % 3), bursts[b], 30 + int(b)));
        // start tags: at a frame's true start, and a wrong one half a frame on
        {
            const auto s = qa::make_stream(su.cb, ch, su.N, {}, frames, 90);
            stream_input t;
            t.bits = s.rx;
            t.tags = { size_t(s.starts[3]), size_t(s.starts[5] + (long long)F / 2) };
            in.push_back(std::move(t));
        }
        // an item that is not valid inside frame 4
        {
            const auto s = qa::make_stream(su.cb, ch, su.N, {}, frames, 91);
            stream_input t;
            t.bits = s.rx;
            t.bits[size_t(s.starts[4]) + 5] = uint8_t(su.cb.alphabet() + 1);
            in.push_back(std::move(t));
        }
        if (su.soft) {
            std::mt19937 g(7);
            std::normal_distribution<double> noise(0.0, 1.5);
            for (auto& s : in) {
                for (uint8_t x : s.bits)
                    s.soft.push_back(x > 1 ? std::nan("")
                                           : (2.0 * x - 1.0) * 4 + noise(g));
                s.bits.clear();
            }
        }
        for (const size_t chunk : { size_t(1) << 30, F / 3 + 1 }) {
            const std::string what = su.what + (chunk < F ? ", in chunks" : ", whole");
            SCOPED_TRACE(what);
            stream_options opt;
            opt.input = su.soft ? input_kind::llr : input_kind::bits;
            opt.decode_ahead = false;
            size_t rounds_off = 0, rounds_on = 0;
            const auto off = decode_all(fd, opt, in, chunk, &rounds_off);
            opt.decode_ahead = true;
            const auto on = decode_all(fd, opt, in, chunk, &rounds_on);
            expect_same_frames(on, off, what);
            size_t ok = 0;
            for (const auto& s : on)
                for (const auto& f : s)
                    ok += f.result.ok();
            EXPECT_GE(ok, in.size() * size_t(frames) / 2) << what;
            // (in chunks, a frame often waits for its next frame's items)
            if (chunk > F) {
                EXPECT_LT(rounds_on, rounds_off) << what;
            }
        }
    }
}

TEST(stream_ahead, a_round_a_frame_in_clean_streams)
{
    // each carried frame's edges are read beside the next frame's decode:
    // a stream takes a round less for every frame taken but its last (whose
    // next frame is not there), where it took two rounds a frame (the decode,
    // then the edge tests); the rest (the searches after frames that lost
    // sync, a held frame's shifts) the same rounds either way
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.005, 0.005, 0.0);
    const int N = 40, frames = sanitized ? 8 : 20;
    auto fd = cpu_decoder(cb, ch, N);
    for (int k = 0; k < (sanitized ? 2 : 6); ++k) {
        const std::vector<stream_input> in = { burst_stream(
            cb, ch, N, frames, 0, 0, 50 + k) };
        stream_options opt;
        opt.decode_ahead = false;
        size_t rounds_off = 0, rounds_on = 0;
        const auto off = decode_all(fd, opt, in, size_t(1) << 30, &rounds_off);
        opt.decode_ahead = true;
        const auto on = decode_all(fd, opt, in, size_t(1) << 30, &rounds_on);
        expect_same_frames(on, off, "clean");
        size_t taken = 0, acquired = 0;
        for (const auto& f : on[0])
            taken += f.result.ok(), acquired += f.acquired;
        EXPECT_GE(taken, size_t(frames - 1));
        // (the last two frames: their next frame's items are not all there)
        EXPECT_GE(rounds_off, rounds_on + taken - 2 - acquired)
            << rounds_off << " rounds without, " << rounds_on << " with";
    }
}
