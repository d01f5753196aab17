/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "format.h"
#include <gnuradio/bsid/core/channel_params.h>
#include <gnuradio/bsid/core/drift_limits.h>
#include <algorithm>
#include <climits>
#include <cmath>
#include <math.h> // lgammal_r
#include <map>
#include <stdexcept>

namespace bsid {

namespace {

using real = long double;

// A term below this fraction of the running sum no longer changes a long double.
constexpr real negligible = 1e-25L;

void check_T(long long T)
{
    if (T < 0) {
        throw std::invalid_argument(
            detail::concat("drift limits: T = ", T, " must be a non-negative number of bits"));
    }
    if (T > INT_MAX / 2) {
        throw std::invalid_argument(detail::concat(
            "drift limits: T = ", T, " bits is too long (at most ", INT_MAX / 2, ")"));
    }
}

// std::lgamma stores the sign of Gamma in the global signgam, so decoders
// built in several threads at once would race on it; glibc's reentrant form
// keeps the sign local (it is +1 here: the arguments are >= 1).
real log_gamma(real x)
{
#if defined(__GLIBC__)
    int sign = 0;
    return ::lgammal_r(x, &sign);
#else
    return std::lgamma(x);
#endif
}

real lchoose(real a, real b) { return log_gamma(a + 1) - log_gamma(b + 1) - log_gamma(a - b + 1); }

/*
 * phi_T(m) of docs/design.md section 4, for one (T, Pi, Pd), with memoization:
 * the limits rule evaluates each m a few times.
 */
class drift_pdf_eval
{
public:
    drift_pdf_eval(long long T, double Pi, double Pd) : d_T(T), d_Pi(Pi), d_Pd(Pd)
    {
        check_T(T);
        channel_params(Pi, Pd, 0.0); // validates Pi and Pd
        d_Pt = 1.0L - real(Pi) - real(Pd);
        d_c = real(Pi) * real(Pd) / d_Pt;
    }

    real operator()(long long m)
    {
        auto it = d_cache.find(m);
        if (it != d_cache.end()) {
            return it->second;
        }
        const real v = evaluate(m);
        d_cache.emplace(m, v);
        return v;
    }

    //! Mean drift T (Pi - Pd) / (1 - Pi).
    real mean() const { return real(d_T) * (real(d_Pi) - real(d_Pd)) / (1.0L - real(d_Pi)); }

private:
    // log of the term with j deletions and i = m + j insertions; 0^0 = 1.
    real log_term(long long m, long long j) const
    {
        const long long i = m + j;
        real r = lchoose(real(d_T), real(j)) + lchoose(real(d_T + i - 1), real(i));
        if (d_T - j > 0) r += real(d_T - j) * std::log(d_Pt);
        if (j > 0) r += real(j) * std::log(real(d_Pd));
        if (i > 0) r += real(i) * std::log(real(d_Pi));
        return r;
    }

    // t_{j+1} / t_j = c (T - j)/(j + 1) (T + i)/(i + 1), with i = m + j.
    real ratio(long long m, long long j) const
    {
        const long long i = m + j;
        return d_c * (real(d_T - j) / real(j + 1)) * (real(d_T + i) / real(i + 1));
    }

    real evaluate(long long m) const
    {
        const long long T = d_T;
        if (T == 0) {
            return m == 0 ? 1.0L : 0.0L;
        }
        if (m < -T) {
            return 0.0L; // cannot delete more bits than were sent
        }
        const long long j0 = std::max(0LL, -m);
        if (d_Pi == 0.0 || d_Pd == 0.0) {
            // A single term survives: no insertions (j = -m) or no deletions (j = 0).
            if (d_Pi == 0.0 && d_Pd == 0.0) {
                return m == 0 ? 1.0L : 0.0L;
            }
            if (d_Pi == 0.0 && m > 0) {
                return 0.0L;
            }
            if (d_Pd == 0.0 && m < 0) {
                return 0.0L;
            }
            return std::exp(log_term(m, j0));
        }
        // The terms are unimodal in j (the ratio decreases): find the largest
        // term by bisection, on the first j where t_{j+1} < t_j.
        long long a = j0, b = T; // ratio(T) = 0 < 1, so the answer lies in [a, b]
        while (a < b) {
            const long long mid = a + (b - a) / 2;
            if (ratio(m, mid) < 1.0L) {
                b = mid;
            } else {
                a = mid + 1;
            }
        }
        const long long jpk = a;
        real sum = 1.0L, t = 1.0L; // terms relative to the largest one
        for (long long j = jpk; j < T; ++j) {
            t *= ratio(m, j);
            sum += t;
            if (t < negligible * sum) break;
        }
        t = 1.0L;
        for (long long j = jpk - 1; j >= j0; --j) {
            t /= ratio(m, j);
            sum += t;
            if (t < negligible * sum) break;
        }
        return std::exp(log_term(m, jpk)) * sum;
    }

