/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_DRIFT_LIMITS_H
#define INCLUDED_BSID_CORE_DRIFT_LIMITS_H

#include <cstdint>
#include <vector>

namespace bsid {

/*!
 * \brief An inclusive range of drifts [lo, hi], lo <= 0 <= hi for limits
 * computed from drift 0. size() is the paper's M_T = m_T^+ - m_T^- + 1.
 */
struct drift_range {
    int lo = 0;
    int hi = 0;
    int size() const { return hi - lo + 1; }
    bool contains(long long m) const { return m >= lo && m <= hi; }
    bool operator==(const drift_range& o) const { return lo == o.lo && hi == o.hi; }
};

/*!
 * \brief phi_T(m): the probability that the drift after T transmitted bits is m.
 *
 * Each bit sees k >= 0 insertions (probability Pi^k (1 - Pi)), then a deletion
 * (Pd / (1 - Pi)) or a transmission. With j deletions and i = m + j
 * insertions in all,
 *
 *   phi_T(m) = sum_{j >= max(0,-m)} Pt^(T-j) Pd^j Pi^(m+j) C(T, j) C(T+m+j-1, m+j)
 *
 * with 0^0 = 1, so the form holds at Pi = 0 or Pd = 0 (docs/design.md section 4).
 * Each term is evaluated in long double: the largest term exactly from its
 * logarithm (lgamma), the others from the term-ratio recurrence outwards from
 * it until they fall below 1e-25 of the sum. This keeps the relative error
 * near 1e-12 up to T = 10^6, where single terms underflow any floating type.
 *
 * Throws std::invalid_argument for T < 0 or invalid (Pi, Pd).
 */
double drift_pdf(long long T, double Pi, double Pd, long long m);

//! phi_T(m) for m = lo, ..., hi (empty if hi < lo).
std::vector<double> drift_pdf(long long T, double Pi, double Pd, long long lo, long long hi);

/*!
 * \brief The drift limits [m_T^-, m_T^+] for T transmitted bits and exclusion
 * probability Pr, by the reference rule of docs/design.md section 4:
 *
 *  1. From drift 0 (or from the mode of phi_T, if phi_T(0) < Pr/2), step
 *     outwards on each side while phi_T(m) >= Pr/2.
 *  2. While the excluded mass sum_{m outside} phi_T(m) is >= Pr, widen the side
 *     whose next excluded value is larger (a tie widens the lower side).
 *
 * The excluded mass is summed from the tails themselves, not as 1 - sum, so
 * that it stays accurate for Pr far below the double epsilon.
 *
 * Throws std::invalid_argument for T < 0, invalid (Pi, Pd), or Pr outside (0, 1).
 */
drift_range drift_limits(long long T, double Pi, double Pd, double Pr);

/*!
 * \brief Pr_n = 1 - (1 - Pr)^(1/N), the per-codeword exclusion probability that
 * gives a whole frame of N codewords an exclusion probability Pr.
 * Computed as -expm1(log1p(-Pr)/N), which stays exact for tiny Pr.
 */
double codeword_exclusion(double Pr, long long N);

//! The two state spaces of the decoder (paper, section "The MAP Decoder").
struct decoder_limits {
    drift_range mtau; //!< alpha/beta state space: limits(tau = nN, Pr)
    drift_range mn;   //!< within-codeword corridor: limits(n, Pr_n)
};

/*!
 * \brief m_tau = drift_limits(n N, Pr) and m_n = drift_limits(n, Pr_n).
 * m_n is then clipped to m_tau, so that m_tau^- <= m_n^- <= 0 <= m_n^+ <= m_tau^+.
 */
decoder_limits compute_decoder_limits(long long N, int n, double Pi, double Pd, double Pr);

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_DRIFT_LIMITS_H */
