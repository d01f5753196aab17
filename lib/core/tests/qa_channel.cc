/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/drift_limits.h>
#include <gtest/gtest.h>
#include <cmath>
#include <map>
#include <vector>

using bsid::channel_params;

namespace {

std::vector<uint8_t> random_bits(size_t n, uint64_t seed)
{
    bsid::philox_stream s(seed, 12345);
    std::vector<uint8_t> b(n);
    for (auto& x : b)
        x = uint8_t(s.next_u32() & 1u);
    return b;
}

// Upper critical value of chi-square with k degrees of freedom at a one-sided
// level of about 1e-4 (Wilson-Hilferty; z = 3.719). With fixed seeds the tests
// are deterministic; the level guards against a wrong law, not bad luck.
double chi2_critical(int k)
{
    const double z = 3.719, a = 2.0 / (9.0 * k);
    return k * std::pow(1 - a + z * std::sqrt(a), 3);
}

// Pearson statistic of observed counts against probabilities; cells with an
// expected count below 5 are pooled into their neighbour. Returns {stat, df}.
std::pair<double, int> chi2(const std::map<long long, double>& obs,
                            const std::map<long long, double>& prob,
                            double total)
{
    double stat = 0, e_acc = 0, o_acc = 0, p_seen = 0;
    int cells = 0;
    for (const auto& [k, p] : prob) {
        e_acc += p * total;
        p_seen += p;
        const auto it = obs.find(k);
        o_acc += it == obs.end() ? 0.0 : it->second;
        if (e_acc >= 5) {
            stat += (o_acc - e_acc) * (o_acc - e_acc) / e_acc;
            ++cells;
            e_acc = o_acc = 0;
        }
    }
    // everything outside the listed cells, with whatever was left over
    double o_rest = o_acc, e_rest = e_acc + (1 - p_seen) * total;
    for (const auto& [k, c] : obs)
        if (!prob.count(k))
            o_rest += c;
    if (e_rest > 0) {
        stat += (o_rest - e_rest) * (o_rest - e_rest) / e_rest;
        ++cells;
    } else {
        EXPECT_EQ(o_rest, 0.0) << "observed values with probability 0";
    }
    return { stat, cells - 1 };
}

} // namespace

TEST(channel, perfect_channel_is_identity)
{
    const auto bits = random_bits(1000, 1);
    const auto t =
        bsid::transmit(channel_params(0, 0, 0), bits.data(), bits.size(), 9, 3);
    EXPECT_EQ(t.rx, bits);
    EXPECT_EQ(t.drift, std::vector<int32_t>(bits.size() + 1, 0));
}

TEST(channel, certain_substitution_flips_every_bit)
{
    const auto bits = random_bits(777, 2);
    const auto t =
        bsid::transmit(channel_params(0, 0, 1), bits.data(), bits.size(), 1, 0);
    ASSERT_EQ(t.rx.size(), bits.size());
    for (size_t k = 0; k < bits.size(); ++k)
        ASSERT_EQ(t.rx[k], bits[k] ^ 1) << k;
}

TEST(channel, reproducible_per_seed_and_frame)
{
    const channel_params ch(0.05, 0.05, 0.05);
    const auto bits = random_bits(5000, 3);
    const auto a = bsid::transmit(ch, bits.data(), bits.size(), 77, 5);
    const auto b = bsid::transmit(ch, bits.data(), bits.size(), 77, 5);
    EXPECT_EQ(a.rx, b.rx);
    EXPECT_EQ(a.drift, b.drift);
    EXPECT_NE(bsid::transmit(ch, bits.data(), bits.size(), 77, 6).rx, a.rx);
    EXPECT_NE(bsid::transmit(ch, bits.data(), bits.size(), 78, 5).rx, a.rx);

    // Splitting the input across calls changes nothing.
    bsid::channel_emulator em(ch, 77, 5);
    std::vector<uint8_t> rx;
    std::vector<int32_t> drift(bits.size());
    size_t pos = 0;
    for (size_t chunk : { 1, 7, 1000, 0, 333, 2000 }) {
        chunk = std::min(chunk, bits.size() - pos);
        em.process(bits.data() + pos, chunk, rx, drift.data() + pos);
        pos += chunk;
    }
    em.process(bits.data() + pos, bits.size() - pos, rx, drift.data() + pos);
    EXPECT_EQ(rx, a.rx);
    drift.push_back(int32_t(em.drift()));
    EXPECT_EQ(drift, a.drift);
}

