/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The bad-input matrix of the core library (docs/testing.md): for every input
// a user can get wrong, a clear error naming the problem or a flagged erasure
// (a frame_status other than ok, with uniform posteriors), never a crash, a
// hang, NaN or a silently dropped frame. Each decoder case runs on the CPU
// backend in float and in double; the CUDA cases are in
// lib/cuda/qa_bad_input_cuda.cc. Where a frame could be either decoded or
// refused, the test does not accept both: model_status() below says which
// one the model gives it, and float must give the same status as double and
// posteriors within 1e-4 of double's (docs/design.md section 3).

#include "qa_reference.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/channel/channel_params.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/inner/drift_limits.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/runtime/errors.h>
#include <gtest/gtest.h>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace bsid;

namespace {

const double nan_v = std::numeric_limits<double>::quiet_NaN();
const double inf_v = std::numeric_limits<double>::infinity();
const precision_kind precisions[] = { precision_kind::single, precision_kind::dual };

template <typename E = std::invalid_argument>
void expect_error(const std::function<void()>& f, const std::string& fragment)
{
    try {
        f();
        ADD_FAILURE() << "accepted; expected an error containing '" << fragment << "'";
    } catch (const E& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

std::string temp_path(const std::string& name)
{
    return std::string(::testing::TempDir()) + "bsid_qa_bad_input_" + name;
}

std::string write_file(const std::string& name, const std::string& bytes)
{
    const std::string path = temp_path(name);
    std::ofstream f(path, std::ios::binary);
    f.write(bytes.data(), std::streamsize(bytes.size()));
    return path;
}

std::unique_ptr<map_decoder>
cpu_decoder(const codebook& cb, const channel_params& ch, int N, precision_kind p)
{
    decoder_config cfg(cb, ch, N);
    cfg.backend = backend_kind::cpu;
    cfg.precision = p;
    return map_decoder::make(cfg);
}

// Every row of post is finite, non-negative and sums to 1.
void expect_rows_normalized(const std::vector<double>& post,
                            int N,
                            int q,
                            const std::string& what)
{
    for (int i = 0; i < N; ++i) {
        double s = 0;
        for (int D = 0; D < q; ++D) {
            const double v = post[size_t(i) * size_t(q) + size_t(D)];
            ASSERT_TRUE(std::isfinite(v) && v >= 0)
                << what << ": row " << i << " has " << v;
            s += v;
        }
        ASSERT_NEAR(s, 1.0, 1e-6) << what << ": row " << i;
    }
}

// Decodes and checks the contract: ok with normalized rows, or a named
// refusal with a reason and uniform posteriors. The posteriors go to *out if given.
frame_result decode_checked(map_decoder& dec,
                            const std::vector<uint8_t>& y,
                            const double* priors,
                            const std::string& what,
                            std::vector<double>* out = nullptr)
{
    const int N = dec.N(), q = dec.q();
    std::vector<double> post(size_t(N) * size_t(q), nan_v);
    const auto r = dec.decode({ y.data(), y.size(), priors }, post.data());
    if (r.ok()) {
        EXPECT_TRUE(r.reason.empty()) << what;
        expect_rows_normalized(post, N, q, what);
    } else {
        EXPECT_FALSE(r.reason.empty()) << what << ": a refusal must say why";
        for (double v : post)
            EXPECT_EQ(v, 1.0 / q) << what << ": a refused frame is uniform";
    }
    if (out)
        *out = std::move(post);
    return r;
}

/*
 * The status the channel model gives a frame of bits y, written here
 * independently of the decoders: empty (rho = 0), drift_out_of_range (an end
 * drift outside m_tau), and otherwise ok when some path of the model inside
 * the decoder's limits produces y, impossible when none does. The limits
 * restrict paths as the decoders (and qa_reference.h's brute force) do: every
 * codeword boundary's drift in m_tau, every lattice node's drift within a
 * codeword in m_n. A step is possible where its weight is positive: an
 * insertion if Pi > 0 (none after a codeword's last bit), a deletion if
 * Pd > 0, a received bit equal to the sent one if Ps < 1, a flipped one if
 * Ps > 0. Priors are not looked at: for priors without a zero entry.
 */
frame_status model_status(const map_decoder& dec, const std::vector<uint8_t>& y)
{
    const codebook& cb = dec.config().cb;
    const channel_params& ch = dec.config().ch;
    const int N = dec.N(), n = dec.n(), q = dec.q();
    const drift_range mt = dec.limits().mtau, mn = dec.limits().mn;
    const long long rho = (long long)y.size(), tau = dec.tau();
    if (rho == 0)
        return frame_status::empty;
    if (!mt.contains(rho - tau))
        return frame_status::drift_out_of_range;
    const bool ins = ch.Pi() > 0, del = ch.Pd() > 0, same = ch.Ps()<1, flip = ch.Ps()> 0;
    // reached[a]: some path reaches the current boundary at drift mt.lo + a
    std::vector<char> reached(size_t(mt.size()), 0), next(reached.size());
    reached[size_t(-mt.lo)] = 1;
    const int W = n + mn.hi; // the most received bits one codeword can take
    std::vector<char> F(size_t(n + 1) * size_t(W + 1));
    auto at = [&](int r, int c) -> char& {
        return F[size_t(r) * size_t(W + 1) + size_t(c)];
    };
    for (int i = 0; i < N; ++i) {
        std::fill(next.begin(), next.end(), 0);
        for (int m1 = mt.lo; m1 <= mt.hi; ++m1) {
            if (!reached[size_t(m1 - mt.lo)])
                continue;
            const long long start = (long long)i * n + m1;
            if (start < 0 || start > rho)
                continue;
            const int C = int(std::min<long long>(W, rho - start));
            for (int D = 0; D < q; ++D) {
                const uint32_t w = cb.word(size_t(i), D);
                for (int r = 0; r <= n; ++r)
                    for (int c = 0; c <= C; ++c) {
                        char v = 0;
                        if (c - r >= mn.lo && c - r <= mn.hi) {
                            const uint8_t sent = r > 0 ? uint8_t((w >> (n - r)) & 1u) : 0;
                            v = (r == 0 && c == 0) ||
                                (ins && c > 0 && r < n && at(r, c - 1)) ||
                                (del && r > 0 && at(r - 1, c)) ||
                                (r > 0 && c > 0 &&
                                 (y[size_t(start + c - 1)] == sent ? same : flip) &&
                                 at(r - 1, c - 1));
                        }
                        at(r, c) = v;
                    }
                for (int c = 0; c <= C; ++c) {
                    const int m2 = m1 + c - n;
                    if (at(n, c) && mt.contains(m2))
                        next[size_t(m2 - mt.lo)] = 1;
                }
            }
        }
        std::swap(reached, next);
    }
    return reached[size_t(rho - tau - mt.lo)] ? frame_status::ok
                                              : frame_status::impossible;
}

// The same code, channel and N in float and in double, both on the CPU.
struct decoder_pair {
    std::unique_ptr<map_decoder> single, dual;
};

decoder_pair cpu_decoders(const codebook& cb, const channel_params& ch, int N)
{
    return { cpu_decoder(cb, ch, N, precision_kind::single),
             cpu_decoder(cb, ch, N, precision_kind::dual) };
}

/*
 * Decodes y in float and in double, each checked against the contract
 * (decode_checked) and against the status the model gives the frame
 * (model_status): the same status in both precisions, and float's posteriors
 * within 1e-4 of double's. Returns the status; the posteriors go to
 * *post_dual and *post_single if given.
 */
frame_status expect_model_outcome(const decoder_pair& dec,
                                  const std::vector<uint8_t>& y,
                                  const double* priors,
                                  const std::string& what,
                                  std::vector<double>* post_dual = nullptr,
                                  std::vector<double>* post_single = nullptr)
{
    const frame_status want = model_status(*dec.dual, y);
    std::vector<double> pd, pf;
    const auto rd = decode_checked(*dec.dual, y, priors, what + " double", &pd);
    const auto rf = decode_checked(*dec.single, y, priors, what + " float", &pf);
    EXPECT_EQ(rd.status, want) << what << " double: " << rd.reason;
    EXPECT_EQ(rf.status, want) << what << " float: " << rf.reason;
    if (rd.ok() && rf.ok()) {
        double diff = 0;
        for (size_t k = 0; k < pd.size(); ++k)
            diff = std::max(diff, std::abs(pf[k] - pd[k]));
        EXPECT_LT(diff, 1e-4) << what << ": max |float - double|";
    }
    if (post_dual)
        *post_dual = std::move(pd);
    if (post_single)
        *post_single = std::move(pf);
    return want;
}

std::vector<uint8_t> encode(const codebook& cb, int N, int seed)
{
    std::vector<int64_t> msg(size_t(N), 0);
    for (int i = 0; i < N; ++i)
        msg[size_t(i)] = (7 * i + seed) % cb.q();
    return cb.encode(msg.data(), msg.size());
}

} // namespace

// ---------------------------------------------------------------------------
// The reference of the tests below

TEST(bad_input, model_status_agrees_with_the_brute_force)
{
    // model_status, which the outcomes below are checked against, against
    // qa_reference.h's brute force restricted to the decoder's limits (an
    // independent sum over every message): a frame is possible exactly where
    // that sum is positive. Tiny random cases, each as received and with one
    // bit flipped, decoded with the channel they were sent through or with
    // one that lacks some kind of error (where many frames are impossible);
    // the decoders, float and double, give each frame that status too.
    std::mt19937_64 rng(qa::test_seed() + 31);
    int possible = 0, impossible = 0;
    for (int trial = 0; trial < 200; ++trial) {
        qa::tiny_case tc = qa::random_case(rng, false);
        const channel_params sent = tc.ch;
        switch (trial % 4) {
        case 1:
            tc.ch = channel_params(0, sent.Pd(), sent.Ps());
            break;
        case 2:
            tc.ch = channel_params(sent.Pi(), 0, 0);
            break;
        case 3:
            tc.ch = channel_params(0, 0, sent.Ps());
            break;
        default:
            break;
        }
        const auto dec = cpu_decoders(tc.cb, tc.ch, tc.N);
        const map_decoder& dual = *dec.dual;
        for (int flip = 0; flip < 2; ++flip) {
            if (flip)
                tc.y[size_t(rng() % tc.y.size())] ^= 1;
            const std::string what = "trial " + std::to_string(trial) +
                                     (flip ? " flipped " : " ") + tc.ch.repr() +
                                     " N=" + std::to_string(tc.N) +
                                     " n=" + std::to_string(tc.cb.n());
            const frame_status st = expect_model_outcome(dec, tc.y, nullptr, what);
            const long long drift = (long long)tc.y.size() - dual.tau();
            if (!dual.limits().mtau.contains(drift)) {
                EXPECT_EQ(st, frame_status::drift_out_of_range) << what;
                continue;
            }
            double total = 0;
            for (double v : qa::brute_force_app(tc, &dual.limits()))
                total += v; // NaN for 0 / 0
            const bool positive = std::isfinite(total);
            EXPECT_EQ(st, positive ? frame_status::ok : frame_status::impossible) << what;
            (positive ? possible : impossible) += 1;
        }
    }
    EXPECT_GT(possible, 100);
    EXPECT_GT(impossible, 5);
    std::cout << possible << " possible and " << impossible << " impossible tiny frames"
              << std::endl;
}

// ---------------------------------------------------------------------------
// Channel parameters

TEST(bad_input, channel_parameters_are_named)
{
    const struct {
        double Pi, Pd, Ps;
        const char* fragment;
    } rows[] = {
        { -0.01, 0, 0, "Pi = -0.01" },    { 0, -0.01, 0, "Pd = -0.01" },
        { 0, 0, -0.01, "Ps = -0.01" },    { nan_v, 0, 0, "Pi = nan" },
        { 0, nan_v, 0, "Pd = nan" },      { 0, 0, nan_v, "Ps = nan" },
        { inf_v, 0, 0, "Pi = inf" },      { 0, -inf_v, 0, "Pd = -inf" },
        { 0, 0, inf_v, "Ps = inf" },      { 0.5, 0.5, 0, "Pi + Pd = 1" },
        { 0.9, 0.2, 0, "Pi + Pd = 1.1" }, { 0, 0, 1.01, "Ps = 1.01" },
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.fragment);
        expect_error([&] { channel_params(r.Pi, r.Pd, r.Ps); }, r.fragment);
        // the functions that take Pi and Pd directly check them too
        if (!(std::isfinite(r.Pi) && std::isfinite(r.Pd) && r.Pi >= 0 && r.Pd >= 0 &&
              r.Pi + r.Pd < 1)) {
            EXPECT_THROW(drift_limits(100, r.Pi, r.Pd, 1e-10), std::invalid_argument);
        }
    }
    // the extremes that are valid work, and quickly: Ps = 1 (every bit flipped)
    // is a deterministic inversion, Pi + Pd just below 1 a very noisy channel
    const codebook cb(3, { { 0, 7 } });
    for (auto p : precisions) {
        auto inv = cpu_decoder(cb, channel_params(0, 0, 1), 2, p);
        std::vector<double> post(4);
        const std::vector<uint8_t> y = { 0, 0, 0, 1, 1, 1 }; // 7, 0 inverted
        ASSERT_TRUE(inv->decode({ y.data(), y.size(), nullptr }, post.data()).ok());
        EXPECT_EQ(post, (std::vector<double>{ 0, 1, 1, 0 }));
    }
    // Pi + Pd = 0.999 and Ps = 0.5: every step of the lattice is possible, so
    // every word whose end drift the limits hold decodes, in both precisions
    const auto noisy =
        cpu_decoders(codebook::sparse(4, 4), channel_params(0.5, 0.499, 0.5), 3);
    const drift_range L = noisy.dual->limits().mtau;
    std::mt19937 rng(1);
    for (size_t rho : { size_t(1), size_t(12), size_t(30) }) {
        std::vector<uint8_t> bits(rho);
        for (auto& b : bits)
            b = uint8_t(rng() & 1);
        const std::string what = "Pi + Pd = 0.999, rho = " + std::to_string(rho);
        const frame_status want = L.contains((long long)rho - 12)
                                      ? frame_status::ok
                                      : frame_status::drift_out_of_range;
        EXPECT_EQ(expect_model_outcome(noisy, bits, nullptr, what), want) << what;
    }
}

// ---------------------------------------------------------------------------
// Codebooks

TEST(bad_input, codebooks_are_named)
{
    expect_error([] { codebook(4, { { 1, 2, 1, 3 } }); }, "repeats word 1");
    expect_error([] { codebook(4, { { 0, 1 }, { 5, 5 } }); }, "repeats word 5");
    expect_error(
        [] {
            codebook(4, { { 0, 16 } });
        },
        "word 16 does not fit in n = 4 bits");
    expect_error(
        [] {
            codebook(31, { { 0, 0x80000000u } });
        },
        "does not fit in n = 31 bits");
    expect_error([] { codebook(2, { { 0, 1, 2, 3, 0 } }); }, "cannot fit in n = 2 bits");
    expect_error([] { codebook(4, { { 5 } }); }, "q = 1");
    expect_error([] { codebook(0, { { 0, 1 } }); }, "n = 0");
    expect_error([] { codebook(-3, { { 0, 1 } }); }, "n = -3");
    expect_error([] { codebook(33, { { 0, 1 } }); }, "n = 33");
    expect_error([] { codebook(64, { { 0, 1 } }); }, "n = 64");
    expect_error([] { codebook(4, { {} }); }, "q = 0");
    expect_error([] { codebook(4, {}); }, "P = 0");
    // the generators and specs check the same limits
    expect_error([] { codebook::random(3, 9, 1, 0); }, "cannot fit in n = 3 bits");
    expect_error([] { codebook::random(4, 4, 0, 0); }, "P = 0");
    expect_error([] { codebook::sparse(0, 2); }, "n = 0");
    expect_error([] { codebook::sparse(4, 1); }, "q = 1");
    expect_error([] { codebook::from_spec("random:40:4:1:0"); }, "n = 40");
    expect_error([] { codebook::from_spec("sparse:4:17"); }, "cannot fit in n = 4 bits");
}

TEST(bad_input, codebook_files_are_named)
{
    struct row {
        const char* name;
        std::string bytes;
        const char* fragment;
    };
    const row rows[] = {
        { "empty.txt", "", "no header" },
        { "comments.txt", "# nothing else\n\n   \n", "no header" },
        { "short_header.txt", "4 4\n0 1 2 3\n", "expected the header" },
        { "bad_header.txt", "four 4 1\n0 1 2 3\n", "line 1" },
        { "bad_number.txt", "4 4 1\n0 1 two 3\n", "line 2: 'two' is not" },
        { "negative.txt", "4 4 1\n0 -1 2 3\n", "'-1' is not" },
        { "hex.txt", "4 4 1\n0 1 0x2 3\n", "'0x2' is not" },
        { "too_big.txt", "4 4 1\n0 1 2 4294967296\n", "word 4294967296 does not fit" },
        { "too_wide.txt", "4 4 1\n0 1 2 16\n", "word 16 does not fit in n = 4 bits" },
        { "few_words.txt", "4 4 1\n0 1 2\n", "has 3 words, expected q = 4" },
        { "many_words.txt", "4 4 1\n0 1 2 3 4\n", "has 5 words, expected q = 4" },
        { "few_books.txt",
          "4 4 3\n0 1 2 3\n4 5 6 7\n",
          "promises P = 3 books but the file has 2" },
        { "many_books.txt", "4 4 1\n0 1 2 3\n4 5 6 7\n", "line 3: unexpected data" },
        { "truncated.txt", "4 4 2\n0 1 2 3\n4 5", "has 2 words, expected q = 4" },
        { "repeat.txt", "4 4 1\n0 1 2 1\n", "repeats word 1" },
        { "q1.txt", "4 1 1\n0\n", "q = 1" },
        { "n0.txt", "0 2 1\n0 1\n", "n = 0" },
        { "n33.txt", "33 2 1\n0 1\n", "n = 33" },
        { "P0.txt", "4 4 0\n", "P = 0" },
        { "q_over_2n.txt", "2 5 1\n0 1 2 3 0\n", "q = 5" },
        { "binary.bin",
          std::string("\x7f"
                      "ELF\x02\x01\x01\0\0\0\0\0",
                      12),
          "not a text codebook file" },
        { "nul.txt", std::string("4 4 1\n0 1\0 2 3\n", 15), "not a text codebook file" },
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.name);
        const std::string path = write_file(r.name, r.bytes);
        expect_error([&] { codebook::load(path); }, r.fragment);
        // the error names the file
        expect_error([&] { codebook::from_spec("file:" + path); }, path);
        std::remove(path.c_str());
    }
    expect_error<io_error>([] { codebook::load("/nonexistent/bsid/cb.txt"); },
                           "/nonexistent/bsid/cb.txt");
    expect_error<io_error>([] { codebook::load(std::string(::testing::TempDir())); },
                           "is a directory");
}

