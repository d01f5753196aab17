/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Frame boundaries as probabilities, the math of one request (docs/design.md
// section 3, "Frame boundaries"): prepare() turns the start prior, the sync
// word and the end into the backend's boundary conditions alpha_0 and
// beta_N; finish() turns the backend's alpha_N and beta_0 into the boundary
// posteriors; sync_word_events() adds the sync word's expected events. The
// positions and scales are those of frame_decoder.cc's opening comment.

#include "inner/frame_prepared.h"
#include "runtime/format.h"
#include "runtime/parallel_loop.h"
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/inner/lattice.h>
#include <gnuradio/bsid/core/inner/model.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace bsid {

namespace frame_detail {

/*
 * T(e) for a free end with no look-ahead symbols: rx[e:L] is W, then random
 * letters of weight 1/A each. The backward counterpart of the lattice
 * (full_lattice_last_row), with the model's exact step weights: b(j, t) is
 * the weight of rx[t:L] once j letters of W are sent, times A^(L - t) (so
 * that the random tail weighs 1 and nothing underflows); b(G, t) = 1.
 * Returns log T(e) = log b(0, e) - (L - e) log A for e = e0 .. L.
 */
static std::vector<double> sync_tail_log_weights(const channel_params& ch,
                                                 const std::vector<uint8_t>& W,
                                                 const received_items& rx,
                                                 long long L,
                                                 long long e0)
{
    const exact_letter_weights w(ch);
    const size_t A = size_t(w.A);
    const double lnA = ln_letters(w.A);
    const long long cols = L - e0 + 1;
    // rx[e0:L] as item probabilities (soft input) or letters
    std::vector<double> prob(rx.soft() ? A * size_t(L - e0) : 0);
    if (rx.soft())
        item_probabilities(rx + e0, size_t(L - e0), prob.data());
    auto diag = [&](uint8_t x, long long t) {
        if (!rx.soft())
            return w.diag(x, rx.bits[t]);
        return w.diag_probs(x, prob.data() + A * size_t(t - e0));
    };
    std::vector<double> next(size_t(cols), 1.0), cur(size_t(cols), 0.0); // row G: b = 1
    for (long long j = (long long)W.size() - 1; j >= 0; --j) {
        for (long long t = L; t >= e0; --t) {
            const size_t k = size_t(t - e0);
            double v = w.del * next[k]; // W's bit j deleted
            if (t < L) {
                v += double(A) * diag(W[size_t(j)], t) * next[k + 1]; // rx[t] is W[j]
                v += double(A) * w.ins * cur[k + 1]; // rx[t] inserted before it
            }
            cur[k] = v;
        }
        std::swap(next, cur);
    }
    std::vector<double> out(static_cast<size_t>(cols));
    for (long long e = e0; e <= L; ++e) {
        const double b = next[size_t(e - e0)];
        out[size_t(e - e0)] = b > 0 ? std::log(b) - double(L - e) * lnA
                                    : -std::numeric_limits<double>::infinity();
    }
    return out;
}

// exp(v - max v), in place; false if every value is -inf (all zero). With
// log_scale, *log_scale = ln sum exp(v) (the scale that the backend's
// normalization of the result divides out).
bool exp_relative(std::vector<double>& v, double* log_scale)
{
    double top = -std::numeric_limits<double>::infinity();
    for (double x : v)
        top = std::max(top, x);
    if (!std::isfinite(top))
        return false;
    double sum = 0;
    for (double& x : v)
        sum += (x = std::exp(x - top));
    if (log_scale)
        *log_scale = top + std::log(sum);
    return true;
}

static void normalize(std::vector<double>& v)
{
    double s = 0;
    for (double x : v)
        s += x;
    for (double& x : v)
        x = s > 0 ? x / s : 0.0;
}

// ln((1 - gap) e^logT + gap A^-rest): an end's tail weight when, with
// probability gap, what follows the end is not the next frame but random
// letters
double with_gap(double logT, double gap, long long rest, double lnA)
{
    if (!(gap > 0))
        return logT;
    const double a = std::log1p(-gap) + logT, b = std::log(gap) - double(rest) * lnA;
    const double top = std::max(a, b);
    if (top == -std::numeric_limits<double>::infinity())
        return top;
    return top + std::log(std::exp(a - top) + std::exp(b - top));
}

} // namespace frame_detail

using namespace frame_detail;

void frame_decoder::prepare(const frame_request& r, prepared& p, bool random_tail)
{
    const long long L = (long long)r.L;
    const long long G = (long long)d_sync.size();
    const int A = d_cfg.ch.alphabet();
    const received_items items = r.items(A);
    p.A = A;
    p.lnA = ln_letters(A);
    if (L > 0 && items.empty())
        throw std::invalid_argument("decode_frame: no items for a segment of L > 0");
    if ((r.bits != nullptr) + (r.llr != nullptr) + (r.logprob != nullptr) > 1)
        throw std::invalid_argument(
            "decode_frame: more than one of bits, LLRs and log-probabilities were given");
    if (r.lookahead < 0 || r.lookahead > N()) {
        throw std::invalid_argument(detail::concat("decode_frame: lookahead K = ",
                                                   r.lookahead,
                                                   " must lie in [0, N = ",
                                                   N(),
                                                   "]"));
    }
    if (r.lookahead > 0 && r.end != end_mode::free) {
        throw std::invalid_argument("decode_frame: a look-ahead needs end = free");
    }
    if (r.lookahead > 0 && !r.next_frame_follows) {
        throw std::invalid_argument(
            "decode_frame: a look-ahead needs a next frame after the end");
    }
    if (!(r.gap >= 0 && r.gap < 1))
        throw std::invalid_argument(detail::concat(
            "decode_frame: gap = ", detail::fmt_double(r.gap), " must lie in [0, 1)"));
    random_tail = random_tail || !r.next_frame_follows;
    // several reads of the frame (frame_request::more_reads): refused once
    // the state space is set up (finish() reads it), before anything is decoded
    auto refuse_several_reads = [](const frame_request& rq, prepared& pr) {
        if (rq.more_reads.empty())
            return false;
        pr.refused = true;
        pr.result = { frame_status::invalid_input,
                      detail::concat("decode_frame: ",
                                     rq.reads(),
                                     " reads of one frame; several reads are not "
                                     "decoded with frame boundaries as probabilities "
                                     "(one read per request; reads_decoder, "
                                     "decode_reads in Python, decodes reads that span "
                                     "the frame: docs/reads.md)") };
        return true;
    };
    if (r.priors)
        d_primary->validate_priors(r.priors, r.log_priors);

    // the start prior: checked, sorted, normalized
    if (r.start) {
        const position_weights& sp = *r.start;
        if (sp.positions.size() != sp.weights.size()) {
            throw std::invalid_argument(detail::concat("start prior: ",
                                                       sp.positions.size(),
                                                       " positions but ",
                                                       sp.weights.size(),
                                                       " weights"));
        }
        if (sp.positions.empty())
            throw std::invalid_argument(
                "start prior: no positions (give none for pi(0) = 1)");
        std::vector<size_t> order(sp.positions.size());
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            return sp.positions[a] < sp.positions[b];
        });
        double sum = 0;
        for (size_t k : order) {
            const long long s = sp.positions[k];
            const double w = sp.weights[k];
            if (s < 0 || s > L) {
                throw std::invalid_argument(
                    detail::concat("start prior: position ",
                                   s,
                                   " is outside the segment [0, L = ",
                                   L,
                                   "]"));
            }
            if (!std::isfinite(w) || w < 0) {
                throw std::invalid_argument(
                    detail::concat("start prior: the weight of position ",
                                   s,
                                   " is ",
                                   detail::fmt_double(w),
                                   ", not a finite non-negative number"));
            }
            if (!p.start.positions.empty() && p.start.positions.back() == s)
                throw std::invalid_argument(
                    detail::concat("start prior: position ", s, " is given twice"));
            p.start.positions.push_back(s);
            p.start.weights.push_back(w);
            sum += w;
        }
        if (!(sum > 0))
            throw std::invalid_argument("start prior: every weight is 0");
        const double top =
            *std::max_element(p.start.weights.begin(), p.start.weights.end());
        for (double& w : p.start.weights)
            w /= top; // relative to the largest first: no overflow of the sum
        normalize(p.start.weights);
    } else {
        p.start = { { 0 }, { 1.0 } };
    }

    p.random_before = r.random_before && p.start.positions.size() > 1;
    if (!r.start && G == 0 && r.end == end_mode::known) {
        p.plain = true; // today's decode: the backend's own boundaries
        p.dec = d_primary;
        p.lo_b = d_primary->limits().mtau.lo;
        p.hi_b = d_primary->limits().mtau.hi;
        p.metrics.assign(2 * size_t(p.hi_b - p.lo_b + 1), 0.0);
        refuse_several_reads(r, p);
        return;
    }

    const long long s_min = p.start.positions.front(),
                    S = p.start.positions.back() - s_min;
    const long long off = std::max<long long>(0, G + d_limits.mtau.lo);
    const long long lo_b = G + d_limits.mtau.lo - off,
                    hi_b = S + G + d_limits.mtau.hi - off;
    if (hi_b - lo_b + 1 > (1 << 20)) {
        throw std::invalid_argument(
            detail::concat("decode_frame: starts over ",
                           S + 1,
                           " positions and the drift limits need ",
                           hi_b - lo_b + 1,
                           " states; at most ",
                           1 << 20));
    }
    p.p0 = s_min + off;
    p.lo_b = int(lo_b);
    p.hi_b = int(hi_b);
    p.dec = backend(p.lo_b, p.hi_b);
    const long long Mt = hi_b - lo_b + 1;
    p.bounds.start.assign(size_t(Mt), 0.0);
    p.bounds.end.assign(size_t(Mt), 0.0);
    p.metrics.assign(2 * size_t(Mt), 0.0);
    if (refuse_several_reads(r, p))
        return;
    {
        // the whole segment, W's bits and the tail included (the backend
        // checks only what follows the first codeword's earliest start)
        std::string what;
        if (find_invalid_item(items, size_t(L), what) < size_t(L)) {
            p.refused = true;
            p.result = { frame_status::invalid_input, what };
            return;
        }
    }

    // alpha_0: the start prior carried through W to the first codeword's start
    const long long x_lo = p.p0 + lo_b, x_hi = p.p0 + hi_b; // where codeword 0 may start
    p.wrow.resize(p.start.positions.size());
    // soft items: their probabilities once for every start's lattice
    std::vector<double> prob;
    const long long w_end = std::min(L, x_hi);
    if (items.soft() && w_end > s_min) {
        prob.resize(size_t(A) * size_t(w_end - s_min));
        item_probabilities(items + s_min, size_t(w_end - s_min), prob.data());
    }
    for (size_t k = 0; k < p.start.positions.size(); ++k) {
        // from start s, W ends at x = s + G + d with its drift d in the limits
        // (so each start costs G (G + hi) cells, however wide the prior)
        const long long s = p.start.positions[k];
        const long long ny = std::min(std::min(L, x_hi) - s, G + d_limits.mtau.hi);
        if (ny < 0)
            continue;
        p.wrow[k] =
            items.soft()
                ? full_lattice_last_row_probs(d_cfg.ch,
                                              d_sync.data(),
                                              d_sync.size(),
                                              prob.data() + A * (s - s_min),
                                              size_t(ny))
                : full_lattice_last_row(
                      d_cfg.ch, d_sync.data(), d_sync.size(), r.bits + s, size_t(ny));
        const long long c0 = std::max<long long>({ 0, x_lo - s, G + d_limits.mtau.lo });
        std::fill(
            p.wrow[k].begin(), p.wrow[k].begin() + std::min<long long>(c0, ny + 1), 0.0);
        // (with random_before, already times A^c: the backend's A^(x - x_lo)
        // and the A^-(s - s_0) of the letters before s leave A^c A^(s_0 - x_lo),
        // and no weight underflows however wide the prior)
        for (long long c = c0; c <= ny; ++c)
            p.bounds.start[size_t(s + c - x_lo)] +=
                p.random_before
                    ? times_letters_pow(p.start.weights[k] * p.wrow[k][size_t(c)], c, A)
                    : p.start.weights[k] * p.wrow[k][size_t(c)];
    }
    {
        // to the backend's scale: times A^x (relative to the largest)
        std::vector<double> lw(static_cast<size_t>(Mt));
        for (long long a = 0; a < Mt; ++a) {
            const double w = p.bounds.start[size_t(a)];
            lw[size_t(a)] = !(w > 0)          ? -std::numeric_limits<double>::infinity()
                            : p.random_before ? std::log(w) + p.start_scale(0, x_lo)
                                              : std::log(w) + double(a) * p.lnA;
        }
        if (!exp_relative(lw, &p.log_scale_start)) {
            p.refused = true;
            p.result = {
                frame_status::impossible,
                "no start position can reach the first codeword through the sync word"
            };
            return;
        }
        p.bounds.start = std::move(lw);
    }

    // beta_N: where the frame may end (codeword N's end is p0 + tau + m)
    const long long e_lo = p.p0 + tau() + lo_b;
    if (r.end == end_mode::known) {
        const long long a = L - e_lo;
        if (a < 0 || a >= Mt) {
            p.refused = true;
            p.result = { frame_status::drift_out_of_range,
                         detail::concat("the frame cannot end at position L = ",
                                        L,
                                        ": with starts in [",
                                        s_min,
                                        ", ",
                                        s_min + S,
                                        "] and the drift limits m_tau = [",
                                        d_limits.mtau.lo,
                                        ", ",
                                        d_limits.mtau.hi,
                                        "] it ends in [",
                                        e_lo,
                                        ", ",
                                        e_lo + Mt - 1,
                                        "]") };
            return;
        }
        p.bounds.end[size_t(a)] = 1.0; // T(L) = 1, times A^-(L - e_lo)
        p.log_scale_end = -double(a) * p.lnA;
        return;
    }
    // free: T(e) for the ends e <= L the states allow
    const long long e_first = std::max<long long>(0, e_lo);
    if (e_first > L) {
        p.refused = true;
        p.result = { frame_status::impossible,
                     detail::concat("the segment of L = ",
                                    L,
                                    " items is too short for any end: "
                                    "the frame ends at position ",
                                    e_lo,
                                    " or later") };
        return;
    }
    const long long e_last = std::min(L, e_lo + Mt - 1);
    if (r.lookahead > 0) {
        for (long long e = e_first; e <= e_last; ++e)
            p.end_e.push_back(e); // T from the look-ahead decode (apply_lookahead)
        return;
    }
    std::vector<double> logT;
    if (G == 0 || random_tail) {
        for (long long e = e_first; e <= e_last; ++e)
            logT.push_back(-double(L - e) * p.lnA);
    } else {
        logT = sync_tail_log_weights(d_cfg.ch, d_sync, items, L, e_first);
        logT.resize(size_t(e_last - e_first + 1));
        for (long long e = e_first; e <= e_last; ++e)
            logT[size_t(e - e_first)] =
                with_gap(logT[size_t(e - e_first)], r.gap, L - e, p.lnA);
    }
    std::vector<double> w(static_cast<size_t>(Mt),
                          -std::numeric_limits<double>::infinity());
    for (long long e = e_first; e <= e_last; ++e)
        w[size_t(e - e_lo)] =
            logT[size_t(e - e_first)] - double(e - e_lo) * p.lnA; // times A^-e
    if (!exp_relative(w, &p.log_scale_end)) {
        p.refused = true;
        p.result = { frame_status::impossible, "no end position has a positive weight" };
        return;
    }
    p.bounds.end = std::move(w);
}