TEST(channel, drift_path_is_consistent)
{
    const channel_params ch(0.1, 0.1, 0.0);
    const auto bits = random_bits(20000, 4);
    bsid::channel_emulator em(ch, 5, 0);
    std::vector<uint8_t> rx;
    std::vector<int32_t> drift(bits.size() + 1);
    em.process(bits.data(), bits.size(), rx, drift.data());
    drift.back() = int32_t(em.drift());
    EXPECT_EQ(drift[0], 0);
    EXPECT_EQ((long long)rx.size() - (long long)bits.size(), (long long)drift.back());
    EXPECT_EQ((long long)em.insertions() - (long long)em.deletions(),
              (long long)drift.back());
    for (size_t t = 0; t < bits.size(); ++t)
        ASSERT_GE(drift[t + 1] - drift[t], -1) << t;
    // Without deletions or substitutions every bit arrives, after its
    // insertions: bit t is received at position t + drift[t + 1].
    const auto t =
        bsid::transmit(channel_params(0.1, 0.0, 0.0), bits.data(), bits.size(), 6, 0);
    for (size_t k = 0; k < bits.size(); ++k) {
        ASSERT_EQ(t.rx[size_t((long long)k + t.drift[k + 1])], bits[k]) << k;
    }
}

TEST(channel, rejects_bad_input)
{
    const channel_params ch(0.01, 0.01, 0.01);
    const std::vector<uint8_t> bad = { 0, 1, 1, 2, 0 };
    try {
        bsid::transmit(ch, bad.data(), bad.size(), 1, 0);
        ADD_FAILURE() << "accepted the byte 2";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("byte 2 at position 3"), std::string::npos)
            << e.what();
    }
    EXPECT_THROW(bsid::channel_emulator(ch, 1, 1ULL << 63), std::invalid_argument);
    // an empty frame is fine: no bits out, drift {0}
    const auto t = bsid::transmit(ch, nullptr, 0, 1, 0);
    EXPECT_TRUE(t.rx.empty());
    EXPECT_EQ(t.drift, std::vector<int32_t>{ 0 });
}

// Per-bit drift steps follow the model: step -1 with probability Pd (deleted,
// no insertions); step j >= 0 with Pi^j Pt (j insertions, then sent) plus
// Pi^(j+1) Pd (j+1 insertions, then deleted).
TEST(channel, drift_steps_follow_the_model)
{
    struct C {
        double Pi, Pd;
    };
    for (C c : { C{ 0.01, 0.01 },
                 C{ 0.2, 0.1 },
                 C{ 0.0, 0.1 },
                 C{ 0.1, 0.0 },
                 C{ 0.3, 0.3 } }) {
        const channel_params ch(c.Pi, c.Pd, 0.0);
        const auto bits = random_bits(400000, 5);
        const auto t = bsid::transmit(ch, bits.data(), bits.size(), 11, 0);
        std::map<long long, double> obs, prob;
        for (size_t k = 0; k < bits.size(); ++k)
            obs[t.drift[k + 1] - t.drift[k]] += 1;
        const double Pt = ch.Pt();
        prob[-1] = c.Pd;
        for (int j = 0; j < 60; ++j)
            prob[j] = std::pow(c.Pi, j) * Pt + std::pow(c.Pi, j + 1) * c.Pd;
        const auto [stat, df] = chi2(obs, prob, double(bits.size()));
        EXPECT_LT(stat, chi2_critical(std::max(df, 1)))
            << "Pi=" << c.Pi << " Pd=" << c.Pd;
    }
}

