/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU decoder's corridor lattice (cpu_lattice.h). corridor_lattice
// (lattice.cc) loops over the q codewords in every node, decides the node's
// edge cases per node and reads the horizontal neighbour back from memory;
// at S500 (q = 16) that is one vector per node, and most of the time went to
// the loop's overhead and to the store-and-load chain along each row. Here
// the codewords are GCC vectors of the machine's width (compiled for
// AVX-512, AVX2 and baseline x86-64, picked at run time), `groups` of them
// advanced together through a row, each row's valid nodes are found once,
// and the horizontal neighbour stays in a register. The arithmetic per node
// is model::lattice_cell.

// The lane vectors never cross a call boundary (every function that takes or
// returns one is inlined into an entry compiled for one instruction set), so
// GCC's notes on their ABI do not apply.
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#include "inner/cpu_lattice.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/inner/lattice.h>
#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace bsid {
namespace cpu {

namespace {

int max_bytes(isa i)
{
#if defined(__GNUC__)
    return i == isa::avx512 ? 64 : i == isa::avx2 ? 32 : 16;
#else
    (void)i;
    return 0; // no vector extensions: corridor_lattice only
#endif
}

} // namespace

lane_plan plan_lanes(int q, size_t real_size)
{
    lane_plan p;
    p.isa = best_isa();
    if (q <= 0)
        return p;
    for (int b = max_bytes(p.isa); b >= 16; b /= 2) {
        const int lanes = b / int(real_size);
        if (q % lanes == 0) {
            // at least two chains per row where q has them (the horizontal
            // steps' latency is what a row waits on): q of one wide vector
            // runs as two of half the width
            if (b > 16 && q == lanes)
                continue;
            p.bytes = b;
            p.groups = q % (2 * lanes) == 0 ? 2 : 1;
            return p;
        }
    }
    return p;
}

#if defined(__GNUC__)

namespace {

template <typename real, int W>
struct lane_vec {
    typedef real type __attribute__((vector_size(sizeof(real) * W)));
};

template <typename V, typename real>
__attribute__((always_inline)) inline V load(const real* p)
{
    V v;
    std::memcpy(&v, p, sizeof(V));
    return v;
}

template <typename V, typename real>
__attribute__((always_inline)) inline void store(real* p, V v)
{
    std::memcpy(p, &v, sizeof(V));
}

/*
 * Codewords off .. off + S - 1 (S = W G: G vectors of W lanes). A row is
 * Mn + 1 nodes of S values: node k at k S, and a zero past the last node
 * (the vertical neighbour of node Mn - 1). Nodes with c < 0 or c > avail
 * are zeros, as in corridor_lattice; every other node is model::lattice_cell,
 * with a zero for a neighbour outside the corridor or before column 0, and
 * row n is model::lattice_last_cell (eqn:F_lastrow). Row n is written to out
 * directly.
 */
template <typename real, int B, int G, bool SOFT>
__attribute__((always_inline)) inline void
lanes_pass(const lattice_shape<real>& s, const lattice_call<real>& c, int off)
{
    constexpr int W = B / int(sizeof(real));
    constexpr int S = W * G;
    using V = typename lane_vec<real, W>::type;
    const int n = s.n, q = s.q, dlo = s.dlo;
    const int Mn = s.dhi - dlo + 1;
    const real* const* const qsel = c.qsel;
    const long long avail = c.avail;
    const uint8_t* const y = c.y;
    const real* const yprob = c.yprob;
    real* const out = c.out;
    real* prev = c.scratch;
    real* cur = c.scratch + size_t(Mn + 1) * S;
    const V zero = V{};
    const V vdel = zero + s.w.del, vins = zero + s.w.ins;

    // Row 0: F(0, 0) = 1 at k0 = -dlo, then insertions only (model::lattice_row0).
    {
        const int k0 = -dlo;
        V v = zero;
        for (int k = 0; k <= Mn; ++k) {
            const long long c = (long long)dlo + k;
            if (k == k0)
                v = zero + real(1);
            else if (k > k0 && k < Mn && c <= avail)
                v = vins * v; // model::lattice_row0 for k > k0
            else
                v = zero;
#pragma GCC unroll 4
            for (int g = 0; g < G; ++g)
                store(prev + size_t(k) * S + g * W, v);
        }
    }

    for (int r = 1; r <= n; ++r) {
        const bool last = r == n;
        // the valid nodes: 0 <= c = r + dlo + k <= avail
        const long long base = (long long)r + dlo;
        const int klo = int(std::min<long long>(Mn, std::max<long long>(0, -base)));
        const int khi =
            int(std::max<long long>(-1, std::min<long long>(Mn - 1, avail - base)));
        // row n goes to out (node k at k q + off), the others to cur
        real* const dst = last ? out + off : cur;
        const size_t stride = last ? size_t(q) : size_t(S);
        for (int k = 0; k < klo; ++k) {
#pragma GCC unroll 4
            for (int g = 0; g < G; ++g)
                store(dst + size_t(k) * stride + g * W, zero);
        }
        V h[G]; // node k - 1 of this row (the horizontal neighbour)
#pragma GCC unroll 4
        for (int g = 0; g < G; ++g)
            h[g] = zero;
        int k = klo;
        if (k <= khi && base + k == 0) {
            // column 0: the vertical step only
#pragma GCC unroll 4
            for (int g = 0; g < G; ++g) {
                h[g] = vdel * load<V>(prev + size_t(k + 1) * S + g * W);
                store(dst + size_t(k) * stride + g * W, h[g]);
            }
            ++k;
        }
        const real* const qb[2] = { qsel[2 * (r - 1)] + off,
                                    qsel[2 * (r - 1) + 1] + off };
        V Q0[G], Q1[G];
#pragma GCC unroll 4
        for (int g = 0; g < G; ++g) {
            Q0[g] = SOFT ? load<V>(qb[0] + g * W) : zero;
            Q1[g] = SOFT ? load<V>(qb[1] + g * W) : zero;
        }
        for (; k <= khi; ++k) {
            const long long c = base + k; // >= 1 here
            const real* const qv = qb[SOFT ? 0 : y[c - 1]];
            const V w0 = zero + (SOFT ? yprob[2 * (c - 1)] : real(0));
            const V w1 = zero + (SOFT ? yprob[2 * (c - 1) + 1] : real(0));
            const real* const pk = prev + size_t(k) * S;
            real* const dk = dst + size_t(k) * stride;
#pragma GCC unroll 4
            for (int g = 0; g < G; ++g) {
                const V wd =
                    SOFT ? model::soft_diag(w0, w1, Q0[g], Q1[g]) : load<V>(qv + g * W);
                const V diag = load<V>(pk + g * W);
                const V vert = load<V>(pk + S + g * W);
                if (last) {
                    store(dk + g * W, model::lattice_last_cell(wd, diag, vdel, vert));
                } else {
                    h[g] = model::lattice_cell(wd, diag, vdel, vert, vins, h[g]);
                    store(dk + g * W, h[g]);
                }
            }
        }
        for (k = std::max(k, khi + 1); k < Mn; ++k) {
#pragma GCC unroll 4
            for (int g = 0; g < G; ++g)
                store(dst + size_t(k) * stride + g * W, zero);
        }
        if (!last) {
#pragma GCC unroll 4
            for (int g = 0; g < G; ++g)
                store(cur + size_t(Mn) * S + g * W, zero);
            std::swap(prev, cur);
        }
    }
    if (n == 0) {
        // no rows: row 0 is the output
        for (int k = 0; k < Mn; ++k)
            std::memcpy(out + size_t(k) * size_t(q) + size_t(off),
                        prev + size_t(k) * S,
                        sizeof(real) * S);
    }
}

template <typename real, int B, int G>
__attribute__((always_inline)) inline void lanes_all(const lattice_shape<real>& s,
                                                     const lattice_call<real>& c)
{
    constexpr int S = B / int(sizeof(real)) * G;
    for (int off = 0; off < s.q; off += S) {
        if (c.yprob)
            lanes_pass<real, B, G, true>(s, c, off);
        else
            lanes_pass<real, B, G, false>(s, c, off);
    }
}

template <typename real, int B>
__attribute__((always_inline)) inline void
lanes_groups(int groups, const lattice_shape<real>& s, const lattice_call<real>& c)
{
    if (groups == 4)
        lanes_all<real, B, 4>(s, c);
    else if (groups == 2)
        lanes_all<real, B, 2>(s, c);
    else
        lanes_all<real, B, 1>(s, c);
}

// One entry per instruction set and precision; `bytes` is at most the set's.
#define BSID_LANES_ENTRY(NAME, ATTR, real, MAXB)                                       \
    ATTR void NAME(                                                                    \
        const lane_plan& p, const lattice_shape<real>& s, const lattice_call<real>& c) \
    {                                                                                  \
        if (MAXB >= 64 && p.bytes == 64)                                               \
            lanes_groups<real, (MAXB >= 64 ? 64 : 16)>(p.groups, s, c);                \
        else if (MAXB >= 32 && p.bytes == 32)                                          \
            lanes_groups<real, (MAXB >= 32 ? 32 : 16)>(p.groups, s, c);                \
        else                                                                           \
            lanes_groups<real, 16>(p.groups, s, c);                                    \
    }

BSID_LANES_ENTRY(lanes_base_float, , float, 16)
BSID_LANES_ENTRY(lanes_base_double, , double, 16)
#if BSID_ISA_X86
BSID_LANES_ENTRY(lanes_v3_float, BSID_TARGET_V3, float, 32)
BSID_LANES_ENTRY(lanes_v3_double, BSID_TARGET_V3, double, 32)
BSID_LANES_ENTRY(lanes_v4_float, BSID_TARGET_V4, float, 64)
BSID_LANES_ENTRY(lanes_v4_double, BSID_TARGET_V4, double, 64)
#endif

template <typename real>
struct entries;
template <>
struct entries<float> {
    static constexpr auto base = &lanes_base_float;
#if BSID_ISA_X86
    static constexpr auto v3 = &lanes_v3_float;
    static constexpr auto v4 = &lanes_v4_float;
#endif
};
template <>
struct entries<double> {
    static constexpr auto base = &lanes_base_double;
#if BSID_ISA_X86
    static constexpr auto v3 = &lanes_v3_double;
    static constexpr auto v4 = &lanes_v4_double;
#endif
};

template <typename real>
void run_plan(const lane_plan& p,
              const lattice_shape<real>& s,
              const lattice_call<real>& c)
{
#if BSID_ISA_X86
    if (p.isa == isa::avx512) {
        entries<real>::v4(p, s, c);
        return;
    }
    if (p.isa == isa::avx2) {
        entries<real>::v3(p, s, c);
        return;
    }
#endif
    entries<real>::base(p, s, c);
}

} // namespace

#endif // __GNUC__

namespace {

// plan bytes 0: corridor_lattice itself
template <typename real>
void unplanned(const lattice_shape<real>& s, const lattice_call<real>& c)
{
    corridor_lattice<real>(
        s.w, s.n, s.q, c.qsel, c.y, c.yprob, c.avail, s.dlo, s.dhi, c.scratch, c.out);
}

} // namespace

template <typename real>
void corridor_lattice_lanes(const lattice_shape<real>& shape,
                            const lattice_call<real>& call)
{
    if (shape.letters != 2) {
        corridor_lattice_letters(shape, call);
        return;
    }
    const lane_plan p = plan_lanes(shape.q, sizeof(real));
#if defined(__GNUC__)
    if (p.bytes > 0) {
        run_plan<real>(p, shape, call);
        return;
    }
#endif
    unplanned(shape, call);
}

template <typename real>
void corridor_lattice_plan(const lane_plan& plan,
                           const lattice_shape<real>& shape,
                           const lattice_call<real>& call)
{
    const int q = shape.q;
    if (int(plan.isa) > int(best_isa())) {
        throw std::invalid_argument(
            detail::concat("corridor_lattice_plan: isa ",
                           int(plan.isa),
                           " is not available on this machine (best ",
                           int(best_isa()),
                           ")"));
    }
    if (plan.bytes == 0) {
        unplanned(shape, call);
        return;
    }
    if ((plan.bytes != 16 && plan.bytes != 32 && plan.bytes != 64) ||
        plan.bytes > max_bytes(plan.isa)) {
        throw std::invalid_argument(detail::concat("corridor_lattice_plan: bytes = ",
                                                   plan.bytes,
                                                   " is not 16, 32 or 64 "
                                                   "within the isa's vectors"));
    }
    if (plan.groups != 1 && plan.groups != 2 && plan.groups != 4) {
        throw std::invalid_argument(detail::concat(
            "corridor_lattice_plan: groups = ", plan.groups, " is not 1, 2 or 4"));
    }
    const int per_pass = plan.bytes / int(sizeof(real)) * plan.groups;
    if (q <= 0 || q % per_pass != 0) {
        throw std::invalid_argument(detail::concat("corridor_lattice_plan: q = ",
                                                   q,
                                                   " is not a multiple of ",
                                                   per_pass,
                                                   " (lanes times groups)"));
    }
#if defined(__GNUC__)
    run_plan<real>(plan, shape, call);
#endif
}

#define BSID_LANES_INSTANTIATE(real)                                       \
    template void corridor_lattice_lanes<real>(const lattice_shape<real>&, \
                                               const lattice_call<real>&); \
    template void corridor_lattice_plan<real>(                             \
        const lane_plan&, const lattice_shape<real>&, const lattice_call<real>&);

BSID_LANES_INSTANTIATE(float)
BSID_LANES_INSTANTIATE(double)

} // namespace cpu
} // namespace bsid
