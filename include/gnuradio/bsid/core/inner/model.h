/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_MODEL_H
#define INCLUDED_BSID_CORE_MODEL_H

/*
 * The decoder's model, written once for every backend (paper, "The MAP
 * Decoder"): the lattice's step weights and cells (eqn:F, eqn:F_lastrow),
 * one step of the forward and backward recursions (eqn:alpha, eqn:beta) and
 * their normalization (eqn:alpha_norm). The CPU backend (lattice.cc,
 * map_decoder_cpu.cc) and the CUDA kernels (lib/cuda) call these functions;
 * this header compiles as plain C++ and under nvcc (host and device).
 *
 * The frame's boundary conditions (alpha_0 and beta_N) are data, not code:
 * map_decoder::boundaries() makes them, every backend reads them.
 */

#include <gnuradio/bsid/core/channel/channel_model.h>
#include <gnuradio/bsid/core/runtime/host_device.h> // BSID_HD
#include <math.h>                                   // exp (host and device)

namespace bsid {

namespace model {

/*!
 * The soft-input model (docs/design.md section 3, "Soft input"): a received
 * item j is an LLR l = ln p(r_j | 1) - ln p(r_j | 0) (positive means 1), and
 * weighs w(1) = 1 / (1 + e^-l) if bit 1 was sent, w(0) = 1 / (1 + e^l) if
 * bit 0 was. Each is computed directly, never as 1 - the other (which
 * cancels to 0 in float for |l| above about 17); l = +inf and -inf give
 * exactly (0, 1) and (1, 0), a hard 1 and a hard 0. l must not be NaN (the
 * decoders refuse such a frame before they get here).
 */
BSID_HD void llr_probabilities(double l, double& w0, double& w1)
{
    w1 = 1.0 / (1.0 + exp(-l));
    w0 = 1.0 / (1.0 + exp(l));
}

/*!
 * The diagonal (transmission) weight of a soft item: h0 and h1 are the
 * weights had the item been a hard 0 or a hard 1 (lattice_weights::diag), so
 * that Pt ((1 - Ps) w(x) + Ps w(1 - x)) comes out in whatever scale h0 and h1
 * carry. A hard item (w = (1, 0) or (0, 1)) gives h0 or h1 exactly.
 */
template <typename real>
BSID_HD real soft_diag(real w0, real w1, real h0, real h1)
{
    return w0 * h0 + w1 * h1;
}

} // namespace model

/*!
 * \brief Weights of the lattice steps of the receiver metric (eqn:F), over
 * the channel model `Channel` (channel/channel_model.h; the binary BSID
 * channel unless named). Below, q is the model's alphabet size (2 for
 * bits).
 *
 * exact(): a horizontal step (an insertion of a random letter) weighs Pi/q, a
 * vertical step (a deletion) Pd, a diagonal step (a transmission) Pt (1 - Ps)
 * if the letters agree and Pt Ps if they differ (binary): F(n, c) =
 * R(y[0..c) | x).
 *
 * ratio(): what the decoders use. Every step that consumes a received letter
 * is weighed against a random letter (multiplied by q: a likelihood ratio),
 * and every step that consumes a transmitted letter is divided by Pt:
 *   ins = Pi, del = Pd / Pt, match = 2 (1 - Ps), mismatch = 2 Ps (binary),
 * so that F(n, c) = R(y[0..c) | x) q^c / Pt^n. The factor q^c makes the
 * forward (and backward) metrics of drift states that have read different
 * numbers of received letters comparable: without it a state that has read k
 * fewer letters outweighs the true one by about q^k, and in float the state
 * where the frame ends underflows. Along a frame the factors multiply to
 * q^rho / Pt^tau for every path, a constant: the normalized posteriors do
 * not change. Likely paths keep weights near 1.
 */
template <typename real, typename Channel = binary_bsid_model>
struct lattice_weights {
    using channel_model = Channel;

    real ins;      //!< horizontal step (exact: Pi / q; ratio: Pi)
    real del;      //!< vertical step (exact: Pd; ratio: Pd / Pt)
    real match;    //!< diagonal step, the letter received as sent
    real mismatch; //!< diagonal step, received as another letter (Channel::emission)

    static lattice_weights exact(const channel_params& ch)
    {
        return from(Channel::exact(ch));
    }
    static lattice_weights ratio(const channel_params& ch)
    {
        return from(Channel::ratio(ch));
    }

    //! The diagonal weight for transmitted letter x and received letter y.
    BSID_HD real diag(unsigned x, unsigned y) const
    {
        return Channel::emission(match, mismatch, x, y);
    }

