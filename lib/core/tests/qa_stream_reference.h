/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What the stream decoder's tests share (CPU and CUDA): frames sent back to
// back through one continuous channel, with where each was received, and
// the symbol errors of a decode.

#ifndef INCLUDED_BSID_QA_STREAM_REFERENCE_H
#define INCLUDED_BSID_QA_STREAM_REFERENCE_H

#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <cstdint>
#include <random>
#include <vector>

namespace bsid {
namespace qa {

// frames sent back to back through one continuous channel
struct sent_stream {
    std::vector<uint8_t> rx;
    std::vector<std::vector<int32_t>> messages;
    std::vector<long long> starts; // frames + 1 values: where frame k began, k F + drift
    long long F = 0;
};

// `frames` random frames, each the sync word W then N symbols, through one
// transmit() of (seed, frame 0)
inline sent_stream make_stream(const codebook& cb,
                               const channel_params& ch,
                               int N,
                               const std::vector<uint8_t>& W,
                               int frames,
                               uint64_t seed)
{
    sent_stream s;
    s.F = (long long)W.size() + (long long)N * cb.n();
    std::mt19937 g(uint32_t(seed) + 17);
    std::vector<uint8_t> bits, x(size_t(N) * size_t(cb.n()));
    for (int k = 0; k < frames; ++k) {
        std::vector<int32_t> msg(static_cast<size_t>(N));
        for (auto& d : msg)
            d = int32_t(g() % uint32_t(cb.q()));
        cb.encode(msg.data(), size_t(N), x.data());
        bits.insert(bits.end(), W.begin(), W.end());
        bits.insert(bits.end(), x.begin(), x.end());
        s.messages.push_back(std::move(msg));
    }
    auto t = transmit(ch, bits.data(), bits.size(), seed, 0);
    s.rx = std::move(t.rx);
    for (int k = 0; k <= frames; ++k)
        s.starts.push_back(k * s.F + t.drift[size_t(k * s.F)]);
    return s;
}

// symbol errors of N x q posteriors' hard decisions against the message
inline long long
symbol_errors(const std::vector<double>& post, const std::vector<int32_t>& msg, int q)
{
    std::vector<int32_t> d(msg.size());
    hard_decisions(post.data(), int(msg.size()), q, d.data());
    long long e = 0;
    for (size_t i = 0; i < msg.size(); ++i)
        e += d[i] != msg[i];
    return e;
}

} // namespace qa
} // namespace bsid

#endif /* INCLUDED_BSID_QA_STREAM_REFERENCE_H */
