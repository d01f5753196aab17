/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA decoder's memory planner, host code only: in every build.

#include "memory_planner.h"
#include <gnuradio/bsid/core/estimation/event_counts.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <gtest/gtest.h>
#include <limits>
#include <string>
#include <vector>

using namespace bsid;
using namespace bsid::cuda;

namespace {

//! S500's memory model in float (N = 500, q = 16, M_tau = 128, M_n = 16).
memory_model s500()
{
    memory_model m;
    m.N = 500;
    m.q = 16;
    m.Mt = 128;
    m.Mn = 16;
    m.real_bytes = 4;
    return m;
}

//! The warnings logged while it lives, each time it is said (at debug
//! level the log says a repeated warning again).
struct warnings {
    std::vector<std::string> said;
    log_level was = get_log_level();
    warnings()
    {
        set_log_level(log_level::debug);
        set_log_handler([this](log_level level, const std::string& m) {
            if (level == log_level::warning)
                said.push_back(m);
        });
    }
    ~warnings()
    {
        set_log_handler(nullptr);
        set_log_level(was);
    }
};

} // namespace

TEST(memory_planner, storage_is_global_where_a_frame_fits_in_80_percent)
{
    const memory_model m = s500();
    const size_t tau = 4000;
    const size_t need = m.per_frame(tau) + m.per_index() * 500;
    memory_planner plan(m, 0, 0);
    // 80 % of the free memory, counted as free / 10 * 8
    EXPECT_EQ(plan.choose_storage(storage_kind::automatic, tau, need / 8 * 10 + 10),
              storage_kind::global);
    EXPECT_EQ(plan.storage(), storage_kind::global);
    EXPECT_EQ(plan.choose_storage(storage_kind::automatic, tau, need),
              storage_kind::local);
    EXPECT_EQ(plan.storage(), storage_kind::local);
    // what is asked for is kept, whatever the memory
    EXPECT_EQ(plan.choose_storage(storage_kind::global, tau, 0), storage_kind::global);
    EXPECT_EQ(plan.choose_storage(storage_kind::local, tau, size_t(1) << 40),
              storage_kind::local);
    // the general kernel's scratch counts
    memory_model g = m;
    g.general_scratch = need;
    memory_planner general(g, 0, 0);
    EXPECT_EQ(general.choose_storage(storage_kind::automatic, tau, need / 8 * 10 + 10),
              storage_kind::local);
}

TEST(memory_planner, a_chunk_counts_its_soft_input_events_and_lengths)
{
    const size_t scratch = size_t(3) << 20;
    memory_planner plan(s500(), scratch, 0);
    std::vector<uint8_t> bits(4000, 0);
    std::vector<double> llr(4100, 1.0), items(2 * 4200, 0.0);
    event_counts ev;
    std::vector<frame_view> frames(4);
    frames[0].bits = bits.data();
    frames[0].rho = 4000;
    frames[1].llr = llr.data();
    frames[1].rho = 4100;
    frames[2].bits = bits.data();
    frames[2].rho = 3900;
    frames[2].events = &ev;
    frames[3].bits = bits.data();
    frames[3].rho = 4200;
    frames[3].events = &ev;
    frames[3].item_posteriors = items.data();

    // hard frames only: the decoder's model as it is
    chunk_memory c = plan.chunk(frames, { 2, 0, 2 }, 1, 1);
    ASSERT_EQ(c.rho, std::vector<size_t>{ 4000 });
    EXPECT_FALSE(c.m.soft);
    EXPECT_FALSE(c.m.events);
    EXPECT_FALSE(c.m.items);
    EXPECT_EQ(c.m.events_scratch, scratch);
    EXPECT_EQ(c.m.per_index(), plan.model().per_index());
    EXPECT_EQ(c.m.per_frame(4000), plan.model().per_frame(4000));
    // frames todo[pos .. pos + count), in their order
    c = plan.chunk(frames, { 3, 1, 0, 2 }, 1, 3);
    EXPECT_EQ(c.rho, (std::vector<size_t>{ 4100, 4000, 3900 }));
    EXPECT_TRUE(c.m.soft);
    EXPECT_TRUE(c.m.events);
    EXPECT_FALSE(c.m.items);
    c = plan.chunk(frames, { 3 }, 0, 1);
    EXPECT_FALSE(c.m.soft);
    EXPECT_TRUE(c.m.events);
    EXPECT_TRUE(c.m.items);
}

TEST(memory_planner, windows_are_plan_window_s)
{
    const memory_model m = s500();
    std::vector<uint8_t> bits(4000, 0);
    std::vector<frame_view> frames(256);
    std::vector<size_t> todo(256);
    for (size_t k = 0; k < frames.size(); ++k) {
        frames[k].bits = bits.data();
        frames[k].rho = 4000;
        todo[k] = k;
    }
    const std::vector<size_t> rho(256, 4000);
    size_t need = 0;
    for (size_t r : rho)
        need += m.per_frame(r) + 500 * m.per_index();
    const size_t huge = std::numeric_limits<size_t>::max();
    for (auto storage : { storage_kind::global, storage_kind::local }) {
        for (int cap : { 0, 3 }) {
            memory_planner plan(m, 0, cap);
            plan.choose_storage(storage, 4000, 0);
            const chunk_memory c = plan.chunk(frames, todo, 0, 256);
            for (size_t usable : { size_t(0), need / 2, need * 2 })
                EXPECT_EQ(plan.window(c, usable),
                          plan_window(m, rho, usable, storage, cap));
            for (size_t cached : { size_t(0), need / 2, huge })
                EXPECT_EQ(plan.window_in_cache(c, cached),
                          plan_window_in_cache(m, rho, cached, storage, cap));
        }
    }
}

TEST(memory_planner, global_storage_falling_back_warns_once)
{
    const memory_model m = s500();
    std::vector<uint8_t> bits(4000, 0);
    std::vector<frame_view> frames(256);
    std::vector<size_t> todo(256);
    for (size_t k = 0; k < frames.size(); ++k) {
        frames[k].bits = bits.data();
        frames[k].rho = 4000;
        todo[k] = k;
    }
    size_t need = 0;
    for (size_t k = 0; k < frames.size(); ++k)
        need += m.per_frame(4000) + 500 * m.per_index();
    memory_planner plan(m, 0, 0);
    plan.choose_storage(storage_kind::global, 4000, 0);
    const chunk_memory c = plan.chunk(frames, todo, 0, 256);
    warnings w;
    EXPECT_EQ(plan.window(c, need * 2), 500u); // fits: no warning
    EXPECT_TRUE(w.said.empty());
    const size_t W = plan.window(c, need / 2);
    EXPECT_GE(W, 1u);
    EXPECT_LT(W, 500u);
    ASSERT_EQ(w.said.size(), 1u);
    EXPECT_NE(w.said[0].find("global storage needs"), std::string::npos) << w.said[0];
    EXPECT_NE(w.said[0].find(" MiB for 256 frames"), std::string::npos) << w.said[0];
    EXPECT_EQ(plan.window(c, need / 2), W);
    EXPECT_EQ(w.said.size(), 1u); // once per decoder
}
