/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/format.h"
#include <gnuradio/bsid/core/channel/channel_params.h>
#include <gnuradio/bsid/core/inner/drift_limits.h>
#include <math.h> // lgammal_r
#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
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
        throw std::invalid_argument(detail::concat(
            "drift limits: T = ", T, " must be a non-negative number of bits"));
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

real lchoose(real a, real b)
{
    return log_gamma(a + 1) - log_gamma(b + 1) - log_gamma(a - b + 1);
}

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
    real mean() const
    {
        return real(d_T) * (real(d_Pi) - real(d_Pd)) / (1.0L - real(d_Pi));
    }

private:
    // log of the term with j deletions and i = m + j insertions; 0^0 = 1.
    real log_term(long long m, long long j) const
    {
        const long long i = m + j;
        real r = lchoose(real(d_T), real(j)) + lchoose(real(d_T + i - 1), real(i));
        if (d_T - j > 0)
            r += real(d_T - j) * std::log(d_Pt);
        if (j > 0)
            r += real(j) * std::log(real(d_Pd));
        if (i > 0)
            r += real(i) * std::log(real(d_Pi));
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
            if (t < negligible * sum)
                break;
        }
        t = 1.0L;
        for (long long j = jpk - 1; j >= j0; --j) {
            t /= ratio(m, j);
            sum += t;
            if (t < negligible * sum)
                break;
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
        throw std::invalid_argument(detail::concat("drift limits: Pr = ",
                                                   detail::fmt_double(Pr),
                                                   " must lie strictly between 0 and 1"));
    }
}

/*
 * The limits rule of docs/design.md section 4, on a measure at(m) that is 0
 * outside its support and decreases outwards beyond rule 1's range:
 *  1. from `start`, step outwards on each side while at(m) >= Pr/2;
 *  2. while the excluded mass (the tails summed outwards, plus `lost`) is
 *     >= Pr, widen the side whose next value is larger (a tie widens the
 *     lower side).
 * The tails are summed directly, not as 1 - the mass kept, so that they stay
 * accurate for Pr far below the epsilon; a tail stops at a zero term or one
 * below `negligible` of its sum.
 */
template <typename V, typename At>
drift_range limits_rule(const At& at, long long start, V Pr, V lost)
{
    const V half = Pr / 2;
    long long lo = start, hi = start;
    while (at(hi + 1) >= half)
        ++hi;
    while (at(lo - 1) >= half)
        --lo;
    auto tail = [&](long long from, int step) {
        V sum = 0;
        for (long long m = from;; m += step) {
            const V v = at(m);
            sum += v;
            if (v == V(0) || v < V(negligible) * sum)
                return sum;
        }
    };
    V upper = tail(hi + 1, +1), lower = tail(lo - 1, -1);
    while (upper + lower + lost >= Pr) {
        const V below = at(lo - 1), above = at(hi + 1);
        if (below == V(0) && above == V(0))
            break; // only rounding (or dropped mass) is left
        if (below >= above) {
            --lo;
            lower = std::max(V(0), lower - below);
        } else {
            ++hi;
            upper = std::max(V(0), upper - above);
        }
    }
    return drift_range{ int(lo), int(hi) };
}

} // namespace

double drift_pdf(long long T, double Pi, double Pd, long long m)
{
    drift_pdf_eval phi(T, Pi, Pd);
    return double(phi(m));
}

std::vector<double>
drift_pdf(long long T, double Pi, double Pd, long long lo, long long hi)
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
    // Rule 1 starts at drift 0, or at the mode when phi(0) < Pr/2.
    long long start = 0;
    if (phi(0) < real(Pr) / 2) {
        start = std::llround(double(phi.mean()));
        start = std::max(start, -T);
        while (phi(start + 1) > phi(start))
            ++start;
        while (start > -T && phi(start - 1) > phi(start))
            --start;
    }
    // phi is 0 below -T (no more deletions than bits): the rule stops there
    return limits_rule<real>([&](long long m) { return phi(m); }, start, real(Pr), 0.0L);
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

