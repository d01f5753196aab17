/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "inner/position_blocks.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

namespace bsid {

namespace {

// Codewords per chunk of a trie: a level's rows (at most this many) and the
// one before stay in the core's caches.
constexpr int trie_chunk = 32;

} // namespace

template <typename real>
position_plan<real>::position_plan(const codebook& cb,
                                   const channel_params& ch,
                                   const decoder_limits& limits,
                                   int N_,
                                   cpu::isa i)
    : isa(i),
      W(cpu::position_lanes(i, sizeof(real))),
      n(cb.n()),
      N(N_),
      P(cb.P()),
      q(cb.q()),
      A(ch.alphabet()),
      Mt(limits.mtau.size()),
      Mn(limits.mn.size()),
      dlo(limits.mn.lo),
      pos0(limits.mtau.lo)
{
    const long long last = (long long)n * (N - 1) + limits.mtau.hi;
    groups = (last - pos0) / W + 1;
    span = (Mt - 1 + W - 1) / W + 1;
    // the windows of one book's indices share groups only if they are
    // closer than a window; otherwise a book's groups are never reused
    books_kept = (long long)n * P < (long long)Mt + 2 * W ? P : 1;
    slot_values = size_t(q) * size_t(Mn) * size_t(W);
    GS = size_t(Mt) + 2 * size_t(W);
    shape.w = lattice_weights<real>::ratio(ch);
    shape.n = n;
    shape.dlo = limits.mn.lo;
    shape.dhi = limits.mn.hi;
    for (int p = 0; p < P; ++p) {
        tries.push_back(make_codeword_trie(cb, p, trie_chunk));
        widest = std::max(widest, tries.back().widest);
    }
    diag.resize(size_t(A) * size_t(A));
    double wmax = 0;
    for (int x = 0; x < A; ++x) {
        for (int y = 0; y < A; ++y) {
            diag[size_t(x) * size_t(A) + size_t(y)] =
                A == 2 ? shape.w.diag(unsigned(x), unsigned(y))
                       : real(double(A) * ch.emission(unsigned(x), unsigned(y)));
            wmax = std::max(wmax, double(diag[size_t(x) * size_t(A) + size_t(y)]));
        }
    }
    // (a soft item's weight is a mixture of these, at most wmax)
    shape.unit_del = cpu::unit_del_fits(shape.w, n, wmax);
    if (shape.unit_del) {
        shape.del_n = real(std::pow(double(shape.w.del), n));
        for (auto& d : diag)
            d /= shape.w.del;
    }
}

template <typename real>
typename position_plan<real>::layout position_plan<real>::storage(bool global) const
{
    return { global ? groups : (long long)span + 1, books_kept };
}

template <typename real>
size_t position_plan<real>::bytes(const layout& l) const
{
    return size_t(l.per_book) * size_t(l.books) *
           (slot_values * sizeof(real) + size_t(Mn) * size_t(W) * sizeof(double));
}

template <typename real>
long long position_plan<real>::first_group(int i) const
{
    return (long long)n * i / W;
}

template <typename real>
long long position_plan<real>::last_group(int i) const
{
    return std::min(groups - 1, ((long long)n * i + Mt - 1) / W);
}

template <typename real>
void position_blocks<real>::prepare(const position_plan<real>& plan,
                                    const uint8_t* letters,
                                    const real* prob,
                                    long long rho,
                                    const typename position_plan<real>::layout& l)
{
    d_plan = &plan;
    d_rho = rho;
    d_layout = l;
    d_lattices = 0;
    const int A = plan.A, W = plan.W;
    // the items the groups' lattices read: [pos0, pos0 + groups W + n + dhi)
    d_jlo = plan.pos0;
    const size_t len =
        size_t(plan.groups) * size_t(W) + size_t(plan.n + plan.shape.dhi) + size_t(W);
    d_dw.resize(size_t(A) * len);
    d_dw_stride = len;
    for (int x = 0; x < A; ++x) {
        real* dw = d_dw.data() + size_t(x) * len;
        const real* t = plan.diag.data() + size_t(x) * size_t(A);
        for (size_t k = 0; k < len; ++k) {
            const long long j = d_jlo + (long long)k;
            real v = real(0);
            if (j >= 0 && j < rho) {
                if (!prob) {
                    v = t[letters[j]];
                } else if (A == 2) {
                    v = model::soft_diag(prob[2 * j], prob[2 * j + 1], t[0], t[1]);
                } else {
                    // the letters' weights mixed by the item's probabilities,
                    // in the order of corridor_lattice_letters
                    const real* p = prob + size_t(A) * size_t(j);
                    v = p[0] * t[0];
                    for (int y = 1; y < A; ++y)
                        v += p[y] * t[y];
                }
            }
            dw[k] = v;
        }
    }
    const size_t slots = size_t(l.per_book) * size_t(l.books);
    d_slots.resize(slots * plan.slot_values);
    d_gsums.resize(slots * size_t(plan.Mn) * size_t(W));
    d_tags.assign(slots, -1);
    d_scratch.resize(
        cpu::position_scratch(plan.widest, plan.n, plan.dlo, plan.shape.dhi, W));
    if (slots == 0)
        d_piece.resize(size_t(trie_chunk) * size_t(plan.Mn) * size_t(W));
}

template <typename real>
void position_blocks<real>::run_chunk(int book, long long g, int chunk, real* out)
{
    const position_plan<real>& p = *d_plan;
    cpu::position_call<real> c;
    c.chunk = &p.tries[size_t(book)].chunks[size_t(chunk)];
    c.dw = d_dw.data();
    c.dw_first = d_jlo;
    c.dw_stride = d_dw_stride;
    c.s0 = p.pos0 + g * p.W;
    c.rho = d_rho;
    c.scratch = d_scratch.data();
    c.out = out;
    cpu::position_lattice(p.isa, p.shape, c);
}

template <typename real>
void position_blocks<real>::uniform_sums(int book, const real* R, double* G, size_t gs)
{
    // sum_D R / q over the chunks in order: G of a uniform prior
    const position_plan<real>& p = *d_plan;
    const auto& trie = p.tries[size_t(book)];
    const size_t W = size_t(p.W), Mn = size_t(p.Mn);
    for (size_t c = 0; c < trie.chunks.size(); ++c) {
        const auto& ch = trie.chunks[c];
        cpu::position_sums(p.isa,
                           R ? R + size_t(ch.first_leaf) * Mn * W : d_piece.data(),
                           ch.leaves,
                           trie.word.data() + ch.first_leaf,
                           nullptr,
                           p.Mn,
                           G,
                           gs,
                           c == 0);
    }
    for (size_t e = 0; e < Mn; ++e)
        for (size_t l = 0; l < W; ++l)
            G[e * gs + l] /= p.q;
}

template <typename real>
const real*
position_blocks<real>::group_block(int book, long long g, double& seconds, bool timed)
{
    const position_plan<real>& p = *d_plan;
    const size_t slot = size_t(book % d_layout.books) * size_t(d_layout.per_book) +
                        size_t(g % d_layout.per_book);
    real* blk = d_slots.data() + slot * p.slot_values;
    const long long key = (long long)book * p.groups + g;
    if (d_tags[slot] != key) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto& trie = p.tries[size_t(book)];
        for (size_t c = 0; c < trie.chunks.size(); ++c)
            run_chunk(book,
                      g,
                      int(c),
                      blk +
                          size_t(trie.chunks[c].first_leaf) * size_t(p.Mn) * size_t(p.W));
        uniform_sums(book, blk, gsum(slot), size_t(p.W));
        d_tags[slot] = key;
        ++d_lattices;
        if (timed)
            seconds +=
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                    .count();
    }
    d_last_slot = slot;
    return blk;
}

