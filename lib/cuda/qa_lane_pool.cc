/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA decoder's lane pool, host code only: in every build.

#include "lane_pool.h"
#include <condition_variable>
#include <gtest/gtest.h>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

using namespace bsid::cuda;

namespace {

// A barrier for `count` threads with a deadline: a lane that is still waiting
// for the others when it passes goes on, and says so, so that a pool that
// does not run its lanes at once fails the test instead of hanging it.
class deadline_barrier
{
public:
    deadline_barrier(int count, std::chrono::steady_clock::duration timeout)
        : d_count(count), d_deadline(std::chrono::steady_clock::now() + timeout)
    {
    }

    //! Whether all `count` threads arrived before the deadline.
    bool arrive_and_wait()
    {
        std::unique_lock<std::mutex> lock(d_mutex);
        if (++d_arrived == d_count) {
            d_cv.notify_all();
            return true;
        }
        return d_cv.wait_until(lock, d_deadline, [&] { return d_arrived >= d_count; });
    }

private:
    std::mutex d_mutex;
    std::condition_variable d_cv;
    int d_arrived = 0;
    const int d_count;
    const std::chrono::steady_clock::time_point d_deadline;
};

} // namespace

TEST(lane_pool, every_lane_runs_once_per_run_at_once)
{
    lane_pool pool(4);
    for (int used : { 1, 2, 4, 3, 4 }) {
        std::vector<std::atomic<int>> ran(4);
        std::atomic<int> inside{ 0 }, most{ 0 }, late{ 0 };
        // every lane of the run waits until all are inside: they run at once
        deadline_barrier all_inside(used, std::chrono::seconds(30));
        pool.run(used, [&](int l) {
            ++ran[size_t(l)];
            const int now = ++inside;
            int m = most.load();
            while (now > m && !most.compare_exchange_weak(m, now)) {
            }
            if (!all_inside.arrive_and_wait())
                ++late;
            --inside;
        });
        for (int l = 0; l < 4; ++l)
            EXPECT_EQ(ran[size_t(l)].load(), l < used ? 1 : 0) << "used " << used;
        EXPECT_EQ(late.load(), 0) << "used " << used << ": the lanes did not run at once";
        EXPECT_EQ(most.load(), used);
    }
    EXPECT_EQ(pool.started(), 3); // lanes 1..3; lane 0 is the caller's
}

TEST(lane_pool, a_lane_keeps_its_thread_and_lane_0_is_the_caller)
{
    lane_pool pool(3);
    std::vector<std::thread::id> first(3), again(3);
    std::mutex m;
    pool.run(3, [&](int l) {
        std::lock_guard<std::mutex> g(m);
        first[size_t(l)] = std::this_thread::get_id();
    });
    for (int k = 0; k < 50; ++k)
        pool.run(3, [&](int l) {
            std::lock_guard<std::mutex> g(m);
            again[size_t(l)] = std::this_thread::get_id();
        });
    EXPECT_EQ(first, again);
    EXPECT_EQ(first[0], std::this_thread::get_id());
    EXPECT_EQ(std::set<std::thread::id>(first.begin(), first.end()).size(), 3u);
}

TEST(lane_pool, more_lanes_than_the_pool_has_are_not_run)
{
    lane_pool pool(2);
    std::atomic<int> runs{ 0 }, highest{ -1 };
    pool.run(5, [&](int l) {
        ++runs;
        int h = highest.load();
        while (l > h && !highest.compare_exchange_weak(h, l)) {
        }
    });
    EXPECT_EQ(runs.load(), 2);
    EXPECT_EQ(highest.load(), 1);
    // a pool of 0 or 1 lanes runs on the caller alone
    lane_pool one(0);
    one.run(3, [&](int l) { EXPECT_EQ(l, 0); });
    EXPECT_EQ(one.started(), 0);
}

TEST(lane_pool, stop_ends_the_threads_and_is_idempotent)
{
    lane_pool pool(3);
    std::atomic<int> runs{ 0 };
    for (int k = 0; k < 100; ++k)
        pool.run(3, [&](int) { ++runs; });
    EXPECT_EQ(runs.load(), 300);
    pool.stop();
    EXPECT_EQ(pool.started(), 0);
    pool.stop();
}