// ---------------------------------------------------------------------------
// Frames

TEST(bad_input, frame_lengths_and_contents)
{
    const codebook cb = codebook::builtin("ld3-modvec6");
    const int N = 12;
    const channel_params ch(0.01, 0.01, 0.01);
    const auto x = encode(cb, N, 3);
    const size_t tau = x.size();
    for (auto p : precisions) {
        SCOPED_TRACE(to_string(p));
        auto dec = cpu_decoder(cb, ch, N, p);
        const drift_range L = dec->limits().mtau;
        ASSERT_LT(L.lo, 0);
        ASSERT_GT(L.hi, 0);

        auto r = decode_checked(*dec, {}, nullptr, "empty");
        EXPECT_EQ(r.status, frame_status::empty);
        EXPECT_EQ(dec->check_length(0).status, frame_status::empty);

        // a single bit: far below tau - m_tau^-
        r = decode_checked(*dec, { 1 }, nullptr, "single bit");
        EXPECT_EQ(r.status, frame_status::drift_out_of_range);
        EXPECT_NE(r.reason.find("outside the drift limits"), std::string::npos)
            << r.reason;

        r = decode_checked(*dec, x, nullptr, "exactly tau");
        EXPECT_TRUE(r.ok()) << r.reason;

        // rho - tau at both drift limits decodes; one past each is refused
        for (int d : { L.lo, L.hi, L.lo - 1, L.hi + 1 }) {
            std::vector<uint8_t> y(x.begin(), x.begin() + long(std::min(tau, tau + d)));
            while (y.size() < size_t(long(tau) + d))
                y.push_back(uint8_t(y.size() & 1));
            const std::string what = "drift " + std::to_string(d);
            r = decode_checked(*dec, y, nullptr, what);
            EXPECT_EQ(dec->check_length(y.size()).status,
                      r.status == frame_status::ok || r.status == frame_status::impossible
                          ? frame_status::ok
                          : r.status)
                << what;
            if (L.contains(d)) {
                EXPECT_TRUE(r.ok()) << what << ": " << r.reason;
            } else {
                EXPECT_EQ(r.status, frame_status::drift_out_of_range) << what;
            }
        }

        // ten times tau: refused by its length, before any bit is read
        std::vector<uint8_t> longf;
        for (int k = 0; k < 10; ++k)
            longf.insert(longf.end(), x.begin(), x.end());
        r = decode_checked(*dec, longf, nullptr, "10 tau");
        EXPECT_EQ(r.status, frame_status::drift_out_of_range);
        longf[5] = 9; // the length is checked first
        EXPECT_EQ(decode_checked(*dec, longf, nullptr, "10 tau").status,
                  frame_status::drift_out_of_range);

        // bytes other than 0 and 1, anywhere, name the byte and its position
        for (uint8_t b : { uint8_t(2), uint8_t('0'), uint8_t('1'), uint8_t(255) }) {
            for (size_t pos : { size_t(0), tau / 2, tau - 1 }) {
                auto y = x;
                y[pos] = b;
                const std::string what = "byte " + std::to_string(int(b)) +
                                         " at position " + std::to_string(pos);
                r = decode_checked(*dec, y, nullptr, what);
                EXPECT_EQ(r.status, frame_status::invalid_input) << what;
                EXPECT_NE(r.reason.find(what), std::string::npos) << r.reason;
            }
        }

        // the batch gives one result per frame, in order, with the same statuses
        const std::vector<std::vector<uint8_t>> frames = { {}, { 1 }, x, longf, x };
        std::vector<frame_view> views;
        std::vector<std::vector<double>> posts(
            frames.size(), std::vector<double>(size_t(N * cb.q()), nan_v));
        std::vector<double*> outs;
        for (size_t k = 0; k < frames.size(); ++k) {
            views.push_back({ frames[k].data(), frames[k].size(), nullptr });
            outs.push_back(posts[k].data());
        }
        const auto rs = dec->decode_batch(views, outs);
        ASSERT_EQ(rs.size(), frames.size());
        EXPECT_EQ(rs[0].status, frame_status::empty);
        EXPECT_EQ(rs[1].status, frame_status::drift_out_of_range);
        EXPECT_TRUE(rs[2].ok());
        EXPECT_EQ(rs[3].status, frame_status::drift_out_of_range);
        EXPECT_TRUE(rs[4].ok());
        for (size_t k = 0; k < frames.size(); ++k)
            expect_rows_normalized(
                posts[k], N, cb.q(), "batch frame " + std::to_string(k));
    }
}