    /*!
     * The diagonal weight for transmitted bit x and a soft received item of
     * probabilities (w0, w1) (model::llr_probabilities): the mixture
     * model::soft_diag of the weights for a received 0 and a received 1.
     * Soft items are LLRs: binary channels only.
     */
    BSID_HD real diag_soft(unsigned x, real w0, real w1) const
    {
        static_assert(Channel::alphabet_size == 2, "soft items (LLRs) are binary");
        return x ? model::soft_diag(w0, w1, mismatch, match)
                 : model::soft_diag(w0, w1, match, mismatch);
    }

private:
    static lattice_weights from(const step_weights& w)
    {
        return { real(w.ins), real(w.del), real(w.match), real(w.mismatch) };
    }
};

namespace model {

/*!
 * eqn:F: node (r, c) from its diagonal (r-1, c-1), vertical (r-1, c) and
 * horizontal (r, c-1) neighbours; a neighbour outside the corridor or the
 * received bits is passed as 0.
 */
template <typename real>
BSID_HD real lattice_cell(real wdiag, real diag, real del, real vert, real ins, real horz)
{
    return wdiag * diag + del * vert + ins * horz;
}

//! eqn:F_lastrow: row n has no horizontal step (no insertion after the last bit).
template <typename real>
BSID_HD real lattice_last_cell(real wdiag, real diag, real del, real vert)
{
    return wdiag * diag + del * vert;
}

/*!
 * The same cell with row r of the lattice divided by del^r, so that the
 * vertical step weighs 1 and a cell is two multiply-adds (the CUDA register
 * kernels): wdiag_del is the diagonal weight divided by del.
 */
template <typename real>
BSID_HD real
lattice_cell_unit_del(real wdiag_del, real diag, real vert, real ins, real horz)
{
    return ins * horz + (wdiag_del * diag + vert);
}

//! eqn:F_lastrow in the same form.
template <typename real>
BSID_HD real lattice_last_cell_unit_del(real wdiag_del, real diag, real vert)
{
    return wdiag_del * diag + vert;
}

/*!
 * Row 0 of the lattice: F(0, 0) = 1 at node k0 = -m_n^-, then insertions
 * only, F(0, c) = ins F(0, c - 1); `left` is node k - 1's value.
 */
template <typename real>
BSID_HD real lattice_row0(int k, int k0, real ins, real left)
{
    return k == k0 ? real(1) : k > k0 ? ins * left : real(0);
}

/*!
 * eqn:alpha_prenorm for state b (drift m_tau^- + b) of index i + 1:
 * sum over the drift changes d = m_n^- + e of alpha_i(a) G_i(e, a), with
 * a = b - d inside [0, Mt); G_i(e, a) = sum_D gamma_i(a, a + d, D).
 * prev(a) gives alpha_i(a), g(e, a) gives G_i(e, a); acc is the type the sum
 * is accumulated in.
 */
template <typename acc, typename Prev, typename Gf>
BSID_HD acc forward_sum(int b, int dlo, int Mn, int Mt, const Prev& prev, const Gf& g)
{
    acc s = acc(0);
    for (int e = 0; e < Mn; ++e) {
        const int a = b - dlo - e;
        if (a >= 0 && a < Mt)
            s += acc(prev(a)) * acc(g(e, a));
    }
    return s;
}

/*!
 * eqn:beta for state a of index i: sum over e of G_i(e, a) beta_{i+1}(b),
 * b = a + m_n^- + e inside [0, Mt); next(b) gives beta_{i+1}(b).
 */
template <typename acc, typename Next, typename Gf>
BSID_HD acc backward_sum(int a, int dlo, int Mn, int Mt, const Next& next, const Gf& g)
{
    acc s = acc(0);
    for (int e = 0; e < Mn; ++e) {
        const int b = a + dlo + e;
        if (b >= 0 && b < Mt)
            s += acc(g(e, a)) * acc(next(b));
    }
    return s;
}

/*!
 * eqn:alpha_norm (and the same for beta and L): the factor 1 / s that
 * normalizes a row whose sum is s. False when the row vanished or
 * overflowed (s not positive and finite): no path of the model gets there,
 * and the frame is refused.
 */
BSID_HD bool normalizer(double s, double& inv)
{
    if (!(s > 0.0 && s <= 1.7976931348623157e308))
        return false; // NaN fails too
    inv = 1.0 / s;
    return true;
}

} // namespace model
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_MODEL_H */
