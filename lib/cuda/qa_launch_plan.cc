/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA backend's planning (launch_plan.h), host code only: runs in every
// build, with or without a GPU.

#include "launch_plan.h"
#include "qa_env_guard.h"
#include <gnuradio/bsid/core/inner/model.h>
#include <gtest/gtest.h>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>

using namespace bsid;
using namespace bsid::cuda;

namespace {

//! The memory model of a shape, in float unless said otherwise.
memory_model model_of(int N, int q, int Mt, int Mn, size_t real_bytes = 4)
{
    memory_model m;
    m.N = N;
    m.q = q;
    m.Mt = Mt;
    m.Mn = Mn;
    m.real_bytes = real_bytes;
    return m;
}

} // namespace

TEST(launch_plan, register_weights_reproduce_the_ratio_lattice)
{
    // S500's channel: no renormalization for n = 8 in float (R = 9 rows)
    const channel_params ch(0.01, 0.01, 0.0);
    const auto r = plan_register_weights(ch, 8, true);
    ASSERT_TRUE(r.usable);
    EXPECT_EQ(r.renorm_rows, 0u);
    const auto w = lattice_weights<double>::ratio(ch);
    EXPECT_DOUBLE_EQ(r.wmatch, w.match / w.del);
    EXPECT_DOUBLE_EQ(r.wmismatch, w.mismatch / w.del);
    // row n divided by del^n, renormalized: out_scale brings it back
    EXPECT_NEAR(r.out_scale / (std::pow(w.del, 8)), 1.0, 1e-12);
    // n = 32 in float: renormalized every 9 rows (Pd^9 = 1e-18 < 2^-60... 2^59.8)
    const auto r32 = plan_register_weights(ch, 32, true);
    EXPECT_EQ(r32.renorm_rows, (1u << 9) | (1u << 18) | (1u << 27));
    EXPECT_NEAR(r32.renorm_factor, std::pow(0.01, 9), 1e-30);
    EXPECT_NEAR(
        r32.out_scale * std::pow(r32.renorm_factor, 3) / std::pow(w.del, 32), 1.0, 1e-9);
    // channels without the form: no deletions, or deletions as likely as sending
    EXPECT_FALSE(plan_register_weights(channel_params(0.01, 0.0, 0.0), 8, true).usable);
    EXPECT_FALSE(plan_register_weights(channel_params(0.1, 0.7, 0.0), 8, true).usable);
    EXPECT_TRUE(plan_register_weights(channel_params(0.3, 0.3, 0.0), 8, true).usable);
}

TEST(launch_plan, soft_batches_count_their_llrs_and_probabilities)
{
    memory_model m = model_of(500, 16, 128, 16);
    for (size_t real : { size_t(4), size_t(8) }) {
        m.real_bytes = real;
        m.soft = false;
        const size_t hard = m.per_frame(4000);
        m.soft = true;
        // 8 bytes of LLR and 2 reals of probabilities per item, not 9/8 of a byte
        EXPECT_EQ(m.per_frame(4000), hard - (4000 + 500) + 4000 * (8 + 2 * real));
        // over four letters: 4 doubles and 4 reals an item, and no packed bits
        memory_model l = m;
        l.alphabet = 4;
        EXPECT_EQ(l.per_frame(4000), hard - (4000 + 500) + 4000 * 4 * (8 + real));
        l.soft = false;
        EXPECT_EQ(l.per_frame(4000), hard - 500);
        // so a soft batch's window is never larger than a hard one's
        const std::vector<size_t> rho(256, 4000);
        const size_t usable = size_t(200) << 20;
        memory_model h = m;
        h.soft = false;
        EXPECT_LE(plan_window(m, rho, usable, storage_kind::local, 0),
                  plan_window(h, rho, usable, storage_kind::local, 0));
    }
}

TEST(launch_plan, batches_with_events_count_the_e_step)
{
    memory_model m = model_of(500, 16, 128, 16);
    const size_t plain = m.per_frame(4000);
    m.events_scratch = size_t(8) << 20; // counted only where some frame asks
    const std::vector<size_t> rho(64, 4000);
    const size_t usable = size_t(150) << 20;
    const size_t W_plain = plan_window(m, rho, usable, storage_kind::local, 0);
    m.events = true;
    // each item's probabilities, and 4 events and 2 x 2 substitution counts
    // per index and per frame
    EXPECT_EQ(m.per_frame(4000), plain + 8 * (2 * 4000 + 8 * 501) + 8);
    m.items = true; // and 2 item posteriors per item
    EXPECT_EQ(m.per_frame(4000), plain + 8 * (4 * 4000 + 8 * 501) + 8);
    {
        // over four letters: 4 of each per item, 4 x 4 counts per index
        memory_model l = m;
        l.alphabet = 4;
        l.events = false;
        l.items = false;
        const size_t letters = l.per_frame(4000);
        l.events = true;
        l.items = true;
        EXPECT_EQ(l.per_frame(4000), letters + 8 * (8 * 4000 + 20 * 501) + 8);
    }
    EXPECT_GT(W_plain, 0u);
    EXPECT_LT(W_plain, size_t(m.N - 1));
    EXPECT_LT(plan_window(m, rho, usable, storage_kind::local, 0), W_plain);
    // no room for the E-step's workspace: no window
    EXPECT_EQ(plan_window(m, { 4000 }, size_t(10) << 20, storage_kind::local, 0), 0u);
    m.events = false;
    EXPECT_GT(plan_window(m, { 4000 }, size_t(10) << 20, storage_kind::local, 0), 0u);
}

