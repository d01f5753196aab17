/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/format.h"
#include <gnuradio/bsid/core/framing/setup_watch.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <algorithm>
#include <cmath>
#include <cstdio>

namespace bsid {

namespace {

std::string fixed1(double x)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", x);
    return buf;
}

std::string sig2(double x)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2g", x);
    return buf;
}

} // namespace

setup_watch::setup_watch(
    std::string who, long long F, int N, int n, const channel_params& ch)
    : d_who(std::move(who)), d_F(F), d_N(N), d_n(n)
{
    set_channel(ch);
}

setup_watch::setup_watch(const setup_watch& other) { *this = other; }

setup_watch& setup_watch::operator=(const setup_watch& other)
{
    if (this == &other)
        return *this;
    std::scoped_lock lock(d_mutex, other.d_mutex);
    d_who = other.d_who;
    d_F = other.d_F;
    d_N = other.d_N;
    d_n = other.d_n;
    d_mean = other.d_mean;
    d_sd = other.d_sd;
    d_drifts = other.d_drifts;
    d_llrs = other.d_llrs;
    d_length_said = other.d_length_said;
    d_likelihood_said = other.d_likelihood_said;
    d_warnings = other.d_warnings;
    return *this;
}

void setup_watch::set_channel(const channel_params& ch)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    // per transmitted bit: Pi / (1 - Pi) insertions on average (a geometric
    // count, variance Pi / (1 - Pi)^2), then the bit is kept with probability
    // t = (1 - Pi - Pd) / (1 - Pi)
    const double Pi = ch.Pi(), Pd = ch.Pd();
    const double t = (1.0 - Pi - Pd) / (1.0 - Pi);
    d_mean = predicted_drift(d_F, ch);
    d_sd = std::sqrt(double(d_F) * (Pi / ((1.0 - Pi) * (1.0 - Pi)) + t * (1.0 - t)));
    d_drifts.clear();
    d_llrs.clear();
}

double setup_watch::predicted_drift(long long F, const channel_params& ch)
{
    return double(F) * (ch.Pi() - ch.Pd()) / (1.0 - ch.Pi());
}

bool setup_watch::add_length_drift(double drift, const channel_params& ch)
{
    double mean;
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        mean = d_mean;
    }
    return add_length_drift(drift - predicted_drift(d_F, ch) + mean);
}

bool setup_watch::add_received_length(size_t received)
{
    return add_length_drift(double(received) - double(d_F));
}

bool setup_watch::add_received_length(size_t received, const channel_params& ch)
{
    return add_length_drift(double(received) - double(d_F), ch);
}

bool setup_watch::add_length_drift(double drift)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (d_length_said)
        return false;
    d_drifts.push_back(drift);
    if (d_drifts.size() > length_frames_max)
        d_drifts.pop_front();
    const size_t M = d_drifts.size();
    if (M < length_frames_min)
        return false;
    // the mean of the drifts within 4 robust standard deviations (1.4826
    // median absolute deviations) of their median: a frame found far off
    // after a burst does not move it
    std::vector<double> v(d_drifts.begin(), d_drifts.end());
    auto median = [](std::vector<double> x) {
        const size_t h = x.size() / 2;
        std::nth_element(x.begin(), x.begin() + long(h), x.end());
        const double hi = x[h];
        if (x.size() % 2)
            return hi;
        return 0.5 * (hi + *std::max_element(x.begin(), x.begin() + long(h)));
    };
    const double med = median(v);
    std::vector<double> dev(v.size());
    for (size_t k = 0; k < v.size(); ++k)
        dev[k] = std::fabs(v[k] - med);
    const double reach = 4 * std::max({ 1.4826 * median(dev), d_sd, 0.5 });
    double sum = 0, sum2 = 0;
    size_t kept = 0;
    for (double x : v)
        if (std::fabs(x - med) <= reach)
            sum += x, sum2 += x * x, ++kept;
    const double mid = sum / double(kept);
    const double var =
        kept > 1 ? (sum2 - double(kept) * mid * mid) / double(kept - 1) : 0;
    // the spread as measured, never below the channel's (a few frames can
    // agree by chance) nor half a bit
    const double sd = std::max({ std::sqrt(std::max(var, 0.0)), d_sd, 0.5 });
    const double se = sd / std::sqrt(double(kept));
    const double z = mid - d_mean;
    const double j = std::round(z / double(d_n));
    if (!(std::fabs(z) >= 0.5 * d_n && std::fabs(z) >= length_sigmas * se && j != 0 &&
          std::fabs(z - j * d_n) + se <= 0.25 * d_n))
        return false;
    d_length_said = true;
    const long long J = (long long)j;
    warn_locked(detail::concat(d_who,
                               ": the frames end about ",
                               std::llabs(J),
                               std::llabs(J) == 1 ? " codeword (" : " codewords (",
                               fixed1(std::fabs(z)),
                               " bits) ",
                               z > 0 ? "later" : "earlier",
                               " than N = ",
                               d_N,
                               " symbols of n = ",
                               d_n,
                               " bits and the channel predict (on average over the last ",
                               M,
                               " frames): do the frames have N ",
                               J > 0 ? "+ " : "- ",
                               std::llabs(J),
                               " = ",
                               d_N + J,
                               " symbols? (A sample clock offset of ",
                               sig2(z / double(d_F)),
                               " would also move each frame by that much.)"));
    return true;
}

bool setup_watch::add_likelihood(double llr, double predicted_mean, double predicted_sd)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (d_likelihood_said || !std::isfinite(llr) || !std::isfinite(predicted_mean) ||
        !std::isfinite(predicted_sd))
        return false;
    d_llrs.push_back(llr);
    if (d_llrs.size() > likelihood_frames)
        d_llrs.pop_front();
    if (d_llrs.size() < likelihood_frames)
        return false;
    double mean = 0;
    for (double v : d_llrs)
        mean += v;
    mean /= double(d_llrs.size());
    if (!(mean < predicted_mean - likelihood_sigmas * predicted_sd))
        return false;
    d_likelihood_said = true;
    warn_locked(detail::concat(
        d_who,
        ": the frames read far worse than the decoder's channel predicts: their "
        "log-likelihood ratio against random bits averages ",
        fixed1(mean),
        " over the last ",
        d_llrs.size(),
        " frames, against ",
        fixed1(predicted_mean),
        " +- ",
        fixed1(predicted_sd),
        " predicted. The channel may be worse than the one set (estimate it: "
        "docs/receiving.md), or N, the codebook or the sync word may not fit the "
        "frames."));
    return true;
}

void setup_watch::warn(const std::string& what)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    warn_locked(what);
}

void setup_watch::warn_locked(const std::string& what)
{
    d_warnings.push_back(what);
    log(log_level::warning, what);
}

std::vector<std::string> setup_watch::warnings() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_warnings;
}

size_t setup_watch::count() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_warnings.size();
}

} // namespace bsid
