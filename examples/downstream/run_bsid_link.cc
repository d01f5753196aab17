/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// downstream::bsid_link in a C++ flowgraph: 20 frames of 100 random symbols
// through it (Pi = Pd = 0.01), the decisions compared with the symbols sent.
// Exits 0 when every frame comes out, none is an erasure, and at most 2 % of
// the symbols are wrong.

#include "bsid_link.h"
#include <gnuradio/blocks/stream_to_tagged_stream.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/top_block.h>

#include <cstdio>
#include <exception>
#include <random>
#include <vector>

int main()
{
    try {
        const int N = 100, frames = 20;
        const bsid::codebook cb = bsid::codebook::builtin("ld3-modvec6");
        const bsid::channel_params channel(0.01, 0.01, 0.0);

        std::mt19937 rng(2026);
        std::vector<int> sent(size_t(N) * frames);
        for (auto& s : sent)
            s = int(rng() % unsigned(cb.q()));

        auto tb = gr::make_top_block("bsid_link");
        auto source = gr::blocks::vector_source_i::make(sent);
        auto frame_tags = gr::blocks::stream_to_tagged_stream::make(
            sizeof(int32_t), 1, N, "packet_len");
        auto link = downstream::bsid_link::make(cb, N, channel, /*seed=*/11);
        auto sink = gr::blocks::vector_sink_i::make();
        tb->connect(source, 0, frame_tags, 0);
        tb->connect(frame_tags, 0, link, 0);
        tb->connect(link, 0, sink, 0);
        tb->run();

        const std::vector<int>& decided = sink->data();
        size_t errors = 0;
        for (size_t i = 0; i < decided.size() && i < sent.size(); i++)
            errors += decided[i] != sent[i];
        const uint64_t erasures = link->decoder()->erasures();
        std::printf(
            "bsid_link: %zu of %zu symbols out, %llu erasures, %zu symbol errors\n",
            decided.size(),
            sent.size(),
            (unsigned long long)erasures,
            errors);
        return decided.size() == sent.size() && erasures == 0 &&
                       errors <= sent.size() / 50
                   ? 0
                   : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bsid_link: %s\n", e.what());
        return 1;
    }
}