// The lane's own buffers stand in for the device's free memory only where
// the plan they give is the widest the batch may have: then no free memory
// could change it (plan_window grows with its usable bytes).
TEST(launch_plan, a_window_in_the_lanes_buffers_is_the_widest)
{
    const memory_model m = model_of(500, 16, 128, 16);
    const std::vector<size_t> rho(256, 4000);
    const size_t huge = std::numeric_limits<size_t>::max();
    for (auto storage : { storage_kind::global, storage_kind::local }) {
        for (int cap : { 0, 100 }) {
            const size_t widest = plan_window(m, rho, huge, storage, cap);
            ASSERT_GE(widest, 1u);
            EXPECT_EQ(plan_window_in_cache(m, rho, 0, storage, cap), 0u); // nothing held
            EXPECT_EQ(plan_window_in_cache(m, rho, huge, storage, cap), widest);
            // from too little to enough: 0, then the widest, never another window
            size_t first = 0;
            for (size_t mib = 1; mib <= 8192; mib *= 2) {
                const size_t cached = mib << 20;
                const size_t W = plan_window_in_cache(m, rho, cached, storage, cap);
                EXPECT_TRUE(W == 0 || W == widest) << mib << " MiB: " << W;
                if (W == 0) {
                    EXPECT_EQ(first, 0u) << mib << " MiB: 0 after a window";
                    EXPECT_LT(plan_window(m, rho, cached, storage, cap), widest);
                    continue;
                }
                first = first ? first : mib;
                // whatever the device has free besides, the same window
                for (size_t free_mib : { size_t(0), size_t(1), size_t(100000) })
                    EXPECT_EQ(
                        plan_window(m, rho, cached + (free_mib << 20), storage, cap), W)
                        << mib << " + " << free_mib << " MiB";
            }
            EXPECT_GT(first, 0u); // 8 GiB hold S500's 256 frames either way
        }
    }
}

TEST(launch_plan, local_windows_tile_the_frame_and_end_with_a_whole_one)
{
    for (int N = 1; N <= 60; ++N) {
        for (int W = 1; W <= N + 2; ++W) {
            const std::vector<int> s = plan_local_windows(N, W);
            ASSERT_EQ(s.size(), size_t((N + W - 1) / W)) << N << " " << W;
            ASSERT_EQ(s.front(), 0);
            for (size_t k = 0; k < s.size(); ++k) {
                const int end = k + 1 < s.size() ? s[k + 1] : N;
                const int width = end - s[k];
                // the first takes the remainder, every other one is whole
                if (k == 0)
                    EXPECT_TRUE(width >= 1 && width <= W) << N << " " << W;
                else
                    EXPECT_EQ(width, W) << N << " " << W << " " << k;
            }
            // the last window, whose G the backward pass reuses, is as large
            // as the frame allows
            const int last = N - s.back();
            EXPECT_EQ(last, std::min(N, W)) << N << " " << W;
        }
    }
    EXPECT_EQ(plan_local_windows(840, 271), (std::vector<int>{ 0, 27, 298, 569 }));
    EXPECT_TRUE(plan_local_windows(0, 4).empty());
    EXPECT_TRUE(plan_local_windows(5, 0).empty());
}

TEST(launch_plan, block_recursions_past_the_fast_path_keep_the_row_in_shared_memory)
{
    // the fast path (ab_kernel): a state a thread, at most 32 drift changes
    EXPECT_TRUE(plan_ab_fast(127, 15, 128));
    EXPECT_TRUE(plan_ab_fast(512, 32, 512));
    EXPECT_FALSE(plan_ab_fast(513, 32, 512));
    EXPECT_FALSE(plan_ab_fast(300, 33, 512));
    EXPECT_FALSE(plan_ab_fast(129, 15, 128));
    EXPECT_EQ(plan_ab_row_pad(127, 15, 128), 0);   // S500: the fast path
    EXPECT_EQ(plan_ab_row_pad(512, 32, 512), 0);   // still the fast path
    EXPECT_EQ(plan_ab_row_pad(853, 40, 512), 40);  // the paper's memory case
    EXPECT_EQ(plan_ab_row_pad(300, 35, 512), 35);  // M_n past 32
    EXPECT_EQ(plan_ab_row_pad(4097, 9, 512), 9);   // 33 KiB of row
    EXPECT_EQ(plan_ab_row_pad(6092, 10, 512), 10); // 32 + 6092 + 20 doubles: 48 KiB
    EXPECT_EQ(plan_ab_row_pad(6093, 10, 512), 0);  // 8 bytes past: from global memory
}

