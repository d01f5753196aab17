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
std::vector<double>
drift_pdf(long long T, double Pi, double Pd, long long lo, long long hi);

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
    drift_range mtau; //!< alpha/beta state space: the drift at a codeword boundary
    drift_range mn;   //!< within-codeword corridor: the drift change inside a codeword
};

/*!
 * \brief The drift limits for codeword boundaries: the range m_tau such that
 * the union bound over the N + 1 boundaries,
 *
 *   sum_{i=0}^{N} P(drift after i n bits lies outside m_tau) = sum_{m outside} mu(m),
 *   mu(m) = sum_{i=0}^{N} phi_{i n}(m)   (the expected number of boundaries at m),
 *
 * is below Pr. The rule of drift_limits() applied to mu: from drift 0 (where
 * boundary 0 sits), step outwards while mu(m) >= Pr/2; then, while the
 * excluded mass is >= Pr, widen the side whose next value is larger (a tie
 * widens the lower side). mu is computed exactly (long double pdf of one
 * codeword, convolved in double by binary splitting); entries below
 * 1e-30 Pr / (N + 1) are dropped and their mass counted as excluded.
 *
 * On an asymmetric channel the drift moves from 0 towards the mean
 * tau (Pi - Pd) / (1 - Pi), and every boundary on the way is covered.
 */
drift_range boundary_limits(long long N, int n, double Pi, double Pd, double Pr);

/*!
 * \brief The within-codeword corridor m_n: the narrowest range (widened
 * greedily from [0, 0], a step at a time on the side whose exit probability
 * is larger, a tie on the lower side) such that
 *
 *   N P(a codeword's path leaves [m_n^-, m_n^+] at some lattice node) < Pr,
 *
 * a union bound over the N codewords. The corridor bounds the drift *change*
 * since the codeword's start at every node of its lattice, so the exit
 * probability is computed exactly by a dynamic program over the lattice
 * rows; it bounds P(the drift change over the codeword lies outside m_n)
 * from above. The corridor is never clipped to m_tau.
 */
drift_range corridor_limits(long long N, int n, double Pi, double Pd, double Pr);

//! What a choice of limits leaves out (each a union bound; see above).
struct limits_exclusion {
    double boundaries = 0; //!< sum over the N + 1 boundaries of P(drift outside m_tau)
    double corridors = 0;  //!< N P(a codeword's path leaves the corridor m_n)
};

//! The excluded probabilities of given limits (m_n must hold 0, else corridors = N).
limits_exclusion excluded_mass(long long N,
                               int n,
                               double Pi,
                               double Pd,
                               const drift_range& mtau,
                               const drift_range& mn);

/*!
 * \brief The decoder's limits for exclusion probability Pr (docs/design.md
 * section 4), so that
 *   P(some boundary's drift lies outside m_tau) + P(some codeword's path leaves m_n) <
 * Pr, each term by a union bound. Pr is split between the two: for k = 1..8 the corridor
 * gets Pr / 2^k, m_n = corridor_limits(N, n, Pi, Pd, Pr / 2^k), and the boundaries get
 * the rest, m_tau = boundary_limits(N, n, Pi, Pd, Pr - excluded_mass(...).corridors); of
 * these the pair with the least work wins (the first on a tie), the work being ceil(M_tau
 * / 32) (n M_n - m_n^- (m_n^- - 1) / 2): the paper's lattice cells with M_tau in whole
 * groups of 32 states (CUDA warps). Both hold 0; neither is clipped to the other.
 */
decoder_limits
compute_decoder_limits(long long N, int n, double Pi, double Pd, double Pr);

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_DRIFT_LIMITS_H */
