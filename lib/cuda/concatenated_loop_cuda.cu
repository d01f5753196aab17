/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The concatenated decoder's passes on the GPU (device_concatenated_loop.h):
// the same passes as concatenated_decoder.cc's host loop, over the two CUDA
// decoders' device interfaces (device_loop.h), with the symbol mapping's row
// math (symbol_mapping_math.h) as kernels. Frames that stop are dropped from
// the next pass by gathering the rows of those that go on.

#include "cuda_check.h"
#include "device_buffer.h"
#include "device_loop.h"
#include "runtime/backends.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/outer/symbol_mapping_math.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace bsid {
namespace cuda {
namespace {

unsigned grid_for(long long items)
{
    return unsigned(
        std::max<long long>(1, std::min<long long>((items + 127) / 128, 65535)));
}

#define BSID_GRID_STRIDE(t, count)                                                    \
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < (count); \
         t += (long long)gridDim.x * blockDim.x)

// inner extrinsic (linear) rows of frame from[r] -> outer log rows of word r
__global__ void
identity_to_outer(const double* in, const int* from, int R, int n, int q, double* out)
{
    BSID_GRID_STRIDE(t, (long long)R * n)
    {
        const long long r = t / n, i = t % n;
        mapping::log_row(in + ((long long)from[r] * n + i) * q, q, out + t * q);
    }
}

// outer log rows of word from[r] -> inner log-priors of frame r (a copy)
__global__ void
identity_to_inner(const double* in, const int* from, int R, int n, int q, double* out)
{
    BSID_GRID_STRIDE(t, (long long)R * n * q)
    {
        const long long per = (long long)n * q;
        const long long r = t / per, x = t % per;
        out[t] = in[(long long)from[r] * per + x];
    }
}

// Through bits: phase 1 (rows of the source to bit marginals lm), phase 2
// (bit marginals to rows of the destination), a thread per row.
__global__ void inner_bits_kernel(
    const double* in, const int* from, int R, int N, mapping::shape s, double* lm)
{
    BSID_GRID_STRIDE(t, (long long)R * N)
    {
        const long long r = t / N;
        const int j = int(t % N);
        mapping::inner_bits(
            s, j, in + ((long long)from[r] * N + j) * s.qi, lm + r * 2 * s.bits);
    }
}

__global__ void
outer_rows_kernel(const double* lm, int R, int n, mapping::shape s, double* out)
{
    BSID_GRID_STRIDE(t, (long long)R * n)
    {
        const long long r = t / n;
        const int i = int(t % n);
        mapping::outer_row(s, i, lm + r * 2 * s.bits, out + t * s.qo);
    }
}

__global__ void outer_bits_kernel(
    const double* in, const int* from, int R, int n, mapping::shape s, double* lm)
{
    BSID_GRID_STRIDE(t, (long long)R * n)
    {
        const long long r = t / n;
        const int i = int(t % n);
        mapping::outer_bits(
            s, i, in + ((long long)from[r] * n + i) * s.qo, lm + r * 2 * s.bits);
    }
}

__global__ void
inner_rows_kernel(const double* lm, int R, int N, mapping::shape s, double* out)
{
    BSID_GRID_STRIDE(t, (long long)R * N)
    {
        const long long r = t / N;
        const int j = int(t % N);
        mapping::inner_row(s, j, lm + r * 2 * s.bits, out + t * s.qi);
    }
}

// one row of NI values copied to R rows
__global__ void broadcast_kernel(const double* row, long long NI, int R, double* out)
{
    BSID_GRID_STRIDE(t, (long long)R * NI) { out[t] = row[t % NI]; }
}

class cuda_concatenated_loop final : public device_concatenated_loop
{
public:
    cuda_concatenated_loop(staged_inner& staged,
                           device_bp& bp,
                           const ldpc_code& code,
                           const symbol_mapping& map)
        : d_staged(staged), d_bp(bp), d_code(code), d_map(map)
    {
    }

