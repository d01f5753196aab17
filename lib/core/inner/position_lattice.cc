/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The lattice by position (position_lattice.h): GCC vectors of W start
// positions, compiled for AVX-512, AVX2 and baseline x86-64 and picked by the
// caller's isa. The lane vectors never cross a call boundary (every function
// that takes or returns one is inlined into an entry compiled for one
// instruction set), so GCC's notes on their ABI do not apply.
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#include "inner/position_lattice.h"
#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace bsid {
namespace cpu {

int position_lanes(isa i, size_t real_size)
{
    const int bytes = i == isa::avx512 ? 64 : i == isa::avx2 ? 32 : 16;
    return bytes / int(real_size);
}

template <typename real>
bool unit_del_fits(const lattice_weights<real>& w, int n, double wmax)
{
    const double del = double(w.del), ins = double(w.ins);
    if (!(del > 0.0 && del <= 1.0 && ins >= 0.0 && ins < 1.0 && wmax >= 0.0))
        return false;
    const double limit = sizeof(real) == 4 ? 1e30 : 1e300;
    double bound = 1.0 / (1.0 - ins); // row 0
    const double step = (wmax / del + 1.0) / (1.0 - ins);
    for (int r = 0; r < n && bound < limit; ++r)
        bound *= step;
    return bound < limit;
}

template bool unit_del_fits<float>(const lattice_weights<float>&, int, double);
template bool unit_del_fits<double>(const lattice_weights<double>&, int, double);

size_t position_scratch(int widest, int n, int dlo, int dhi, int W, int A)
{
    const size_t row = size_t(dhi - dlo + 2) * size_t(W);
    const size_t columns = size_t(n + dhi + 1) * size_t(W);
    return 2 * size_t(widest) * row + columns * size_t(1 + A);
}

namespace {

#define BSID_INLINE __attribute__((always_inline)) inline

template <typename real, int W>
struct lanes {
    typedef real V __attribute__((vector_size(sizeof(real) * W)));
    typedef double D __attribute__((vector_size(sizeof(double) * W)));
};

template <typename V, typename real>
BSID_INLINE V load(const real* p)
{
    V v;
    std::memcpy(&v, p, sizeof(V));
    return v;
}

template <typename V, typename real>
BSID_INLINE void store(real* p, V v)
{
    std::memcpy(p, &v, sizeof(V));
}

/*
 * One level's nodes u0 .. u0 + U - 1 (U rows side by side: U chains of
 * horizontal steps), from their parents' rows in the level before. A level
 * of `count` rows keeps node k of row u at (k count + u) W, so that the U
 * rows' nodes k are neighbours; the leaves (LAST) go to out the same way.
 */
template <typename real, int W, bool UNIT, bool TAIL, bool LAST, int U>
BSID_INLINE void level_nodes(const position_shape<real>& s,
                             const position_call<real>& c,
                             int r,
                             int u0,
                             int count,
                             int pcount,
                             const int* parent,
                             const uint8_t* letter,
                             const real* prev,
                             real* cur,
                             const real* mask,
                             const real* wdt)
{
    using V = typename lanes<real, W>::V;
    const int dlo = s.dlo, Mn = s.dhi - dlo + 1;
    const V zero = V{};
    const V vdel = zero + s.w.del, vins = zero + s.w.ins, vdn = zero + s.del_n;
    const int kst = std::max(0, -(r + dlo)); // nodes k < kst: column c < 0
    const size_t cs = size_t(count) * W, ps = size_t(pcount) * W;
    // node k's weight for letter x: the table's column r + dlo + k of letter x
    // (at least 1 where it is read: k past the zero corner and column 0)
    size_t po[U], lo[U];
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) {
        po[u] = size_t(parent[u0 + u]) * W;
        lo[u] = size_t(letter[u0 + u]) * size_t(s.n + s.dhi + 1) * W;
    }
    // node k of row u: at dst + k cs + u W in the level, or for a leaf at
    // leaf[u] + k out_stride in out
    real* const dst = LAST ? nullptr : cur + size_t(u0) * W;
    // the call's fields in locals: the stores (memcpy, which may alias
    // anything) would otherwise make the compiler load them again after each
    const size_t ostride = LAST ? c.out_stride : 0, ocopy = LAST ? c.out_copy : 0;
    real* leaf[U];
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u)
        leaf[u] = LAST ? c.out + size_t(u0 + u) * size_t(Mn) * ostride : nullptr;
    auto put = [&](int u, int k, V v) {
        if (LAST) {
            real* const to = leaf[u] + size_t(k) * ostride;
            store(to, v);
            if (ocopy)
                store(to + ocopy, v);
        } else {
            store(dst + size_t(k) * cs + size_t(u) * W, v);
        }
    };
    for (int k = 0; k < std::min(kst, Mn); ++k) {
#pragma GCC unroll 8
        for (int u = 0; u < U; ++u)
            put(u, k, zero);
    }
    V h[U], vert[U];
    int k = kst;
    if (k < Mn) {
#pragma GCC unroll 8
        for (int u = 0; u < U; ++u) {
            h[u] = zero;
            vert[u] = load<V>(prev + size_t(k) * ps + po[u]);
        }
    }
    if (k < Mn && r + dlo + k == 0) {
        // column 0: the vertical step only
        const V m = TAIL && LAST ? load<V>(mask) : zero;
#pragma GCC unroll 8
        for (int u = 0; u < U; ++u) {
            vert[u] = load<V>(prev + size_t(k + 1) * ps + po[u]);
            // (a row divided by del^r: the vertical step weighs 1)
            h[u] = UNIT ? (LAST ? vdn * vert[u] : vert[u]) : vdel * vert[u];
            if (TAIL && LAST)
                h[u] *= m;
            put(u, k, h[u]);
        }
        ++k;
    }
    for (; k < Mn; ++k) {
        const V m = TAIL && LAST ? load<V>(mask + size_t(r + dlo + k) * W) : zero;
        const real* const pk = prev + size_t(k + 1) * ps;
#pragma GCC unroll 8
        for (int u = 0; u < U; ++u) {
            const V wd = load<V>(wdt + lo[u] + size_t(r + dlo + k) * W);
            const V diag = vert[u]; // node k of the parent's row
            vert[u] = load<V>(pk + po[u]);
            if (LAST) {
                V v = UNIT ? vdn * model::lattice_last_cell_unit_del(wd, diag, vert[u])
                           : model::lattice_last_cell(wd, diag, vdel, vert[u]);
                if (TAIL)
                    v *= m;
                put(u, k, v);
            } else {
                h[u] = UNIT ? model::lattice_cell_unit_del(wd, diag, vert[u], vins, h[u])
                            : model::lattice_cell(wd, diag, vdel, vert[u], vins, h[u]);
                put(u, k, h[u]);
            }
        }
    }
}

