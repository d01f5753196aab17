/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/format.h"
#include <gnuradio/bsid/core/runtime/frame_batcher.h>
#include <cmath>
#include <stdexcept>

namespace bsid {

frame_batcher::frame_batcher(const batcher_options& opt) : d_opt(opt)
{
    if (opt.max_batch < 1) {
        throw std::invalid_argument(detail::concat(
            "frame_batcher: max_batch = ", opt.max_batch, " must be at least 1"));
    }
    if (!(opt.max_delay_ms >= 0) || std::isinf(opt.max_delay_ms)) {
        throw std::invalid_argument(
            detail::concat("frame_batcher: max_delay_ms = ",
                           detail::fmt_double(opt.max_delay_ms),
                           " must be a finite number of milliseconds, at least 0"));
    }
    d_decoder = std::thread([this] { decode_ready(); });
    try {
        d_collector = std::thread([this] { collect(); });
    } catch (...) {
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_collected = true;
        }
        d_handoff.notify_all();
        d_decoder.join();
        throw;
    }
}

frame_batcher::~frame_batcher()
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_flush_until = d_next;
        d_stop = true;
    }
    d_work.notify_all();
    d_collector.join(); // every frame prepared,
    d_decoder.join();   // then decoded
}

uint64_t frame_batcher::push(batched_frame frame, std::shared_ptr<frame_decoder> dec)
{
    if (!dec)
        throw std::invalid_argument("frame_batcher: push needs a decoder");
    uint64_t seq = 0;
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        seq = d_next++;
        d_pending.push_back({ seq, std::move(frame), std::move(dec), clock::now() });
    }
    d_work.notify_one();
    return seq;
}

void frame_batcher::flush()
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_flush_until = d_next;
    }
    d_work.notify_one();
}

void frame_batcher::recycle(std::vector<double>&& posteriors)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (d_spare.size() < size_t(4 * d_opt.max_batch))
        d_spare.push_back(std::move(posteriors));
}

std::vector<batched_result> frame_batcher::take(double wait_ms)
{
    std::unique_lock<std::mutex> lock(d_mutex);
    if (wait_ms > 0 && d_ready.empty() && d_taken < d_next) {
        d_done.wait_for(lock, std::chrono::duration<double, std::milli>(wait_ms), [this] {
            return !d_ready.empty();
        });
    }
    std::vector<batched_result> out;
    out.reserve(d_ready.size());
    while (!d_ready.empty()) {
        out.push_back(std::move(d_ready.front()));
        d_ready.pop_front();
    }
    d_taken += out.size();
    return out;
}

uint64_t frame_batcher::outstanding() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_next - d_taken;
}

uint64_t frame_batcher::batches() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_batches;
}

uint64_t frame_batcher::frames() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_frames;
}

double frame_batcher::mean_batch() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_batches ? double(d_frames) / double(d_batches) : 0.0;
}

std::vector<frame_result> frame_batcher::decode(frame_decoder& dec,
                                                const std::vector<frame_view>& views,
                                                const std::vector<double*>& outs)
{
    const size_t K = views.size();
    try {
        return dec.decode_batch(views, outs);
    } catch (const std::invalid_argument& e) {
        if (K == 1)
            return { { frame_status::invalid_input, e.what() } };
        // decode_batch checks every frame's priors before it decodes any:
        // one refused frame fails the batch, so each frame is decoded alone
    } catch (const std::exception& e) {
        return std::vector<frame_result>(
            K,
            { frame_status::decoder_error,
              std::string("the batch failed: ") + e.what() });
    } catch (...) {
        return std::vector<frame_result>(
            K, { frame_status::decoder_error, "the batch failed" });
    }
    std::vector<frame_result> r(K);
    for (size_t k = 0; k < K; ++k)
        r[k] = decode(dec, { views[k] }, { outs[k] })[0];
    return r;
}

bool frame_batcher::due(clock::time_point now) const
{
    if (d_pending.empty())
        return false;
    if (d_pending.front().sequence < d_flush_until)
        return true;
    // a full batch of frames for one decoder, or a frame of another decoder
    // behind the first one's (that batch cannot grow any more)
    const auto& dec = d_pending.front().dec;
    size_t same = 0;
    for (const auto& e : d_pending) {
        if (e.dec != dec)
            return true;
        if (++same >= size_t(d_opt.max_batch))
            return true;
    }
    return now - d_pending.front().arrived >=
           std::chrono::duration<double, std::milli>(d_opt.max_delay_ms);
}

void frame_batcher::collect()
{
    std::unique_lock<std::mutex> lock(d_mutex);
    while (true) {
        // wait until the front batch is due (or the front frame's deadline)
        while (!due(clock::now())) {
            if (d_stop && d_pending.empty()) {
                d_collected = true;
                d_handoff.notify_all();
                return;
            }
            if (d_pending.empty()) {
                d_work.wait(lock);
            } else {
                const auto deadline =
                    d_pending.front().arrived +
                    std::chrono::duration_cast<clock::duration>(
                        std::chrono::duration<double, std::milli>(d_opt.max_delay_ms));
                d_work.wait_until(lock, deadline);
            }
        }
        // the batch: consecutive frames of one decoder, up to max_batch
        auto b = std::make_unique<ready_batch>();
        b->dec = d_pending.front().dec;
        while (!d_pending.empty() && d_pending.front().dec == b->dec &&
               b->frames.size() < size_t(d_opt.max_batch)) {
            b->frames.push_back(std::move(d_pending.front()));
            d_pending.pop_front();
        }
        // recycled buffers of the right size for it (the others are dropped)
        const size_t NQ = size_t(b->dec->N()) * size_t(b->dec->q());
        std::vector<std::vector<double>> spare;
        while (spare.size() < b->frames.size() && !d_spare.empty()) {
            if (d_spare.back().size() == NQ)
                spare.push_back(std::move(d_spare.back()));
            d_spare.pop_back();
        }
        lock.unlock();
        prepare(*b, std::move(spare)); // while the decoder thread decodes the last batch
        lock.lock();
        // one prepared batch at a time: the next one forms while this one decodes
        d_handoff.wait(lock, [this] { return !d_prepared; });
        d_prepared = std::move(b);
        d_handoff.notify_all();
    }
}

