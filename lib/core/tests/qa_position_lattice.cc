/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU decoder's lattice by position (position_lattice.h, codeword_trie.h,
// position_blocks.h, cpu_recursion.h): each group's lattice against
// corridor_lattice in double (checked itself in qa_lattice and qa_cpu_lattice)
// start by start, on every instruction set this machine runs, bits and four
// letters, hard and soft items, float and double, rows divided by del^r or
// not, tries cut into chunks of 1, 3 and 32 codewords, frame ends inside and
// before the groups; the blocks' sums with a ring of all codewords against
// the one-chunk rings ("streaming"), bit for bit; the recursions' rows
// against model::forward_sum and backward_sum; and the
// decoder's storage modes against each other, bit for bit.

#include "inner/codeword_trie.h"
#include "inner/codeword_weights.h"
#include "inner/cpu_lattice.h"
#include "inner/cpu_recursion.h"
#include "inner/position_blocks.h"
#include "inner/position_lattice.h"
#include "runtime/aligned_vector.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/channel/soft_input.h>
#include <gnuradio/bsid/core/inner/lattice.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/inner/model.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

namespace cpu = bsid::cpu;
using bsid::channel_params;
using bsid::codebook;

namespace {

TEST(codeword_trie, levels_hold_the_distinct_prefixes_and_the_leaves_the_words)
{
    bsid::philox_stream rng(7, 1);
    for (int trial = 0; trial < 40; ++trial) {
        const int A = trial % 2 ? 4 : 2;
        const int n = 1 + int(rng.next_u32() % 7);
        const long long words = (long long)std::pow(A, n);
        const int q = 2 + int(rng.next_u32() % std::min<long long>(words - 1, 60));
        const codebook cb = codebook::random(n, q, 2, 100 + trial, A);
        for (int chunk : { 1, 3, 32 }) {
            for (int p = 0; p < cb.P(); ++p) {
                const auto t = bsid::make_codeword_trie(cb, p, chunk);
                ASSERT_EQ(t.word.size(), size_t(q));
                std::set<int> seen(t.word.begin(), t.word.end());
                EXPECT_EQ(seen.size(), size_t(q));
                int leaves = 0, widest = 1;
                for (const auto& c : t.chunks) {
                    EXPECT_EQ(c.first_leaf, leaves);
                    EXPECT_LE(c.leaves, chunk);
                    leaves += c.leaves;
                    for (int r = 1; r <= n; ++r) {
                        // level r: one node per distinct prefix of r letters
                        std::set<unsigned long long> prefixes;
                        for (int j = 0; j < c.leaves; ++j) {
                            const auto w =
                                cb.books()[size_t(p)]
                                          [size_t(t.word[size_t(c.first_leaf + j)])];
                            unsigned long long v = 0;
                            for (int k = 0; k < r; ++k)
                                v = v * unsigned(A) + cb.letter(w, k);
                            prefixes.insert(v);
                        }
                        const int count =
                            c.level_begin[size_t(r) + 1] - c.level_begin[size_t(r)];
                        EXPECT_EQ(count, int(prefixes.size()));
                        if (r < n)
                            widest = std::max(widest, count);
                    }
                    // each leaf's path from the root spells its codeword
                    for (int j = 0; j < c.leaves; ++j) {
                        const auto w =
                            cb.books()[size_t(p)]
                                      [size_t(t.word[size_t(c.first_leaf + j)])];
                        int node = c.level_begin[size_t(n)] + j;
                        for (int r = n; r >= 1; --r) {
                            EXPECT_EQ(unsigned(c.letter[size_t(node)]),
                                      cb.letter(w, r - 1));
                            node = c.level_begin[size_t(r) - 1] + c.parent[size_t(node)];
                        }
                        EXPECT_EQ(node, 0);
                    }
                }
                EXPECT_EQ(leaves, q);
                EXPECT_EQ(t.widest, widest);
            }
        }
    }
}

TEST(position_lattice, unit_del_only_where_the_rows_stay_in_range)
{
    auto w = bsid::lattice_weights<float>::ratio(channel_params(0.01, 0.01, 0));
    EXPECT_TRUE(cpu::unit_del_fits(w, 8, 2.0));
    EXPECT_FALSE(cpu::unit_del_fits(w, 20, 2.0)); // (2 / 0.01)^20 past 1e30
    EXPECT_TRUE(cpu::unit_del_fits(
        bsid::lattice_weights<double>::ratio(channel_params(0.01, 0.01, 0)), 20, 2.0));
    EXPECT_FALSE(cpu::unit_del_fits(
        bsid::lattice_weights<float>::ratio(channel_params(0.1, 0, 0)), 4, 2.0)); // del 0
    EXPECT_FALSE(cpu::unit_del_fits(
        bsid::lattice_weights<float>::ratio(channel_params(0.05, 0.6, 0)),
        4,
        2.0)); // del > 1
}

struct group_case {
    int A, n, q, dlo, dhi, chunk;
    long long rho, s0;
    channel_params ch;
    codebook cb;
    std::vector<uint8_t> y;   // rho received letters
    std::vector<double> prob; // A rho probabilities (soft)
};

group_case random_group(bsid::philox_stream& rng, int trial)
{
    const int A = trial % 3 == 2 ? 4 : 2;
    const int n = 1 + int(rng.next_u32() % 8);
    const long long words = (long long)std::pow(A, n);
    const int q = 2 + int(rng.next_u32() % std::min<long long>(words - 1, 40));
    const double Pi = 0.3 * rng.next_open01(), Pd = 0.3 * rng.next_open01();
    const double Ps = trial % 4 == 0 ? 0.0 : 0.2 * rng.next_open01();
    group_case c{ A,
                  n,
                  q,
                  -int(rng.next_u32() % (n + 1)),
                  int(rng.next_u32() % 7),
                  trial % 3 == 0   ? 1
                  : trial % 3 == 1 ? 3
                                   : 32,
                  0,
                  0,
                  channel_params(Pi, Pd, Ps, A),
                  codebook::random(n, q, 1, 1000 + trial, A),
                  {},
                  {} };
    c.rho = 1 + (long long)(rng.next_u32() % 60);
    // groups that start before the frame, inside it, near and past its end
    c.s0 = -3 + (long long)(rng.next_u32() % (c.rho + 8));
    for (long long j = 0; j < c.rho; ++j) {
        c.y.push_back(uint8_t(rng.next_u32() % unsigned(A)));
        // a mix of hard and soft items
        double sum = 0;
        std::vector<double> p(static_cast<size_t>(A));
        for (int l = 0; l < A; ++l)
            sum += (p[size_t(l)] = rng.next_u32() % 4 == 0 ? double(l == c.y.back())
                                                           : rng.next_open01());
        for (int l = 0; l < A; ++l)
            c.prob.push_back(p[size_t(l)] / sum);
    }
    return c;
}

// corridor_lattice in double for the codeword of symbol D starting at item s
std::vector<double> reference(const group_case& c, bool soft, int D, long long s)
{
    const int Mn = c.dhi - c.dlo + 1;
    const auto tab = bsid::diagonal_table<double>(c.cb, c.ch, 0);
    std::vector<double> word_tab; // the one codeword's rows (q = 1)
    for (int k = 0; k < c.A * c.n; ++k)
        word_tab.push_back(tab[size_t(k) * size_t(c.q) + size_t(D)]);
    const auto rows = bsid::table_rows(word_tab, 1);
    cpu::lattice_shape<double> shape{
        bsid::lattice_weights<double>::ratio(c.ch), c.n, 1, c.dlo, c.dhi, c.A
    };
    std::vector<double> scratch(cpu::lattice_lanes_scratch(shape) + 16);
    std::vector<double> out(static_cast<size_t>(Mn));
    cpu::lattice_call<double> call;
    call.qsel = rows.data();
    call.y = c.y.data() + s;
    call.yprob = soft ? c.prob.data() + size_t(c.A) * size_t(s) : nullptr;
    call.avail = c.rho - s;
    call.scratch = scratch.data();
    call.out = out.data();
    if (c.A == 2)
        bsid::corridor_lattice<double>(shape.w,
                                       c.n,
                                       1,
                                       call.qsel,
                                       call.y,
                                       call.yprob,
                                       call.avail,
                                       c.dlo,
                                       c.dhi,
                                       call.scratch,
                                       call.out);
    else
        cpu::corridor_lattice_letters<double>(shape, call);
    return out;
}

template <typename real>
void check_groups(double rtol)
{
    bsid::philox_stream rng(11, sizeof(real));
    for (int trial = 0; trial < 90; ++trial) {
        const group_case c = random_group(rng, trial);
        const int Mn = c.dhi - c.dlo + 1;
        for (int isa = 0; isa <= int(cpu::best_isa()); ++isa) {
            const int W = cpu::position_lanes(cpu::isa(isa), sizeof(real));
            const auto trie = bsid::make_codeword_trie(c.cb, 0, c.chunk);
            for (bool soft : { false, true }) {
                for (bool unit : { false, true }) {
                    cpu::position_shape<real> shape;
                    shape.w = bsid::lattice_weights<real>::ratio(c.ch);
                    shape.n = c.n;
                    shape.dlo = c.dlo;
                    shape.dhi = c.dhi;
                    shape.A = c.A;
                    shape.unit_del = unit && cpu::unit_del_fits(shape.w, c.n, 2.0 * c.A);
                    shape.del_n = real(std::pow(double(shape.w.del), c.n));
                    // the letters' weights by item, over [s0, s0 + W + n + dhi)
                    const long long first = c.s0;
                    const size_t len = size_t(W + c.n + c.dhi + 1);
                    std::vector<real> dw(size_t(c.A) * len, real(0));
                    for (int x = 0; x < c.A; ++x) {
                        for (size_t k = 0; k < len; ++k) {
                            const long long j = first + (long long)k;
                            if (j < 0 || j >= c.rho)
                                continue;
                            double v = 0;
                            for (int y = 0; y < c.A; ++y) {
                                const double t =
                                    c.A == 2
                                        ? double(shape.w.diag(unsigned(x), unsigned(y)))
                                        : c.A * c.ch.emission(unsigned(x), unsigned(y));
                                v += (soft ? c.prob[size_t(c.A * j + y)]
                                           : double(c.y[size_t(j)] == y)) *
                                     t;
                            }
                            dw[size_t(x) * len + k] =
                                real(shape.unit_del ? v / double(shape.w.del) : v);
                        }
                    }
                    for (const auto& ch : trie.chunks) {
                        bsid::aligned_vector<real> scratch(cpu::position_scratch(
                            trie.widest, c.n, c.dlo, c.dhi, W, c.A));
                        const size_t stride = size_t(W) + 3; // rows of a wider array
                        std::vector<real> out(size_t(ch.leaves) * size_t(Mn) * stride,
                                              real(-7));
                        cpu::position_call<real> call;
                        call.chunk = &ch;
                        call.dw = dw.data();
                        call.dw_stride = len;
                        call.dw_first = first;
                        call.s0 = c.s0;
                        call.rho = c.rho;
                        call.scratch = scratch.data();
                        call.out = out.data();
                        call.out_stride = stride;
                        cpu::position_lattice(cpu::isa(isa), shape, call);
                        for (int j = 0; j < ch.leaves; ++j) {
                            const int D = trie.word[size_t(ch.first_leaf + j)];
                            for (int l = 0; l < W; ++l) {
                                const long long s = c.s0 + l;
                                if (s < 0 || s > c.rho)
                                    continue; // no state of the decoder
                                const auto ref = reference(c, soft, D, s);
                                for (int k = 0; k < Mn; ++k) {
                                    const double got =
                                        double(out[(size_t(j) * size_t(Mn) + size_t(k)) *
                                                       stride +
                                                   size_t(l)]);
                                    ASSERT_NEAR(got,
                                                ref[size_t(k)],
                                                rtol * std::abs(ref[size_t(k)]) + 1e-30)
                                        << "trial " << trial << " isa " << isa << " soft "
                                        << soft << " unit " << shape.unit_del << " D "
                                        << D << " s " << s << " node " << k << " A "
                                        << c.A << " n " << c.n << " corridor [" << c.dlo
                                        << ", " << c.dhi << "] rho " << c.rho;
                                }
                            }
                        }
                        // nothing written past a row's W lanes
                        for (size_t r = 0; r < size_t(ch.leaves) * size_t(Mn); ++r)
                            for (size_t l = size_t(W); l < stride; ++l)
                                ASSERT_EQ(out[r * stride + l], real(-7));
                    }
                }
            }
        }
    }
}

TEST(position_lattice, every_lane_equals_corridor_lattice_double)
{
    check_groups<double>(1e-11);
}

TEST(position_lattice, every_lane_equals_corridor_lattice_float)
{
    check_groups<float>(2e-5);
}

// (the same terms in the same order: equal but for the rounding of fused
// multiply-adds, which the rows' AVX2 and AVX-512 code uses and this file's
// baseline code does not)
TEST(cpu_recursion, rows_equal_model_sums)
{
    bsid::philox_stream rng(3, 3);
    for (int trial = 0; trial < 50; ++trial) {
        const int Mt = 1 + int(rng.next_u32() % 70);
        const int Mn = 1 + int(rng.next_u32() % 20);
        const int dlo = -int(rng.next_u32() % unsigned(Mn));
        const int M = cpu::row_margin(dlo, Mn);
        const size_t gs = size_t(Mt) + 5;
        std::vector<double> prev(size_t(Mt + 2 * M), 0.0), next(prev),
            g(size_t(Mn) * gs + 2 * size_t(M) + 16, 0.0);
        for (int a = 0; a < Mt; ++a) {
            prev[size_t(M + a)] = rng.next_open01();
            next[size_t(M + a)] = rng.next_u32() % 5 == 0 ? 0.0 : rng.next_open01();
        }
        for (auto& v : g)
            v = rng.next_open01(); // finite values around the rows too
        const double* G = g.data() + M;
        std::vector<double> fwd(static_cast<size_t>(Mt)), bwd(static_cast<size_t>(Mt));
        cpu::forward_row(dlo, Mn, Mt, prev.data() + M, G, gs, fwd.data());
        cpu::backward_row(dlo, Mn, Mt, next.data() + M, G, gs, bwd.data());
        auto gf = [&](int e, int a) { return G[size_t(e) * gs + size_t(a)]; };
        for (int b = 0; b < Mt; ++b) {
            const double f = bsid::model::forward_sum<double>(
                b, dlo, Mn, Mt, [&](int a) { return prev[size_t(M + a)]; }, gf);
            const double w = bsid::model::backward_sum<double>(
                b, dlo, Mn, Mt, [&](int x) { return next[size_t(M + x)]; }, gf);
            EXPECT_NEAR(fwd[size_t(b)], f, 1e-14 * f) << "trial " << trial << " b " << b;
            EXPECT_NEAR(bwd[size_t(b)], w, 1e-14 * w) << "trial " << trial << " a " << b;
        }
    }
}

// A frame's sums from rings of all codewords and from one-chunk rings.
template <typename real>
void check_streaming(int A, const std::vector<bool>& priors)
{
    const int n = 6, q = A == 2 ? 40 : 70, N = 30;
    const codebook cb = codebook::random(n, q, 3, 5, A);
    const channel_params ch(0.03, 0.04, 0.02, A);
    const auto limits = bsid::map_decoder::limits_for(bsid::decoder_config(cb, ch, N));
    const bsid::position_plan<real> plan(cb, ch, limits, N, cpu::best_isa());
    const std::vector<int64_t> msg(size_t(N), 3);
    const std::vector<uint8_t> bits = cb.encode(msg.data(), msg.size());
    const auto rx = bsid::transmit(ch, bits.data(), bits.size(), 9).rx;
    const int Mt = plan.Mt, Mn = plan.Mn, Qs = plan.Qs();
    bsid::philox_stream rng(2, 2);
    for (bool with_prior : priors) {
        std::vector<double> prior(static_cast<size_t>(q));
        double sum = 0;
        for (auto& p : prior)
            sum += (p = rng.next_open01());
        for (auto& p : prior)
            p /= sum;
        bsid::position_blocks<real> ring, stream;
        ring.prepare(plan, rx.data(), nullptr, (long long)rx.size(), false);
        stream.prepare(plan, rx.data(), nullptr, (long long)rx.size(), true);
        std::vector<double> from(static_cast<size_t>(Mt));
        for (auto& f : from)
            f = rng.next_open01();
        const int M = Mn + 40;
        std::vector<double> G1(size_t(Mn * Mt + 2 * M)), G2(G1);
        std::vector<double> Q1(size_t(q) * size_t(Qs)), Q2(Q1);
        for (int i = 0; i < N; ++i) {
            double sec = 0;
            const auto g1 = ring.index_sums(i,
                                            with_prior ? prior.data() : nullptr,
                                            G1.data() + M,
                                            from.data(),
                                            Q1.data(),
                                            false,
                                            sec);
            const auto g2 = stream.index_sums(i,
                                              with_prior ? prior.data() : nullptr,
                                              G2.data() + M,
                                              from.data(),
                                              Q2.data(),
                                              false,
                                              sec);
            for (int e = 0; e < Mn; ++e)
                for (int a = 0; a < Mt; ++a)
                    ASSERT_EQ(g1.g[size_t(e) * g1.stride + size_t(a)],
                              g2.g[size_t(e) * g2.stride + size_t(a)])
                        << "index " << i << " e " << e << " a " << a;
            for (int D = 0; D < q; ++D)
                for (int b = 0; b < Mt; ++b)
                    ASSERT_EQ(Q1[size_t(D) * size_t(Qs) + size_t(b)],
                              Q2[size_t(D) * size_t(Qs) + size_t(b)])
                        << "index " << i << " D " << D << " b " << b;
        }
        // each book's group ran once with the rings, once per index with none
        EXPECT_LT(ring.lattices(), stream.lattices());
    }
}

TEST(position_blocks, streaming_gives_the_rings_sums_bit_for_bit)
{
    check_streaming<float>(2, { false, true });
    check_streaming<double>(2, { false, true });
    check_streaming<double>(4, { false, true });
}

TEST(position_blocks, storage_modes_decode_the_same_bit_for_bit)
{
    for (int A : { 2, 4 }) {
        const codebook cb = codebook::random(6, A == 2 ? 24 : 40, 4, 3, A);
        const channel_params ch(0.02, 0.03, 0.01, A);
        const int N = 60;
        std::vector<int64_t> msg(static_cast<size_t>(N));
        for (int i = 0; i < N; ++i)
            msg[size_t(i)] = (i * 7) % cb.q();
        const std::vector<uint8_t> bits = cb.encode(msg.data(), msg.size());
        const auto rx = bsid::transmit(ch, bits.data(), bits.size(), 4).rx;
        std::vector<double> priors(size_t(N) * size_t(cb.q()));
        bsid::philox_stream rng(4, 4);
        for (auto& p : priors)
            p = rng.next_open01();
        for (auto prec : { bsid::precision_kind::single, bsid::precision_kind::dual }) {
            for (bool with_prior : { false, true }) {
                std::vector<std::vector<double>> posts;
                for (auto st :
                     { bsid::storage_kind::global, bsid::storage_kind::local }) {
                    bsid::decoder_config cfg(cb, ch, N);
                    cfg.backend = bsid::backend_kind::cpu;
                    cfg.precision = prec;
                    cfg.storage = st;
                    auto dec = bsid::map_decoder::make(cfg);
                    std::vector<double> post(size_t(N) * size_t(cb.q()));
                    bsid::frame_view f{ rx.data(), rx.size() };
                    if (with_prior)
                        f.priors = priors.data();
                    ASSERT_TRUE(dec->decode(f, post.data()).ok());
                    posts.push_back(post);
                }
                EXPECT_EQ(posts[0], posts[1]) << "A " << A << " prior " << with_prior;
            }
        }
    }
}

} // namespace