TEST(channel, event_rates)
{
    // Counted by the emulator and checked against the model's means, with a
    // 5-sigma Poisson margin: insertions per bit Pi/(1-Pi), deletions per bit
    // Pd/(1-Pi), substitutions per bit Pt Ps/(1-Pi).
    struct C {
        double Pi, Pd, Ps;
    };
    for (C c : { C{ 0.01, 0.01, 0.01 },
                 C{ 0.1, 0.05, 0.2 },
                 C{ 0, 0.2, 0.05 },
                 C{ 0.2, 0, 0 } }) {
        const channel_params ch(c.Pi, c.Pd, c.Ps);
        const auto bits = random_bits(1000000, 6);
        bsid::channel_emulator em(ch, 21, 0);
        std::vector<uint8_t> rx;
        em.process(bits.data(), bits.size(), rx);
        const double n = double(bits.size());
        auto check = [&](double got, double rate, const char* what) {
            const double want = rate * n;
            EXPECT_NEAR(got, want, 5 * std::sqrt(want * 4) + 1e-9)
                << what << " Pi=" << c.Pi;
        };
        check(double(em.insertions()), c.Pi / (1 - c.Pi), "insertions");
        check(double(em.deletions()), c.Pd / (1 - c.Pi), "deletions");
        check(double(em.substitutions()), ch.Pt() * c.Ps / (1 - c.Pi), "substitutions");
    }
    // Substitutions seen directly: with Pi = Pd = 0 every mismatch is one.
    const auto bits = random_bits(1000000, 7);
    const auto t =
        bsid::transmit(channel_params(0, 0, 0.03), bits.data(), bits.size(), 3, 0);
    double flips = 0;
    for (size_t k = 0; k < bits.size(); ++k)
        flips += t.rx[k] != bits[k];
    EXPECT_NEAR(flips, 30000, 5 * std::sqrt(30000.0));
    // Inserted bits are fair coins: Pd = 0, Ps = 0, count ones among insertions
    // via the received length minus the sent ones.
    const std::vector<uint8_t> zeros(1000000, 0);
    const auto z =
        bsid::transmit(channel_params(0.2, 0, 0), zeros.data(), zeros.size(), 4, 0);
    double ones = 0;
    for (auto b : z.rx)
        ones += b;
    const double inserted = double(z.rx.size() - zeros.size());
    EXPECT_NEAR(ones, inserted / 2, 5 * std::sqrt(inserted / 4));
}

// The end drift of many frames against phi_T (chi-square).
TEST(channel, drift_distribution_matches_phi)
{
    struct C {
        int T;
        double Pi, Pd;
    };
    for (C c : { C{ 100, 0.05, 0.05 },
                 C{ 400, 0.01, 0.02 },
                 C{ 200, 0.0, 0.1 },
                 C{ 200, 0.1, 0.0 },
                 C{ 50, 0.2, 0.2 } }) {
        const channel_params ch(c.Pi, c.Pd, 0.01);
        const auto bits = random_bits(size_t(c.T), 8);
        const int frames = 40000;
        std::map<long long, double> obs, prob;
        for (int k = 0; k < frames; ++k) {
            const auto t = bsid::transmit(ch, bits.data(), bits.size(), 99, uint64_t(k));
            obs[t.drift.back()] += 1;
        }
        for (int m = -c.T; m <= 3 * c.T; ++m) {
            const double p = bsid::drift_pdf(c.T, c.Pi, c.Pd, m);
            if (p > 0)
                prob[m] = p;
        }
        const auto [stat, df] = chi2(obs, prob, frames);
        EXPECT_LT(stat, chi2_critical(std::max(df, 1)))
            << "T=" << c.T << " Pi=" << c.Pi << " Pd=" << c.Pd << " df=" << df;
    }
}