namespace {

// a frame the batcher could not decode for want of host memory (noexcept:
// its reason is left empty if even that cannot be allocated)
void out_of_memory(batched_result& r, const char* why) noexcept
{
    r.result.status = frame_status::decoder_error;
    try {
        r.result.reason = why;
    } catch (...) {
        r.result.reason.clear();
    }
}

} // namespace

void frame_batcher::prepare(ready_batch& b,
                            std::vector<std::vector<double>>&& spare) const
{
    const size_t K = b.frames.size();
    const size_t NQ = size_t(b.dec->N()) * size_t(b.dec->q());
    const double uniform = 1.0 / double(b.dec->q());
    b.results.resize(K);
    for (size_t k = 0; k < K; ++k) {
        batched_result& r = b.results[k];
        r.sequence = b.frames[k].sequence;
        // a recycled buffer as it is (the decoder writes every value of each,
        // uniform rows for a frame it refuses); a fresh one written here, off
        // the decoder thread, so that its pages are in place
        if (!spare.empty()) {
            r.posteriors = std::move(spare.back());
            spare.pop_back();
        } else {
            try {
                r.posteriors.assign(NQ, uniform);
            } catch (const std::bad_alloc&) {
                out_of_memory(r, "the host is out of memory for its posteriors");
                continue;
            }
        }
        const batched_frame& f = b.frames[k].frame;
        if (!f.log_priors.empty() && f.log_priors.size() != NQ) {
            r.result = {
                frame_status::invalid_input,
                detail::concat(
                    "log_priors has ", f.log_priors.size(), " values, not N q = ", NQ)
            };
            std::fill(r.posteriors.begin(), r.posteriors.end(), uniform);
        }
    }
}

void frame_batcher::decode_ready()
{
    std::unique_lock<std::mutex> lock(d_mutex);
    while (true) {
        d_handoff.wait(lock, [this] { return d_prepared || d_collected; });
        if (!d_prepared)
            return; // the collector has ended, and every batch is decoded
        std::unique_ptr<ready_batch> b = std::move(d_prepared);
        d_handoff.notify_all(); // the collector may hand over the next one
        lock.unlock();

        const size_t K = b->frames.size();
        const double uniform = 1.0 / double(b->dec->q());
        try {
            decode_batch_of(*b);
        } catch (...) {
            // out of host memory for the batch's views (decode() catches the
            // decoder's own exceptions): its frames are decoder_error results
            for (auto& r : b->results) {
                if (!r.result.ok())
                    continue;
                out_of_memory(r, "the batch failed (out of host memory)");
                std::fill(r.posteriors.begin(), r.posteriors.end(), uniform);
            }
        }
        for (size_t k = 0; k < K; ++k)
            b->results[k].frame = std::move(b->frames[k].frame);

        lock.lock();
        for (auto& x : b->results)
            d_ready.push_back(std::move(x));
        ++d_batches;
        d_frames += K;
        d_done.notify_all();
    }
}

void frame_batcher::decode_batch_of(ready_batch& b)
{
    const size_t K = b.frames.size();
    const double uniform = 1.0 / double(b.dec->q());
    std::vector<frame_view> views;
    std::vector<double*> outs;
    std::vector<size_t> which; // the batch's frames the decoder is given
    for (size_t k = 0; k < K; ++k) {
        if (!b.results[k].result.ok())
            continue; // refused by prepare()
        const batched_frame& f = b.frames[k].frame;
        frame_view v;
        const size_t A = size_t(b.dec->config().ch.alphabet());
        if (f.soft && A > 2) { // A log-probabilities an item
            v.logprob = f.llr.data();
            v.rho = f.llr.size() / A;
        } else if (f.soft) {
            v.llr = f.llr.data();
            v.rho = f.llr.size();
        } else {
            v.bits = f.bits.data();
            v.rho = f.bits.size();
        }
        if (!f.log_priors.empty()) {
            v.priors = f.log_priors.data();
            v.log_priors = true;
        }
        v.extrinsic = f.extrinsic;
        views.push_back(v);
        outs.push_back(b.results[k].posteriors.data());
        which.push_back(k);
    }
    if (views.empty())
        return;
    const auto r = decode(*b.dec, views, outs);
    for (size_t j = 0; j < which.size(); ++j) {
        batched_result& res = b.results[which[j]];
        res.result = r[j];
        if (!r[j].ok()) // a frame refused by an exception may be half written
            std::fill(res.posteriors.begin(), res.posteriors.end(), uniform);
    }
}

} // namespace bsid
