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

#include "codeword_lattice.cuh"
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
 * one after another (codeword_lattice), each lattice row in place in shared
 * memory (column k of thread t at k blockDim + t).
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
    const long long first = p.offset[f] + start;
    const int per_item = LETTERS ? p.A : 2;
    const uint8_t* y = p.bits ? p.bits + first : nullptr;
    const real* sw = p.soft ? p.soft + per_item * first : nullptr;
    const uint32_t* words = p.words + (long long)(i % p.P) * p.q;
    const uint32_t top = first_place(p.n, p.A, LETTERS);
    for (int D = 0; D < p.q; ++D) {
        codeword_lattice<real, LETTERS>(
            row, stride, words[D], top, p, p.w, y, sw, rho - start);
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
 * One pass of read r (axis x) at index i, a thread per (frame, joint state
 * s, D), along the read's axis (here: s's drift on it):
 *  - forward: out(s, D) = sum_e R_r(a = here - dlo - e, e, D) in(s with a, D)
 *  - backward: out(s, D) = sum_e R_r(here, e, D) in(s with here + dlo + e, D)
 * For the first read `edge` is the recursion's vector (no D), frame f's at
 * edge + f edge_stride: alpha_i forward, beta_{i+1} backward; for the
 * others (edge null) `in` is the tensor of the pass before.
 */
template <typename real, bool FORWARD>
__global__ void joint_pass(joint_shape sh,
                           joint_axis x,
                           int i,
                           const real* R,
                           const double* edge,
                           long long edge_stride,
                           const double* in,
                           double* out)
{
    const joint_cell c(sh, (long long)blockIdx.x * blockDim.x + threadIdx.x);
    if (c.f >= sh.F)
        return;
    const int Mt = x.Mt, Mn = x.Mn, dlo = x.dlo;
    const long long st = x.stride;
    const int here = int((c.s / st) % Mt);
    const real* Rf = R + (long long)c.f * x.rstride + (long long)i * Mt * Mn * sh.q + c.D;
    double acc = 0;
    for (int e = 0; e < Mn; ++e) {
        const int there = FORWARD ? here - dlo - e : here + dlo + e;
        if (there < 0 || there >= Mt)
            continue;
        const long long src = c.s + (long long)(there - here) * st;
        const double v = edge ? edge[(long long)c.f * edge_stride + src]
                              : in[((long long)c.f * sh.S + src) * sh.q + c.D];
        const int a = FORWARD ? there : here;
        acc += double(Rf[((long long)a * Mn + e) * sh.q]) * v;
    }
    out[c.t] = acc;
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
