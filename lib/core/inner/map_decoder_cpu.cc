/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU backend of the MAP decoder (paper, "The MAP Decoder"), exact within
// the drift limits, in float or double, with global or local storage.
//
// Indices: symbol i = 0..N-1; state a = m - m_tau^- (a drift at a codeword
// boundary, Mt states); corridor offset e = d - m_n^- for the drift change
// d = m - m' within a codeword (Mn values); symbol D = 0..q-1. A gamma block
// is the Mn x q array of receiver metrics R(y | C_i(D)) for the segments from
// m' to every m' + d, for one (i, m'): one lattice gives all of it, and the
// block depends on (i, m') only through the book i mod P and the received
// position where the codeword starts, so the lattices run by position
// (position_blocks.h: W positions in vector lanes, the codewords as a trie of
// their prefixes). The lattice runs in the decoder's precision (float or
// double); alpha, beta, the sums G over D, the priors and L are kept in
// double in both, so that float differs from double by the lattice's
// rounding alone.
//
// Both storage modes run the same arithmetic in the same order, so they give
// identical posteriors: global keeps every position's blocks of the frame
// and the sums G of every index; local keeps about one window of positions
// per book, so that the backward pass recomputes each lattice once, and
// recomputes G there.

#include "estimation/index_events_cpu.h"
#include "inner/codeword_weights.h"
#include "inner/cpu_recursion.h"
#include "inner/map_decoder_cpu.h"
#include "inner/position_blocks.h"
#include "inner/position_sweeps.h"
#include "runtime/aligned_vector.h"
#include "runtime/flush_denormals.h"
#include "runtime/format.h"
#include "runtime/parallel_loop.h"
#include "runtime/seconds_since.h"
#include <gnuradio/bsid/core/estimation/event_counts.h>
#include <gnuradio/bsid/core/inner/lattice.h>
#include <gnuradio/bsid/core/inner/model.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace bsid {

namespace {

using clock_type = std::chrono::steady_clock;

using detail::flush_denormals;

using detail::seconds_since;

// Memory one thread may spend on stored gamma blocks before auto picks local.
size_t global_storage_budget(int threads)
{
    const long pages = sysconf(_SC_AVPHYS_PAGES);
    const long page = sysconf(_SC_PAGESIZE);
    size_t avail =
        (pages > 0 && page > 0) ? size_t(pages) * size_t(page) : (size_t(4) << 30);
    return std::min<size_t>(size_t(2) << 30, avail / size_t(4 * std::max(threads, 1)));
}

template <typename real>
class cpu_decoder final : public map_decoder
{
public:
    explicit cpu_decoder(const decoder_config& cfg)
        : map_decoder(cfg), d_plan(cfg.cb, cfg.ch, d_limits, cfg.N, cpu::best_isa())
    {
        weight_tables(cfg);
        d_margin = cpu::row_margin(d_limits.mn.lo, d_limits.mn.size());
        const int threads = resolve_threads(cfg.threads);
        const size_t budget = global_storage_budget(threads);
        // rings of positions with every codeword, or with one chunk of them
        // where those do not fit (each index then runs its own lattices)
        d_streaming = d_plan.ring_bytes(false) > budget;
        if (d_streaming) {
            log(log_level::info,
                "map_decoder(cpu): the lattices' rings hold one chunk of codewords "
                "(all of them exceed the memory budget)");
        }
        // global: every index's sums G and Q (both in double, whatever the
        // lattice's precision), so that each lattice runs once
        const size_t global_bytes = d_plan.ring_bytes(d_streaming) +
                                    size_t(N()) * size_t(d_plan.Qs()) * sizeof(double) *
                                        (size_t(q()) + size_t(d_limits.mn.size()));
        if (cfg.storage == storage_kind::automatic) {
            d_storage =
                global_bytes <= budget ? storage_kind::global : storage_kind::local;
            log(log_level::info,
                detail::concat("map_decoder(cpu): storage auto -> ",
                               to_string(d_storage),
                               " (global needs ",
                               global_bytes >> 20,
                               " MiB per frame, budget ",
                               budget >> 20,
                               " MiB per thread)"));
        } else {
            d_storage = cfg.storage;
        }
    }