TEST(launch_plan, window_global_local_and_caps)
{
    memory_model m = model_of(500, 16, 128, 16);
    EXPECT_EQ(m.nwarps(), 4);
    EXPECT_EQ(m.per_index(), 4u * (128 * 16 + 4 * 16));
    const std::vector<size_t> rho(256, 4000);
    size_t need = 0;
    for (size_t r : rho)
        need += m.per_frame(r) + 500 * m.per_index();
    bool fell = true;
    // enough memory: global storage holds the whole frame
    EXPECT_EQ(plan_window(m, rho, need * 2, storage_kind::global, 0, &fell), 500u);
    EXPECT_FALSE(fell);
    // not enough: global falls back to the largest local window that fits,
    // past local storage's default budget and whatever local_window says
    const size_t w = plan_window(m, rho, need / 2, storage_kind::global, 0, &fell);
    EXPECT_TRUE(fell);
    EXPECT_GE(w, 1u);
    EXPECT_LT(w, 500u);
    EXPECT_LE(w * m.per_index() * 256, need / 2);
    EXPECT_GT((w + 1) * m.per_index() * 256 + 256 * m.per_frame(4000), need / 2 / 10 * 8);
    EXPECT_EQ(plan_window(m, rho, need / 2, storage_kind::global, 3), w);
    // local storage never takes the whole frame, and a cap applies
    EXPECT_EQ(plan_window(m, { 4000 }, need * 2, storage_kind::local, 0), 499u);
    EXPECT_EQ(plan_window(m, rho, need * 2, storage_kind::local, 3), 3u);
    // local storage's default budget for a window's G and partial L
    const size_t wdef = plan_window(m, rho, size_t(1) << 40, storage_kind::local, 0);
    EXPECT_LE(wdef * m.per_index() * 256, local_window_bytes);
    EXPECT_GT((wdef + 1) * m.per_index() * 256, local_window_bytes);
    // the paper's memory case (M_tau = 857, M_n = 40): windows of 812
    // indices in float, 406 in double
    memory_model mem = model_of(840, 1024, 857, 40);
    EXPECT_EQ(plan_window(mem, { 16800 }, size_t(1) << 40, storage_kind::local, 0), 812u);
    // global storage that does not fit takes every index that does (830),
    // past local storage's default
    const size_t usable = (mem.per_frame(16800) + 830 * mem.per_index()) / 8 * 10 + 10;
    EXPECT_EQ(plan_window(mem, { 16800 }, usable, storage_kind::global, 0, &fell), 830u);
    EXPECT_TRUE(fell);
    mem.real_bytes = 8;
    EXPECT_EQ(plan_window(mem, { 16800 }, size_t(1) << 40, storage_kind::local, 0), 406u);
    // a caller's window replaces it, within the memory and N - 1
    EXPECT_EQ(plan_window(m, rho, size_t(1) << 40, storage_kind::local, int(wdef) + 100),
              wdef + 100);
    EXPECT_EQ(plan_window(m, rho, size_t(1) << 40, storage_kind::local, 5000), 499u);
    const size_t short_w = plan_window(m, rho, need / 2, storage_kind::local, 5000);
    EXPECT_GE(short_w, 1u);
    EXPECT_LT(short_w, 499u);
    EXPECT_LE(short_w * m.per_index() * 256, need / 2); // what fits bounds it
    // nothing fits: 0, so that the caller halves the batch or uses the CPU
    EXPECT_EQ(plan_window(m, rho, 1000, storage_kind::global, 0), 0u);
    // one frame of N = 1: local windows still hold one index
    m.N = 1;
    EXPECT_EQ(plan_window(m, { 8 }, size_t(1) << 30, storage_kind::local, 0), 1u);
}

TEST(launch_plan, block_sizes_and_recursions)
{
    EXPECT_EQ(plan_ab_block(1, 512), 32);
    EXPECT_EQ(plan_ab_block(128, 512), 128);
    EXPECT_EQ(plan_ab_block(129, 512), 160);
    EXPECT_EQ(plan_ab_block(5000, 512), 512);
    EXPECT_EQ(plan_ab_block(5000, 1000), 992);
    EXPECT_EQ(plan_reg_block(20), 32);
    EXPECT_EQ(plan_reg_block(64), 64);
    EXPECT_EQ(plan_reg_block(128), 128);
    EXPECT_EQ(plan_reg_block(4097), 128);
    EXPECT_TRUE(plan_warp_recursion(recursion_kind::automatic, 64, 32));
    EXPECT_FALSE(plan_warp_recursion(recursion_kind::automatic, 65, 16));
    EXPECT_FALSE(plan_warp_recursion(recursion_kind::block, 20, 16));
    // a corridor wider than the warp kernels' 32 drift changes: blocks
    // (explicit limits can pair a small m_tau with a wide m_n)
    EXPECT_FALSE(plan_warp_recursion(recursion_kind::automatic, 61, 33));
    EXPECT_TRUE(plan_warp_recursion(recursion_kind::segmented, 64, 32));
    // the one-warp step's forms: the smallest that holds M_n
    for (int Mn = 1; Mn <= 32; ++Mn) {
        const int e = plan_warp_emax(Mn);
        EXPECT_GE(e, Mn) << Mn;
        EXPECT_EQ(e, Mn <= 8 ? 8 : Mn <= 12 ? 12 : Mn <= 16 ? 16 : 32) << Mn;
    }
}