TEST(bad_input, impossible_under_the_model)
{
    // Pi = Pd = Ps = 0: the drift limits are [0, 0] and any mismatch with
    // every codeword has probability 0.
    const codebook cb = codebook::sparse(4, 4); // 0000 0001 0010 0100
    const int N = 3;
    for (auto p : precisions) {
        SCOPED_TRACE(to_string(p));
        auto dec = cpu_decoder(cb, channel_params(0, 0, 0), N, p);
        EXPECT_EQ(dec->limits().mtau, (drift_range{ 0, 0 }));
        const auto x = encode(cb, N, 1);
        std::vector<double> post(size_t(N * 4));
        ASSERT_TRUE(dec->decode({ x.data(), x.size(), nullptr }, post.data()).ok());
        for (int i = 0; i < N; ++i) // exact: one-hot rows
            for (int D = 0; D < 4; ++D)
                EXPECT_EQ(post[size_t(i * 4 + D)], D == (7 * i + 1) % 4 ? 1.0 : 0.0);
        // words 0001 0000 0100; each flip below makes a word outside the book
        for (size_t pos : { size_t(0), size_t(4), size_t(11) }) {
            auto y = x;
            y[pos] ^= 1;
            const auto r =
                decode_checked(*dec, y, nullptr, "mismatch at " + std::to_string(pos));
            EXPECT_EQ(r.status, frame_status::impossible) << pos;
            EXPECT_NE(r.reason.find("probability 0"), std::string::npos) << r.reason;
        }
        auto y = x;
        y.push_back(0); // one bit too many is outside the limits [0, 0]
        EXPECT_EQ(decode_checked(*dec, y, nullptr, "one extra bit").status,
                  frame_status::drift_out_of_range);
    }
}