    backend_kind backend() const override { return backend_kind::cpu; }
    storage_kind storage() const override { return d_storage; }

    frame_result decode(const frame_view& frame, double* post) override
    {
        if (frame.priors)
            validate_priors(frame.priors, frame.log_priors); // raises before any work
        const auto ws = try_acquire();
        stage_times t;
        const frame_result r = decode_guarded(frame, post, ws.get(), t);
        add_times(t);
        if (ws)
            release(ws);
        return r;
    }

    std::vector<frame_result> decode_batch(const std::vector<frame_view>& frames,
                                           const std::vector<double*>& post) override
    {
        if (post.size() != frames.size()) {
            throw std::invalid_argument(
                "decode_batch: one output buffer per frame is needed");
        }
        for (const auto& f : frames) {
            if (f.priors)
                validate_priors(f.priors, f.log_priors); // raises before any work
        }
        std::vector<frame_result> results(frames.size());
        const int threads = std::min<int>(resolve_threads(d_cfg.threads),
                                          std::max<int>(1, int(frames.size())));
        // Each worker takes a workspace at its first frame (again at the next
        // frame if that failed) and gives it back after the loop. Nothing
        // inside the loop throws: a frame that fails gets a decoder_error
        // status.
        const size_t T = size_t(threads);
        std::vector<std::shared_ptr<workspace>> ws(T);
        std::vector<stage_times> times(T);
        detail::parallel_loop::shared().run(
            threads, frames.size(), [&](size_t k, int worker) {
                const size_t w = size_t(worker);
                if (!ws[w])
                    ws[w] = try_acquire();
                results[k] = decode_guarded(frames[k], post[k], ws[w].get(), times[w]);
            });
        for (size_t w = 0; w < T; ++w) {
            add_times(times[w]);
            if (ws[w])
                release(ws[w]);
        }
        return results;
    }

    /*
     * The codewords' diagonal weights and letters per book in double, for
     * the expected events (frame_view::events).
     */
    void weight_tables(const decoder_config& cfg)
    {
        d_ev_w = lattice_weights<double>::ratio(cfg.ch);
        d_ev_qw.resize(size_t(cfg.cb.P()));
        d_ev_x.resize(size_t(cfg.cb.P()));
        for (int p = 0; p < cfg.cb.P(); ++p) {
            d_ev_qw[size_t(p)] = diagonal_table<double>(cfg.cb, cfg.ch, p);
            const auto x = codeword_letters(cfg.cb, p);
            d_ev_x[size_t(p)].assign(x.begin(), x.end());
        }
    }

private:
    struct workspace {
        position_blocks<real> blocks; // the lattices' blocks by position
        // each index's sums (position_blocks.h), every index's (global) or
        // the current one's (local): G_i(e, a) at (i Mn + e) Mt + a, and
        // Q_i(D, b) at (i q + D) Qs + b
        aligned_vector<double> G, Q;
        std::vector<index_G> Gi; // where each index's G is (in G, or kept by position)
        aligned_vector<double> alpha; // (N + 1) Mt
        aligned_vector<double> beta_next, beta_cur, L;
        aligned_vector<double> from;  // per state: alpha, or 0 where not live
        aligned_vector<real> soft;    // soft input: the items' probabilities
        aligned_vector<double> prior; // N q, normalized, or empty for uniform
        // expected events: the items' probabilities in double, and the
        // workspace of the codeword lattices (index_events_cpu.h)
        aligned_vector<double> ev_prob, ev_scratch;
        // one index's sums per lane (event_lanes): ins, del, trans and subst
        // (4 q), item posteriors (A (n + Mt + Mn) q) and substitution counts
        // (A A q), before normalizing
        aligned_vector<double> ev_lanes, ev_items, ev_pairs;
        aligned_vector<double> ev_mass; // alpha_i(m') beta_i(m') (unnormalized beta)
        frame_boundaries bounds;
        // ln of the products of alpha's normalizers and of sum alpha_N beta_N
        double log_evidence = 0;
    };

