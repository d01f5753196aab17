/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_APPS_BENCH_READS_H
#define INCLUDED_BSID_APPS_BENCH_READS_H

#include <map>
#include <string>

namespace bench {

/*
 * bsid_bench --bench decode --reads L: frames decoded from several reads
 * (bsid::reads_decoder, docs/reads.md), each read the frame through its own
 * realization of the channel: frames (clusters) per second, their symbol
 * and frame error rates against the sent messages, the combiner's rounds;
 * one JSON line per configuration.
 */
int bench_reads(const std::map<std::string, std::string>& opt);

} // namespace bench

#endif /* INCLUDED_BSID_APPS_BENCH_READS_H */
