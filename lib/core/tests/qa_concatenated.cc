/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Concatenated codes (docs/concatenated.md): the inner decoder's extrinsic
// output against brute force on tiny codes with priors, the symbol mapping
// between outer and inner symbols, and the iterative decoder on simulated
// frames (every pass, sync words, bad input).

#include "qa_reference.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/outer/concatenated_decoder.h>
#include <gnuradio/bsid/core/outer/outer_code.h>
#include <gnuradio/bsid/core/outer/symbol_mapping.h>
#include <gnuradio/bsid/core/sim/concatenated_counter.h>
#include <gnuradio/bsid/core/sim/frame_source.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace bsid;
using namespace bsid::qa;

namespace {

const double inf = std::numeric_limits<double>::infinity();

// Normalizes log-probability rows (n x q) to probabilities.
std::vector<double> probabilities(const std::vector<double>& logs, int q)
{
    std::vector<double> p(logs.size());
    for (size_t r = 0; r < logs.size() / size_t(q); ++r) {
        const double z = log_sum_exp(logs.data() + r * size_t(q), q);
        for (int x = 0; x < q; ++x)
            p[r * size_t(q) + size_t(x)] = std::exp(logs[r * size_t(q) + size_t(x)] - z);
    }
    return p;
}

} // namespace

// The extrinsic output of symbol i is the APP of symbol i when its own prior
// is uniform (every other prior kept): here from the enumeration, once per
// symbol, against the decoder's direct computation. The priors hold zeros,
// where posterior over prior would be 0/0.
TEST(concatenated, inner_extrinsic_equals_brute_force_with_priors)
{
    EXPECT_GT(check_extrinsic_against_brute_force(backend_kind::cpu, test_seed() + 17),
              10);
}

TEST(concatenated, inner_extrinsic_without_priors_is_the_posterior)
{
    std::mt19937_64 rng(test_seed() + 18);
    for (int trial = 0; trial < 10; ++trial) {
        const tiny_case tc = random_case(rng, false);
        decoder_config cfg(tc.cb, tc.ch, tc.N);
        cfg.backend = backend_kind::cpu;
        wide_limits(cfg, tc);
        auto dec = map_decoder::make(cfg);
        std::vector<double> a(size_t(tc.N * tc.cb.q())), b(a.size());
        frame_view f{ tc.y.data(), tc.y.size(), nullptr };
        ASSERT_TRUE(dec->decode(f, a.data()).ok());
        f.extrinsic = true;
        ASSERT_TRUE(dec->decode(f, b.data()).ok());
        EXPECT_EQ(a, b);
    }
}

TEST(symbol_mapping, sizes_and_bit_layout)
{
    const symbol_mapping same(16, 10, 16);
    EXPECT_TRUE(same.identity());
    EXPECT_EQ(same.n_inner(), 10);
    EXPECT_EQ(same.pad_bits(), 0);

    // 5 GF(16) symbols = 20 bits -> 7 inner symbols of 3 bits, 1 pad bit
    const symbol_mapping m(16, 5, 8);
    EXPECT_FALSE(m.identity());
    EXPECT_EQ(m.n_inner(), 7);
    EXPECT_EQ(m.pad_bits(), 1);
    const int32_t outer[5] = { 0xA, 0x3, 0xF, 0x0, 0x9 };
    // bits 1010 0011 1111 0000 1001 + 0 -> 101 000 111 111 000 010 010
    const int32_t want[7] = { 5, 0, 7, 7, 0, 2, 2 };
    int32_t inner[7];
    m.to_inner(outer, inner);
    for (int j = 0; j < 7; ++j)
        EXPECT_EQ(inner[j], want[j]) << j;

    // GF(4) into q = 16: two outer symbols per inner symbol, no padding
    const symbol_mapping w(4, 6, 16);
    EXPECT_EQ(w.n_inner(), 3);
    EXPECT_EQ(w.pad_bits(), 0);

    EXPECT_THROW(symbol_mapping(16, 5, 10), std::invalid_argument); // q_i not 2^b
    EXPECT_THROW(symbol_mapping(12, 5, 12), std::invalid_argument); // q_o not 2^a
    EXPECT_THROW(symbol_mapping(16, 0, 16), std::invalid_argument);
    EXPECT_NO_THROW(symbol_mapping(2, 3, 65536));
}

