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

#include "inner/codeword_weights.h"
#include "inner/cpu_recursion.h"
#include "inner/map_decoder_cpu.h"
#include "inner/position_blocks.h"
#include "runtime/aligned_vector.h"
#include "runtime/flush_denormals.h"
#include "runtime/format.h"
#include "runtime/parallel_loop.h"
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

namespace bsid {

namespace {

using clock_type = std::chrono::steady_clock;

using detail::flush_denormals;

double seconds_since(clock_type::time_point t0)
{
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

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
        const int threads = resolve_threads(cfg.threads);
        const size_t budget = global_storage_budget(threads);
        // global: every position's blocks and every index's sums G
        const size_t global_bytes =
            d_plan.bytes(d_plan.storage(true)) +
            sizeof(double) * size_t(d_limits.mn.size()) * d_plan.GS * size_t(N());
        if (cfg.storage == storage_kind::automatic) {
            d_storage =
                global_bytes <= budget ? storage_kind::global : storage_kind::local;
            log(log_level::info,
                detail::concat("map_decoder(cpu): storage auto -> ",
                               to_string(d_storage),
                               " (gamma needs ",
                               global_bytes >> 20,
                               " MiB per frame, budget ",
                               budget >> 20,
                               " MiB per thread)"));
        } else {
            d_storage = cfg.storage;
        }
        // local storage keeps a window of positions per book, or none where
        // that does not fit the budget either (each index then runs its own
        // lattices)
        d_layout = d_plan.storage(d_storage == storage_kind::global);
        if (d_storage == storage_kind::local && d_plan.bytes(d_layout) > budget) {
            d_layout = {};
            log(log_level::info,
                "map_decoder(cpu): local storage keeps no blocks between indices "
                "(one window of them exceeds the memory budget)");
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
            d_ev_x[size_t(p)] = codeword_letters(cfg.cb, p);
        }
    }

private:
    struct workspace {
        position_blocks<real> blocks; // the lattices' blocks by position
        // sums over D of each block, G_i(e, a) at (i Mn + e) GS + a + W: every
        // index (global) or the current one (local)
        aligned_vector<double> G;
        aligned_vector<double> alpha; // (N + 1) Mt
        aligned_vector<double> beta_next, beta_cur, L;
        aligned_vector<double> wt;    // one index's L weights: alpha beta, as G
        aligned_vector<double> acc;   // L's sums per codeword and lane (q W)
        std::vector<uint8_t> used;    // the states whose blocks go into L
        aligned_vector<double> keep;  // per state: 1 or 0 (live), or alpha (used)
        std::vector<int> reach;       // states of beta_{i+1} not 0, counted up to b
        aligned_vector<real> soft;    // soft input: the items' probabilities
        aligned_vector<double> prior; // N q, normalized, or empty for uniform
        // expected events: the items' probabilities in double, the lattice's
        // forward and backward rows, the end weights and the lanes' scales
        aligned_vector<double> ev_prob, ev_F, ev_B, ev_end, ev_scale;
        aligned_vector<double>
            ev_items;                   // one index's item posteriors, before normalizing
        aligned_vector<double> ev_mass; // alpha_i(m') beta_i(m') (unnormalized beta)
        aligned_vector<double> ev_pairs; // one index's substitution counts (A x A)
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

    // Whether a state's block is needed: a state no path reaches (alpha 0),
    // or whose received position lies outside the frame, contributes nothing.
    bool live(const frame_view& f, int i, int a, const double* alpha_i) const
    {
        const long long start = (long long)n() * i + d_limits.mtau.lo + a;
        return alpha_i[a] != 0.0 && start >= 0 && start <= (long long)f.rho;
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
                                   ws->beta_next.data(),
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
                         global ? "; storage 'local' needs N M_tau times less" : "",
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
        const int W = d_plan.W;
        const size_t GS = d_plan.GS;
        const size_t gsize = size_t(Mn) * GS; // one index's G

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
            ws.ev_F.resize(size_t(n() + 1) * size_t(Mn) * size_t(Q));
            ws.ev_B.resize(2 * size_t(Mn) * size_t(Q));
            ws.ev_end.resize(size_t(Mn));
            ws.ev_scale.resize(size_t(Q));
            ws.ev_items.resize(size_t(A) * size_t(n() + Mt + Mn));
            ws.ev_pairs.resize(f.substitution_counts ? size_t(A) * size_t(A) : 0);
            ws.ev_mass.resize(size_t(Mt));
        }
        const flush_denormals ftz;
        ws.blocks.prepare(d_plan,
                          f.bits,
                          ws.soft.empty() ? nullptr : ws.soft.data(),
                          f.rho,
                          global ? d_plan.storage(true) : d_local_layout());
        ws.G.resize(global ? gsize * size_t(Nn) : gsize);
        ws.alpha.assign(size_t(Nn + 1) * size_t(Mt), 0.0);
        ws.beta_next.resize(size_t(Mt));
        ws.beta_cur.resize(size_t(Mt));
        ws.L.resize(size_t(Q));
        ws.wt.assign(gsize, 0.0);
        ws.acc.resize(size_t(Q) * size_t(W));
        ws.used.resize(size_t(Mt));
        ws.keep.resize(size_t(Mt));
        ws.reach.resize(size_t(Mt) + 1);