namespace {

/*
 * Direct convolution of two non-negative vectors: a over [alo, alo + |a|),
 * b over [blo, ...); the result starts at alo + blo. Sums of products of
 * non-negative numbers carry no cancellation, so every entry, tails
 * included, keeps a relative accuracy near |a| eps.
 */
std::vector<double> convolve(const std::vector<double>& a, const std::vector<double>& b)
{
    if (a.empty() || b.empty())
        return {};
    std::vector<double> out(a.size() + b.size() - 1, 0.0);
    for (size_t i = 0; i < a.size(); ++i) {
        const double ai = a[i];
        if (ai == 0.0)
            continue;
        double* o = out.data() + i;
        for (size_t j = 0; j < b.size(); ++j)
            o[j] += ai * b[j];
    }
    return out;
}

// A measure over drifts: values v[k] at drift lo + k.
struct drift_measure {
    long long lo = 0;
    std::vector<double> v;
};

drift_measure convolve(const drift_measure& a, const drift_measure& b)
{
    return { a.lo + b.lo, convolve(a.v, b.v) };
}

drift_measure add(const drift_measure& a, const drift_measure& b)
{
    if (a.v.empty())
        return b;
    if (b.v.empty())
        return a;
    const long long lo = std::min(a.lo, b.lo);
    const long long hi =
        std::max(a.lo + (long long)a.v.size(), b.lo + (long long)b.v.size());
    drift_measure r{ lo, std::vector<double>(size_t(hi - lo), 0.0) };
    for (size_t k = 0; k < a.v.size(); ++k)
        r.v[size_t(a.lo - lo) + k] += a.v[k];
    for (size_t k = 0; k < b.v.size(); ++k)
        r.v[size_t(b.lo - lo) + k] += b.v[k];
    return r;
}

// Drops the entries below `floor` from both ends; what is dropped is added to `lost`.
void trim(drift_measure& m, double floor, double& lost)
{
    size_t a = 0, b = m.v.size();
    while (a < b && m.v[a] < floor)
        lost += m.v[a++];
    while (b > a && m.v[b - 1] < floor)
        lost += m.v[--b];
    m.v = std::vector<double>(m.v.begin() + long(a), m.v.begin() + long(b));
    m.lo += (long long)a;
}

/*
 * The occupancy measure mu(m) = sum_{i=0}^{N} phi_{i n}(m): the expected
 * number of codeword boundaries at drift m (total mass N + 1). Computed by
 * binary splitting, S(M) = sum_{i<M} k^{*i} with k = phi_n:
 *   S(2M) = S(M) + k^{*M} * S(M),  S(M + 1) = S(M) + k^{*M},
 * so O(log N) convolutions instead of N. Entries below `floor` are dropped
 * at the ends of every intermediate; `lost` bounds the mass so dropped
 * (each dropped unit of a power could have reached N + 1 boundaries).
 */
drift_measure
occupancy(long long N, int n, double Pi, double Pd, double floor, double& lost)
{
    // k = phi_n over [-n, K], K past the mode where the terms fall below floor
    drift_pdf_eval phi(n, Pi, Pd);
    drift_measure k{ -n, {} };
    double tail_lost = 0.0;
    {
        real prev = 0.0L;
        for (long long m = -n;; ++m) {
            const real v = phi(m);
            if (m > 0 && v < real(floor) && v <= prev) {
                // ratios of a log-concave pmf decrease: the rest is below a geometric
                // tail
                const real r = prev > 0 ? v / prev : 0.0L;
                tail_lost += double(r < 1 ? v / (1 - r) : v * 1e6L);
                break;
            }
            k.v.push_back(double(v));
            prev = v;
            if (m > 100000)
                break; // unreachable for valid channels
        }
    }
    // a (sum, power) pair with the ends of both trimmed
    auto trimmed = [&](drift_measure sum, drift_measure pw) {
        double l = 0.0;
        trim(sum, floor, l);
        trim(pw, floor, l);
        lost += l * double(N + 1);
        return std::make_pair(std::move(sum), std::move(pw));
    };
    std::function<std::pair<drift_measure, drift_measure>(long long)> S =
        [&](long long M) -> std::pair<drift_measure, drift_measure> {
        if (M == 0)
            return { drift_measure{}, drift_measure{ 0, { 1.0 } } };
        if (M % 2 == 1) {
            const auto r = S(M - 1);
            return trimmed(add(r.first, r.second), convolve(r.second, k));
        }
        const auto r = S(M / 2);
        return trimmed(add(r.first, convolve(r.second, r.first)),
                       convolve(r.second, r.second));
    };
    drift_measure mu = S(N + 1).first;
    lost += tail_lost * double(N + 1) * double(N + 1);
    return mu;
}

/*
 * The probability that a codeword's path through the lattice leaves the
 * corridor [lo, hi] at some node: a dynamic program over the drift change d
 * at the start of each row. Before bit t the channel inserts k bits
 * (Pi^k), visiting d + 1, ..., d + k, then deletes the bit (Pd: d + k - 1)
 * or sends it (Pt: d + k). Exits are summed as they happen (never as
 * 1 - the mass kept), so tiny values stay accurate.
 */
void corridor_exit(int n, double Pi, double Pd, int lo, int hi, real& up, real& down)
{
    const real pi = Pi, pd = Pd, pt = 1.0L - real(Pi) - real(Pd);
    const int M = hi - lo + 1;
    std::vector<real> p(size_t(M), 0.0L), q(size_t(M), 0.0L);
    std::vector<real> pik(size_t(M) + 1); // Pi^k
    pik[0] = 1.0L;
    for (int k = 1; k <= M; ++k)
        pik[size_t(k)] = pik[size_t(k - 1)] * pi;
    p[size_t(-lo)] = 1.0L;
    up = down = 0.0L;
    for (int t = 0; t < n; ++t) {
        std::fill(q.begin(), q.end(), 0.0L);
        for (int x = 0; x < M; ++x) {
            const real w = p[size_t(x)];
            if (w == 0.0L)
                continue;
            up += w * pik[size_t(M - x)]; // k = hi - d + 1 or more insertions
            for (int k = 0; x + k < M; ++k) {
                const real wk = w * pik[size_t(k)];
                if (wk == 0.0L)
                    break;
                q[size_t(x + k)] += wk * pt;
                if (x + k - 1 >= 0) {
                    q[size_t(x + k - 1)] += wk * pd;
                } else {
                    down += wk * pd;
                }
            }
        }
        p.swap(q);
    }
}

void check_limits_args(long long N, int n)
{
    if (n < 1 || N < 1) {
        throw std::invalid_argument(detail::concat(
            "decoder limits: N = ", N, " and n = ", n, " must both be at least 1"));
    }
    if ((long long)n * N > INT_MAX / 2) {
        throw std::invalid_argument(detail::concat("decoder limits: the frame of N n = ",
                                                   N * n,
                                                   " bits is too long (at most ",
                                                   INT_MAX / 2,
                                                   ")"));
    }
}

// compute_decoder_limits: the corridors' share of Pr tried, Pr / 2^k for
// k = 1..limits_split_steps, and the state groups the work is counted in.
constexpr int limits_split_steps = 8;
constexpr double limits_state_group = 32;

// Entries of the occupancy measure below this (relative to the budget per
// side) are dropped; their mass is counted as excluded.
constexpr double occupancy_floor = 1e-30;

} // namespace

