/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Belief propagation over GF(q) (ldpc_decoder) against brute force: a single
// check against the direct convolution, cycle-free codes against the exact
// symbol APPs, decoding of noisy codewords, bad and extreme input, batches.

#include <cstddef> // galois_field.h uses size_t

#include <gnuradio/bsid/core/outer/ldpc_decoder.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace bsid;

namespace {

// The CPU backend with `threads` threads.
std::unique_ptr<ldpc_decoder> cpu_bp(const ldpc_code& code, int threads)
{
    return ldpc_decoder::make(
        code, bsid::bp_config{ backend_kind::cpu, precision_kind::dual, threads, 0 });
}

constexpr double inf = std::numeric_limits<double>::infinity();

//! exp of a row of log-probabilities, normalized to sum 1.
std::vector<double> to_probs(const double* row, int q)
{
    double mx = -inf;
    for (int x = 0; x < q; ++x) {
        mx = std::max(mx, row[x]);
    }
    std::vector<double> p(size_t(q), 0.0);
    double s = 0.0;
    for (int x = 0; x < q; ++x) {
        p[size_t(x)] = std::exp(row[x] - mx);
        s += p[size_t(x)];
    }
    for (auto& v : p) {
        v /= s;
    }
    return p;
}

void normalize(std::vector<double>& v)
{
    double s = 0.0;
    for (double x : v) {
        s += x;
    }
    for (double& x : v) {
        x /= s;
    }
}

//! Hard decisions of the input (largest, ties to the lowest).
std::vector<int32_t> argmax_rows(const std::vector<double>& in, int n, int q)
{
    std::vector<int32_t> d(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        int best = 0;
        for (int x = 1; x < q; ++x) {
            if (in[size_t(i * q + x)] > in[size_t(i * q + best)]) {
                best = x;
            }
        }
        d[size_t(i)] = best;
    }
    return d;
}

//! Whether word satisfies every check (computed here, not by the code).
bool satisfies(const ldpc_code& code, const std::vector<int32_t>& w)
{
    const auto& ent = code.entries();
    const auto& rs = code.row_start();
    for (int r = 0; r < code.M(); ++r) {
        int s = 0;
        for (int e = rs[size_t(r)]; e < rs[size_t(r) + 1]; ++e) {
            s ^= code.field().mul(ent[size_t(e)].coef, w[size_t(ent[size_t(e)].col)]);
        }
        if (s != 0) {
            return false;
        }
    }
    return true;
}

//! A random codeword of `code`.
std::vector<int32_t> random_codeword(const ldpc_code& code, std::mt19937_64& rng)
{
    std::uniform_int_distribution<int> sym(0, code.q() - 1);
    std::vector<int32_t> info(size_t(code.k())), cw(size_t(code.n()));
    for (auto& s : info) {
        s = sym(rng);
    }
    code.encode(info.data(), cw.data());
    return cw;
}

//! Log-probabilities of a q-ary symmetric channel: received symbols favoured.
std::vector<double> symmetric_input(const std::vector<int32_t>& rx, int q, double p_err)
{
    std::vector<double> in(rx.size() * size_t(q), std::log(p_err / (q - 1)));
    for (size_t i = 0; i < rx.size(); ++i) {
        in[i * size_t(q) + size_t(rx[i])] = std::log(1.0 - p_err);
    }
    return in;
}

//! Flips `errors` distinct random positions of cw to another symbol.
std::vector<int32_t>
corrupt(const std::vector<int32_t>& cw, int q, int errors, std::mt19937_64& rng)
{
    std::vector<int32_t> rx = cw;
    std::vector<int> pos(cw.size());
    for (size_t i = 0; i < pos.size(); ++i) {
        pos[i] = int(i);
    }
    std::shuffle(pos.begin(), pos.end(), rng);
    std::uniform_int_distribution<int> off(1, q - 1);
    for (int t = 0; t < errors; ++t) {
        rx[size_t(pos[size_t(t)])] ^= off(rng);
    }
    return rx;
}

} // namespace

