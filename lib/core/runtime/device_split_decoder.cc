/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One decoder over several devices: the batch split by received bits, one
// host thread per device (docs/design.md section 5, "Several GPUs").

#include "runtime/device_split_decoder.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/runtime/log.h>
#include <condition_variable>
#include <omp.h>
#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace bsid {

std::vector<index_range> plan_device_split(const std::vector<size_t>& rho, int devices)
{
    if (devices < 1) {
        throw std::invalid_argument(
            detail::concat("plan_device_split: devices = ", devices, " must be >= 1"));
    }
    const size_t F = rho.size(), D = size_t(devices);
    // running totals in long double: exact for any realistic batch
    std::vector<long double> prefix(F + 1, 0.0L);
    for (size_t i = 0; i < F; ++i)
        prefix[i + 1] = prefix[i] + (long double)rho[i];
    const long double total = prefix[F];
    std::vector<index_range> out(D);
    size_t begin = 0;
    for (size_t k = 1; k <= D; ++k) {
        size_t end = F;
        if (k < D) {
            if (total == 0) {
                end = F * k / D; // no work anywhere: by count
            } else {
                // the cut whose running total is nearest k / D of the whole;
                // the distance falls then rises with the cut, so walk forward
                // from the previous cut while the next is no farther (ties:
                // the later cut)
                const long double target = total * (long double)k / (long double)D;
                auto dist = [&](size_t i) {
                    const long double d = prefix[i] - target;
                    return d < 0 ? -d : d;
                };
                end = begin;
                while (end < F && dist(end + 1) <= dist(end))
                    ++end;
            }
        }
        out[k - 1] = { begin, end };
        begin = end;
    }
    return out;
}

namespace {

decoder_config checked_config(const decoder_config& cfg,
                              const std::vector<std::unique_ptr<map_decoder>>& parts)
{
    if (parts.empty()) {
        throw std::invalid_argument(
            "device_split_decoder: parts is empty; at least one decoder is needed");
    }
    for (size_t k = 0; k < parts.size(); ++k) {
        if (!parts[k]) {
            throw std::invalid_argument(
                detail::concat("device_split_decoder: parts[", k, "] is null"));
        }
    }
    const map_decoder& first = *parts[0];
    decoder_config c = cfg;
    c.mtau = first.limits().mtau; // the parts' own limits, not computed again
    c.mn = first.limits().mn;
    if (cfg.N != first.N() || cfg.cb.q() != first.q() || cfg.cb.n() != first.n() ||
        cfg.precision != first.precision()) {
        throw std::invalid_argument(
            "device_split_decoder: the configuration does not match parts[0] "
            "(N, q, n and precision must be equal)");
    }
    for (size_t k = 1; k < parts.size(); ++k) {
        const map_decoder& p = *parts[k];
        if (p.N() != first.N() || p.q() != first.q() || p.n() != first.n() ||
            p.precision() != first.precision() ||
            !(p.limits().mtau == first.limits().mtau) ||
            !(p.limits().mn == first.limits().mn)) {
            throw std::invalid_argument(detail::concat(
                "device_split_decoder: parts[",
                k,
                "] differs from parts[0] (N, q, n, precision and limits must be equal)"));
        }
    }
    return c;
}

} // namespace

struct device_split_decoder::impl {
    std::vector<std::unique_ptr<map_decoder>> parts;
    std::vector<int> threads; // OpenMP threads of each part's host thread
    std::vector<std::thread> workers;
    std::mutex batch; // one batch (or decode) at a time
    // the job the workers run: job(k) for every k with active[k]
    std::mutex m;
    std::condition_variable job_cv, done_cv;
    std::function<void(size_t)> job;
    std::vector<char> active;
    uint64_t generation = 0;
    int pending = 0;
    bool stop = false;

    void loop(size_t k)
    {
        // this thread's OpenMP teams (a part's host copies, its CPU
        // fallback) hold its share of the host's cores
        omp_set_num_threads(threads[k]);
        uint64_t seen = 0;
        std::unique_lock<std::mutex> lock(m);
        while (true) {
            job_cv.wait(lock, [&] { return stop || generation != seen; });
            if (stop)
                return;
            seen = generation;
            if (!active[k])
                continue;
            lock.unlock();
            job(k); // never throws (decode_batch's job catches everything)
            lock.lock();
            if (--pending == 0)
                done_cv.notify_all();
        }
    }

    // runs job(k) for each active part on its thread; returns when all are done
    void run(const std::vector<char>& which, std::function<void(size_t)> fn)
    {
        std::unique_lock<std::mutex> lock(m);
        job = std::move(fn);
        active = which;
        pending = int(std::count(which.begin(), which.end(), 1));
        if (pending == 0)
            return;
        ++generation;
        job_cv.notify_all();
        done_cv.wait(lock, [&] { return pending == 0; });
    }
};

namespace {

// Adds a part's stage times to `into` and clears them in the part.
void take_profile(map_decoder& part, stage_times& into)
{
    const stage_times t = part.profile();
    part.reset_profile();
    into.gamma += t.gamma;
    into.alpha += t.alpha;
    into.beta += t.beta;
    into.L += t.L;
}

} // namespace

