/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "inner/codeword_weights.h"
#include "inner/position_blocks.h"
#include "inner/position_sweeps.h"
#include "runtime/seconds_since.h"
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
    // the most groups one index's states touch
    const int span = (Mt - 1 + W - 1) / W + 1;
    // the windows of one book's indices share groups only if they are
    // closer than a window; otherwise a book's groups are never reused
    books_kept = (long long)n * P < (long long)Mt + 2 * W ? P : 1;
    // a ring of four windows where that is small (the copy of the first M_tau
    // columns, made as groups land there, then costs a quarter of the groups)
    ring = span * W;
    if (size_t(books_kept) * size_t(q) * size_t(Mn) * size_t(5 * ring) * sizeof(real) <=
        (size_t(16) << 20))
        ring *= 2;
    shape.w = lattice_weights<real>::ratio(ch);
    shape.n = n;
    shape.dlo = limits.mn.lo;
    shape.dhi = limits.mn.hi;
    shape.A = A;
    for (int p = 0; p < P; ++p) {
        tries.push_back(make_codeword_trie(cb, p, trie_chunk));
        widest = std::max(widest, tries.back().widest);
        for (const auto& c : tries.back().chunks)
            chunk = std::max(chunk, c.leaves);
    }
    diag = letter_pair_weights<real>(ch);
    double wmax = 0;
    for (real d : diag)
        wmax = std::max(wmax, double(d));
    // (a soft item's weight is a mixture of these, at most wmax)
    shape.unit_del = cpu::unit_del_fits(shape.w, n, wmax);
    if (shape.unit_del) {
        shape.del_n = real(std::pow(double(shape.w.del), n));
        for (auto& d : diag)
            d /= shape.w.del;
    }
}