TEST(launch_plan, segments_for_small_batches_in_global_storage)
{
    // one frame of N = 840 at M_tau = 59: segments of ceil(sqrt(1680)) = 41 steps
    EXPECT_EQ(plan_segments(recursion_kind::automatic, 59, 10, 840, 1, true), 41);
    // as many frames as the transfers' warps allow: 6 x 21 x 59 <= 8192 < 7 x ...
    EXPECT_EQ(plan_segments(recursion_kind::automatic, 59, 10, 840, 6, true), 41);
    EXPECT_EQ(plan_segments(recursion_kind::automatic, 59, 10, 840, 7, true), 0);
    // "segmented": whatever the batch whose workspace fits seg_max_bytes
    // (21 transfers of 59 x 59 doubles and the rest: 0.6 MiB a frame, 9.4
    // MiB for 16 frames, 150 MiB for 256); "block": never
    EXPECT_EQ(plan_segments(recursion_kind::segmented, 59, 10, 840, 16, true), 41);
    EXPECT_EQ(plan_segments(recursion_kind::segmented, 59, 10, 840, 256, true), 0);
    // 2000 steps in 32 segments of 64 (64^2 >= 4000 > 63^2): 1 MiB a frame,
    // so up to 61 frames
    for (int F = 1; F <= 4096; F *= 2) {
        const int L = plan_segments(recursion_kind::segmented, 64, 10, 2000, F, true);
        EXPECT_EQ(L,
                  seg_workspace(64, seg_count(2000, 64), F).bytes() <= seg_max_bytes ? 64
                                                                                     : 0)
            << F;
        EXPECT_EQ(L, F <= 32 ? 64 : 0) << F;
    }
    // the workspace's items: 21 transfers and their scales, 2 x 21 first rows
    const seg_workspace ws(59, 21, 3);
    EXPECT_EQ(ws.trans, size_t(3) * 21 * 59 * 59);
    EXPECT_EQ(ws.scale, size_t(3) * 21 * 59);
    EXPECT_EQ(ws.start, size_t(3) * 2 * 21 * 59);
    EXPECT_EQ(ws.ok, size_t(3) * 2);
    EXPECT_EQ(seg_count(840, 41), 21);
    EXPECT_EQ(seg_count(820, 41), 20);
    EXPECT_EQ(plan_segments(recursion_kind::block, 59, 10, 840, 1, true), 0);
    // not the one-warp shape, local storage (one direction a window), short frames
    EXPECT_EQ(plan_segments(recursion_kind::segmented, 65, 10, 840, 1, true), 0);
    EXPECT_EQ(plan_segments(recursion_kind::segmented, 59, 33, 840, 1, true), 0);
    EXPECT_EQ(plan_segments(recursion_kind::segmented, 59, 10, 840, 1, false), 0);
    EXPECT_EQ(plan_segments(recursion_kind::segmented, 20, 10, 24, 1, true), 0);
    // the shortest frames segmented: 4 segments of 8 steps
    EXPECT_EQ(plan_segments(recursion_kind::segmented, 20, 10, 32, 1, true), 8);
    for (int Wc = 1; Wc <= 5000; Wc += 7) {
        const int L = plan_segments(recursion_kind::segmented, 40, 12, Wc, 1, true);
        if (L == 0)
            continue;
        EXPECT_GE((long long)L * L, 2LL * Wc) << Wc; // the smallest such L from 8
        EXPECT_TRUE(L == 8 || (long long)(L - 1) * (L - 1) < 2LL * Wc) << Wc;
        EXPECT_GE((Wc + L - 1) / L, seg_min_segments) << Wc;
    }
}