// 1. One check of degree 3 or 4 (M = 1): after one iteration the extrinsic is
// the direct convolution of the other symbols' input distributions.
TEST(LdpcDecoder, CheckNodeMatchesDirectConvolution)
{
    std::mt19937_64 rng(101);
    for (int q : { 2, 4, 8, 16 }) {
        for (int d : { 3, 4 }) {
            for (int trial = 0; trial < 6; ++trial) {
                std::uniform_int_distribution<int> coef(1, q - 1);
                std::vector<ldpc_code::entry> entries;
                for (int j = 0; j < d; ++j) {
                    entries.push_back({ 0, j, coef(rng) });
                }
                const ldpc_code code(q, d, 1, entries, /*allow_dependent_rows*/ false);
                const auto& gf = code.field();
                // the coefficient of each column, by the code's own entries
                std::vector<int> h(static_cast<size_t>(d));
                for (const auto& e : code.entries()) {
                    h[size_t(e.col)] = e.coef;
                }

                // random input whose hard decisions are not a codeword (else
                // the decoder would stop before any check node ran)
                std::vector<double> in(size_t(d * q));
                std::uniform_real_distribution<double> U(-4.0, 0.0);
                std::uniform_int_distribution<int> sym(0, q - 1);
                do {
                    for (auto& v : in) {
                        v = U(rng);
                    }
                    if (q > 2 && trial % 2 == 1) { // a zero probability
                        in[size_t(sym(rng))] = -inf;
                        in[size_t(q + sym(rng))] = -inf;
                    }
                } while (satisfies(code, argmax_rows(in, d, q)));

                std::vector<double> post(in.size()), ext(in.size());
                std::vector<int32_t> dec(static_cast<size_t>(d));
                const auto bp = cpu_bp(code, 1);
                const bp_result res =
                    bp->decode(in.data(), 1, post.data(), ext.data(), dec.data());
                EXPECT_EQ(res.iterations, 1);

                std::vector<std::vector<double>> p(static_cast<size_t>(d));
                for (int j = 0; j < d; ++j) {
                    p[size_t(j)] = to_probs(&in[size_t(j * q)], q);
                }
                for (int j = 0; j < d; ++j) {
                    // brute force: every assignment of the other symbols
                    std::vector<double> want(size_t(q), 0.0);
                    const int others = d - 1;
                    long long count = 1;
                    for (int t = 0; t < others; ++t) {
                        count *= q;
                    }
                    for (long long a = 0; a < count; ++a) {
                        long long rest = a;
                        int s = 0;
                        double pr = 1.0;
                        for (int k = 0; k < d; ++k) {
                            if (k == j) {
                                continue;
                            }
                            const int xk = int(rest % q);
                            rest /= q;
                            s ^= gf.mul(h[size_t(k)], xk);
                            pr *= p[size_t(k)][size_t(xk)];
                        }
                        // h_j x = s (characteristic 2)
                        const int x = gf.mul(gf.inv(h[size_t(j)]), s);
                        want[size_t(x)] += pr;
                    }
                    normalize(want);
                    double sum = 0.0;
                    for (int x = 0; x < q; ++x) {
                        const double got = std::exp(ext[size_t(j * q + x)]);
                        sum += got;
                        EXPECT_NEAR(got, want[size_t(x)], 1e-9)
                            << "q " << q << " d " << d << " trial " << trial << " edge "
                            << j << " x " << x;
                    }
                    EXPECT_NEAR(sum, 1.0, 1e-12);
                    // and the posterior is input times extrinsic
                    std::vector<double> app(static_cast<size_t>(q));
                    for (int x = 0; x < q; ++x) {
                        app[size_t(x)] = p[size_t(j)][size_t(x)] * want[size_t(x)];
                    }
                    normalize(app);
                    for (int x = 0; x < q; ++x) {
                        EXPECT_NEAR(
                            std::exp(post[size_t(j * q + x)]), app[size_t(x)], 1e-9);
                    }
                }
            }
        }
    }
}