    std::vector<concatenated_result>
    decode_batch(const std::vector<frame_view>& frames,
                 const concatenated_options& opt,
                 const std::vector<int32_t*>& decisions,
                 const std::vector<double*>& posteriors,
                 const concatenated_decoder::observer& watch) override
    {
        BSID_CUDA(cudaSetDevice(d_staged.device()));
        const size_t K = frames.size();
        const int n = d_code.n(), qo = d_code.q();
        const size_t NO = size_t(n) * size_t(qo);
        batch b;
        b.want_post = std::any_of(
            posteriors.begin(), posteriors.end(), [](double* p) { return p; });
        b.watch = bool(watch);
        b.res.resize(K);
        b.dec.assign(K * size_t(n), -1);
        b.post.resize(b.want_post ? K * NO : 0);
        b.decoded.assign(K, 0);

        // The batch in parts that fit the device together (the inner decoder,
        // the loop's rows and BP): all of it at first, or the part size that
        // last fitted. A part that runs out of device memory (or fails
        // otherwise) gives every device buffer back and is tried again in
        // halves; a single frame that fails throws, for the host loop.
        size_t lo = 0;
        while (lo < K) {
            const size_t part =
                opt.device_part > 0 ? std::min(d_part, opt.device_part) : d_part;
            const size_t hi = std::min(K, lo + std::min(part, K));
            const size_t mark = b.seen.size(), mark_rows = b.seen_rows.size();
            try {
                decode_part(frames, lo, hi, opt, b);
                lo = hi;
            } catch (const std::exception& e) {
                release_all();
                if (hi - lo <= 1)
                    throw;
                d_part = (hi - lo + 1) / 2;
                log(log_level::info,
                    detail::concat("concatenated_decoder(cuda): frames ",
                                   lo,
                                   " to ",
                                   hi,
                                   " of the batch do not run on the device together (",
                                   e.what(),
                                   "); parts of ",
                                   d_part,
                                   " frames from here on"));
                // the part's partial results, discarded
                for (size_t k = lo; k < hi; ++k) {
                    b.res[k] = concatenated_result{};
                    b.decoded[k] = 0;
                    std::fill(b.dec.begin() + long(k * size_t(n)),
                              b.dec.begin() + long((k + 1) * size_t(n)),
                              -1);
                }
                b.seen.resize(mark);
                b.seen_rows.resize(mark_rows);
            }
        }

        // the batch succeeded: outputs, then the observer
        const double uniform = -std::log(double(qo));
        for (size_t k = 0; k < K; ++k) {
            if (!decisions.empty() && decisions[k])
                std::copy(b.dec.begin() + long(k * size_t(n)),
                          b.dec.begin() + long((k + 1) * size_t(n)),
                          decisions[k]);
            if (!posteriors.empty() && posteriors[k]) {
                if (b.decoded[k])
                    std::copy(b.post.begin() + long(k * NO),
                              b.post.begin() + long((k + 1) * NO),
                              posteriors[k]);
                else
                    std::fill(posteriors[k], posteriors[k] + NO, uniform);
            }
        }
        // (in the order of the passes, then of the frames, as one part runs
        // them: the parts' calls interleaved)
        std::stable_sort(b.seen.begin(), b.seen.end(), [](const auto& x, const auto& y) {
            return std::get<0>(x) != std::get<0>(y) ? std::get<0>(x) < std::get<0>(y)
                                                    : std::get<1>(x) < std::get<1>(y);
        });
        for (const auto& e : b.seen)
            watch(std::get<0>(e), std::get<1>(e), b.seen_rows.data() + std::get<2>(e));
        return std::move(b.res);
    }

    // what decode_batch keeps for the whole batch until every part is done
    struct batch {
        bool want_post = false, watch = false;
        std::vector<concatenated_result> res;
        std::vector<int32_t> dec;
        std::vector<double> post;
        std::vector<char> decoded;
        // the observer's calls, made once the batch has succeeded
        std::vector<std::tuple<int, size_t, size_t>> seen; // pass, frame, row
        std::vector<int32_t> seen_rows;
    };