namespace {

// The limits rule on a computed occupancy measure (boundary_limits), from drift 0.
drift_range boundary_rule(const drift_measure& mu, double lost, double Pr)
{
    auto at = [&](long long m) -> double {
        const long long k = m - mu.lo;
        return k >= 0 && k < (long long)mu.v.size() ? mu.v[size_t(k)] : 0.0;
    };
    return limits_rule<double>(at, 0, Pr, lost);
}

// One step of the corridor's greedy widening: the corridor, and N times its exit
// probability.
struct corridor_step {
    drift_range r;
    real excluded;
};

/*
 * The corridor's greedy widening from [0, 0] (corridor_limits), every step
 * kept, until N P(exit) < Pr: the rule's sequence does not depend on Pr, so
 * one walk serves every budget down to Pr.
 */
std::vector<corridor_step>
corridor_walk(long long N, int n, double Pi, double Pd, double Pr)
{
    std::vector<corridor_step> steps;
    const real budget = real(Pr);
    int lo = 0, hi = 0;
    real up = 0, down = 0;
    corridor_exit(n, Pi, Pd, lo, hi, up, down);
    steps.push_back({ { lo, hi }, (up + down) * real(N) });
    while (steps.back().excluded >= budget) {
        // widen the side that loses more (a tie widens the lower side); a
        // corridor reaching -n cannot be left downwards
        if (down >= up && lo > -n) {
            --lo;
        } else {
            ++hi;
        }
        if (hi - lo > 1 << 20)
            break; // unreachable for a valid channel and Pr
        corridor_exit(n, Pi, Pd, lo, hi, up, down);
        steps.push_back({ { lo, hi }, (up + down) * real(N) });
    }
    return steps;
}

// The first step of a walk that leaves out less than Pr (the last one if none does).
const corridor_step& first_below(const std::vector<corridor_step>& walk, double Pr)
{
    for (const auto& st : walk) {
        if (st.excluded < real(Pr))
            return st;
    }
    return walk.back();
}

} // namespace

