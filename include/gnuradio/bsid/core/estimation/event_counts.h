/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_EVENT_COUNTS_H
#define INCLUDED_BSID_CORE_EVENT_COUNTS_H

/*
 * The E-step of channel estimation (docs/design.md section 3, "Channel estimation"): the
 * expected numbers of the channel's events in a frame given what was received, as sums of
 * edge posteriors over the decoder's own lattices. Written once for the CPU and CUDA
 * backends (host and device, like model.h).
 */

#include <gnuradio/bsid/core/inner/model.h>
#include <stddef.h>
#include <stdint.h>

namespace bsid {

/*!
 * \brief Expected numbers of the channel's events given what was received
 * (paper, "Channel Model": at each step an insertion, a deletion or a
 * transmission; a transmitted bit is flipped with probability Ps).
 */
struct event_counts {
    double ins = 0;   //!< insertions (random items added)
    double del = 0;   //!< deletions
    double trans = 0; //!< transmissions (bits sent and received)
    double subst = 0; //!< transmissions received flipped (substitutions)

    BSID_HD event_counts& operator+=(const event_counts& o)
    {
        ins += o.ins;
        del += o.del;
        trans += o.trans;
        subst += o.subst;
        return *this;
    }
};

namespace model {

/*
 * The counts by a forward pass (used where neither item posteriors nor
 * substitution counts are asked for): beside the lattice's forward values F,
 * two count lattices run forward through the same cells. D(r, k) is the
 * paths' weight times their deletions divided by del (a vertical step adds
 * the F it leaves), S(r, k) times their substitutions (a diagonal step adds
 * the F it leaves times the weight of receiving another letter). Weighted
 * at row n by the end weights they are the edges' posteriors summed, with no
 * backward pass: a path to node (n, k) makes n transmissions or deletions
 * and k - k0 more insertions than deletions. V: a double, or a vector of
 * lanes (the CPU's).
 */

//! A node of the counts' lattices: the paths' weight F, and D and S
template <typename V>
struct count_node {
    V F, D, S;
};

/*!
 * \brief A node of the counts' lattices from its diagonal, vertical and
 * horizontal predecessors (model::lattice_cell for each): dw is the diagonal
 * weight, sw its part where the letter received is another than the one sent.
 */
template <typename V>
BSID_HD count_node<V> counts_cell(V dw,
                                  V sw,
                                  V del,
                                  V ins,
                                  const count_node<V>& diag,
                                  const count_node<V>& vert,
                                  const count_node<V>& horz)
{
    return { lattice_cell(dw, diag.F, del, vert.F, ins, horz.F),
             lattice_cell(dw, diag.D, del, vert.D, ins, horz.D) + vert.F,
             lattice_cell(dw, diag.S, del, vert.S, ins, horz.S) + sw * diag.F };
}

//! Row n of the counts' lattices summed over its nodes, each times its end
//! weight e: the paths' weight, D, F (k - k0) and S
struct count_sums {
    double t = 0, dd = 0, drift = 0, sub = 0;

