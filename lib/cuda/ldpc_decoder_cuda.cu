/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The CUDA backend of belief propagation over GF(q) (ldpc_decoder.h): a batch
 * of words decoded together, the flooding schedule as three kernels per
 * iteration (check nodes, variable nodes with the hard decisions, the
 * syndrome), each calling the same host/device functions as the CPU
 * (bp_math.h). Messages are in the decoder's precision; the input and the
 * outputs are double. A word whose decisions form a codeword stops: the
 * kernels skip it from the next iteration on. Per iteration, only one int per
 * word (its unsatisfied checks) comes back to the host.
 *
 * First version: one thread per (word, check) and per (word, variable), with
 * per-thread scratch in global memory (speed is issue work of its own).
 */

#include "cuda_check.h"
#include "device_buffer.h"
#include "format.h"
#include "ldpc_decoder_cuda.h"
#include "map_decoder_cuda.h" // cuda_device_available
#include <gnuradio/bsid/core/bp_math.h>
#include <algorithm>
#include <stdexcept>

namespace bsid {
namespace cuda {
namespace {

template <typename real>
struct bp_params {
    int W, n, q, M, E;
    int scratch_per_thread; // (2 d_max + 3) q
    long long threads;      // check-node threads (each with its scratch)
    const int32_t* row_start;
    const int32_t* col_start;
    const int32_t* col_entries;
    const int32_t* edge_col;
    const int32_t* perm;
    const int32_t* coef;
    const double* in;  // W n q
    real* v2c;         // W E q
    real* c2v;         // W E q
    real* post;        // W n q
    real* scratch;     // threads scratch_per_thread
    int32_t* dec;      // W n
    const int* active; // W
    int* unsat;        // W
};

template <typename real>
__global__ void init_kernel(bp_params<real> p)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long long)p.W * p.n)
        return;
    const int w = int(t / p.n), v = int(t % p.n);
    const double* in = p.in + (long long)w * p.n * p.q;
    bp::init_variable(
        v, p.q, in, p.col_start, p.col_entries, p.v2c + (long long)w * p.E * p.q);
    p.dec[t] = bp::decide(in + (long long)v * p.q, p.q);
}

// Check r of word w by a team (bp_math.h) whose scratch starts at `scratch`:
// fwd (d q), suffix ((d + 1) q), prefix and tmp (q each).
template <typename real, typename team_t>
__device__ void
check_one(const bp_params<real>& p, int w, int r, real* scratch, const team_t& team)
{
    const int e0 = p.row_start[r], d = p.row_start[r + 1] - e0;
    real* suffix = scratch + (long long)d * p.q;
    real* prefix = suffix + (long long)(d + 1) * p.q;
    real* tmp = prefix + p.q;
    const long long base = (long long)w * p.E * p.q;
    bp::check_node(e0,
                   d,
                   p.q,
                   p.v2c + base,
                   p.c2v + base,
                   p.perm,
                   p.coef,
                   scratch,
                   suffix,
                   prefix,
                   tmp,
                   team);
}

template <typename real>
__global__ void check_kernel(bp_params<real> p)
{
    const long long t0 = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t0 >= p.threads)
        return;
    real* s = p.scratch + t0 * p.scratch_per_thread;
    for (long long t = t0; t < (long long)p.W * p.M; t += p.threads) {
        const int w = int(t / p.M), r = int(t % p.M);
        if (!p.active[w])
            continue;
        check_one(p, w, r, s, bp::serial_team{});
    }
}

// A warp as a bp_math.h team: lanes 0 .. 31, reductions by shuffles.
struct warp_team {
    int l;
    __host__ __device__ int lane() const { return l; }
    __host__ __device__ int size() const { return 32; }
    __host__ __device__ void sync() const
    {
#ifdef __CUDA_ARCH__
        __syncwarp();
#endif
    }
    template <typename real>
    __host__ __device__ real max(real v) const
    {
#ifdef __CUDA_ARCH__
        for (int o = 16; o > 0; o >>= 1) {
            const real w = __shfl_xor_sync(0xffffffffu, v, o);
            v = w > v ? w : v;
        }
#endif
        return v;
    }
    template <typename real>
    __host__ __device__ real sum(real v) const
    {
#ifdef __CUDA_ARCH__
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_xor_sync(0xffffffffu, v, o);
#endif
        return v;
    }
};

