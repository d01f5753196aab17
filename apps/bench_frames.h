/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bsid_bench's frames: random messages through the channel, as bits and as
// soft decisions.

#ifndef INCLUDED_BSID_APPS_BENCH_FRAMES_H
#define INCLUDED_BSID_APPS_BENCH_FRAMES_H

#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <cstdint>
#include <random>
#include <vector>

namespace bench {

//! `count` frames of N random symbols through `ch`: frame k is frame k of `seed`.
inline std::vector<std::vector<uint8_t>> channel_frames(const bsid::codebook& cb,
                                                        long long N,
                                                        const bsid::channel_params& ch,
                                                        uint64_t seed,
                                                        long long count)
{
    std::vector<std::vector<uint8_t>> rx(static_cast<size_t>(count));
    bsid::philox_stream src(seed, 1ULL << 62);
    std::vector<int64_t> msg(static_cast<size_t>(N));
    for (long long k = 0; k < count; ++k) {
        for (auto& d : msg)
            d = int64_t(src.next_u32() % uint32_t(cb.q()));
        const auto bits = cb.encode(msg.data(), msg.size());
        rx[size_t(k)] =
            bsid::transmit(ch, bits.data(), bits.size(), seed, uint64_t(k)).rx;
    }
    return rx;
}

/*!
 * The same frames as soft decisions: each received bit b as the LLR
 * 2 y / s^2 of y = 2 b - 1 + s n (BPSK in Gaussian noise n of deviation s).
 */
inline std::vector<std::vector<double>>
bpsk_llrs(const std::vector<std::vector<uint8_t>>& rx, double sigma, uint64_t seed)
{
    std::vector<std::vector<double>> llr(rx.size());
    std::mt19937_64 noise_rng(seed);
    std::normal_distribution<double> noise(0.0, sigma);
    for (size_t k = 0; k < rx.size(); ++k) {
        for (uint8_t b : rx[k])
            llr[k].push_back(2.0 * (2.0 * b - 1.0 + noise(noise_rng)) / (sigma * sigma));
    }
    return llr;
}

} // namespace bench

#endif /* INCLUDED_BSID_APPS_BENCH_FRAMES_H */