// The binary channel draws its random numbers as it always has: the received
// bits and drift of these frames are those of the emulator before the
// alphabet existed (FNV-1a of rx, then of the drift's int32s).
TEST(channel, binary_frames_are_those_before_the_alphabet)
{
    struct C {
        double Pi, Pd, Ps;
        uint64_t seed, frame;
        size_t rho;
        uint64_t hash;
    };
    const auto bits = random_bits(20000, 4);
    const auto fnv = [](const void* p, size_t n, uint64_t h) {
        const auto* c = static_cast<const unsigned char*>(p);
        for (size_t k = 0; k < n; ++k) {
            h ^= c[k];
            h *= 1099511628211ULL;
        }
        return h;
    };
    for (const C& c : { C{ 0.01, 0.01, 0.01, 1, 0, 20003, 0x20b1d9a7570c1ec6ULL },
                        C{ 0.1, 0.05, 0.02, 7, 3, 21137, 0xbc61eaef3b651cbaULL },
                        C{ 0.3, 0.2, 0.1, 42, 99, 22730, 0x28dbb6f7845970e0ULL },
                        C{ 0, 0, 0.2, 5, 1, 20000, 0x943d3ebccad59e0dULL },
                        C{ 0.05, 0, 0, 11, 2, 21067, 0x0ad6e2fe8ac8ed26ULL } }) {
        // the binary constructor and alphabet = 2 are the same channel
        for (const auto& ch :
             { channel_params(c.Pi, c.Pd, c.Ps), channel_params(c.Pi, c.Pd, c.Ps, 2) }) {
            const auto t = bsid::transmit(ch, bits.data(), bits.size(), c.seed, c.frame);
            uint64_t h = fnv(t.rx.data(), t.rx.size(), 1469598103934665603ULL);
            h = fnv(t.drift.data(), t.drift.size() * sizeof(int32_t), h);
            EXPECT_EQ(t.rx.size(), c.rho) << c.Pi << " " << c.seed;
            EXPECT_EQ(h, c.hash) << c.Pi << " " << c.seed;
        }
    }
}

namespace {

std::vector<uint8_t> random_letters(size_t n, int A, uint64_t seed)
{
    bsid::philox_stream s(seed, 777);
    std::vector<uint8_t> v(n);
    for (auto& x : v)
        x = uint8_t(s.next_u32() % uint32_t(A));
    return v;
}

} // namespace

TEST(channel, letters_outside_the_alphabet_are_refused_by_position)
{
    for (int A : { 3, 4, 256 }) {
        std::vector<uint8_t> v = random_letters(50, A, 1);
        bsid::channel_emulator em(channel_params(0.1, 0.1, 0.1, A), 1);
        std::vector<uint8_t> rx;
        if (A < 256) {
            v[17] = uint8_t(A);
            try {
                em.process(v.data(), v.size(), rx);
                FAIL() << A;
            } catch (const std::invalid_argument& e) {
                EXPECT_NE(std::string(e.what()).find("position 17"), std::string::npos)
                    << e.what();
                EXPECT_NE(std::string(e.what()).find("0 to " + std::to_string(A - 1)),
                          std::string::npos)
                    << e.what();
            }
            EXPECT_TRUE(rx.empty()); // a refused input changes nothing
            EXPECT_EQ(em.bits_in(), 0u);
        } else {
            EXPECT_NO_THROW(em.process(v.data(), v.size(), rx)); // every byte is a letter
        }
    }
}

TEST(channel, qary_frames_are_reproducible_and_split_free)
{
    for (int A : { 3, 4, 5, 16, 256 }) {
        const channel_params ch(0.05, 0.04, 0.06, A);
        const auto x = random_letters(3000, A, 2);
        const auto a = bsid::transmit(ch, x.data(), x.size(), 5, 8);
        EXPECT_EQ(bsid::transmit(ch, x.data(), x.size(), 5, 8).rx, a.rx);
        EXPECT_NE(bsid::transmit(ch, x.data(), x.size(), 5, 9).rx, a.rx);
        for (auto y : a.rx)
            ASSERT_LT(int(y), A);
        EXPECT_EQ((long long)a.rx.size() - (long long)x.size(), a.drift.back());
        bsid::channel_emulator em(ch, 5, 8);
        std::vector<uint8_t> rx;
        size_t pos = 0;
        for (size_t chunk : { 1, 2, 999, 0, 1500 }) {
            em.process(x.data() + pos, chunk, rx);
            pos += chunk;
        }
        em.process(x.data() + pos, x.size() - pos, rx);
        EXPECT_EQ(rx, a.rx) << A;
    }
}

