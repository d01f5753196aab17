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
 * Each check node and each variable node is done by a group of G = min(q, 32)
 * lanes of a warp (a lane per symbol value): rows are read and written whole,
 * and a check's scratch sits in shared memory (a thread per check with
 * global scratch where a warp's would pass 48 KB). decode_device serves the
 * concatenated decoder's device loop (device_loop.h): input and outputs stay
 * on the device.
 */

#include "cuda_check.h"
#include "device_buffer.h"
#include "device_loop.h"
#include "runtime/backends.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/outer/bp_math.h>
#include <gnuradio/bsid/core/runtime/log.h>
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

// A group of G lanes of one warp (G = 2, 4, .. 32) as a bp_math.h team:
// reductions by shuffles within the group, which runs on its own (its mask).
struct group_team {
    int l;         // lane in the group
    int w;         // G
    unsigned mask; // the group's lanes in the warp
    __device__ static group_team of(int G)
    {
        const int lane = int(threadIdx.x) % 32;
        const unsigned bits = G == 32 ? 0xffffffffu : ((1u << G) - 1u);
        return { lane % G, G, bits << (lane / G * G) };
    }
    __host__ __device__ int lane() const { return l; }
    __host__ __device__ int size() const { return w; }
    __host__ __device__ void sync() const
    {
#ifdef __CUDA_ARCH__
        __syncwarp(mask);
#endif
    }
    template <typename real>
    __host__ __device__ real max(real v) const
    {
#ifdef __CUDA_ARCH__
        for (int o = w / 2; o > 0; o >>= 1) {
            const real u = __shfl_xor_sync(mask, v, o, w);
            v = u > v ? u : v;
        }
#endif
        return v;
    }
    template <typename real>
    __host__ __device__ real sum(real v) const
    {
#ifdef __CUDA_ARCH__
        for (int o = w / 2; o > 0; o >>= 1)
            v += __shfl_xor_sync(mask, v, o, w);
#endif
        return v;
    }
    // the largest value and its index, ties to the lowest index
    template <typename real>
    __host__ __device__ void argmax(real& top, int32_t& best) const
    {
#ifdef __CUDA_ARCH__
        for (int o = w / 2; o > 0; o >>= 1) {
            const real t = __shfl_xor_sync(mask, top, o, w);
            const int32_t b = __shfl_xor_sync(mask, best, o, w);
            if (t > top || (t == top && b < best)) {
                top = t;
                best = b;
            }
        }
#endif
    }
};

// The lanes of a node's team: one per symbol value up to a warp.
inline int team_lanes(int q) { return q < 32 ? q : 32; }

// One group of G lanes per (word, check), its scratch in shared memory
// (per_group values).
template <typename real>
__global__ void check_group_kernel(bp_params<real> p, int G, int per_group)
{
    extern __shared__ double smem[]; // aligned for double
    const int gib = int(threadIdx.x) / G;
    const long long t = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / G;
    if (t >= (long long)p.W * p.M)
        return; // the whole group
    const int w = int(t / p.M), r = int(t % p.M);
    if (!p.active[w])
        return;
    check_one(p,
              w,
              r,
              reinterpret_cast<real*>(smem) + (long long)gib * per_group,
              group_team::of(G));
}

