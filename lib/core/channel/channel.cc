/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/format.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace bsid {

namespace {
constexpr long long never = (1LL << 62); // "no event ahead" when pe == 0

uint64_t check_frame(uint64_t frame)
{
    if (frame >> 63) {
        throw std::invalid_argument(
            detail::concat("channel: frame = ",
                           frame,
                           " must be below 2^63 (higher stream ids are reserved)"));
    }
    return frame;
}
} // namespace

channel_emulator::channel_emulator(const channel_params& params,
                                   uint64_t seed,
                                   uint64_t frame)
    : d_params(params), d_rng(seed, check_frame(frame))
{
    set_params(params);
}

void channel_emulator::set_params(const channel_params& params)
{
    d_params = params;
    const double Pi = params.Pi(), Pd = params.Pd(), Pt = params.Pt(), Ps = params.Ps();
    d_pe = Pi + Pd + Pt * Ps;
    d_log1m_pe = std::log1p(-d_pe);
    d_logPi = std::log(Pi);
    // The run length drawn under the old parameters no longer applies; by the
    // memorylessness of the geometric law a fresh draw is exact.
    d_skip = -1;
}

void channel_emulator::draw_skip()
{
    // Number of untouched bits before the next event: geometric,
    // P(g) = (1 - pe)^g pe, by inversion: g = floor(log U / log(1 - pe)).
    if (d_pe <= 0.0) {
        d_skip = never;
    } else if (d_pe >= 1.0) {
        d_skip = 0;
    } else {
        const double g = std::floor(std::log(d_rng.next_open01()) / d_log1m_pe);
        d_skip = g < double(never) ? (long long)g : never;
    }
}

uint8_t channel_emulator::random_bit()
{
    if (d_bits_left == 0) {
        d_bitbuf = d_rng.next_u32();
        d_bits_left = 32;
    }
    const uint8_t b = uint8_t(d_bitbuf & 1u);
    d_bitbuf >>= 1;
    --d_bits_left;
    return b;
}

void channel_emulator::event(uint8_t bit, std::vector<uint8_t>& rx)
{
    const double Pi = d_params.Pi(), Pd = d_params.Pd();
    // Given that something happens to this bit, it starts with an insertion
    // with probability Pi / pe, is deleted outright with Pd / pe, and is
    // otherwise transmitted with a substitution (Pt Ps / pe).
    const double u = d_rng.next_open01() * d_pe;
    if (u < Pi) {
        // k >= 1 insertions: 1 + a geometric count, P(a) = Pi^a (1 - Pi).
        const double a = std::floor(std::log(d_rng.next_open01()) / d_logPi);
        const long long k = 1 + (long long)std::min(a, 1e9);
        for (long long j = 0; j < k; ++j) {
            rx.push_back(random_bit());
        }
        d_insertions += uint64_t(k);
        d_drift += k;
        // After the insertions the bit is deleted (Pd / (1 - Pi)) or
        // transmitted, and then flipped with probability Ps.
        if (d_rng.next_open01() * (1.0 - Pi) < Pd) {
            ++d_deletions;
            --d_drift;
        } else if (d_params.Ps() > 0.0 && d_rng.next_open01() < d_params.Ps()) {
            ++d_substitutions;
            rx.push_back(bit ^ 1u);
        } else {
            rx.push_back(bit);
        }
    } else if (u < Pi + Pd) {
        ++d_deletions;
        --d_drift;
    } else {
        ++d_substitutions;
        rx.push_back(bit ^ 1u);
    }
}

void channel_emulator::process(const uint8_t* bits,
                               size_t n,
                               std::vector<uint8_t>& rx,
                               int32_t* drift)
{
    // Validate first, so that a bad frame leaves the state untouched.
    uint8_t any = 0;
    for (size_t t = 0; t < n; ++t) {
        any |= bits[t];
    }
    if (any > 1) {
        for (size_t t = 0; t < n; ++t) {
            if (bits[t] > 1) {
                throw std::invalid_argument(
                    detail::concat("channel: input byte ",
                                   int(bits[t]),
                                   " at position ",
                                   t,
                                   " is not a bit (expected 0 or 1)"));
            }
        }
    }
    size_t pos = 0;
    while (pos < n) {
        if (d_skip < 0) {
            draw_skip();
        }
        const size_t take = size_t(std::min<long long>(d_skip, (long long)(n - pos)));
        rx.insert(rx.end(), bits + pos, bits + pos + take);
        if (drift) {
            std::fill_n(drift + pos, take, int32_t(d_drift));
        }
        pos += take;
        d_skip -= (long long)take;
        if (pos == n) {
            break;
        }
        // d_skip == 0: the bit at pos is the next eventful one.
        if (drift) {
            drift[pos] = int32_t(d_drift);
        }
        event(bits[pos], rx);
        ++pos;
        d_skip = -1;
    }
    d_bits_in += n;
}

transmission transmit(const channel_params& params,
                      const uint8_t* bits,
                      size_t tau,
                      uint64_t seed,
                      uint64_t frame)
{
    channel_emulator ch(params, seed, frame);
    transmission out;
    const double Pi = params.Pi();
    out.rx.reserve(tau + size_t(double(tau) * Pi / (1.0 - Pi) * 1.5) + 64);
    out.drift.resize(tau + 1);
    ch.process(bits, tau, out.rx, out.drift.data());
    out.drift[tau] = int32_t(ch.drift());
    return out;
}

} // namespace bsid