    long long d_T;
    double d_Pi, d_Pd;
    real d_Pt, d_c;
    std::map<long long, real> d_cache;
};

void check_Pr(double Pr)
{
    if (!(Pr > 0.0 && Pr < 1.0)) { // also rejects NaN
        throw std::invalid_argument(detail::concat(
            "drift limits: Pr = ", detail::fmt_double(Pr), " must lie strictly between 0 and 1"));
    }
}

} // namespace

double drift_pdf(long long T, double Pi, double Pd, long long m)
{
    drift_pdf_eval phi(T, Pi, Pd);
    return double(phi(m));
}

std::vector<double> drift_pdf(long long T, double Pi, double Pd, long long lo, long long hi)
{
    drift_pdf_eval phi(T, Pi, Pd);
    std::vector<double> out;
    if (hi >= lo) {
        out.reserve(size_t(hi - lo + 1));
        for (long long m = lo; m <= hi; ++m) {
            out.push_back(double(phi(m)));
        }
    }
    return out;
}

drift_range drift_limits(long long T, double Pi, double Pd, double Pr)
{
    drift_pdf_eval phi(T, Pi, Pd);
    check_Pr(Pr);
    const real half = real(Pr) / 2;

    // Rule 1: start at drift 0, or at the mode when phi(0) < Pr/2.
    long long start = 0;
    if (phi(0) < half) {
        start = std::llround(double(phi.mean()));
        start = std::max(start, -T);
        while (phi(start + 1) > phi(start)) ++start;
        while (start > -T && phi(start - 1) > phi(start)) --start;
    }
    long long lo = start, hi = start;
    while (phi(hi + 1) >= half) ++hi;
    while (lo > -T && phi(lo - 1) >= half) --lo;

    // Rule 2: widen while the excluded mass is >= Pr. The tails are summed
    // directly; beyond [lo, hi] phi decreases outwards.
    real upper = 0.0L;
    for (long long m = hi + 1;; ++m) {
        const real v = phi(m);
        upper += v;
        if (v == 0.0L || v < negligible * upper) break;
    }
    real lower = 0.0L;
    for (long long m = lo - 1; m >= -T; --m) {
        const real v = phi(m);
        lower += v;
        if (v == 0.0L || v < negligible * lower) break;
    }
    while (upper + lower >= real(Pr)) {
        const real below = lo > -T ? phi(lo - 1) : 0.0L;
        const real above = phi(hi + 1);
        if (below == 0.0L && above == 0.0L) {
            break; // nothing left to include: the tails were all rounding
        }
        if (below >= above) {
            --lo;
            lower = std::max(0.0L, lower - below);
        } else {
            ++hi;
            upper = std::max(0.0L, upper - above);
        }
    }
    return drift_range{ int(lo), int(hi) };
}

double codeword_exclusion(double Pr, long long N)
{
    check_Pr(Pr);
    if (N < 1) {
        throw std::invalid_argument(
            detail::concat("codeword_exclusion: N = ", N, " must be at least 1"));
    }
    return -std::expm1(std::log1p(-Pr) / double(N));
}

decoder_limits compute_decoder_limits(long long N, int n, double Pi, double Pd, double Pr)
{
    if (n < 1 || N < 1) {
        throw std::invalid_argument(detail::concat(
            "decoder limits: N = ", N, " and n = ", n, " must both be at least 1"));
    }
    decoder_limits L;
    L.mtau = drift_limits(N * n, Pi, Pd, Pr);
    L.mn = drift_limits(n, Pi, Pd, codeword_exclusion(Pr, N));
    // alpha_0 sits on drift 0, so both spaces must hold it, even when the
    // limits rule started from a mode away from 0.
    L.mtau.lo = std::min(L.mtau.lo, 0);
    L.mtau.hi = std::max(L.mtau.hi, 0);
    L.mn.lo = std::max(std::min(L.mn.lo, 0), L.mtau.lo);
    L.mn.hi = std::min(std::max(L.mn.hi, 0), L.mtau.hi);
    return L;
}

} // namespace bsid