    // Workspaces are kept between calls: a global-storage gamma array is tens
    // of MB, and allocating and zeroing it for every frame would cost a good
    // part of a decode. A pool, so that concurrent callers each get their own.
    // A workspace, or null when there is no memory even for that (or the lock failed).
    std::shared_ptr<workspace> try_acquire() noexcept
    {
        try {
            std::lock_guard<std::mutex> lock(d_pool_mutex);
            if (d_pool.empty())
                return std::make_shared<workspace>();
            auto ws = d_pool.back();
            d_pool.pop_back();
            return ws;
        } catch (...) {
            return nullptr;
        }
    }
    void release(const std::shared_ptr<workspace>& ws) noexcept
    {
        try {
            std::lock_guard<std::mutex> lock(d_pool_mutex);
            d_pool.push_back(ws);
        } catch (...) {
            // the workspace is freed instead of kept
        }
    }

    void add_times(const stage_times& t) noexcept
    {
        if (!d_profiling)
            return;
        std::lock_guard<std::mutex> lock(
            d_times_mutex); // (std::terminate if locking fails)
        d_times.gamma += t.gamma;
        d_times.alpha += t.alpha;
        d_times.beta += t.beta;
        d_times.L += t.L;
    }

    // The states [lo, hi) of index i whose received position lies in the
    // frame, [0, rho]; the others, and a state no path reaches (alpha 0),
    // contribute nothing.
    std::pair<int, int> in_frame(const frame_view& f, int i) const
    {
        const int Mt = d_limits.mtau.size();
        const long long s0 = (long long)n() * i + d_limits.mtau.lo;
        const int lo = int(std::clamp<long long>(-s0, 0, Mt));
        const int hi = int(std::clamp<long long>((long long)f.rho - s0 + 1, lo, Mt));
        return { lo, hi };
    }

    /*
     * Whether the E-step needs every edge's posterior (the item posteriors
     * or the substitution counts, gathered per lane in ws.ev_items), or the
     * four counts alone, which index_events makes by a forward pass.
     */
    static bool every_edge(const frame_view& f)
    {
        return f.item_posteriors || f.substitution_counts;
    }

    /*
     * decode_one, with every failure made a status: out of memory for global
     * storage falls back to local storage when storage is "auto" (local
     * needs one block per frame instead of N Mt), and any other failure
     * gives the frame a decoder_error status with uniform posteriors.
     */
    // decode_contained, then the boundary metrics (alpha_N, beta_0) if the caller asked
    frame_result decode_guarded(const frame_view& f,
                                double* post,
                                workspace* ws,
                                stage_times& t) noexcept
    {
        if (f.events)
            clear_events(f, alphabet());
        const frame_result r = decode_contained(f, post, ws, t);
        if (!r.ok() && f.events)
            clear_events(f, alphabet());
        if (r.ok()) {
            const size_t Mt = size_t(d_limits.mtau.size());
            write_boundary_metrics(f,
                                   ws->alpha.data() + size_t(N()) * Mt,
                                   ws->beta_next.data() + d_margin,
                                   ws->alpha.data());
        } else {
            write_boundary_metrics(f, nullptr, nullptr, nullptr);
        }
        if (f.log_evidence) {
            *f.log_evidence =
                r.ok() ? ws->log_evidence + double(tau()) * std::log(d_cfg.ch.Pt())
                       : -std::numeric_limits<double>::infinity();
        }
        return r;
    }

    frame_result decode_contained(const frame_view& f,
                                  double* post,
                                  workspace* ws,
                                  stage_times& t) noexcept
    {
        const bool global = d_storage == storage_kind::global;
        if (!ws) {
            fill_uniform(post);
            return { frame_status::decoder_error,
                     "out of host memory for the decoder's workspace" };
        }
        try {
            try {
                return decode_one(f, post, *ws, t, global);
            } catch (const std::bad_alloc&) {
                *ws = workspace{}; // give back what the attempt holds
                if (!(global && d_cfg.storage == storage_kind::automatic))
                    throw;
                log(log_level::warning,
                    "map_decoder(cpu): out of host memory for global storage; "
                    "the frame is decoded with local storage");
                return decode_one(f, post, *ws, t, false);
            }
        } catch (const std::bad_alloc&) {
            *ws = workspace{};
            fill_uniform(post);
            return { frame_status::decoder_error,
                     detail::concat(
                         "out of host memory while decoding the frame (",
                         to_string(global ? storage_kind::global : storage_kind::local),
                         " storage",
                         global ? "; storage 'local' keeps one index's sums instead of N"
                                : "",
                         ")") };
        } catch (const std::exception& e) {
            fill_uniform(post);
            return { frame_status::decoder_error,
                     std::string("the decoder failed on the frame: ") + e.what() };
        } catch (...) {
            fill_uniform(post);
            return { frame_status::decoder_error, "the decoder failed on the frame" };
        }
    }

