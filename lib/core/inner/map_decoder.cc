/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The backend-neutral part of the MAP decoder: configuration, limits, input
// checks and hard decisions (the factory, map_decoder::make, is
// runtime/backends.cc).

#include "runtime/backends.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <omp.h>
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <tuple>

namespace bsid {

backend_kind parse_backend(const std::string& s)
{
    if (s == "cpu")
        return backend_kind::cpu;
    if (s == "cuda")
        return backend_kind::cuda;
    if (s == "auto")
        return backend_kind::automatic;
    throw std::invalid_argument("backend '" + s + "' is not one of cpu, cuda, auto");
}

precision_kind parse_precision(const std::string& s)
{
    if (s == "float")
        return precision_kind::single;
    if (s == "double")
        return precision_kind::dual;
    throw std::invalid_argument("precision '" + s + "' is not one of float, double");
}

storage_kind parse_storage(const std::string& s)
{
    if (s == "global")
        return storage_kind::global;
    if (s == "local")
        return storage_kind::local;
    if (s == "auto")
        return storage_kind::automatic;
    throw std::invalid_argument("storage '" + s + "' is not one of global, local, auto");
}

recursion_kind parse_recursion(const std::string& s)
{
    if (s == "auto")
        return recursion_kind::automatic;
    if (s == "block")
        return recursion_kind::block;
    if (s == "segmented")
        return recursion_kind::segmented;
    throw std::invalid_argument("recursion '" + s +
                                "' is not one of auto, block, segmented");
}

std::string to_string(recursion_kind r)
{
    return r == recursion_kind::block       ? "block"
           : r == recursion_kind::segmented ? "segmented"
                                            : "auto";
}

std::string to_string(backend_kind b)
{
    return b == backend_kind::cpu ? "cpu" : b == backend_kind::cuda ? "cuda" : "auto";
}
std::string to_string(precision_kind p)
{
    return p == precision_kind::single ? "float" : "double";
}
std::string to_string(storage_kind s)
{
    return s == storage_kind::global  ? "global"
           : s == storage_kind::local ? "local"
                                      : "auto";
}

std::vector<int> parse_devices(const std::string& s)
{
    if (s == "all") {
        std::vector<int> all(size_t(std::max(0, cuda_device_count())));
        for (size_t d = 0; d < all.size(); ++d)
            all[d] = int(d);
        return all;
    }
    std::vector<int> out;
    if (s.empty())
        return out;
    for (const std::string& item : detail::split_on(s, ',')) {
        const size_t a = item.find_first_not_of(' ');
        const size_t b = item.find_last_not_of(' ');
        const std::string tok = a == std::string::npos ? "" : item.substr(a, b - a + 1);
        unsigned long long v = 0;
        if (!detail::parse_uint(tok, v) || v > (unsigned long long)INT_MAX) {
            throw std::invalid_argument(
                detail::concat("devices '",
                               s,
                               "': '",
                               item,
                               "' is not a device index (a non-negative integer); give "
                               "\"all\" or indices separated by commas, like \"0,1\""));
        }
        if (std::find(out.begin(), out.end(), int(v)) != out.end()) {
            throw std::invalid_argument(
                detail::concat("devices '", s, "': device ", v, " is given twice"));
        }
        out.push_back(int(v));
    }
    return out;
}

int resolve_threads(int threads)
{
    if (threads < 0) {
        throw std::invalid_argument(
            detail::concat("threads = ", threads, " must be >= 0 (0: all cores)"));
    }
    return threads == 0 ? omp_get_max_threads() : threads;
}

// A device list set directly (not through parse_devices): the same rules
// (declared in runtime/backends.h, whose factory checks it first).
void check_devices(const std::vector<int>& devices)
{
    for (size_t k = 0; k < devices.size(); ++k) {
        const int d = devices[k];
        if (d < 0) {
            throw std::invalid_argument(detail::concat(
                "map_decoder: devices[", k, "] = ", d, " is not a device index (>= 0)"));
        }
        if (std::find(devices.begin(), devices.begin() + long(k), d) !=
            devices.begin() + long(k)) {
            throw std::invalid_argument(
                detail::concat("map_decoder: device ", d, " is in devices twice"));
        }
    }
}

namespace {

std::string range_str(const drift_range& r)
{
    return detail::concat("[", r.lo, ", ", r.hi, "]");
}

// Largest state spaces accepted: far beyond any useful channel, small enough
// that the per-frame arrays cannot overflow their index types.
constexpr long long max_states = 1 << 20;

} // namespace

decoder_limits map_decoder::limits_for(const decoder_config& cfg)
{
    if (cfg.N < 1) {
        throw std::invalid_argument(
            detail::concat("map_decoder: N = ", cfg.N, " must be at least 1"));
    }
    if (cfg.cb.alphabet() != cfg.ch.alphabet()) {
        throw std::invalid_argument(
            detail::concat("map_decoder: the codebook's alphabet is ",
                           cfg.cb.alphabet(),
                           " letters but the channel's is ",
                           cfg.ch.alphabet(),
                           " (codebook(..., alphabet=A) and channel_params(..., "
                           "alphabet=A) must agree)"));
    }
    if (cfg.ch.alphabet() == 2 && !cfg.ch.substitution().empty()) {
        // the binary decoders weigh one substitution probability Ps (match,
        // mismatch); an asymmetric matrix would be decoded as its mean
        throw std::invalid_argument(
            "map_decoder: a binary channel with a substitution matrix is not decoded yet "
            "(the binary decoders take one Ps); give Ps, or use the matrix over A > 2 "
            "letters");
    }
    const long long tau = (long long)cfg.N * cfg.cb.n();
    if (tau > (1LL << 30)) {
        throw std::invalid_argument(
            detail::concat("map_decoder: the frame of tau = ", tau, " bits is too long"));
    }
    decoder_limits L;
    if (!cfg.mtau || !cfg.mn) {
        L = compute_decoder_limits(cfg.N, cfg.cb.n(), cfg.ch.Pi(), cfg.ch.Pd(), cfg.Pr);
    }
    if (cfg.mtau)
        L.mtau = *cfg.mtau;
    if (cfg.mn)
        L.mn = *cfg.mn;
    // each space holds 0: the frame starts at drift 0, and every codeword's
    // lattice starts at drift change 0; the corridor is never clipped to m_tau.
    // Widths in long long: an int range size can overflow.
    for (const auto& [name, r, given] : { std::make_tuple("mtau", L.mtau, bool(cfg.mtau)),
                                          std::make_tuple("mn", L.mn, bool(cfg.mn)) }) {
        const char* whose = given ? "" : " (computed from Pr)";
        if (!(r.lo <= 0 && 0 <= r.hi)) {
            throw std::invalid_argument(detail::concat("map_decoder: limits ",
                                                       name,
                                                       " = ",
                                                       range_str(r),
                                                       whose,
                                                       " must hold 0 (lo <= 0 <= hi)"));
        }
        if ((long long)r.hi - (long long)r.lo + 1 > max_states) {
            throw std::invalid_argument(
                detail::concat("map_decoder: limits ",
                               name,
                               " = ",
                               range_str(r),
                               whose,
                               " are too wide (",
                               (long long)r.hi - (long long)r.lo + 1,
                               " states; at most ",
                               max_states,
                               ")"));
        }
    }
    return L;
}

map_decoder::map_decoder(const decoder_config& cfg)
    : d_cfg(cfg), d_limits(limits_for(cfg))
{
    resolve_threads(cfg.threads);
    check_devices(cfg.cuda.devices);
    if (cfg.cuda.streams < 0 || cfg.cuda.streams > max_cuda_streams) {
        throw std::invalid_argument(detail::concat("map_decoder: cuda_streams = ",
                                                   cfg.cuda.streams,
                                                   " must be in 0 .. ",
                                                   max_cuda_streams,
                                                   " (0: auto)"));
    }
}

double map_decoder::cells_per_frame() const
{
    const double Mt = d_limits.mtau.size(), Mn = d_limits.mn.size(), lo = d_limits.mn.lo;
    return double(N()) * q() * Mt * (n() * Mn - lo * (lo - 1) / 2);
}

frame_result map_decoder::check_length(size_t rho) const
{
    if (rho == 0) {
        return { frame_status::empty, "empty frame: no bits were received (rho = 0)" };
    }
    const long long drift = (long long)rho - tau();
    if (!d_limits.mtau.contains(drift)) {
        return { frame_status::drift_out_of_range,
                 detail::concat("end drift rho - tau = ",
                                rho,
                                " - ",
                                tau(),
                                " = ",
                                drift,
                                " is outside the drift limits m_tau = ",
                                range_str(d_limits.mtau)) };
    }
    return {};
}

bool map_decoder::precheck(const frame_view& frame, frame_result& result) const
{
    if (frame.boundaries) {
        // the caller's weights say where the frame may end: only their shape is checked
        const size_t Mt = size_t(d_limits.mtau.size());
        if (frame.boundaries->start.size() != Mt || frame.boundaries->end.size() != Mt) {
            result = { frame_status::invalid_input,
                       detail::concat("the boundary weights hold ",
                                      frame.boundaries->start.size(),
                                      " and ",
                                      frame.boundaries->end.size(),
                                      " states; the decoder has M_tau = ",
                                      Mt) };
            return false;
        }
        result = {};
    } else {
        result = check_length(frame.rho);
        if (!result.ok()) {
            return false;
        }
    }
    std::string what;
    const received_items items = frame.items(d_cfg.ch.alphabet());
    if (find_invalid_item(items, frame.rho, what) < frame.rho) {
        result = { frame_status::invalid_input, what };
        return false;
    }
    result = {};
    return true;
}

void map_decoder::normalized_priors(const double* priors,
                                    bool log_priors,
                                    double* out) const
{
    const int Q = q();
    for (int i = 0; i < N(); ++i)
        normalized_priors_row(priors + size_t(i) * Q, log_priors, i, out + size_t(i) * Q);
}

void map_decoder::normalized_priors_row(const double* row,
                                        bool log_priors,
                                        int i,
                                        double* dst) const
{
    const int Q = q();
    if (log_priors) {
        // natural logs up to a constant: exp(l - max l) in double
        double top = -std::numeric_limits<double>::infinity();
        for (int D = 0; D < Q; ++D) {
            const double l = row[D];
            if (std::isnan(l) || l == std::numeric_limits<double>::infinity()) {
                throw std::invalid_argument(detail::concat(
                    "log priors[",
                    i,
                    "][",
                    D,
                    "] = ",
                    detail::fmt_double(l),
                    " is not a log-probability (finite, or -inf for a zero prior)"));
            }
            top = std::max(top, l);
        }
        if (!std::isfinite(top)) {
            throw std::invalid_argument(
                detail::concat("log priors row ",
                               i,
                               " is -inf everywhere; every symbol position needs "
                               "some positive prior"));
        }
        double sum = 0;
        for (int D = 0; D < Q; ++D)
            sum += (dst[D] = std::exp(row[D] - top));
        for (int D = 0; D < Q; ++D)
            dst[D] /= sum;
        return;
    }
    double sum = 0;
    for (int D = 0; D < Q; ++D) {
        const double p = row[D];
        if (!std::isfinite(p) || p < 0) {
            throw std::invalid_argument(
                detail::concat("priors[",
                               i,
                               "][",
                               D,
                               "] = ",
                               detail::fmt_double(p),
                               " is not a finite non-negative probability"));
        }
        sum += p;
    }
    // by the largest first: finite values whose sum overflows, and
    // subnormal ones whose sum would lose digits, are normalized alike
    const double scale = *std::max_element(row, row + Q);
    if (!(scale > 0)) {
        throw std::invalid_argument(
            detail::concat("priors row ",
                           i,
                           " sums to ",
                           detail::fmt_double(sum),
                           "; every symbol position needs some positive prior"));
    }
    sum = 0;
    for (int D = 0; D < Q; ++D)
        sum += (dst[D] = row[D] / scale);
    for (int D = 0; D < Q; ++D)
        dst[D] /= sum;
}

void map_decoder::validate_priors(const double* priors, bool log_priors) const
{
    // normalized_priors' checks row by row, without its output (a batch's
    // frames are all checked before any is decoded: no allocation per frame)
    const int Q = q();
    for (int i = 0; i < N(); ++i) {
        const double* p = priors + size_t(i) * size_t(Q);
        bool fine = true;
        for (int D = 0; D < Q && fine; ++D) {
            fine = log_priors ? !std::isnan(p[D]) &&
                                    p[D] != std::numeric_limits<double>::infinity()
                              : std::isfinite(p[D]) && p[D] >= 0;
        }
        const double top = fine ? *std::max_element(p, p + Q) : 0.0;
        if (fine && (log_priors ? std::isfinite(top) : top > 0))
            continue;
        // the row's error, in normalized_priors' words
        std::vector<double> row(static_cast<size_t>(Q));
        normalized_priors_row(p, log_priors, i, row.data());
    }
}

frame_boundaries map_decoder::boundaries(const frame_view& frame) const
{
    const size_t Mt = size_t(d_limits.mtau.size());
    frame_boundaries b;
    b.start.resize(Mt);
    b.end.resize(Mt);
    boundaries_into(frame, b.start.data(), b.end.data());
    return b;
}

void map_decoder::boundaries_into(const frame_view& frame,
                                  double* start,
                                  double* end) const
{
    const int Mt = d_limits.mtau.size();
    if (frame.boundaries) {
        // the caller's (frame_decoder: start priors, sync word, free ends;
        // precheck() has checked that each holds Mt weights)
        for (auto [from, to] : { std::pair{ &frame.boundaries->start, start },
                                 std::pair{ &frame.boundaries->end, end } }) {
            const size_t n = std::min(from->size(), size_t(Mt));
            std::copy_n(from->begin(), n, to);
            std::fill(to + n, to + Mt, 0.0);
        }
    } else {
        std::fill(start, start + Mt, 0.0);
        std::fill(end, end + Mt, 0.0);
        start[-d_limits.mtau.lo] = 1.0; // the frame starts at drift 0
        const long long e = (long long)frame.rho - tau() - d_limits.mtau.lo;
        if (e >= 0 && e < Mt)
            end[e] = 1.0; // rho is known
        return;           // one-hot: normalized
    }
    // weights that are not one-hot (start priors, free ends) are normalized here, once
    for (double* w : { start, end }) {
        double sum = 0;
        for (int a = 0; a < Mt; ++a)
            sum += w[a];
        if (sum > 0 && sum != 1.0) {
            for (int a = 0; a < Mt; ++a)
                w[a] /= sum;
        }
    }
}

void map_decoder::write_boundary_metrics(const frame_view& frame,
                                         const double* alpha_N,
                                         const double* beta_0,
                                         const double* alpha_0) const
{
    if (!frame.boundary_metrics)
        return;
    const size_t Mt = size_t(d_limits.mtau.size());
    // the states the frame can start in: beta_0 elsewhere is left out
    auto can_start = [&](size_t a) {
        const long long m = d_limits.mtau.lo + (long long)a;
        return alpha_0 && alpha_0[a] != 0.0 && m >= 0 && m <= (long long)frame.rho;
    };
    double* out = frame.boundary_metrics;
    for (const double* row : { alpha_N, beta_0 }) {
        const bool masked = row && row == beta_0;
        auto value = [&](size_t a) { return masked && !can_start(a) ? 0.0 : row[a]; };
        double sum = 0;
        for (size_t a = 0; row && a < Mt; ++a)
            sum += value(a);
        for (size_t a = 0; a < Mt; ++a)
            out[a] = sum > 0 ? value(a) / sum : 0.0;
        out += Mt;
    }
}

void map_decoder::write_no_evidence(const frame_view& frame)
{
    if (frame.log_evidence)
        *frame.log_evidence = -std::numeric_limits<double>::infinity();
}

void map_decoder::clear_events(const frame_view& frame, int A)
{
    if (!frame.events)
        return;
    *frame.events = event_counts{};
    if (frame.item_posteriors)
        std::fill(
            frame.item_posteriors, frame.item_posteriors + size_t(A) * frame.rho, 0.0);
    if (frame.substitution_counts)
        std::fill(frame.substitution_counts,
                  frame.substitution_counts + size_t(A) * size_t(A),
                  0.0);
}

void map_decoder::fill_uniform(double* post) const
{
    std::fill(post, post + size_t(N()) * size_t(q()), 1.0 / q());
}

void hard_decisions(const double* post, int N, int q, int32_t* out)
{
    for (int i = 0; i < N; ++i) {
        const double* row = post + size_t(i) * size_t(q);
        double best = row[0];
        for (int D = 1; D < q; ++D)
            best = std::max(best, row[D]);
        const double floor = best - std::abs(best) * 1e-12;
        int pick = 0;
        while (pick < q - 1 && row[pick] < floor)
            ++pick;
        out[i] = pick;
    }
}

} // namespace bsid