// One warp per (word, check), its scratch in shared memory (per_warp values).
template <typename real>
__global__ void check_warp_kernel(bp_params<real> p, int per_warp)
{
    extern __shared__ double smem[]; // aligned for double
    const int wib = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
    const long long t = (long long)blockIdx.x * (blockDim.x / 32) + wib;
    if (t >= (long long)p.W * p.M)
        return; // the whole warp
    const int w = int(t / p.M), r = int(t % p.M);
    if (!p.active[w])
        return;
    check_one(p,
              w,
              r,
              reinterpret_cast<real*>(smem) + (long long)wib * per_warp,
              warp_team{ lane });
}

template <typename real>
__global__ void variable_kernel(bp_params<real> p)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long long)p.W * p.n)
        return;
    const int w = int(t / p.n), v = int(t % p.n);
    if (!p.active[w])
        return;
    const long long base = (long long)w * p.E * p.q;
    real* post = p.post + (long long)w * p.n * p.q;
    bp::variable_node(v,
                      p.q,
                      p.in + (long long)w * p.n * p.q,
                      p.col_start,
                      p.col_entries,
                      p.c2v + base,
                      p.v2c + base,
                      post);
    p.dec[t] = bp::decide(post + (long long)v * p.q, p.q);
}

template <typename real>
__global__ void syndrome_kernel(bp_params<real> p)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long long)p.W * p.M)
        return;
    const int w = int(t / p.M), r = int(t % p.M);
    if (!p.active[w])
        return;
    const int32_t* dec = p.dec + (long long)w * p.n;
    int s = 0;
    for (int e = p.row_start[r]; e < p.row_start[r + 1]; ++e)
        s ^= p.perm[p.coef[e] * p.q + dec[p.edge_col[e]]];
    if (s)
        atomicAdd(p.unsat + w, 1);
}

// outputs: normalized posterior and extrinsic in double; a word decided by its
// input alone (iterations 0) has the input as posterior and a uniform extrinsic
template <typename real>
__global__ void output_kernel(bp_params<real> p,
                              const int* zero_iterations,
                              double* post_out,
                              double* ext_out)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long long)p.W * p.n)
        return;
    const int w = int(t / p.n), v = int(t % p.n);
    const long long o = t * p.q;
    real* tmp = p.post + o; // this variable's posterior row: read, then reused
    if (zero_iterations[w]) {
        if (post_out)
            bp::normalize_lse(p.in + o, p.q, post_out + o);
        if (ext_out)
            for (int x = 0; x < p.q; ++x)
                ext_out[o + x] = -log(double(p.q));
        return;
    }
    if (post_out) {
        for (int x = 0; x < p.q; ++x)
            post_out[o + x] = double(tmp[x]);
        bp::normalize_lse(post_out + o, p.q, post_out + o);
    }
    if (ext_out) {
        bp::variable_extrinsic(v,
                               p.q,
                               p.col_start,
                               p.col_entries,
                               p.c2v + (long long)w * p.E * p.q,
                               tmp,
                               ext_out + (long long)w * p.n * p.q);
    }
}

unsigned blocks_for(long long count, int block)
{
    return unsigned((count + block - 1) / block);
}