    frame_result decode_one(
        const frame_view& f, double* post, workspace& ws, stage_times& t, bool global)
    {
        frame_result res;
        if (!precheck(f, res)) {
            fill_uniform(post);
            return res;
        }
        const int Nn = N(), Q = q();
        const int Mt = d_limits.mtau.size(), Mn = d_limits.mn.size();
        const int dlo = d_limits.mn.lo;
        const size_t gsize = size_t(Mn) * size_t(Mt); // one index's G
        const size_t Qs = size_t(d_plan.Qs());
        const size_t qsize = size_t(Q) * Qs; // one index's Q

        // priors normalized before flushing denormals (a subnormal prior is
        // a valid one), in double
        ws.prior.clear();
        if (f.priors) {
            ws.prior.resize(size_t(Nn) * Q);
            normalized_priors(f.priors, f.log_priors, ws.prior.data());
        }
        ws.bounds = boundaries(f);
        ws.soft.clear();
        const int A = d_cfg.ch.alphabet();
        if (f.llr || f.logprob) {
            ws.soft.resize(size_t(A) * f.rho);
            item_probabilities(f.items(A), f.rho, ws.soft.data());
        }
        if (f.events) {
            ws.ev_prob.resize(size_t(A) * f.rho);
            item_probabilities(f.items(A), f.rho, ws.ev_prob.data());
            ws.ev_scratch.resize(cpu::index_events_scratch(n(), Mn, Q, A));
            ws.ev_lanes.resize(4 * size_t(Q));
            ws.ev_items.resize(
                every_edge(f) ? size_t(A) * size_t(n() + Mt + Mn) * size_t(Q) : 0);
            ws.ev_pairs.resize(f.substitution_counts ? size_t(A) * size_t(A) * size_t(Q)
                                                     : 0);
            ws.ev_mass.resize(size_t(Mt));
        }
        const flush_denormals ftz;
        ws.blocks.prepare(d_plan,
                          f.bits,
                          ws.soft.empty() ? nullptr : ws.soft.data(),
                          f.rho,
                          d_streaming);
        // G is written per index only with a prior or where a uniform one's
        // is not kept by position
        const bool own_G =
            !ws.prior.empty() || d_streaming || !d_plan.uniform_by_position();
        // (the rows that the recursions read are padded with zeros: margins)
        const size_t M = size_t(d_margin);
        ws.G.assign(own_G ? (global ? gsize * size_t(Nn) : gsize) + 2 * M : 0, 0.0);
        // Q and the posteriors only where they are asked for (frame_outputs)
        const bool want_post = f.posteriors;
        ws.Q.resize(!want_post ? 0 : global ? qsize * size_t(Nn) : qsize);
        ws.Gi.resize(global ? size_t(Nn) : 1);
        ws.alpha.assign(size_t(Nn + 1) * size_t(Mt), 0.0);
        ws.beta_next.assign(size_t(Mt) + 2 * M, 0.0);
        ws.beta_cur.assign(size_t(Mt) + 2 * M, 0.0);
        ws.L.resize(size_t(Q));
        ws.from.assign(size_t(Mt) + 2 * M, 0.0);
        double* const from = ws.from.data() + M;

        // index i's sums: every index's (global) or the current one's (local)
        auto G_of = [&](int i) {
            return !own_G ? nullptr : ws.G.data() + M + (global ? size_t(i) * gsize : 0);
        };
        auto Q_of = [&](int i) {
            return global ? ws.Q.data() + size_t(i) * qsize : ws.Q.data();
        };
        auto prior_of = [&](int i) {
            return ws.prior.empty() ? nullptr : ws.prior.data() + size_t(i) * Q;
        };
        // alpha_i where the state is live, 0 where no path reaches it or its
        // position lies outside the received items (it contributes nothing)
        auto live_alpha = [&](int i) {
            const double* alpha_i = ws.alpha.data() + size_t(i) * Mt;
            const auto [lo, hi] = in_frame(f, i);
            std::fill(from, from + lo, 0.0);
            std::copy(alpha_i + lo, alpha_i + hi, from + lo);
            std::fill(from + hi, from + Mt, 0.0);
        };
        auto impossible = [&](const std::string& where) {
            fill_uniform(post);
            return frame_result{
                frame_status::impossible,
                "the frame has probability 0 under the channel model within the "
                "drift limits (" +
                    where + ")"
            };
        };
        double inv = 0;

        // Forward pass (eqn:alpha, eqn:alpha_norm) from the start weights
        // (normalized; all 0 leaves no path to boundary 1). The normalizers'
        // logs add up to the frame's evidence.
        std::copy(ws.bounds.start.begin(), ws.bounds.start.end(), ws.alpha.begin());
        ws.log_evidence = 0;
        for (int i = 0; i < Nn; ++i) {
            double* alpha_next = ws.alpha.data() + size_t(i + 1) * Mt;
            // (the clock read only when profiling: a call a symbol otherwise)
            auto t0 = d_profiling ? clock_type::now() : clock_type::time_point{};
            live_alpha(i);
            // global: Q_i now, with its lattices; local: in the backward pass
            double lat = 0;
            const index_G G =
                ws.blocks.index_sums(i,
                                     prior_of(i),
                                     G_of(i),
                                     from,
                                     global && want_post ? Q_of(i) : nullptr,
                                     d_profiling,
                                     lat);
            ws.Gi[global ? size_t(i) : 0] = G;
            if (d_profiling) {
                const double all = seconds_since(t0);
                t.gamma += lat, t.L += all - lat, t0 = clock_type::now();
            }
            cpu::forward_row(dlo, Mn, Mt, from, G.g, G.stride, alpha_next);
            const double sum = cpu::sum(alpha_next, Mt);
            if (!model::normalizer(sum, inv)) {
                return impossible(
                    detail::concat("no path reaches symbol boundary ", i + 1));
            }
            ws.log_evidence += std::log(sum);
            for (int b = 0; b < Mt; ++b)
                alpha_next[b] *= inv;
            if (d_profiling)
                t.alpha += seconds_since(t0);
        }
        {
            double s = 0;
            const double* alpha_N = ws.alpha.data() + size_t(Nn) * Mt;
            for (int b = 0; b < Mt; ++b)
                s += alpha_N[b] * ws.bounds.end[size_t(b)];
            if (!(s > 0)) {
                return impossible(detail::concat("no path ends at drift rho - tau = ",
                                                 (long long)f.rho - tau()));
            }
            ws.log_evidence += std::log(s);
        }

        // Backward pass (eqn:beta) from the end weights, with the posteriors
        // (eqn:L, eqn:sigma): L_i(D) = sum over the states a and drift changes
        // of alpha_i(a) R_i(a, e | D) beta_{i+1}(a + m_n^- + e), the prior
        // multiplying it below.
        std::copy(ws.bounds.end.begin(), ws.bounds.end.end(), ws.beta_next.begin() + M);
        for (int i = Nn - 1; i >= 0; --i) {
            const double* alpha_i = ws.alpha.data() + size_t(i) * Mt;
            const double* prior = prior_of(i);
            auto t0 = d_profiling ? clock_type::now() : clock_type::time_point{};
            index_G G = ws.Gi[global ? size_t(i) : 0];
            const double* Qi = want_post ? Q_of(i) : nullptr;
            if (global && want_post && i > 0) {
                // the next index's sums, kept since the forward pass: fetched
                // while this one is summed (the backward pass walks them down)
                const double* Qn = Q_of(i - 1);
                for (size_t k = 0; k < qsize; k += 8)
                    __builtin_prefetch(Qn + k);
                const index_G& Gn = ws.Gi[size_t(i - 1)];
                for (int e = 0; e < Mn; ++e)
                    for (int a = 0; a < Mt; a += 8)
                        __builtin_prefetch(Gn.g + size_t(e) * Gn.stride + size_t(a));
            }
            if (!global) {
                // the forward pass's sums again, and Q_i
                live_alpha(i);
                double lat = 0;
                G = ws.blocks.index_sums(i,
                                         prior,
                                         G_of(i),
                                         from,
                                         want_post ? ws.Q.data() : nullptr,
                                         d_profiling,
                                         lat);
                if (d_profiling) {
                    const double all = seconds_since(t0);
                    t.gamma += lat, t.L += all - lat, t0 = clock_type::now();
                }
            }
            double bs = 0;
            if (f.events)
                std::fill(ws.ev_mass.begin(), ws.ev_mass.end(), 0.0);
            double* const beta_cur = ws.beta_cur.data() + M;
            const double* const beta_next = ws.beta_next.data() + M;
            cpu::backward_row(dlo, Mn, Mt, beta_next, G.g, G.stride, beta_cur);
            // beta is kept where alpha is live only (0 where no path reaches
            // the state or its position lies outside the received items);
            // a state with no way on to the frame's end has beta 0 already
            const auto [lo, hi] = in_frame(f, i);
            std::fill(beta_cur, beta_cur + lo, 0.0);
            std::fill(beta_cur + hi, beta_cur + Mt, 0.0);
#pragma GCC ivdep
            for (int a = lo; a < hi; ++a)
                beta_cur[a] = alpha_i[a] != 0.0 ? beta_cur[a] : 0.0;
            bs = cpu::sum(beta_cur, Mt);
            if (f.events) {
                for (int a = 0; a < Mt; ++a)
                    ws.ev_mass[size_t(a)] = alpha_i[a] * beta_cur[a];
            }
            if (d_profiling)
                t.beta += seconds_since(t0), t0 = clock_type::now();
            // eqn:sigma without the prior: L_i(D) = sum_b Q_i(D, b) beta_{i+1}(b)
            for (int D = 0; want_post && D < Q; ++D)
                ws.L[size_t(D)] = cpu::dot(Qi + size_t(D) * Qs, beta_next, Mt);
            double ls = 0; // in double, so that every row sums to 1 to double precision
            if (!want_post) {
                ls = 1; // not asked for: the posteriors stay uniform
            } else if (prior && !f.extrinsic) {
                for (int D = 0; D < Q; ++D)
                    ls += (ws.L[size_t(D)] *= prior[D]);
            } else {
                for (int D = 0; D < Q; ++D)
                    ls += ws.L[size_t(D)];
            }
            if (d_profiling)
                t.L += seconds_since(t0);
            double linv = 0;
            if (!model::normalizer(bs, inv) || !model::normalizer(ls, linv)) {
                return impossible(
                    detail::concat("the backward pass vanished at symbol ", i));
            }
            if (f.events)
                index_events(f, i, ws);
            for (int a = 0; a < Mt; ++a)
                beta_cur[a] *= inv;
            double* out = post + size_t(i) * Q;
            for (int D = 0; D < Q; ++D) // a certain symbol gets exactly 1
                out[D] = want_post ? ws.L[size_t(D)] / ls : 1.0 / Q;
            std::swap(ws.beta_next, ws.beta_cur);
        }
        return res;
    }

