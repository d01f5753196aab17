/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA decoder's lanes' host threads (host-only C++: built and tested
// without nvcc, as launch_plan is). A batch's chunks are taken by several
// lanes at once so that one lane's host work (checks, gathers, copies)
// overlaps another's kernels; each lane runs on a thread of its own, and so
// on its own default stream (--default-stream=per-thread) and OpenMP team.

#ifndef INCLUDED_BSID_CUDA_LANE_POOL_H
#define INCLUDED_BSID_CUDA_LANE_POOL_H

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace bsid {
namespace cuda {

class lane_pool
{
public:
    //! A pool for lanes 0 .. lanes - 1; no thread is started yet.
    explicit lane_pool(int lanes);
    ~lane_pool(); //!< stop()
    lane_pool(const lane_pool&) = delete;
    lane_pool& operator=(const lane_pool&) = delete;

    /*!
     * Runs job(l) for the lanes l = 0 .. used - 1 at once and returns when
     * all are done: lane 0 on the caller's thread, each other lane on its own
     * thread, started on first use and kept (lane l is always served by the
     * same thread). A lane whose thread cannot be started is left out, with
     * every lane after it. job must not throw. One run at a time.
     */
    void run(int used, const std::function<void(int)>& job);

    //! Ends and joins the threads (a run must not be in progress).
    void stop();

    //! Lanes whose thread has been started (lane 0 has none: the caller's).
    int started() const;

private:
    void loop(int l, uint64_t seen);

    std::vector<std::thread> d_threads; // lane l's thread at l (none for lane 0)
    mutable std::mutex d_mutex;
    std::condition_variable d_job_cv, d_done_cv;
    const std::function<void(int)>* d_job = nullptr;
    uint64_t d_generation = 0; // jobs posted
    int d_job_lanes = 0;       // lanes taking part in the current job
    int d_pending = 0;         // of those, the threads still running it
    bool d_stop = false;
};

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_LANE_POOL_H */
