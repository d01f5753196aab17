/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Several reads of one frame (reads_decoder, docs/reads.md): the joint
// decoder against the brute force of qa_reads_reference.h (bits, letters,
// soft items, priors, extrinsic outputs, a channel per read, both
// precisions); one read equal to the single decoder bit for bit; the
// combiner's first round against its definition and its rounds against the
// joint decoder; reads left out with their statuses; and the errors.

#include "qa_reads_reference.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/reads/reads_decoder.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

using namespace bsid;
using namespace bsid::qa;

TEST(reads, joint_decoder_exact_against_brute_force)
{
    // two and three reads; priors, a channel per read, extrinsic outputs,
    // LLRs, four letters and their log-probabilities (joint_cases)
    for (const auto& c : joint_cases()) {
        SCOPED_TRACE(c.what);
        check_joint(backend_kind::cpu, test_seed() + 70, c);
    }
}

TEST(reads, one_read_is_the_single_decoder_bit_for_bit)
{
    std::mt19937_64 rng(test_seed() + 78);
    for (int c = 0; c < 20; ++c) {
        const bool soft = c % 3 == 1;
        const tiny_cluster tc =
            random_cluster(rng, 1, c % 4 == 3 ? 4 : 2, false, soft, c % 2);
        for (auto method : { read_method::joint, read_method::combine }) {
            for (bool extrinsic : { false, true }) {
                reads_config rc = config_for(tc, false, precision_kind::single, method);
                reads_decoder dec(rc);
                auto single = map_decoder::make(rc.base);
                const size_t NQ = size_t(tc.N * tc.cb.q());
                std::vector<double> a(NQ), b(NQ);
                const reads_result r = dec.decode(request_of(tc, extrinsic), a.data());
                frame_view v(tc.reads[0].view().items(tc.cb.alphabet()).bits,
                             tc.reads[0].size(),
                             tc.priors.empty() ? nullptr : tc.priors.data());
                v.llr = tc.reads[0].view().llr;
                v.logprob = tc.reads[0].view().logprob;
                v.extrinsic = extrinsic;
                const frame_result s = single->decode(v, b.data());
                EXPECT_EQ(r.result.status, s.status);
                EXPECT_EQ(a, b) << "case " << c;
                EXPECT_EQ(r.used, s.ok() ? 1 : 0);
            }
        }
    }
}

TEST(reads, a_read_that_cannot_be_decoded_is_left_out)
{
    // a good read beside an empty one, one of invalid letters and one whose
    // drift leaves the limits: the frame is the good read's decode
    const codebook cb = codebook::random(6, 8, 3, 11);
    const channel_params ch(0.02, 0.02, 0.01);
    const int N = 12;
    std::vector<int64_t> msg(N);
    std::mt19937_64 rng(test_seed() + 79);
    for (auto& s : msg)
        s = int64_t(rng() % 8);
    const auto sent = cb.encode(msg.data(), msg.size());
    const auto good = transmit(ch, sent.data(), sent.size(), rng(), 0).rx;
    std::vector<uint8_t> bad_letters = good;
    bad_letters[3] = 2;
    std::vector<uint8_t> too_long(good.size() + 40, 1);
    for (auto method : { read_method::joint, read_method::combine }) {
        decoder_config base(cb, ch, N);
        base.backend = backend_kind::cpu;
        reads_config rc(base);
        rc.method = method;
        reads_decoder dec(rc);
        frame_reads f;
        f.reads.push_back({ nullptr, nullptr, 0 });
        f.reads.push_back({ good.data(), nullptr, good.size() });
        f.reads.push_back({ bad_letters.data(), nullptr, bad_letters.size() });
        f.reads.push_back({ too_long.data(), nullptr, too_long.size() });
        if (method == read_method::joint)
            f.reads.pop_back(); // (joint: three reads at most)
        std::vector<double> post(size_t(N * 8)), ref(post.size());
        const reads_result r = dec.decode(f, post.data());
        ASSERT_TRUE(r.ok()) << r.result.reason;
        EXPECT_TRUE(r.partial());
        EXPECT_EQ(r.used, 1);
        EXPECT_EQ(r.reads[0].status, frame_status::empty);
        EXPECT_TRUE(r.reads[1].ok());
        EXPECT_EQ(r.reads[2].status, frame_status::invalid_input);
        if (method == read_method::combine) {
            EXPECT_EQ(r.reads[3].status, frame_status::drift_out_of_range);
        }
        auto single = map_decoder::make(base);
        single->decode(frame_view(good.data(), good.size()), ref.data());
        EXPECT_EQ(post, ref);

        // no read left: refused, uniform, with each read's reason
        frame_reads none;
        none.reads.push_back({ nullptr, nullptr, 0 });
        none.reads.push_back({ bad_letters.data(), nullptr, bad_letters.size() });
        const reads_result z = dec.decode(none, post.data());
        EXPECT_EQ(z.result.status, frame_status::empty);
        EXPECT_NE(z.result.reason.find("no read of the frame"), std::string::npos);
        EXPECT_NE(z.result.reason.find("read 1"), std::string::npos);
        EXPECT_EQ(z.used, 0);
        for (double v : post)
            EXPECT_EQ(v, 1.0 / 8);
    }
}