    /*
     * The expected events of codeword i (model::codeword_events' lattice,
     * run by cpu::index_events with the codewords as lanes) over every start
     * state m' and codeword D, each path weighted by alpha_i(m') P(D) and
     * beta_{i+1} at its end, divided by the total weight of all of them
     * (lambda_i, summed in double here, so that the E-step is double in both
     * precisions). The items index i can read start at n i + m_tau^- and
     * number fewer than n + Mt + Mn; the lanes' sums are added up here.
     *
     * A start state whose share of the index's weight (alpha_i(m')
     * beta_i(m') over their sum, from the backward pass) is below 1e-17 is
     * skipped: its edges' posteriors are at most that share each, so all
     * the skipped states of a frame move a count by less than
     * 1e-17 Mt (n + Mn) N, far below the double rounding of the sums (1e-11
     * for S500); most of m_tau is such states.
     */
    void index_events(const frame_view& f, int i, workspace& ws) const
    {
        const int n = this->n(), Q = q(), A = alphabet();
        const int Mt = d_limits.mtau.size(), Mn = d_limits.mn.size();
        const int p = int(size_t(i) % d_ev_qw.size());
        const auto [lo, hi] = in_frame(f, i);
        // the items the states in the frame read: A (a + c) + b for c < n + Mn
        const size_t i0 = size_t(A) * size_t(lo);
        const size_t i1 = std::max(i0, size_t(A) * size_t(hi + n + Mn));
        const size_t LQ = size_t(Q);
        double* const lanes = ws.ev_lanes.data();
        std::fill(lanes, lanes + 4 * LQ, 0.0);
        const bool items = every_edge(f);
        if (items)
            std::fill(ws.ev_items.begin() + i0 * LQ, ws.ev_items.begin() + i1 * LQ, 0.0);
        std::fill(ws.ev_pairs.begin(), ws.ev_pairs.end(), 0.0);
        cpu::index_events_call c;
        c.n = n;
        c.dlo = d_limits.mn.lo;
        c.Mn = Mn;
        c.L = Q;
        c.A = A;
        c.ins = d_ev_w.ins;
        c.del = d_ev_w.del;
        c.qw = d_ev_qw[size_t(p)].data();
        c.x = d_ev_x[size_t(p)].data();
        c.Mt = Mt;
        c.lo = lo;
        c.hi = hi;
        c.first = (long long)n * i + d_limits.mtau.lo;
        c.rho = (long long)f.rho;
        c.prob = ws.ev_prob.data();
        c.hard = !f.llr && !f.logprob; // bits or letters: probabilities 0 and 1
        c.alpha = ws.alpha.data() + size_t(i) * Mt;
        c.mass = ws.ev_mass.data();
        double mass = 0;
        for (int a = 0; a < Mt; ++a)
            mass += ws.ev_mass[size_t(a)];
        c.negligible = 1e-17 * mass;
        c.beta_next = ws.beta_next.data() + d_margin;
        c.prior = ws.prior.empty() ? nullptr : ws.prior.data() + size_t(i) * Q;
        c.scratch = ws.ev_scratch.data();
        c.to = { lanes,
                 lanes + LQ,
                 lanes + 2 * LQ,
                 lanes + 3 * LQ,
                 items ? ws.ev_items.data() : nullptr,
                 ws.ev_pairs.empty() ? nullptr : ws.ev_pairs.data() };
        const double lambda = cpu::index_events(cpu::best_isa(), c);
        double inv = 0;
        if (!model::normalizer(lambda, inv))
            return; // not reached: the backward pass checked this index
        // the lanes added up in lane order
        auto sum = [Q](const double* v) {
            double s = 0;
            for (int l = 0; l < Q; ++l)
                s += v[l];
            return s;
        };
        f.events->ins += sum(c.to.ins) * inv;
        f.events->del += sum(c.to.del) * inv;
        f.events->trans += sum(c.to.trans) * inv;
        f.events->subst += sum(c.to.subst) * inv;
        if (f.item_posteriors) {
            for (size_t j = i0; j < i1; ++j) {
                const double v = sum(ws.ev_items.data() + j * LQ);
                if (v != 0.0)
                    f.item_posteriors[A * c.first + (long long)j] += v * inv;
            }
        }
        if (f.substitution_counts) {
            for (size_t j = 0; j < size_t(A) * size_t(A); ++j)
                f.substitution_counts[j] += sum(ws.ev_pairs.data() + j * LQ) * inv;
        }
    }

    position_plan<real> d_plan; // the lattices by position: lanes, tries, weights
    bool d_streaming = false;   // rings of one chunk of codewords (position_blocks.h)
    int d_margin = 0;           // zeros around the rows the recursions read
    lattice_weights<double> d_ev_w;
    std::vector<std::vector<double>> d_ev_qw;
    std::vector<aligned_vector<double>> d_ev_x; // as doubles: index_events_call
    storage_kind d_storage;
    std::mutex d_times_mutex;
    std::mutex d_pool_mutex;
    std::vector<std::shared_ptr<workspace>> d_pool;
};

} // namespace

std::unique_ptr<map_decoder> make_cpu_decoder(const decoder_config& cfg)
{
    if (cfg.precision == precision_kind::dual) {
        return std::make_unique<cpu_decoder<double>>(cfg);
    }
    return std::make_unique<cpu_decoder<float>>(cfg);
}

} // namespace bsid