// One group of G lanes per (word, variable), a lane per symbol value: the
// rows of c2v, v2c and the posterior read and written whole.
template <typename real>
__global__ void variable_kernel(bp_params<real> p, int G)
{
    const long long t = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / G;
    if (t >= (long long)p.W * p.n)
        return;
    const int w = int(t / p.n), v = int(t % p.n);
    if (!p.active[w])
        return;
    const group_team team = group_team::of(G);
    const long long base = (long long)w * p.E * p.q;
    real* post = p.post + (long long)w * p.n * p.q;
    bp::variable_node(v,
                      p.q,
                      p.in + (long long)w * p.n * p.q,
                      p.col_start,
                      p.col_entries,
                      p.c2v + base,
                      p.v2c + base,
                      post,
                      team);
    team.sync();
    const int32_t best = bp::decide(post + (long long)v * p.q, p.q, team);
    if (team.lane() == 0)
        p.dec[t] = best;
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
                ext_out[o + x] = -::log(double(p.q));
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
class ldpc_decoder_cuda : public ldpc_decoder, public device_bp
{
public:
    ldpc_decoder_cuda(const ldpc_code& code,
                      const bp_config& cfg,
                      ldpc_decoder_maker cpu_fallback)
        : ldpc_decoder(code, cfg), d_make_cpu(std::move(cpu_fallback))
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
        if (in.empty())
            return {};
        try {
            return decode_on_device(in, max_iterations, post, ext, decisions);
        } catch (const cuda_error& e) {
            if (e.code != cudaErrorMemoryAllocation)
                throw;
            // out of device memory: this batch on the CPU (as the MAP decoder does)
            release();
            log(log_level::warning,
                std::string("ldpc_decoder(cuda): ") + e.what() +
                    "; decoding the batch on the CPU");
            if (!d_cpu)
                d_cpu = d_make_cpu(d_code, d_cfg);
            return d_cpu->decode_batch(in, max_iterations, post, ext, decisions);
        }
    }

    std::vector<bp_result> decode_on_device(const std::vector<const double*>& in,
                                            int max_iterations,
                                            const std::vector<double*>& post,
                                            const std::vector<double*>& ext,
                                            const std::vector<int32_t*>& decisions)
    {
        const int W = int(in.size());
        BSID_CUDA(cudaSetDevice(d_cfg.device));
        const int n = d_code.n();
        const size_t NQ = size_t(n) * size_t(d_code.q());
        std::vector<double> host_in(size_t(W) * NQ);
        for (int w = 0; w < W; ++w)
            std::copy(
                in[size_t(w)], in[size_t(w)] + NQ, host_in.begin() + long(w) * long(NQ));
        d_in.ensure(host_in.size());
        d_in.upload(host_in.data(), host_in.size());
        const bool want_post =
            std::any_of(post.begin(), post.end(), [](double* x) { return x; });
        const bool want_ext =
            std::any_of(ext.begin(), ext.end(), [](double* x) { return x; });
        if (want_post)
            d_post_out.ensure(size_t(W) * NQ);
        if (want_ext)
            d_ext_out.ensure(size_t(W) * NQ);
        std::vector<int32_t> dec(size_t(W) * size_t(n));
        auto res = run(d_in.get(),
                       W,
                       max_iterations,
                       want_post ? d_post_out.get() : nullptr,
                       want_ext ? d_ext_out.get() : nullptr,
                       dec.data());
        for (int w = 0; w < W; ++w) {
            if (!post.empty() && post[size_t(w)])
                d_post_out.download_at(post[size_t(w)], size_t(w) * NQ, NQ);
            if (!ext.empty() && ext[size_t(w)])
                d_ext_out.download_at(ext[size_t(w)], size_t(w) * NQ, NQ);
            if (!decisions.empty() && decisions[size_t(w)])
                std::copy(dec.begin() + long(w) * n,
                          dec.begin() + long(w + 1) * n,
                          decisions[size_t(w)]);
        }
        return res;
    }

    // the per-batch buffers, given back after running out of device memory
    void release() override
    {
        d_in.release();
        d_post_out.release();
        d_ext_out.release();
        d_v2c.release();
        d_c2v.release();
        d_post.release();
        d_scratch.release();
    }

    std::vector<bp_result> decode_device(const double* in,
                                         int W,
                                         int max_iterations,
                                         double* post,
                                         double* ext,
                                         int32_t* decisions) override
    {
        if (max_iterations < 1) {
            throw std::invalid_argument(detail::concat("ldpc_decoder: max_iterations = ",
                                                       max_iterations,
                                                       " must be at least 1"));
        }
        if (W <= 0)
            return {};
        BSID_CUDA(cudaSetDevice(d_cfg.device));
        return run(in, W, max_iterations, post, ext, decisions);
    }

private:
    // BP of W words whose input `in` is on the device; post and ext (device,
    // or null) get the soft outputs, decisions (host, W x n) the decisions.
    std::vector<bp_result> run(const double* in,
                               int W,
                               int max_iterations,
                               double* post_out,
                               double* ext_out,
                               int32_t* decisions)
    {
        std::vector<bp_result> res(static_cast<size_t>(W));
        const int n = d_code.n(), q = d_code.q(), M = d_code.M();
        const int E = int(d_code.entries().size());
        const size_t NQ = size_t(n) * size_t(q);
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
        // check nodes: a group of G lanes each (a lane per symbol value, up
        // to a warp) with its scratch in shared memory where it fits (48 KB a
        // block), else a thread each with global scratch
        const int G = team_lanes(q);
        const size_t warp_bytes =
            size_t(p.scratch_per_thread) * sizeof(real) * size_t(32 / G);
        const int warps = int(std::min<size_t>(8, (48u << 10) / warp_bytes));
        if (warps < 1)
            d_scratch.ensure(size_t(p.threads) * size_t(p.scratch_per_thread));
        p.row_start = d_row_start.get();
        p.col_start = d_col_start.get();
        p.col_entries = d_col_entries.get();
        p.edge_col = d_edge_col.get();
        p.perm = d_perm_dev.get();
        p.coef = d_coef_dev.get();
        p.in = in;
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
                check_group_kernel<real>
                    <<<blocks_for((long long)W * M * G, 32 * warps),
                       32 * warps,
                       warp_bytes * warps>>>(p, G, p.scratch_per_thread);
            } else {
                check_kernel<real><<<blocks_for(p.threads, B), B>>>(p);
            }
            BSID_CUDA(cudaGetLastError());
            variable_kernel<real><<<blocks_for((long long)W * n * G, B), B>>>(p, G);
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
        output_kernel<real>
            <<<blocks_for((long long)W * n, B), B>>>(p, d_zero.get(), post_out, ext_out);
        BSID_CUDA(cudaGetLastError());
        BSID_CUDA(cudaDeviceSynchronize());
        d_dec.download(decisions, size_t(W) * size_t(n));
        return res;
    }

    template <typename T>
    static void upload(device_buffer<T>& to, const std::vector<T>& from)
    {
        to.ensure(from.size());
        to.upload(from.data(), from.size());
    }


    ldpc_decoder_maker d_make_cpu;       // the out-of-memory fallback's maker
    std::unique_ptr<ldpc_decoder> d_cpu; // ... and the fallback, built on first use
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
                                                     const bp_config& cfg,
                                                     ldpc_decoder_maker cpu_fallback)
{
    if (cfg.precision == precision_kind::single)
        return std::make_unique<cuda::ldpc_decoder_cuda<float>>(
            code, cfg, std::move(cpu_fallback));
    return std::make_unique<cuda::ldpc_decoder_cuda<double>>(
        code, cfg, std::move(cpu_fallback));
}

} // namespace bsid
