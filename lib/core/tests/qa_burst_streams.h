/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Streams of frames with bursts of random items between them, and a stream
// decoder run over one with every frame put out checked against the frames
// sent (run_stream): the helpers of the alignment tests (qa_stream_alignment,
// qa_stream_gaps).

#ifndef INCLUDED_BSID_QA_BURST_STREAMS_H
#define INCLUDED_BSID_QA_BURST_STREAMS_H

#include "qa_stream_reference.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <gtest/gtest.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>

namespace bsid {
namespace qa {


// frames sent one by one through the channel (frame k of `seed`), with runs
// of random letters (bits): `lead` before the first, garbage[k] after frame k
struct burst_stream {
    std::vector<uint8_t> rx;
    std::vector<std::vector<int32_t>> messages;
    std::vector<std::vector<uint8_t>> frames; // each frame's received bits
    std::vector<long long> starts;            // where each begins in rx
    std::vector<long long> garbage;           // the garbage runs' lengths
};

inline burst_stream make_burst_stream(const codebook& cb,
                                      const channel_params& ch,
                                      int N,
                                      const std::vector<uint8_t>& W,
                                      int frames,
                                      long long lead,
                                      const std::map<int, long long>& bursts,
                                      uint64_t seed)
{
    burst_stream s;
    std::mt19937 g(uint32_t(seed) * 7 + 3);
    const unsigned A = unsigned(ch.alphabet());
    auto noise = [&](long long n) {
        for (long long j = 0; j < n; ++j)
            s.rx.push_back(uint8_t(A == 2 ? g() & 1u : g() % A));
        if (n > 0)
            s.garbage.push_back(n);
    };
    noise(lead);
    std::vector<uint8_t> x(size_t(N) * size_t(cb.n()));
    for (int k = 0; k < frames; ++k) {
        std::vector<int32_t> msg(static_cast<size_t>(N));
        for (auto& d : msg)
            d = int32_t(g() % uint32_t(cb.q()));
        cb.encode(msg.data(), size_t(N), x.data());
        std::vector<uint8_t> sent(W);
        sent.insert(sent.end(), x.begin(), x.end());
        auto t = transmit(ch, sent.data(), sent.size(), seed, uint64_t(k));
        s.starts.push_back((long long)s.rx.size());
        s.rx.insert(s.rx.end(), t.rx.begin(), t.rx.end());
        s.frames.push_back(std::move(t.rx));
        s.messages.push_back(std::move(msg));
        const auto b = bursts.find(k);
        if (b != bursts.end())
            noise(b->second);
    }
    return s;
}

inline std::shared_ptr<frame_decoder> decoder(const codebook& cb,
                                              const channel_params& ch,
                                              int N,
                                              const std::vector<uint8_t>& W,
                                              precision_kind prec = precision_kind::dual)
{
    decoder_config cfg(cb, ch, N);
    cfg.backend = backend_kind::cpu;
    cfg.precision = prec;
    cfg.threads = 2;
    return std::make_shared<frame_decoder>(cfg, W);
}

// what a run of many streams adds up to
struct tally {
    long long ok = 0, symbols = 0, errs = 0, genie_errs = 0, runs = 0, count_wrong = 0;
    void check(const std::string& what) const
    {
        // the ok frames' errors within the 95 % binomial interval of genie
        // framing's SER on the same frames (and no wrong frame: a frame read
        // off its alignment has about (q - 1) / q of its symbols wrong)
        const double p = double(genie_errs) / double(std::max(1LL, symbols));
        const double hi =
            double(symbols) * p + 1.96 * std::sqrt(double(symbols) * p * (1 - p)) + 1;
        EXPECT_LE(double(errs), hi) << what << ": " << errs << " symbol errors in " << ok
                                    << " frames ok, genie framing " << genie_errs;
        EXPECT_EQ(count_wrong, 0) << what << ": runs with the wrong number of frames out";
    }
};

inline void run_stream(const burst_stream& s,
                       const std::shared_ptr<frame_decoder>& dec,
                       const stream_options& opt,
                       tally& t,
                       const std::string& what,
                       // the stream as LLRs instead (or A log-probabilities per item)
                       const std::vector<double>* llr = nullptr,
                       size_t chunk = 997,
                       std::vector<stream_frame>* frames_out = nullptr)
{
    stream_decoder sd(dec, opt);
    std::vector<stream_frame> out;
    const size_t width = llr ? llr->size() / std::max<size_t>(1, s.rx.size()) : 1;
    for (size_t at = 0; at < s.rx.size(); at += chunk) {
        const size_t n = std::min(chunk, s.rx.size() - at);
        for (auto& f :
             llr ? sd.push(llr->data() + width * at, n) : sd.push(s.rx.data() + at, n))
            out.push_back(std::move(f));
    }
    for (auto& f : sd.flush())
        out.push_back(std::move(f));
    const long long F = sd.frame_bits();
    // a right setup, bursts or not, is never called a wrong N
    for (const auto& w : sd.warnings())
        EXPECT_EQ(w.find("frames end about"), std::string::npos) << what << ": " << w;
    if (const char* dump = std::getenv("BSID_QA_DUMP")) { // the stream, to replay
        if (what == dump) {
            FILE* f = std::fopen("/tmp/bsid_qa_stream.bin", "wb");
            if (f) {
                std::fwrite(s.rx.data(), 1, s.rx.size(), f);
                std::fclose(f);
            }
        }
    }
    if (std::getenv("BSID_QA_VERBOSE")) { // what a failing run put out
        for (long long x : s.starts)
            std::printf("%lld ", x);
        std::printf(": true starts (%s)\n", what.c_str());
        for (const auto& f : out)
            std::printf("%llu %s %lld %lld %.1f %s\n",
                        (unsigned long long)f.index,
                        to_string(f.result.status),
                        f.start,
                        f.end,
                        f.log_likelihood_ratio,
                        f.result.reason.substr(0, 200).c_str());
    }
    size_t expect = s.frames.size();
    bool half = false;
    for (long long g : s.garbage) {
        expect += size_t((g + F / 2) / F);
        // within the drift of half a frame length: rounded either way
        half = half || std::llabs(2 * (g % F) - F) <= 24;
    }
    ++t.runs;
    if (!half && out.size() != expect) {
        ++t.count_wrong;
        ADD_FAILURE() << what << ": " << out.size() << " frames out, " << expect
                      << " expected";
    }
    const int q = dec->q();
    for (size_t j = 0; j < out.size(); ++j) {
        EXPECT_EQ(out[j].index, j) << what;
        if (!out[j].result.ok())
            continue;
        // the frame sent that this one is: the one whose start lies nearest
        size_t k = 0;
        for (size_t c = 1; c < s.starts.size(); ++c)
            if (std::llabs(s.starts[c] - out[j].start) <
                std::llabs(s.starts[k] - out[j].start))
                k = c;
        frame_view v{ s.frames[k].data(), s.frames[k].size() };
        std::vector<double> g(size_t(dec->N()) * size_t(q));
        std::vector<double*> ptr{ g.data() };
        const auto gr = dec->decode_batch({ v }, ptr);
        ASSERT_TRUE(gr[0].ok()) << what;
        const long long e = qa::symbol_errors(out[j].posteriors, s.messages[k], q);
        EXPECT_LT(e, dec->N() / 2)
            << what << ": frame " << j << " put out ok at " << out[j].start
            << " reads frame " << k << " at " << s.starts[k] << " wrong";
        if (std::getenv("BSID_QA_VERBOSE") && e > qa::symbol_errors(g, s.messages[k], q))
            std::printf("frame %zu: %lld errors, genie %lld (%s)\n",
                        j,
                        e,
                        qa::symbol_errors(g, s.messages[k], q),
                        what.c_str());
        ++t.ok;
        t.symbols += dec->N();
        t.errs += e;
        t.genie_errs += qa::symbol_errors(g, s.messages[k], q);
    }
    if (frames_out)
        *frames_out = std::move(out);
}

// The stream decoder's debug messages while it lives: which frames it held
// (judge's shifts_settle) and how each was settled
class held_frames
{
public:
    held_frames()
    {
        d_level = get_log_level();
        set_log_level(log_level::debug);
        set_log_handler([this](log_level, const std::string& m) {
            std::lock_guard<std::mutex> lock(d_m);
            if (std::getenv("BSID_QA_VERBOSE"))
                std::printf("%s\n", m.c_str());
            unsigned long long k = 0;
            long long at = 0;
            if (std::sscanf(
                    m.c_str(), "stream_decoder: frame %llu at %lld held:", &k, &at) ==
                    2 &&
                m.find(" held: ") != std::string::npos)
                held.emplace_back(k, at);
            else if (m.find("reads clearly better than its shifts") != std::string::npos)
                ++kept;
            else if (m.find("(and its shift to") != std::string::npos ||
                     m.find("(and no shift by whole periods") != std::string::npos)
                ++lost;
        });
    }
    ~held_frames()
    {
        set_log_handler(nullptr);
        set_log_level(d_level);
    }
    std::vector<std::pair<unsigned long long, long long>> held; // index, start
    long long kept = 0, lost = 0;

private:
    std::mutex d_m;
    log_level d_level;
};

inline const std::vector<uint8_t> W16 = parse_sync_word("0110100111010010");

class quiet_log : public ::testing::Test
{
protected:
    void SetUp() override
    {
        d_level = get_log_level();
        set_log_level(std::getenv("BSID_QA_VERBOSE") ? log_level::debug
                                                     : log_level::error);
    }
    void TearDown() override { set_log_level(d_level); }
    log_level d_level = log_level::info;
};

/*
 * Streams of 10 frames over codes whose edges are short (books repeating
 * every P = 3 and 4 codewords, N = 22, over bits and four letters, 1 % of
 * each channel event), `per_code` streams a code, each with the bursts
 * bursts(seed, unit, A, P) = {b2, b5} after frames 2 and 5 (unit: a
 * period's items), through run_stream into t; sent counts the frames sent.
 */
template <typename Bursts>
void short_edge_streams(
    uint64_t per_code, uint64_t first_seed, Bursts bursts, tally& t, long long& sent)
{
    for (const int A : { 2, 4 }) {
        for (const int P : { 3, 4 }) {
            const int n = A == 2 ? 8 : 4, N = 22;
            const codebook cb = codebook::random(n, 16, P, 5, A);
            const channel_params ch(0.01, 0.01, 0.01, A);
            auto dec = decoder(cb, ch, N, {});
            const long long unit = (long long)P * n;
            for (uint64_t seed = 0; seed < per_code; ++seed) {
                const std::pair<long long, long long> b = bursts(seed, unit, A, P);
                const auto s = make_burst_stream(cb,
                                                 ch,
                                                 N,
                                                 {},
                                                 10,
                                                 0,
                                                 { { 2, b.first }, { 5, b.second } },
                                                 first_seed + seed);
                run_stream(s,
                           dec,
                           stream_options{},
                           t,
                           "A " + std::to_string(A) + " p " + std::to_string(P) +
                               " seed " + std::to_string(seed) + " bursts " +
                               std::to_string(b.first) + ", " + std::to_string(b.second));
                sent += 10;
            }
        }
    }
}

} // namespace qa
} // namespace bsid

#endif /* INCLUDED_BSID_QA_BURST_STREAMS_H */
