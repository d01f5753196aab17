/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The iterative decoder of a concatenated scheme over frames received as
// several reads (concatenated_decoder::decode_reads_batch, docs/reads.md
// "With an outer code"): one read is the one-read loop to the last bit,
// more reads decode what one cannot, and bad input is a clear error.

#include <gnuradio/bsid/core/outer/concatenated_decoder.h>
#include <gnuradio/bsid/core/reads/reads_decoder.h>
#include <gnuradio/bsid/core/sim/concatenated_counter.h>
#include <gnuradio/bsid/core/sim/frame_source.h>
#include <gtest/gtest.h>
#include <stdexcept>

using namespace bsid;

namespace {

// The scheme, its frames (seed 7, one read) and its one-read iterative decoder.
struct scheme {
    codebook cb = codebook::random(6, 16, 3, 11);
    ldpc_code code = ldpc_code::regular(60, 30, 16, 3, 5);
    channel_params ch{ 0.045, 0.045, 0.02 };
    frame_source src{ cb, ch, code, 7 };
    frame_decoder fdec{ config(src.N()) };
    concatenated_decoder dec{ fdec, code };

    decoder_config config(int N) const
    {
        decoder_config cfg(cb, ch, N);
        cfg.backend = backend_kind::cpu;
        cfg.precision = precision_kind::dual;
        return cfg;
    }
};

// FER after the last pass of `batch`'s frames, and the counter's errors.
double fer_of(concatenated_counter& counter,
              const frame_batch& batch,
              std::vector<concatenated_errors>* errors = nullptr)
{
    const auto& e = counter.run(batch);
    if (errors)
        *errors = e;
    int wrong = 0;
    for (const auto& x : e)
        wrong += x.symbol_errors > 0;
    return double(wrong) / double(e.size());
}

} // namespace

// A frame of one read decodes as the one-read loop: the same statuses,
// passes, BP iterations and decisions, pass by pass.
TEST(concatenated_reads, one_read_is_the_one_read_loop)
{
    scheme s;
    frame_source src = s.src;
    concatenated_decoder& dec = s.dec;
    reads_config rc(s.config(src.N()));
    reads_decoder reads(rc);
    concatenated_options opt;
    opt.iterations = 4;
    opt.bp_iterations = 20;

    frame_batch batch;
    src.generate(0, 60, batch);
    const size_t K = batch.size(), n = size_t(s.code.n());
    std::vector<frame_view> views(K);
    std::vector<frame_reads> frames(K);
    std::vector<int32_t> d1(K * n), d2(K * n);
    std::vector<int32_t*> p1(K), p2(K);
    for (size_t k = 0; k < K; ++k) {
        views[k] = batch.view(k);
        frames[k] = batch.reads_of(k);
        p1[k] = d1.data() + k * n;
        p2[k] = d2.data() + k * n;
    }
    std::vector<std::pair<int, size_t>> seen1, seen2;
    const auto r1 = dec.decode_batch(views, opt, p1, {}, [&](int pass, size_t k, auto) {
        seen1.emplace_back(pass, k);
    });
    const auto r2 =
        dec.decode_reads_batch(reads, frames, opt, p2, {}, [&](int pass, size_t k, auto) {
            seen2.emplace_back(pass, k);
        });
    ASSERT_EQ(r1.size(), r2.size());
    int undecoded = 0;
    for (size_t k = 0; k < K; ++k) {
        EXPECT_EQ(r1[k].status, r2[k].status) << k;
        EXPECT_EQ(r1[k].iterations, r2[k].iterations) << k;
        EXPECT_EQ(r1[k].bp_iterations, r2[k].bp_iterations) << k;
        EXPECT_EQ(r1[k].syndrome_ok, r2[k].syndrome_ok) << k;
        undecoded += !r1[k].syndrome_ok;
    }
    EXPECT_EQ(d1, d2);
    EXPECT_EQ(seen1, seen2);
    EXPECT_GT(undecoded, 3) << "the channel must be hard enough to need the passes";
}