template <typename real>
class ldpc_decoder_cuda : public ldpc_decoder
{
public:
    ldpc_decoder_cuda(const ldpc_code& code, const bp_config& cfg)
        : ldpc_decoder(code, cfg)
    {
        std::string why;
        if (!cuda_device_available(cfg.device, &why)) {
            throw std::runtime_error("ldpc_decoder: no usable CUDA device " +
                                     std::to_string(cfg.device) + ": " + why);
        }
        BSID_CUDA(cudaSetDevice(cfg.device));
        const auto& rs = code.row_start();
        for (int r = 0; r < code.M(); ++r)
            d_dmax = std::max(d_dmax, rs[size_t(r) + 1] - rs[size_t(r)]);
        std::vector<int32_t> edge_col;
        for (const auto& e : code.entries())
            edge_col.push_back(e.col);
        upload(d_row_start, code.row_start());
        upload(d_col_start, code.col_start());
        upload(d_col_entries, code.col_entries());
        upload(d_edge_col, edge_col);
        upload(d_perm_dev, d_perm);
        upload(d_coef_dev, d_coef);
    }

    backend_kind backend() const override { return backend_kind::cuda; }

    std::vector<bp_result> decode_batch(const std::vector<const double*>& in,
                                        int max_iterations,
                                        const std::vector<double*>& post,
                                        const std::vector<double*>& ext,
                                        const std::vector<int32_t*>& decisions) override
    {
        check_batch(in, max_iterations, post, ext, decisions);
        const int W = int(in.size());
        std::vector<bp_result> res(static_cast<size_t>(W));
        if (W == 0)
            return res;
        BSID_CUDA(cudaSetDevice(d_cfg.device));
        const int n = d_code.n(), q = d_code.q(), M = d_code.M();
        const int E = int(d_code.entries().size());
        const size_t NQ = size_t(n) * size_t(q);

        std::vector<double> host_in(size_t(W) * NQ);
        for (int w = 0; w < W; ++w)
            std::copy(
                in[size_t(w)], in[size_t(w)] + NQ, host_in.begin() + long(w) * long(NQ));
        d_in.ensure(host_in.size());
        d_in.upload(host_in.data(), host_in.size());
        d_v2c.ensure(size_t(W) * size_t(E) * size_t(q));
        d_c2v.ensure(size_t(W) * size_t(E) * size_t(q));
        d_post.ensure(size_t(W) * NQ);
        d_dec.ensure(size_t(W) * size_t(n));
        d_active.ensure(size_t(W));
        d_unsat.ensure(size_t(W));
        d_zero.ensure(size_t(W));
        bp_params<real> p{};
        p.W = W;
        p.n = n;
        p.q = q;
        p.M = M;
        p.E = E;
        p.scratch_per_thread = (2 * d_dmax + 3) * q;
        p.threads = std::min<long long>((long long)W * M, 1 << 15);
        // check nodes: a warp each with its scratch in shared memory where it
        // fits (48 KB a block), else a thread each with global scratch
        const size_t warp_bytes = size_t(p.scratch_per_thread) * sizeof(real);
        const int warps = int(std::min<size_t>(8, (48u << 10) / warp_bytes));
        if (warps < 1)
            d_scratch.ensure(size_t(p.threads) * size_t(p.scratch_per_thread));
        p.row_start = d_row_start.get();
        p.col_start = d_col_start.get();
        p.col_entries = d_col_entries.get();
        p.edge_col = d_edge_col.get();
        p.perm = d_perm_dev.get();
        p.coef = d_coef_dev.get();
        p.in = d_in.get();
        p.v2c = d_v2c.get();
        p.c2v = d_c2v.get();
        p.post = d_post.get();
        p.scratch = d_scratch.get();
        p.dec = d_dec.get();
        p.active = d_active.get();
        p.unsat = d_unsat.get();

        const int B = 128;
        const size_t Ws = static_cast<size_t>(W);
        std::vector<int> active(Ws, 1), unsat(Ws, 0), zero(Ws, 0);
        d_active.upload(active.data(), active.size());
        // iteration 0: the input's own decisions
        init_kernel<real><<<blocks_for((long long)W * n, B), B>>>(p);
        BSID_CUDA(cudaGetLastError());
        auto syndrome = [&]() {
            BSID_CUDA(cudaMemset(d_unsat.get(), 0, sizeof(int) * size_t(W)));
            syndrome_kernel<real><<<blocks_for((long long)W * M, B), B>>>(p);
            BSID_CUDA(cudaGetLastError());
            d_unsat.download(unsat.data(), unsat.size());
        };
        syndrome();
        int left = 0;
        for (int w = 0; w < W; ++w) {
            if (unsat[size_t(w)] == 0) {
                active[size_t(w)] = 0;
                zero[size_t(w)] = 1;
                res[size_t(w)] = { 0, true };
            } else {
                ++left;
            }
        }
        d_active.upload(active.data(), active.size());
        for (int it = 1; it <= max_iterations && left > 0; ++it) {
            if (warps >= 1) {
                check_warp_kernel<real><<<blocks_for((long long)W * M, warps),
                                          32 * warps,
                                          warp_bytes * warps>>>(p, p.scratch_per_thread);
            } else {
                check_kernel<real><<<blocks_for(p.threads, B), B>>>(p);
            }
            BSID_CUDA(cudaGetLastError());
            variable_kernel<real><<<blocks_for((long long)W * n, B), B>>>(p);
            BSID_CUDA(cudaGetLastError());
            syndrome();
            bool changed = false;
            for (int w = 0; w < W; ++w) {
                if (!active[size_t(w)])
                    continue;
                res[size_t(w)].iterations = it;
                if (unsat[size_t(w)] == 0) {
                    res[size_t(w)].syndrome_ok = true;
                    active[size_t(w)] = 0;
                    changed = true;
                    --left;
                }
            }
            if (changed)
                d_active.upload(active.data(), active.size());
        }

        // outputs
        d_zero.upload(zero.data(), zero.size());
        const bool want_post =
            std::any_of(post.begin(), post.end(), [](double* x) { return x; });
        const bool want_ext =
            std::any_of(ext.begin(), ext.end(), [](double* x) { return x; });
        if (want_post)
            d_post_out.ensure(size_t(W) * NQ);
        if (want_ext)
            d_ext_out.ensure(size_t(W) * NQ);
        output_kernel<real><<<blocks_for((long long)W * n, B), B>>>(
            p,
            d_zero.get(),
            want_post ? d_post_out.get() : nullptr,
            want_ext ? d_ext_out.get() : nullptr);
        BSID_CUDA(cudaGetLastError());
        BSID_CUDA(cudaDeviceSynchronize());
        for (int w = 0; w < W; ++w) {
            if (!post.empty() && post[size_t(w)])
                d_post_out.download_at(post[size_t(w)], size_t(w) * NQ, NQ);
            if (!ext.empty() && ext[size_t(w)])
                d_ext_out.download_at(ext[size_t(w)], size_t(w) * NQ, NQ);
            if (!decisions.empty() && decisions[size_t(w)])
                d_dec.download_at(decisions[size_t(w)], size_t(w) * size_t(n), size_t(n));
        }
        return res;
    }

private:
    template <typename T>
    static void upload(device_buffer<T>& to, const std::vector<T>& from)
    {
        to.ensure(from.size());
        to.upload(from.data(), from.size());
    }

    int d_dmax = 0;
    device_buffer<int32_t> d_row_start, d_col_start, d_col_entries, d_edge_col,
        d_perm_dev, d_coef_dev, d_dec;
    device_buffer<double> d_in, d_post_out, d_ext_out;
    device_buffer<real> d_v2c, d_c2v, d_post, d_scratch;
    device_buffer<int> d_active, d_unsat, d_zero;
};

} // namespace
} // namespace cuda

std::unique_ptr<ldpc_decoder> make_ldpc_decoder_cuda(const ldpc_code& code,
                                                     const bp_config& cfg)
{
    if (cfg.precision == precision_kind::single)
        return std::make_unique<cuda::ldpc_decoder_cuda<float>>(code, cfg);
    return std::make_unique<cuda::ldpc_decoder_cuda<double>>(code, cfg);
}

} // namespace bsid