template <typename real>
size_t position_plan<real>::ring_bytes(bool streaming) const
{
    const size_t columns = size_t(Mn) * size_t(ring_row());
    const size_t gsums =
        uniform_by_position()
            ? size_t(P) * size_t(Mn) * size_t(groups * W) * sizeof(double)
            : size_t(books_kept) * columns * sizeof(double);
    if (streaming)
        return size_t(chunk) * columns * sizeof(real);
    return size_t(books_kept) * size_t(q) * columns * sizeof(real) + gsums;
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
                                    bool streaming)
{
    d_plan = &plan;
    d_rho = rho;
    d_streaming = streaming;
    d_lattices = 0;
    const int A = plan.A, W = plan.W;
    // the items the groups' lattices read: [pos0, pos0 + groups W + n + dhi)
    const size_t len =
        size_t(plan.groups) * size_t(W) + size_t(plan.n + plan.shape.dhi) + size_t(W);
    d_dw.resize(size_t(A) * len);
    d_dw_stride = len;
    for (int x = 0; x < A; ++x) {
        real* dw = d_dw.data() + size_t(x) * len;
        const real* t = plan.diag.data() + size_t(x) * size_t(A);
        for (size_t k = 0; k < len; ++k) {
            const long long j = plan.pos0 + (long long)k;
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
    const size_t rings = streaming ? 1 : size_t(plan.books_kept);
    const size_t rows = streaming ? size_t(plan.chunk) : size_t(plan.q);
    const size_t columns = size_t(plan.Mn) * size_t(plan.ring_row());
    // (margins before the first row and after the last: the sums' vectors
    // read a little past an index's states, with weight 0)
    const size_t margin = size_t(plan.Mn) + 32; // at least cpu::row_margin
    d_rings.resize(rings * rows * columns + 2 * margin);
    std::fill(d_rings.begin(), d_rings.begin() + margin, real(0));
    std::fill(d_rings.end() - margin, d_rings.end(), real(0));
    if (streaming)
        d_gsums.clear();
    else if (plan.uniform_by_position())
        d_gsums.resize(size_t(plan.P) * size_t(plan.Mn) * gsums_stride() + 2 * margin);
    else
        d_gsums.resize(rings * columns + 2 * margin);
    // (the margins: the recursions read a little around an index's G)
    if (!streaming) {
        std::fill(d_gsums.begin(), d_gsums.begin() + margin, 0.0);
        std::fill(d_gsums.end() - margin, d_gsums.end(), 0.0);
    }
    d_tags.assign(rings * size_t(plan.ring / W), -1);
    d_scratch.resize(
        cpu::position_scratch(plan.widest, plan.n, plan.dlo, plan.shape.dhi, W, plan.A));
    // from, with zeros around it: [dhi + 16 zeros][Mt][Qs - dlo + 16 zeros]
    d_from.assign(size_t(plan.shape.dhi + 16 + plan.Mt + plan.Qs() - plan.dlo + 16),
                  real(0));
}

template <typename real>
real* position_blocks<real>::ring_of(int book)
{
    const position_plan<real>& p = *d_plan;
    const size_t rb = d_streaming ? 0 : size_t(book % p.books_kept);
    const size_t rows = d_streaming ? size_t(p.chunk) : size_t(p.q);
    return d_rings.data() + (size_t(p.Mn) + 32) +
           rb * rows * size_t(p.Mn) * size_t(p.ring_row());
}

template <typename real>
size_t position_blocks<real>::gsums_stride() const
{
    const position_plan<real>& p = *d_plan;
    return p.uniform_by_position() ? size_t(p.groups * p.W) : size_t(p.ring_row());
}

template <typename real>
double* position_blocks<real>::gsums_of(int book)
{
    const position_plan<real>& p = *d_plan;
    const size_t b = p.uniform_by_position() ? size_t(book) : size_t(book % p.books_kept);
    return d_gsums.data() + (size_t(p.Mn) + 32) + b * size_t(p.Mn) * gsums_stride();
}

template <typename real>
void position_blocks<real>::fill(int i, int chunk, double& seconds, bool timed)
{
    const position_plan<real>& p = *d_plan;
    const int book = int(size_t(i) % size_t(p.P));
    const auto& trie = p.tries[size_t(book)];
    const size_t slots = size_t(p.ring / p.W);
    const size_t rb = d_streaming ? 0 : size_t(book % p.books_kept);
    const size_t RL = size_t(p.ring_row());
    const size_t columns = size_t(p.Mn) * RL;
    real* const ring = ring_of(book);
    for (long long g = p.first_group(i); g <= p.last_group(i); ++g) {
        const size_t slot = size_t(g) % slots;
        const long long key =
            ((long long)book * (long long)p.q + (d_streaming ? chunk : 0)) * p.groups + g;
        long long& tag = d_tags[rb * slots + slot];
        if (tag == key)
            continue;
        const auto t0 = timed ? std::chrono::steady_clock::now()
                              : std::chrono::steady_clock::time_point{};
        cpu::position_call<real> c;
        c.dw = d_dw.data();
        c.dw_stride = d_dw_stride;
        c.dw_first = p.pos0;
        c.s0 = p.pos0 + g * p.W;
        c.rho = d_rho;
        c.scratch = d_scratch.data();
        c.out_stride = RL;
        const size_t col = slot * size_t(p.W);
        // a group in the first M_tau columns is written past the ring's end
        // too (the lattice stores its leaves twice), so that every index's
        // states are contiguous columns
        const bool mirror = col < size_t(p.Mt);
        c.out_copy = mirror ? size_t(p.ring) : 0;
        if (d_streaming) {
            c.chunk = &trie.chunks[size_t(chunk)];
            c.out = ring + col;
            cpu::position_lattice(p.isa, p.shape, c);
        } else {
            for (const auto& ch : trie.chunks) {
                c.chunk = &ch;
                c.out = ring + size_t(ch.first_leaf) * columns + col;
                cpu::position_lattice(p.isa, p.shape, c);
            }
            // a uniform prior's G of the group's positions
            const size_t gs = gsums_stride();
            double* G = gsums_of(book) +
                        (p.uniform_by_position() ? size_t(g) * size_t(p.W) : col);
            cpu::group_sums(ring + col, p.q, p.Mn, RL, p.W, p.q, G, gs);
            for (int e = 0; e < p.Mn && mirror && !p.uniform_by_position(); ++e) {
                double* row = gsums_of(book) + size_t(e) * gs;
                std::copy(row + col, row + col + size_t(p.W), row + col + size_t(p.ring));
            }
        }
        tag = key;
        d_lattices += !d_streaming || chunk == 0;
        if (timed)
            seconds += detail::seconds_since(t0);
    }
}

template <typename real>
void position_blocks<real>::sums(
    int i, const real* R, int j0, int j1, const double* prior, double* G, double* Q)
{
    const position_plan<real>& p = *d_plan;
    const int book = int(size_t(i) % size_t(p.P));
    cpu::ring_states<real> r;
    r.R = R;
    r.rs = size_t(p.ring_row());
    r.c0 = int(((long long)p.n * i) % p.ring); // state a's column: c0 + a
    r.leaves = j1 - j0;
    r.word = p.tries[size_t(book)].word.data() + j0;
    r.Mn = p.Mn;
    r.Mt = p.Mt;
    r.dlo = p.dlo;
    if (G)
        cpu::states_G(r, prior, j0 == 0, G);
    if (Q)
        cpu::states_Q(r, d_from.data() + (p.shape.dhi + 16), p.Qs(), Q);
}

template <typename real>
index_G position_blocks<real>::index_sums(int i,
                                          const double* prior,
                                          double* G,
                                          const double* from,
                                          double* Q,
                                          bool timed,
                                          double& seconds)
{
    const position_plan<real>& p = *d_plan;
    const int book = int(size_t(i) % size_t(p.P));
    const auto& trie = p.tries[size_t(book)];
    const int Mt = p.Mt, Mn = p.Mn;
    if (Q) {
        for (int a = 0; a < Mt; ++a)
            d_from[size_t(p.shape.dhi + 16 + a)] = from[a];
    }
    if (d_streaming) {
        for (size_t c = 0; c < trie.chunks.size(); ++c) {
            const auto& ch = trie.chunks[c];
            fill(i, int(c), seconds, timed);
            sums(i, ring_of(book), ch.first_leaf, ch.first_leaf + ch.leaves, prior, G, Q);
        }
        if (!prior) {
            for (size_t k = 0; k < size_t(Mn) * size_t(Mt); ++k)
                G[k] /= p.q; // as group_sums
        }
        return { G, size_t(Mt) };
    }
    fill(i, 0, seconds, timed);
    sums(i, ring_of(book), 0, p.q, prior, prior ? G : nullptr, Q);
    if (prior)
        return { G, size_t(Mt) };
    // the uniform prior's sums, made with the groups' lattices
    const size_t gs = gsums_stride();
    const long long column = (long long)p.n * i; // state 0's position - pos0
    if (p.uniform_by_position())
        return { gsums_of(book) + column, gs };
    const double* src = gsums_of(book) + size_t(column % p.ring);
    for (int e = 0; e < Mn; ++e)
        std::copy(src + size_t(e) * gs,
                  src + size_t(e) * gs + size_t(Mt),
                  G + size_t(e) * size_t(Mt));
    return { G, size_t(Mt) };
}

template struct position_plan<float>;
template struct position_plan<double>;
template class position_blocks<float>;
template class position_blocks<double>;

} // namespace bsid