TEST(launch_plan, settings_from_config_and_environment)
{
    decoder_config cfg(
        codebook::builtin("ld3-modvec6"), channel_params(0.01, 0.01, 0), 10);
    // each variable is restored on leaving the test, also after a failed ASSERT
    qa::scoped_env device("BSID_CUDA_DEVICE", nullptr);
    qa::scoped_env ab("BSID_CUDA_AB", nullptr);
    qa::scoped_env window("BSID_CUDA_LOCAL_WINDOW", nullptr);
    cfg.cuda.device = 1;
    cfg.cuda.recursion = recursion_kind::automatic;
    cfg.cuda.local_window = 7;
    auto s = settings_from(cfg);
    EXPECT_EQ(s.device, 1);
    EXPECT_EQ(s.recursion, recursion_kind::automatic);
    EXPECT_EQ(s.local_window, 7);
    // the environment overrides the fields
    device.set("0");
    ab.set("block");
    window.set("3");
    s = settings_from(cfg);
    EXPECT_EQ(s.device, 0);
    EXPECT_EQ(s.recursion, recursion_kind::block);
    EXPECT_EQ(s.local_window, 3);
    // malformed values are errors, not silently 0
    device.set("one");
    EXPECT_THROW(settings_from(cfg), std::invalid_argument);
    device.set("4294967297");
    EXPECT_THROW(settings_from(cfg), std::invalid_argument);
    device.unset();
    ab.set("segmented");
    EXPECT_EQ(settings_from(cfg).recursion, recursion_kind::segmented);
    ab.set("warp");
    EXPECT_THROW(settings_from(cfg), std::invalid_argument);
    ab.set("auto"); // the default is no override: not a value of the variable
    EXPECT_THROW(settings_from(cfg), std::invalid_argument);
    ab.unset();
    window.set("0");
    EXPECT_THROW(settings_from(cfg), std::invalid_argument);
    window.unset();
    cfg.cuda.device = -1;
    EXPECT_THROW(settings_from(cfg), std::invalid_argument);
    cfg.cuda.device = 0;
    cfg.cuda.local_window = -2;
    EXPECT_THROW(settings_from(cfg), std::invalid_argument);
    cfg.cuda.local_window = 0;
    // the lanes: 0 is the default, others as given
    cfg.cuda.streams = 0;
    EXPECT_EQ(settings_from(cfg).streams, default_cuda_streams);
    cfg.cuda.streams = 3;
    EXPECT_EQ(settings_from(cfg).streams, 3);
    // G by position: on by default, off as asked
    EXPECT_TRUE(settings_from(cfg).share_g);
    cfg.cuda.share_g = false;
    EXPECT_FALSE(settings_from(cfg).share_g);
}

TEST(launch_plan, g_by_position_where_it_takes_fewer_threads)
{
    struct C {
        int n, P, Mt, Wc, books;
        const char* why;
    };
    for (const C& c :
         { C{ 8, 6, 128, 500, 6, "S500: 6 books x 4128 positions against 500 x 128" },
           C{ 20, 1, 857, 840, 1, "the paper's memory case, a whole frame" },
           C{ 20, 1, 857, 812, 1, "the memory case's window" },
           C{ 8, 6, 128, 4, 0, "fewer indices than books: none shares a book" },
           C{ 8, 6, 128, 6, 0, "as many indices as books" },
           C{ 8, 1, 128, 1, 0, "one index: the same threads" },
           C{ 8, 6, 20, 500, 0, "M_tau small against n P" },
           C{ 32, 1, 32, 100, 0, "n past M_tau" },
           // the rule at its edge (warps rounded up): P' (n (Wc - 1) + Mt)
           // against 3/4 of Wc Mt, 384 for 8 x 64
           C{ 18, 2, 64, 8, 2, "2 x (7 x 18 + 64 -> 192) = 384" },
           C{ 19, 2, 64, 8, 0, "2 x (197 -> 224) = 448" },
           C{ 8, 1000, 128, 500, 0, "a period past the frame: a book an index" },
           C{ 0, 6, 128, 500, 0, "no bits" },
           C{ 8, 6, 128, 0, 0, "no indices" } })
        EXPECT_EQ(plan_shared_g(c.n, c.P, c.Mt, c.Wc), c.books) << c.why;
}

// The letters kernels' position table: only where pass G is by position
// (plan_shared_g), and only where its P' (n (Wc - 1) + Mt) q rows take at
// most 4 times G's Wc Mt; its memory counted per index (n q Mn) and per
// frame (Mt q Mn) for each book.
TEST(launch_plan, position_table_where_g_is_by_position_and_it_fits)
{
    struct C {
        int n, q, P, Mt, Wc, books;
        const char* why;
    };
    for (const C& c :
         { C{ 4, 16, 1, 92, 500, 1, "four letters: 2088 x 16 against 4 x 46000" },
           C{ 4, 64, 1, 92, 500, 1, "q = 64: 133632 against 184000" },
           C{ 4, 256, 1, 92, 500, 0, "q = 256: 534528, past 4 times G" },
           C{ 4, 16, 3, 92, 500, 3, "3 books: 100224 against 184000" },
           C{ 32, 4, 1, 32, 100, 0, "G by index (plan_shared_g: n past M_tau)" },
           C{ 4, 16, 1, 92, 0, 0, "no indices" },
           C{ 4, 0, 1, 92, 500, 0, "no codewords" } }) {
        EXPECT_EQ(plan_position_table(c.n, c.q, c.P, c.Mt, c.Wc), c.books) << c.why;
    }
    // the edge exactly: (4 x 99 + 100) x 80 = 39680 against 4 x 100 x 100 =
    // 40000, and one codeword more past it
    EXPECT_EQ(plan_position_table(4, 80, 1, 100, 100), 1);
    EXPECT_EQ(plan_position_table(4, 81, 1, 100, 100), 0);

    memory_model m = model_of(500, 16, 92, 12);
    const size_t index = m.per_index(), frame = m.per_frame(2000);
    m.n = 4;
    m.table_books = 1;
    EXPECT_EQ(m.per_index(), index + 4u * 4 * 16 * 12);
    EXPECT_EQ(m.per_frame(2000), frame + 4u * (92 + 31) * 16 * 12);
    // the model covers the table's whole tiles of 32 positions over any
    // window: n (W - 1) + Mt rounded up is at most n W + Mt + 31
    EXPECT_EQ(plan_table_span(4, 500, 92), 2112); // 2088 rounded up
    EXPECT_EQ(plan_table_span(4, 1, 32), 32);
    EXPECT_EQ(plan_table_span(4, 1, 33), 64);
    for (int n : { 1, 3, 4, 8 })
        for (int Mt : { 1, 31, 32, 92, 140 })
            for (int W : { 1, 2, 5, 37, 500 }) {
                const long long span = plan_table_span(n, W, Mt);
                EXPECT_GE(span, (long long)n * (W - 1) + Mt);
                EXPECT_EQ(span % 32, 0);
                EXPECT_LE(span, (long long)n * W + Mt + 31) << n << " " << W << " " << Mt;
            }
}

