/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/parallel_loop.h"
#include <condition_variable>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>

namespace bsid::detail {

/*
 * A team: helper threads 1, 2, ... that sleep until a loop starts (a new
 * generation), join it if it is still open, take indices from the shared
 * counter until none are left, and report that they are done. The caller
 * takes indices too, and when none are left closes the loop: a helper that
 * wakes after that does not join, so the caller waits only for the helpers
 * still running an index, never for a thread's wake-up. Only one run() uses
 * a team at a time.
 */
class parallel_loop::team
{
public:
    ~team()
    {
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_stop = true;
        }
        d_start.notify_all();
        for (auto& t : d_threads)
            t.join();
    }

    // Starts helpers until there are `want` of them (or starting one fails);
    // returns how many were started.
    int grow(int want) noexcept
    {
        int started = 0;
        while (int(d_threads.size()) < want) {
            const int id = int(d_threads.size()) + 1;
            try {
                d_threads.emplace_back([this, id] { serve(id); });
            } catch (...) { // std::system_error (no more threads) or bad_alloc
                break;
            }
            ++started;
        }
        return started;
    }

    // The loop on the caller's thread and helpers 1..helpers (at most the
    // team's threads); returns when every index is done.
    void run(int helpers, size_t count, const body_type& body) noexcept
    {
        helpers = std::min(helpers, int(d_threads.size()));
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_body = &body;
            d_count = count;
            d_next.store(0, std::memory_order_relaxed);
            d_helpers = helpers;
            d_open = true;
            ++d_generation;
        }
        if (helpers > 0)
            d_start.notify_all();
        drain(0);
        std::unique_lock<std::mutex> lock(d_mutex);
        d_open = false; // every index is taken: no helper joins from now on
        d_done.wait(lock, [this] { return d_joined == 0; });
        d_body = nullptr;
    }

private:
    void drain(int worker) noexcept
    {
        for (;;) {
            const size_t k = d_next.fetch_add(1, std::memory_order_relaxed);
            if (k >= d_count)
                return;
            (*d_body)(k, worker);
        }
    }

    void serve(int id) noexcept
    {
        uint64_t seen = 0;
        std::unique_lock<std::mutex> lock(d_mutex);
        for (;;) {
            d_start.wait(lock, [&] { return d_stop || d_generation != seen; });
            if (d_stop)
                return;
            seen = d_generation;
            if (!d_open || id > d_helpers)
                continue; // not needed for this loop, or it is done
            ++d_joined;
            lock.unlock();
            drain(id);
            lock.lock();
            if (--d_joined == 0 && !d_open)
                d_done.notify_one();
        }
    }

    std::mutex d_mutex;
    std::condition_variable d_start, d_done;
    std::vector<std::thread> d_threads;
    // the loop: set with d_mutex held before a generation starts, read by the
    // helpers that join it
    const body_type* d_body = nullptr;
    size_t d_count = 0;
    std::atomic<size_t> d_next{ 0 };
    int d_helpers = 0;   // helpers 1..d_helpers may join this loop
    bool d_open = false; // helpers may still join (indices may be left)
    int d_joined = 0;    // helpers running this loop's indices
    uint64_t d_generation = 0;
    bool d_stop = false;
};

parallel_loop::parallel_loop() : d_pid(long(getpid())) {}
parallel_loop::~parallel_loop() = default;

parallel_loop& parallel_loop::shared()
{
    // never destroyed: a loop may still run on another thread while the
    // process exits
    static parallel_loop* const loop = new parallel_loop();
    return *loop;
}

std::unique_ptr<parallel_loop::team> parallel_loop::acquire() noexcept
{
    try {
        std::lock_guard<std::mutex> lock(d_mutex);
        const long pid = long(getpid());
        if (pid != d_pid) {
            // a child made by fork(): the teams' threads are the parent's and
            // do not exist here, so the teams are dropped without a join
            for (auto& t : d_idle)
                static_cast<void>(t.release());
            d_idle.clear();
            d_started = 0;
            d_pid = pid;
        }
        if (!d_idle.empty()) {
            auto t = std::move(d_idle.back());
            d_idle.pop_back();
            return t;
        }
    } catch (...) { // the lock failed
        return nullptr;
    }
    try {
        return std::make_unique<team>();
    } catch (...) {
        return nullptr;
    }
}

void parallel_loop::release(std::unique_ptr<team> t) noexcept
{
    try {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_idle.push_back(std::move(t));
    } catch (...) {
        // the team is stopped and freed instead of kept
    }
}

void parallel_loop::run(int threads, size_t count, const body_type& body) noexcept
{
    const int helpers = int(std::min<size_t>(size_t(std::max(threads, 1)), count)) - 1;
    // one worker, or no memory for a team: the caller alone
    auto t = helpers > 0 ? acquire() : nullptr;
    if (!t) {
        for (size_t k = 0; k < count; ++k)
            body(k, 0);
        return;
    }
    const int started = t->grow(helpers);
    if (started > 0) {
        try {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_started += started;
        } catch (...) {
        }
    }
    t->run(helpers, count, body);
    release(std::move(t));
}

int parallel_loop::threads_started() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_started;
}

} // namespace bsid::detail
