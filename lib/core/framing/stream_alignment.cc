/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "channel/letter_scale.h"
#include "framing/stream_alignment.h"
#include "framing/stream_positions.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/drift_limits.h>
#include <gnuradio/bsid/core/inner/lattice.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>

namespace bsid {

namespace {

constexpr int max_edge_codewords = 8;

std::vector<codebook::word_type> sorted_book(const codebook& cb, int b)
{
    std::vector<codebook::word_type> v = cb.books()[size_t(b)];
    std::sort(v.begin(), v.end());
    return v;
}

// a codebook of the books idx[0], idx[1], ... of cb (indices mod P)
codebook books_of(const codebook& cb, const std::vector<long long>& idx)
{
    const long long P = cb.P();
    std::vector<std::vector<codebook::word_type>> books;
    for (long long i : idx)
        books.push_back(cb.books()[size_t(((i % P) + P) % P)]);
    return codebook(cb.n(), std::move(books), cb.alphabet());
}

// a decoder of J codewords of the books cb: on the CPU (a frame a thread, as
// many threads as the frame decoder's for a batch), or on its backend
std::unique_ptr<frame_decoder>
make_edge_decoder(const decoder_config& main, codebook cb, bool on_backend)
{
    const int J = cb.P();
    decoder_config cfg = main;
    cfg.cb = std::move(cb);
    cfg.N = J;
    if (!on_backend)
        cfg.backend = backend_kind::cpu;
    // (the frame's own decode's arithmetic, channel and Pr)
    return std::make_unique<frame_decoder>(cfg);
}

} // namespace

using detail::read_llr;

std::shared_ptr<const alignment_judge>
shared_alignment_judge(const std::shared_ptr<frame_decoder>& dec,
                       double sync_word_threshold,
                       input_kind input)
{
    struct entry {
        std::weak_ptr<frame_decoder> dec;
        std::shared_ptr<const alignment_judge> judge;
    };
    static std::mutex m;
    static std::map<std::tuple<const frame_decoder*, double, int>, entry> cache;
    // (NaN, the automatic threshold, as a key that compares equal to itself)
    const double t = std::isnan(sync_word_threshold) ? -std::numeric_limits<double>::max()
                                                     : sync_word_threshold;
    const auto key = std::make_tuple(dec.get(), t, int(input));
    {
        std::lock_guard<std::mutex> lock(m);
        const auto it = cache.find(key);
        if (it != cache.end() && it->second.dec.lock() == dec)
            return it->second.judge;
    }
    auto judge =
        std::make_shared<const alignment_judge>(*dec, sync_word_threshold, input);
    std::lock_guard<std::mutex> lock(m);
    for (auto it = cache.begin(); it != cache.end();)
        it = it->second.dec.expired() ? cache.erase(it) : std::next(it);
    cache[key] = { dec, judge };
    return judge;
}

int book_period(const codebook& cb)
{
    const int P = cb.P();
    std::vector<std::vector<codebook::word_type>> sets;
    for (int b = 0; b < P; ++b)
        sets.push_back(sorted_book(cb, b));
    for (int p = 1; p < P; ++p) {
        if (P % p != 0)
            continue;
        bool same = true;
        for (int b = 0; b + p < P && same; ++b)
            same = sets[size_t(b)] == sets[size_t(b + p)];
        if (same)
            return p;
    }
    return P;
}

alignment_judge::alignment_judge(const frame_decoder& dec,
                                 double sync_word_threshold,
                                 input_kind input)
    : d_N(dec.N()),
      d_G(int(dec.sync_word().size())),
      d_n(dec.config().cb.n()),
      d_p(book_period(dec.config().cb)),
      d_W(dec.sync_word()),
      d_ch(dec.config().ch)
{
    const decoder_config& cfg = dec.config();
    d_sync_hi = d_G > 0 ? drift_limits(d_G, cfg.ch.Pi(), cfg.ch.Pd(), cfg.Pr).hi : 0;
    d_sync_threshold =
        std::isnan(sync_word_threshold)
            ? default_sync_word_threshold(cfg, d_W) -
                  (input != input_kind::bits ? d_G * ln_letters(cfg.ch.alphabet()) / 2
                                             : 0.0)
            : sync_word_threshold;
    if (d_G == 0 && d_p < d_N) {
        d_J = std::min(d_p, max_edge_codewords);
        const long long N = d_N, p = d_p, J = d_J;
        std::vector<long long> own_front, alt_front, own_back, alt_back;
        for (long long i = 0; i < J; ++i) {
            own_front.push_back(i);
            alt_front.push_back(N - p + i); // the previous frame's codewords
            own_back.push_back(N - J + i);
            alt_back.push_back(p - J + i); // the next frame's codewords
        }
        // (with p dividing N the neighbour's books are the frame's own: only
        // the edges against random bits tell anything)
        d_main = cfg;
        d_main->backend = dec.primary().backend(); // (automatic resolved)
        d_books = { books_of(cfg.cb, own_front),
                    books_of(cfg.cb, alt_front),
                    books_of(cfg.cb, own_back),
                    books_of(cfg.cb, alt_back) };
        d_front_own = make_edge_decoder(cfg, d_books[front_own], false);
        d_back_own = make_edge_decoder(cfg, d_books[back_own], false);
        if (d_N % d_p != 0) {
            d_front_alt = make_edge_decoder(cfg, d_books[front_alt], false);
            d_back_alt = make_edge_decoder(cfg, d_books[back_alt], false);
        }
        d_edge_hi = drift_limits(J * d_n, cfg.ch.Pi(), cfg.ch.Pd(), cfg.Pr).hi;
    }
}

double alignment_judge::sync_word_fit(const received_items& y,
                                      size_t avail,
                                      const double* prob) const
{
    const size_t ny = std::min(avail, size_t(d_G + d_sync_hi));
    if (d_G == 0 || ny == 0)
        return -std::numeric_limits<double>::infinity();
    const auto row =
        prob ? full_lattice_last_row_probs(d_ch, d_W.data(), d_W.size(), prob, ny)
             : full_lattice_last_row(d_ch, d_W.data(), d_W.size(), y, ny);
    double v = 0;
    for (size_t c = 0; c < row.size(); ++c)
        v += times_letters_pow(row[c], (long long)c, d_ch.alphabet());
    return std::log(v);
}

alignment_judge::edge_reads alignment_judge::edge_requests(const received_items& y,
                                                           size_t avail,
                                                           const position_weights& start,
                                                           long long e) const
{
    edge_reads reads;
    if (!d_front_own)
        return reads;
    const bool alt = d_front_alt != nullptr;
    // the front: the start prior's likely positions (the tails carry no
    // weight worth a state)
    position_weights s;
    double top = 0;
    for (double w : start.weights)
        top = std::max(top, w);
    for (size_t k = 0; k < start.positions.size(); ++k) {
        if (start.weights[k] >= 1e-9 * top && start.positions[k] < (long long)avail)
            s.positions.push_back(start.positions[k]),
                s.weights.push_back(start.weights[k]);
    }
    if (!s.positions.empty()) {
        frame_request r;
        r.set_items(y);
        r.L = std::min(avail, size_t(s.positions.back() + d_J * d_n + d_edge_hi + 1));
        // padded with a start of weight 0 to a spread of 2^k - 1, at least
        // front_spread: the fronts of a round's frames then fall in one or
        // two state spaces, each one batch of the edge decoder (a frame's
        // carried start spans a few positions; unpadded, each spread was a
        // batch of its own, five or six small batches a round on a GPU)
        const long long top =
            std::min(detail::padded_top(s.positions.front(),
                                        std::max(s.positions.back(),
                                                 s.positions.front() + front_spread)),
                     (long long)r.L - 1);
        if (top > s.positions.back())
            s.positions.push_back(top), s.weights.push_back(0.0);
        r.start = std::move(s);
        r.end = end_mode::free;
        r.lookahead = 0;
        r.next_frame_follows = false;
        r.posteriors = false; // (only the likelihood ratio is read)
        reads.requests.push_back(r);
        reads.roles.push_back(front_own);
        if (alt) {
            reads.requests.push_back(std::move(r));
            reads.roles.push_back(front_alt);
        }
    }
    // the back: the J codewords end at y[e]; they begin within +-d of e - J n
    const long long span = (long long)d_J * d_n;
    const long long first = std::max(0LL, e - span - d_edge_hi);
    const long long last = std::min(e, e - span + d_edge_hi);
    if (last >= first) {
        position_weights b;
        for (long long x = first; x <= last; ++x)
            b.positions.push_back(x - first), b.weights.push_back(1.0);
        frame_request r;
        r.start = std::move(b);
        r.set_items(y + first);
        r.L = size_t(e - first);
        r.end = end_mode::known;
        r.posteriors = false;
        reads.requests.push_back(r);
        reads.roles.push_back(back_own);
        if (alt) {
            reads.requests.push_back(std::move(r));
            reads.roles.push_back(back_alt);
        }
    }
    return reads;
}

frame_decoder& alignment_judge::edge_decoder(edge_role role, bool on_backend) const
{
    const std::unique_ptr<frame_decoder>* cpu[4] = {
        &d_front_own, &d_front_alt, &d_back_own, &d_back_alt
    };
    if (!*cpu[role])
        throw std::logic_error("alignment_judge: no edge decoder for that role");
    if (!on_backend || d_main->backend == backend_kind::cpu)
        return **cpu[role];
    std::lock_guard<std::mutex> lock(d_backend_mutex);
    if (!d_on_backend[role])
        d_on_backend[role] = make_edge_decoder(*d_main, d_books[size_t(role)], true);
    return *d_on_backend[role];
}

edge_values
alignment_judge::edge_margins(const std::vector<edge_role>& roles,
                              const std::vector<frame_decode_result>& got) const
{
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (got.size() != roles.size())
        throw std::logic_error("alignment_judge: one result per edge read is needed");
    // (an edge not read, with nothing to read, reads -inf as its own books)
    double v[4] = { -inf, nan, -inf, nan };
    for (size_t k = 0; k < got.size(); ++k)
        v[roles[k]] = read_llr(got[k]);
    // own less alt: -inf where own reads -inf, +inf where only alt does
    auto margin = [&](double own, double alt) {
        if (!d_front_alt)
            return nan;
        if (std::isinf(own) && own < 0)
            return -inf;
        return std::isinf(alt) ? inf : own - alt;
    };
    return { margin(v[front_own], v[front_alt]),
             margin(v[back_own], v[back_alt]),
             v[front_own],
             v[back_own] };
}

double alignment_judge::default_sync_word_threshold(const decoder_config& cfg,
                                                    const std::vector<uint8_t>& W)
{
    const int G = int(W.size());
    const int A = cfg.ch.alphabet();
    if (G == 0)
        return 0.0;
    const int hi = drift_limits(G, cfg.ch.Pi(), cfg.ch.Pd(), cfg.Pr).hi;
    constexpr int draws = 20000;
    constexpr int tail = 64; // the codewords after W: random letters here
    std::vector<uint8_t> sent(W);
    sent.resize(size_t(G + tail));
    std::vector<double> fit;
    fit.reserve(draws);
    for (int t = 0; t < draws; ++t) {
        // the tail's letters: from t's hash, a fixed sequence (bits: its bit 31)
        uint64_t h = 0x9E3779B97F4A7C15ULL * uint64_t(t + 1);
        for (int j = 0; j < tail; ++j) {
            h ^= h >> 29;
            h *= 0xBF58476D1CE4E5B9ULL;
            sent[size_t(G + j)] =
                uint8_t(A == 2 ? (h >> 31) & 1 : (h >> 31) % uint64_t(A));
        }
        const transmission tx =
            transmit(cfg.ch, sent.data(), sent.size(), 0x5A11C0DEULL, uint64_t(t));
        const size_t ny = std::min(tx.rx.size(), size_t(G + hi));
        if (ny == 0) {
            fit.push_back(-std::numeric_limits<double>::infinity());
            continue;
        }
        const auto row =
            full_lattice_last_row(cfg.ch, W.data(), W.size(), tx.rx.data(), ny);
        double v = 0;
        for (size_t c = 0; c < row.size(); ++c)
            v += times_letters_pow(row[c], (long long)c, A);
        fit.push_back(std::log(v));
    }
    std::sort(fit.begin(), fit.end());
    const double q = fit[size_t(draws / 10000)]; // the 1e-4 quantile
    return std::min(q, G * ln_letters(A) / 2);
}

} // namespace bsid