template <typename real, int W, bool UNIT, bool TAIL, bool LAST>
BSID_INLINE void level(const position_shape<real>& s,
                       const position_call<real>& c,
                       int r,
                       const real* prev,
                       real* cur,
                       const real* mask,
                       const real* wdt)
{
    const auto& t = *c.chunk;
    const int begin = t.level_begin[size_t(r)];
    const int count = t.level_begin[size_t(r) + 1] - begin;
    const int pcount = begin - t.level_begin[size_t(r) - 1];
    const int* parent = t.parent.data() + begin;
    const uint8_t* letter = t.letter.data() + begin;
    // four rows at a time: four chains of horizontal steps, and few enough
    // offsets to stay in registers
    int u = 0;
    for (; u + 4 <= count; u += 4)
        level_nodes<real, W, UNIT, TAIL, LAST, 4>(
            s, c, r, u, count, pcount, parent, letter, prev, cur, mask, wdt);
    if (u + 2 <= count) {
        level_nodes<real, W, UNIT, TAIL, LAST, 2>(
            s, c, r, u, count, pcount, parent, letter, prev, cur, mask, wdt);
        u += 2;
    }
    if (u < count)
        level_nodes<real, W, UNIT, TAIL, LAST, 1>(
            s, c, r, u, count, pcount, parent, letter, prev, cur, mask, wdt);
}