    // The passes over frames [lo, hi) of the batch, their results into b at
    // their batch indices.
    void decode_part(const std::vector<frame_view>& all,
                     size_t lo,
                     size_t hi,
                     const concatenated_options& opt,
                     batch& b)
    {
        const size_t K = hi - lo;
        const int n = d_code.n(), qo = d_code.q();
        const int N = d_map.n_inner(), qi = d_map.q_inner();
        const size_t NI = size_t(N) * size_t(qi), NO = size_t(n) * size_t(qo);
        const bool want_post = b.want_post;
        // the frames as the inner decoder sees them: their input (items of
        // any kind, boundaries) and no outputs; the loop sets the priors
        std::vector<frame_view> views(K);
        for (size_t k = 0; k < K; ++k) {
            views[k] = frame_view(static_cast<const frame_input&>(all[lo + k]));
            views[k].priors = nullptr;
            views[k].extrinsic = true;
            views[k].log_priors = true;
        }
        std::vector<frame_result> inner(K);
        const std::vector<char> staged = d_staged.stage(views, inner);
        std::vector<size_t> active;
        for (size_t k = 0; k < K; ++k) {
            if (staged[k]) {
                active.push_back(k);
            } else {
                b.res[lo + k].status = inner[k].status;
                b.res[lo + k].reason = inner[k].reason;
            }
        }
        // the first pass's priors: none, or the known zero pad bits
        std::vector<double> pad;
        if (d_map.pad_bits() > 0) {
            const std::vector<double> flat(NO, 0.0);
            pad.resize(NI);
            d_map.outer_to_inner(flat.data(), pad.data());
            d_pad.ensure(NI);
            d_pad.upload(pad.data(), NI);
        }
        const mapping::shape s = d_map.shape();
        const bool identity = d_map.identity();

        for (int pass = 1; pass <= opt.iterations && !active.empty(); ++pass) {
            const int A = int(active.size());
            // 1. the inner decoder
            d_ext_in.ensure(size_t(A) * NI);
            const double* priors = nullptr;
            if (pass > 1) {
                priors = d_priors.get();
            } else if (!pad.empty()) {
                d_priors.ensure(size_t(A) * NI);
                broadcast_kernel<<<grid_for((long long)A * (long long)NI), 128>>>(
                    d_pad.get(), (long long)NI, A, d_priors.get());
                BSID_CUDA(cudaGetLastError());
                priors = d_priors.get();
            }
            d_staged.decode_staged(active, priors, d_ext_in.get(), inner);

            // 2. refusals; the others to the outer symbols
            std::vector<int> run_row; // each running frame's row in d_ext_in
            std::vector<size_t> run;
            for (int j = 0; j < A; ++j) {
                const size_t k = active[size_t(j)];
                if (inner[k].ok()) {
                    run.push_back(k);
                    run_row.push_back(j);
                    continue;
                }
                if (pass == 1) {
                    b.res[lo + k].status = inner[k].status;
                    b.res[lo + k].reason = inner[k].reason;
                } else {
                    b.res[lo + k].reason = later_refusal(pass, inner[k]);
                }
            }
            const int R = int(run.size());
            if (R == 0)
                break;
            d_rows.ensure(size_t(R));
            d_rows.upload(run_row.data(), size_t(R));
            d_bp_in.ensure(size_t(R) * NO);
            if (identity) {
                identity_to_outer<<<grid_for((long long)R * n), 128>>>(
                    d_ext_in.get(), d_rows.get(), R, n, qo, d_bp_in.get());
            } else {
                d_lm.ensure(size_t(R) * 2 * size_t(s.bits));
                inner_bits_kernel<<<grid_for((long long)R * N), 128>>>(
                    d_ext_in.get(), d_rows.get(), R, N, s, d_lm.get());
                BSID_CUDA(cudaGetLastError());
                outer_rows_kernel<<<grid_for((long long)R * n), 128>>>(
                    d_lm.get(), R, n, s, d_bp_in.get());
            }
            BSID_CUDA(cudaGetLastError());

            // 3. belief propagation, afresh each pass
            d_bp_ext.ensure(size_t(R) * NO);
            if (want_post)
                d_post.ensure(size_t(R) * NO);
            std::vector<int32_t> run_dec(size_t(R) * size_t(n));
            const auto bp = d_bp.decode_device(d_bp_in.get(),
                                               R,
                                               opt.bp_iterations,
                                               want_post ? d_post.get() : nullptr,
                                               d_bp_ext.get(),
                                               run_dec.data());

            // 4. the results; the frames that go on get the outer extrinsic as priors
            std::vector<int> next_row; // each continuing frame's row in d_bp_ext
            std::vector<size_t> next;
            for (int r = 0; r < R; ++r) {
                const size_t k = run[size_t(r)];
                const int32_t* row = run_dec.data() + size_t(r) * size_t(n);
                std::copy(row, row + n, b.dec.begin() + long((lo + k) * size_t(n)));
                if (want_post)
                    d_post.download_at(b.post.data() + (lo + k) * NO, size_t(r) * NO, NO);
                b.decoded[lo + k] = 1;
                b.res[lo + k].iterations = pass;
                b.res[lo + k].bp_iterations += bp[size_t(r)].iterations;
                b.res[lo + k].syndrome_ok = bp[size_t(r)].syndrome_ok;
                if (b.watch) {
                    b.seen.emplace_back(pass, lo + k, b.seen_rows.size());
                    b.seen_rows.insert(b.seen_rows.end(), row, row + n);
                }
                if (!bp[size_t(r)].syndrome_ok && pass < opt.iterations) {
                    next.push_back(k);
                    next_row.push_back(r);
                }
            }
            if (!next.empty()) {
                const int X = int(next.size());
                d_rows.ensure(size_t(X));
                d_rows.upload(next_row.data(), size_t(X));
                d_priors.ensure(size_t(X) * NI);
                if (identity) {
                    identity_to_inner<<<grid_for((long long)X * (long long)NO), 128>>>(
                        d_bp_ext.get(), d_rows.get(), X, n, qo, d_priors.get());
                } else {
                    d_lm.ensure(size_t(X) * 2 * size_t(s.bits));
                    outer_bits_kernel<<<grid_for((long long)X * n), 128>>>(
                        d_bp_ext.get(), d_rows.get(), X, n, s, d_lm.get());
                    BSID_CUDA(cudaGetLastError());
                    inner_rows_kernel<<<grid_for((long long)X * N), 128>>>(
                        d_lm.get(), X, N, s, d_priors.get());
                }
                BSID_CUDA(cudaGetLastError());
            }
            active.swap(next);
        }
        BSID_CUDA(cudaDeviceSynchronize());
    }

