/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One index's E-step on the CPU (index_events_cpu.h): model::codeword_events'
// lattice with the q codewords as lanes, compiled once per instruction set
// and, for the common q, with the lanes known at compile time, so that every
// lane loop is a few whole vectors. The cells are model.h's.

#include "estimation/index_events_cpu.h"
#include <gnuradio/bsid/core/inner/model.h>
#include <algorithm>

// Before a loop over the lanes: they are independent, so vectorize without
// overlap checks; and do not unroll it first (GCC unrolls a loop of 16 known
// iterations completely before the vectorizer sees it, and then vectorizes
// the straight-line code only in part: docs/benchmarks.md, "Round 3: the
// CPU's E-step by lanes").
#if defined(__GNUC__) && !defined(__clang__)
#define BSID_LANES _Pragma("GCC ivdep") _Pragma("GCC unroll 1")
#else
#define BSID_LANES
#endif

namespace bsid {
namespace cpu {

size_t index_events_scratch(int n, int Mn, int L)
{
    // F and the diagonal weights (n + 1) Mn L each, B 2 Mn L, a row of
    // zeros, the end weights and the scales
    const size_t row = size_t(Mn) * size_t(L);
    return 2 * size_t(n + 1) * row + 2 * row + size_t(L) + size_t(Mn) + size_t(L);
}

namespace {

inline __attribute__((always_inline)) void fill_lanes(double* p, int L, double v)
{
    BSID_LANES
    for (int l = 0; l < L; ++l)
        p[l] = v;
}

// The lattice of start state a (index_events_call's), its lanes scaled by
// scale (L), its end weights endw (Mn); the edges' posteriors added to the
// lanes' sums. Returns the lanes' total weight.
template <int LS, int AS>
inline __attribute__((always_inline)) double state_events(const index_events_call& c,
                                                          int a,
                                                          const double* endw,
                                                          const double* scale,
                                                          double* F,
                                                          double* DW,
                                                          double* B,
                                                          const double* zeros)
{
    const int L = LS ? LS : c.L;
    const int A = AS ? AS : c.A;
    const int n = c.n, Mn = c.Mn, dlo = c.dlo, k0 = -dlo;
    const double ins = c.ins, del = c.del;
    const long long start = c.first + a;
    const long long avail = c.rho - start;
    const double* yprob = c.prob + size_t(A) * size_t(start);
    auto at = [&](double* rows, int r, int k) { return rows + (size_t(r) * Mn + k) * L; };
    auto item = [&](int r, int k) { return (long long)r + dlo + k; };
    auto ok = [&](int r, int k) { return item(r, k) >= 0 && item(r, k) <= avail; };
    // row r's weights qw[(A r + b) L + l]
    auto qrow = [&](int r) { return c.qw + size_t(A) * size_t(r) * size_t(L); };
    // the zero corner: nodes k < k0 - r of row r need more deletions than
    // r rows have, so their forward values are 0
    auto corner = [&](int r) { return std::clamp(k0 - r, 0, Mn); };

    // Forward (eqn:F, eqn:F_lastrow), the zero corner left as states()
    // zeroed it. DW(r, k): the diagonal weight into
    // node (r, k) (row r - 1's letter, item c - 1); it is also the weight
    // that node (r - 1, k)'s backward value reads.
    for (int k = 0; k < Mn; ++k) {
        double* f = at(F, 0, k);
        if (k == k0) {
            fill_lanes(f, L, 1.0);
        } else if (k > k0 && ok(0, k)) {
            const double* h = at(F, 0, k - 1);
            BSID_LANES
            for (int l = 0; l < L; ++l)
                f[l] = ins * h[l];
        } else {
            fill_lanes(f, L, 0.0);
        }
    }
    for (int r = 1; r <= n; ++r) {
        const double insr = r < n ? ins : 0.0;
        const int kmin = corner(r);
        const double* qr = qrow(r - 1);
        for (int k = kmin; k < Mn; ++k) {
            double* f = at(F, r, k);
            double* dw = at(DW, r, k);
            const long long cc = item(r, k);
            if (!ok(r, k)) {
                fill_lanes(f, L, 0.0);
                continue;
            }
            if (cc >= 1) {
                const double* w = yprob + size_t(A) * size_t(cc - 1);
                if (AS == 2) {
                    const double w0 = w[0], w1 = w[1];
                    BSID_LANES
                    for (int l = 0; l < L; ++l)
                        dw[l] = model::soft_diag(w0, w1, qr[l], qr[L + l]);
                } else {
                    fill_lanes(dw, L, 0.0);
                    for (int b = 0; b < A; ++b) {
                        const double wb = w[b];
                        const double* qb = qr + size_t(b) * L;
                        BSID_LANES
                        for (int l = 0; l < L; ++l)
                            dw[l] += wb * qb[l];
                    }
                }
            } else {
                fill_lanes(dw, L, 0.0);
            }
            const double* diag = at(F, r - 1, k);
            const double* vert = k + 1 < Mn ? at(F, r - 1, k + 1) : zeros;
            const double* horz = k >= 1 && cc >= 1 ? at(F, r, k - 1) : zeros;
            BSID_LANES
            for (int l = 0; l < L; ++l)
                f[l] = model::lattice_cell(dw[l], diag[l], del, vert[l], insr, horz[l]);
        }
    }

    // Backward from row n, its values scaled by the lanes' scales, and the
    // edges into each row as soon as its values are known.
    double* Bcur = B;                   // row r
    double* Bprev = B + size_t(Mn) * L; // row r - 1
    double total = 0;
    for (int k = 0; k < Mn; ++k) {
        const double* f = at(F, n, k);
        double* b = Bcur + size_t(k) * L;
        const double e = ok(n, k) ? endw[k] : 0.0;
        BSID_LANES
        for (int l = 0; l < L; ++l)
            b[l] = e * scale[l];
        for (int l = 0; l < L; ++l)
            total += f[l] * b[l];
    }
    const event_lanes& to = c.to;
    double* const items = to.items + size_t(A) * size_t(a) * size_t(L);
    for (int r = n; r >= 0; --r) {
        const double insr = r < n ? ins : 0.0;
        const double* xr = r >= 1 ? c.x + size_t(r - 1) * L : nullptr;
        const double* qr = r >= 1 ? qrow(r - 1) : nullptr;
        for (int k = corner(r); k < Mn; ++k) {
            const long long cc = item(r, k);
            if (!ok(r, k))
                continue;
            const double* b = Bcur + size_t(k) * L;
            if (r >= 1 && cc >= 1) {
                // diagonal edges, split by the letter received
                const double* fd = at(F, r - 1, k);
                const double* w = yprob + size_t(A) * size_t(cc - 1);
                double* it = items + size_t(A) * size_t(cc - 1) * L;
                for (int y = 0; y < A; ++y) {
                    const double wy = w[y];
                    if (wy == 0.0)
                        continue;
                    const double* qy = qr + size_t(y) * L;
                    double* iy = it + size_t(y) * L;
                    BSID_LANES
                    for (int l = 0; l < L; ++l) {
                        const double v = fd[l] * b[l] * qy[l] * wy;
                        to.trans[l] += v;
                        to.subst[l] += xr[l] != double(y) ? v : 0.0;
                        iy[l] += v;
                    }
                    if (to.pairs) {
                        for (int x = 0; x < A; ++x) {
                            double* p = to.pairs + (size_t(x) * A + y) * L;
                            BSID_LANES
                            for (int l = 0; l < L; ++l) {
                                const double v = fd[l] * b[l] * qy[l] * wy;
                                p[l] += xr[l] == double(x) ? v : 0.0;
                            }
                        }
                    }
                }
            }
            if (r >= 1 && k + 1 < Mn) {
                const double* fv = at(F, r - 1, k + 1);
                BSID_LANES
                for (int l = 0; l < L; ++l)
                    to.del[l] += fv[l] * b[l];
            }
            if (insr != 0.0 && k >= 1 && cc >= 1) {
                const double* fh = at(F, r, k - 1);
                BSID_LANES
                for (int l = 0; l < L; ++l)
                    to.ins[l] += fh[l] * b[l];
            }
        }
        if (r == 0)
            break;
        // B of row r - 1 right to left (its horizontal step reads node k + 1),
        // outside the corner: the corner's values feed only the corner
        const int kp = corner(r - 1);
        for (int k = Mn - 1; k >= kp; --k) {
            double* bp = Bprev + size_t(k) * L;
            const long long cc = item(r - 1, k);
            if (!ok(r - 1, k)) {
                fill_lanes(bp, L, 0.0);
                continue;
            }
            // the diagonal to (r, k) and the horizontal to (r - 1, k + 1)
            // read item cc; node (r, k) is in the lattice exactly then
            const bool next = cc + 1 <= avail;
            const double* dw = next ? at(DW, r, k) : zeros;
            const double* bd = Bcur + size_t(k) * L;
            const double* bv = k >= 1 ? Bcur + size_t(k - 1) * L : zeros;
            const double* bh = next && k + 1 < Mn ? Bprev + size_t(k + 1) * L : zeros;
            BSID_LANES
            for (int l = 0; l < L; ++l)
                bp[l] = model::lattice_cell(dw[l], bd[l], del, bv[l], ins, bh[l]);
        }
        std::swap(Bcur, Bprev);
    }
    return total;
}

// Every start state of the index with weight (index_events).
template <int LS, int AS>
inline __attribute__((always_inline)) double states(const index_events_call& c)
{
    const int L = LS ? LS : c.L;
    const size_t row = size_t(c.Mn) * size_t(L);
    double* F = c.scratch;
    double* DW = F + size_t(c.n + 1) * row;
    double* B = DW + size_t(c.n + 1) * row;
    double* zeros = B + 2 * row;
    double* endw = zeros + L;
    double* scale = endw + c.Mn;
    std::fill(zeros, zeros + L, 0.0);
    // the forward values' zero corner, which no state writes
    for (int r = 0; r <= c.n; ++r)
        std::fill(F + size_t(r) * row,
                  F + size_t(r) * row + size_t(std::clamp(-c.dlo - r, 0, c.Mn)) * L,
                  0.0);
    double lambda = 0;
    for (int a = c.lo; a < c.hi; ++a) {
        if (c.alpha[a] == 0.0 || !(c.mass[a] >= c.negligible))
            continue;
        bool any = false;
        for (int e = 0; e < c.Mn; ++e) {
            const int b = a + c.dlo + e;
            endw[e] = b >= 0 && b < c.Mt ? c.beta_next[b] : 0.0;
            any = any || endw[e] != 0.0;
        }
        if (!any)
            continue;
        for (int D = 0; D < L; ++D)
            scale[D] = c.alpha[a] * (c.prior ? c.prior[D] : 1.0 / L);
        lambda += state_events<LS, AS>(c, a, endw, scale, F, DW, B, zeros);
    }
    return lambda;
}

// bits or letters; the lanes of q = 16 (S500 and the most common codes)
// and 8 known at compile time
template <int AS>
inline __attribute__((always_inline)) double entry(const index_events_call& c)
{
    return c.L == 16 ? states<16, AS>(c) : c.L == 8 ? states<8, AS>(c) : states<0, AS>(c);
}

#define BSID_EVENTS_ENTRY(NAME, ATTR)                \
    ATTR double NAME(const index_events_call& c)     \
    {                                                \
        return c.A == 2 ? entry<2>(c) : entry<0>(c); \
    }

BSID_EVENTS_ENTRY(states_base, )
#if BSID_ISA_X86
BSID_EVENTS_ENTRY(states_v3, BSID_TARGET_V3)
BSID_EVENTS_ENTRY(states_v4, BSID_TARGET_V4)
#else
#define states_v3 states_base
#define states_v4 states_base
#endif

} // namespace

double index_events(isa i, const index_events_call& call)
{
    return isa_entry(i, &states_base, &states_v3, &states_v4, "index_events")(call);
}

} // namespace cpu
} // namespace bsid