// A degree-1 check forces its symbol to 0.
TEST(LdpcDecoder, DegreeOneCheckForcesZero)
{
    // checks: {0, 1, 2} and {1} alone
    const std::vector<ldpc_code::entry> entries = {
        { 0, 0, 3 }, { 0, 1, 5 }, { 0, 2, 7 }, { 1, 1, 6 }
    };
    const ldpc_code code(8, 3, 2, entries);
    std::vector<double> in(24, 0.0);
    in[size_t(8 + 4)] = 1.0; // symbol 1 favours 4: not a codeword
    std::vector<double> post(in.size()), ext(in.size());
    std::vector<int32_t> dec(3);
    const auto bp = cpu_bp(code, 1);
    const bp_result res = bp->decode(in.data(), 10, post.data(), ext.data(), dec.data());
    EXPECT_TRUE(res.syndrome_ok);
    EXPECT_EQ(dec[1], 0);
    EXPECT_NEAR(std::exp(post[8]), 1.0, 1e-12);
    for (int x = 1; x < 8; ++x) {
        EXPECT_LT(post[size_t(8 + x)], -690.0);
    }
}

namespace {

struct tree_case {
    int q, n, M;
    int depth; // the most checks on a path: iterations until BP is exact
    std::vector<ldpc_code::entry> shape; // coefficients drawn per seed
};

} // namespace

// 2. On a cycle-free Tanner graph BP is exact once messages have crossed the
// tree: after `depth` iterations (the most checks on any path) every message,
// hence the posterior (the symbol APP) and the extrinsic (the APP without the
// symbol's own input), is exact, and stays so. Seeds whose decisions form a
// codeword earlier stop before that; they are skipped, and enough must remain.
TEST(LdpcDecoder, TreeCodeEqualsBruteForceApp)
{
    const std::vector<tree_case> cases = {
        // a chain of three checks over GF(4)
        { 4,
          7,
          3,
          3,
          { { 0, 0, 1 },
            { 0, 1, 1 },
            { 0, 2, 1 },
            { 1, 2, 1 },
            { 1, 3, 1 },
            { 1, 4, 1 },
            { 2, 4, 1 },
            { 2, 5, 1 },
            { 2, 6, 1 } } },
        // two checks over GF(8) sharing symbol 3
        { 8,
          6,
          2,
          2,
          { { 0, 0, 1 },
            { 0, 1, 1 },
            { 0, 2, 1 },
            { 0, 3, 1 },
            { 1, 3, 1 },
            { 1, 4, 1 },
            { 1, 5, 1 } } },
        // a star over GF(8): symbol 0 in three checks
        { 8,
          7,
          3,
          2,
          { { 0, 0, 1 },
            { 0, 1, 1 },
            { 0, 2, 1 },
            { 1, 0, 1 },
            { 1, 3, 1 },
            { 1, 4, 1 },
            { 2, 0, 1 },
            { 2, 5, 1 },
            { 2, 6, 1 } } },
    };
    for (size_t ci = 0; ci < cases.size(); ++ci) {
        const tree_case& tc = cases[ci];
        const int q = tc.q, n = tc.n;
        int checked = 0;
        for (uint64_t seed = 1; seed <= 60 && checked < 6; ++seed) {
            std::mt19937_64 rng(seed * 7919 + ci);
            std::uniform_int_distribution<int> coef(1, q - 1);
            std::vector<ldpc_code::entry> entries = tc.shape;
            for (auto& e : entries) {
                e.coef = coef(rng);
            }
            const ldpc_code code(q, n, tc.M, entries);

            // soft input: random rows, some with a zero probability, some
            // nearly certain. The transform domain check node is exact to
            // about 1e-16 of each message's largest value, so a posterior
            // matches to 1e-9 only while it does not rest on message values
            // below about 1e-7 of their largest: with alternatives at e^-25
            // and conflicting certain neighbours, errors of 5e-8 are normal.
            // Hence alternatives at e^-10 .. e^-6 (ExtremeInputNoNaN covers
            // the far extremes).
            std::uniform_real_distribution<double> U(-2.0, 0.0);
            std::uniform_real_distribution<double> far(-10.0, -6.0);
            std::uniform_int_distribution<int> sym(0, q - 1);
            std::uniform_int_distribution<int> kind(0, 5);
            std::vector<double> in(size_t(n * q));
            for (int i = 0; i < n; ++i) {
                double* r = &in[size_t(i * q)];
                const int k = kind(rng);
                if (k == 0) { // nearly certain
                    for (int x = 0; x < q; ++x) {
                        r[x] = far(rng);
                    }
                    r[sym(rng)] = 0.0;
                } else {
                    for (int x = 0; x < q; ++x) {
                        r[x] = U(rng);
                    }
                    if (k == 1) {
                        r[sym(rng)] = -inf;
                    }
                }
            }

            // brute force over all q^n words
            std::vector<std::vector<double>> p(static_cast<size_t>(n));
            for (int i = 0; i < n; ++i) {
                p[size_t(i)] = to_probs(&in[size_t(i * q)], q);
            }
            std::vector<double> app(size_t(n * q), 0.0), extw(size_t(n * q), 0.0);
            std::vector<int32_t> w(size_t(n), 0);
            long long total = 1;
            for (int i = 0; i < n; ++i) {
                total *= q;
            }
            double Z = 0.0;
            for (long long a = 0; a < total; ++a) {
                long long rest = a;
                for (int i = 0; i < n; ++i) {
                    w[size_t(i)] = int32_t(rest % q);
                    rest /= q;
                }
                if (!satisfies(code, w)) {
                    continue;
                }
                double pr = 1.0;
                for (int i = 0; i < n; ++i) {
                    pr *= p[size_t(i)][size_t(w[size_t(i)])];
                }
                Z += pr;
                for (int i = 0; i < n; ++i) {
                    app[size_t(i * q + w[size_t(i)])] += pr;
                    // without symbol i's own input
                    double pe = 1.0;
                    for (int j = 0; j < n; ++j) {
                        if (j != i) {
                            pe *= p[size_t(j)][size_t(w[size_t(j)])];
                        }
                    }
                    extw[size_t(i * q + w[size_t(i)])] += pe;
                }
            }
            ASSERT_GT(Z, 1e-200);

            std::vector<double> post(in.size()), ext(in.size());
            std::vector<int32_t> dec(static_cast<size_t>(n));
            const auto bp = cpu_bp(code, 1);
            const bp_result res =
                bp->decode(in.data(), 40, post.data(), ext.data(), dec.data());
            if (res.iterations < tc.depth) {
                continue; // stopped before the messages crossed the tree
            }
            ++checked;
            for (int i = 0; i < n; ++i) {
                std::vector<double> wa(app.begin() + i * q, app.begin() + (i + 1) * q);
                std::vector<double> we(extw.begin() + i * q, extw.begin() + (i + 1) * q);
                normalize(wa);
                normalize(we);
                for (int x = 0; x < q; ++x) {
                    EXPECT_NEAR(std::exp(post[size_t(i * q + x)]), wa[size_t(x)], 1e-9)
                        << "case " << ci << " seed " << seed << " symbol " << i << " x "
                        << x;
                    EXPECT_NEAR(std::exp(ext[size_t(i * q + x)]), we[size_t(x)], 1e-9)
                        << "case " << ci << " seed " << seed << " symbol " << i << " x "
                        << x;
                    if (p[size_t(i)][size_t(x)] == 0.0) {
                        EXPECT_EQ(post[size_t(i * q + x)], -inf);
                    }
                }
            }
            EXPECT_EQ(res.syndrome_ok, satisfies(code, dec));
        }
        EXPECT_GE(checked, 6) << "case " << ci << ": too many early stops";
    }
}