TEST(reads, impossible_reads_alone_are_left_out_and_disagreeing_reads_refused)
{
    // codewords 00 and 01, no insertions or substitutions: "11" is impossible
    // alone; "00" (only from 00) and "1" (only from 01 with its 0 deleted)
    // are each possible, and impossible together
    codebook cb(2, { { 0u, 1u } });
    const channel_params ch(0.0, 0.2, 0.0);
    decoder_config base(cb, ch, 1);
    base.backend = backend_kind::cpu;
    const std::vector<uint8_t> y01{ 0, 1 }, y11{ 1, 1 }, y00{ 0, 0 }, y1{ 1 };
    for (auto method : { read_method::joint, read_method::combine }) {
        reads_config rc(base);
        rc.method = method;
        reads_decoder dec(rc);
        std::vector<double> post(2);
        frame_reads f;
        f.reads = { { y01.data(), nullptr, 2 }, { y11.data(), nullptr, 2 } };
        const reads_result r = dec.decode(f, post.data());
        ASSERT_TRUE(r.ok()) << to_string(method) << ": " << r.result.reason;
        EXPECT_EQ(r.reads[1].status, frame_status::impossible);
        EXPECT_EQ(r.used, 1);
        EXPECT_DOUBLE_EQ(post[1], 1.0);

        f.reads = { { y00.data(), nullptr, 2 }, { y1.data(), nullptr, 1 } };
        const reads_result z = dec.decode(f, post.data());
        EXPECT_EQ(z.result.status, frame_status::impossible) << to_string(method);
        EXPECT_TRUE(z.reads[0].ok());
        EXPECT_TRUE(z.reads[1].ok());
        EXPECT_EQ(post[0], 0.5);
    }
}

TEST(reads, the_combiners_first_round_is_the_product_of_the_reads_alone)
{
    // one round: P(D) prod_r E_r(D), each E_r the single decoder's extrinsic
    // output of read r with the caller's priors
    std::mt19937_64 rng(test_seed() + 80);
    for (int c = 0; c < 12; ++c) {
        const tiny_cluster tc =
            random_cluster(rng, 2 + c % 4, 2, c % 2, false, c % 3 == 0);
        reads_config rc =
            config_for(tc, c % 2, precision_kind::dual, read_method::combine);
        rc.combine.iterations = 1;
        reads_decoder dec(rc);
        const int NQ = tc.N * tc.cb.q(), Q = tc.cb.q();
        std::vector<double> post(static_cast<size_t>(NQ));
        const reads_result r = dec.decode(request_of(tc), post.data());
        std::vector<double> ref(size_t(NQ), 1.0);
        if (!tc.priors.empty())
            ref = tc.priors;
        int used = 0;
        for (size_t k = 0; k < tc.reads.size(); ++k) {
            std::vector<double> e(static_cast<size_t>(NQ));
            frame_view v(tc.reads[k].y.data(),
                         tc.reads[k].size(),
                         tc.priors.empty() ? nullptr : tc.priors.data());
            v.extrinsic = true;
            if (!dec.single(k).decode(v, e.data()).ok())
                continue;
            ++used;
            for (int t = 0; t < NQ; ++t)
                ref[size_t(t)] *= e[size_t(t)];
        }
        if (used < 2)
            continue; // (the single decoder's decode: tested above)
        ASSERT_TRUE(r.ok()) << r.result.reason;
        EXPECT_EQ(r.rounds, 1);
        for (int i = 0; i < tc.N; ++i) {
            double s = 0;
            for (int D = 0; D < Q; ++D)
                s += ref[size_t(i * Q + D)];
            for (int D = 0; D < Q; ++D)
                EXPECT_NEAR(post[size_t(i * Q + D)], ref[size_t(i * Q + D)] / s, 1e-12);
        }
    }
}

