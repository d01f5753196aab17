/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Channel estimation by expectation-maximization over the decoder's lattice
// (docs/design.md section 3, "Channel estimation"): the E-step is the backends' expected
// events (frame_view::events, model::codeword_events), the M-step the closed forms of the
// channel's i.i.d. events and a Newton step for the LLR scale.

#include "runtime/format.h"
#include <gnuradio/bsid/core/estimation/channel_estimator.h>
#include <gnuradio/bsid/core/framing/setup_watch.h>
#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <gnuradio/bsid/core/inner/model.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace bsid {

namespace {

// ln s(x), s the logistic function, without overflow or cancellation
double log_logistic(double x)
{
    return x >= 0 ? -std::log1p(std::exp(-x)) : x - std::log1p(std::exp(x));
}

// Q(c) of llr_scale_step, with its first and second derivatives
struct scale_objective {
    double q = 0, d1 = 0, d2 = 0;
};

// The same for log-probabilities lp over A letters: each item weighs as
// softmax(c lp); Q = sum_y p_y (c lp_y - lse(c lp)), Q' = sum_y p_y lp_y -
// m E[lp], Q'' = -m Var[lp] (m = sum_y p_y, moments under softmax(c lp)),
// letters of probability 0 (lp = -infinity) left out
void add_logprob_items(const llr_posteriors& f, double c, scale_objective& o)
{
    const size_t A = size_t(f.alphabet);
    for (size_t j = 0; j < f.count; ++j) {
        const double* lp = f.logprob + A * j;
        const double* p = f.post + A * j;
        double m = 0, top = -std::numeric_limits<double>::infinity();
        for (size_t y = 0; y < A; ++y) {
            if (std::isfinite(lp[y])) {
                m += p[y];
                top = std::max(top, c * lp[y]);
            }
        }
        if (m == 0)
            continue;
        double z = 0, e1 = 0, e2 = 0;
        for (size_t y = 0; y < A; ++y) {
            if (!std::isfinite(lp[y]))
                continue;
            const double w = std::exp(c * lp[y] - top);
            z += w;
            e1 += w * lp[y];
        }
        e1 /= z;
        for (size_t y = 0; y < A; ++y) {
            if (!std::isfinite(lp[y]))
                continue;
            const double w = std::exp(c * lp[y] - top) / z;
            e2 += w * (lp[y] - e1) * (lp[y] - e1);
        }
        const double lse = top + std::log(z);
        for (size_t y = 0; y < A; ++y) {
            if (std::isfinite(lp[y]) && p[y] != 0) {
                o.q += p[y] * (c * lp[y] - lse);
                o.d1 += p[y] * lp[y];
            }
        }
        o.d1 -= m * e1;
        o.d2 -= m * e2;
    }
}

scale_objective scale_at(const std::vector<llr_posteriors>& frames, double c)
{
    scale_objective o;
    for (const auto& f : frames) {
        if (f.logprob) {
            add_logprob_items(f, c, o);
            continue;
        }
        for (size_t j = 0; j < f.count; ++j) {
            const double l = f.llr[j];
            const double p0 = f.post[2 * j], p1 = f.post[2 * j + 1];
            if (!std::isfinite(l) || p0 + p1 == 0)
                continue;
            double s0, s1; // s(-c l), s(c l)
            model::llr_probabilities(c * l, s0, s1);
            o.q += p0 * log_logistic(-c * l) + p1 * log_logistic(c * l);
            o.d1 += l * (p1 * s0 - p0 * s1);
            o.d2 -= l * l * (p0 + p1) * s0 * s1;
        }
    }
    return o;
}

// The decoder limits of one iteration (see estimate_channel's description).
struct state_space {
    drift_range mtau, mn;
};

state_space iteration_limits(const decoder_config& cfg,
                             size_t G,
                             const channel_params& ch,
                             long long dmin,
                             long long dmax,
                             const state_space* prev)
{
    decoder_config c = cfg;
    c.ch = ch;
    // with a sync word, the frame decoder's own: N + ceil(G / n) codewords
    c.N = cfg.N + int((G + size_t(cfg.cb.n()) - 1) / size_t(cfg.cb.n()));
    const decoder_limits lim = map_decoder::limits_for(c);
    if (cfg.mtau && cfg.mn)
        return { lim.mtau, lim.mn };
    state_space s{ lim.mtau, lim.mn };
    if (!cfg.mtau && (dmin < s.mtau.lo || dmax > s.mtau.hi)) {
        // every frame's end drift, with a quarter of the computed side's
        // width around it for the walk there
        const long long lo = std::min<long long>(
            s.mtau.lo, dmin - std::max<long long>(4, (-s.mtau.lo + 3) / 4));
        const long long hi = std::max<long long>(
            s.mtau.hi, dmax + std::max<long long>(4, (s.mtau.hi + 3) / 4));
        s.mtau.lo = int(std::max<long long>(lo, -(1LL << 30)));
        s.mtau.hi = int(std::min<long long>(hi, 1LL << 30));
    }
    if (prev) { // never narrowed
        s.mtau.lo = std::min(s.mtau.lo, prev->mtau.lo);
        s.mtau.hi = std::max(s.mtau.hi, prev->mtau.hi);
        s.mn.lo = std::min(s.mn.lo, prev->mn.lo);
        s.mn.hi = std::max(s.mn.hi, prev->mn.hi);
    }
    return s;
}

void note(channel_estimate& est, log_level level, const std::string& what)
{
    log(level, "estimate_channel: " + what);
    est.notes.push_back(what);
}

// Whether a value moved by more than tol relative; for a probability, a
// change below 1e-12 is none (a parameter EM drives to 0 shrinks by a
// constant factor per iteration, never by little relative to itself).
bool moved(double a, double b, double tol, double floor)
{
    const double d = std::fabs(a - b);
    return d > floor && d > tol * std::max(std::fabs(a), std::fabs(b));
}

// The initial point: cfg's channel, as a matrix of its uniform substitutions
// when a matrix is to be estimated from a channel without one.
channel_params initial_channel(const decoder_config& cfg, const estimate_options& opt)
{
    const channel_params& ch = cfg.ch;
    if (!opt.substitution_matrix || ch.has_substitution_matrix())
        return ch;
    const unsigned A = unsigned(ch.alphabet());
    std::vector<double> S(size_t(A) * A);
    for (unsigned x = 0; x < A; ++x)
        for (unsigned y = 0; y < A; ++y)
            S[size_t(x) * A + y] = ch.emission(x, y);
    return channel_params(ch.Pi(), ch.Pd(), 0, int(A), std::move(S));
}

// The checks both framings share: options and the initial point.
void check_start(const decoder_config& cfg, const estimate_options& opt, bool soft)
{
    if (opt.iterations < 1)
        throw std::invalid_argument(detail::concat(
            "estimate_channel: iterations = ", opt.iterations, " must be at least 1"));
    if (!(opt.tolerance >= 0) || !std::isfinite(opt.tolerance))
        throw std::invalid_argument(
            "estimate_channel: tolerance must be >= 0 and finite");
    if (soft && !(opt.llr_scale > 0 && std::isfinite(opt.llr_scale)))
        throw std::invalid_argument(
            detail::concat("estimate_channel: the initial LLR scale ",
                           detail::fmt_double(opt.llr_scale),
                           " must be positive and finite"));
    const channel_params& ch0 = cfg.ch;
    if (opt.substitution_matrix && ch0.alphabet() == 2)
        throw std::invalid_argument(
            "estimate_channel: a substitution matrix is estimated over more than two "
            "letters; a binary channel's substitutions are Ps");
    for (const auto& [name, v, fixed] : { std::make_tuple("Pi", ch0.Pi(), opt.fix_Pi),
                                          std::make_tuple("Pd", ch0.Pd(), opt.fix_Pd),
                                          std::make_tuple("Ps", ch0.Ps(), opt.fix_Ps) }) {
        if (v == 0 && !fixed)
            throw std::invalid_argument(
                detail::concat("estimate_channel: the initial ",
                               name,
                               " = 0 would stay 0 (EM never moves a probability off 0): "
                               "start it above 0, or fix it"));
    }
}

// One E-step's sums over the frames used.
struct expectation {
    event_counts events;
    std::vector<double> pairs; // substitution counts (A x A), with a matrix
    double log_likelihood = 0;
    size_t used = 0;
    std::vector<llr_posteriors> items; // soft input: the LLRs and their posteriors
};

/*
 * The substitution matrix's M-step: row x becomes the expected transmissions
 * of x received as each y over all of x's (pairs, A x A). A letter never
 * sent (no expected transmission) keeps its row, noted.
 */
void matrix_step(channel_estimate& est,
                 const std::vector<double>& pairs,
                 std::vector<double>& S,
                 int it)
{
    const size_t A = size_t(est.ch.alphabet());
    for (size_t x = 0; x < A; ++x) {
        double row = 0;
        for (size_t y = 0; y < A; ++y)
            row += pairs[x * A + y];
        if (!(row > 0)) {
            note(est,
                 log_level::warning,
                 detail::concat("iteration ",
                                it,
                                ": letter ",
                                x,
                                " is never expected to be transmitted; its row of the "
                                "substitution matrix is kept"));
            continue;
        }
        for (size_t y = 0; y < A; ++y)
            S[x * A + y] = pairs[x * A + y] / row;
    }
}

/*
 * The M-step: the i.i.d. events' closed forms (fixed values kept), the LLR
 * scale by llr_scale_step; records the iteration in est and returns whether
 * any estimated value moved by more than the tolerance.
 */
bool maximize(channel_estimate& est,
              const expectation& e,
              const estimate_options& opt,
              bool soft,
              int it)
{
    est.frames_used = e.used;
    est.events = e.events;
    est.log_likelihoods.push_back(e.log_likelihood);
    est.iterations = it + 1;
    double Pi = est.ch.Pi(), Pd = est.ch.Pd(), Ps = est.ch.Ps();
    const double I = e.events.ins, D = e.events.del, T = e.events.trans;
    // (D + T is the bits sent, never 0; I + T may be 0 when Pd is fixed)
    if (!opt.fix_Pi && !opt.fix_Pd) {
        Pi = I / (I + D + T);
        Pd = D / (I + D + T);
    } else if (!opt.fix_Pi && I + T > 0) {
        Pi = (1 - Pd) * I / (I + T);
    } else if (!opt.fix_Pd) {
        Pd = (1 - Pi) * D / (D + T);
    }
    const double min_pt = 1e-6;
    if (!(Pi + Pd <= 1 - min_pt)) {
        const double f = (1 - min_pt) / (Pi + Pd);
        note(est,
             log_level::warning,
             detail::concat("iteration ",
                            it,
                            ": Pi + Pd = ",
                            detail::fmt_double(Pi + Pd),
                            " (",
                            detail::fmt_double(T),
                            " transmissions expected) leaves the valid range; clamped to "
                            "Pi + Pd = 1 - 1e-6"));
        if (opt.fix_Pd) {
            Pi = std::max(0.0, 1 - min_pt - Pd);
        } else if (opt.fix_Pi) {
            Pd = std::max(0.0, 1 - min_pt - Pi);
        } else {
            Pi *= f;
            Pd *= f;
        }
    }
    if (!opt.fix_Ps) {
        if (T > 0) {
            Ps = std::min(1.0, e.events.subst / T);
        } else {
            note(est,
                 log_level::warning,
                 detail::concat("iteration ", it, ": no transmission expected; Ps kept"));
        }
    }
    double c = est.llr_scale;
    if (soft && !opt.fix_llr_scale) {
        std::string why;
        c = llr_scale_step(e.items, est.llr_scale, &why);
        if (!why.empty())
            note(est, log_level::warning, detail::concat("iteration ", it, ": ", why));
    }
    const int A = est.ch.alphabet();
    std::vector<double> S = est.ch.substitution(); // empty: uniform substitutions
    est.substitution_counts = e.pairs;
    if (!S.empty() && !opt.fix_Ps)
        matrix_step(est, e.pairs, S, it);
    const channel_params next =
        S.empty() ? channel_params(Pi, Pd, Ps, A) : channel_params(Pi, Pd, 0, A, S);
    bool changed = moved(next.Pi(), est.ch.Pi(), opt.tolerance, 1e-12) ||
                   moved(next.Pd(), est.ch.Pd(), opt.tolerance, 1e-12) ||
                   moved(next.Ps(), est.ch.Ps(), opt.tolerance, 1e-12) ||
                   moved(c, est.llr_scale, opt.tolerance, 0.0);
    for (size_t k = 0; k < S.size() && !changed; ++k)
        changed = moved(S[k], est.ch.substitution()[k], opt.tolerance, 1e-12);
    est.ch = next;
    est.llr_scale = c;
    log(log_level::debug,
        detail::concat("estimate_channel: iteration ",
                       it,
                       ": log-likelihood ",
                       detail::fmt_double(e.log_likelihood),
                       " over ",
                       e.used,
                       " frames -> ",
                       est.ch.repr(),
                       soft ? detail::concat(" llr_scale ", detail::fmt_double(c)) : ""));
    if (opt.on_iteration)
        opt.on_iteration(it, e.log_likelihood, est.ch);
    if (!changed)
        est.converged = true;
    return changed;
}

/*
 * A fit worse than random items: the frames' log-likelihood against random
 * items below 0 at the last iterate. Frames of the decoder's code, N and
 * sync word read far above 0 (docs/receiving.md, "A setup that does not
 * fit the frames"); below it the estimate explains nothing.
 */
void check_fit(channel_estimate& est)
{
    if (est.log_likelihoods.empty() || !(est.log_likelihoods.back() < 0))
        return;
    note(est,
         log_level::warning,
         detail::concat("the fit is worse than random items: the ",
                        est.frames_used,
                        " frames' log-likelihood against random items is ",
                        detail::fmt_double(est.log_likelihoods.back()),
                        " < 0 at the estimate, so it explains nothing; the frames may "
                        "not be of this codebook, N or sync word (or the input kind "
                        "is wrong): the estimate is not to be trusted"));
}

// The error for a decoder that refused every frame: how many of each status.
[[noreturn]] void refused_every_frame(const std::vector<frame_result>& results)
{
    std::string counts;
    for (const frame_status st : all_frame_statuses) {
        const auto n =
            std::count_if(results.begin(), results.end(), [&](const frame_result& r) {
                return r.status == st;
            });
        if (n > 0)
            counts += detail::concat(counts.empty() ? "" : ", ", n, " ", to_string(st));
    }
    throw std::runtime_error(
        detail::concat("estimate_channel: the decoder refused every frame (",
                       counts,
                       "; the first: ",
                       results.empty() ? "" : results[0].reason,
                       ")"));
}

} // namespace