template <typename real, int W, bool UNIT, bool TAIL>
BSID_INLINE void group_pass(const position_shape<real>& s, const position_call<real>& c)
{
    using V = typename lanes<real, W>::V;
    const int n = s.n, dlo = s.dlo, Mn = s.dhi - dlo + 1;
    const auto& t = *c.chunk;
    int widest = 1;
    for (int r = 0; r < n; ++r)
        widest =
            std::max(widest, t.level_begin[size_t(r) + 1] - t.level_begin[size_t(r)]);
    const size_t level_values = size_t(Mn + 1) * size_t(widest) * W;
    real* buf[2] = { c.scratch, c.scratch + level_values };
    real* const mask = c.scratch + 2 * level_values;
    // the letters' weights of the group's columns c = 1 .. n + dhi, one
    // aligned vector each (a node's load then crosses no cache line): column
    // c of letter x at (x (n + dhi + 1) + c) W, lane l the item s0 + l + c - 1
    real* const wdt = mask + size_t(n + s.dhi + 1) * W;
    for (int x = 0; x < s.A; ++x) {
        const real* from = c.dw + size_t(x) * c.dw_stride + size_t(c.s0 - c.dw_first);
        real* to = wdt + size_t(x) * size_t(n + s.dhi + 1) * W;
        for (int col = 1; col <= n + s.dhi; ++col)
            store(to + size_t(col) * W, load<V>(from + (col - 1)));
    }
    const V zero = V{};
    if (TAIL) {
        // column c of lane l exists if c <= rho - (s0 + l). Only the last row
        // is masked: a node depends on nodes of its column and the columns
        // before, so the nodes past a lane's items (whose weights read 0 from
        // dw, finite values) reach no node within them.
        for (int col = 0; col <= n + s.dhi; ++col)
            for (int l = 0; l < W; ++l)
                mask[size_t(col) * W + size_t(l)] =
                    (long long)col <= c.rho - (c.s0 + l) ? real(1) : real(0);
    }
    // node Mn of every row: the vertical neighbour of node Mn - 1, outside
    // the corridor (a level of count rows keeps it at (Mn count + u) W;
    // written as each level is, since the two buffers take turns)
    auto zero_edge = [&](int r) {
        const int count = t.level_begin[size_t(r) + 1] - t.level_begin[size_t(r)];
        for (int u = 0; u < count; ++u)
            store(buf[r & 1] + (size_t(Mn) * size_t(count) + size_t(u)) * W, zero);
    };
    zero_edge(0);

    // Row 0: F(0, 0) = 1 at k0 = -dlo, then insertions only (model::lattice_row0).
    {
        const int k0 = -dlo;
        const V vins = zero + s.w.ins;
        V v = zero;
        for (int k = 0; k < Mn; ++k) {
            if (k == k0)
                v = zero + real(1);
            else if (k > k0)
                v = vins * v; // model::lattice_row0 for k > k0
            else
                v = zero;
            store(buf[0] + size_t(k) * W, v);
        }
    }
    for (int r = 1; r <= n; ++r) {
        const real* prev = buf[(r - 1) & 1];
        if (r == n) {
            level<real, W, UNIT, TAIL, true>(s, c, r, prev, nullptr, mask, wdt);
        } else {
            zero_edge(r);
            level<real, W, UNIT, TAIL, false>(s, c, r, prev, buf[r & 1], mask, wdt);
        }
    }
}

template <typename real, int W>
BSID_INLINE void lattice_entry(const position_shape<real>& s,
                               const position_call<real>& c)
{
    const bool tail = c.s0 + W - 1 + s.n + s.dhi > c.rho;
    if (s.unit_del) {
        if (tail)
            group_pass<real, W, true, true>(s, c);
        else
            group_pass<real, W, true, false>(s, c);
    } else {
        if (tail)
            group_pass<real, W, false, true>(s, c);
        else
            group_pass<real, W, false, false>(s, c);
    }
}

// One entry per instruction set and precision.
#define BSID_POS_ENTRIES(SUFFIX, ATTR, real, W)               \
    ATTR void lattice_##SUFFIX(const position_shape<real>& s, \
                               const position_call<real>& c)  \
    {                                                         \
        lattice_entry<real, W>(s, c);                         \
    }

BSID_POS_ENTRIES(base_float, , float, 4)
BSID_POS_ENTRIES(base_double, , double, 2)
#if BSID_ISA_X86
BSID_POS_ENTRIES(v3_float, BSID_TARGET_V3, float, 8)
BSID_POS_ENTRIES(v3_double, BSID_TARGET_V3, double, 4)
BSID_POS_ENTRIES(v4_float, BSID_TARGET_V4, float, 16)
BSID_POS_ENTRIES(v4_double, BSID_TARGET_V4, double, 8)
#endif

#if !BSID_ISA_X86
#define lattice_v3_float lattice_base_float
#define lattice_v4_float lattice_base_float
#define lattice_v3_double lattice_base_double
#define lattice_v4_double lattice_base_double
#endif

void entry(isa i, const position_shape<float>& s, const position_call<float>& c)
{
    isa_entry(
        i, &lattice_base_float, &lattice_v3_float, &lattice_v4_float, "position_lattice")(
        s, c);
}

void entry(isa i, const position_shape<double>& s, const position_call<double>& c)
{
    isa_entry(i,
              &lattice_base_double,
              &lattice_v3_double,
              &lattice_v4_double,
              "position_lattice")(s, c);
}

} // namespace

template <typename real>
void position_lattice(isa i,
                      const position_shape<real>& shape,
                      const position_call<real>& call)
{
    entry(i, shape, call);
}

#define BSID_POS_INSTANTIATE(real)        \
    template void position_lattice<real>( \
        isa, const position_shape<real>&, const position_call<real>&);

BSID_POS_INSTANTIATE(float)
BSID_POS_INSTANTIATE(double)

} // namespace cpu
} // namespace bsid