// ---------------------------------------------------------------------------
// Priors

TEST(bad_input, priors)
{
    const codebook cb = codebook::sparse(4, 4);
    const int N = 2;
    for (auto p : precisions) {
        SCOPED_TRACE(to_string(p));
        auto dec = cpu_decoder(cb, channel_params(0.01, 0.01, 0.05), N, p);
        const std::vector<uint8_t> y = { 0, 0, 0, 1, 0, 0, 1, 0 };
        std::vector<double> ref(8), post(8);
        ASSERT_TRUE(dec->decode({ y.data(), y.size(), nullptr }, ref.data()).ok());
        // not normalized: rows are normalized, so any positive scale per row is the same
        const std::vector<double> scaled = { 3, 3, 3, 3, 1e-200, 1e-200, 1e-200, 1e-200 };
        ASSERT_TRUE(dec->decode({ y.data(), y.size(), scaled.data() }, post.data()).ok());
        for (size_t k = 0; k < 8; ++k)
            EXPECT_NEAR(post[k], ref[k], 1e-6) << k;
        const std::vector<double> huge = { 1e300, 1e300, 1e300, 1e300, 1, 1, 1, 1 };
        ASSERT_TRUE(dec->decode({ y.data(), y.size(), huge.data() }, post.data()).ok());
        for (size_t k = 0; k < 8; ++k)
            EXPECT_NEAR(post[k], ref[k], 1e-6) << k;
        // zeros exclude symbols; the rest still sum to 1
        const std::vector<double> zeros = { 0, 1, 1, 0, 0, 0, 1, 1 };
        ASSERT_TRUE(decode_checked(*dec, y, zeros.data(), "zeros").ok());
        ASSERT_TRUE(dec->decode({ y.data(), y.size(), zeros.data() }, post.data()).ok());
        for (size_t k : { 0, 3, 4, 5 })
            EXPECT_EQ(post[k], 0.0) << k;
        // priors that leave no symbol the frame allows: an erasure, not NaN
        auto exact = cpu_decoder(cb, channel_params(0, 0, 0), N, p);
        const std::vector<double> contra = { 1, 0, 0, 0, 1, 0, 0, 0 };
        EXPECT_EQ(decode_checked(*exact, y, contra.data(), "contradicting priors").status,
                  frame_status::impossible);
        // invalid values are errors naming the entry
        const struct {
            std::vector<double> v;
            const char* fragment;
        } bad[] = {
            { { 1, 1, 1, 1, 1, 1, nan_v, 1 }, "priors[1][2] = nan" },
            { { 1, inf_v, 1, 1, 1, 1, 1, 1 }, "priors[0][1] = inf" },
            { { 1, 1, 1, 1, 1, 1, 1, -0.5 }, "priors[1][3] = -0.5" },
            { { 0, 0, 0, 0, 1, 1, 1, 1 }, "priors row 0 sums to 0" },
        };
        for (const auto& b : bad) {
            expect_error(
                [&] {
                    dec->decode({ y.data(), y.size(), b.v.data() }, post.data());
                },
                b.fragment);
            expect_error([&] { dec->validate_priors(b.v.data()); }, b.fragment);
            // in a batch, before any frame is decoded
            std::vector<double> p0(8, -1.0), p1(8, -1.0);
            expect_error(
                [&] {
                    dec->decode_batch({ { y.data(), y.size(), nullptr },
                                        { y.data(), y.size(), b.v.data() } },
                                      { p0.data(), p1.data() });
                },
                b.fragment);
        }
        // rows whose sum overflows to inf
        // finite priors whose row sum overflows are still valid priors
        const std::vector<double> over = { 1e308, 1e308, 1e308, 1e308, 1, 1, 1, 1 };
        ASSERT_TRUE(decode_checked(*dec, y, over.data(), "row sum overflows").ok());
        ASSERT_TRUE(dec->decode({ y.data(), y.size(), over.data() }, post.data()).ok());
        for (size_t k = 0; k < 8; ++k)
            EXPECT_NEAR(post[k], ref[k], 1e-6) << k;
    }
}