void estimate_options::fix(const std::string& name)
{
    if (name == "Pi")
        fix_Pi = true;
    else if (name == "Pd")
        fix_Pd = true;
    else if (name == "Ps")
        fix_Ps = true;
    else if (name == "llr_scale")
        fix_llr_scale = true;
    else
        throw std::invalid_argument("estimate_channel: '" + name +
                                    "' is not one of Pi, Pd, Ps, llr_scale");
}

double
llr_scale_step(const std::vector<llr_posteriors>& frames, double c0, std::string* note)
{
    const double cmin = 1e-6, cmax = 1e6;
    if (!(c0 > 0) || !std::isfinite(c0))
        throw std::invalid_argument(
            "llr_scale_step: the scale must be positive and finite");
    double c = std::clamp(c0, cmin, cmax);
    // Q is concave: it rises to its maximum where Q' = 0, or to a bound
    if (scale_at(frames, cmax).d1 >= 0) {
        if (note)
            *note = "the LLR scale grows without bound (the LLRs explain every item): "
                    "clamped to 1e6";
        return cmax;
    }
    if (scale_at(frames, cmin).d1 <= 0) {
        if (note)
            *note = "the LLRs carry no information on what was received: the LLR scale "
                    "is clamped to 1e-6";
        return cmin;
    }
    double lo = cmin, hi = cmax; // Q'(lo) > 0 > Q'(hi)
    for (int it = 0; it < 200; ++it) {
        const scale_objective o = scale_at(frames, c);
        if (o.d1 > 0)
            lo = c;
        else
            hi = c;
        double next = o.d2 < 0 ? c - o.d1 / o.d2 : 0.5 * (lo + hi);
        if (!(next > lo && next < hi)) // a step out of the bracket: bisect
            next = 0.5 * (lo + hi);
        if (std::fabs(next - c) <= 1e-13 * c)
            return next;
        c = next;
    }
    return c;
}

