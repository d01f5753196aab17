/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_BP_MATH_H
#define INCLUDED_BSID_CORE_BP_MATH_H

/*
 * Belief propagation over GF(q) written once for the CPU (ldpc_decoder.cc)
 * and CUDA (lib/cuda/ldpc_kernels.cu): the check node, the variable node,
 * the normalizations and the hard decision (docs/concatenated.md, "Belief
 * propagation"). Host/device functions over one word's arrays:
 *  - messages live on the edges of the Tanner graph, one per nonzero entry of
 *    H in ldpc_code::entries() order (so a check's edges are contiguous), q
 *    values each, in the log domain: v2c (variable to check, largest entry
 *    0) and c2v (check to variable, never -infinity);
 *  - perm: q x q, row c is x -> c x in GF(q) (row 0 unused);
 *  - coef: each edge's coefficient; col_start / col_entries: each variable's
 *    edges (ldpc_code::col_start, col_entries).
 * Templated on the precision of the arithmetic (the CPU uses double).
 */

#include <gnuradio/bsid/core/inner/model.h> // BSID_HD, math.h
#include <cstdint>

namespace bsid {
namespace bp {

//! A check message's floor relative to its largest value: e^-700.
constexpr double floor_log = -700.0;

//! The unnormalized Walsh-Hadamard transform of q = 2^m values in place.
template <typename real>
BSID_HD void walsh_hadamard(real* v, int q)
{
    for (int h = 1; h < q; h <<= 1) {
        for (int i = 0; i < q; i += h << 1) {
            for (int j = i; j < i + h; ++j) {
                const real a = v[j], b = v[j + h];
                v[j] = a + b;
                v[j + h] = a - b;
            }
        }
    }
}

//! The largest of q values (-infinity if they all are).
template <typename real>
BSID_HD real row_max(const real* row, int q)
{
    real mx = real(-INFINITY);
    for (int x = 0; x < q; ++x)
        mx = row[x] > mx ? row[x] : mx;
    return mx;
}

//! row -= max(row); all 0 (uniform) if the row is all -infinity.
template <typename real>
BSID_HD void subtract_max(real* row, int q)
{
    const real mx = row_max(row, q);
    for (int x = 0; x < q; ++x)
        row[x] = mx == real(-INFINITY) ? real(0) : row[x] - mx;
}

/*!
 * out = row - logsumexp(row) (uniform if all are -infinity), computed as
 * (row - max) - log s so that a maximum near 1e308 does not swallow log s.
 */
template <typename real>
BSID_HD void normalize_lse(const real* row, int q, real* out)
{
    const real mx = row_max(row, q);
    if (mx == real(-INFINITY)) {
        for (int x = 0; x < q; ++x)
            out[x] = -::log(real(q));
        return;
    }
    real s = 0;
    for (int x = 0; x < q; ++x)
        s += ::exp(row[x] - mx);
    const real ls = ::log(s);
    for (int x = 0; x < q; ++x)
        out[x] = (row[x] - mx) - ls;
}

//! The index of the largest of q values, ties to the lowest.
template <typename real>
BSID_HD int32_t decide(const real* row, int q)
{
    int32_t best = 0;
    for (int x = 1; x < q; ++x)
        best = row[x] > row[best] ? x : best;
    return best;
}

/*!
 * A team of lanes that share a check node's work: `lane()` of `size()`,
 * `sync()` between phases, and `max` / `sum` of one value per lane over the
 * team. serial_team is one lane (the CPU); the CUDA backend has a warp.
 */
struct serial_team {
    BSID_HD int lane() const { return 0; }
    BSID_HD int size() const { return 1; }
    BSID_HD void sync() const {}
    template <typename real>
    BSID_HD real max(real v) const
    {
        return v;
    }
    template <typename real>
    BSID_HD real sum(real v) const
    {
        return v;
    }
    template <typename real>
    BSID_HD void argmax(real&, int32_t&) const
    {
    }
};

//! walsh_hadamard over a team: butterflies of each stage spread over the lanes.
template <typename real, typename team_t>
BSID_HD void walsh_hadamard(real* v, int q, const team_t& team)
{
    for (int h = 1; h < q; h <<= 1) {
        for (int b = team.lane(); b < q / 2; b += team.size()) {
            const int j = (b / h) * (h << 1) + b % h;
            const real a = v[j], c = v[j + h];
            v[j] = a + c;
            v[j + h] = a - c;
        }
        team.sync();
    }
}

/*!
 * \brief One check node of degree d whose edges are e0 .. e0 + d - 1: c2v of
 * each from the v2c of the others, by a team of lanes (serial_team: one).
 *
 * Each incoming message u_j becomes p_j(x) = exp(u_j(x) - max u_j), permuted
 * to the distribution of y_j = h_j x_j, normalized and Walsh-Hadamard
 * transformed (the XOR convolution becomes a product). For edge j the product
 * of the other transforms (prefix times suffix, never a division) is
 * transformed back (/ q): the distribution S_j of the XOR of the other y's,
 * which y_j must equal, so c2v_j(x) = log S_j(h_j x). Values below e^-700 of
 * the largest (rounding) are raised to that floor. Scratch, shared by the
 * team: fwd (d q), suffix ((d + 1) q), prefix and tmp (q each).
 */
template <typename real, typename team_t>
BSID_HD void check_node(int e0,
                        int d,
                        int q,
                        const real* v2c,
                        real* c2v,
                        const int32_t* perm,
                        const int32_t* coef,
                        real* fwd,
                        real* suffix,
                        real* prefix,
                        real* tmp,
                        const team_t& team)
{
    const int L = team.lane(), S = team.size();
    // the d incoming rows (contiguous) into suffix first, all loads at once
    {
        const real* in = v2c + (long long)e0 * q;
        for (long long t = L; t < (long long)d * q; t += S)
            suffix[t] = in[t];
        team.sync();
    }
    for (int j = 0; j < d; ++j) {
        const real* u = suffix + (long long)j * q;
        const int32_t* pm = perm + (long long)coef[e0 + j] * q;
        real* F = fwd + (long long)j * q;
        real mx = real(-INFINITY);
        for (int x = L; x < q; x += S)
            mx = u[x] > mx ? u[x] : mx;
        mx = team.max(mx);
        real s = 0;
        for (int x = L; x < q; x += S) {
            const real p = mx == real(-INFINITY) ? real(1) : ::exp(u[x] - mx);
            F[pm[x]] = p;
            s += p;
        }
        s = team.sum(s);
        team.sync();
        const real is = real(1) / s;
        for (int y = L; y < q; y += S)
            F[y] *= is;
        team.sync();
        walsh_hadamard(F, q, team);
    }
    for (int y = L; y < q; y += S) {
        suffix[(long long)d * q + y] = real(1);
        for (int j = d - 1; j >= 0; --j) {
            suffix[(long long)j * q + y] =
                fwd[(long long)j * q + y] * suffix[(long long)(j + 1) * q + y];
        }
        prefix[y] = real(1);
    }
    team.sync();
    const real inv_q = real(1) / real(q);
    const real floor_ratio = ::exp(real(floor_log));
    for (int j = 0; j < d; ++j) {
        for (int y = L; y < q; y += S)
            tmp[y] = prefix[y] * suffix[(long long)(j + 1) * q + y];
        team.sync();
        walsh_hadamard(tmp, q, team);
        real mx = 0;
        for (int y = L; y < q; y += S) {
            tmp[y] *= inv_q;
            mx = tmp[y] > mx ? tmp[y] : mx;
        }
        mx = team.max(mx);
        team.sync();
        // S sums to 1, so mx >= 1/q up to rounding: the floor keeps every
        // value positive and at most 700 below the largest in the log
        const real fl = mx * floor_ratio;
        const int32_t* pm = perm + (long long)coef[e0 + j] * q;
        real* out = c2v + (long long)(e0 + j) * q;
        for (int x = L; x < q; x += S) {
            const real v = tmp[pm[x]];
            out[x] = ::log(v > fl ? v : fl);
        }
        for (int y = L; y < q; y += S)
            prefix[y] *= fwd[(long long)j * q + y];
        team.sync();
    }
}

//! check_node by one lane.
template <typename real>
BSID_HD void check_node(int e0,
                        int d,
                        int q,
                        const real* v2c,
                        real* c2v,
                        const int32_t* perm,
                        const int32_t* coef,
                        real* fwd,
                        real* suffix,
                        real* prefix,
                        real* tmp)
{
    check_node(e0, d, q, v2c, c2v, perm, coef, fwd, suffix, prefix, tmp, serial_team{});
}

/*!
 * \brief One variable node v: its posterior in(x) + sum of every c2v, and
 * each v2c: in(x) + the other edges' c2v, summed without the own term (never
 * total minus own: -inf - -inf is NaN), less its maximum.
 */
template <typename real, typename in_real, typename team_t>
BSID_HD void variable_node(int v,
                           int q,
                           const in_real* in,
                           const int32_t* col_start,
                           const int32_t* col_entries,
                           const real* c2v,
                           real* v2c,
                           real* posterior,
                           const team_t& team)
{
    const int L = team.lane(), S = team.size();
    const in_real* iv = in + (long long)v * q;
    const int k0 = col_start[v], k1 = col_start[v + 1];
    real* post = posterior + (long long)v * q;
    for (int x = L; x < q; x += S) {
        real acc = real(iv[x]);
        for (int k = k0; k < k1; ++k)
            acc += c2v[(long long)col_entries[k] * q + x];
        post[x] = acc;
    }
    for (int k = k0; k < k1; ++k) {
        real* out = v2c + (long long)col_entries[k] * q;
        real mx = real(-INFINITY);
        for (int x = L; x < q; x += S) {
            real acc = real(iv[x]);
            for (int l = k0; l < k1; ++l) {
                if (l != k)
                    acc += c2v[(long long)col_entries[l] * q + x];
            }
            out[x] = acc;
            mx = acc > mx ? acc : mx;
        }
        mx = team.max(mx);
        // row -= max(row); all 0 (uniform) if the row is all -infinity
        for (int x = L; x < q; x += S)
            out[x] = mx == real(-INFINITY) ? real(0) : out[x] - mx;
    }
}

//! variable_node by one lane.
template <typename real, typename in_real>
BSID_HD void variable_node(int v,
                           int q,
                           const in_real* in,
                           const int32_t* col_start,
                           const int32_t* col_entries,
                           const real* c2v,
                           real* v2c,
                           real* posterior)
{
    variable_node(v, q, in, col_start, col_entries, c2v, v2c, posterior, serial_team{});
}

//! decide over a team: the index of the largest of q values, ties to the lowest.
template <typename real, typename team_t>
BSID_HD int32_t decide(const real* row, int q, const team_t& team)
{
    int32_t best = team.lane() < q ? team.lane() : 0;
    real top = row[best];
    for (int x = team.lane() + team.size(); x < q; x += team.size()) {
        if (row[x] > top) {
            top = row[x];
            best = x;
        }
    }
    team.argmax(top, best);
    return best;
}

//! A variable's first v2c: its input row less its maximum, on every edge.
template <typename real, typename in_real>
BSID_HD void init_variable(int v,
                           int q,
                           const in_real* in,
                           const int32_t* col_start,
                           const int32_t* col_entries,
                           real* v2c)
{
    const in_real* iv = in + (long long)v * q;
    for (int k = col_start[v]; k < col_start[v + 1]; ++k) {
        real* out = v2c + (long long)col_entries[k] * q;
        for (int x = 0; x < q; ++x)
            out[x] = real(iv[x]);
        subtract_max(out, q);
    }
}

//! A variable's extrinsic output: the sum of its c2v, normalized (tmp: q).
template <typename real, typename out_real>
BSID_HD void variable_extrinsic(int v,
                                int q,
                                const int32_t* col_start,
                                const int32_t* col_entries,
                                const real* c2v,
                                real* tmp,
                                out_real* ext)
{
    for (int x = 0; x < q; ++x)
        tmp[x] = 0;
    for (int k = col_start[v]; k < col_start[v + 1]; ++k) {
        const real* m = c2v + (long long)col_entries[k] * q;
        for (int x = 0; x < q; ++x)
            tmp[x] += m[x];
    }
    normalize_lse(tmp, q, tmp);
    for (int x = 0; x < q; ++x)
        ext[(long long)v * q + x] = out_real(tmp[x]);
}

} // namespace bp
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_BP_MATH_H */