// ---------------------------------------------------------------------------
// Numerics

TEST(bad_input, numerics_never_give_nan)
{
    std::mt19937 rng(5);
    const codebook cb = codebook::builtin("ld3-modvec6");
    struct row {
        channel_params ch;
        int N;
        const char* what;
    };
    const row rows[] = {
        { channel_params(0, 0, 0), 1, "deterministic, N = 1" },
        { channel_params(0, 0, 0), 40, "deterministic" },
        { channel_params(0.4, 0.4, 0.4), 1, "p = 0.4, N = 1" },
        { channel_params(0.4, 0.4, 0.4), 25, "p = 0.4" },
        { channel_params(0.4, 0.0, 0.0), 25, "Pi = 0.4 only" },
        { channel_params(0.0, 0.4, 0.0), 25, "Pd = 0.4 only" },
        { channel_params(0.0, 0.0, 0.4), 25, "Ps = 0.4 only" },
        { channel_params(1e-9, 1e-9, 1e-9), 200, "nearly perfect, long" },
        { channel_params(0.01, 0.01, 1e-12), 200, "tiny Ps, long" },
    };
    // Each frame gets the status the model gives it (model_status), in float
    // and in double alike, with float within 1e-4 of double.
    int decoded = 0, refused = 0;
    for (const auto& r : rows) {
        const std::string what = r.what;
        const auto dec = cpu_decoders(cb, r.ch, r.N);
        const auto x = encode(cb, r.N, 2);
        const drift_range L = dec.dual->limits().mtau;
        // sent through the model's own channel: decodable wherever the
        // limits hold the end drift
        for (uint64_t k = 0; k < 4; ++k) {
            const auto t = transmit(r.ch, x.data(), x.size(), 9, k);
            const std::string w = what + " sent, frame " + std::to_string(k);
            const auto st = expect_model_outcome(dec, t.rx, nullptr, w);
            if (L.contains((long long)t.rx.size() - (long long)x.size())) {
                EXPECT_EQ(st, frame_status::ok) << w;
            }
            (st == frame_status::ok ? decoded : refused) += 1;
        }
        // random bits of every length in the limits, and the inverted
        // codewords: the most unlikely frames the model allows (the
        // lattice values underflow without per-step normalization)
        for (int d : { L.lo, 0, L.hi }) {
            std::vector<uint8_t> y(size_t(long(x.size()) + d));
            for (auto& b : y)
                b = uint8_t(rng() & 1);
            const auto st = expect_model_outcome(
                dec, y, nullptr, what + " random, drift " + std::to_string(d));
            (st == frame_status::ok ? decoded : refused) += 1;
        }
        auto inv = x;
        for (auto& b : inv)
            b ^= 1;
        const auto st = expect_model_outcome(dec, inv, nullptr, what + " inverted");
        if (r.ch.Ps() > 0) {
            EXPECT_EQ(st, frame_status::ok) << what; // any word of length tau is possible
        }
        (st == frame_status::ok ? decoded : refused) += 1;
    }
    // both outcomes occur: the matrix checks decoding and refusing alike
    EXPECT_GT(decoded, 40);
    EXPECT_GT(refused, 5);
}

