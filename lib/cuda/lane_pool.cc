/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "lane_pool.h"
#include <system_error>

namespace bsid {
namespace cuda {

lane_pool::lane_pool(int lanes) : d_threads(size_t(lanes > 1 ? lanes : 1)) {}

lane_pool::~lane_pool() { stop(); }

void lane_pool::run(int used, const std::function<void(int)>& job)
{
    if (used <= 1) {
        job(0);
        return;
    }
    if (used > int(d_threads.size()))
        used = int(d_threads.size());
    int lanes = 1;
    for (; lanes < used; ++lanes) {
        std::thread& t = d_threads[size_t(lanes)];
        if (t.joinable())
            continue;
        try {
            uint64_t seen;
            {
                std::lock_guard<std::mutex> g(d_mutex);
                seen = d_generation; // before this job is posted
            }
            t = std::thread([this, l = lanes, seen] { loop(l, seen); });
        } catch (const std::system_error&) {
            break;
        }
    }
    {
        std::lock_guard<std::mutex> g(d_mutex);
        d_job = &job;
        d_job_lanes = lanes;
        d_pending = lanes - 1;
        ++d_generation;
    }
    d_job_cv.notify_all();
    job(0);
    std::unique_lock<std::mutex> g(d_mutex);
    d_done_cv.wait(g, [&] { return d_pending == 0; });
    d_job = nullptr;
}

void lane_pool::loop(int l, uint64_t seen)
{
    std::unique_lock<std::mutex> g(d_mutex);
    while (true) {
        d_job_cv.wait(g, [&] { return d_stop || d_generation != seen; });
        if (d_stop)
            return;
        seen = d_generation;
        if (l >= d_job_lanes)
            continue; // not one of this job's lanes
        const std::function<void(int)>* job = d_job;
        g.unlock();
        (*job)(l);
        g.lock();
        if (--d_pending == 0)
            d_done_cv.notify_all();
    }
}

void lane_pool::stop()
{
    {
        std::lock_guard<std::mutex> g(d_mutex);
        d_stop = true;
    }
    d_job_cv.notify_all();
    for (auto& t : d_threads)
        if (t.joinable())
            t.join();
}

int lane_pool::started() const
{
    int n = 0;
    for (const auto& t : d_threads)
        n += t.joinable() ? 1 : 0;
    return n;
}

} // namespace cuda
} // namespace bsid