namespace {

// Whether the E-step asks for the items' posteriors: of soft items only,
// for the LLR scale's step, and not where the scale is fixed (the events
// then come from the counts alone, without a backward pass).
bool wants_item_posteriors(bool soft, const estimate_options& opt)
{
    return soft && !opt.fix_llr_scale;
}

} // namespace

channel_estimate estimate_channel(const decoder_config& cfg_in,
                                  const std::vector<frame_view>& frames,
                                  const estimate_options& opt,
                                  const std::vector<uint8_t>& sync_word)
{
    if (frames.empty())
        throw std::invalid_argument("estimate_channel: no frames to estimate from");
    const size_t A = size_t(cfg_in.ch.alphabet());
    bool soft = false;
    for (size_t k = 0; k < frames.size(); ++k) {
        const frame_view& f = frames[k];
        if (f.boundaries)
            throw std::invalid_argument(
                detail::concat("estimate_channel: frame ",
                               k,
                               " has boundary weights; tagged frames only"));
        const int kinds =
            (f.bits != nullptr) + (f.llr != nullptr) + (f.logprob != nullptr);
        if (kinds != 1 && f.rho > 0)
            throw std::invalid_argument(
                detail::concat("estimate_channel: frame ",
                               k,
                               " must hold exactly one of hard items, LLRs and "
                               "log-probabilities"));
        soft = soft || f.llr || f.logprob;
    }
    check_start(cfg_in, opt, soft);

    decoder_config cfg = cfg_in;
    cfg.ch = initial_channel(cfg_in, opt);
    const bool matrix = cfg.ch.has_substitution_matrix();
    const long long sent = (long long)sync_word.size() + (long long)cfg.N * cfg.cb.n();
    long long dmin = 0, dmax = 0; // the frames' end drifts, and 0
    for (const auto& f : frames) {
        if (f.rho > 0) {
            dmin = std::min(dmin, (long long)f.rho - sent);
            dmax = std::max(dmax, (long long)f.rho - sent);
        }
    }

    channel_estimate est;
    est.ch = cfg.ch;
    est.llr_scale = soft ? opt.llr_scale : 1.0;
    {
        // frames whose lengths say N does not fit them (setup_watch; it logs)
        setup_watch watch("estimate_channel", sent, cfg.N, cfg.cb.n(), cfg_in.ch);
        for (const auto& f : frames)
            if (f.rho > 0 && watch.add_received_length(f.rho))
                est.notes.push_back(watch.warnings().back());
    }
    std::vector<bool> used(frames.size(), true);
    std::vector<std::vector<double>> scaled(frames.size());
    std::vector<frame_decode_result> results(frames.size());
    state_space space{};
    for (int it = 0; it < opt.iterations; ++it) {
        space = iteration_limits(
            cfg, sync_word.size(), est.ch, dmin, dmax, it > 0 ? &space : nullptr);
        cfg.ch = est.ch;
        cfg.mtau = space.mtau;
        cfg.mn = space.mn;
        frame_decoder dec(cfg, sync_word);

        // E-step: the frames from position 0 (W first, if any) to their last item
        std::vector<frame_request> req;
        std::vector<size_t> which;
        for (size_t k = 0; k < frames.size(); ++k) {
            if (!used[k])
                continue;
            frame_request r;
            r.L = frames[k].rho;
            if (frames[k].llr) {
                scaled[k].resize(r.L);
                for (size_t j = 0; j < r.L; ++j)
                    scaled[k][j] = est.llr_scale * frames[k].llr[j];
                r.llr = scaled[k].data();
            } else if (frames[k].logprob) {
                scaled[k].resize(A * r.L);
                for (size_t j = 0; j < A * r.L; ++j)
                    scaled[k][j] = est.llr_scale * frames[k].logprob[j];
                r.logprob = scaled[k].data();
            } else {
                r.bits = frames[k].bits;
            }
            r.priors = frames[k].priors; // known symbols, or an outer decoder's
            r.log_priors = frames[k].log_priors;
            r.events = true;
            r.item_posteriors =
                wants_item_posteriors(frames[k].llr || frames[k].logprob, opt);
            r.posteriors = false; // the events alone
            r.substitution_counts = matrix;
            req.push_back(r);
            which.push_back(k);
        }
        auto got = dec.decode_batch(req);
        expectation e;
        e.pairs.assign(matrix ? A * A : 0, 0.0);
        std::vector<frame_result> statuses;
        for (size_t v = 0; v < got.size(); ++v) {
            const size_t k = which[v];
            statuses.push_back(got[v].result);
            if (!got[v].result.ok()) {
                used[k] = false;
                ++est.frames_refused;
                if (it > 0 || est.frames_refused <= 3)
                    note(
                        est,
                        log_level::info,
                        detail::concat("frame ",
                                       k,
                                       " refused",
                                       it > 0 ? detail::concat(" at iteration ", it) : "",
                                       " (",
                                       to_string(got[v].result.status),
                                       ": ",
                                       got[v].result.reason,
                                       "); left out of the estimate"));
                continue;
            }
            results[k] = std::move(got[v]);
            ++e.used;
            e.events += results[k].events;
            for (size_t j = 0; j < e.pairs.size(); ++j)
                e.pairs[j] += results[k].substitution_counts[j];
            e.log_likelihood += results[k].log_likelihood_ratio;
            if (wants_item_posteriors(frames[k].llr || frames[k].logprob, opt))
                e.items.push_back({ frames[k].llr,
                                    results[k].item_posteriors.data(),
                                    frames[k].rho,
                                    frames[k].logprob,
                                    int(A) });
        }
        if (e.used == 0)
            refused_every_frame(statuses);
        est.mtau = space.mtau;
        est.mn = space.mn;
        if (!maximize(est, e, opt, soft, it))
            break;
    }
    if (est.frames_refused > 3)
        note(est,
             log_level::info,
             detail::concat(est.frames_refused,
                            " frames refused in all; ",
                            est.frames_used,
                            " used"));
    check_fit(est);
    return est;
}