    // every device buffer of the loop and of both decoders, given back
    void release_all() noexcept
    {
        try {
            d_pad.release(), d_priors.release(), d_ext_in.release(), d_bp_in.release();
            d_bp_ext.release(), d_post.release(), d_lm.release(), d_rows.release();
            d_staged.release();
            d_bp.release();
        } catch (...) {
            // (a failed release leaves the memory to the next allocation's error)
        }
    }

private:
    staged_inner& d_staged;
    device_bp& d_bp;
    const ldpc_code& d_code;
    const symbol_mapping& d_map;
    device_buffer<double> d_pad, d_priors, d_ext_in, d_bp_in, d_bp_ext, d_post, d_lm;
    device_buffer<int> d_rows;
    // the most frames a part holds: a batch's part that did not fit halves it
    size_t d_part = std::numeric_limits<size_t>::max();
};

} // namespace
} // namespace cuda

std::unique_ptr<device_concatenated_loop>
make_device_concatenated_loop(map_decoder& inner,
                              siso_decoder& outer,
                              const outer_code& code,
                              const symbol_mapping& map)
{
    auto* staged = dynamic_cast<cuda::staged_inner*>(&inner);
    auto* dbp = dynamic_cast<cuda::device_bp*>(&outer);
    auto* ldpc = dynamic_cast<const ldpc_code*>(&code);
    if (!staged || !dbp || !ldpc)
        return nullptr;
    return std::make_unique<cuda::cuda_concatenated_loop>(*staged, *dbp, *ldpc, map);
}

} // namespace bsid