device_split_decoder::device_split_decoder(
    const decoder_config& cfg, std::vector<std::unique_ptr<map_decoder>> parts)
    : map_decoder(checked_config(cfg, parts)), d_impl(std::make_unique<impl>())
{
    if (!(d_limits.mtau == parts[0]->limits().mtau) ||
        !(d_limits.mn == parts[0]->limits().mn)) {
        throw std::invalid_argument(
            "device_split_decoder: the configuration's limits differ from parts[0]'s");
    }
    d_impl->parts = std::move(parts);
    for (const auto& p : d_impl->parts)
        d_impl->threads.push_back(resolve_threads(p->config().threads));
    d_impl->active.assign(d_impl->parts.size(), 0);
    try {
        for (size_t k = 0; k < d_impl->parts.size(); ++k)
            d_impl->workers.emplace_back([this, k] { d_impl->loop(k); });
    } catch (...) {
        {
            std::lock_guard<std::mutex> g(d_impl->m);
            d_impl->stop = true;
        }
        d_impl->job_cv.notify_all();
        for (auto& w : d_impl->workers)
            w.join();
        throw;
    }
}

device_split_decoder::~device_split_decoder()
{
    {
        std::lock_guard<std::mutex> g(d_impl->m);
        d_impl->stop = true;
    }
    d_impl->job_cv.notify_all();
    for (auto& w : d_impl->workers)
        if (w.joinable())
            w.join();
    // each part frees its buffers on its own device (its destructor selects it)
}

size_t device_split_decoder::parts() const { return d_impl->parts.size(); }

map_decoder& device_split_decoder::part(size_t k) { return *d_impl->parts.at(k); }

backend_kind device_split_decoder::backend() const { return d_impl->parts[0]->backend(); }

storage_kind device_split_decoder::storage() const { return d_impl->parts[0]->storage(); }

bool device_split_decoder::wide_frames_in_parts() const
{
    return d_impl->parts[0]->wide_frames_in_parts();
}

size_t device_split_decoder::peak_device_bytes() const
{
    size_t peak = 0;
    for (const auto& p : d_impl->parts)
        peak = std::max(peak, p->peak_device_bytes());
    return peak;
}

frame_result device_split_decoder::decode(const frame_view& frame, double* post)
{
    std::lock_guard<std::mutex> lock(d_impl->batch);
    map_decoder& p = *d_impl->parts[0];
    p.set_profiling(d_profiling);
    const frame_result r = p.decode(frame, post);
    if (d_profiling)
        take_profile(p, d_times);
    return r;
}

std::vector<frame_result>
device_split_decoder::decode_batch(const std::vector<frame_view>& frames,
                                   const std::vector<double*>& post)
{
    if (post.size() != frames.size()) {
        throw std::invalid_argument(detail::concat("decode_batch: ",
                                                   frames.size(),
                                                   " frames but ",
                                                   post.size(),
                                                   " output buffers; one per frame is "
                                                   "needed"));
    }
    for (const auto& f : frames) {
        if (f.priors)
            validate_priors(f.priors, f.log_priors); // raises before any work
    }
    std::vector<frame_result> results(frames.size());
    if (frames.empty())
        return results;
    std::vector<size_t> rho(frames.size());
    for (size_t k = 0; k < frames.size(); ++k)
        rho[k] = frames[k].rho;
    const size_t P = d_impl->parts.size();
    const std::vector<index_range> ranges = plan_device_split(rho, int(P));

    std::lock_guard<std::mutex> lock(d_impl->batch);
    std::vector<std::exception_ptr> refused(P);
    std::vector<char> which(P, 0);
    for (size_t k = 0; k < P; ++k) {
        which[k] = ranges[k].size() > 0;
        d_impl->parts[k]->set_profiling(d_profiling);
    }
    auto fail = [&](size_t k, const std::string& what) noexcept {
        try {
            log(log_level::error,
                detail::concat("map_decoder: the decoder of part ",
                               k,
                               " failed on ",
                               ranges[k].size(),
                               " frames: ",
                               what));
            for (size_t j = ranges[k].begin; j < ranges[k].end; ++j) {
                fill_uniform(post[j]);
                write_boundary_metrics(frames[j], nullptr, nullptr, nullptr);
                write_no_evidence(frames[j]);
                clear_events(frames[j], alphabet());
                results[j] = { frame_status::decoder_error,
                               "the decoder failed on the frame: " + what };
            }
        } catch (...) {
        }
    };
    d_impl->run(which, [&](size_t k) noexcept {
        const index_range r = ranges[k];
        try {
            const std::vector<frame_view> f(frames.begin() + long(r.begin),
                                            frames.begin() + long(r.end));
            const std::vector<double*> p(post.begin() + long(r.begin),
                                         post.begin() + long(r.end));
            const auto got = d_impl->parts[k]->decode_batch(f, p);
            std::copy(got.begin(), got.end(), results.begin() + long(r.begin));
        } catch (const std::invalid_argument&) {
            refused[k] = std::current_exception();
        } catch (const std::exception& e) {
            fail(k, e.what());
        } catch (...) {
            fail(k, "unknown error");
        }
    });
    if (d_profiling) {
        for (auto& part : d_impl->parts)
            take_profile(*part, d_times);
    }
    for (const auto& e : refused) {
        if (e)
            std::rethrow_exception(e);
    }
    return results;
}

} // namespace bsid