    //! node k (k - k0 = drift) with values F, D, S and end weight e
    BSID_HD void add(int drift_k, double e, double F, double D, double S)
    {
        const double de = double(drift_k) * e;
        t += F * e;
        drift += F * de;
        dd += D * e;
        sub += S * e;
    }
};

/*!
 * \brief The expected events of the paths that count_sums s sums, over n
 * rows with deletion weight del, scaled by sc (the lane's alpha and prior).
 */
BSID_HD event_counts counts_events(int n, double del, const count_sums& s, double sc)
{
    event_counts e;
    const double dels = del * s.dd * sc;
    e.del = dels;
    e.ins = dels + s.drift * sc;
    e.trans = double(n) * s.t * sc - dels;
    e.subst = s.sub * sc;
    return e;
}

// model::codeword_events (below) for an alphabet known at compile time
namespace events_detail {

// The diagonal weight of lane l sending letter row qr (qr[b L] for b =
// 0..A-1) and receiving an item of probabilities w: for bits exactly
// model::soft_diag, for A letters the same sum in order.
template <int AS>
BSID_HD double diag_weight(int A, const double* w, const double* qr, int L)
{
    if (AS == 2)
        return model::soft_diag(w[0], w[1], qr[0], qr[L]);
    double s = 0;
    for (int b = 0; b < A; ++b)
        s += w[b] * qr[size_t(b) * L];
    return s;
}

// codeword_events for A = AS letters (AS = 2: bits) or any A (AS = 0).
template <int AS, typename Item>
BSID_HD double codeword_events_impl(int n,
                                    int dlo,
                                    int Mn,
                                    long long avail,
                                    double ins,
                                    double del,
                                    int L,
                                    int A,
                                    const double* qw,
                                    const uint8_t* x,
                                    const double* yprob,
                                    const double* endw,
                                    const double* scale,
                                    double* F,
                                    double* B,
                                    event_counts& out,
                                    const Item& item,
                                    double* pairs)
{
    if (AS != 0)
        A = AS;
    const int k0 = -dlo;
    auto at = [&](double* rows, int r, int k) { return rows + (size_t(r) * Mn + k) * L; };
    auto ok = [&](int r, int k) {
        const long long c = (long long)r + dlo + k;
        return c >= 0 && c <= avail;
    };
    // row r's diagonal weights start at qw[A r L]: qrow(r)[b L + l]
    auto qrow = [&](int r) { return qw + size_t(A) * size_t(r) * size_t(L); };

    // Forward: row 0 (insertions only), then rows 1..n (eqn:F, eqn:F_lastrow).
    for (int k = 0; k < Mn; ++k) {
        double* f = at(F, 0, k);
        for (int l = 0; l < L; ++l)
            f[l] = k == k0 ? 1.0 : (k > k0 && ok(0, k)) ? ins * at(F, 0, k - 1)[l] : 0.0;
    }
    for (int r = 1; r <= n; ++r) {
        const double insr = r < n ? ins : 0.0;
        for (int k = 0; k < Mn; ++k) {
            double* f = at(F, r, k);
            const long long c = (long long)r + dlo + k;
            if (!ok(r, k)) {
                for (int l = 0; l < L; ++l)
                    f[l] = 0.0;
                continue;
            }
            const double* w = c >= 1 ? yprob + size_t(A) * size_t(c - 1) : nullptr;
            const double* diag = at(F, r - 1, k);
            const double* vert = k + 1 < Mn ? at(F, r - 1, k + 1) : nullptr;
            const double* horz = k >= 1 && c >= 1 ? at(F, r, k - 1) : nullptr;
            const double* qr = qrow(r - 1);
            for (int l = 0; l < L; ++l) {
                f[l] = model::lattice_cell(w ? diag_weight<AS>(A, w, qr + l, L) : 0.0,
                                           diag[l],
                                           del,
                                           vert ? vert[l] : 0.0,
                                           insr,
                                           horz ? horz[l] : 0.0);
            }
        }
    }

    // Backward from row n, the edges into each row as soon as its B is known.
    double* Bcur = B;                   // row r
    double* Bprev = B + size_t(Mn) * L; // row r - 1
    double total = 0;
    for (int k = 0; k < Mn; ++k) {
        const double* f = at(F, n, k);
        for (int l = 0; l < L; ++l) {
            Bcur[size_t(k) * L + l] = ok(n, k) ? endw[k] : 0.0;
            total += scale[l] * f[l] * Bcur[size_t(k) * L + l];
        }
    }
    for (int r = n; r >= 0; --r) {
        const double insr = r < n ? ins : 0.0;
        // edges into row r's nodes: diagonal and vertical from row r - 1,
        // horizontal within row r
        for (int k = 0; k < Mn; ++k) {
            const long long c = (long long)r + dlo + k;
            if (!ok(r, k))
                continue;
            const double* b = Bcur + size_t(k) * L;
            if (r >= 1 && c >= 1) {
                const double* fd = at(F, r - 1, k);
                const double* qr = qrow(r - 1);
                const uint8_t* xr = x + size_t(r - 1) * L;
                const double* w = yprob + size_t(A) * size_t(c - 1);
                if (AS == 2) {
                    const double* q0 = qr;
                    const double* q1 = qr + L;
                    const double w0 = w[0], w1 = w[1];
                    double s0 = 0, s1 = 0, sub = 0;
                    for (int l = 0; l < L; ++l) {
                        const double e = fd[l] * b[l] * scale[l];
                        const double v0 = e * q0[l] * w0, v1 = e * q1[l] * w1;
                        s0 += v0;
                        s1 += v1;
                        sub += xr[l] ? v0 : v1;
                        if (pairs) {
                            pairs[2 * xr[l]] += v0;
                            pairs[2 * xr[l] + 1] += v1;
                        }
                    }
                    out.trans += s0 + s1;
                    out.subst += sub;
                    if (s0 > 0)
                        item(c - 1, 0, s0);
                    if (s1 > 0)
                        item(c - 1, 1, s1);
                } else {
                    // received letter by letter (a hard item: only its own)
                    for (int y = 0; y < A; ++y) {
                        const double wy = w[y];
                        if (wy == 0.0)
                            continue;
                        const double* qy = qr + size_t(y) * L;
                        double s = 0, sub = 0;
                        for (int l = 0; l < L; ++l) {
                            const double v = fd[l] * b[l] * scale[l] * qy[l] * wy;
                            s += v;
                            if (xr[l] != y)
                                sub += v;
                            if (pairs)
                                pairs[size_t(xr[l]) * A + y] += v;
                        }
                        out.trans += s;
                        out.subst += sub;
                        if (s > 0)
                            item(c - 1, y, s);
                    }
                }
            }
            if (r >= 1 && k + 1 < Mn) {
                const double* fv = at(F, r - 1, k + 1);
                double s = 0;
                for (int l = 0; l < L; ++l)
                    s += fv[l] * b[l] * scale[l];
                out.del += del * s;
            }
            if (insr != 0.0 && k >= 1 && c >= 1) {
                const double* fh = at(F, r, k - 1);
                double s = 0;
                for (int l = 0; l < L; ++l)
                    s += fh[l] * b[l] * scale[l];
                out.ins += insr * s;
            }
        }
        if (r == 0)
            break;
        // B of row r - 1, right to left (its horizontal step reads node k + 1)
        const double insp = ins; // row r - 1 < n has insertions
        for (int k = Mn - 1; k >= 0; --k) {
            double* bp = Bprev + size_t(k) * L;
            const long long c = (long long)(r - 1) + dlo + k;
            if (!ok(r - 1, k)) {
                for (int l = 0; l < L; ++l)
                    bp[l] = 0.0;
                continue;
            }
            // diagonal to (r, k) and horizontal to (r - 1, k + 1) read item c
            const bool next = c + 1 <= avail;
            const double* w = next ? yprob + size_t(A) * size_t(c) : nullptr;
            const double* qr = qrow(r - 1);
            const double* bd = Bcur + size_t(k) * L;
            const double* bv = k >= 1 ? Bcur + size_t(k - 1) * L : nullptr;
            const double* bh = next && k + 1 < Mn ? Bprev + size_t(k + 1) * L : nullptr;
            for (int l = 0; l < L; ++l) {
                bp[l] = model::lattice_cell(w ? diag_weight<AS>(A, w, qr + l, L) : 0.0,
                                            bd[l],
                                            del,
                                            bv ? bv[l] : 0.0,
                                            insp,
                                            bh ? bh[l] : 0.0);
            }
        }
        double* t = Bcur;
        Bcur = Bprev;
        Bprev = t;
    }
    return total;
}

} // namespace events_detail

/*!
 * \brief The edge posteriors of one codeword's corridor lattice, for L
 * codewords at once (lanes; the CPU runs all q, a CUDA thread one), over an
 * alphabet of A letters (2: bits).
 *
 * The lattice is the decoder's (eqn:F, eqn:F_lastrow, in the weights the
 * caller gives: the decoders' likelihood ratios): node (r, k) has read r
 * transmitted letters and c = r + dlo + k received items from the codeword's
 * start, 0 <= c <= avail. Forward values F come from F(0, -dlo) = 1 by
 * model::lattice_cell; backward values B from the end weights of row n by
 * the same cell run the other way (B(r, c) = diag B(r+1, c+1) + del B(r+1, c)
 * + ins B(r, c+1)). An edge u -> v of weight w then has the posterior
 * scale F(u) w B(v). With scale[l] = alpha_i(m') P(D) / lambda_i and end
 * weights beta_{i+1}, the edges of all (m', D) of index i sum to the
 * expected events of codeword i given the frame.
 *
 * A diagonal edge is split by what arrived: the item was received as b with
 * weight qw(r, b) w_c(b) (the channel's weight of sending the lane's letter
 * and receiving b, times the item's probability of being b; the diagonal
 * weight is their sum over b, model::soft_diag for bits), so a
 * substitution's posterior is exact for soft items too.
 *
 * \param n,dlo,Mn rows 0..n, corridor [dlo, dlo + Mn - 1]
 * \param avail    received items from the codeword's start
 * \param ins,del  horizontal and vertical step weights (no insertion on row n)
 * \param L        lanes
 * \param A        letters of the alphabet (2 for bits)
 * \param qw       qw[(A r + b) L + l]: diagonal weight of sending letter r of
 *                 lane l and receiving b
 * \param x        x[r L + l]: letter r of lane l's codeword
 * \param yprob    items' probabilities w(0) .. w(A - 1), A per item from the
 *                 codeword's start (a hard letter b: 1 at b, 0 elsewhere)
 * \param endw     Mn weights of row n's nodes (0 where not allowed)
 * \param scale    L factors, one per lane
 * \param F        (n + 1) Mn L values of workspace
 * \param B        2 Mn L values of workspace
 * \param out      receives the lanes' expected events (added)
 * \param item     item(c, b, v): item c was transmitted and received as b
 *                 with posterior v (summed over the lanes; called only for
 *                 v > 0)
 * \param pairs    null, or A x A sums that receive (added) the posterior of
 *                 each transmission of letter x received as b at [x A + b]
 *                 (the substitution matrix's counts)
 * \return         the lanes' total weight, sum over l of scale[l] times
 *                 sum over k of F(n, k) endw[k] (what the edges of a row of
 *                 the lattice sum to: the caller normalizes by its sum)
 */
template <typename Item>
BSID_HD double codeword_events(int n,
                               int dlo,
                               int Mn,
                               long long avail,
                               double ins,
                               double del,
                               int L,
                               int A,
                               const double* qw,
                               const uint8_t* x,
                               const double* yprob,
                               const double* endw,
                               const double* scale,
                               double* F,
                               double* B,
                               event_counts& out,
                               const Item& item,
                               double* pairs = nullptr)
{
    if (A == 2)
        return events_detail::codeword_events_impl<2>(n,
                                                      dlo,
                                                      Mn,
                                                      avail,
                                                      ins,
                                                      del,
                                                      L,
                                                      A,
                                                      qw,
                                                      x,
                                                      yprob,
                                                      endw,
                                                      scale,
                                                      F,
                                                      B,
                                                      out,
                                                      item,
                                                      pairs);
    return events_detail::codeword_events_impl<0>(n,
                                                  dlo,
                                                  Mn,
                                                  avail,
                                                  ins,
                                                  del,
                                                  L,
                                                  A,
                                                  qw,
                                                  x,
                                                  yprob,
                                                  endw,
                                                  scale,
                                                  F,
                                                  B,
                                                  out,
                                                  item,
                                                  pairs);
}

} // namespace model
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_EVENT_COUNTS_H */