// Product distributions (independent bits) pass through bit marginals
// exactly, both ways; the pad bit is read as the known 0.
TEST(symbol_mapping, product_distributions_are_exact)
{
    std::mt19937_64 rng(test_seed() + 19);
    std::uniform_real_distribution<double> u(0.02, 0.98);
    for (auto [qo, n, qi] : { std::tuple{ 16, 5, 8 },
                              std::tuple{ 4, 6, 16 },
                              std::tuple{ 8, 4, 2 },
                              std::tuple{ 2, 7, 4 },
                              std::tuple{ 16, 3, 16 } }) {
        const symbol_mapping m(qo, n, qi);
        int a = 0, b = 0;
        while ((1 << a) < qo)
            ++a;
        while ((1 << b) < qi)
            ++b;
        const int N = m.n_inner();
        std::vector<double> p1(size_t(N * b)); // P(bit g = 1), pad bits 0
        for (int g = 0; g < N * b; ++g)
            p1[size_t(g)] = g < n * a ? u(rng) : 0.0;
        auto bitprob = [&](int g, int v) {
            return v ? p1[size_t(g)] : 1 - p1[size_t(g)];
        };
        std::vector<double> inner(size_t(N * qi)), outer_log(size_t(n * qo));
        for (int j = 0; j < N; ++j)
            for (int x = 0; x < qi; ++x) {
                double p = 1;
                for (int t = 0; t < b; ++t)
                    p *= bitprob(j * b + t, (x >> (b - 1 - t)) & 1);
                inner[size_t(j * qi + x)] = p;
            }
        std::vector<double> want_outer(size_t(n * qo));
        for (int i = 0; i < n; ++i)
            for (int y = 0; y < qo; ++y) {
                double p = 1;
                for (int t = 0; t < a; ++t)
                    p *= bitprob(i * a + t, (y >> (a - 1 - t)) & 1);
                want_outer[size_t(i * qo + y)] = p;
                outer_log[size_t(i * qo + y)] = std::log(p);
            }
        // pad-bit symbols carry probability the mapping must ignore
        std::vector<double> noisy = inner;
        if (m.pad_bits() > 0)
            noisy[size_t((N - 1) * qi + 1)] += 0.3;
        std::vector<double> got(size_t(n * qo));
        m.inner_to_outer(noisy.data(), got.data());
        EXPECT_LT(max_abs_diff(probabilities(got, qo), want_outer), 1e-12)
            << qo << " " << n << " " << qi;
        std::vector<double> back(size_t(N * qi));
        m.outer_to_inner(outer_log.data(), back.data());
        EXPECT_LT(max_abs_diff(probabilities(back, qi), inner), 1e-12)
            << qo << " " << n << " " << qi;
        if (m.pad_bits() > 0) { // a symbol with its pad bit set is impossible
            EXPECT_EQ(back[size_t((N - 1) * qi + 1)], -inf);
        }
    }
}