namespace {

// Symbol errors of MAP decisions against the sent message.
int symbol_errors(const std::vector<double>& post, const std::vector<int64_t>& msg, int q)
{
    std::vector<int32_t> dec(msg.size());
    hard_decisions(post.data(), int(msg.size()), q, dec.data());
    int e = 0;
    for (size_t i = 0; i < msg.size(); ++i)
        e += dec[i] != msg[i];
    return e;
}

} // namespace

TEST(reads, the_combiner_against_the_joint_decoder_and_one_read)
{
    // frames that one read decodes with errors: two and three reads do
    // better, the joint decoder best, the combiner close to it (a fixed seed:
    // these are counts, not exact values)
    const codebook cb = codebook::from_spec("builtin:ld3-modvec6");
    const channel_params ch(0.03, 0.03, 0.02);
    const int N = 20;
    std::mt19937_64 rng(2026);
    decoder_config base(cb, ch, N);
    base.backend = backend_kind::cpu;
    base.Pr = 1e-6;
    for (int M : { 2, 3 }) {
        const int frames = M == 2 ? 30 : 12;
        reads_config jc(base), cc(base);
        cc.method = read_method::combine;
        cc.combine.iterations = 20;
        reads_decoder joint(jc), comb(cc);
        int e_one = 0, e_joint = 0, e_comb = 0, converged = 0;
        double gap = 0;
        for (int k = 0; k < frames; ++k) {
            std::vector<int64_t> msg(N);
            for (auto& s : msg)
                s = int64_t(rng() % 16);
            const auto sent = cb.encode(msg.data(), msg.size());
            std::vector<std::vector<uint8_t>> rx;
            frame_reads f;
            for (int r = 0; r < M; ++r)
                rx.push_back(transmit(ch, sent.data(), sent.size(), rng(), 0).rx);
            for (const auto& y : rx)
                f.reads.push_back({ y.data(), nullptr, y.size() });
            std::vector<double> pj(size_t(N * 16)), pc(pj.size()), p1(pj.size());
            ASSERT_TRUE(joint.decode(f, pj.data()).ok());
            const reads_result rc = comb.decode(f, pc.data());
            ASSERT_TRUE(rc.ok());
            converged += rc.converged;
            joint.single(0).decode(frame_view(rx[0].data(), rx[0].size()), p1.data());
            e_one += symbol_errors(p1, msg, 16);
            e_joint += symbol_errors(pj, msg, 16);
            e_comb += symbol_errors(pc, msg, 16);
            gap = std::max(gap, max_abs_diff(pj, pc));
        }
        SCOPED_TRACE(testing::Message()
                     << "M = " << M << ": symbol errors one read " << e_one << ", joint "
                     << e_joint << ", combined " << e_comb << ", largest gap " << gap);
        EXPECT_GT(e_one, 10);
        EXPECT_LE(e_joint, e_comb);
        EXPECT_LT(e_comb, e_one / 2);
        EXPECT_GE(converged, frames * 8 / 10);
    }
}

TEST(reads, the_combiner_takes_many_reads)
{
    // 32 reads of uncoded four-letter strands (trace reconstruction): one
    // read alone gets about a third of the letters wrong, the 32 together
    // nearly none (a fixed seed: counts, not exact values)
    const codebook cb = codebook::random(1, 4, 1, 3, 4);
    const channel_params ch(0.02, 0.02, 0.02, 4);
    const int N = 60, M = 32, frames = 5;
    std::mt19937_64 rng(2027);
    decoder_config base(cb, ch, N);
    base.backend = backend_kind::cpu;
    reads_config rc(base);
    rc.method = read_method::combine;
    reads_decoder dec(rc);
    int e_one = 0, e_all = 0;
    for (int k = 0; k < frames; ++k) {
        std::vector<int64_t> msg(N);
        for (auto& s : msg)
            s = int64_t(rng() % 4);
        const auto sent = cb.encode(msg.data(), msg.size());
        std::vector<std::vector<uint8_t>> rx;
        frame_reads f;
        for (int r = 0; r < M; ++r)
            rx.push_back(transmit(ch, sent.data(), sent.size(), rng(), 0).rx);
        for (const auto& y : rx)
            f.reads.push_back({ y.data(), nullptr, y.size() });
        std::vector<double> post(size_t(N * 4)), one(post.size());
        const reads_result r = dec.decode(f, post.data());
        ASSERT_TRUE(r.ok()) << r.result.reason;
        EXPECT_EQ(r.used, M);
        EXPECT_GE(r.rounds, 2);
        for (int i = 0; i < N; ++i) {
            double s = 0;
            for (int D = 0; D < 4; ++D) {
                EXPECT_TRUE(std::isfinite(post[size_t(i * 4 + D)]));
                s += post[size_t(i * 4 + D)];
            }
            EXPECT_NEAR(s, 1.0, 1e-12);
        }
        e_all += symbol_errors(post, msg, 4);
        ASSERT_TRUE(dec.single(0)
                        .decode(frame_view(rx[0].data(), rx[0].size()), one.data())
                        .ok());
        e_one += symbol_errors(one, msg, 4);
    }
    EXPECT_GE(e_one, N * frames / 10);
    EXPECT_LE(e_all, N * frames / 50) << "one read: " << e_one << " errors";
}