// Two reads of each frame (joint) and three (the combiner) decode frames one
// read cannot: on the same frames (read 0 is the one-read source's frame)
// the FER falls, and the exact decoder loses no frame one read decodes.
TEST(concatenated_reads, more_reads_decode_what_one_cannot)
{
    scheme s;
    const frame_source& one = s.src;
    concatenated_decoder& dec = s.dec;
    concatenated_options opt;
    opt.iterations = 4;
    opt.bp_iterations = 20;
    concatenated_counter single(dec, opt);
    frame_batch b1;
    one.generate(0, 60, b1);
    std::vector<concatenated_errors> e1;
    const double fer1 = fer_of(single, b1, &e1);
    EXPECT_GT(fer1, 0.1);
    ::testing::Test::RecordProperty("fer_one_read", std::to_string(fer1));

    for (const auto& [method, M] :
         { std::pair{ read_method::joint, 2 }, std::pair{ read_method::combine, 3 } }) {
        {
            frame_source src = s.src;
            src.set_reads(M);
            frame_batch b;
            src.generate(0, 60, b);
            ASSERT_EQ(b.reads, M);
            ASSERT_EQ(b.rx, b1.rx) << "read 0 is the one-read source's frame";
            reads_config rc(s.config(src.N()));
            rc.method = method;
            reads_decoder reads(rc);
            concatenated_counter counter(dec, reads, opt);
            std::vector<concatenated_errors> e;
            const double fer = fer_of(counter, b, &e);
            EXPECT_LT(fer, fer1 / 2) << to_string(method) << " M = " << M;
            ::testing::Test::RecordProperty("fer_" + to_string(method),
                                            std::to_string(fer));
            for (size_t k = 0; k < e.size(); ++k) {
                EXPECT_EQ(e[k].status, frame_status::ok);
                if (e1[k].symbol_errors == 0 && method == read_method::joint) {
                    EXPECT_EQ(e[k].symbol_errors, 0)
                        << "frame " << k << ", M = " << M << ": decoded from one read";
                }
            }
        }
    }
}

TEST(concatenated_reads, bad_input_is_a_clear_error_or_an_erasure)
{
    scheme s;
    frame_source src = s.src;
    concatenated_decoder& dec = s.dec;
    concatenated_options opt;
    // a reads decoder of another N
    reads_decoder other(reads_config(s.config(src.N() - 1)));
    EXPECT_THROW(dec.decode_reads_batch(other, {}, opt, {}), std::invalid_argument);
    // bad options and pointer counts, before any work
    reads_decoder reads(reads_config(s.config(src.N())));
    concatenated_options none;
    none.iterations = 0;
    EXPECT_THROW(dec.decode_reads_batch(reads, { frame_reads{} }, none, {}),
                 std::invalid_argument);
    std::vector<int32_t> d(size_t(s.code.n()));
    EXPECT_THROW(
        dec.decode_reads_batch(reads, { frame_reads{} }, opt, { d.data(), d.data() }),
        std::invalid_argument);
    // a counter without a reads decoder refuses a batch of several reads
    src.set_reads(2);
    frame_batch b;
    src.generate(0, 4, b);
    concatenated_counter single(dec, opt);
    EXPECT_THROW(single.run(b), std::invalid_argument);
    // a frame none of whose reads can be decoded is an erasure, the rest
    // decode; every information symbol of an erasure is an error
    std::vector<frame_reads> frames(2);
    frames[0] = b.reads_of(0);
    for (auto& r : frames[0].reads)
        r.L = 0; // empty reads
    frames[1] = b.reads_of(1);
    frames[1].reads[0].L = 3; // far too short: left out, the other read decodes
    std::vector<int32_t> d0(size_t(s.code.n())), d1(size_t(s.code.n()));
    const auto r = dec.decode_reads_batch(reads, frames, opt, { d0.data(), d1.data() });
    EXPECT_FALSE(r[0].ok());
    EXPECT_EQ(r[0].iterations, 0);
    EXPECT_TRUE(r[1].ok()) << r[1].reason;
    EXPECT_GE(r[1].iterations, 1);
}
