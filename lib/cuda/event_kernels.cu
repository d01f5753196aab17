/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The E-step of channel estimation on the GPU (frame_view::events and
// item_posteriors, docs/design.md section 3, "Channel estimation"): the expected channel
// events of each frame that asks for them, as edge posteriors of the codewords' lattices
// weighted by the decoder's final alpha and beta. The per-codeword math is
// model::codeword_events (event_counts.h), the CPU backend's own (map_decoder_cpu.cc,
// index_events), run here with one lane per thread.
//
// These kernels run only for batches in which some frame asks for events,
// after alpha and beta are final (d_alpha and d_beta keep all N + 1 indices
// of every frame in both storage modes):
//  - event_items_kernel: every item's probabilities w(0) .. w(A - 1) in double
//    (A = 2 for bits);
//  - events_kernel: one block per (frame, i) at a time (a grid-stride loop),
//    one thread per (a, D) of it (a loop when M_tau q exceeds the block). Each
//    thread runs codeword_events for its start state and codeword, weighted
//    by alpha_i(a) P(D) and beta_{i+1}; the block sums the return values into
//    lambda_i (in a fixed order) and the events likewise (and, when a frame
//    asks, each thread's A x A substitution counts, for A <=
//    events_max_pairs_alphabet), and stores them divided by lambda_i per
//    (frame, i). For a frame that asks for item
//    posteriors, one thread per start state a instead, its codewords in turn:
//    it gathers its state's item posteriors in its own workspace, the block
//    adds them into its sums (shared memory) in rounds of states at least
//    n + M_n apart (whose items do not overlap), and adds its sums divided by
//    lambda_i into the frame's items (this mapping balances the work less
//    well: the live states are a narrow band; docs/benchmarks.md). An item is read by up
//    to about (M_tau + M_n) / n + 1 indices, so batches that ask for item
//    posteriors run the kernel once per class of indices i mod K (K indices
//    apart do not share an item): every sum is made in the same order
//    whatever the schedule, the batch or the device (no atomics);
//  - counts_kernel, instead of events_kernel where no frame of the batch asks
//    for item posteriors or substitution counts and M_n <= 32: the counts by
//    a forward pass alone (event_counts.h, model::counts_cell), one warp per
//    (frame, i), one lane per (a, D) of its live states, each lane's row in
//    registers (below);
//  - events_sum_kernel: each frame's events, summed over i in order (so
//    that they do not depend on the schedule).

#include "cuda_check.h"
#include "event_kernels.h"
#include "lattice_kernels.cuh"
#include <gnuradio/bsid/core/estimation/event_counts.h>
#include <gnuradio/bsid/core/inner/model.h>
#include <algorithm>

namespace bsid {
namespace cuda {

namespace {

constexpr int ev_max_block = 128;
constexpr int ev_red = 5 * 32; // the block reductions' shared doubles

// The item callback of codeword_events: item c (from the state's start) was
// transmitted and received as b with posterior v, gathered in the thread's
// buffer of A (n + M_n) values (c < n + M_n - 1).
struct gather_items {
    double* buf; // null: the frame does not ask for item posteriors
    int A;
    __host__ __device__ void operator()(long long c, int b, double v) const
    {
        if (buf)
            buf[A * c + b] += v;
    }
};

// The substitution counts a thread keeps (A^2, or none)
__host__ __device__ inline int pair_slots(int A, bool pairs)
{
    return pairs && A <= events_max_pairs_alphabet ? A * A : 0;
}

// The indices K apart whose blocks' items never overlap: a block's items
// span n + M_tau + M_n positions from n i + m_tau^-.
int index_classes(int n, int Mt, int Mn) { return (n + Mt + Mn + n - 1) / n; }

// Sums five values per thread over the block, in a fixed order; every thread
// gets the sums. blockDim: a multiple of 32, at most 1024.
__device__ void block_sum5(double v[5], double* red)
{
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int nwarps = int(blockDim.x) >> 5;
#pragma unroll
    for (int k = 0; k < 5; ++k)
        for (int o = 16; o > 0; o >>= 1)
            v[k] += __shfl_xor_sync(0xffffffffu, v[k], o);
    __syncthreads(); // the previous readers are done with red
    if (lane == 0) {
#pragma unroll
        for (int k = 0; k < 5; ++k)
            red[k * 32 + warp] = v[k];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 5; ++k) {
        double s = 0;
        for (int w = 0; w < nwarps; ++w)
            s += red[k * 32 + w];
        v[k] = s;
    }
}

// One (frame, i) as a kernel's threads see it (both kernels)
struct index_at {
    const double* alpha_i; // Mt
    const double* beta_i;  // Mt
    const double* beta_n;  // Mt: beta_{i+1}
    const double* prior;   // q, or null (uniform)
    const double* yprob;   // the frame's items, A each
    const uint32_t* book;  // q codewords
    long long first, rho;  // the index's first item n i + m_tau^-; the frame's items
};

__device__ index_at index_of(const event_params& p, int f, int i)
{
    index_at x;
    x.alpha_i = p.alpha + ((long long)f * (p.N + 1) + i) * p.Mt;
    x.beta_i = p.beta + ((long long)f * (p.N + 1) + i) * p.Mt;
    x.beta_n = x.beta_i + p.Mt;
    x.prior = p.prior_exact && p.has_prior[f]
                  ? p.prior_exact + ((long long)f * p.N + i) * p.q
                  : nullptr;
    x.yprob = p.yprob + (long long)p.A * p.offset[f];
    x.book = p.words + (long long)(i % p.P) * p.q;
    x.first = (long long)p.n * i + p.mtlo;
    x.rho = p.rho[f];
    return x;
}

// Start state a's end weight k: beta_{i+1} of the state its codewords reach
__device__ double end_weight(const event_params& p, const index_at& x, int a, int k)
{
    const int b = a + p.dlo + k;
    return b >= 0 && b < p.Mt ? x.beta_n[b] : 0.0;
}

// Whether start state a adds something (as the CPU's live states): a path
// reaches it, it lies inside the frame, its share alpha_i(a) beta_i(a) of the
// index's weight is not below negligible (1e-17 of the sum: its edges move
// no count by more than that share, map_decoder_cpu.cc, index_events), and
// an end weight is not 0. endw: null, or M_n values that receive the end
// weights of a live state.
__device__ bool state_live(
    const event_params& p, const index_at& x, int a, double negligible, double* endw)
{
    const long long start = x.first + a;
    if (a >= p.Mt || x.alpha_i[a] == 0.0 || start < 0 || start > x.rho ||
        !(x.alpha_i[a] * x.beta_i[a] >= negligible))
        return false;
    bool any = false;
    for (int k = 0; k < p.Mn; ++k) {
        const double e = end_weight(p, x, a, k);
        if (!endw && e != 0.0)
            return true;
        if (endw)
            endw[k] = e;
        any = any || e != 0.0;
    }
    return any;
}

__global__ void event_items_kernel(
    const uint8_t* bits, const double* llr, double* out, long long total, int A)
{
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total;
         t += (long long)gridDim.x * blockDim.x) {
        if (A > 2) {
            // letters: their probabilities as given, or one-hot
            for (int y = 0; y < A; ++y)
                out[A * t + y] = llr ? llr[A * t + y] : (int(bits[t]) == y ? 1.0 : 0.0);
            continue;
        }
        double w0, w1;
        if (llr) {
            model::llr_probabilities(llr[t], w0, w1);
        } else {
            w1 = bits[t] ? 1.0 : 0.0;
            w0 = 1.0 - w1;
        }
        out[2 * t] = w0;
        out[2 * t + 1] = w1;
    }
}

__global__ void events_kernel(event_params p)
{
    extern __shared__ double sh[];
    double* red = sh;
    // the block's item posteriors of one (frame, i): item first + j / A
    // received as j % A, before dividing by lambda_i
    double* acc =
        p.acc_global ? p.acc_global + (long long)blockIdx.x * p.acc : sh + ev_red;
    const int n = p.n, q = p.q, Mt = p.Mt, Mn = p.Mn, dlo = p.dlo, A = p.A;
    const int npairs = pair_slots(A, p.index_pairs != nullptr);
    // this thread's workspace: F, B, the end weights, the diagonal weights,
    // its item posteriors, its substitution counts and the codeword's
    // letters (event_params::stride)
    double* Fw =
        p.scratch + ((long long)blockIdx.x * blockDim.x + threadIdx.x) * p.stride;
    double* Bw = Fw + (long long)(n + 1) * Mn;
    double* endw = Bw + 2 * Mn;
    double* qw = endw + Mn;
    const int reach = n + Mn; // items a state's codewords can read
    double* ibuf = qw + A * n;
    double* pw = ibuf + A * reach;
    uint8_t* letters = reinterpret_cast<uint8_t*>(pw + npairs);
    // this launch's indices: i = cls, cls + classes, ...
    const int per_frame = (p.N - p.cls + p.classes - 1) / p.classes;
    const long long work = (long long)p.Fe * per_frame;
    for (long long w = blockIdx.x; w < work; w += gridDim.x) {
        const int fe = int(w / per_frame);
        const int i = p.cls + p.classes * int(w - (long long)fe * per_frame);
        const int f = p.frames[fe];
        if (p.status[f] != st_ok)
            continue; // the whole block
        const bool items = p.want_items[fe] != 0;
        if (items) {
            for (int k = threadIdx.x; k < p.acc; k += blockDim.x)
                acc[k] = 0.0;
            __syncthreads();
        }
        const index_at x = index_of(p, f, i);
        // a start state whose share of the index's weight is negligible is
        // skipped (state_live)
        double share[5] = { 0, 0, 0, 0, 0 };
        for (int a = threadIdx.x; a < Mt; a += blockDim.x)
            share[0] += x.alpha_i[a] * x.beta_i[a];
        block_sum5(share, red);
        const double negligible = 1e-17 * share[0];
        event_counts ev;
        double lambda = 0;
        for (int k = 0; k < npairs; ++k)
            pw[k] = 0.0;
        // state a's end weights into endw; false where it adds nothing
        auto state_ends = [&](int a) { return state_live(p, x, a, negligible, endw); };
        // codeword D from state a (endw set): its events into ev, its items
        // into buf (or none), its weight into lambda
        auto pair_events = [&](int a, int D, double* buf) {
            const double scale = x.alpha_i[a] * (x.prior ? x.prior[D] : 1.0 / q);
            if (scale == 0.0)
                return; // a zero prior: nothing to add
            const long long start = x.first + a;
            const uint32_t word = x.book[D];
            if (A == 2) {
                for (int r = 0; r < n; ++r) {
                    const unsigned xr = (word >> (n - 1 - r)) & 1u;
                    letters[r] = uint8_t(xr);
                    qw[2 * r] = xr == 0u ? p.match : p.mismatch;
                    qw[2 * r + 1] = xr == 1u ? p.match : p.mismatch;
                }
            } else {
                // the word's base-A digits, most significant first
                uint32_t w = word;
                for (int r = n - 1; r >= 0; --r) {
                    const unsigned xr = w % unsigned(A);
                    w /= unsigned(A);
                    letters[r] = uint8_t(xr);
                    for (int y = 0; y < A; ++y)
                        qw[A * r + y] = p.lw[int(xr) * A + y];
                }
            }
            lambda += model::codeword_events(n,
                                             dlo,
                                             Mn,
                                             x.rho - start,
                                             p.ins,
                                             p.del,
                                             1,
                                             A,
                                             qw,
                                             letters,
                                             x.yprob + (long long)A * start,
                                             endw,
                                             &scale,
                                             Fw,
                                             Bw,
                                             ev,
                                             gather_items{ buf, A },
                                             npairs ? pw : nullptr);
        };
        if (!items) {
            // one thread per (a, D) (the live states' pairs spread over the block)
            const long long pairs = (long long)Mt * q;
            for (long long t = threadIdx.x; t < pairs; t += blockDim.x) {
                const int a = int(t / q), D = int(t - (long long)a * q);
                if (state_ends(a))
                    pair_events(a, D, nullptr);
            }
        } else {
            // one thread per state a, its codewords in turn, its items in its
            // own buffer; states reach apart then add at once (their items do
            // not overlap), so that each item's sum has one order
            for (int a0 = 0; a0 < Mt; a0 += int(blockDim.x)) {
                const int a = a0 + int(threadIdx.x);
                const bool live = state_ends(a);
                for (int k = 0; k < A * reach; ++k)
                    ibuf[k] = 0.0;
                for (int D = 0; live && D < q; ++D)
                    pair_events(a, D, ibuf);
                for (int round = 0; round < reach; ++round) {
                    __syncthreads();
                    if (live && a % reach == round) {
                        for (int k = 0; k < A * reach; ++k)
                            acc[A * a + k] += ibuf[k];
                    }
                }
            }
        }
        double s[5] = { lambda, ev.ins, ev.del, ev.trans, ev.subst };
        block_sum5(s, red); // its barriers also complete acc
        double inv = 0;
        if (!model::normalizer(s[0], inv))
            inv = 0; // not reached: the backward pass checked this index
        if (threadIdx.x == 0) {
            double* out = p.index_events + ((long long)fe * p.N + i) * 4;
            for (int k = 0; k < 4; ++k)
                out[k] = s[k + 1] * inv;
        }
        // the substitution counts, five at a time, each summed in a fixed order
        for (int k0 = 0; k0 < npairs; k0 += 5) {
            double v[5];
            for (int k = 0; k < 5; ++k)
                v[k] = k0 + k < npairs ? pw[k0 + k] : 0.0;
            block_sum5(v, red);
            if (threadIdx.x == 0) {
                double* out = p.index_pairs + ((long long)fe * p.N + i) * npairs;
                for (int k = 0; k < 5 && k0 + k < npairs; ++k)
                    out[k0 + k] = v[k] * inv;
            }
        }
        if (items) {
            // no other block of this launch touches these items (index classes)
            const long long to =
                (long long)A * (p.offset[f] + x.first); // item first (may be < 0)
            for (int k = threadIdx.x; k < p.acc; k += blockDim.x) {
                const double v = acc[k];
                if (v != 0.0 && inv != 0.0)
                    p.items[to + k] += v * inv;
            }
            __syncthreads(); // acc is read before the next (frame, i) clears it
        }
    }
}

__global__ void events_sum_kernel(event_params p)
{
    // per frame its 4 events, then its substitution counts (if any)
    const int per = 4 + pair_slots(p.A, p.index_pairs != nullptr);
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= per * p.Fe)
        return;
    const int fe = t / per, k = t % per;
    if (p.status[p.frames[fe]] != st_ok)
        return; // no events (the host writes zeros)
    const int m = k < 4 ? 4 : per - 4;
    const double* v = k < 4 ? p.index_events + (long long)fe * p.N * 4 + k
                            : p.index_pairs + (long long)fe * p.N * m + (k - 4);
    double s = 0;
    for (int i = 0; i < p.N; ++i)
        s += v[(long long)i * m];
    if (k < 4)
        p.events[fe * 4 + k] = s;
    else
        p.pairs[(long long)fe * m + (k - 4)] = s;
}

// ---- The counts by a forward pass (event_counts.h, model::counts_cell) ----
//
// Where no frame of the batch asks for item posteriors or substitution
// counts: one warp per (frame, i), one lane per (a, D) of its live states.
// The warp lists its live states (those that add something: as
// state_ends above) 32 at a time, in order, by a ballot, and its lanes take
// their pairs in turn; so no lane waits on a state outside the narrow band
// that carries the index's weight. A lane runs its codeword's counts with
// the row in registers (MN nodes, at least M_n), one multiply-add chain per
// node, and no workspace in memory. Every sum has a fixed order: each lane
// adds its pairs in turn, the warp's butterfly adds the lanes.

constexpr int cn_block = 128; // four warps, one (frame, i) each at a time

// Sums v over the warp; every lane gets the same sum (the butterfly's order
// is fixed)
__device__ double warp_sum(double v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// The counts of codeword D from start state a (the CPU's state_counts for
// one lane), scaled by alpha_i(a) P(D), added to ev; returns its weight.
template <int MN>
__device__ double
pair_counts(const event_params& p, const index_at& x, int a, int D, event_counts& ev)
{
    using node = model::count_node<double>;
    const double scale = x.alpha_i[a] * (x.prior ? x.prior[D] : 1.0 / p.q);
    if (scale == 0.0)
        return 0.0; // a zero prior: nothing to add
    const int n = p.n, Mn = p.Mn, dlo = p.dlo, A = p.A, k0 = -dlo;
    const long long start = x.first + a, avail = x.rho - start;
    const double* yp = x.yprob + (long long)A * start; // item c at yp + A c
    const uint32_t word = x.book[D];
    // row 0: F(0, k0) = 1, insertions after it; nodes past M_n stay 0
    node row[MN];
#pragma unroll
    for (int k = 0; k < MN; ++k)
        row[k] = node{ k == k0 ? 1.0 : 0.0, 0.0, 0.0 };
#pragma unroll
    for (int k = 1; k < MN; ++k) {
        if (k > k0 && k < Mn && k - k0 <= avail)
            row[k].F = p.ins * row[k - 1].F;
    }
    // the codeword's base-A digits (A > 2), most significant first
    uint32_t div = 1;
    for (int r = 1; A > 2 && r < n; ++r)
        div *= uint32_t(A);
    for (int r = 1; r <= n; ++r) {
        unsigned xr;
        if (A == 2) {
            xr = (word >> (n - r)) & 1u;
        } else {
            xr = (word / div) % unsigned(A);
            div /= uint32_t(A);
        }
        const double insr = r < n ? p.ins : 0.0;
        node h{ 0.0, 0.0, 0.0 }; // node k - 1 of this row
#pragma unroll
        for (int k = 0; k < MN; ++k) {
            if (k < Mn) {
                const long long c = (long long)r + dlo + k;
                node o{ 0.0, 0.0, 0.0 };
                if (c >= 0 && c <= avail) {
                    // the diagonal weight, and its part where another letter
                    // was received (none before the first item)
                    double dw = 0.0, sw = 0.0;
                    if (c >= 1) {
                        const double* w = yp + (long long)A * (c - 1);
                        if (A == 2) {
                            dw = xr ? model::soft_diag(w[0], w[1], p.mismatch, p.match)
                                    : model::soft_diag(w[0], w[1], p.match, p.mismatch);
                            sw = w[xr ? 0 : 1] * p.mismatch;
                        } else {
                            for (int y = 0; y < A; ++y) {
                                const double v = w[y] * p.lw[int(xr) * A + y];
                                dw += v;
                                sw += y != int(xr) ? v : 0.0;
                            }
                        }
                    }
                    const node v = k + 1 < MN ? row[k + 1] : node{ 0.0, 0.0, 0.0 };
                    o = model::counts_cell(dw, sw, p.del, insr, row[k], v, h);
                }
                row[k] = o;
                h = o;
            }
        }
    }
    model::count_sums s;
#pragma unroll
    for (int k = 0; k < MN; ++k) {
        if (k < Mn) {
            const double e = end_weight(p, x, a, k);
            if (e != 0.0)
                s.add(k - k0, e, row[k].F, row[k].D, row[k].S);
        }
    }
    ev += model::counts_events(n, p.del, s, scale);
    return s.t * scale;
}

template <int MN>
__global__ void __launch_bounds__(cn_block) counts_kernel(event_params p)
{
    __shared__ int live_all[cn_block]; // each warp's live states, 32 at a time
    const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) >> 5;
    int* live = live_all + 32 * warp;
    const int warps = cn_block / 32;
    const long long work = (long long)p.Fe * p.N;
    for (long long w = (long long)blockIdx.x * warps + warp; w < work;
         w += (long long)gridDim.x * warps) {
        const int fe = int(w / p.N), i = int(w - (long long)fe * p.N);
        const int f = p.frames[fe];
        if (p.status[f] != st_ok)
            continue; // the whole warp
        const index_at x = index_of(p, f, i);
        // a start state whose share of the index's weight is negligible is
        // skipped (state_live)
        double share = 0;
        for (int a = lane; a < p.Mt; a += 32)
            share += x.alpha_i[a] * x.beta_i[a];
        const double negligible = 1e-17 * warp_sum(share);
        event_counts ev;
        double lambda = 0;
        for (int a0 = 0; a0 < p.Mt; a0 += 32) {
            const bool on = state_live(p, x, a0 + lane, negligible, nullptr);
            const unsigned m = __ballot_sync(0xffffffffu, on);
            if (on)
                live[__popc(m & ((1u << lane) - 1u))] = a0 + lane;
            __syncwarp();
            const int pairs = __popc(m) * p.q;
            for (int t = lane; t < pairs; t += 32)
                lambda += pair_counts<MN>(p, x, live[t / p.q], t % p.q, ev);
            __syncwarp(); // live is read before the next 32 states
        }
        const double s[5] = { warp_sum(lambda),
                              warp_sum(ev.ins),
                              warp_sum(ev.del),
                              warp_sum(ev.trans),
                              warp_sum(ev.subst) };
        double inv = 0;
        if (!model::normalizer(s[0], inv))
            inv = 0; // not reached: the backward pass checked this index
        if (lane == 0) {
            double* out = p.index_events + ((long long)fe * p.N + i) * 4;
            for (int k = 0; k < 4; ++k)
                out[k] = s[k + 1] * inv;
        }
    }
}

// The counts kernel for rows of at most MN nodes, or null past 32
typedef void (*counts_fn)(event_params);
counts_fn counts_for(int Mn)
{
    return Mn <= 8    ? counts_kernel<8>
           : Mn <= 16 ? counts_kernel<16>
           : Mn <= 32 ? counts_kernel<32>
                      : nullptr;
}

} // namespace

event_plan plan_events(int n, int q, int Mt, int Mn, int A, const cudaDeviceProp& prop)
{
    event_plan e;
    // F, B, end weights; the diagonal weights, the item posteriors and the
    // substitution counts; the letters (bytes)
    e.stride = size_t(n + 1) * size_t(Mn) + 3 * size_t(Mn) + size_t(A) * size_t(n) +
               size_t(A) * size_t(n + Mn) + size_t(pair_slots(A, true)) +
               (size_t(n) + 7) / 8;
    const long long pairs = (long long)Mt * q;
    e.block = int(std::min<long long>(ev_max_block, (pairs + 31) / 32 * 32));
    e.acc = A * (n + Mt + Mn);
    const size_t shared = sizeof(double) * (size_t(ev_red) + size_t(e.acc));
    size_t dyn = sizeof(double) * size_t(ev_red);
    if (shared <= size_t(48) << 10) {
        e.acc_shared = true;
        dyn = shared;
    } else if (shared <= prop.sharedMemPerBlockOptin) {
        BSID_CUDA(cudaFuncSetAttribute(
            events_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
        e.acc_shared = true;
        dyn = shared;
    }
    e.shared_bytes = dyn;
    int per_sm = 0;
    BSID_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, events_kernel, e.block, dyn));
    // the threads' workspaces: at most 64 MiB of them
    const size_t per_block = sizeof(double) * (size_t(e.block) * e.stride +
                                               (e.acc_shared ? 0 : size_t(e.acc)));
    const size_t most = std::max<size_t>(1, (size_t(64) << 20) / per_block);
    e.grid = int(std::max<size_t>(
        1,
        std::min<size_t>(size_t(std::max(1, per_sm)) * size_t(prop.multiProcessorCount),
                         most)));
    if (const counts_fn k = counts_for(Mn)) {
        int cn_per_sm = 0;
        BSID_CUDA(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cn_per_sm, k, cn_block, 0));
        e.counts_grid = std::max(1, cn_per_sm) * prop.multiProcessorCount;
    }
    return e;
}

