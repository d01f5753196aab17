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
// relative to the largest: nothing overflows). Over an alphabet of A letters
// every 2 above is A (a received letter is weighed against a random one):
// prepared::lnA, times_letters_pow.

#include "inner/frame_prepared.h"
#include "runtime/format.h"
#include "runtime/parallel_loop.h"
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/inner/lattice.h>
#include <gnuradio/bsid/core/inner/model.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <algorithm>
#include <cctype>
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

std::vector<uint8_t> parse_sync_word(const std::string& text, int alphabet)
{
    if (alphabet < 2 || alphabet > 256)
        throw std::invalid_argument(
            detail::concat("sync word: the alphabet ", alphabet, " is not in 2 .. 256"));
    std::vector<uint8_t> w;
    if (text.find(',') != std::string::npos || alphabet > 10) {
        // comma-separated integers, each a letter in [0, A)
        size_t from = 0;
        while (!text.empty()) {
            const size_t comma = std::min(text.find(',', from), text.size());
            std::string item = text.substr(from, comma - from);
            item.erase(0, item.find_first_not_of(" \t"));
            item.erase(item.find_last_not_of(" \t") + 1);
            const bool digits = !item.empty() && item.size() <= 3 &&
                                item.find_first_not_of("0123456789") == std::string::npos;
            const int v = digits ? std::stoi(item) : -1;
            if (v < 0 || v >= alphabet) {
                throw std::invalid_argument(
                    detail::concat("sync word '",
                                   text,
                                   "': item ",
                                   w.size(),
                                   " ('",
                                   item,
                                   "') is not a letter of the alphabet (an integer 0 to ",
                                   alphabet - 1,
                                   ")"));
            }
            w.push_back(uint8_t(v));
            if (comma == text.size())
                break;
            from = comma + 1;
        }
        return w;
    }
    // one character a letter: bits "0110..."; four letters "ACGT..." (A, C,
    // G, T = 0, 1, 2, 3); up to ten letters digits "0123..."
    static const std::string dna = "ACGT";
    w.reserve(text.size());
    for (size_t k = 0; k < text.size(); ++k) {
        const char c = text[k];
        const size_t letter = dna.find(char(std::toupper((unsigned char)c)));
        int v = c >= '0' && c <= '9' ? c - '0' : -1;
        if (alphabet == 4 && letter != std::string::npos)
            v = int(letter);
        if (v < 0 || v >= alphabet) {
            throw std::invalid_argument(
                alphabet == 2
                    ? detail::concat(
                          "sync word '", text, "': character ", k, " is not 0 or 1")
                : alphabet == 4 ? detail::concat("sync word '",
                                                 text,
                                                 "': character ",
                                                 k,
                                                 " is not one of A, C, G, T (or 0 to 3)")
                                : detail::concat("sync word '",
                                                 text,
                                                 "': character ",
                                                 k,
                                                 " is not a letter 0 to ",
                                                 alphabet - 1,
                                                 " (or give comma-separated integers)"));
        }
        w.push_back(uint8_t(v));
    }
    return w;
}

using namespace frame_detail;

frame_decoder::frame_decoder(const decoder_config& cfg, std::vector<uint8_t> sync_word)
    : d_cfg(cfg), d_sync(std::move(sync_word))
{
    for (auto b : d_sync) {
        if (int(b) >= cfg.ch.alphabet())
            throw std::invalid_argument(
                cfg.ch.alphabet() == 2
                    ? std::string("frame_decoder: a sync word bit is not 0 or 1")
                    : detail::concat("frame_decoder: a sync word letter is not in 0 .. ",
                                     cfg.ch.alphabet() - 1));
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
    // (a GPU backend's construction allocates device memory: a count of these
    // in a steady stream says the cache below is too small for its ranges)
    log(log_level::debug,
        detail::concat("frame_decoder: a backend for the drift range [",
                       lo,
                       ", ",
                       hi,
                       "], ",
                       d_backends.size(),
                       " cached"));
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
        req[k].logprob = frames[k].logprob;
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
        if (requests[k].events) {
            const size_t A = size_t(d_cfg.ch.alphabet());
            if (requests[k].item_posteriors)
                p[k].items.assign(A * requests[k].L, 0.0);
            if (requests[k].substitution_counts)
                p[k].pairs.assign(A * A, 0.0);
        }
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
            q.logprob = requests[k].logprob;
            q.L = requests[k].L;
            q.start = position_weights{ p[k].end_e,
                                        std::vector<double>(p[k].end_e.size(), 1.0) };
            q.end = end_mode::free;
            // the ends compared on the same items: their posteriors stay within
            // range however many ends there are (plain, the exact weights of
            // ends thousands of items apart differ by A^thousands)
            q.random_before = true;
            q.posteriors = false; // (its start posterior and evidence are read)
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
            // T(e) = P(the look-ahead | e): with the inner starts' items before
            // them random, the inner start posterior times the inner evidence,
            // the count of its (uniform) starts and A^(e - e_0); with a gap,
            // (1 - gap) T(e) + gap A^-(L - e). Given to the backend times
            // A^-(e - e_lo), relative to the largest.
            const long long e0 = pk.end_e.front();
            const double lz = ok ? got[j].log_evidence + std::log(double(pk.end_e.size()))
                                 : -std::numeric_limits<double>::infinity();
            std::vector<double> w(pk.bounds.end.size(),
                                  -std::numeric_limits<double>::infinity());
            for (size_t i = 0; i < pk.end_e.size(); ++i) {
                const long long e = pk.end_e[i];
                const double t = ok ? got[j].start.weights[i] : 0.0;
                const double lt = t > 0 ? std::log(t) + lz + double(e - e0) * pk.lnA
                                        : -std::numeric_limits<double>::infinity();
                w[size_t(e - e_lo)] =
                    with_gap(lt, gap, L - e, pk.lnA) - double(e - e_lo) * pk.lnA;
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
            v.logprob = r.logprob ? r.logprob + start * d_cfg.ch.alphabet() : nullptr;
            v.rho = size_t((long long)r.L - start);
            v.priors = r.priors;
            v.log_priors = r.log_priors;
            v.extrinsic = r.extrinsic;
            v.posteriors = r.posteriors;
            v.boundaries = p[k].plain ? nullptr : &p[k].bounds;
            v.boundary_metrics = p[k].metrics.data();
            v.log_evidence = &p[k].backend_evidence;
            if (r.events) {
                v.events = &p[k].events;
                v.item_posteriors = r.item_posteriors
                                        ? p[k].items.data() + d_cfg.ch.alphabet() * start
                                        : nullptr;
                v.substitution_counts = p[k].pairs.empty() ? nullptr : p[k].pairs.data();
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