// The variants on the caller's scratch (what the concatenated decoder's
// threads call, allocating nothing) give the same rows bit for bit as those
// that allocate, and write every scratch entry they read: the scratch starts
// as NaN, which would reach the rows otherwise. The identity needs none.
TEST(symbol_mapping, caller_scratch_gives_the_same_rows)
{
    std::mt19937_64 rng(test_seed() + 23);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    EXPECT_EQ(symbol_mapping(16, 3, 16).scratch_size(), 0u);
    EXPECT_EQ(symbol_mapping(16, 5, 8).scratch_size(), 40u); // 2 x 20 bits
    for (auto [qo, n, qi] : { std::tuple{ 16, 5, 8 },
                              std::tuple{ 4, 6, 16 },
                              std::tuple{ 8, 4, 2 },
                              std::tuple{ 16, 3, 16 } }) {
        const symbol_mapping m(qo, n, qi);
        const size_t NI = size_t(m.n_inner() * qi), NO = size_t(n * qo);
        std::vector<double> inner(NI), outer_log(NO);
        for (auto& x : inner)
            x = u(rng) < 0.2 ? 0.0 : u(rng); // zeros too
        for (auto& x : outer_log)
            x = u(rng) < 0.2 ? -inf : std::log(u(rng) + 1e-3);
        std::vector<double> want_o(NO), got_o(NO, 7.0), want_i(NI), got_i(NI, 7.0);
        std::vector<double> scratch(m.scratch_size() + 1,
                                    std::numeric_limits<double>::quiet_NaN());
        m.inner_to_outer(inner.data(), want_o.data());
        m.inner_to_outer(inner.data(), got_o.data(), scratch.data());
        m.outer_to_inner(outer_log.data(), want_i.data());
        std::fill(
            scratch.begin(), scratch.end(), std::numeric_limits<double>::quiet_NaN());
        m.outer_to_inner(outer_log.data(), got_i.data(), scratch.data());
        for (size_t r = 0; r < NO; ++r) {
            ASSERT_FALSE(std::isnan(got_o[r])) << qo << " " << n << " " << qi;
            EXPECT_EQ(got_o[r], want_o[r]) << qo << " " << n << " " << qi << " " << r;
        }
        for (size_t r = 0; r < NI; ++r) {
            ASSERT_FALSE(std::isnan(got_i[r])) << qo << " " << n << " " << qi;
            EXPECT_EQ(got_i[r], want_i[r]) << qo << " " << n << " " << qi << " " << r;
        }
        EXPECT_TRUE(std::isnan(scratch.back())); // nothing past scratch_size()
    }
}

namespace {

struct scheme {
    codebook cb;
    ldpc_code code;
    channel_params ch;
};

// Runs `frames` frames through the counter; returns FER after each pass.
std::vector<double> fer_by_pass(const scheme& s,
                                int I,
                                int frames,
                                std::vector<concatenated_errors>* errors = nullptr,
                                std::vector<uint8_t> sync = {})
{
    frame_source src(s.cb, s.ch, s.code, 7, sync);
    decoder_config cfg(s.cb, s.ch, src.N());
    cfg.backend = backend_kind::cpu;
    cfg.precision = precision_kind::dual;
    frame_decoder fdec(cfg, sync);
    concatenated_decoder dec(fdec, s.code);
    concatenated_options opt;
    opt.iterations = I;
    opt.bp_iterations = 30;
    concatenated_counter counter(dec, opt);
    frame_batch batch;
    src.generate(0, size_t(frames), batch);
    const auto& e = counter.run(batch);
    if (errors)
        *errors = e;
    std::vector<double> fer(size_t(I), 0.0);
    for (int k = 0; k < frames; ++k)
        for (int t = 0; t < I; ++t)
            fer[size_t(t)] += counter.wrong_after()[size_t(k * I + t)];
    for (auto& f : fer)
        f /= frames;
    // the counts agree with the last pass
    int last = 0;
    for (const auto& x : e)
        last += x.symbol_errors > 0;
    EXPECT_DOUBLE_EQ(fer.back(), double(last) / frames);
    return fer;
}

} // namespace

// On a fixed seed, more passes never raise the FER, and a frame the outer code
// decodes is reported correct (sync words, and outer symbols through bits).
TEST(concatenated, fer_does_not_increase_with_passes)
{
    const scheme s{ codebook::random(6, 16, 3, 11),
                    ldpc_code::regular(60, 30, 16, 3, 5),
                    channel_params(0.05, 0.05, 0.01) };
    std::vector<concatenated_errors> e;
    const auto fer = fer_by_pass(s, 5, 200, &e);
    for (size_t t = 1; t < fer.size(); ++t)
        EXPECT_LE(fer[t], fer[t - 1]) << "pass " << t + 1;
    EXPECT_GT(fer.front(), fer.back()) << "the passes must matter on this channel";
    EXPECT_GT(fer.front(), 0.05);
    for (const auto& x : e) {
        EXPECT_EQ(x.status, frame_status::ok);
        EXPECT_GE(x.iterations, 1);
        if (x.syndrome_ok) {
            EXPECT_EQ(x.symbol_errors, 0) << "an undetected error on a fixed seed";
        }
        EXPECT_EQ(x.bit_errors > 0, x.symbol_errors > 0);
    }
    ::testing::Test::RecordProperty("fer_pass1", std::to_string(fer.front()));
    ::testing::Test::RecordProperty("fer_pass5", std::to_string(fer.back()));
}