void frame_decoder::finish(const frame_request& r,
                           prepared& p,
                           frame_decode_result& out) const
{
    const long long L = (long long)r.L;
    const size_t Mt = size_t(p.hi_b - p.lo_b + 1);
    out.posteriors = std::move(p.post);
    const bool ok = out.result.ok();
    const double* alphaN = p.metrics.data();
    const double* beta0 = p.metrics.data() + Mt;
    if (r.events) {
        const size_t A = size_t(p.A);
        out.item_posteriors = std::move(p.items);
        if (r.item_posteriors)
            out.item_posteriors.resize(A * r.L, 0.0);
        out.substitution_counts = std::move(p.pairs);
        if (r.substitution_counts)
            out.substitution_counts.resize(A * A, 0.0);
        if (ok) {
            out.events = p.events;
            if (!p.plain && !d_sync.empty())
                sync_word_events(r, p, beta0, out);
        } else {
            std::fill(out.item_posteriors.begin(), out.item_posteriors.end(), 0.0);
            std::fill(
                out.substitution_counts.begin(), out.substitution_counts.end(), 0.0);
        }
    }

    // the start posterior: pi(s) sum_m R(rx[s:x_m] | W) beta_0(m)
    out.start.positions = p.start.positions;
    out.start.weights.assign(p.start.positions.size(), 0.0);
    if (ok && p.plain) {
        out.start.weights[0] = 1.0;
    } else if (ok) {
        // the exact backward metric at x is beta_0(x) A^x, x = s + c: per
        // start, sum_c R(rx[s:s+c] | W) beta_0 A^c in doubles (c is at most
        // G + m^+), then one log with A^(s - x_lo); in logs term by term
        // only if every start's sum underflowed
        const long long x_lo = p.p0 + p.lo_b;
        std::vector<double> lv(p.start.positions.size());
        auto start_weights = [&](bool logs) {
            bool any = false;
            for (size_t k = 0; k < p.start.positions.size(); ++k) {
                const long long s = p.start.positions[k];
                double top = -std::numeric_limits<double>::infinity(), sum = 0;
                for (int pass = logs ? 0 : 1; pass < 2; ++pass) {
                    for (size_t c = 0; c < p.wrow[k].size(); ++c) {
                        const long long a = s + (long long)c - x_lo;
                        if (a < 0 || a >= (long long)Mt || !(p.wrow[k][c] > 0) ||
                            !(beta0[a] > 0))
                            continue;
                        if (!logs) {
                            sum += times_letters_pow(
                                p.wrow[k][c] * beta0[a], (long long)c, p.A);
                            continue;
                        }
                        const double t = std::log(p.wrow[k][c]) + std::log(beta0[a]) +
                                         double(c) * p.lnA;
                        if (pass == 0)
                            top = std::max(top, t);
                        else
                            sum += std::exp(t - top);
                    }
                }
                const double ls = logs ? top + std::log(sum) : std::log(sum);
                lv[k] = sum > 0 && p.start.weights[k] > 0
                            ? std::log(p.start.weights[k]) + ls + p.start_scale(s, x_lo)
                            : -std::numeric_limits<double>::infinity();
                any = any || std::isfinite(lv[k]);
            }
            return any;
        };
        if (!start_weights(false))
            start_weights(true);
        if (exp_relative(lv))
            out.start.weights = std::move(lv);
        normalize(out.start.weights);
    }

    // the evidence (the backend's over the scales of the weights it was
    // given: the A^x and A^-e factors leave A^(e_lo - x_lo) = A^tau), and
    // against random letters: ln sum_s pi(s) Z_s A^(L - s) = ln Z + ln sum_s
    // P(s | rx) A^(L - s)
    if (ok) {
        out.log_evidence = p.plain ? p.backend_evidence - double(L) * p.lnA
                                   : p.backend_evidence + p.log_scale_start +
                                         p.log_scale_end - double(tau()) * p.lnA;
        double top = -std::numeric_limits<double>::infinity(), sum = 0;
        for (size_t k = 0; k < out.start.positions.size(); ++k) {
            if (out.start.weights[k] > 0)
                top = std::max(top, double(L - out.start.positions[k]) * p.lnA);
        }
        for (size_t k = 0; k < out.start.positions.size(); ++k) {
            if (out.start.weights[k] > 0)
                sum += out.start.weights[k] *
                       std::exp(double(L - out.start.positions[k]) * p.lnA - top);
        }
        out.log_likelihood_ratio = sum > 0 ? out.log_evidence + top + std::log(sum)
                                           : -std::numeric_limits<double>::infinity();
        if (p.random_before) // the evidence of rx[s_0:L], letters before a start random
            out.log_likelihood_ratio =
                out.log_evidence + double(L - p.start.positions.front()) * p.lnA;
    }

    // the end: lambda(e) = alpha_N beta_N, and the forward metric alpha_N
    if (r.end == end_mode::known) {
        out.end_positions = { L };
        out.end_posterior = { ok ? 1.0 : 0.0 };
        out.end_forward = { ok ? 1.0 : 0.0 };
        return;
    }
    // lambda(e) = alpha_N beta_N in the backend's scale; the exact forward
    // metric is alpha_N(e) A^-e
    const long long e_lo = p.p0 + tau() + p.lo_b;
    for (size_t a = 0; a < Mt; ++a) {
        const long long e = e_lo + (long long)a;
        if (e < 0 || e > L)
            continue;
        out.end_positions.push_back(e);
        out.end_posterior.push_back(ok ? alphaN[a] * p.bounds.end[a] : 0.0);
        out.end_forward.push_back(ok && alphaN[a] > 0
                                      ? std::log(alphaN[a]) - double(a) * p.lnA
                                      : -std::numeric_limits<double>::infinity());
    }
    normalize(out.end_posterior);
    if (!exp_relative(out.end_forward))
        std::fill(out.end_forward.begin(), out.end_forward.end(), 0.0);
    normalize(out.end_forward);
}

