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
// the vectors of eight doubles are passed between inlined functions only
#pragma GCC diagnostic ignored "-Wpsabi"
#include <gnuradio/bsid/core/estimation/event_counts.h>
#include <gnuradio/bsid/core/inner/model.h>
#include <algorithm>
#include <cstring>

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

namespace {

// The workspace of one pass over a state (before the zeros, the end weights
// and the scales that follow it). Edges: F and the diagonal weights
// (n + 1) Mn L each, B 2 Mn L. Counts: two rows of F and the two counts
// (6 Mn L), the end's lane sums (4 L), then the weights of the other letters
// (n A L) from counts_weights on.
size_t edges_work(int n, int Mn, int L)
{
    return size_t(2 * (n + 1) + 2) * size_t(Mn) * L;
}
size_t counts_weights(int Mn, int L) { return (6 * size_t(Mn) + 4) * size_t(L); }
size_t counts_work(int n, int Mn, int L, int A)
{
    return counts_weights(Mn, L) + size_t(n) * size_t(A) * size_t(L);
}

} // namespace

size_t index_events_scratch(int n, int Mn, int L, int A)
{
    // the larger pass, then a row of zeros, the end weights and the scales
    return std::max(edges_work(n, Mn, L), counts_work(n, Mn, L, A)) + size_t(L) +
           size_t(Mn) + size_t(L);
}

namespace {

inline __attribute__((always_inline)) void fill_lanes(double* p, int L, double v)
{
    BSID_LANES
    for (int l = 0; l < L; ++l)
        p[l] = v;
}

// One start state's corridor lattice (index_events_call's): node (r, k) has
// read r letters and item(r, k) items from the state's start.
struct state_geometry {
    int n, Mn, dlo, k0;
    long long start, avail; // the state's first item; the items from it
    state_geometry(const index_events_call& c, int a)
        : n(c.n),
          Mn(c.Mn),
          dlo(c.dlo),
          k0(-c.dlo),
          start(c.first + a),
          avail(c.rho - start)
    {
    }
    long long item(int r, int k) const { return (long long)r + dlo + k; }
    bool ok(int r, int k) const { return item(r, k) >= 0 && item(r, k) <= avail; }
    // the zero corner: nodes k < k0 - r of row r need more deletions than r
    // rows have
    int corner(int r) const { return std::clamp(k0 - r, 0, Mn); }
};

// The counts' two rows (state_counts): F, D and S of Mn nodes of L lanes
// each, row r in buffer r mod 2.
struct count_rows {
    double* rows;
    int Mn, L;
    size_t size() const { return 3 * size_t(Mn) * size_t(L); }
    double* row(int r) const { return rows + size_t(r & 1) * size(); }
    double* F(double* rw, int k) const { return rw + size_t(k) * L; }
    double* D(double* rw, int k) const { return rw + (size_t(Mn) + k) * L; }
    double* S(double* rw, int k) const { return rw + (2 * size_t(Mn) + k) * L; }
    //! node k of a row set to 0 in its three lattices
    void zero_node(double* rw, int k) const
    {
        for (double* p : { F(rw, k), D(rw, k), S(rw, k) })
            std::fill(p, p + L, 0.0);
    }
    //! the end's lane sums (end_counts), 4 L values after the two rows
    double* end_sums() const { return rows + 2 * size(); }
};

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
    const state_geometry g(c, a);
    const int n = g.n, Mn = g.Mn, k0 = g.k0;
    const double ins = c.ins, del = c.del;
    const double* yprob = c.prob + size_t(A) * size_t(g.start);
    auto at = [&](double* rows, int r, int k) { return rows + (size_t(r) * Mn + k) * L; };
    // row r's weights qw[(A r + b) L + l]
    auto qrow = [&](int r) { return c.qw + size_t(A) * size_t(r) * size_t(L); };