TEST(concatenated, decodes_through_bits_and_after_a_sync_word)
{
    // GF(4) outer symbols, two per inner symbol of q = 16
    const scheme a{ codebook::random(6, 16, 2, 3),
                    ldpc_code::regular(40, 20, 4, 3, 2),
                    channel_params(0.01, 0.01, 0.005) };
    const auto fa = fer_by_pass(a, 4, 40);
    EXPECT_LT(fa.back(), 0.1);
    // GF(16) over an inner q = 8 with a pad bit, after a sync word
    const scheme b{ codebook::random(5, 8, 2, 4),
                    ldpc_code::regular(32, 16, 16, 2, 3),
                    channel_params(0.01, 0.01, 0.005) };
    EXPECT_EQ(symbol_mapping(16, 32, 8).pad_bits(), 1);
    const auto fb = fer_by_pass(b, 4, 40, nullptr, { 1, 0, 1, 1, 0, 0, 1, 0 });
    EXPECT_LT(fb.back(), 0.1);
}

TEST(concatenated, bad_input_is_a_clear_error)
{
    const codebook cb = codebook::random(6, 16, 2, 3);
    const ldpc_code code = ldpc_code::regular(40, 20, 16, 3, 2);
    const channel_params ch(0.01, 0.01, 0.0);
    decoder_config wrong(cb, ch, 39);
    wrong.backend = backend_kind::cpu;
    auto bad = map_decoder::make(wrong);
    EXPECT_THROW(concatenated_decoder(*bad, code), std::invalid_argument); // N != 40

    decoder_config cfg10(codebook::random(6, 10, 2, 3), ch, 40);
    cfg10.backend = backend_kind::cpu;
    auto ten = map_decoder::make(cfg10);
    EXPECT_THROW(concatenated_decoder(*ten, code), std::invalid_argument); // q = 10

    decoder_config cfg(cb, ch, 40);
    cfg.backend = backend_kind::cpu;
    auto inner = map_decoder::make(cfg);
    concatenated_decoder dec(*inner, code);
    frame_source src(cb, ch, code, 1);
    frame_batch batch;
    src.generate(0, 2, batch);
    std::vector<frame_view> views{ batch.view(0), batch.view(1) };
    for (auto [I, B] : { std::pair{ 0, 10 }, std::pair{ 3, 0 }, std::pair{ -1, -1 } }) {
        concatenated_options opt;
        opt.iterations = I;
        opt.bp_iterations = B;
        EXPECT_THROW(dec.decode_batch(views, opt, {}), std::invalid_argument);
        EXPECT_THROW(concatenated_counter(dec, opt), std::invalid_argument);
    }
    std::vector<int32_t> d(40);
    EXPECT_THROW(dec.decode_batch(views, {}, { d.data() }), std::invalid_argument);

    // frames of a plain source have no information symbols
    concatenated_counter counter(dec, {});
    frame_source plain(cb, ch, 40, 1);
    frame_batch pb;
    plain.generate(0, 2, pb);
    EXPECT_THROW(counter.run(pb), std::invalid_argument);

    // an empty frame and one far too long: erasures, the batch goes on
    std::vector<uint8_t> none, huge(1000, 1);
    views = { frame_view{ none.data(), 0, nullptr },
              frame_view{ huge.data(), huge.size(), nullptr },
              batch.view(0) };
    std::vector<int32_t> out(3 * 40);
    std::vector<double> post(3 * 40 * 16);
    const auto r =
        dec.decode_batch(views,
                         {},
                         { out.data(), out.data() + 40, out.data() + 80 },
                         { post.data(), post.data() + 640, post.data() + 1280 });
    EXPECT_EQ(r[0].status, frame_status::empty);
    EXPECT_EQ(r[1].status, frame_status::drift_out_of_range);
    EXPECT_TRUE(r[2].ok());
    EXPECT_EQ(out[0], -1);
    EXPECT_EQ(out[40], -1);
    EXPECT_NEAR(post[0], -std::log(16.0), 1e-15);
    for (double v : post)
        EXPECT_FALSE(std::isnan(v));
}