drift_range boundary_limits(long long N, int n, double Pi, double Pd, double Pr)
{
    check_limits_args(N, n);
    channel_params(Pi, Pd, 0.0);
    check_Pr(Pr);
    double lost = 0.0;
    const drift_measure mu =
        occupancy(N, n, Pi, Pd, occupancy_floor * Pr / double(N + 1), lost);
    return boundary_rule(mu, lost, Pr);
}

drift_range corridor_limits(long long N, int n, double Pi, double Pd, double Pr)
{
    check_limits_args(N, n);
    channel_params(Pi, Pd, 0.0);
    check_Pr(Pr);
    return first_below(corridor_walk(N, n, Pi, Pd, Pr), Pr).r;
}

limits_exclusion excluded_mass(long long N,
                               int n,
                               double Pi,
                               double Pd,
                               const drift_range& mtau,
                               const drift_range& mn)
{
    check_limits_args(N, n);
    channel_params(Pi, Pd, 0.0);
    limits_exclusion r;
    double lost = 0.0;
    const drift_measure mu = occupancy(N, n, Pi, Pd, 1e-300, lost);
    for (size_t k = 0; k < mu.v.size(); ++k) {
        if (!mtau.contains(mu.lo + (long long)k))
            r.boundaries += mu.v[k];
    }
    r.boundaries += lost;
    real up = 0, down = 0;
    if (mn.lo <= 0 && mn.hi >= 0) {
        corridor_exit(n, Pi, Pd, mn.lo, mn.hi, up, down);
    } else {
        up = 1; // the corridor must hold drift change 0 (every path starts there)
    }
    r.corridors = double((up + down) * real(N));
    return r;
}

decoder_limits compute_decoder_limits(long long N, int n, double Pi, double Pd, double Pr)
{
    check_limits_args(N, n);
    channel_params(Pi, Pd, 0.0);
    check_Pr(Pr);
    /*
     * How Pr is split (docs/design.md section 4): the corridors get Pr / 2^k
     * for k = 1..limits_split_steps, each m_n = corridor_limits(N, n, Pi, Pd,
     * Pr / 2^k), and the boundaries get what that m_n leaves,
     * m_tau = boundary_limits(N, n, Pi, Pd, Pr - N P(leaving m_n)). The pair
     * with the least decoder work wins (the first on a tie), the work counted
     * as the paper's lattice cells per boundary state,
     * n M_n - m_n^- (m_n^- - 1) / 2, times M_tau rounded up to whole groups
     * of limits_state_group states (the CUDA backend computes states in
     * warps of 32: one state past a multiple of 32 costs a whole warp).
     * The corridor's greedy walk and the occupancy measure do not depend on
     * the budget: each is computed once (the measure with the floor of the
     * smallest budget the boundaries can get, Pr/2).
     */
    const auto walk = corridor_walk(N, n, Pi, Pd, std::ldexp(Pr, -limits_split_steps));
    double lost = 0.0;
    const drift_measure mu =
        occupancy(N, n, Pi, Pd, occupancy_floor * (Pr / 2) / double(N + 1), lost);
    decoder_limits best;
    double best_work = 0;
    for (int k = 1; k <= limits_split_steps; ++k) {
        const corridor_step& c = first_below(walk, std::ldexp(Pr, -k));
        decoder_limits L;
        L.mn = c.r;
        L.mtau = boundary_rule(mu, lost, Pr - double(c.excluded));
        const double lo = L.mn.lo;
        const double groups = std::ceil(double(L.mtau.size()) / limits_state_group);
        const double work = groups * (double(n) * L.mn.size() - lo * (lo - 1) / 2);
        if (k == 1 || work < best_work) {
            best = L;
            best_work = work;
        }
    }
    return best;
}

} // namespace bsid