    // Forward (eqn:F, eqn:F_lastrow), the zero corner left as states()
    // zeroed it. DW(r, k): the diagonal weight into
    // node (r, k) (row r - 1's letter, item c - 1); it is also the weight
    // that node (r - 1, k)'s backward value reads.
    for (int k = 0; k < Mn; ++k) {
        double* f = at(F, 0, k);
        if (k == k0) {
            fill_lanes(f, L, 1.0);
        } else if (k > k0 && g.ok(0, k)) {
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
        const int kmin = g.corner(r);
        const double* qr = qrow(r - 1);
        for (int k = kmin; k < Mn; ++k) {
            double* f = at(F, r, k);
            double* dw = at(DW, r, k);
            const long long cc = g.item(r, k);
            if (!g.ok(r, k)) {
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
        const double e = g.ok(n, k) ? endw[k] : 0.0;
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
        for (int k = g.corner(r); k < Mn; ++k) {
            const long long cc = g.item(r, k);
            if (!g.ok(r, k))
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
                    to.del[l] += del * (fv[l] * b[l]);
            }
            if (insr != 0.0 && k >= 1 && cc >= 1) {
                const double* fh = at(F, r, k - 1);
                BSID_LANES
                for (int l = 0; l < L; ++l)
                    to.ins[l] += insr * (fh[l] * b[l]);
            }
        }
        if (r == 0)
            break;
        // B of row r - 1 right to left (its horizontal step reads node k + 1),
        // outside the corner: the corner's values feed only the corner
        const int kp = g.corner(r - 1);
        for (int k = Mn - 1; k >= kp; --k) {
            double* bp = Bprev + size_t(k) * L;
            const long long cc = g.item(r - 1, k);
            if (!g.ok(r - 1, k)) {
                fill_lanes(bp, L, 0.0);
                continue;
            }
            // the diagonal to (r, k) and the horizontal to (r - 1, k + 1)
            // read item cc; node (r, k) is in the lattice exactly then
            const bool next = cc + 1 <= g.avail;
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

// Row n of the counts' lattices (state_counts) weighted by the end weights,
// in lanes: the paths' weight, their deletions (over del), drift changes and
// substitutions, added to the lanes' sums with the lanes' scales. Nodes
// outside the frame hold 0. acc: 4 L values of workspace. Returns the lanes'
// total weight.
template <int LS>
inline __attribute__((always_inline)) double end_counts(const index_events_call& c,
                                                        const state_geometry& g,
                                                        const count_rows& cr,
                                                        const double* endw,
                                                        const double* scale)
{
    const int L = LS ? LS : c.L;
    const int n = g.n, k0 = g.k0;
    const double del = c.del;
    double* const acc = cr.end_sums();
    double *const t = acc, *const dd = acc + L, *const drift = acc + 2 * L,
                  *const sub = acc + 3 * L;
    std::fill(acc, acc + 4 * size_t(L), 0.0);
    double* const last = cr.row(n);
    for (int k = g.corner(n); k < g.Mn; ++k) {
        if (endw[k] == 0.0)
            continue;
        const double e = endw[k], de = double(k - k0) * endw[k];
        const double* f = cr.F(last, k);
        const double* d = cr.D(last, k);
        const double* sb = cr.S(last, k);
        BSID_LANES
        for (int l = 0; l < L; ++l) {
            t[l] += f[l] * e;
            drift[l] += f[l] * de;
            dd[l] += d[l] * e;
            sub[l] += sb[l] * e;
        }
    }
    const event_lanes& to = c.to;
    BSID_LANES
    for (int l = 0; l < L; ++l) {
        const event_counts e =
            model::counts_events(n, del, { t[l], dd[l], drift[l], sub[l] }, scale[l]);
        to.del[l] += e.del;
        to.ins[l] += e.ins;
        to.trans[l] += e.trans;
        to.subst[l] += e.subst;
    }
    double total = 0;
    for (int l = 0; l < L; ++l)
        total += t[l] * scale[l];
    return total;
}

// Row 0 of the counts' lattices (rows: F, D and S of Mn nodes of L lanes
// each): F(0, k0) = 1, insertions after it, D and S 0, and node k0 - 1 (the
// first that row 1 reads) 0. A row r below writes its nodes from its corner
// on and node corner(r) - 1 as 0, so the next row reads no value of an
// earlier state, and no row needs clearing.
inline void
counts_row0(const index_events_call& c, const state_geometry& g, const count_rows& cr)
{
    const int L = cr.L, k0 = g.k0;
    double* const r0 = cr.row(0);
    for (int k = std::max(k0 - 1, 0); k < g.Mn; ++k) {
        double* f = cr.F(r0, k);
        std::fill(cr.D(r0, k), cr.D(r0, k) + L, 0.0);
        std::fill(cr.S(r0, k), cr.S(r0, k) + L, 0.0);
        if (k == k0) {
            std::fill(f, f + L, 1.0);
        } else if (k > k0 && g.ok(0, k)) {
            const double* h = cr.F(r0, k - 1);
            for (int l = 0; l < L; ++l)
                f[l] = c.ins * h[l];
        } else {
            std::fill(f, f + L, 0.0);
        }
    }
}

// The counts of start state a by a forward pass alone (index_events_call:
// used when no item posteriors and no substitution counts are asked for):
// F and the count lattices D and S of event_counts.h (model::counts_cell),
// weighted at row n by the end weights and the lanes' scales
// (model::counts_events). Rows: 3 Mn L values each, two of them
// (the row before and the row being made), then the end's sums (4 L);
// MS(s, y): letter s's weight of receiving y where y is another letter,
// else 0.
template <int LS, int AS>
inline __attribute__((always_inline)) double state_counts(const index_events_call& c,
                                                          int a,
                                                          const double* endw,
                                                          const double* scale,
                                                          double* rows,
                                                          const double* MS,
                                                          const double* zeros)
{
    const int L = LS ? LS : c.L;
    const int A = AS ? AS : c.A;
    const state_geometry g(c, a);
    const int n = g.n, Mn = g.Mn;
    const double ins = c.ins, del = c.del;
    const double* yprob = c.prob + size_t(A) * size_t(g.start);
    const count_rows cr{ rows, Mn, L };

    counts_row0(c, g, cr);
    for (int r = 1; r <= n; ++r) {
        const double insr = r < n ? ins : 0.0;
        double* cur = cr.row(r);
        double* prev = cr.row(r - 1);
        const double* qr = c.qw + size_t(A) * size_t(r - 1) * size_t(L);
        const double* mr = MS + size_t(A) * size_t(r - 1) * size_t(L);
        if (g.corner(r) >= 1)
            cr.zero_node(cur, g.corner(r) - 1);
        for (int k = g.corner(r); k < Mn; ++k) {
            double* f = cr.F(cur, k);
            double* d = cr.D(cur, k);
            double* sb = cr.S(cur, k);
            const long long cc = g.item(r, k);
            if (!g.ok(r, k)) {
                fill_lanes(f, L, 0.0);
                fill_lanes(d, L, 0.0);
                fill_lanes(sb, L, 0.0);
                continue;
            }
            const bool has_vert = k + 1 < Mn, has_horz = k >= 1;
            const double* dF = cr.F(prev, k);
            const double* dD = cr.D(prev, k);
            const double* dS = cr.S(prev, k);
            const double* vF = has_vert ? cr.F(prev, k + 1) : zeros;
            const double* vD = has_vert ? cr.D(prev, k + 1) : zeros;
            const double* vS = has_vert ? cr.S(prev, k + 1) : zeros;
            // node k - 1 is 0 where it lies before the items (cc = 0)
            const double* hF = has_horz ? cr.F(cur, k - 1) : zeros;
            const double* hD = has_horz ? cr.D(cur, k - 1) : zeros;
            const double* hS = has_horz ? cr.S(cur, k - 1) : zeros;
            // no item before the node (cc = 0): no diagonal step into it;
            // for bits dw is exactly model::soft_diag's sum (0 + w0 q0 is w0 q0)
            const double* w = cc >= 1 ? yprob + size_t(A) * size_t(cc - 1) : nullptr;
            for (int l = 0; l < L; ++l) {
                double dw = 0, sw = 0;
                for (int y = 0; w && y < A; ++y) {
                    dw += w[y] * qr[size_t(y) * L + l];
                    sw += w[y] * mr[size_t(y) * L + l];
                }
                const model::count_node<double> v =
                    model::counts_cell(dw,
                                       sw,
                                       del,
                                       insr,
                                       { dF[l], dD[l], dS[l] },
                                       { vF[l], vD[l], vS[l] },
                                       { hF[l], hD[l], hS[l] });
                f[l] = v.F;
                d[l] = v.D;
                sb[l] = v.S;
            }
        }
    }
    return end_counts<LS>(c, g, cr, endw, scale);
}

// state_counts for bits with 8 NV lanes (q = 8 NV), in vectors of eight
// doubles held in registers: the node before in the row (its three values,
// which the next node's horizontal step reads) and the row's letter weights
// stay in registers, so that the row's chain is one multiply-add a node.
// Hard items (hard: every item's probabilities are 0 and 1) pick the weights
// of the letter received; soft ones sum them as model::soft_diag.
typedef double d8 __attribute__((vector_size(8 * sizeof(double))));

inline __attribute__((always_inline)) d8 load8(const double* p)
{
    d8 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

inline __attribute__((always_inline)) void store8(double* p, d8 v)
{
    std::memcpy(p, &v, sizeof v);
}

template <int NV>
inline __attribute__((always_inline)) double state_counts_bits(const index_events_call& c,
                                                               int a,
                                                               const double* endw,
                                                               const double* scale,
                                                               double* rows,
                                                               const double* MS)
{
    constexpr int L = 8 * NV;
    const state_geometry g(c, a);
    const int n = g.n, Mn = g.Mn;
    const double ins = c.ins, del = c.del;
    const double* yprob = c.prob + 2 * size_t(g.start);
    const count_rows cr{ rows, Mn, L };
    const d8 zero = d8{} * 0.0;
    const d8 vdel = zero + del;

    counts_row0(c, g, cr);
    for (int r = 1; r <= n; ++r) {
        const d8 vins = zero + (r < n ? ins : 0.0);
        double* cur = cr.row(r);
        double* prev = cr.row(r - 1);
        const double* qr = c.qw + 2 * size_t(r - 1) * size_t(L);
        const double* mr = MS + 2 * size_t(r - 1) * size_t(L);
        d8 q0[NV], q1[NV], m0[NV], m1[NV];
        for (int v = 0; v < NV; ++v) {
            q0[v] = load8(qr + 8 * v);
            q1[v] = load8(qr + L + 8 * v);
            m0[v] = load8(mr + 8 * v);
            m1[v] = load8(mr + L + 8 * v);
        }
        if (g.corner(r) >= 1)
            cr.zero_node(cur, g.corner(r) - 1);
        // node k - 1 of this row: in the corner or before the items, 0
        d8 hF[NV], hD[NV], hS[NV];
        for (int v = 0; v < NV; ++v)
            hF[v] = hD[v] = hS[v] = zero;
        for (int k = g.corner(r); k < Mn; ++k) {
            const long long cc = g.item(r, k);
            if (!g.ok(r, k)) {
                for (int v = 0; v < NV; ++v) {
                    store8(cr.F(cur, k) + 8 * v, zero);
                    store8(cr.D(cur, k) + 8 * v, zero);
                    store8(cr.S(cur, k) + 8 * v, zero);
                    hF[v] = hD[v] = hS[v] = zero;
                }
                continue;
            }
            const bool has_vert = k + 1 < Mn;
            double w0 = 0.0, w1 = 0.0;
            int y = 0;
            if (cc >= 1) {
                w0 = yprob[2 * (cc - 1)];
                w1 = yprob[2 * (cc - 1) + 1];
                y = w1 != 0.0;
            }
            for (int v = 0; v < NV; ++v) {
                const d8 dF = load8(cr.F(prev, k) + 8 * v);
                const d8 dD = load8(cr.D(prev, k) + 8 * v);
                const d8 dS = load8(cr.S(prev, k) + 8 * v);
                const d8 vF = has_vert ? load8(cr.F(prev, k + 1) + 8 * v) : zero;
                const d8 vD = has_vert ? load8(cr.D(prev, k + 1) + 8 * v) : zero;
                const d8 vS = has_vert ? load8(cr.S(prev, k + 1) + 8 * v) : zero;
                d8 dw, sw;
                if (cc < 1) {
                    dw = sw = zero; // no item before the node: no diagonal step
                } else if (c.hard) {
                    dw = load8(qr + size_t(y) * L + 8 * v);
                    sw = load8(mr + size_t(y) * L + 8 * v);
                } else {
                    const d8 vw0 = zero + w0, vw1 = zero + w1;
                    dw = model::soft_diag(vw0, vw1, q0[v], q1[v]);
                    sw = vw0 * m0[v] + vw1 * m1[v];
                }
                const model::count_node<d8> o =
                    model::counts_cell(dw,
                                       sw,
                                       vdel,
                                       vins,
                                       { dF, dD, dS },
                                       { vF, vD, vS },
                                       { hF[v], hD[v], hS[v] });
                store8(cr.F(cur, k) + 8 * v, o.F);
                store8(cr.D(cur, k) + 8 * v, o.D);
                store8(cr.S(cur, k) + 8 * v, o.S);
                hF[v] = o.F;
                hD[v] = o.D;
                hS[v] = o.S;
            }
        }
    }
    return end_counts<L>(c, g, cr, endw, scale);
}

// Every start state of the index with weight (index_events).
template <int LS, int AS>
inline __attribute__((always_inline)) double states(const index_events_call& c)
{
    const int L = LS ? LS : c.L;
    const int A = AS ? AS : c.A;
    const size_t row = size_t(c.Mn) * size_t(L);
    // the counts by a forward pass where neither item posteriors nor
    // substitution counts are asked for, else the edges (forward, backward)
    const bool counts = c.to.items == nullptr && c.to.pairs == nullptr;
    const size_t work = counts ? counts_work(c.n, c.Mn, L, A) : edges_work(c.n, c.Mn, L);
    double* F = c.scratch;
    double* DW = F + size_t(c.n + 1) * row;
    double* B = DW + size_t(c.n + 1) * row;
    double* MS =
        c.scratch + counts_weights(c.Mn, L); // counts: the other letters' weights
    double* zeros = c.scratch + work;
    double* endw = zeros + L;
    double* scale = endw + c.Mn;
    std::fill(zeros, zeros + L, 0.0);
    if (counts) {
        for (int r = 0; r < c.n; ++r) {
            for (int y = 0; y < A; ++y) {
                const size_t at = (size_t(A) * size_t(r) + size_t(y)) * size_t(L);
                const double* xr = c.x + size_t(r) * size_t(L);
                for (int l = 0; l < L; ++l)
                    MS[at + size_t(l)] = xr[l] != double(y) ? c.qw[at + size_t(l)] : 0.0;
            }
        }
    } else {
        // the forward values' zero corner, which no state writes
        for (int r = 0; r <= c.n; ++r)
            std::fill(F + size_t(r) * row,
                      F + size_t(r) * row + size_t(std::clamp(-c.dlo - r, 0, c.Mn)) * L,
                      0.0);
    }
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
        if (!counts) {
            lambda += state_events<LS, AS>(c, a, endw, scale, F, DW, B, zeros);
        } else {
            if constexpr (AS == 2 && LS > 0 && LS % 8 == 0)
                lambda += state_counts_bits<LS / 8>(c, a, endw, scale, F, MS);
            else
                lambda += state_counts<LS, AS>(c, a, endw, scale, F, MS, zeros);
        }
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