namespace {

// A code that is not LDPC, through the outer-code seam: each of k symbols
// over GF(q) sent twice (n = 2 k, positions t and k + t). Its soft-in
// soft-out decoder is exact: symbol t's posterior is the product of its two
// copies' inputs; each copy's extrinsic output is the other copy's input.
class repetition_code final : public outer_code
{
public:
    repetition_code(int q, int k) : d_q(q), d_k(k), d_spec("repetition") {}
    int q() const override { return d_q; }
    int n() const override { return 2 * d_k; }
    int k() const override { return d_k; }
    const std::string& spec() const override { return d_spec; }
    void encode(const int32_t* info, int32_t* cw) const override
    {
        std::copy(info, info + d_k, cw);
        std::copy(info, info + d_k, cw + d_k);
    }
    void extract(const int32_t* cw, int32_t* info) const override
    {
        std::copy(cw, cw + d_k, info);
    }
    bool is_codeword(const int32_t* w) const override
    {
        return std::equal(w, w + d_k, w + d_k);
    }
    std::unique_ptr<siso_decoder> make_decoder(const siso_config&) const override;

private:
    int d_q, d_k;
    std::string d_spec;
};

class repetition_decoder final : public siso_decoder
{
public:
    explicit repetition_decoder(const repetition_code& c) : d_c(c) {}
    std::vector<siso_result> decode_batch(const std::vector<const double*>& in,
                                          int,
                                          const std::vector<double*>& post,
                                          const std::vector<double*>& ext,
                                          const std::vector<int32_t*>& decisions) override
    {
        const int q = d_c.q(), k = d_c.k();
        std::vector<siso_result> res(in.size());
        std::vector<double> row(size_t(q), 0.0);
        for (size_t j = 0; j < in.size(); ++j) {
            for (int t = 0; t < k; ++t) {
                const double* a = in[j] + size_t(t) * size_t(q);
                const double* b = in[j] + size_t(k + t) * size_t(q);
                for (int x = 0; x < q; ++x)
                    row[size_t(x)] = a[x] + b[x];
                const double z = log_sum_exp(row.data(), q);
                const double za = log_sum_exp(a, q), zb = log_sum_exp(b, q);
                const int best =
                    int(std::max_element(row.begin(), row.end()) - row.begin());
                for (int half = 0; half < 2; ++half) {
                    const size_t at = size_t(half * k + t) * size_t(q);
                    for (int x = 0; x < q; ++x) {
                        if (!post.empty() && post[j])
                            post[j][at + size_t(x)] = row[size_t(x)] - z;
                        if (!ext.empty() && ext[j]) // the other copy's input
                            ext[j][at + size_t(x)] = half ? a[x] - za : b[x] - zb;
                    }
                    if (!decisions.empty() && decisions[j])
                        decisions[j][size_t(half * k + t)] = best;
                }
            }
            res[j].iterations = 1;
            res[j].syndrome_ok = true;
        }
        return res;
    }
    backend_kind backend() const override { return backend_kind::cpu; }

private:
    const repetition_code& d_c;
};

std::unique_ptr<siso_decoder> repetition_code::make_decoder(const siso_config&) const
{
    return std::make_unique<repetition_decoder>(*this);
}

} // namespace