template <typename real>
double position_blocks<real>::index_sums(
    int i, const double* prior, double* G, const double* wt, double* acc, bool timed)
{
    const position_plan<real>& p = *d_plan;
    const int book = int(size_t(i) % size_t(p.P));
    const auto& trie = p.tries[size_t(book)];
    const long long si = (long long)p.n * i + p.pos0;
    const int Mn = p.Mn, W = p.W;
    double seconds = 0;
    for (long long g = p.first_group(i); g <= p.last_group(i); ++g) {
        // lane l of group g is state a0 + l, kept at a0 + l + W in G's and
        // wt's rows (the lanes outside [0, Mt) land in their margins)
        const long long a0 = p.pos0 + g * W - si;
        double* const Gg = G ? G + size_t(a0 + W) : nullptr;
        const double* const wg = wt ? wt + size_t(a0 + W) : nullptr;
        if (d_layout.books > 0) {
            const real* blk = group_block(book, g, seconds, timed);
            if (G && !prior) {
                const double* gs = gsum(d_last_slot);
                for (int e = 0; e < Mn; ++e)
                    std::memcpy(Gg + size_t(e) * p.GS,
                                gs + size_t(e) * size_t(W),
                                sizeof(double) * size_t(W));
            }
            for (size_t c = 0; c < trie.chunks.size(); ++c) {
                const auto& ch = trie.chunks[c];
                const real* R = blk + size_t(ch.first_leaf) * size_t(Mn) * size_t(W);
                const int* words = trie.word.data() + ch.first_leaf;
                if (G && prior)
                    cpu::position_sums(
                        p.isa, R, ch.leaves, words, prior, Mn, Gg, p.GS, c == 0);
                if (wt)
                    cpu::position_weighted(p.isa, R, ch.leaves, words, wg, p.GS, Mn, acc);
            }
            continue;
        }
        // streaming: each chunk's lattice into the one piece, used at once
        for (size_t c = 0; c < trie.chunks.size(); ++c) {
            const auto& ch = trie.chunks[c];
            const auto t0 = std::chrono::steady_clock::now();
            run_chunk(book, g, int(c), d_piece.data());
            d_lattices += c == 0;
            if (timed)
                seconds +=
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                        .count();
            const int* words = trie.word.data() + ch.first_leaf;
            if (G)
                cpu::position_sums(
                    p.isa, d_piece.data(), ch.leaves, words, prior, Mn, Gg, p.GS, c == 0);
            if (wt)
                cpu::position_weighted(
                    p.isa, d_piece.data(), ch.leaves, words, wg, p.GS, Mn, acc);
        }
        if (G && !prior) {
            for (int e = 0; e < Mn; ++e)
                for (int l = 0; l < W; ++l)
                    Gg[size_t(e) * p.GS + size_t(l)] /= p.q; // as uniform_sums
        }
    }
    return seconds;
}

template struct position_plan<float>;
template struct position_plan<double>;
template class position_blocks<float>;
template class position_blocks<double>;

} // namespace bsid