TEST(reads, batches_decode_each_frame_as_alone)
{
    std::mt19937_64 rng(test_seed() + 82);
    for (auto method : { read_method::joint, read_method::combine }) {
        std::vector<tiny_cluster> cl;
        for (int k = 0; k < 8; ++k)
            cl.push_back(random_cluster(rng, 1 + k % 3, 2, false, false, k % 2));
        // one codebook and channel for the batch: the first cluster's
        for (auto& c : cl) {
            c.cb = cl[0].cb;
            c.N = cl[0].N;
            c.priors.clear();
            for (auto& r : c.reads)
                r.ch = cl[0].reads[0].ch;
        }
        reads_config rc = config_for(cl[0], false, precision_kind::single, method);
        rc.base.threads = 2;
        reads_decoder dec(rc);
        const size_t NQ = size_t(cl[0].N * cl[0].cb.q());
        std::vector<frame_reads> fr;
        std::vector<std::vector<double>> a(cl.size(), std::vector<double>(NQ)),
            b(cl.size(), std::vector<double>(NQ));
        std::vector<double*> ptrs;
        for (size_t k = 0; k < cl.size(); ++k) {
            fr.push_back(request_of(cl[k]));
            ptrs.push_back(a[k].data());
        }
        const auto got = dec.decode_batch(fr, ptrs);
        for (size_t k = 0; k < cl.size(); ++k) {
            const reads_result one = dec.decode(fr[k], b[k].data());
            EXPECT_EQ(got[k].result.status, one.result.status);
            EXPECT_EQ(a[k], b[k]) << to_string(method) << " frame " << k;
        }
    }
}

TEST(reads, errors_are_clear)
{
    const codebook cb = codebook::random(4, 4, 2, 5);
    const channel_params ch(0.01, 0.01, 0.01);
    decoder_config base(cb, ch, 10);
    base.backend = backend_kind::cpu;
    std::vector<uint8_t> y(40, 0);
    std::vector<double> post(40);
    frame_reads four;
    for (int r = 0; r < 4; ++r)
        four.reads.push_back({ y.data(), nullptr, y.size() });
    reads_decoder joint{ reads_config(base) };
    try {
        joint.decode(four, post.data());
        ADD_FAILURE() << "four reads decoded jointly";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("at most 3"), std::string::npos) << e.what();
    }
    // the memory bound: 2 reads of 1201 drifts each
    decoder_config wide = base;
    wide.mtau = drift_range{ -600, 600 };
    reads_decoder big{ reads_config(wide) };
    frame_reads two;
    two.reads = { four.reads[0], four.reads[1] };
    try {
        big.decode(two, post.data());
        ADD_FAILURE() << "a joint state space past the bound decoded";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("joint states"), std::string::npos)
            << e.what();
    }
    // more reads than channels; bad priors; buffers
    reads_config per(base);
    per.channels = { ch, ch };
    reads_decoder two_channels(per);
    frame_reads three;
    three.reads = { four.reads[0], four.reads[1], four.reads[2] };
    EXPECT_THROW(two_channels.decode(three, post.data()), std::invalid_argument);
    std::vector<double> bad(40, -1.0);
    two.priors = bad.data();
    EXPECT_THROW(joint.decode(two, post.data()), std::invalid_argument);
    EXPECT_THROW(joint.decode_batch({ two }, {}), std::invalid_argument);
    // options
    reads_config it(base);
    it.combine.iterations = 0;
    EXPECT_THROW(reads_decoder{ it }, std::invalid_argument);
    reads_config letters(base);
    letters.channels = { channel_params(0.01, 0.01, 0.01, 4) };
    EXPECT_THROW(reads_decoder{ letters }, std::invalid_argument);
    EXPECT_EQ(parse_read_method("combine"), read_method::combine);
    EXPECT_THROW(parse_read_method("vote"), std::invalid_argument);
}
