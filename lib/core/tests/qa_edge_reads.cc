/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The edge tests' reads (alignment_judge::edge_requests): a front read's
// start prior is padded with weight 0 to a spread of 2^k - 1 (at least
// front_spread), so that the fronts of many frames fall in one or two state
// spaces (one batch each). The padding reads nothing: each read gives the
// ln LR of its start prior unpadded, to the drift limits' exclusion.

#include "framing/stream_alignment.h"
#include "qa_stream_reference.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gtest/gtest.h>
#include <cmath>
#include <random>

using namespace bsid;

TEST(edge_reads, a_fronts_padding_reads_nothing_and_its_spread_is_one_of_few)
{
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.01);
    const int N = 40;
    decoder_config cfg(cb, ch, N);
    cfg.backend = backend_kind::cpu;
    cfg.precision = precision_kind::dual;
    cfg.threads = 1;
    const frame_decoder fd(cfg, {});
    const alignment_judge judge(fd, std::nan(""), input_kind::bits);
    ASSERT_TRUE(judge.edges_checked());
    const auto s = qa::make_stream(cb, ch, N, {}, 12, 3);
    std::mt19937 g(11);
    size_t fronts = 0, padded_fronts = 0;
    for (int k = 1; k < 11; ++k) {
        // a segment from 20 items before frame k's start; a start prior over
        // 1 to 40 positions around it, peaked at the true start
        const long long seg = s.starts[size_t(k)] - 20;
        const long long spread = 1 + (long long)(g() % 40);
        position_weights start;
        for (long long x = 20 - spread / 2; x <= 20 + (spread - 1) / 2; ++x) {
            start.positions.push_back(x);
            start.weights.push_back(std::exp(-0.5 * double((x - 20) * (x - 20))));
        }
        const received_items y{ s.rx.data() + seg, nullptr, 2, nullptr };
        const size_t avail = size_t(s.starts[size_t(k) + 1] + 60 - seg);
        const long long e = s.starts[size_t(k) + 1] - seg;
        auto reads = judge.edge_requests(y, avail, start, e);
        for (size_t j = 0; j < reads.requests.size(); ++j) {
            const auto role = reads.roles[j];
            if (role != alignment_judge::front_own && role != alignment_judge::front_alt)
                continue;
            ++fronts;
            const frame_request& padded = reads.requests[j];
            const auto& pos = padded.start->positions;
            // the spread: 2^k - 1, at least front_spread (the items allowing)
            const long long sp = pos.back() - pos.front();
            EXPECT_GE(sp, alignment_judge::front_spread) << "frame " << k;
            EXPECT_EQ(sp & (sp + 1), 0) << "frame " << k << ": spread " << sp;
            // the same read without the starts of weight 0 at its top
            frame_request plain = padded;
            while (plain.start->weights.back() == 0.0) {
                plain.start->positions.pop_back();
                plain.start->weights.pop_back();
            }
            padded_fronts += plain.start->positions.size() < pos.size();
            frame_decoder& dec = judge.edge_decoder(role, false);
            const auto a = dec.decode_batch({ padded });
            const auto b = dec.decode_batch({ plain });
            ASSERT_TRUE(a[0].result.ok()) << a[0].result.reason;
            ASSERT_TRUE(b[0].result.ok()) << b[0].result.reason;
            // (to the drift limits' exclusion, Pr = 1e-10 of the mass: the
            // wider state space's limits admit paths the narrower one left out)
            EXPECT_NEAR(a[0].log_likelihood_ratio, b[0].log_likelihood_ratio, 1e-8)
                << "frame " << k << " role " << role;
            EXPECT_NEAR(a[0].log_evidence, b[0].log_evidence, 1e-8);
        }
    }
    EXPECT_EQ(fronts, 20u);
    EXPECT_GE(padded_fronts, 10u);
}