// 3. A noisy codeword of a regular code is decoded; a clean one needs no
// iteration at all.
TEST(LdpcDecoder, DecodesNoisyCodeword)
{
    for (int q : { 2, 16 }) {
        const int n = q == 2 ? 192 : 96;
        const ldpc_code code = ldpc_code::regular(n, n / 2, q, 3, 11);
        const auto bp = cpu_bp(code, 1);
        for (uint64_t seed = 1; seed <= 5; ++seed) {
            std::mt19937_64 rng(seed);
            const std::vector<int32_t> cw = random_codeword(code, rng);
            ASSERT_TRUE(satisfies(code, cw));
            const int errors = q == 2 ? 5 : 6;
            const std::vector<int32_t> rx = corrupt(cw, q, errors, rng);
            const std::vector<double> in = symmetric_input(rx, q, q == 2 ? 0.05 : 0.1);
            std::vector<double> post(in.size()), ext(in.size());
            std::vector<int32_t> dec(static_cast<size_t>(n));
            const bp_result res =
                bp->decode(in.data(), 50, post.data(), ext.data(), dec.data());
            EXPECT_TRUE(res.syndrome_ok) << "q " << q << " seed " << seed;
            EXPECT_GE(res.iterations, 1);
            EXPECT_EQ(dec, cw) << "q " << q << " seed " << seed;
            // normalized outputs
            for (int i = 0; i < n; ++i) {
                double sp = 0.0, se = 0.0;
                for (int x = 0; x < q; ++x) {
                    sp += std::exp(post[size_t(i * q + x)]);
                    se += std::exp(ext[size_t(i * q + x)]);
                }
                EXPECT_NEAR(sp, 1.0, 1e-12);
                EXPECT_NEAR(se, 1.0, 1e-12);
            }
            // only decisions wanted
            std::vector<int32_t> dec2(static_cast<size_t>(n));
            const bp_result r2 = bp->decode(in.data(), 50, nullptr, nullptr, dec2.data());
            EXPECT_EQ(r2.iterations, res.iterations);
            EXPECT_EQ(dec2, dec);

            // the codeword itself: stops before any iteration
            const std::vector<double> clean = symmetric_input(cw, q, 0.3);
            const bp_result r0 =
                bp->decode(clean.data(), 50, post.data(), ext.data(), dec.data());
            EXPECT_EQ(r0.iterations, 0);
            EXPECT_TRUE(r0.syndrome_ok);
            EXPECT_EQ(dec, cw);
            for (int i = 0; i < n; ++i) {
                for (int x = 0; x < q; ++x) {
                    EXPECT_NEAR(post[size_t(i * q + x)], clean[size_t(i * q + x)], 1e-12);
                    EXPECT_NEAR(ext[size_t(i * q + x)], -std::log(double(q)), 1e-12);
                }
            }
        }
    }
}