/*
 * W's events: for each start s, W's full lattice over rx[s:s+ny] forward and
 * backward (model::codeword_events with the exact weights, one lane), its
 * last row's node c weighed by the backward metric of the first codeword's
 * start x = s + c, beta_0(x) 2^(x - x_lo) (as for the start posterior); the
 * starts combined by their weights pi(s) sum_c R(rx[s:s+c] | W) beta_0 2^c
 * 2^(s - x_lo), in logs (a start spread over thousands of positions would
 * overflow 2^(s - x_lo)).
 */
void frame_decoder::sync_word_events(const frame_request& r,
                                     const prepared& p,
                                     const double* beta0,
                                     frame_decode_result& out) const
{
    const long long L = (long long)r.L;
    const long long G = (long long)d_sync.size();
    const long long Mt = p.hi_b - p.lo_b + 1;
    const long long x_lo = p.p0 + p.lo_b, x_hi = p.p0 + p.hi_b;
    const exact_letter_weights w(d_cfg.ch);
    const int A = w.A;
    std::vector<double> qw(size_t(A) * size_t(G)), F, B, endw, prob;
    std::vector<uint8_t> x(d_sync.begin(), d_sync.end());
    for (long long k = 0; k < G; ++k) {
        for (int b = 0; b < A; ++b)
            qw[size_t(A * k + b)] = w.diag(d_sync[size_t(k)], unsigned(b));
    }
    struct start_part {
        double log_weight;
        event_counts ev;
        std::vector<double> items; // A ny: item s + c
        std::vector<double> pairs; // A x A, if asked
        long long s;
    };
    std::vector<start_part> parts;
    double top = -std::numeric_limits<double>::infinity();
    for (size_t k = 0; k < p.start.positions.size(); ++k) {
        const long long s = p.start.positions[k];
        const long long ny = std::min(std::min(L, x_hi) - s, G + d_limits.mtau.hi);
        if (ny < 0 || !(p.start.weights[k] > 0))
            continue;
        const long long c0 = std::max<long long>({ 0, x_lo - s, G + d_limits.mtau.lo });
        const int dlo = -int(G), Mn = int(ny + G + 1);
        endw.assign(size_t(Mn), 0.0);
        bool any = false;
        for (long long c = c0; c <= ny; ++c) {
            const long long a = s + c - x_lo;
            if (a >= 0 && a < Mt && beta0[a] > 0) {
                // node k = c of row G
                endw[size_t(c)] = times_letters_pow(beta0[a], c, A);
                any = true;
            }
        }
        if (!any)
            continue;
        prob.resize(size_t(A) * (size_t(ny) + 1));
        item_probabilities(r.items(A) + s, size_t(ny), prob.data());
        F.resize(size_t(G + 1) * size_t(Mn));
        B.resize(2 * size_t(Mn));
        start_part part;
        part.s = s;
        part.items.assign(r.item_posteriors ? size_t(A) * size_t(ny) : 0, 0.0);
        part.pairs.assign(r.substitution_counts ? size_t(A) * size_t(A) : 0, 0.0);
        const double one = 1.0;
        const double tot = model::codeword_events(
            int(G),
            dlo,
            Mn,
            ny,
            w.ins,
            w.del,
            1,
            A,
            qw.data(),
            x.data(),
            prob.data(),
            endw.data(),
            &one,
            F.data(),
            B.data(),
            part.ev,
            [&](long long c, int b, double v) {
                if (!part.items.empty())
                    part.items[size_t(A * c + b)] += v;
            },
            part.pairs.empty() ? nullptr : part.pairs.data());
        if (!(tot > 0) || !std::isfinite(tot))
            continue;
        const double inv = 1.0 / tot;
        part.ev.ins *= inv;
        part.ev.del *= inv;
        part.ev.trans *= inv;
        part.ev.subst *= inv;
        for (double& v : part.items)
            v *= inv;
        for (double& v : part.pairs)
            v *= inv;
        part.log_weight =
            std::log(p.start.weights[k]) + std::log(tot) + p.start_scale(s, x_lo);
        top = std::max(top, part.log_weight);
        parts.push_back(std::move(part));
    }
    double sum = 0;
    for (auto& part : parts)
        sum += (part.log_weight = std::exp(part.log_weight - top));
    if (!(sum > 0))
        return; // not reached for a decoded frame: some start reaches codeword 0
    for (const auto& part : parts) {
        const double f = part.log_weight / sum;
        out.events.ins += f * part.ev.ins;
        out.events.del += f * part.ev.del;
        out.events.trans += f * part.ev.trans;
        out.events.subst += f * part.ev.subst;
        for (size_t j = 0; j < part.items.size(); ++j)
            out.item_posteriors[size_t(A) * size_t(part.s) + j] += f * part.items[j];
        for (size_t j = 0; j < part.pairs.size(); ++j)
            out.substitution_counts[j] += f * part.pairs[j];
    }
}

} // namespace bsid
