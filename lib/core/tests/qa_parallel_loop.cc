/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU decoders' batch loop (parallel_loop.h): every index once, on the
// threads asked for, its threads kept between loops and asleep once a loop is
// done, and concurrent loops from several threads.

#include "runtime/parallel_loop.h"
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <csignal>
#include <ctime>
#include <thread>
#include <vector>

namespace {

using bsid::detail::parallel_loop;

double process_cpu_seconds()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

TEST(parallel_loop, every_index_once_on_the_workers_asked_for)
{
    parallel_loop loop;
    for (int threads : { -1, 0, 1, 2, 3, 8 }) {
        for (size_t count : { 0, 1, 2, 3, 7, 100 }) {
            std::vector<std::atomic<int>> hits(count);
            std::vector<int> who(count, -1);
            loop.run(threads, count, [&](size_t k, int w) {
                hits[k].fetch_add(1);
                who[k] = w;
            });
            const int workers = int(std::min<size_t>(size_t(std::max(threads, 1)),
                                                     std::max<size_t>(count, 1)));
            for (size_t k = 0; k < count; ++k) {
                EXPECT_EQ(hits[k].load(), 1) << "threads " << threads << " k " << k;
                EXPECT_GE(who[k], 0);
                EXPECT_LT(who[k], workers) << "threads " << threads << " count " << count;
            }
        }
    }
}

TEST(parallel_loop, one_thread_is_the_caller)
{
    parallel_loop loop;
    const auto me = std::this_thread::get_id();
    std::vector<std::thread::id> ids(5);
    loop.run(1, ids.size(), [&](size_t k, int) { ids[k] = std::this_thread::get_id(); });
    for (const auto& id : ids)
        EXPECT_EQ(id, me);
    loop.run(4, 1, [&](size_t k, int w) {
        EXPECT_EQ(w, 0);
        ids[k] = std::this_thread::get_id();
    });
    EXPECT_EQ(ids[0], me);
    EXPECT_EQ(loop.threads_started(), 0);
}

// Runs a loop of two indices on two threads, each index waiting (up to 10 s)
// until both have started: true if they met, which only two threads running
// at once achieve, and each ran on its own worker.
bool two_ran_side_by_side(parallel_loop& loop)
{
    std::atomic<int> started{ 0 }, met{ 0 };
    std::vector<int> who(2, -1);
    loop.run(2, 2, [&](size_t k, int w) {
        who[k] = w;
        started.fetch_add(1);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (started.load() < 2 && std::chrono::steady_clock::now() < deadline)
            std::this_thread::yield();
        if (started.load() == 2)
            met.fetch_add(1);
    });
    return met.load() == 2 && who[0] != who[1];
}

TEST(parallel_loop, runs_side_by_side)
{
    parallel_loop loop;
    for (int round = 0; round < 20; ++round)
        EXPECT_TRUE(two_ran_side_by_side(loop)) << "round " << round;
}

TEST(parallel_loop, threads_are_kept_between_loops)
{
    parallel_loop loop;
    for (int i = 0; i < 200; ++i) {
        std::atomic<size_t> sum{ 0 };
        loop.run(4, 64, [&](size_t k, int) { sum.fetch_add(k); });
        ASSERT_EQ(sum.load(), size_t(64 * 63 / 2));
    }
    EXPECT_EQ(loop.threads_started(), 3);
    // fewer threads for a loop, then more again: the team only grows
    loop.run(2, 64, [](size_t, int) {});
    loop.run(6, 64, [](size_t, int) {});
    EXPECT_EQ(loop.threads_started(), 5);
}

TEST(parallel_loop, many_tiny_loops)
{
    // Loops so short that the caller often takes every index before a helper
    // wakes: the loop is closed then, and a helper that wakes late must
    // neither run an index of it nor miss the next loop.
    parallel_loop loop;
    for (int i = 0; i < 5000; ++i) {
        std::atomic<size_t> sum{ 0 };
        std::atomic<int> calls{ 0 };
        loop.run(3, 3, [&](size_t k, int) {
            sum.fetch_add(k + 1);
            calls.fetch_add(1);
        });
        ASSERT_EQ(calls.load(), 3) << "loop " << i;
        ASSERT_EQ(sum.load(), size_t(6)) << "loop " << i;
    }
    EXPECT_EQ(loop.threads_started(), 2);
}

TEST(parallel_loop, concurrent_loops_from_several_threads)
{
    parallel_loop loop;
    constexpr int callers = 4, rounds = 50;
    constexpr size_t count = 37;
    std::vector<int> bad(callers, 0);
    std::vector<std::thread> threads;
    for (int c = 0; c < callers; ++c) {
        threads.emplace_back([&, c] {
            for (int r = 0; r < rounds; ++r) {
                std::vector<std::atomic<int>> hits(count);
                loop.run(3, count, [&](size_t k, int w) {
                    if (w < 0 || w >= 3)
                        hits[k].fetch_add(100);
                    hits[k].fetch_add(1);
                });
                for (size_t k = 0; k < count; ++k)
                    bad[size_t(c)] += hits[k].load() != 1;
            }
        });
    }
    for (auto& t : threads)
        t.join();
    for (int c = 0; c < callers; ++c)
        EXPECT_EQ(bad[size_t(c)], 0) << "caller " << c;
    // each caller its own team of two helpers at most
    EXPECT_LE(loop.threads_started(), callers * 2);
}

TEST(parallel_loop, idle_threads_sleep)
{
    // Small loops with pauses between them, as a flowgraph's small batches:
    // once a loop is done its threads must wait without using a core. An
    // OpenMP loop of two threads on this two-core machine (libgomp's default
    // wait policy: spin a while, then sleep) used 0.8 of the wall time here.
    parallel_loop loop;
    loop.run(2, 2, [](size_t, int) {}); // the helper started
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = process_cpu_seconds();
    std::atomic<size_t> sum{ 0 };
    for (int i = 0; i < 150; ++i) {
        loop.run(2, 8, [&](size_t k, int) { sum.fetch_add(k); });
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    const double cpu = process_cpu_seconds() - c0;
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(sum.load(), size_t(150 * 28));
    EXPECT_LT(cpu, 0.25 * wall) << "cpu " << cpu << " s over " << wall << " s";
}

#if defined(__SANITIZE_THREAD__)
#define BSID_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BSID_UNDER_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define BSID_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BSID_UNDER_ASAN 1
#endif
#endif

TEST(parallel_loop, a_forked_child_starts_its_own_threads)
{
#ifdef BSID_UNDER_TSAN
    GTEST_SKIP() << "fork() in a threaded process under ThreadSanitizer";
#else
    // The parent's helpers do not exist in a child made by fork(): a child
    // that waited for them would hang. The child runs loops and exits with 0
    // if every index ran once; the parent gives it 20 s.
    parallel_loop loop;
    loop.run(3, 16, [](size_t, int) {}); // the parent's team started
    ASSERT_EQ(loop.threads_started(), 2);
#ifdef BSID_UNDER_ASAN
    // The helpers just started may still be in AddressSanitizer's thread
    // setup, holding its allocator's lock; the libasan of GCC 12 takes no
    // lock around fork(), so a child forked then inherits that lock held and
    // hangs at its first allocation (whatever the loop does). glibc's malloc
    // is fork-safe, so only the sanitized build waits for them to settle.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
#endif
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        int bad = 0;
        for (int r = 0; r < 10; ++r) {
            std::vector<std::atomic<int>> hits(40);
            loop.run(3, hits.size(), [&](size_t k, int) { hits[k].fetch_add(1); });
            for (auto& h : hits)
                bad += h.load() != 1;
        }
        // a helper of the child's own must run beside the caller
        const bool side_by_side = two_ran_side_by_side(loop);
        _exit(bad == 0 && side_by_side && loop.threads_started() == 2 ? 0 : 1);
    }
    int status = 0;
    pid_t done = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while ((done = waitpid(child, &status, WNOHANG)) == 0 &&
           std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (done == 0) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
        FAIL() << "the child hung in its loop";
    }
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    // the parent's team is still there and works
    std::atomic<size_t> sum{ 0 };
    loop.run(3, 16, [&](size_t k, int) { sum.fetch_add(k); });
    EXPECT_EQ(sum.load(), size_t(120));
    EXPECT_EQ(loop.threads_started(), 2);
#endif
}

} // namespace
