/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Several reads of one frame on the GPU (docs/reads.md): the CUDA joint
// decoder against the brute force of qa_reads_reference.h (every kind the
// CPU is checked on) and against the CPU's joint decoder on frames of real
// size (bits and four letters, both precisions, a batch of frames of
// several channel groups with impossible ones among them), and the combiner
// on the CUDA single decoder against the same on the CPU.

#include "qa_reads_reference.h"
#include "runtime/backends.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/reads/reads_decoder.h>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

using namespace bsid;
using namespace bsid::qa;

namespace {

class cuda_reads : public ::testing::Test
{
protected:
    void SetUp() override
    {
        std::string why;
        if (!cuda_device_available(0, &why))
            GTEST_SKIP() << "no GPU: " << why;
    }
};

// M reads of `frames` random frames of cb through ch (per read: chans[r])
std::vector<std::vector<std::vector<uint8_t>>>
clusters(const codebook& cb,
         const std::vector<channel_params>& chans,
         int N,
         int frames,
         uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<std::vector<std::vector<uint8_t>>> out;
    for (int k = 0; k < frames; ++k) {
        std::vector<int64_t> msg(static_cast<size_t>(N));
        for (auto& s : msg)
            s = int64_t(rng() % unsigned(cb.q()));
        const auto sent = cb.encode(msg.data(), msg.size());
        std::vector<std::vector<uint8_t>> rx;
        for (const auto& ch : chans)
            rx.push_back(transmit(ch, sent.data(), sent.size(), rng(), 0).rx);
        out.push_back(rx);
    }
    return out;
}

} // namespace

TEST_F(cuda_reads, joint_decoder_exact_against_brute_force)
{
    for (const auto& c : joint_cases()) {
        SCOPED_TRACE(c.what);
        check_joint(backend_kind::cuda, test_seed() + 90, c);
    }
}

TEST_F(cuda_reads, joint_decoder_equals_the_cpus_on_real_frames)
{
    struct shape {
        codebook cb;
        std::vector<channel_params> chans;
        int N;
    };
    const channel_params bits(0.01, 0.01, 0.0), noisy(0.02, 0.015, 0.01);
    const channel_params dna(0.01, 0.01, 0.01, 4);
    const std::vector<shape> shapes = {
        { codebook::from_spec("builtin:ld3-modvec6"), { bits, bits }, 55 },
        { codebook::from_spec("builtin:ld3-modvec6"), { bits, noisy }, 30 },
        { codebook::random(1, 4, 1, 3, 4), { dna, dna, dna }, 60 },
        { codebook::random(3, 16, 2, 8, 4), { dna, dna }, 40 },
    };
    for (const auto& sp : shapes) {
        const auto cl = clusters(sp.cb, sp.chans, sp.N, 12, test_seed() + 91);
        for (auto prec : { precision_kind::dual, precision_kind::single }) {
            std::vector<std::vector<double>> post[2];
            std::vector<reads_result> res[2];
            for (int b = 0; b < 2; ++b) {
                decoder_config base(sp.cb, sp.chans[0], sp.N);
                base.backend = b ? backend_kind::cuda : backend_kind::cpu;
                base.precision = b ? prec : precision_kind::dual;
                reads_config rc(base);
                rc.channels = sp.chans;
                reads_decoder dec(rc);
                std::vector<frame_reads> fr;
                std::vector<double*> ptrs;
                post[b].assign(cl.size(),
                               std::vector<double>(size_t(sp.N) * size_t(sp.cb.q())));
                for (size_t k = 0; k < cl.size(); ++k) {
                    frame_reads f;
                    for (const auto& y : cl[k])
                        f.reads.push_back({ y.data(), nullptr, y.size() });
                    fr.push_back(f);
                    ptrs.push_back(post[b][k].data());
                }
                // one frame with a read made impossible (a letter the
                // channel cannot give: none is; so an empty read, left out)
                fr[3].reads[0].L = 0;
                res[b] = dec.decode_batch(fr, ptrs);
            }
            const double tol = prec == precision_kind::dual ? 1e-9 : 1e-4;
            for (size_t k = 0; k < cl.size(); ++k) {
                SCOPED_TRACE(testing::Message()
                             << sp.cb.spec() << " N " << sp.N << " frame " << k << " "
                             << to_string(prec));
                ASSERT_TRUE(res[1][k].ok()) << res[1][k].result.reason;
                EXPECT_EQ(res[0][k].used, res[1][k].used);
                EXPECT_LT(max_abs_diff(post[0][k], post[1][k]), tol);
            }
        }
    }
}