TEST(bad_input, extreme_priors_and_underflow)
{
    // Priors near the smallest double, on a long frame with a near-perfect
    // channel in float: every lattice value underflows unless scaled. The
    // frame is decoded in both precisions, to the same posteriors.
    const codebook cb = codebook::builtin("ld3-modvec6");
    const int N = 150, q = 16;
    const channel_params ch(1e-6, 1e-6, 1e-6);
    const auto x = encode(cb, N, 4);
    const auto dec = cpu_decoders(cb, ch, N);
    std::vector<double> none_d, none_f;
    ASSERT_EQ(expect_model_outcome(dec, x, nullptr, "no priors", &none_d, &none_f),
              frame_status::ok);

    // Priors 1e300 times in favour of a wrong symbol (the one after the sent
    // one) at every index. Any codeword turns into any other by at most n = 8
    // substitutions, which scale a path's probability by no less than
    // (Ps / (1 - Ps))^8 = 1e-48, so each index's favoured symbol is at least
    // 1e252 times as likely as any other: its posterior is 1 in double, and
    // float is within 1e-4 of double.
    std::vector<double> pri(size_t(N * q), 1e-300);
    for (int i = 0; i < N; ++i)
        pri[size_t(i * q + (7 * i + 5) % q)] = 1.0;
    std::vector<double> pd, pf;
    ASSERT_EQ(expect_model_outcome(dec, x, pri.data(), "skewed priors", &pd, &pf),
              frame_status::ok);
    std::vector<int32_t> hd(static_cast<size_t>(N)), hf(static_cast<size_t>(N));
    hard_decisions(pd.data(), N, q, hd.data());
    hard_decisions(pf.data(), N, q, hf.data());
    for (int i = 0; i < N; ++i) {
        const int favoured = (7 * i + 5) % q;
        EXPECT_EQ(hd[size_t(i)], favoured) << "double, index " << i;
        EXPECT_EQ(hf[size_t(i)], favoured) << "float, index " << i;
        EXPECT_GE(pd[size_t(i * q + favoured)], 1.0 - 1e-12) << "double, index " << i;
    }

    // Subnormal priors are valid priors (finite, non-negative, each row with
    // a positive entry): each row is normalized by its largest entry, in
    // double, before anything is flushed, so equal subnormal entries are
    // uniform priors and the posteriors are those without priors. Neither an
    // error nor an erasure, in either precision.
    const std::vector<double> tiny(size_t(N * q),
                                   std::numeric_limits<double>::denorm_min());
    std::vector<double> td, tf;
    ASSERT_NO_THROW(dec.dual->validate_priors(tiny.data()));
    ASSERT_EQ(expect_model_outcome(dec, x, tiny.data(), "subnormal priors", &td, &tf),
              frame_status::ok);
    double diff_d = 0, diff_f = 0;
    for (size_t k = 0; k < td.size(); ++k) {
        diff_d = std::max(diff_d, std::abs(td[k] - none_d[k]));
        diff_f = std::max(diff_f, std::abs(tf[k] - none_f[k]));
    }
    EXPECT_LT(diff_d, 1e-12) << "double: subnormal uniform priors against no priors";
    EXPECT_LT(diff_f, 1e-12) << "float: subnormal uniform priors against no priors";
    // rows of subnormal entries beside one normal entry (at the sent symbol):
    // valid priors too, decoded in both precisions
    std::vector<double> mixed = tiny;
    for (int i = 0; i < N; ++i)
        mixed[size_t(i * q + (7 * i + 4) % q)] = 1e-300; // the sent symbol
    ASSERT_EQ(expect_model_outcome(
                  dec, x, mixed.data(), "subnormal and normal priors", &td, &tf),
              frame_status::ok);
    for (int i = 0; i < N; ++i) {
        const int sent = (7 * i + 4) % q;
        EXPECT_GE(td[size_t(i * q + sent)], 1.0 - 1e-12) << "double, index " << i;
        EXPECT_GE(tf[size_t(i * q + sent)], 1.0 - 1e-4) << "float, index " << i;
    }
}