        // G_i(e, a): global keeps every index, local the current one
        auto G_of = [&](int i) {
            return global ? ws.G.data() + size_t(i) * gsize : ws.G.data();
        };
        auto prior_of = [&](int i) {
            return ws.prior.empty() ? nullptr : ws.prior.data() + size_t(i) * Q;
        };
        // G_i of index i from its blocks, 0 for the states no path reaches or
        // whose position lies outside the received items
        auto index_G = [&](int i, double* G, const double* wt) {
            const double sec = ws.blocks.index_sums(
                i, prior_of(i), G, wt, wt ? ws.acc.data() : nullptr, d_profiling);
            const double* alpha_i = ws.alpha.data() + size_t(i) * Mt;
            for (int a = 0; a < Mt; ++a)
                ws.keep[size_t(a)] = live(f, i, a, alpha_i) ? 1.0 : 0.0;
            cpu::keep_states(Mn, Mt, ws.keep.data(), G + W, GS);
            return sec;
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
            const double* alpha_i = ws.alpha.data() + size_t(i) * Mt;
            double* alpha_next = ws.alpha.data() + size_t(i + 1) * Mt;
            auto t0 = clock_type::now();
            const double* G = G_of(i);
            index_G(i, G_of(i), nullptr);
            if (d_profiling)
                t.gamma += seconds_since(t0), t0 = clock_type::now();
            cpu::forward_row(dlo, Mn, Mt, alpha_i, G + W, GS, alpha_next);
            double sum = 0;
            for (int b = 0; b < Mt; ++b)
                sum += alpha_next[b];
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
        std::copy(ws.bounds.end.begin(), ws.bounds.end.end(), ws.beta_next.begin());
        for (int i = Nn - 1; i >= 0; --i) {
            const double* alpha_i = ws.alpha.data() + size_t(i) * Mt;
            const double* prior = prior_of(i);
            auto t0 = clock_type::now();
            // the states with a way on from m' to the frame's end (a state
            // of beta_{i+1} not 0 within reach), and their weights in L
            ws.reach[0] = 0;
            for (int b = 0; b < Mt; ++b)
                ws.reach[size_t(b) + 1] =
                    ws.reach[size_t(b)] + (ws.beta_next[size_t(b)] != 0.0 ? 1 : 0);
            for (int a = 0; a < Mt; ++a) {
                const int lo = std::clamp(a + dlo, 0, Mt);
                const int hi = std::clamp(a + dlo + Mn, 0, Mt);
                const bool use =
                    ws.reach[size_t(hi)] > ws.reach[size_t(lo)] && live(f, i, a, alpha_i);
                ws.used[size_t(a)] = use;
                ws.keep[size_t(a)] = use ? alpha_i[a] : 0.0;
            }
            cpu::state_weights(
                dlo, Mn, Mt, ws.keep.data(), ws.beta_next.data(), ws.wt.data() + W, GS);
            std::fill(ws.acc.begin(), ws.acc.end(), 0.0);
            double* G = G_of(i);
            double lat;
            if (global) {
                lat = ws.blocks.index_sums(
                    i, prior, nullptr, ws.wt.data(), ws.acc.data(), d_profiling);
            } else {
                lat = index_G(i, G, ws.wt.data()); // the same G as the forward pass's
            }
            if (d_profiling) {
                const double all = seconds_since(t0);
                t.gamma += lat, t.L += all - lat, t0 = clock_type::now();
            }
            double bs = 0;
            if (f.events)
                std::fill(ws.ev_mass.begin(), ws.ev_mass.end(), 0.0);
            cpu::backward_row(
                dlo, Mn, Mt, ws.beta_next.data(), G + W, GS, ws.beta_cur.data());
            for (int a = 0; a < Mt; ++a) {
                if (!ws.used[size_t(a)]) {
                    ws.beta_cur[size_t(a)] = 0;
                    continue;
                }
                bs += ws.beta_cur[size_t(a)];
                if (f.events)
                    ws.ev_mass[size_t(a)] = alpha_i[a] * ws.beta_cur[size_t(a)];
            }
            if (d_profiling)
                t.beta += seconds_since(t0), t0 = clock_type::now();
            // L's lanes summed in a fixed order (pairs, then pairs of pairs)
            for (int D = 0; D < Q; ++D) {
                double* l = ws.acc.data() + size_t(D) * size_t(W);
                for (int w = W; w > 1; w /= 2)
                    for (int k = 0; k < w / 2; ++k)
                        l[k] = l[2 * k] + l[2 * k + 1];
                ws.L[size_t(D)] = l[0];
            }
            double ls = 0; // in double, so that every row sums to 1 to double precision
            if (prior && !f.extrinsic) {
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
                ws.beta_cur[size_t(a)] *= inv;
            double* out = post + size_t(i) * Q;
            for (int D = 0; D < Q; ++D)
                out[D] = ws.L[size_t(D)] / ls; // a certain symbol gets exactly 1
            std::swap(ws.beta_next, ws.beta_cur);
        }
        return res;
    }

    /*
     * The expected events of codeword i (model::codeword_events) over every
     * start state m' and codeword D, each path weighted by alpha_i(m') P(D)
     * and beta_{i+1} at its end, divided by the total weight of all of them
     * (lambda_i, summed in double here, so that the E-step is double in both
     * precisions). The items index i can read start at n i + m_tau^- and
     * number fewer than n + Mt + Mn.
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
        const int dlo = d_limits.mn.lo;
        const double* alpha_i = ws.alpha.data() + size_t(i) * Mt;
        const double* prior =
            ws.prior.empty() ? nullptr : ws.prior.data() + size_t(i) * Q;
        const int p = int(size_t(i) % d_ev_qw.size());
        const long long first = (long long)n * i + d_limits.mtau.lo;
        std::fill(ws.ev_items.begin(), ws.ev_items.end(), 0.0);
        std::fill(ws.ev_pairs.begin(), ws.ev_pairs.end(), 0.0);
        event_counts ev;
        double lambda = 0, mass = 0;
        for (int a = 0; a < Mt; ++a)
            mass += ws.ev_mass[size_t(a)];
        const double negligible = 1e-17 * mass;
        for (int a = 0; a < Mt; ++a) {
            if (!live(f, i, a, alpha_i) || !(ws.ev_mass[size_t(a)] >= negligible))
                continue;
            bool any = false;
            for (int e = 0; e < Mn; ++e) {
                const int b = a + dlo + e;
                ws.ev_end[size_t(e)] = b >= 0 && b < Mt ? ws.beta_next[size_t(b)] : 0.0;
                any = any || ws.ev_end[size_t(e)] != 0.0;
            }
            if (!any)
                continue;
            for (int D = 0; D < Q; ++D)
                ws.ev_scale[size_t(D)] = alpha_i[a] * (prior ? prior[D] : 1.0 / Q);
            const long long start = first + a;
            double* items = ws.ev_items.data() + size_t(A) * size_t(a);
            lambda += model::codeword_events(
                n,
                dlo,
                Mn,
                (long long)f.rho - start,
                d_ev_w.ins,
                d_ev_w.del,
                Q,
                A,
                d_ev_qw[size_t(p)].data(),
                d_ev_x[size_t(p)].data(),
                ws.ev_prob.data() + size_t(A) * size_t(start),
                ws.ev_end.data(),
                ws.ev_scale.data(),
                ws.ev_F.data(),
                ws.ev_B.data(),
                ev,
                [&](long long c, int b, double v) { items[A * c + b] += v; },
                ws.ev_pairs.empty() ? nullptr : ws.ev_pairs.data());
        }
        double inv = 0;
        if (!model::normalizer(lambda, inv))
            return; // not reached: the backward pass checked this index
        f.events->ins += ev.ins * inv;
        f.events->del += ev.del * inv;
        f.events->trans += ev.trans * inv;
        f.events->subst += ev.subst * inv;
        if (f.item_posteriors) {
            for (size_t j = 0; j < ws.ev_items.size(); ++j) {
                const long long item = first + (long long)(j / size_t(A));
                if (ws.ev_items[j] != 0.0)
                    f.item_posteriors[A * item + (long long)(j % size_t(A))] +=
                        ws.ev_items[j] * inv;
            }
        }
        for (size_t j = 0; j < ws.ev_pairs.size(); ++j)
            f.substitution_counts[j] += ws.ev_pairs[j] * inv;
    }

    //! local storage's layout: a window per book, or none (streaming)
    typename position_plan<real>::layout d_local_layout() const
    {
        return d_storage == storage_kind::local ? d_layout : d_plan.storage(false);
    }

    position_plan<real> d_plan; // the lattices by position: lanes, tries, weights
    typename position_plan<real>::layout d_layout; // the chosen storage's
    lattice_weights<double> d_ev_w;
    std::vector<std::vector<double>> d_ev_qw;
    std::vector<std::vector<uint8_t>> d_ev_x;
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
