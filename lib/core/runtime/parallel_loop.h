/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_PARALLEL_LOOP_H
#define INCLUDED_BSID_CORE_PARALLEL_LOOP_H

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace bsid::detail {

/*!
 * \brief A loop over the frames of a batch on several host threads, which
 * sleep between loops and which a forked child does not wait for.
 *
 * Every CPU loop over a batch's frames runs here (docs/design.md, "The
 * host's threads"). They were OpenMP loops, and libgomp's thread pool hangs a
 * child made by fork() (Python's multiprocessing on Linux) at its first
 * loop when the parent had run one, since it waits for the parent's threads;
 * its idle threads also spin for a while after each loop, and
 * ThreadSanitizer cannot see its synchronization. Here the threads block on
 * a condition variable between loops; waking them costs tens of
 * microseconds, which the caller does not wait for: it takes indices itself,
 * and a helper that wakes after the last index was taken does not join.
 *
 * run() hands out the indices one at a time (dynamic scheduling) to the
 * caller's thread and up to threads - 1 others. Its threads are kept between
 * calls in teams; concurrent calls each take a team of their own (a new one
 * when every team is busy), as OpenMP gives each calling thread its own. A
 * child process made by fork() (which has none of the parent's threads)
 * starts teams of its own. All members are safe to call from any thread.
 */
class parallel_loop
{
public:
    //! body(k, worker): index k in [0, count), run by worker in [0, threads).
    using body_type = std::function<void(size_t k, int worker)>;

    parallel_loop();
    ~parallel_loop(); // joins the threads (no run() may be in progress)
    parallel_loop(const parallel_loop&) = delete;
    parallel_loop& operator=(const parallel_loop&) = delete;

    /*!
     * Runs body(k, worker) once for every k in [0, count) and returns when all
     * are done; worker 0 is the calling thread. At most min(threads, count)
     * workers take part. body must not throw (a decoder catches a frame's
     * failure and makes it the frame's result). A thread that cannot be
     * started leaves its share to the others: at worst the caller runs the
     * whole loop.
     */
    void run(int threads, size_t count, const body_type& body) noexcept;

    //! Threads started so far, over all teams (for tests).
    int threads_started() const;

    /*!
     * The process's loop, which the CPU decoders share (its threads are
     * never stopped: they sleep while no loop runs, and end with the process).
     */
    static parallel_loop& shared();

private:
    class team;
    std::unique_ptr<team> acquire() noexcept;
    void release(std::unique_ptr<team> t) noexcept;

    mutable std::mutex d_mutex;
    std::vector<std::unique_ptr<team>> d_idle; // teams no run() holds
    int d_started = 0;
    long d_pid; // the process the teams' threads belong to
};

} // namespace bsid::detail

#endif /* INCLUDED_BSID_CORE_PARALLEL_LOOP_H */
