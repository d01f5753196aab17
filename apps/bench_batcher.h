/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_APPS_BENCH_BATCHER_H
#define INCLUDED_BSID_APPS_BENCH_BATCHER_H

#include <map>
#include <string>

namespace bench {

/*
 * bsid_bench --bench batcher: the frame batcher fed one frame at a time by a
 * fast source (as a receiver block would), against decode_batch of batches of
 * max_batch frames on the same decoder: frames/s of each, their ratio and the
 * batcher's mean batch; one JSON line per configuration.
 */
int bench_batcher(const std::map<std::string, std::string>& opt);

} // namespace bench

#endif /* INCLUDED_BSID_APPS_BENCH_BATCHER_H */