TEST_F(cuda_reads, impossible_frames_in_a_batch_are_flagged_and_the_rest_decoded)
{
    // codewords 00 and 01, no insertions or substitutions: "00" and "1" are
    // each possible and impossible together (reads_decoder's rule: the
    // frame is refused), beside frames that decode
    codebook cb(2, { { 0u, 1u } });
    const channel_params ch(0.0, 0.2, 0.0);
    decoder_config base(cb, ch, 1);
    base.backend = backend_kind::cuda;
    reads_decoder dec{ reads_config(base) };
    const std::vector<uint8_t> y00{ 0, 0 }, y1{ 1 }, y01{ 0, 1 };
    std::vector<frame_reads> fr(4);
    fr[0].reads = { { y00.data(), nullptr, 2 }, { y1.data(), nullptr, 1 } };
    fr[1].reads = { { y01.data(), nullptr, 2 }, { y1.data(), nullptr, 1 } };
    fr[2] = fr[0];
    fr[3].reads = { { y00.data(), nullptr, 2 }, { y00.data(), nullptr, 2 } };
    std::vector<std::vector<double>> post(4, std::vector<double>(2));
    const auto got = dec.decode_batch(
        fr, { post[0].data(), post[1].data(), post[2].data(), post[3].data() });
    EXPECT_EQ(got[0].result.status, frame_status::impossible);
    EXPECT_EQ(got[2].result.status, frame_status::impossible);
    ASSERT_TRUE(got[1].ok()) << got[1].result.reason;
    ASSERT_TRUE(got[3].ok()) << got[3].result.reason;
    EXPECT_DOUBLE_EQ(post[1][1], 1.0);
    EXPECT_DOUBLE_EQ(post[3][0], 1.0);
    EXPECT_EQ(post[0][0], 0.5);
}

TEST_F(cuda_reads, the_combiner_on_the_gpu_equals_the_cpus)
{
    const codebook cb = codebook::random(1, 4, 1, 3, 4);
    const channel_params ch(0.01, 0.01, 0.01, 4);
    const int N = 110;
    const auto cl = clusters(cb, { ch, ch, ch, ch, ch }, N, 40, test_seed() + 92);
    std::vector<std::vector<double>> post[2];
    std::vector<reads_result> res[2];
    for (int b = 0; b < 2; ++b) {
        decoder_config base(cb, ch, N);
        base.backend = b ? backend_kind::cuda : backend_kind::cpu;
        base.precision = precision_kind::dual;
        reads_config rc(base);
        rc.method = read_method::combine;
        rc.combine.iterations = 4;
        rc.combine.tolerance = 0; // the same rounds on both
        reads_decoder dec(rc);
        std::vector<frame_reads> fr;
        std::vector<double*> ptrs;
        post[b].assign(cl.size(), std::vector<double>(size_t(N) * 4));
        for (size_t k = 0; k < cl.size(); ++k) {
            frame_reads f;
            for (const auto& y : cl[k])
                f.reads.push_back({ y.data(), nullptr, y.size() });
            fr.push_back(f);
            ptrs.push_back(post[b][k].data());
        }
        res[b] = dec.decode_batch(fr, ptrs);
    }
    for (size_t k = 0; k < cl.size(); ++k) {
        ASSERT_TRUE(res[1][k].ok()) << res[1][k].result.reason;
        EXPECT_EQ(res[1][k].rounds, 4);
        EXPECT_LT(max_abs_diff(post[0][k], post[1][k]), 1e-7) << "frame " << k;
    }
}
