/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/format.h"
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/sim/frame_source.h>
#include <gnuradio/bsid/core/sim/information_rate.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace bsid {

information_rate_result information_rate(const decoder_config& cfg,
                                         const information_rate_options& opt)
{
    if (opt.frames < 2)
        throw std::invalid_argument(detail::concat(
            "information_rate: frames must be at least 2 (for an interval), got ",
            opt.frames));
    if (opt.batch == 0)
        throw std::invalid_argument("information_rate: batch must be at least 1");
    if (opt.frames >= frame_source::max_frames)
        throw std::invalid_argument(detail::concat(
            "information_rate: frames must be below 2^62, got ", opt.frames));

    frame_source source(cfg.cb, cfg.ch, cfg.N, opt.seed);
    frame_decoder dec(cfg);
    const int N = cfg.N, q = cfg.cb.q();
    const double nbits = double(N) * double(cfg.cb.n()) * std::log(2.0);
    const double minus_inf = -std::numeric_limits<double>::infinity();

    information_rate_result out;
    out.samples.reserve(opt.frames);
    frame_batch batch;
    std::vector<double> certain; // each frame's log-priors: 0 for the sent symbol
    std::vector<frame_request> requests;
    for (size_t first = 0; first < opt.frames; first += opt.batch) {
        const size_t count = std::min(opt.batch, opt.frames - first);
        source.generate(first, count, batch, opt.threads);
        certain.assign(count * size_t(N) * size_t(q), minus_inf);
        for (size_t k = 0; k < count; ++k)
            for (int i = 0; i < N; ++i)
                certain[(k * size_t(N) + size_t(i)) * size_t(q) +
                        size_t(batch.sent(k)[i])] = 0;

        // the first count requests weigh every message (P(y)), the next
        // count the sent one alone (P(y | x))
        requests.assign(2 * count, frame_request{});
        for (size_t k = 0; k < count; ++k) {
            for (size_t half = 0; half < 2; ++half) {
                frame_request& r = requests[half * count + k];
                r.bits = batch.rx[k].data();
                r.L = batch.rx[k].size();
                if (half == 1) {
                    r.priors = certain.data() + k * size_t(N) * size_t(q);
                    r.log_priors = true;
                }
            }
        }
        const auto got = dec.decode_batch(requests);
        for (size_t k = 0; k < count; ++k) {
            const auto& all = got[k];
            const auto& sent = got[count + k];
            if (!all.result.ok() || !sent.result.ok() ||
                !std::isfinite(sent.log_evidence) || !std::isfinite(all.log_evidence)) {
                ++out.excluded;
                continue;
            }
            out.samples.push_back((sent.log_evidence - all.log_evidence) / nbits);
        }
    }

    const size_t F = out.samples.size();
    out.frames = F;
    if (F == 0)
        throw std::runtime_error(detail::concat(
            "information_rate: all ",
            opt.frames,
            " frames left the decoder's drift limits (raise Pr's margin: a smaller Pr)"));
    double mean = 0;
    for (double s : out.samples)
        mean += s;
    mean /= double(F);
    double var = 0;
    for (double s : out.samples)
        var += (s - mean) * (s - mean);
    const double se = F > 1 ? std::sqrt(var / double(F - 1) / double(F)) : 0.0;
    out.rate = mean;
    out.ci_low = mean - 1.96 * se;
    out.ci_high = mean + 1.96 * se;
    return out;
}

} // namespace bsid