// Pass L from the position table's grid (plan_table_launch): the states in
// whole warps up to 128, the indices a block takes as their positions allow
// in table_block_max threads (1 where a book's indices share no position),
// and every state and index of the window covered.
TEST(launch_plan, table_launch_covers_the_window_in_blocks_that_fit)
{
    // the four-letter analogue of S500: 3 warps of states, 4 indices 4
    // positions apart (96 + 12 positions: 4 warps), 125 tiles
    table_launch t = plan_table_launch(4, 1, 92, 500, 4);
    EXPECT_EQ(t.states, 96);
    EXPECT_EQ(t.chunks, 1);
    EXPECT_EQ(t.tile, 4);
    EXPECT_EQ(t.block, 128);
    EXPECT_EQ(t.tiles, 125);
    // M_tau = 140 in two chunks; 22 books 88 positions apart: 2 indices
    // (128 + 88 positions), not 3; 19 indices a book in 10 tiles
    t = plan_table_launch(4, 22, 140, 400, 3);
    EXPECT_EQ(t.states, 128);
    EXPECT_EQ(t.chunks, 2);
    EXPECT_EQ(t.tile, 2);
    EXPECT_EQ(t.block, 224);
    EXPECT_EQ(t.tiles, 10);
    // a book's indices share no position: one a block
    t = plan_table_launch(4, 8, 30, 100, 4);
    EXPECT_EQ(t.states, 32);
    EXPECT_EQ(t.tile, 1);
    EXPECT_EQ(t.block, 32);
    // the registers, not the threads, bound it: 8 indices of 32 states
    t = plan_table_launch(4, 1, 20, 100, 8);
    EXPECT_EQ(t.tile, 8);
    EXPECT_EQ(t.block, 64);
    for (int n : { 1, 4, 8 })
        for (int books : { 1, 2, 5, 22 })
            for (int Mt : { 1, 31, 92, 128, 129, 300 })
                for (int Wc : { 1, 5, 37, 500 })
                    for (int K : { 1, 3, 8 }) {
                        t = plan_table_launch(n, books, Mt, Wc, K);
                        const std::string why =
                            std::to_string(n) + " " + std::to_string(books) + " " +
                            std::to_string(Mt) + " " + std::to_string(Wc) + " " +
                            std::to_string(K);
                        EXPECT_EQ(t.states % 32, 0) << why;
                        EXPECT_LE(t.states, 128) << why;
                        EXPECT_GE(t.states * t.chunks, Mt) << why;
                        EXPECT_LT(t.states * (t.chunks - 1), Mt) << why;
                        EXPECT_GE(t.tile, 1) << why;
                        EXPECT_LE(t.tile, K) << why;
                        EXPECT_EQ(t.block % 32, 0) << why;
                        EXPECT_LE(t.block, table_block_max) << why;
                        EXPECT_GE(t.block, t.states + n * books * (t.tile - 1)) << why;
                        EXPECT_GE((long long)t.tiles * t.tile * books, Wc) << why;
                    }
}

TEST(launch_plan, general_kernel_rows_in_shared_memory_where_they_fit)
{
    const size_t limit = 227 * 1024; // an H100's or H200's opt-in shared memory per block
    // float, Mn = 40 (the paper's memory case): 320 bytes a thread, 128 threads
    EXPECT_EQ(plan_general_block(2 * 4 * 40, limit), 128);
    // double, Mn = 300: 4800 bytes a thread: 32 threads fit (153600), 64 do not
    EXPECT_EQ(plan_general_block(2 * 8 * 300, limit), 32);
    EXPECT_EQ(plan_general_block(2 * 8 * 200, limit), 64);
    // double, Mn = 465: not even one warp's rows fit: global scratch
    EXPECT_EQ(plan_general_block(2 * 8 * 465, limit), 0);
    // a small device's 48 KiB
    EXPECT_EQ(plan_general_block(2 * 4 * 100, 48 * 1024), 32);
    EXPECT_EQ(plan_general_block(1, 0), 0);
}

