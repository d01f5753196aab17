/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_APPS_BENCH_ESTIMATE_H
#define INCLUDED_BSID_APPS_BENCH_ESTIMATE_H

#include <map>
#include <string>

namespace bench {

/*
 * bsid_bench --bench estimate: channel estimation (bsid::estimate_channel)
 * on frames sent through a known channel, from an initial point: the
 * estimate, its relative errors, the iterations and the time; one JSON line
 * per configuration.
 */
int bench_estimate(const std::map<std::string, std::string>& opt);

} // namespace bench

#endif /* INCLUDED_BSID_APPS_BENCH_ESTIMATE_H */
