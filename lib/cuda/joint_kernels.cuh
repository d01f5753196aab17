/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The joint decoder's kernels (docs/reads.md, "Joint decoding"; the CPU's
// reads/joint_decoder_cpu.cc is the same recursion): each read's gamma
// blocks, then per index one pass per read over the joint states, each
// applying that read's R along its axis to a tensor with a trailing D, and a
// block per frame that sums over D and normalizes. The recursion is in
// double; the lattices in the decoder's precision.

#ifndef INCLUDED_BSID_CUDA_JOINT_KERNELS_CUH
#define INCLUDED_BSID_CUDA_JOINT_KERNELS_CUH

#include <gnuradio/bsid/core/inner/model.h>
#include <cstdint>

namespace bsid {
namespace cuda {

//! One read's lattices: its channel's weights and limits, the frames' items.
template <typename real>
struct joint_gamma_params {
    lattice_weights<real> w{};
    const real* lw = nullptr; //!< A x A: A P(y | x) (letters only)
    int A = 2;
    int n = 0, q = 0, P = 0, N = 0;
    const uint32_t* words = nullptr; //!< P q codewords
    int dlo = 0, Mn = 0, Mt = 0, mtlo = 0;
    int F = 0;
    const uint8_t* bits = nullptr;     //!< hard items, or null
    const real* soft = nullptr;        //!< 2 (bits) or A probabilities per item, or null
    const long long* offset = nullptr; //!< each frame's first item
    const long long* rho = nullptr;    //!< each frame's items
    real* out = nullptr;               //!< F N Mt Mn q: R(f, i, a, e, D)
};

/*!
 * Read r's gamma blocks: a thread per (frame, index, state), the codewords
 * one after another, each lattice row in place in shared memory (column k of
 * thread t at k blockDim + t): row 0 from model::lattice_row0, the cells
 * from model::lattice_cell (row n without its horizontal term), the
 * diagonal weight by the channel model (lattice_weights::diag, diag_soft, or
 * over letters the mixture of A P(y | x) by the item's probabilities).
 * States whose segment starts outside the read get zero blocks.
 */
template <typename real, bool LETTERS>
__global__ void joint_gamma_kernel(joint_gamma_params<real> p)
{
    extern __shared__ __align__(16) unsigned char joint_rows[];
    real* row = reinterpret_cast<real*>(joint_rows) + threadIdx.x;
    const long long stride = blockDim.x;
    const long long items = (long long)p.F * p.N * p.Mt;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= items)
        return;
    const int a = int(tid % p.Mt);
    const long long fi = tid / p.Mt;
    const int i = int(fi % p.N);
    const int f = int(fi / p.N);
    real* out = p.out + tid * (long long)p.Mn * p.q;
    const long long start = (long long)p.n * i + p.mtlo + a;
    const long long rho = p.rho[f];
    if (start < 0 || start > rho) {
        for (int t = 0; t < p.Mn * p.q; ++t)
            out[t] = real(0);
        return;
    }
    const long long avail = rho - start;
    const long long first = p.offset[f] + start;
    const uint8_t* y = p.bits ? p.bits + first : nullptr;
    const int per_item = LETTERS ? p.A : 2;
    const real* sw = p.soft ? p.soft + per_item * first : nullptr;
    const uint32_t* words = p.words + (long long)(i % p.P) * p.q;
    const int k0 = -p.dlo;
    uint32_t top = 1; // letters: the place value of a codeword's first letter
    if (LETTERS)
        for (int r = 1; r < p.n; ++r)
            top *= uint32_t(p.A);
    for (int D = 0; D < p.q; ++D) {
        const uint32_t word = words[D];
        for (int k = 0; k < p.Mn; ++k) {
            const bool in = k <= k0 || (long long)(k + p.dlo) <= avail;
            const real left = k > 0 ? row[(long long)(k - 1) * stride] : real(0);
            row[(long long)k * stride] =
                in ? model::lattice_row0(k, k0, p.w.ins, left) : real(0);
        }
        uint32_t place = top;
        for (int r = 1; r <= p.n; ++r) {
            const real ins = r < p.n ? p.w.ins : real(0);
            const unsigned x =
                LETTERS ? (word / place) % uint32_t(p.A) : (word >> (p.n - r)) & 1u;
            place /= uint32_t(p.A);
            for (int k = 0; k < p.Mn; ++k) {
                const long long c = (long long)r + p.dlo + k;
                real* cell = row + (long long)k * stride;
                if (c < 0 || c > avail) {
                    *cell = real(0);
                    continue;
                }
                real wdiag = real(0);
                if (c >= 1) {
                    if (LETTERS) {
                        const real* lrow = p.lw + (long long)x * p.A;
                        if (sw) {
                            const real* pr = sw + (long long)p.A * (c - 1);
                            for (int l = 0; l < p.A; ++l)
                                wdiag += pr[l] * lrow[l];
                        } else {
                            wdiag = lrow[y[c - 1]];
                        }
                    } else if (sw) {
                        wdiag = p.w.diag_soft(x, sw[2 * (c - 1)], sw[2 * (c - 1) + 1]);
                    } else {
                        wdiag = p.w.diag(x, y[c - 1]);
                    }
                }
                const real diag = c >= 1 ? *cell : real(0);
                const real vert =
                    k + 1 < p.Mn ? row[(long long)(k + 1) * stride] : real(0);
                const real horz =
                    k >= 1 && c >= 1 ? row[(long long)(k - 1) * stride] : real(0);
                *cell = model::lattice_cell(wdiag, diag, p.w.del, vert, ins, horz);
            }
        }
        for (int e = 0; e < p.Mn; ++e)
            out[(long long)e * p.q + D] = row[(long long)e * stride];
    }
}

//! The joint state space of a group of frames (the same channels and limits).
struct joint_shape {
    int M = 0, q = 0, N = 0, F = 0;
    long long S = 0;
    int Mt[3] = { 1, 1, 1 }, Mn[3] = { 1, 1, 1 }, dlo[3] = { 0, 0, 0 };
    long long stride[3] = { 1, 1, 1 };
    long long rstride[3] = { 0, 0, 0 }; //!< read r's gamma values per frame: N Mt Mn q
};

//! Read r's axis of the joint state, passed to its pass as values.
struct joint_axis {
    int Mt = 1, Mn = 1, dlo = 0;
    long long stride = 1, rstride = 0;
};

inline joint_axis axis_of(const joint_shape& sh, int r)
{
    return { sh.Mt[r], sh.Mn[r], sh.dlo[r], sh.stride[r], sh.rstride[r] };
}

//! A pass's thread t: frame f, joint state s, codeword D (f >= F: none).
struct joint_cell {
    long long t, s;
    int f, D;
    __device__ joint_cell(const joint_shape& sh, long long t_) : t(t_)
    {
        const long long per_frame = sh.S * sh.q;
        f = int(t / per_frame);
        const long long rem = t - (long long)f * per_frame;
        s = rem / sh.q;
        D = int(rem - s * sh.q);
    }
};

/*!
 * Forward pass of read r (axis x) at index i, a thread per (frame, state b,
 * D): out(b, D) = sum_e R_r(a_r = b_r - dlo - e, e, D) in(b with a_r, D);
 * for the first read the input is alpha_i (no D), for the others the tensor
 * of the pass before.
 */
template <typename real>
__global__ void joint_forward_pass(joint_shape sh,
                                   joint_axis x,
                                   bool first,
                                   int i,
                                   const real* R,
                                   const double* alpha,
                                   const double* in,
                                   double* out)
{
    const joint_cell c(sh, (long long)blockIdx.x * blockDim.x + threadIdx.x);
    if (c.f >= sh.F)
        return;
    const int f = c.f, D = c.D;
    const long long s = c.s, t = c.t;
    const int Mt = x.Mt, Mn = x.Mn, dlo = x.dlo;
    const long long st = x.stride;
    const int b = int((s / st) % Mt);
    const real* Rf = R + (long long)f * x.rstride + (long long)i * Mt * Mn * sh.q;
    double acc = 0;
    for (int e = 0; e < Mn; ++e) {
        const int a = b - dlo - e;
        if (a < 0 || a >= Mt)
            continue;
        const long long src = s + (long long)(a - b) * st;
        const double v = first ? alpha[((long long)f * (sh.N + 1) + i) * sh.S + src]
                               : in[((long long)f * sh.S + src) * sh.q + D];
        acc += double(Rf[((long long)a * Mn + e) * sh.q + D]) * v;
    }
    out[t] = acc;
}

/*!
 * Backward pass of read r (axis x) at index i, a thread per (frame, state
 * a, D): out(a, D) = sum_e R_r(a_r, e, D) in(a with b_r = a_r + dlo + e,
 * D); for the first read the input is beta_{i+1} (no D).
 */
template <typename real>
__global__ void joint_backward_pass(joint_shape sh,
                                    joint_axis x,
                                    bool first,
                                    int i,
                                    const real* R,
                                    const double* beta,
                                    const double* in,
                                    double* out)
{
    const joint_cell c(sh, (long long)blockIdx.x * blockDim.x + threadIdx.x);
    if (c.f >= sh.F)
        return;
    const int f = c.f, D = c.D;
    const long long s = c.s, t = c.t;
    const int Mt = x.Mt, Mn = x.Mn, dlo = x.dlo;
    const long long st = x.stride;
    const int a = int((s / st) % Mt);
    const real* Rb =
        R + (long long)f * x.rstride + ((long long)i * Mt + a) * Mn * sh.q + D;
    double acc = 0;
    for (int e = 0; e < Mn; ++e) {
        const int b = a + dlo + e;
        if (b < 0 || b >= Mt)
            continue;
        const long long src = s + (long long)(b - a) * st;
        const double v = first ? beta[(long long)f * sh.S + src]
                               : in[((long long)f * sh.S + src) * sh.q + D];
        acc += double(Rb[(long long)e * sh.q]) * v;
    }
    out[t] = acc;
}


//! Frame statuses of the joint kernels.
constexpr int joint_ok = 0, joint_impossible = 1;

// The block's sum of v (blockDim a power of two, at most 1024), in a fixed
// order; every thread gets it. sh: blockDim doubles.
__device__ __forceinline__ double joint_block_sum(double v, double* sh)
{
    sh[threadIdx.x] = v;
    __syncthreads();
    for (unsigned h = blockDim.x / 2; h > 0; h /= 2) {
        if (threadIdx.x < h)
            sh[threadIdx.x] += sh[threadIdx.x + h];
        __syncthreads();
    }
    const double s = sh[0];
    __syncthreads();
    return s;
}

/*!
 * The forward step's close, a block per frame: alpha_{i+1}(b) = sum_D P_i(D)
 * X(b, D) (1/q without priors), normalized; a frame whose sum vanishes is
 * impossible (and its alpha zero).
 */
__global__ void joint_forward_close(joint_shape sh,
                                    int i,
                                    const double* X,
                                    const double* priors,
                                    const uint8_t* has_prior,
                                    double* alpha,
                                    int* status)
{
    extern __shared__ double joint_red[];
    const int f = blockIdx.x;
    const double* P =
        priors && has_prior[f] ? priors + ((long long)f * sh.N + i) * sh.q : nullptr;
    double* next = alpha + ((long long)f * (sh.N + 1) + i + 1) * sh.S;
    const double* Xf = X + (long long)f * sh.S * sh.q;
    double part = 0;
    for (long long s = threadIdx.x; s < sh.S; s += blockDim.x) {
        const double* x = Xf + s * sh.q;
        double v = 0;
        if (P) {
            for (int D = 0; D < sh.q; ++D)
                v += P[D] * x[D];
        } else {
            for (int D = 0; D < sh.q; ++D)
                v += x[D];
            v *= 1.0 / sh.q;
        }
        next[s] = v;
        part += v;
    }
    const double sum = joint_block_sum(part, joint_red);
    double inv = 0;
    if (!model::normalizer(sum, inv)) {
        inv = 0;
        if (threadIdx.x == 0)
            status[f] = joint_impossible;
    }
    for (long long s = threadIdx.x; s < sh.S; s += blockDim.x)
        next[s] *= inv;
}

/*!
 * The backward step's close, a block per frame: beta_i(a) = sum_D P_i(D)
 * W(a, D) over the states alpha_i reaches, L_i(D) = sum_a alpha_i(a) W(a,
 * D), then the posteriors (L times the prior, or L alone for extrinsic
 * outputs) normalized into post, and beta_i normalized into beta.
 */
__global__ void joint_backward_close(joint_shape sh,
                                     int i,
                                     const double* W,
                                     const double* priors,
                                     const uint8_t* has_prior,
                                     const uint8_t* extrinsic,
                                     const double* alpha,
                                     double* beta,
                                     double* post,
                                     int* status)
{
    extern __shared__ double joint_red[];
    const int f = blockIdx.x;
    const double* P =
        priors && has_prior[f] ? priors + ((long long)f * sh.N + i) * sh.q : nullptr;
    const double* al = alpha + ((long long)f * (sh.N + 1) + i) * sh.S;
    const double* Wf = W + (long long)f * sh.S * sh.q;
    double* bf = beta + (long long)f * sh.S;
    double* out = post + ((long long)f * sh.N + i) * sh.q;
    double part = 0;
    for (long long s = threadIdx.x; s < sh.S; s += blockDim.x) {
        const double* w = Wf + s * sh.q;
        double v = 0;
        if (al[s] != 0.0) {
            if (P) {
                for (int D = 0; D < sh.q; ++D)
                    v += P[D] * w[D];
            } else {
                for (int D = 0; D < sh.q; ++D)
                    v += w[D];
                v *= 1.0 / sh.q;
            }
        }
        bf[s] = v;
        part += v;
    }
    const double bs = joint_block_sum(part, joint_red);
    double ls = 0;
    for (int D = 0; D < sh.q; ++D) {
        double l = 0;
        for (long long s = threadIdx.x; s < sh.S; s += blockDim.x)
            l += al[s] * Wf[s * sh.q + D];
        l = joint_block_sum(l, joint_red);
        if (P && !extrinsic[f])
            l *= P[D];
        if (threadIdx.x == 0)
            out[D] = l;
        ls += l;
    }
    double inv = 0, linv = 0;
    const bool fine = model::normalizer(bs, inv) && model::normalizer(ls, linv);
    if (!fine) {
        inv = 0;
        if (threadIdx.x == 0)
            status[f] = joint_impossible;
    }
    __syncthreads(); // (out written by thread 0)
    if (threadIdx.x == 0)
        for (int D = 0; D < sh.q; ++D)
            out[D] = fine ? out[D] / ls : 0.0;
    for (long long s = threadIdx.x; s < sh.S; s += blockDim.x)
        bf[s] *= inv;
}

/*!
 * The boundary conditions, a thread per frame: alpha_0 one-hot at the start
 * (every read at drift 0), beta_N one-hot at the frame's end (read r at
 * rho_r - tau); with `check`, a frame whose alpha_N misses its end is
 * impossible.
 */
__global__ void joint_bounds(joint_shape sh,
                             long long start,
                             const long long* end,
                             double* alpha,
                             double* beta,
                             int* status,
                             bool check)
{
    const int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= sh.F)
        return;
    if (check) {
        if (!(alpha[((long long)f * (sh.N + 1) + sh.N) * sh.S + end[f]] > 0))
            status[f] = joint_impossible;
        beta[(long long)f * sh.S + end[f]] = 1.0;
    } else {
        alpha[(long long)f * (sh.N + 1) * sh.S + start] = 1.0;
    }
}

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_JOINT_KERNELS_CUH */