size_t event_plan::scratch_doubles() const
{
    return size_t(grid) * size_t(block) * stride + (acc_shared ? 0 : size_t(grid) * acc);
}

void launch_event_items(
    const uint8_t* bits, const double* llr, double* out, long long total, int A)
{
    if (total <= 0)
        return;
    const unsigned grid = unsigned(std::min<long long>((total + 255) / 256, 65535));
    event_items_kernel<<<grid, 256>>>(bits, llr, out, total, A);
    BSID_CUDA(cudaGetLastError());
}

void launch_events(const event_plan& e, event_params p)
{
    if (p.Fe <= 0 || p.N <= 0)
        return;
    const counts_fn counts = counts_for(p.Mn);
    if (counts && e.counts_grid > 0 && p.items == nullptr && p.index_pairs == nullptr) {
        // the counts by a forward pass: one warp per (frame, i)
        const long long warps = (long long)p.Fe * p.N;
        const long long blocks = (warps + cn_block / 32 - 1) / (cn_block / 32);
        counts<<<unsigned(std::min<long long>(e.counts_grid, blocks)), cn_block>>>(p);
        BSID_CUDA(cudaGetLastError());
    } else {
        p.stride = (long long)e.stride;
        p.acc = e.acc;
        if (e.acc_shared)
            p.acc_global = nullptr;
        // item posteriors: one launch per class of indices, in order (see above)
        p.classes = p.items ? std::min(p.N, index_classes(p.n, p.Mt, p.Mn)) : 1;
        for (p.cls = 0; p.cls < p.classes; ++p.cls) {
            const long long work =
                (long long)p.Fe * ((p.N - p.cls + p.classes - 1) / p.classes);
            const unsigned grid = unsigned(std::min<long long>(e.grid, work));
            events_kernel<<<grid, e.block, e.shared_bytes>>>(p);
            BSID_CUDA(cudaGetLastError());
        }
    }
    const int per = 4 + pair_slots(p.A, p.index_pairs != nullptr);
    events_sum_kernel<<<unsigned((per * p.Fe + 127) / 128), 128>>>(p);
    BSID_CUDA(cudaGetLastError());
}

} // namespace cuda
} // namespace bsid
