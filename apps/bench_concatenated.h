/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_APPS_BENCH_CONCATENATED_H
#define INCLUDED_BSID_APPS_BENCH_CONCATENATED_H

#include <map>
#include <string>

namespace bench {

/*
 * bsid_bench --bench concatenated: the iterative decoder of a concatenated
 * scheme (docs/concatenated.md) on one batch of simulated frames, per
 * backend, inner precision and loop (device or host): frames/s, information
 * Mbit/s, frame errors, mean passes and BP iterations, and the time of one
 * inner pass over the same frames; one JSON line per configuration.
 */
int bench_concatenated(const std::map<std::string, std::string>& opt);

} // namespace bench

#endif /* INCLUDED_BSID_APPS_BENCH_CONCATENATED_H */
