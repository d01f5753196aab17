/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "memory_planner.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/runtime/log.h>

namespace bsid {
namespace cuda {

memory_planner::memory_planner(const memory_model& base,
                               size_t events_scratch,
                               int local_cap)
    : d_base(base), d_events_scratch(events_scratch), d_local_cap(local_cap)
{
}

storage_kind
memory_planner::choose_storage(storage_kind asked, size_t tau, size_t free_bytes)
{
    const size_t fixed = d_base.per_frame(tau);
    const size_t per_index = d_base.per_index();
    const bool global_fits =
        fixed + per_index * size_t(d_base.N) + d_base.general_scratch <=
        free_bytes / 10 * 8;
    if (asked == storage_kind::automatic) {
        d_storage = global_fits ? storage_kind::global : storage_kind::local;
    } else {
        d_storage = asked;
    }
    return d_storage;
}

chunk_memory memory_planner::chunk(const std::vector<frame_view>& frames,
                                   const std::vector<size_t>& todo,
                                   size_t pos,
                                   size_t count) const
{
    chunk_memory c{ d_base, std::vector<size_t>(count) };
    memory_model& m = c.m;
    for (size_t j = 0; j < count; ++j) {
        const frame_view& fv = frames[todo[pos + j]];
        c.rho[j] = fv.rho;
        m.soft = m.soft || fv.llr != nullptr || fv.logprob != nullptr;
        m.events = m.events || fv.events != nullptr;
        m.items = m.items || (fv.events && fv.item_posteriors);
    }
    m.events_scratch = d_events_scratch;
    return c;
}

size_t memory_planner::window_in_cache(const chunk_memory& c, size_t cached) const
{
    return plan_window_in_cache(c.m, c.rho, cached, d_storage, d_local_cap);
}

size_t memory_planner::window(const chunk_memory& c, size_t usable)
{
    bool fell_back = false;
    const size_t W = plan_window(c.m, c.rho, usable, d_storage, d_local_cap, &fell_back);
    if (fell_back && W >= 1 && !d_warned_global) {
        d_warned_global = true;
        const size_t count = c.rho.size();
        log(log_level::warning,
            detail::concat("map_decoder(cuda): global storage needs ",
                           (d_base.per_index() * count * size_t(d_base.N)) >> 20,
                           " MiB for ",
                           count,
                           " frames, more than the device has free; falling back to "
                           "local storage"));
    }
    return W;
}

} // namespace cuda
} // namespace bsid