// The register kernels' zero corner (plan_reg_corner): only on the fast path's
// exact loop (codewords of the band's length, rows not renormalized), never
// past k0 = -m_n^-, the larger of the two compiled corners that fits.
TEST(launch_plan, register_kernels_skip_the_zero_corner_where_it_fits)
{
    EXPECT_EQ(reg_band(1), 8);
    EXPECT_EQ(reg_band(8), 8);
    EXPECT_EQ(reg_band(9), 12);
    EXPECT_EQ(reg_band(16), 16);
    EXPECT_EQ(reg_band(17), 32);
    // S500 (m_n = [-7, 8]): the whole corner of 7, in both precisions
    const channel_params s500(0.01, 0.01, 0.0);
    for (bool single : { true, false })
        EXPECT_EQ(plan_reg_corner(
                      8, 16, -7, plan_register_weights(s500, 8, single).renorm_rows),
                  7);
    EXPECT_EQ(reg_corner_wide(8, 16), 7);
    EXPECT_EQ(reg_corner_narrow(8, 16), 5);
    // a skewed corridor of the same width: the narrow corner, or none
    EXPECT_EQ(plan_reg_corner(8, 16, -6, 0), 5);
    EXPECT_EQ(plan_reg_corner(8, 16, -5, 0), 5);
    EXPECT_EQ(plan_reg_corner(8, 16, -4, 0), 0);
    EXPECT_EQ(plan_reg_corner(8, 16, 0, 0), 0);
    // wide corridors: at most n rows have a corner (m_n^- >= -n)
    EXPECT_EQ(plan_reg_corner(8, 35, -8, 0), 8);   // S500 at 0.2
    EXPECT_EQ(plan_reg_corner(12, 25, -10, 0), 9); // n = 12, q = 64 at 0.05
    EXPECT_EQ(plan_reg_corner(12, 25, -11, 0), 11);
    // not the exact loop: codewords shorter than the band, renormalized rows
    EXPECT_EQ(plan_reg_corner(7, 16, -7, 0), 0);
    EXPECT_EQ(plan_reg_corner(8, 16, -7, 1u << 4), 0);
    // every band and corridor: one of the compiled corners, within k0
    for (int n : { 8, 12, 16, 32 })
        for (int Mn = 1; Mn <= 40; ++Mn)
            for (int dlo = -(Mn - 1); dlo <= 0; ++dlo) {
                const int c = plan_reg_corner(n, Mn, dlo, 0);
                EXPECT_LE(c, -dlo) << n << " " << Mn << " " << dlo;
                EXPECT_LE(c, n);
                EXPECT_TRUE(c == 0 || c == reg_corner_wide(n, Mn) ||
                            c == reg_corner_narrow(n, Mn));
                if (reg_corner_wide(n, Mn) > 0 && -dlo >= reg_corner_wide(n, Mn)) {
                    EXPECT_EQ(c, reg_corner_wide(n, Mn));
                }
            }
}

// The wide register kernels (wide_slot): only where the register kernels do
// not fit (reg_band(n) + M_n > 48), up to 40 nodes, in a band and a padded
// corridor that hold n and M_n and fit one 64-bit word; every slot handed out
// is one that lattice_kernel_reg.cuh compiles.
TEST(launch_plan, wide_kernels_take_what_the_register_kernels_leave)
{
    EXPECT_EQ(wide_slot(8, 40), -1);  // 8 + 40 <= 48: the register kernels
    EXPECT_EQ(wide_slot(16, 32), -1); // 16 + 32
    EXPECT_EQ(wide_slot(20, 16), -1); // band 32 + 16
    EXPECT_EQ(wide_slot(12, 37), 2);  // band 16, corridor 40
    EXPECT_EQ(wide_slot(16, 33), 2);
    EXPECT_EQ(wide_slot(20, 17), 3);  // band 20, corridor 24
    EXPECT_EQ(wide_slot(20, 40), 5);  // the paper's memory case: band 20, corridor 40
    EXPECT_EQ(wide_slot(24, 25), 7);  // band 24, corridor 32
    EXPECT_EQ(wide_slot(25, 32), 10); // band 32, corridor 32
    EXPECT_EQ(wide_slot(25, 33), -1); // 32 + 40 > 64: the general kernel
    EXPECT_EQ(wide_slot(20, 41), -1); // past 40 nodes
    EXPECT_EQ(wide_slot(0, 20), -1);
    EXPECT_EQ(wide_slot(33, 20), -1);
    for (int n = 1; n <= 32; ++n)
        for (int Mn = 1; Mn <= 40; ++Mn) {
            const int s = wide_slot(n, Mn);
            if (reg_band(n) + Mn <= 48) {
                EXPECT_EQ(s, -1) << n << " " << Mn;
                continue;
            }
            if (s < 0) {
                EXPECT_GT(wide_band(n) + wide_corridor(Mn), 64) << n << " " << Mn;
                continue;
            }
            ASSERT_LT(s, wide_slots);
            const int band = wide_bands[s / 3], MN = 24 + 8 * (s % 3);
            EXPECT_GE(band, n);
            EXPECT_LE(band - n < 8 ? 0 : band - n, 8) << n; // the nearest band
            EXPECT_GE(MN, Mn);
            EXPECT_LT(MN - Mn, 8) << Mn; // at most 7 padded nodes
            EXPECT_LE(band + MN, 64);
            // compiled (lattice_wide_entry)
            EXPECT_GT(reg_band(band) + MN, 48) << n << " " << Mn;
        }
    // the zero corner: the band's exact loop only, within k0
    EXPECT_EQ(plan_wide_corner(20, 40, -20, 0), 19);
    EXPECT_EQ(plan_wide_corner(20, 40, -18, 0), 17);
    EXPECT_EQ(plan_wide_corner(20, 40, -20, 1u << 10), 0);
    EXPECT_EQ(plan_wide_corner(18, 33, -16, 0), 0);  // codewords shorter than the band
    EXPECT_EQ(plan_wide_corner(24, 25, -15, 0), 15); // corridor padded to 32
}

