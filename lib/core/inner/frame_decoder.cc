/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Frame boundaries as probabilities (docs/design.md section 3, "Frame
// boundaries"): the start prior, the sync word and the end become the
// boundary conditions alpha_0 and beta_N of a map_decoder backend, and the
// backend's alpha_N and beta_0 give the boundary posteriors back.
//
// Positions. The backend decodes rx[p0:L]; its state m (drift at codeword
// boundary i) puts the start of codeword i at position p0 + n i + m. A frame
// starting at s, whose drift after W (and at later boundaries) lies in the
// limits [lo, hi], has m = s - p0 + G + d with d in [lo, hi]. So with starts
// in [s_min, s_max] the backend needs m in [G + lo - off, S + G + hi - off],
// S = s_max - s_min, p0 = s_min + off; off = max(0, G + lo) keeps 0 in the
// range (the backends' limits hold 0). With G = 0 and no spread that is the
// decoder's own range: the default decode is map_decoder::decode itself.
//
// Scale. The backends weigh lattice steps as likelihood ratios
// (lattice_weights::ratio): a path that sends tau bits and receives the bits
// from x to e weighs R_exact / (Pt^tau 2^-(e - x)). With a fixed start and end
// that factor is common to every path; with boundaries as probabilities it is
// not, so the weights given to the backend carry it: alpha_0(x) is the exact
// start weight times 2^x, beta_N(e) the exact end weight times 2^-e, and the
// backend's alpha_N(e) and beta_0(x) come back times 2^-e and 2^x (in logs,
// relative to the largest: nothing overflows).

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

end_mode parse_end_mode(const std::string& s)
{
    if (s == "known")
        return end_mode::known;
    if (s == "free")
        return end_mode::free;
    throw std::invalid_argument("end '" + s + "' is not one of known, free");
}

std::string to_string(end_mode e) { return e == end_mode::known ? "known" : "free"; }

std::vector<uint8_t> parse_sync_word(const std::string& text)
{
    std::vector<uint8_t> w;
    w.reserve(text.size());
    for (size_t k = 0; k < text.size(); ++k) {
        if (text[k] != '0' && text[k] != '1') {
            throw std::invalid_argument(detail::concat(
                "sync word '", text, "': character ", k, " is not 0 or 1"));
        }
        w.push_back(uint8_t(text[k] - '0'));
    }
    return w;
}

namespace {

constexpr double ln2 = 0.69314718055994530942;

/*
 * T(e) for a free end with no look-ahead symbols: rx[e:L] is W, then random
 * bits of weight 1/2 each. The backward counterpart of the lattice
 * (full_lattice_last_row), with the model's exact step weights: b(j, t) is
 * the weight of rx[t:L] once j bits of W are sent, times 2^(L - t) (so that
 * the random tail weighs 1 and nothing underflows); b(G, t) = 1. Returns
 * log T(e) = log b(0, e) - (L - e) log 2 for e = e0 .. L.
 */
std::vector<double> sync_tail_log_weights(const channel_params& ch,
                                          const std::vector<uint8_t>& W,
                                          const received_items& rx,
                                          long long L,
                                          long long e0)
{
    const auto w = lattice_weights<double>::exact(ch);
    const long long cols = L - e0 + 1;
    // rx[e0:L] as item probabilities (soft input) or bits
    std::vector<double> prob(rx.soft() ? 2 * size_t(L - e0) : 0);
    if (rx.soft())
        item_probabilities(rx + e0, size_t(L - e0), prob.data());
    auto diag = [&](uint8_t x, long long t) {
        if (!rx.soft())
            return w.diag(x, rx.bits[t]);
        const size_t k = size_t(t - e0);
        return w.diag_soft(x, prob[2 * k], prob[2 * k + 1]);
    };
    std::vector<double> next(size_t(cols), 1.0), cur(size_t(cols), 0.0); // row G: b = 1
    for (long long j = (long long)W.size() - 1; j >= 0; --j) {
        for (long long t = L; t >= e0; --t) {
            const size_t k = size_t(t - e0);
            double v = w.del * next[k]; // W's bit j deleted
            if (t < L) {
                v += 2 * diag(W[size_t(j)], t) * next[k + 1]; // bit j received as rx[t]
                v += 2 * w.ins * cur[k + 1];                  // rx[t] inserted before it
            }
            cur[k] = v;
        }
        std::swap(next, cur);
    }
    std::vector<double> out(static_cast<size_t>(cols));
    for (long long e = e0; e <= L; ++e) {
        const double b = next[size_t(e - e0)];
        out[size_t(e - e0)] = b > 0 ? std::log(b) - double(L - e) * ln2
                                    : -std::numeric_limits<double>::infinity();
    }
    return out;
}

// exp(v - max v), in place; false if every value is -inf (all zero). With
// log_scale, *log_scale = ln sum exp(v) (the scale that the backend's
// normalization of the result divides out).
bool exp_relative(std::vector<double>& v, double* log_scale = nullptr)
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

void normalize(std::vector<double>& v)
{
    double s = 0;
    for (double x : v)
        s += x;
    for (double& x : v)
        x = s > 0 ? x / s : 0.0;
}

// ln((1 - gap) e^logT + gap 2^-rest): an end's tail weight when, with
// probability gap, what follows the end is not the next frame but random bits
double with_gap(double logT, double gap, long long rest)
{
    if (!(gap > 0))
        return logT;
    const double a = std::log1p(-gap) + logT,
                 b = std::log(gap) - double(rest) * std::log(2.0);
    const double top = std::max(a, b);
    if (top == -std::numeric_limits<double>::infinity())
        return top;
    return top + std::log(std::exp(a - top) + std::exp(b - top));
}

} // namespace

// Everything one request needs between its preparation and its outputs.
struct frame_decoder::prepared {
    bool refused = false; // decided before decoding (result holds why)
    frame_result result;
    bool plain = false;         // the backend's own boundaries (the default decode)
    position_weights start;     // the start prior, sorted, normalized
    bool random_before = false; // frame_request::random_before, with a spread prior
    /*
     * ln of the factor that takes a start's exact weight to the backend's
     * scale, relative to codeword 0's earliest start x_lo: 2^(s - x_lo), and
     * with random_before the 2^-(s - s_0) of the bits before s on top.
     */
    double start_scale(long long s, long long x_lo) const
    {
        const long long from = random_before ? start.positions.front() : s;
        return double(from - x_lo) * std::log(2.0);
    }
    std::vector<std::vector<double>> wrow; // per start: R(rx[s:s+c] | W), c = 0..
    long long p0 = 0;                      // the backend's bit 0 is rx[p0]
    int lo_b = 0, hi_b = 0;                // the backend's state range
    std::shared_ptr<map_decoder> dec;
    frame_boundaries bounds;
    std::vector<long long> end_e; // free end with look-ahead: the positions asked for
    std::vector<double> metrics;  // alpha_N then beta_0
    std::vector<double> post;
    event_counts events;       // frame_request::events: the backend's part
    std::vector<double> items; // and its item posteriors (2 L)
    // the evidence: the start and end weights given to the backend are the
    // exact ones (times 2^(x - x_lo) and 2^-(e - e_lo)) over these scales
    double log_scale_start = 0, log_scale_end = 0;
    double backend_evidence = -std::numeric_limits<double>::infinity();
};

frame_decoder::frame_decoder(const decoder_config& cfg, std::vector<uint8_t> sync_word)
    : d_cfg(cfg), d_sync(std::move(sync_word))
{
    for (auto b : d_sync) {
        if (b > 1)
            throw std::invalid_argument("frame_decoder: a sync word bit is not 0 or 1");
    }
    if (d_sync.empty()) {
        d_primary = map_decoder::make(cfg);
        d_limits = d_primary->limits();
        return;
    }
    // the drift at codeword boundaries, after W: the limits of a frame of
    // N + ceil(G / n) codewords from the frame's start cover every boundary
    const int n = cfg.cb.n();
    const long long G = (long long)d_sync.size();
    decoder_config longer = cfg;
    longer.N = cfg.N + int((G + n - 1) / n);
    d_limits = map_decoder::limits_for(longer); // explicit mtau/mn checked here
    const int off = std::max<int>(0, int(G) + d_limits.mtau.lo);
    d_primary = backend(int(G) + d_limits.mtau.lo - off, int(G) + d_limits.mtau.hi - off);
}

frame_decoder::~frame_decoder() = default;

map_decoder& frame_decoder::primary() { return *d_primary; }

std::shared_ptr<map_decoder> frame_decoder::backend(int lo, int hi)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (d_sync.empty() && d_primary && d_primary->limits().mtau == drift_range{ lo, hi })
        return d_primary;
    for (size_t k = 0; k < d_backends.size(); ++k) {
        if (d_backends[k].first == std::make_pair(lo, hi)) {
            auto dec = d_backends[k].second;
            std::rotate(d_backends.begin(),
                        d_backends.begin() + long(k),
                        d_backends.begin() + long(k) + 1); // most recent first
            return dec;
        }
    }
    decoder_config c = d_cfg;
    c.mtau = drift_range{ lo, hi };
    c.mn = d_limits.mn;
    std::shared_ptr<map_decoder> dec = map_decoder::make(c);
    d_backends.insert(d_backends.begin(), { { lo, hi }, dec });
    if (d_backends.size() > 8)
        d_backends.pop_back();
    return dec;
}