// A word too noisy to decode reports syndrome_ok = false after max_iterations.
TEST(LdpcDecoder, ReportsFailure)
{
    const ldpc_code code = ldpc_code::regular(48, 24, 4, 3, 5);
    const auto bp = cpu_bp(code, 1);
    std::mt19937_64 rng(3);
    const std::vector<int32_t> cw = random_codeword(code, rng);
    // every row certain, one symbol wrong: decisions can never change
    std::vector<int32_t> rx = cw;
    rx[7] ^= 1;
    std::vector<double> in(size_t(48 * 4), -inf);
    for (int i = 0; i < 48; ++i) {
        in[size_t(i * 4 + rx[size_t(i)])] = 0.0;
    }
    std::vector<int32_t> dec(48);
    const bp_result res = bp->decode(in.data(), 7, nullptr, nullptr, dec.data());
    EXPECT_FALSE(res.syndrome_ok);
    EXPECT_EQ(res.iterations, 7);
    EXPECT_EQ(dec, rx);
}

// 4. Bad input is refused before any work, named by its symbol.
TEST(LdpcDecoder, BadInputThrows)
{
    const int q = 4, n = 32;
    const ldpc_code code = ldpc_code::regular(n, 16, q, 3, 1);
    const auto bp = cpu_bp(code, 2);
    const std::vector<double> good(size_t(n * q), -1.0);
    std::vector<double> post(good.size()), ext(good.size());

    auto expect_throw = [&](const std::vector<double>& in,
                            int iters,
                            const std::string& what) {
        try {
            bp->decode(in.data(), iters, post.data(), ext.data());
            ADD_FAILURE() << "no exception for " << what;
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
        }
    };
    std::vector<double> bad = good;
    bad[size_t(17 * q + 2)] = std::nan("");
    expect_throw(bad, 10, "row 17");
    EXPECT_THROW(bp->validate(bad.data()), std::invalid_argument);
    bad = good;
    bad[size_t(5 * q + 0)] = inf;
    expect_throw(bad, 10, "row 5");
    bad = good;
    for (int x = 0; x < q; ++x) {
        bad[size_t(9 * q + x)] = -inf;
    }
    expect_throw(bad, 10, "row 9");
    expect_throw(good, 0, "max_iterations");
    expect_throw(good, -3, "max_iterations");
    EXPECT_NO_THROW(bp->validate(good.data()));
    // one -inf entry is fine
    bad = good;
    bad[3] = -inf;
    EXPECT_NO_THROW(bp->decode(bad.data(), 3, post.data(), ext.data()));

    // decode_batch: word 2 is bad, nothing is decoded
    const int W = 4;
    std::vector<std::vector<double>> ins(W, good);
    ins[2][size_t(11 * q + 1)] = std::nan("");
    std::vector<std::vector<double>> posts(W, std::vector<double>(good.size(), 123.0));
    std::vector<std::vector<double>> exts(W, std::vector<double>(good.size(), 456.0));
    std::vector<std::vector<int32_t>> decs(W, std::vector<int32_t>(size_t(n), -7));
    std::vector<const double*> pin;
    std::vector<double*> ppost, pext;
    std::vector<int32_t*> pdec;
    for (int j = 0; j < W; ++j) {
        pin.push_back(ins[size_t(j)].data());
        ppost.push_back(posts[size_t(j)].data());
        pext.push_back(exts[size_t(j)].data());
        pdec.push_back(decs[size_t(j)].data());
    }
    try {
        bp->decode_batch(pin, 10, ppost, pext, pdec);
        ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("row 11"), std::string::npos) << e.what();
    }
    EXPECT_THROW(bp->decode_batch(pin, 0, ppost, pext, pdec), std::invalid_argument);
    for (int j = 0; j < W; ++j) {
        for (double v : posts[size_t(j)]) {
            ASSERT_EQ(v, 123.0);
        }
        for (double v : exts[size_t(j)]) {
            ASSERT_EQ(v, 456.0);
        }
        for (int32_t v : decs[size_t(j)]) {
            ASSERT_EQ(v, -7);
        }
    }
    // mismatched pointer counts
    ins[2] = good;
    ppost.pop_back();
    EXPECT_THROW(bp->decode_batch(pin, 10, ppost, pext, pdec), std::invalid_argument);
}