TEST(channel, qary_events_follow_the_model)
{
    // Pi = Pd = 0: every received letter is its sent one, substituted with
    // probability Ps by each other letter alike (chi-square over the A - 1
    // differences y - x mod A, and the substitution count within 5 sigma)
    for (int A : { 3, 4, 7, 8 }) {
        const double Ps = 0.2;
        const auto x = random_letters(200000, A, 3);
        const auto t =
            bsid::transmit(channel_params(0, 0, Ps, A), x.data(), x.size(), 9, 0);
        ASSERT_EQ(t.rx.size(), x.size());
        std::map<long long, double> diff;
        double subs = 0;
        for (size_t k = 0; k < x.size(); ++k) {
            const int d = (int(t.rx[k]) - int(x[k]) + A) % A;
            if (d) {
                diff[d] += 1;
                subs += 1;
            }
        }
        const double n = double(x.size());
        EXPECT_NEAR(subs, Ps * n, 5 * std::sqrt(Ps * (1 - Ps) * n)) << A;
        std::map<long long, double> prob;
        for (int d = 1; d < A; ++d)
            prob[d] = 1.0 / (A - 1);
        const auto [stat, df] = chi2(diff, prob, subs);
        EXPECT_LT(stat, chi2_critical(df)) << A;
    }
    // inserted letters are uniform: Pd = Ps = 0, all-zero input, the letters
    // received beyond the sent ones (and the zeros among them) against 1/A
    for (int A : { 3, 4, 6, 16 }) {
        const std::vector<uint8_t> zeros(300000, 0);
        const auto t = bsid::transmit(
            channel_params(0.2, 0, 0, A), zeros.data(), zeros.size(), 4, 0);
        std::map<long long, double> seen;
        for (auto y : t.rx)
            seen[y] += 1;
        seen[0] -= double(zeros.size()); // the transmitted zeros
        const double inserted = double(t.rx.size() - zeros.size());
        std::map<long long, double> prob;
        for (int y = 0; y < A; ++y)
            prob[y] = 1.0 / A;
        const auto [stat, df] = chi2(seen, prob, inserted);
        EXPECT_LT(stat, chi2_critical(df)) << A;
        // insertions per sent letter: Pi / (1 - Pi)
        const double want = 0.2 / 0.8 * double(zeros.size());
        EXPECT_NEAR(inserted, want, 5 * std::sqrt(want * 4)) << A;
    }
}

TEST(channel, a_substitution_matrix_sets_each_letters_substitutions)
{
    // DNA-like: transitions (A<->G, C<->T) more likely than transversions,
    // and one letter never substituted (thinning below the largest rate)
    const int A = 4;
    const std::vector<double> S = { 0.90, 0.02, 0.06, 0.02, //
                                    0.01, 0.95, 0.01, 0.03, //
                                    0.05, 0.01, 0.92, 0.02, //
                                    0.00, 0.00, 0.00, 1.00 };
    const channel_params ch(0, 0, 0.5, A, S);
    EXPECT_NEAR(ch.Ps(), (0.10 + 0.05 + 0.08 + 0.0) / 4, 1e-15); // Ps not used
    const auto x = random_letters(400000, A, 5);
    const auto t = bsid::transmit(ch, x.data(), x.size(), 6, 0);
    ASSERT_EQ(t.rx.size(), x.size());
    std::vector<std::map<long long, double>> got(A);
    std::vector<double> sent(A, 0);
    for (size_t k = 0; k < x.size(); ++k) {
        got[x[k]][t.rx[k]] += 1;
        sent[x[k]] += 1;
    }
    for (int a = 0; a < A; ++a) {
        std::map<long long, double> prob;
        for (int y = 0; y < A; ++y)
            if (S[size_t(a * A + y)] > 0)
                prob[y] = S[size_t(a * A + y)];
        const auto [stat, df] = chi2(got[size_t(a)], prob, sent[size_t(a)]);
        if (df > 0)
            EXPECT_LT(stat, chi2_critical(df)) << "letter " << a;
        else
            EXPECT_EQ(got[size_t(a)].size(), 1u) << "letter " << a; // never substituted
    }
    // with insertions and deletions too, the counts follow the model:
    // substitutions per sent letter sum_x Pt s(x) / A / (1 - Pi)
    const channel_params ch2(0.05, 0.05, 0, A, S);
    bsid::channel_emulator em(ch2, 7, 0);
    std::vector<uint8_t> rx;
    em.process(x.data(), x.size(), rx);
    const double n = double(x.size());
    const double subs = ch2.Pt() * ch2.Ps() / (1 - 0.05) * n;
    EXPECT_NEAR(double(em.substitutions()), subs, 5 * std::sqrt(subs * 4));
    const double ins = 0.05 / 0.95 * n;
    EXPECT_NEAR(double(em.insertions()), ins, 5 * std::sqrt(ins * 4));
}