channel_estimate estimate_channel_stream(const decoder_config& cfg_in,
                                         const received_items& stream,
                                         size_t count,
                                         const estimate_options& opt,
                                         const std::vector<uint8_t>& sync_word,
                                         stream_options sopt)
{
    if (count == 0 || stream.empty())
        throw std::invalid_argument("estimate_channel: an empty stream to estimate from");
    const bool soft = stream.soft();
    const size_t A = size_t(cfg_in.ch.alphabet());
    check_start(cfg_in, opt, soft);
    sopt.input = stream.logprob ? input_kind::logprob
                 : soft         ? input_kind::llr
                                : input_kind::bits;
    sopt.events = true;
    const bool want_items = wants_item_posteriors(soft, opt);
    sopt.item_posteriors = want_items;
    const channel_params ch0 = initial_channel(cfg_in, opt);
    const bool matrix = ch0.has_substitution_matrix();
    sopt.substitution_counts = matrix;
    channel_estimate est;
    est.ch = ch0;
    est.llr_scale = soft ? opt.llr_scale : 1.0;
    std::vector<double> scaled, items;
    for (int it = 0; it < opt.iterations; ++it) {
        decoder_config cfg = cfg_in;
        cfg.ch = est.ch;
        auto dec = std::make_shared<frame_decoder>(cfg, sync_word);
        stream_decoder sd(dec, sopt); // checks the options
        std::vector<stream_frame> frames;
        if (stream.logprob) {
            scaled.resize(A * count);
            for (size_t j = 0; j < A * count; ++j)
                scaled[j] = est.llr_scale * stream.logprob[j];
            frames = sd.push(scaled.data(), count);
        } else if (soft) {
            scaled.resize(count);
            for (size_t j = 0; j < count; ++j)
                scaled[j] = est.llr_scale * stream.llr[j];
            frames = sd.push(scaled.data(), count);
        } else {
            frames = sd.push(stream.bits, count);
        }
        auto tail = sd.flush();
        frames.insert(frames.end(),
                      std::make_move_iterator(tail.begin()),
                      std::make_move_iterator(tail.end()));
        // E-step: the frames decoded in sync; each item's posteriors summed
        // over the frames whose segments hold it (it is one frame's at most)
        expectation e;
        std::vector<frame_result> statuses;
        size_t refused = 0;
        if (want_items)
            items.assign(A * count, 0.0);
        e.pairs.assign(matrix ? A * A : 0, 0.0);
        for (const auto& f : frames) {
            statuses.push_back(f.result);
            if (!f.result.ok()) {
                ++refused;
                continue;
            }
            ++e.used;
            e.events += f.events;
            for (size_t j = 0; j < e.pairs.size(); ++j)
                e.pairs[j] += f.substitution_counts[j];
            e.log_likelihood += f.log_likelihood_ratio;
            for (size_t j = 0; want_items && j < f.item_posteriors.size(); ++j)
                items[A * size_t(f.segment_begin) + j] += f.item_posteriors[j];
        }
        if (e.used == 0)
            refused_every_frame(statuses);
        if (want_items)
            e.items.push_back(
                { stream.llr, items.data(), count, stream.logprob, int(A) });
        est.frames_refused = refused;
        est.mtau = dec->limits().mtau;
        est.mn = dec->limits().mn;
        const bool last = !maximize(est, e, opt, soft, it) || it + 1 == opt.iterations;
        if (last) {
            // what the stream decoder warned of (a wrong N, ...; logged)
            for (const auto& w : sd.warnings())
                est.notes.push_back(w);
            break;
        }
    }
    check_fit(est);
    return est;
}

} // namespace bsid