// 5. Extreme input never gives a NaN: -inf entries, magnitudes near the
// largest double, rows with a single possible symbol.
TEST(LdpcDecoder, ExtremeInputNoNaN)
{
    const int q = 8, n = 48;
    const ldpc_code code = ldpc_code::regular(n, 24, q, 3, 9);
    const auto bp = cpu_bp(code, 1);
    const double big = std::numeric_limits<double>::max();
    const std::vector<double> values = { -inf, -big,   -1e300, -1e300, -1e-300, 0.0,
                                         -5.0, -700.0, -750.0, 1e300,  big };
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        std::mt19937_64 rng(seed);
        std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
        std::uniform_int_distribution<int> sym(0, q - 1);
        const std::vector<int32_t> cw = random_codeword(code, rng);
        std::vector<double> in(size_t(n * q));
        for (int i = 0; i < n; ++i) {
            double* r = &in[size_t(i * q)];
            const int mode = int(seed % 3);
            if (mode == 0 || (mode == 1 && i % 2 == 0)) {
                // one certain symbol: the codeword's, or a wrong one
                for (int x = 0; x < q; ++x) {
                    r[x] = -inf;
                }
                r[(i % 5 == 0) ? sym(rng) : cw[size_t(i)]] = (i % 3 == 0) ? -1e300 : 0.0;
            } else {
                bool any = false;
                for (int x = 0; x < q; ++x) {
                    r[x] = values[pick(rng)];
                    any = any || r[x] != -inf;
                }
                if (!any) {
                    r[sym(rng)] = -1e300;
                }
            }
        }
        std::vector<double> post(in.size()), ext(in.size());
        std::vector<int32_t> dec(static_cast<size_t>(n));
        const bp_result res =
            bp->decode(in.data(), 20, post.data(), ext.data(), dec.data());
        EXPECT_GE(res.iterations, 0);
        EXPECT_LE(res.iterations, 20);
        for (int i = 0; i < n; ++i) {
            double sp = 0.0, se = 0.0;
            for (int x = 0; x < q; ++x) {
                const double a = post[size_t(i * q + x)], b = ext[size_t(i * q + x)];
                ASSERT_FALSE(std::isnan(a)) << "seed " << seed << " symbol " << i;
                ASSERT_FALSE(std::isnan(b)) << "seed " << seed << " symbol " << i;
                ASSERT_LT(a, 1e-9);
                ASSERT_LT(b, 1e-9);
                ASSERT_GT(b, -inf); // check messages are never -infinity
                if (in[size_t(i * q + x)] == -inf) {
                    EXPECT_EQ(a, -inf);
                }
                sp += std::exp(a);
                se += std::exp(b);
            }
            EXPECT_NEAR(sp, 1.0, 1e-12);
            EXPECT_NEAR(se, 1.0, 1e-12);
            EXPECT_GE(dec[size_t(i)], 0);
            EXPECT_LT(dec[size_t(i)], q);
            EXPECT_NE(in[size_t(i * q + dec[size_t(i)])], -inf);
        }
        EXPECT_EQ(res.syndrome_ok, satisfies(code, dec));
    }
}