frame_decoder& frame_decoder::lookahead_decoder(int K)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    auto& d = d_lookahead[K];
    if (!d) {
        decoder_config c = d_cfg;
        c.N = K; // the next frame's first K symbols: books 0 .. K-1
        d = std::make_unique<frame_decoder>(c, d_sync);
    }
    return *d;
}

void frame_decoder::prepare(const frame_request& r, prepared& p, bool random_tail)
{
    const long long L = (long long)r.L;
    const long long G = (long long)d_sync.size();
    if (L > 0 && r.items().empty())
        throw std::invalid_argument("decode_frame: no bits for a segment of L > 0");
    if (r.bits && r.llr)
        throw std::invalid_argument("decode_frame: both bits and LLRs were given");
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
    {
        // the whole segment, W's bits and the tail included (the backend
        // checks only what follows the first codeword's earliest start)
        std::string what;
        if (find_invalid_item(r.items(), size_t(L), what) < size_t(L)) {
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
    if (r.llr && w_end > s_min) {
        prob.resize(2 * size_t(w_end - s_min));
        item_probabilities(r.items() + s_min, size_t(w_end - s_min), prob.data());
    }
    for (size_t k = 0; k < p.start.positions.size(); ++k) {
        // from start s, W ends at x = s + G + d with its drift d in the limits
        // (so each start costs G (G + hi) cells, however wide the prior)
        const long long s = p.start.positions[k];
        const long long ny = std::min(std::min(L, x_hi) - s, G + d_limits.mtau.hi);
        if (ny < 0)
            continue;
        p.wrow[k] =
            r.llr ? full_lattice_last_row_probs(d_cfg.ch,
                                                d_sync.data(),
                                                d_sync.size(),
                                                prob.data() + 2 * (s - s_min),
                                                size_t(ny))
                  : full_lattice_last_row(
                        d_cfg.ch, d_sync.data(), d_sync.size(), r.bits + s, size_t(ny));
        const long long c0 = std::max<long long>({ 0, x_lo - s, G + d_limits.mtau.lo });
        std::fill(
            p.wrow[k].begin(), p.wrow[k].begin() + std::min<long long>(c0, ny + 1), 0.0);
        // (with random_before, already times 2^c: the backend's 2^(x - x_lo)
        // and the 2^-(s - s_0) of the bits before s leave 2^c 2^(s_0 - x_lo),
        // and no weight underflows however wide the prior)
        for (long long c = c0; c <= ny; ++c)
            p.bounds.start[size_t(s + c - x_lo)] +=
                p.random_before
                    ? std::ldexp(p.start.weights[k] * p.wrow[k][size_t(c)], int(c))
                    : p.start.weights[k] * p.wrow[k][size_t(c)];
    }
    {
        // to the backend's scale: times 2^x (relative to the largest)
        std::vector<double> lw(static_cast<size_t>(Mt));
        for (long long a = 0; a < Mt; ++a) {
            const double w = p.bounds.start[size_t(a)];
            lw[size_t(a)] = !(w > 0)          ? -std::numeric_limits<double>::infinity()
                            : p.random_before ? std::log(w) + p.start_scale(0, x_lo)
                                              : std::log(w) + double(a) * ln2;
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
        p.bounds.end[size_t(a)] = 1.0; // T(L) = 1, times 2^-(L - e_lo)
        p.log_scale_end = -double(a) * ln2;
        return;
    }
    // free: T(e) for the ends e <= L the states allow
    const long long e_first = std::max<long long>(0, e_lo);
    if (e_first > L) {
        p.refused = true;
        p.result = { frame_status::impossible,
                     detail::concat("the segment of L = ",
                                    L,
                                    " bits is too short for any end: "
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
            logT.push_back(-double(L - e) * ln2);
    } else {
        logT = sync_tail_log_weights(d_cfg.ch, d_sync, r.items(), L, e_first);
        logT.resize(size_t(e_last - e_first + 1));
        for (long long e = e_first; e <= e_last; ++e)
            logT[size_t(e - e_first)] = with_gap(logT[size_t(e - e_first)], r.gap, L - e);
    }
    std::vector<double> w(static_cast<size_t>(Mt),
                          -std::numeric_limits<double>::infinity());
    for (long long e = e_first; e <= e_last; ++e)
        w[size_t(e - e_lo)] =
            logT[size_t(e - e_first)] - double(e - e_lo) * ln2; // times 2^-e
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
        out.item_posteriors = std::move(p.items);
        out.item_posteriors.resize(2 * r.L, 0.0);
        if (ok) {
            out.events = p.events;
            if (!p.plain && !d_sync.empty())
                sync_word_events(r, p, beta0, out);
        } else {
            std::fill(out.item_posteriors.begin(), out.item_posteriors.end(), 0.0);
        }
    }

    // the start posterior: pi(s) sum_m R(rx[s:x_m] | W) beta_0(m)
    out.start.positions = p.start.positions;
    out.start.weights.assign(p.start.positions.size(), 0.0);
    if (ok && p.plain) {
        out.start.weights[0] = 1.0;
    } else if (ok) {
        // the exact backward metric at x is beta_0(x) 2^x, x = s + c: per
        // start, sum_c R(rx[s:s+c] | W) beta_0 2^c in doubles (c is at most
        // G + m^+), then one log with 2^(s - x_lo); in logs term by term
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
                            sum += std::ldexp(p.wrow[k][c] * beta0[a], int(c));
                            continue;
                        }
                        const double t =
                            std::log(p.wrow[k][c]) + std::log(beta0[a]) + double(c) * ln2;
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
    // given: the 2^x and 2^-e factors leave 2^(e_lo - x_lo) = 2^tau), and
    // against random bits: ln sum_s pi(s) Z_s 2^(L - s) = ln Z + ln sum_s
    // P(s | rx) 2^(L - s)
    if (ok) {
        out.log_evidence = p.plain ? p.backend_evidence - double(L) * ln2
                                   : p.backend_evidence + p.log_scale_start +
                                         p.log_scale_end - double(tau()) * ln2;
        double top = -std::numeric_limits<double>::infinity(), sum = 0;
        for (size_t k = 0; k < out.start.positions.size(); ++k) {
            if (out.start.weights[k] > 0)
                top = std::max(top, double(L - out.start.positions[k]) * ln2);
        }
        for (size_t k = 0; k < out.start.positions.size(); ++k) {
            if (out.start.weights[k] > 0)
                sum += out.start.weights[k] *
                       std::exp(double(L - out.start.positions[k]) * ln2 - top);
        }
        out.log_likelihood_ratio = sum > 0 ? out.log_evidence + top + std::log(sum)
                                           : -std::numeric_limits<double>::infinity();
        if (p.random_before) // the evidence of rx[s_0:L], bits before a start random
            out.log_likelihood_ratio =
                out.log_evidence + double(L - p.start.positions.front()) * ln2;
    }

    // the end: lambda(e) = alpha_N beta_N, and the forward metric alpha_N
    if (r.end == end_mode::known) {
        out.end_positions = { L };
        out.end_posterior = { ok ? 1.0 : 0.0 };
        out.end_forward = { ok ? 1.0 : 0.0 };
        return;
    }
    // lambda(e) = alpha_N beta_N in the backend's scale; the exact forward
    // metric is alpha_N(e) 2^-e
    const long long e_lo = p.p0 + tau() + p.lo_b;
    for (size_t a = 0; a < Mt; ++a) {
        const long long e = e_lo + (long long)a;
        if (e < 0 || e > L)
            continue;
        out.end_positions.push_back(e);
        out.end_posterior.push_back(ok ? alphaN[a] * p.bounds.end[a] : 0.0);
        out.end_forward.push_back(ok && alphaN[a] > 0
                                      ? std::log(alphaN[a]) - double(a) * ln2
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
    const auto w = lattice_weights<double>::exact(d_cfg.ch);
    std::vector<double> qw(2 * size_t(G)), F, B, endw, prob;
    std::vector<uint8_t> x(d_sync.begin(), d_sync.end());
    for (long long k = 0; k < G; ++k) {
        for (unsigned b = 0; b < 2; ++b)
            qw[size_t(2 * k + b)] = w.diag(d_sync[size_t(k)], b);
    }
    struct start_part {
        double log_weight;
        event_counts ev;
        std::vector<double> items; // 2 (ny + 1): item s + c
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
                endw[size_t(c)] = std::ldexp(beta0[a], int(c)); // node k = c of row G
                any = true;
            }
        }
        if (!any)
            continue;
        prob.resize(2 * size_t(ny) + 2);
        item_probabilities(r.items() + s, size_t(ny), prob.data());
        F.resize(size_t(G + 1) * size_t(Mn));
        B.resize(2 * size_t(Mn));
        start_part part;
        part.s = s;
        part.items.assign(2 * size_t(ny), 0.0);
        const double one = 1.0;
        const double tot = model::codeword_events(
            int(G),
            dlo,
            Mn,
            ny,
            w.ins,
            w.del,
            1,
            qw.data(),
            x.data(),
            prob.data(),
            endw.data(),
            &one,
            F.data(),
            B.data(),
            part.ev,
            [&](long long c, int b, double v) { part.items[size_t(2 * c + b)] += v; });
        if (!(tot > 0) || !std::isfinite(tot))
            continue;
        const double inv = 1.0 / tot;
        part.ev.ins *= inv;
        part.ev.del *= inv;
        part.ev.trans *= inv;
        part.ev.subst *= inv;
        for (double& v : part.items)
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
            out.item_posteriors[2 * size_t(part.s) + j] += f * part.items[j];
    }
}

frame_result frame_decoder::check_length(size_t rho) const
{
    if (d_sync.empty())
        return d_primary->check_length(rho);
    if (rho == 0)
        return { frame_status::empty, "empty frame: no bits were received (rho = 0)" };
    const long long G = (long long)d_sync.size();
    const long long drift = (long long)std::min<size_t>(rho, size_t(1) << 62) - G - tau();
    if (!d_limits.mtau.contains(drift)) {
        return { frame_status::drift_out_of_range,
                 detail::concat("end drift rho - G - tau = ",
                                rho,
                                " - ",
                                G,
                                " - ",
                                tau(),
                                " = ",
                                drift,
                                " is outside the drift limits m_tau = [",
                                d_limits.mtau.lo,
                                ", ",
                                d_limits.mtau.hi,
                                "]") };
    }
    return {};
}

std::vector<frame_result>
frame_decoder::decode_batch(const std::vector<frame_view>& frames,
                            const std::vector<double*>& post)
{
    if (post.size() != frames.size())
        throw std::invalid_argument(
            "decode_batch: one output buffer per frame is needed");
    if (d_sync.empty()) {
        if (frames.size() == 1)
            return { d_primary->decode(frames[0], post[0]) };
        return d_primary->decode_batch(frames, post);
    }
    std::vector<frame_request> req(frames.size());
    for (size_t k = 0; k < frames.size(); ++k) {
        req[k].bits = frames[k].bits;
        req[k].llr = frames[k].llr;
        req[k].L = frames[k].rho;
        req[k].priors = frames[k].priors;
        req[k].log_priors = frames[k].log_priors;
        req[k].extrinsic = frames[k].extrinsic;
    }
    auto got = decode_batch(req);
    std::vector<frame_result> out(frames.size());
    for (size_t k = 0; k < frames.size(); ++k) {
        std::copy(got[k].posteriors.begin(), got[k].posteriors.end(), post[k]);
        out[k] = std::move(got[k].result);
    }
    return out;
}

frame_decode_result frame_decoder::decode(const frame_request& request)
{
    return decode_batch({ request })[0];
}

std::vector<frame_decode_result>
frame_decoder::decode_batch(const std::vector<frame_request>& requests)
{
    return decode_batch(requests, false);
}

std::vector<frame_decode_result>
frame_decoder::decode_batch(const std::vector<frame_request>& requests, bool random_tail)
{
    const size_t R = requests.size();
    std::vector<prepared> p(R);
    auto t0 = std::chrono::steady_clock::now();
    // the wall time since t0 into `stage` (profiling), and t0 moved on
    auto lap = [&](double frame_stage_times::*stage) {
        if (!d_profiling)
            return;
        const auto t1 = std::chrono::steady_clock::now();
        std::lock_guard<std::mutex> lock(d_mutex);
        d_times.*stage += std::chrono::duration<double>(t1 - t0).count();
        t0 = t1;
    };
    // every request checked and prepared before any decode, on the decoder's
    // threads (the sync word's lattices, the tails: host work per frame that a
    // GPU batch would otherwise wait for); the first invalid one throws
    for_each_request(R, [&](size_t k) {
        prepare(requests[k], p[k], random_tail);
        p[k].post.assign(size_t(N()) * size_t(q()), 1.0 / q()); // (uniform if refused)
        if (requests[k].events)
            p[k].items.assign(2 * requests[k].L, 0.0);
    });

    lap(&frame_stage_times::prepare);
    // look-ahead: T(e) is, up to a constant, the start posterior of the next
    // frame's first K symbols under a uniform start prior over the ends e
    std::map<int, std::vector<size_t>> by_K;
    for (size_t k = 0; k < R; ++k) {
        if (!p[k].refused && !p[k].end_e.empty())
            by_K[requests[k].lookahead].push_back(k);
    }
    for (const auto& [K, which] : by_K) {
        std::vector<frame_request> inner;
        for (size_t k : which) {
            frame_request q;
            q.bits = requests[k].bits;
            q.llr = requests[k].llr;
            q.L = requests[k].L;
            q.start = position_weights{ p[k].end_e,
                                        std::vector<double>(p[k].end_e.size(), 1.0) };
            q.end = end_mode::free;
            // the ends compared on the same bits: their posteriors stay within
            // range however many ends there are (plain, the exact weights of
            // ends thousands of bits apart differ by 2^thousands)
            q.random_before = true;
            inner.push_back(std::move(q));
        }
        const auto got = lookahead_decoder(K).decode_batch(inner, true);
        for (size_t j = 0; j < which.size(); ++j) {
            prepared& pk = p[which[j]];
            const long long e_lo = pk.p0 + tau() + pk.lo_b;
            const double gap = requests[which[j]].gap;
            const long long L = (long long)requests[which[j]].L;
            const bool ok = got[j].result.ok();
            if (!ok && !(gap > 0)) {
                pk.refused = true;
                pk.result = { got[j].result.status,
                              "the look-ahead has probability 0: " +
                                  got[j].result.reason };
                continue;
            }
            // T(e) = P(the look-ahead | e): with the inner starts' bits before
            // them random, the inner start posterior times the inner evidence,
            // the count of its (uniform) starts and 2^(e - e_0); with a gap,
            // (1 - gap) T(e) + gap 2^-(L - e). Given to the backend times
            // 2^-(e - e_lo), relative to the largest.
            const long long e0 = pk.end_e.front();
            const double lz = ok ? got[j].log_evidence + std::log(double(pk.end_e.size()))
                                 : -std::numeric_limits<double>::infinity();
            std::vector<double> w(pk.bounds.end.size(),
                                  -std::numeric_limits<double>::infinity());
            for (size_t i = 0; i < pk.end_e.size(); ++i) {
                const long long e = pk.end_e[i];
                const double t = ok ? got[j].start.weights[i] : 0.0;
                const double lt = t > 0 ? std::log(t) + lz + double(e - e0) * ln2
                                        : -std::numeric_limits<double>::infinity();
                w[size_t(e - e_lo)] = with_gap(lt, gap, L - e) - double(e - e_lo) * ln2;
            }
            if (!exp_relative(w, &pk.log_scale_end)) {
                pk.refused = true;
                pk.result = { frame_status::impossible,
                              "no end position has a positive weight" };
                continue;
            }
            pk.bounds.end = std::move(w);
        }
    }

    lap(&frame_stage_times::lookahead);
    // decode, grouped by backend
    std::vector<frame_decode_result> out(R);
    std::vector<std::pair<map_decoder*, std::vector<size_t>>> groups;
    for (size_t k = 0; k < R; ++k) {
        if (p[k].refused) {
            out[k].result = p[k].result;
            continue;
        }
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) {
            return g.first == p[k].dec.get();
        });
        if (it == groups.end()) {
            groups.push_back({ p[k].dec.get(), {} });
            it = groups.end() - 1;
        }
        it->second.push_back(k);
    }
    for (auto& [dec, which] : groups) {
        std::vector<frame_view> views;
        std::vector<double*> posts;
        for (size_t k : which) {
            const frame_request& r = requests[k];
            frame_view v;
            const long long start = std::min<long long>(p[k].p0, (long long)r.L);
            v.bits = r.bits ? r.bits + start : nullptr;
            v.llr = r.llr ? r.llr + start : nullptr;
            v.rho = size_t((long long)r.L - start);
            v.priors = r.priors;
            v.log_priors = r.log_priors;
            v.extrinsic = r.extrinsic;
            v.boundaries = p[k].plain ? nullptr : &p[k].bounds;
            v.boundary_metrics = p[k].metrics.data();
            v.log_evidence = &p[k].backend_evidence;
            if (r.events) {
                v.events = &p[k].events;
                v.item_posteriors = p[k].items.data() + 2 * start;
            }
            views.push_back(v);
            posts.push_back(p[k].post.data());
        }
        const auto results = dec->decode_batch(views, posts);
        for (size_t j = 0; j < which.size(); ++j)
            out[which[j]].result = results[j];
    }
    lap(&frame_stage_times::decode);
    for_each_request(R, [&](size_t k) { finish(requests[k], p[k], out[k]); });
    lap(&frame_stage_times::finish);
    return out;
}

template <typename F>
void frame_decoder::for_each_request(size_t R, F f) const
{
    const int T = R > 1 ? std::min<int>(resolve_threads(d_cfg.threads), int(R)) : 1;
    std::vector<std::exception_ptr> err(R);
    detail::parallel_loop::shared().run(T, R, [&](size_t k, int) {
        try {
            f(k);
        } catch (...) {
            err[k] = std::current_exception(); // nothing leaves the loop
        }
    });
    for (const auto& e : err) {
        if (e)
            std::rethrow_exception(e);
    }
}

} // namespace bsid
