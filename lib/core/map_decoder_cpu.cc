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
// d = m - m' within a codeword (Mn values); symbol D = 0..q-1, innermost and
// vectorized. A gamma block is the Mn x q array gamma_i(m', m' + d, D) for one
// (i, m'): one lattice pass gives all of it.
//
// Both storage modes run the same per-block arithmetic in the same order, so
// they give identical posteriors: global keeps every block from the forward
// pass for the backward pass; local recomputes each block there and keeps only
// one at a time (the paper's "local storage", with L fused into beta).

#include "format.h"
#include "map_decoder_cpu.h"
#include <gnuradio/bsid/core/lattice.h>
#include <gnuradio/bsid/core/log.h>
#include <omp.h>
#include <unistd.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace bsid {

namespace {

using clock_type = std::chrono::steady_clock;

/*
 * Flush-to-zero and denormals-are-zero while a frame is decoded. Values below
 * the smallest normal float (1e-38, relative to a normalized alpha of order
 * 1) change no posterior at float precision, but subnormal arithmetic is
 * about a hundred times slower on x86. The caller's mode is restored.
 */
class flush_denormals
{
public:
#if defined(__SSE__)
    flush_denormals() : d_saved(_mm_getcsr()) { _mm_setcsr(d_saved | 0x8040); }
    ~flush_denormals() { _mm_setcsr(d_saved); }

private:
    unsigned d_saved;
#endif
};

double seconds_since(clock_type::time_point t0)
{
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// Memory one thread may spend on stored gamma blocks before auto picks local.
size_t global_storage_budget(int threads)
{
    const long pages = sysconf(_SC_AVPHYS_PAGES);
    const long page = sysconf(_SC_PAGESIZE);
    size_t avail = (pages > 0 && page > 0) ? size_t(pages) * size_t(page) : (size_t(4) << 30);
    return std::min<size_t>(size_t(2) << 30, avail / size_t(4 * std::max(threads, 1)));
}

template <typename real>
class cpu_decoder final : public map_decoder
{
public:
    explicit cpu_decoder(const decoder_config& cfg)
        : map_decoder(cfg), d_w(lattice_weights<real>::scaled(cfg.ch))
    {
        const int n = this->n(), Q = q();
        // Diagonal weights per book, bit row and received bit: qsel[p][2r+b][D].
        d_qtab.resize(size_t(cfg.cb.P()));
        d_qsel.resize(size_t(cfg.cb.P()));
        for (int p = 0; p < cfg.cb.P(); ++p) {
            auto& tab = d_qtab[size_t(p)];
            tab.assign(size_t(2 * n) * size_t(Q), real(0));
            for (int r = 0; r < n; ++r) {
                for (int D = 0; D < Q; ++D) {
                    const int x = int((cfg.cb.books()[size_t(p)][size_t(D)] >> (n - 1 - r)) & 1u);
                    for (int b = 0; b < 2; ++b) {
                        tab[size_t(2 * r + b) * Q + D] = b == x ? d_w.match : d_w.mismatch;
                    }
                }
            }
            for (int k = 0; k < 2 * n; ++k) d_qsel[size_t(p)].push_back(tab.data() + size_t(k) * Q);
        }

        const size_t block = size_t(d_limits.mn.size()) * size_t(Q);
        const size_t global_bytes = sizeof(real) * block * size_t(d_limits.mtau.size()) * size_t(N());
        const int threads = resolve_threads(cfg.threads);
        if (cfg.storage == storage_kind::automatic) {
            const size_t budget = global_storage_budget(threads);
            d_storage = global_bytes <= budget ? storage_kind::global : storage_kind::local;
            log(log_level::info,
                detail::concat("map_decoder(cpu): storage auto -> ", to_string(d_storage),
                               " (gamma needs ", global_bytes >> 20, " MiB per frame, budget ",
                               budget >> 20, " MiB per thread)"));
        } else {
            d_storage = cfg.storage;
        }
    }

    backend_kind backend() const override { return backend_kind::cpu; }
    storage_kind storage() const override { return d_storage; }

    frame_result decode(const frame_view& frame, double* post) override
    {
        if (frame.priors) validate_priors(frame.priors); // raises before any work
        const auto ws = acquire();
        stage_times t;
        const frame_result r = decode_one(frame, post, *ws, t);
        add_times(t);
        release(ws);
        return r;
    }

    std::vector<frame_result> decode_batch(const std::vector<frame_view>& frames,
                                           const std::vector<double*>& post) override
    {
        if (post.size() != frames.size()) {
            throw std::invalid_argument("decode_batch: one output buffer per frame is needed");
        }
        for (const auto& f : frames) {
            if (f.priors) validate_priors(f.priors); // raises before any work
        }
        std::vector<frame_result> results(frames.size());
        const int threads = std::min<int>(resolve_threads(d_cfg.threads),
                                          std::max<int>(1, int(frames.size())));
#pragma omp parallel num_threads(threads)
        {
            const auto ws = acquire();
            stage_times t;
#pragma omp for schedule(dynamic, 1)
            for (long long k = 0; k < (long long)frames.size(); ++k) {
                results[size_t(k)] = decode_one(frames[size_t(k)], post[size_t(k)], *ws, t);
            }
            add_times(t);
            release(ws);
        }
        return results;
    }

private:
    struct workspace {
        std::vector<real> gamma;   // global: N Mt blocks; local: one block
        std::vector<real> G;       // sum over D of each block: N Mt Mn (global) or Mn (local)
        std::vector<real> alpha;   // (N + 1) Mt
        std::vector<real> beta_next, beta_cur, L;
        std::vector<real> scratch; // lattice rows
        std::vector<real> prior;   // N q, normalized, or empty for uniform
        std::vector<double> prior_d; // the same in double, as normalized
    };

    // Workspaces are kept between calls: a global-storage gamma array is tens
    // of MB, and allocating and zeroing it for every frame would cost a good
    // part of a decode. A pool, so that concurrent callers each get their own.
    std::shared_ptr<workspace> acquire()
    {
        std::lock_guard<std::mutex> lock(d_pool_mutex);
        if (d_pool.empty()) return std::make_shared<workspace>();
        auto ws = d_pool.back();
        d_pool.pop_back();
        return ws;
    }
    void release(const std::shared_ptr<workspace>& ws)
    {
        std::lock_guard<std::mutex> lock(d_pool_mutex);
        d_pool.push_back(ws);
    }

    void add_times(const stage_times& t)
    {
        if (!d_profiling) return;
        std::lock_guard<std::mutex> lock(d_times_mutex);
        d_times.gamma += t.gamma;
        d_times.alpha += t.alpha;
        d_times.beta += t.beta;
        d_times.L += t.L;
    }

    /*
     * gamma_i(m', m' + d, D) for all d and D (eqn:gamma): one corridor lattice
     * pass, times the prior of D; end drifts outside m_tau are zeroed. Writes
     * the block and its sums over D, G[e].
     */
    void gamma_block(const frame_view& f, int i, int a, real* block, real* G, workspace& ws) const
    {
        const int n = this->n(), Q = q();
        const int Mn = d_limits.mn.size();
        const long long mprime = d_limits.mtau.lo + a;
        const long long start = (long long)n * i + mprime;
        const int p = int(size_t(i) % d_qsel.size());
        corridor_lattice<real>(d_w, n, Q, d_qsel[size_t(p)].data(), f.bits + start,
                               (long long)f.rho - start, d_limits.mn.lo, d_limits.mn.hi,
                               ws.scratch.data(), block);
        const real* prior = ws.prior.empty() ? nullptr : ws.prior.data() + size_t(i) * Q;
        for (int e = 0; e < Mn; ++e) {
            real* row = block + size_t(e) * Q;
            const long long m = mprime + d_limits.mn.lo + e;
            if (!d_limits.mtau.contains(m)) {
                std::fill(row, row + Q, real(0));
                G[e] = 0;
                continue;
            }
            if (prior) {
#pragma omp simd
                for (int D = 0; D < Q; ++D) row[D] *= prior[D];
            }
            real sum = 0;
#pragma omp simd reduction(+ : sum)
            for (int D = 0; D < Q; ++D) sum += row[D];
            G[e] = sum;
        }
    }

    // A state that no path reaches (alpha 0) or whose received position lies
    // outside the frame contributes nothing: its block is never computed.
    bool live(const frame_view& f, int i, int a, const real* alpha_i) const
    {
        const long long start = (long long)n() * i + d_limits.mtau.lo + a;
        return alpha_i[a] != real(0) && start >= 0 && start <= (long long)f.rho;
    }

    frame_result decode_one(const frame_view& f, double* post, workspace& ws, stage_times& t)
    {
        const flush_denormals ftz;
        frame_result res;
        if (!precheck(f, res)) {
            fill_uniform(post);
            return res;
        }
        const int Nn = N(), Q = q();
        const int Mt = d_limits.mtau.size(), Mn = d_limits.mn.size();
        const int lo = d_limits.mtau.lo, dlo = d_limits.mn.lo;
        const size_t block = size_t(Mn) * size_t(Q);
        const bool global = d_storage == storage_kind::global;

        ws.prior.clear();
        if (f.priors) {
            ws.prior_d.resize(size_t(Nn) * Q);
            normalized_priors(f.priors, ws.prior_d.data());
            ws.prior.assign(ws.prior_d.begin(), ws.prior_d.end());
        }
        ws.gamma.resize(global ? block * size_t(Mt) * size_t(Nn) : block);
        ws.G.resize(global ? size_t(Mn) * size_t(Mt) * size_t(Nn) : size_t(Mn));
        ws.alpha.assign(size_t(Nn + 1) * size_t(Mt), real(0));
        ws.beta_next.resize(size_t(Mt));
        ws.beta_cur.resize(size_t(Mt));
        ws.L.resize(size_t(Q));
        ws.scratch.resize(2 * block);

        auto block_at = [&](int i, int a) {
            return global ? ws.gamma.data() + (size_t(i) * Mt + size_t(a)) * block : ws.gamma.data();
        };
        auto G_at = [&](int i, int a) {
            return global ? ws.G.data() + (size_t(i) * Mt + size_t(a)) * size_t(Mn) : ws.G.data();
        };
        auto impossible = [&](const std::string& where) {
            fill_uniform(post);
            return frame_result{ frame_status::impossible,
                                 "the frame has probability 0 under the channel model within the "
                                 "drift limits (" +
                                     where + ")" };
        };

        // Forward pass (eqn:alpha, eqn:alpha_norm): alpha_0 sits on drift 0.
        ws.alpha[size_t(-lo)] = 1;
        for (int i = 0; i < Nn; ++i) {
            const real* alpha_i = ws.alpha.data() + size_t(i) * Mt;
            real* alpha_next = ws.alpha.data() + size_t(i + 1) * Mt;
            for (int a = 0; a < Mt; ++a) {
                if (!live(f, i, a, alpha_i)) continue;
                auto t0 = clock_type::now();
                real* G = G_at(i, a);
                gamma_block(f, i, a, block_at(i, a), G, ws);
                if (d_profiling) t.gamma += seconds_since(t0), t0 = clock_type::now();
                // alpha_{i+1}(m' + d) += alpha_i(m') sum_D gamma_i(m', m' + d, D)
                const real w = alpha_i[a];
                const int b0 = a + dlo;
                const int e0 = std::max(0, -b0), e1 = std::min(Mn, Mt - b0);
                for (int e = e0; e < e1; ++e) alpha_next[b0 + e] += w * G[e];
                if (d_profiling) t.alpha += seconds_since(t0);
            }
            real sum = 0;
            for (int b = 0; b < Mt; ++b) sum += alpha_next[b];
            if (!(sum > 0) || !std::isfinite(double(sum))) {
                return impossible(detail::concat("no path reaches symbol boundary ", i + 1));
            }
            for (int b = 0; b < Mt; ++b) alpha_next[b] /= sum;
        }
        const int end = int((long long)f.rho - tau() - lo);
        if (!(ws.alpha[size_t(Nn) * Mt + size_t(end)] > 0)) {
            return impossible(detail::concat("no path ends at drift rho - tau = ",
                                             (long long)f.rho - tau()));
        }

        // Backward pass (eqn:beta), fused with the posteriors (eqn:L, eqn:sigma):
        // beta_N sits on drift rho - tau.
        std::fill(ws.beta_next.begin(), ws.beta_next.end(), real(0));
        ws.beta_next[size_t(end)] = 1;
        for (int i = Nn - 1; i >= 0; --i) {
            const real* alpha_i = ws.alpha.data() + size_t(i) * Mt;
            std::fill(ws.beta_cur.begin(), ws.beta_cur.end(), real(0));
            std::fill(ws.L.begin(), ws.L.end(), real(0));
            for (int a = 0; a < Mt; ++a) {
                if (!live(f, i, a, alpha_i)) continue;
                const int b0 = a + dlo;
                const int e0 = std::max(0, -b0), e1 = std::min(Mn, Mt - b0);
                bool any = false;
                for (int e = e0; e < e1 && !any; ++e) any = ws.beta_next[size_t(b0 + e)] != real(0);
                if (!any) continue; // no way on from m' to the frame's end
                auto t0 = clock_type::now();
                real* blk = block_at(i, a);
                real* G = G_at(i, a);
                if (!global) gamma_block(f, i, a, blk, G, ws);
                if (d_profiling) t.gamma += seconds_since(t0), t0 = clock_type::now();
                real bsum = 0;
                for (int e = e0; e < e1; ++e) bsum += G[e] * ws.beta_next[size_t(b0 + e)];
                ws.beta_cur[size_t(a)] = bsum;
                if (d_profiling) t.beta += seconds_since(t0), t0 = clock_type::now();
                // L_i(D) += alpha_i(m') gamma_i(m', m, D) beta_{i+1}(m)
                real* __restrict__ L = ws.L.data();
                for (int e = e0; e < e1; ++e) {
                    const real wgt = alpha_i[a] * ws.beta_next[size_t(b0 + e)];
                    if (wgt == real(0)) continue;
                    const real* __restrict__ row = blk + size_t(e) * Q;
#pragma omp simd
                    for (int D = 0; D < Q; ++D) L[D] += wgt * row[D];
                }
                if (d_profiling) t.L += seconds_since(t0);
            }
            real bs = 0;
            for (int a = 0; a < Mt; ++a) bs += ws.beta_cur[size_t(a)];
            double ls = 0; // in double, so that every row sums to 1 to double precision
            for (int D = 0; D < Q; ++D) ls += double(ws.L[size_t(D)]);
            if (!(bs > 0) || !(ls > 0) || !std::isfinite(double(bs)) || !std::isfinite(ls)) {
                return impossible(detail::concat("the backward pass vanished at symbol ", i));
            }
            for (int a = 0; a < Mt; ++a) ws.beta_cur[size_t(a)] /= bs;
            double* out = post + size_t(i) * Q;
            for (int D = 0; D < Q; ++D) out[D] = double(ws.L[size_t(D)]) / ls;
            std::swap(ws.beta_next, ws.beta_cur);
        }
        return res;
    }

    lattice_weights<real> d_w;
    std::vector<std::vector<real>> d_qtab;
    std::vector<std::vector<const real*>> d_qsel;
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