// ---------------------------------------------------------------------------
// Backends: CUDA requested where it cannot be used

TEST(bad_input, cuda_requested_without_a_device)
{
    decoder_config cfg(codebook::sparse(4, 4), channel_params(0.01, 0.01, 0), 2);
    cfg.backend = backend_kind::cuda;
    std::unique_ptr<map_decoder> dec;
    try {
        dec = map_decoder::make(cfg);
    } catch (const std::runtime_error& e) {
        // no CUDA in this build, or no usable device: a clear error
        EXPECT_NE(std::string(e.what()).find("CUDA"), std::string::npos) << e.what();
    }
    if (dec) {
        EXPECT_EQ(dec->backend(), backend_kind::cuda);
    }
    // auto always gives a working decoder
    cfg.backend = backend_kind::automatic;
    auto autodec = map_decoder::make(cfg);
    const std::vector<uint8_t> y = { 0, 0, 0, 1, 0, 0, 1, 0 };
    EXPECT_TRUE(decode_checked(*autodec, y, nullptr, "auto").ok());
    EXPECT_THROW(parse_backend("gpu"), std::invalid_argument);
    EXPECT_THROW(parse_storage("disk"), std::invalid_argument);
    // the CUDA lanes are checked on every backend, before any work
    for (auto b : { backend_kind::cpu, backend_kind::automatic }) {
        cfg.backend = b;
        for (int s : { -1, max_cuda_streams + 1 }) {
            cfg.cuda.streams = s;
            expect_error([&] { map_decoder::make(cfg); },
                         "cuda_streams = " + std::to_string(s));
        }
        cfg.cuda.streams = max_cuda_streams;
        EXPECT_NO_THROW(map_decoder::make(cfg));
        cfg.cuda.streams = 0;
    }
}

TEST(bad_input, a_codebook_and_a_channel_of_other_alphabets_are_refused)
{
    // the rule for every decoder: the codebook's letters are the channel's
    const codebook quaternary = codebook::random(4, 16, 1, 1, 4);
    const codebook binary = codebook::random(8, 16, 1, 1);
    for (auto p : precisions) {
        expect_error(
            [&] { cpu_decoder(quaternary, channel_params(0.01, 0.01, 0), 10, p); },
            "the codebook's alphabet is 4 letters but the channel's is 2");
        expect_error(
            [&] { cpu_decoder(binary, channel_params(0.01, 0.01, 0, 4), 10, p); },
            "the codebook's alphabet is 2 letters but the channel's is 4");
    }
}
