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
    const double Pi = params.Pi(), Pd = params.Pd(), Pt = params.Pt();
    const int A = params.alphabet();
    // the largest substitution probability of a letter: with a matrix a
    // letter's own is thinned from it (event())
    double sub = params.Ps();
    if (params.has_substitution_matrix()) {
        sub = 0;
        for (int x = 0; x < A; ++x)
            sub = std::max(sub, params.substitution_probability(unsigned(x)));
    }
    d_pe = Pi + Pd + Pt * sub;
    d_log1m_pe = std::log1p(-d_pe);
    d_logPi = std::log(Pi);
    d_letter_bits = 0;
    if ((A & (A - 1)) == 0)
        while ((1 << d_letter_bits) < A)
            ++d_letter_bits;
    // The run length drawn under the old parameters no longer applies; by the
    // memorylessness of the geometric law a fresh draw is exact.
    d_skip = -1;
}

void channel_emulator::draw_skip()
{
    // Number of untouched letters before the next event: geometric,
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

uint32_t channel_emulator::uniform_below(uint32_t m)
{
    // unbiased: words in the last partial run of m are drawn again
    const uint32_t reject = uint32_t((uint64_t(1) << 32) % m);
    for (;;) {
        const uint32_t u = d_rng.next_u32();
        if (u >= reject) // 2^32 - reject is a multiple of m
            return (u - reject) % m;
    }
}

uint8_t channel_emulator::random_letter()
{
    if (d_letter_bits == 0) // an alphabet that is not a power of two
        return uint8_t(uniform_below(uint32_t(d_params.alphabet())));
    // a power of two: the next bits of a buffered word (bits: one at a time)
    if (d_bits_left < d_letter_bits) {
        d_bitbuf = d_rng.next_u32();
        d_bits_left = 32;
    }
    const uint8_t v = uint8_t(d_bitbuf & ((1u << d_letter_bits) - 1u));
    d_bitbuf >>= d_letter_bits;
    d_bits_left -= d_letter_bits;
    return v;
}

uint8_t channel_emulator::substitute(uint8_t x)
{
    const int A = d_params.alphabet();
    if (!d_params.has_substitution_matrix()) {
        if (A == 2)
            return x ^ 1u;
        // each of the A - 1 other letters alike
        return uint8_t((unsigned(x) + 1u + uniform_below(uint32_t(A - 1))) % unsigned(A));
    }
    // S[x][y] / (1 - S[x][x]) over y != x
    const double* row = d_params.substitution().data() + size_t(x) * size_t(A);
    const double v = d_rng.next_open01() * d_params.substitution_probability(x);
    double acc = 0;
    int last = -1;
    for (int y = 0; y < A; ++y) {
        if (y == x || row[y] <= 0)
            continue;
        acc += row[y];
        last = y;
        if (v < acc)
            return uint8_t(y);
    }
    return uint8_t(last); // rounding: the last letter it could be
}

bool channel_emulator::substituted(uint8_t x)
{
    const double s = d_params.substitution_probability(x);
    return s > 0.0 && d_rng.next_open01() < s;
}

void channel_emulator::event(uint8_t x, std::vector<uint8_t>& rx)
{
    const double Pi = d_params.Pi(), Pd = d_params.Pd();
    // Given that something may happen to this letter, it starts with an
    // insertion with probability Pi / pe, is deleted outright with Pd / pe,
    // and is otherwise transmitted with a substitution (Pt s(x) / pe, where
    // s(x) is the letter's substitution probability; below pe's own bound,
    // with a matrix, the rest of the time it is transmitted untouched).
    const double u = d_rng.next_open01() * d_pe;
    if (u < Pi) {
        // k >= 1 insertions: 1 + a geometric count, P(a) = Pi^a (1 - Pi).
        const double a = std::floor(std::log(d_rng.next_open01()) / d_logPi);
        const long long k = 1 + (long long)std::min(a, 1e9);
        for (long long j = 0; j < k; ++j) {
            rx.push_back(random_letter());
        }
        d_insertions += uint64_t(k);
        d_drift += k;
        // After the insertions the letter is deleted (Pd / (1 - Pi)) or
        // transmitted, and then substituted with probability s(x).
        if (d_rng.next_open01() * (1.0 - Pi) < Pd) {
            ++d_deletions;
            --d_drift;
        } else if (substituted(x)) {
            ++d_substitutions;
            rx.push_back(substitute(x));
        } else {
            rx.push_back(x);
        }
    } else if (u < Pi + Pd) {
        ++d_deletions;
        --d_drift;
    } else if (!d_params.has_substitution_matrix() ||
               u - Pi - Pd < d_params.Pt() * d_params.substitution_probability(x)) {
        ++d_substitutions;
        rx.push_back(substitute(x));
    } else {
        rx.push_back(x); // thinned: this letter's substitutions are rarer
    }
}

void channel_emulator::process(const uint8_t* bits,
                               size_t n,
                               std::vector<uint8_t>& rx,
                               int32_t* drift)
{
    // Validate first, so that a bad frame leaves the state untouched.
    const int A = d_params.alphabet();
    uint8_t top = 0;
    for (size_t t = 0; t < n; ++t) {
        top = std::max(top, bits[t]);
    }
    if (int(top) >= A) {
        for (size_t t = 0; t < n; ++t) {
            if (int(bits[t]) >= A) {
                throw std::invalid_argument(
                    A == 2
                        ? detail::concat("channel: input byte ",
                                         int(bits[t]),
                                         " at position ",
                                         t,
                                         " is not a bit (expected 0 or 1)")
                        : detail::concat("channel: input byte ",
                                         int(bits[t]),
                                         " at position ",
                                         t,
                                         " is not a letter of the alphabet (expected 0 "
                                         "to ",
                                         A - 1,
                                         ")"));
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
