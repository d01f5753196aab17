/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/inner/lattice.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <gtest/gtest.h>
#include <cmath>
#include <vector>

using bsid::channel_params;

namespace {

std::vector<uint8_t> bits_of(uint32_t w, int n)
{
    std::vector<uint8_t> b(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r)
        b[size_t(r)] = uint8_t((w >> (n - 1 - r)) & 1u);
    return b;
}

// R(y|x) with the drift c - r of every node restricted to [dlo, dhi]: a plain
// (n+1) x (len+1) table, written independently of corridor_lattice.
double constrained_R(const channel_params& ch,
                     const std::vector<uint8_t>& x,
                     const std::vector<uint8_t>& y,
                     int dlo,
                     int dhi)
{
    const int n = int(x.size()), L = int(y.size());
    const double ins = ch.Pi() / 2, del = ch.Pd();
    std::vector<std::vector<double>> F(size_t(n + 1),
                                       std::vector<double>(size_t(L + 1), 0.0));
    auto inside = [&](int r, int c) { return c - r >= dlo && c - r <= dhi; };
    for (int r = 0; r <= n; ++r) {
        for (int c = 0; c <= L; ++c) {
            if (!inside(r, c))
                continue;
            double v = (r == 0 && c == 0) ? 1.0 : 0.0;
            if (c > 0 && r < n && inside(r, c - 1))
                v += ins * F[size_t(r)][size_t(c - 1)];
            if (r > 0 && inside(r - 1, c))
                v += del * F[size_t(r - 1)][size_t(c)];
            if (r > 0 && c > 0 && inside(r - 1, c - 1)) {
                const double Q = y[size_t(c - 1)] == x[size_t(r - 1)]
                                     ? ch.Pt() * (1 - ch.Ps())
                                     : ch.Pt() * ch.Ps();
                v += Q * F[size_t(r - 1)][size_t(c - 1)];
            }
            F[size_t(r)][size_t(c)] = v;
        }
    }
    return F[size_t(n)][size_t(L)];
}

} // namespace

TEST(lattice, hand_computed_metrics)
{
    const channel_params ch(0.1, 0.2, 0.05);
    const double Pt = ch.Pt();
    const uint8_t one = 1, zero = 0;
    // one bit sent, nothing received: deleted
    EXPECT_DOUBLE_EQ(bsid::receiver_metric(ch, &one, 1, nullptr, 0), 0.2);
    // one bit, same bit received: sent intact, or an insertion equal to it then a
    // deletion
    EXPECT_DOUBLE_EQ(bsid::receiver_metric(ch, &one, 1, &one, 1), Pt * 0.95 + 0.05 * 0.2);
    EXPECT_DOUBLE_EQ(bsid::receiver_metric(ch, &one, 1, &zero, 1),
                     Pt * 0.05 + 0.05 * 0.2);
    // nothing after the last bit: "1" then an extra bit needs the insertion first
    const uint8_t y2[] = { 0, 1 };
    EXPECT_DOUBLE_EQ(bsid::receiver_metric(ch, &one, 1, y2, 2),
                     0.05 * Pt * 0.95 + 0.05 * 0.05 * 0.2);
}

TEST(lattice, metric_sums_to_one_over_all_outputs)
{
    // sum over every received sequence y of R(y|x) is 1 (up to the tail of
    // very long y, below 1e-12 here)
    const channel_params ch(0.1, 0.15, 0.1);
    const std::vector<uint8_t> x = { 1, 0, 1 };
    double total = 0;
    for (int L = 0; L <= 16; ++L) {
        for (uint32_t v = 0; v < (1u << L); ++v) {
            const auto y = bits_of(v, L);
            total += bsid::receiver_metric(ch, x.data(), x.size(), y.data(), y.size());
        }
    }
    EXPECT_NEAR(total, 1.0, 1e-9);
}

TEST(lattice, corridor_matches_full_and_constrained_references)
{
    bsid::philox_stream rng(2026, 3);
    for (int trial = 0; trial < 40; ++trial) {
        const int n = 1 + int(rng.next_u32() % 8);
        const int q = 2 + int(rng.next_u32() % std::min(7u, (1u << n) - 1));
        const auto cb = bsid::codebook::random(n, q, 1, rng.next_u32());
        const channel_params ch(
            0.3 * rng.next_open01(), 0.3 * rng.next_open01(), 0.2 * rng.next_open01());
        const int dlo = -int(rng.next_u32() % (n + 1));
        const int dhi = int(rng.next_u32() % 6);
        const int avail = int(rng.next_u32() % (n + dhi + 3));
        std::vector<uint8_t> y(static_cast<size_t>(avail));
        for (auto& b : y)
            b = uint8_t(rng.next_u32() & 1u);

        // the diagonal-weight table of corridor_lattice, for the decoders' weights
        const auto w = bsid::lattice_weights<double>::ratio(ch);
        std::vector<std::vector<double>> tab(size_t(2 * n),
                                             std::vector<double>(size_t(q)));
        std::vector<const double*> qsel;
        for (int r = 0; r < n; ++r)
            for (int b = 0; b < 2; ++b) {
                for (int D = 0; D < q; ++D) {
                    const int xb = int((cb.word(0, D) >> (n - 1 - r)) & 1u);
                    tab[size_t(2 * r + b)][size_t(D)] = xb == b ? w.match : w.mismatch;
                }
                qsel.push_back(tab[size_t(2 * r + b)].data());
            }
        const int Mn = dhi - dlo + 1;
        std::vector<double> scratch(size_t(2 * Mn * q)), out(size_t(Mn * q));
        bsid::corridor_lattice<double>(w,
                                       n,
                                       q,
                                       qsel.data(),
                                       y.data(),
                                       nullptr,
                                       avail,
                                       dlo,
                                       dhi,
                                       scratch.data(),
                                       out.data());
        for (int D = 0; D < q; ++D) {
            const auto x = bits_of(cb.word(0, D), n);
            const auto full =
                bsid::full_lattice_last_row(ch, x.data(), x.size(), y.data(), y.size());
            for (int d = dlo; d <= dhi; ++d) {
                const int c = n + d;
                // ratio() divides by Pt per transmitted bit and multiplies by 2 per
                // received bit
                const double scale = std::pow(ch.Pt(), n) / std::pow(2.0, c);
                const double got = out[size_t((d - dlo) * q + D)] * scale;
                if (c < 0 || c > avail) {
                    EXPECT_EQ(got, 0.0);
                    continue;
                }
                const std::vector<uint8_t> seg(y.begin(), y.begin() + c);
                const double want = constrained_R(ch, x, seg, dlo, dhi);
                EXPECT_NEAR(got, want, 1e-14 + 1e-12 * want)
                    << "trial " << trial << " D " << D << " d " << d;
                // a corridor as wide as the lattice is the full lattice
                if (dlo == -n && dhi >= avail) {
                    EXPECT_NEAR(got, full[size_t(c)], 1e-14 + 1e-12 * full[size_t(c)]);
                }
            }
        }
    }
}
