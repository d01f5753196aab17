/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_APPS_BENCH_STREAM_H
#define INCLUDED_BSID_APPS_BENCH_STREAM_H

#include <map>
#include <string>

namespace bench {

/*
 * bsid_bench --bench decode --framing stream: many independent streams
 * (frames back to back through one channel each) decoded by stream_batch,
 * and the same frames decoded between their true boundaries (genie framing)
 * in the same run; one JSON line per configuration.
 */
int bench_stream(const std::map<std::string, std::string>& opt);

} // namespace bench

#endif /* INCLUDED_BSID_APPS_BENCH_STREAM_H */