TEST(launch_plan, chunks_share_a_batch_among_the_lanes)
{
    // one lane, or a batch of fewer than lane_min_chunks chunks: one chunk
    EXPECT_EQ(plan_chunk(0, 2), 1u);
    EXPECT_EQ(plan_chunk(1, 2), 1u);
    EXPECT_EQ(plan_chunk(5000, 1), 5000u);
    const size_t least = lane_min_chunks * chunk_frames;
    EXPECT_EQ(plan_chunk(least - 1, 2), least - 1);
    EXPECT_EQ(plan_chunk(256, 8), 256u);
    // from lane_min_chunks chunks on, chunks of chunk_frames
    for (int lanes : { 2, 3, 8 }) {
        EXPECT_EQ(plan_chunk(least, lanes), chunk_frames);
        EXPECT_EQ(plan_chunk(4096, lanes), chunk_frames);
        EXPECT_EQ(plan_chunk(100000, lanes), chunk_frames);
    }
}

TEST(launch_plan, the_last_frames_pass_L_in_parts)
{
    using v = std::vector<size_t>;
    // too few frames: one pass L
    EXPECT_EQ(plan_tail_parts(0), (v{ 0, 0 }));
    EXPECT_EQ(plan_tail_parts(1), (v{ 0, 1 }));
    EXPECT_EQ(plan_tail_parts(2 * tail_part_min - 1), (v{ 0, 2 * tail_part_min - 1 }));
    // halves, rounded up, down to the last part of tail_part_min to twice it
    EXPECT_EQ(plan_tail_parts(2 * tail_part_min),
              (v{ 0, tail_part_min, 2 * tail_part_min }));
    EXPECT_EQ(plan_tail_parts(256), (v{ 0, 128, 192, 224, 240, 256 }));
    EXPECT_EQ(plan_tail_parts(257), (v{ 0, 129, 193, 225, 241, 257 }));
    EXPECT_EQ(plan_tail_parts(103), (v{ 0, 52, 78, 103 }));
    EXPECT_EQ(plan_tail_parts(140), (v{ 0, 70, 105, 123, 140 }));
    for (size_t f = 0; f < 3000; ++f) {
        const v b = plan_tail_parts(f);
        ASSERT_GE(b.size(), 2u) << f;
        EXPECT_EQ(b.front(), 0u) << f;
        EXPECT_EQ(b.back(), f) << f;
        const size_t k = b.size() - 1; // parts
        EXPECT_EQ(k == 1, f < 2 * tail_part_min) << f;
        for (size_t i = 0; i < k; ++i) {
            const size_t part = b[i + 1] - b[i], left = f - b[i];
            if (f > 0) {
                EXPECT_GT(part, 0u) << f << " part " << i;
            }
            if (i + 1 < k) {
                EXPECT_EQ(part, left - left / 2)
                    << f << " part " << i; // half, rounded up
            } else if (k > 1) {
                EXPECT_GE(part, tail_part_min) << f; // the last: the rest
                EXPECT_LT(part, 2 * tail_part_min) << f;
            }
        }
    }
}

TEST(launch_plan, environment_guard_restores_value_and_absence)
{
    const char* name = "BSID_QA_ENV_GUARD_PROBE";
    ASSERT_EQ(std::getenv(name), nullptr);
    {
        qa::scoped_env outer(name, "before");
        {
            qa::scoped_env inner(name, "during");
            EXPECT_STREQ(std::getenv(name), "during");
            inner.unset();
            EXPECT_EQ(std::getenv(name), nullptr);
            inner.set("again");
            EXPECT_STREQ(std::getenv(name), "again");
        }
        EXPECT_STREQ(std::getenv(name), "before"); // the previous value
        outer.set("");
        EXPECT_STREQ(std::getenv(name), "");
    }
    EXPECT_EQ(std::getenv(name), nullptr); // and the previous absence
}