// The concatenated decoder takes any outer code through outer_code: with a
// repetition code, one pass decides each symbol by the product of its two
// copies' inner posteriors (computed here from the inner decoder alone), and
// a second pass, whose priors are the other copy's, decides the same.
TEST(concatenated, any_outer_code_through_the_seam)
{
    const codebook cb = codebook::builtin("ld3-modvec6"); // q = 16
    const channel_params ch(0.02, 0.02, 0.02);
    const int k = 6, N = 2 * k;
    const repetition_code code(cb.q(), k);
    decoder_config cfg(cb, ch, N);
    cfg.backend = backend_kind::cpu;
    cfg.precision = precision_kind::dual;
    auto inner = map_decoder::make(cfg);
    concatenated_decoder dec(*inner, code);
    EXPECT_FALSE(dec.has_device_loop());
    std::mt19937_64 rng(test_seed() + 77);
    int frames = 0, right = 0;
    for (int trial = 0; trial < 40; ++trial) {
        std::vector<int32_t> info(static_cast<size_t>(k)), cw(static_cast<size_t>(N));
        for (auto& s : info)
            s = int32_t(rng() % uint64_t(cb.q()));
        code.encode(info.data(), cw.data());
        ASSERT_TRUE(code.is_codeword(cw.data()));
        std::vector<uint8_t> sent(size_t(N * cb.n()));
        cb.encode(cw.data(), size_t(N), sent.data());
        const auto y = transmit(ch, sent.data(), sent.size(), test_seed() + 77, trial).rx;
        frame_view f{ y.data(), y.size(), nullptr };
        // pass 1 by hand: the inner posteriors (uniform priors), copies multiplied
        std::vector<double> p(size_t(N * cb.q()));
        if (!inner->decode(f, p.data()).ok())
            continue;
        std::vector<int32_t> expect(static_cast<size_t>(k));
        for (int t = 0; t < k; ++t) {
            double best = -inf;
            for (int x = 0; x < cb.q(); ++x) {
                const double v = std::log(p[size_t(t * cb.q() + x)]) +
                                 std::log(p[size_t((k + t) * cb.q() + x)]);
                if (v > best) {
                    best = v;
                    expect[size_t(t)] = x;
                }
            }
        }
        for (int I : { 1, 2 }) {
            concatenated_options opt;
            opt.iterations = I;
            std::vector<int32_t> d(size_t(N), -7);
            std::vector<double> lp(size_t(N * cb.q()));
            const auto r = dec.decode_batch({ f }, opt, { d.data() }, { lp.data() });
            ASSERT_TRUE(r[0].ok()) << r[0].reason;
            // the outer posteriors: the copies' inner posteriors multiplied
            for (int t = 0; t < k; ++t) {
                std::vector<double> row(size_t(cb.q()));
                for (int x = 0; x < cb.q(); ++x)
                    row[size_t(x)] = std::log(p[size_t(t * cb.q() + x)]) +
                                     std::log(p[size_t((k + t) * cb.q() + x)]);
                const double z = log_sum_exp(row.data(), cb.q());
                for (int half = 0; half < 2; ++half)
                    for (int x = 0; x < cb.q(); ++x) {
                        const double got = lp[size_t((half * k + t) * cb.q() + x)];
                        const double want = row[size_t(x)] - z;
                        if (std::isinf(want)) // a symbol the frame rules out
                            EXPECT_EQ(got, want) << "trial " << trial << ", symbol " << t;
                        else
                            EXPECT_NEAR(got, want, 1e-6)
                                << "trial " << trial << ", symbol " << t;
                    }
            }
            // the decoder stops once the decisions form a codeword: one pass
            EXPECT_EQ(r[0].iterations, 1);
            std::vector<int32_t> got(static_cast<size_t>(k));
            code.extract(d.data(), got.data());
            EXPECT_EQ(got, expect) << "trial " << trial;
        }
        ++frames;
        right += expect == info;
    }
    EXPECT_GE(frames, 30);
    EXPECT_GE(right, frames / 2); // a working code: most frames right
}