// 6. decode_batch over threads equals decode word by word, bit for bit.
TEST(LdpcDecoder, BatchEqualsSingle)
{
    const int q = 8, n = 60;
    const ldpc_code code = ldpc_code::regular(n, 30, q, 3, 3);
    const auto single = cpu_bp(code, 1);
    const auto batch = cpu_bp(code, 4);
    const int W = 12;
    std::mt19937_64 rng(77);
    std::vector<std::vector<double>> ins;
    for (int j = 0; j < W; ++j) {
        const std::vector<int32_t> cw = random_codeword(code, rng);
        // from clean (0 iterations) to hopeless (max_iterations)
        const std::vector<int32_t> rx = corrupt(cw, q, (j * 3) % 30, rng);
        ins.push_back(symmetric_input(rx, q, 0.05 + 0.02 * (j % 5)));
    }
    std::vector<std::vector<double>> posts(W, std::vector<double>(size_t(n * q), 0.0));
    std::vector<std::vector<double>> exts = posts;
    std::vector<std::vector<int32_t>> decs(W, std::vector<int32_t>(size_t(n), 0));
    std::vector<const double*> pin;
    std::vector<double*> ppost, pext;
    std::vector<int32_t*> pdec;
    for (int j = 0; j < W; ++j) {
        pin.push_back(ins[size_t(j)].data());
        ppost.push_back(posts[size_t(j)].data());
        pext.push_back(j % 4 == 3 ? nullptr : exts[size_t(j)].data());
        pdec.push_back(decs[size_t(j)].data());
    }
    const std::vector<bp_result> res = batch->decode_batch(pin, 30, ppost, pext, pdec);
    ASSERT_EQ(res.size(), size_t(W));
    int ok = 0, failed = 0;
    for (int j = 0; j < W; ++j) {
        std::vector<double> post(size_t(n * q)), ext(size_t(n * q));
        std::vector<int32_t> dec(static_cast<size_t>(n));
        const bp_result r = single->decode(
            ins[size_t(j)].data(), 30, post.data(), ext.data(), dec.data());
        EXPECT_EQ(r.iterations, res[size_t(j)].iterations) << "word " << j;
        EXPECT_EQ(r.syndrome_ok, res[size_t(j)].syndrome_ok) << "word " << j;
        (r.syndrome_ok ? ok : failed)++;
        EXPECT_EQ(0,
                  std::memcmp(
                      post.data(), posts[size_t(j)].data(), post.size() * sizeof(double)))
            << "word " << j;
        if (j % 4 != 3) {
            EXPECT_EQ(0,
                      std::memcmp(ext.data(),
                                  exts[size_t(j)].data(),
                                  ext.size() * sizeof(double)))
                << "word " << j;
        }
        EXPECT_EQ(dec, decs[size_t(j)]) << "word " << j;
    }
    EXPECT_GT(ok, 0);
    // only decisions, and an empty batch
    std::vector<std::vector<int32_t>> decs2(W, std::vector<int32_t>(size_t(n), 0));
    std::vector<int32_t*> pdec2;
    for (auto& d : decs2) {
        pdec2.push_back(d.data());
    }
    const auto res2 = batch->decode_batch(pin, 30, {}, {}, pdec2);
    for (int j = 0; j < W; ++j) {
        EXPECT_EQ(res2[size_t(j)].iterations, res[size_t(j)].iterations);
        EXPECT_EQ(decs2[size_t(j)], decs[size_t(j)]);
    }
    EXPECT_TRUE(batch->decode_batch({}, 30, {}, {}, {}).empty());
}
