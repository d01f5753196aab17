/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The joint decoder of several reads on a GPU (docs/reads.md, "Joint
// decoding"; reads/joint_decoder.h is the seam, joint_kernels.cuh the
// kernels). A batch's frames are grouped by their reads' channels (one
// joint state space per group) and decoded in chunks that fit the device's
// memory: the reads' gamma blocks, then per index one kernel per read and a
// close per frame, forward and backward. A chunk the device cannot hold
// (out of memory) is decoded by the CPU backend; any other device error
// makes its frames decoder_error.

#include "cuda_check.h"
#include "device_buffer.h"
#include "inner/codeword_weights.h"
#include "joint_kernels.cuh"
#include "reads/joint_decoder.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/channel/soft_input.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <algorithm>
#include <map>
#include <mutex>

namespace bsid {
namespace cuda {

namespace {

constexpr int close_threads = 256;
constexpr int gamma_threads = 64;
// the most a chunk's buffers take of the device's free memory, and at most
constexpr double chunk_share = 0.5;
constexpr size_t chunk_cap = size_t(8) << 30;

template <typename real>
struct channel_device {
    explicit channel_device(const reads::read_channel& c) : ch(c) {}
    reads::read_channel ch;
    lattice_weights<real> w;
    device_buffer<real> lw; // letters: A x A
};

template <typename real>
class joint_cuda final : public reads::joint_decoder
{
public:
    joint_cuda(const decoder_config& base,
               std::vector<reads::read_channel> channels,
               std::unique_ptr<reads::joint_decoder> cpu)
        : d_base(base), d_cpu(std::move(cpu)), d_device(base.cuda.device)
    {
        BSID_CUDA(cudaSetDevice(d_device));
        const int A = base.ch.alphabet();
        for (auto& c : channels) {
            auto cd = std::make_unique<channel_device<real>>(c);
            cd->w = lattice_weights<real>::ratio(c.ch);
            if (A > 2) {
                std::vector<real> lw(size_t(A) * size_t(A));
                for (int x = 0; x < A; ++x)
                    for (int y = 0; y < A; ++y)
                        lw[size_t(x * A + y)] =
                            real(double(A) * c.ch.emission(unsigned(x), unsigned(y)));
                cd->lw.allocate(lw.size());
                cd->lw.upload(lw.data(), lw.size());
            }
            d_channels.push_back(std::move(cd));
        }
        std::vector<uint32_t> words;
        for (const auto& book : base.cb.books())
            for (auto w : book)
                words.push_back(uint32_t(w));
        d_words.allocate(words.size());
        d_words.upload(words.data(), words.size());
        cudaDeviceProp prop{};
        BSID_CUDA(cudaGetDeviceProperties(&prop, d_device));
        d_shared_max = size_t(prop.sharedMemPerBlock);
    }

    std::vector<frame_result> decode_batch(const std::vector<reads::joint_frame>& frames,
                                           const std::vector<double*>& post) override
    {
        std::vector<frame_result> res(frames.size());
        // groups of frames with the same channels
        std::map<std::vector<int>, std::vector<size_t>> groups;
        for (size_t k = 0; k < frames.size(); ++k)
            groups[frames[k].channel].push_back(k);
        std::lock_guard<std::mutex> lock(d_mutex); // one batch at a time on the device
        for (const auto& [chans, ks] : groups)
            decode_group(chans, ks, frames, post, res);
        return res;
    }

private:
    int N() const { return d_base.N; }
    int q() const { return d_base.cb.q(); }

    // per frame: the device bytes of a chunk
    size_t frame_bytes(const joint_shape& sh,
                       const std::vector<int>& chans,
                       long long items) const
    {
        size_t b = size_t(N() + 1) * size_t(sh.S) * 8   // alpha
                   + 2 * size_t(sh.S) * size_t(q()) * 8 // the passes' tensors
                   + size_t(sh.S) * 8                   // beta
                   + 2 * size_t(N()) * size_t(q()) * 8  // priors, posteriors
                   + 64;
        for (size_t r = 0; r < chans.size(); ++r)
            b += size_t(sh.rstride[r]) * sizeof(real);
        return b + size_t(items) *
                       (sizeof(real) * size_t(std::max(2, d_base.ch.alphabet())) + 1);
    }

    void decode_group(const std::vector<int>& chans,
                      const std::vector<size_t>& ks,
                      const std::vector<reads::joint_frame>& frames,
                      const std::vector<double*>& post,
                      std::vector<frame_result>& res)
    {
        joint_shape sh;
        sh.M = int(chans.size());
        sh.q = q();
        sh.N = N();
        long long S = 1;
        for (int r = sh.M - 1; r >= 0; --r) {
            const auto& lim = d_channels[size_t(chans[size_t(r)])]->ch.limits;
            sh.Mt[r] = lim.mtau.size();
            sh.Mn[r] = lim.mn.size();
            sh.dlo[r] = lim.mn.lo;
            sh.stride[r] = S;
            S *= lim.mtau.size();
            sh.rstride[r] = (long long)N() * sh.Mt[r] * sh.Mn[r] * q();
        }
        sh.S = S;
        long long most_items = 0;
        for (size_t k : ks) {
            long long items = 0;
            for (const auto& rd : frames[k].reads)
                items += (long long)rd.L;
            most_items = std::max(most_items, items);
        }
        size_t free_b = 0, total_b = 0;
        BSID_CUDA(cudaSetDevice(d_device));
        BSID_CUDA(cudaMemGetInfo(&free_b, &total_b));
        const size_t budget = std::min(chunk_cap, size_t(double(free_b) * chunk_share));
        const size_t per = frame_bytes(sh, chans, most_items);
        int most_mn = 0;
        for (int r = 0; r < sh.M; ++r)
            most_mn = std::max(most_mn, sh.Mn[r]);
        const bool fits_shared =
            size_t(gamma_threads) * size_t(most_mn) * sizeof(real) <= d_shared_max;
        const size_t chunk = per > 0 ? budget / per : 0;
        if (chunk == 0 || !fits_shared) {
            log(log_level::info,
                detail::concat("reads_decoder(cuda): ",
                               !fits_shared ? "the corridor is too wide for the GPU's "
                                              "lattice kernel"
                                            : "a frame's joint decode needs more device "
                                              "memory than is free",
                               "; the CPU decodes these frames"));
            on_cpu(ks, frames, post, res);
            return;
        }
        for (size_t at = 0; at < ks.size(); at += chunk) {
            const std::vector<size_t> part(ks.begin() + long(at),
                                           ks.begin() +
                                               long(std::min(ks.size(), at + chunk)));
            try {
                decode_chunk(sh, chans, part, frames, post, res);
            } catch (const cuda_error& e) {
                if (e.code == cudaErrorMemoryAllocation) {
                    release();
                    log(log_level::warning,
                        std::string("reads_decoder(cuda): out of device memory (") +
                            e.what() + "); the CPU decodes these frames");
                    on_cpu(part, frames, post, res);
                    continue;
                }
                for (size_t k : part) {
                    std::fill(post[k], post[k] + size_t(N()) * size_t(q()), 1.0 / q());
                    res[k] = { frame_status::decoder_error,
                               std::string("the joint decoder failed on the device: ") +
                                   e.what() };
                }
            }
        }
    }

    void on_cpu(const std::vector<size_t>& ks,
                const std::vector<reads::joint_frame>& frames,
                const std::vector<double*>& post,
                std::vector<frame_result>& res)
    {
        std::vector<reads::joint_frame> sub;
        std::vector<double*> ptrs;
        for (size_t k : ks) {
            sub.push_back(frames[k]);
            ptrs.push_back(post[k]);
        }
        const auto got = d_cpu->decode_batch(sub, ptrs);
        for (size_t t = 0; t < ks.size(); ++t)
            res[ks[t]] = got[t];
    }

    void release()
    {
        d_alpha.release();
        d_X.release();
        d_Y.release();
        d_beta.release();
        for (auto& g : d_gamma)
            g.release();
        d_post.release();
        d_priors.release();
    }

    static unsigned blocks(long long threads, int per)
    {
        return unsigned((threads + per - 1) / per);
    }

    void decode_chunk(joint_shape sh,
                      const std::vector<int>& chans,
                      const std::vector<size_t>& ks,
                      const std::vector<reads::joint_frame>& frames,
                      const std::vector<double*>& post,
                      std::vector<frame_result>& res)
    {
        const int F = int(ks.size());
        sh.F = F;
        const int Nn = N(), Q = q(), A = d_base.ch.alphabet();
        const long long tau = (long long)Nn * d_base.cb.n();
        const size_t NQ = size_t(Nn) * size_t(Q);
        // the reads' items, per read position: bytes or probabilities
        for (int r = 0; r < sh.M; ++r) {
            const auto& cd = *d_channels[size_t(chans[size_t(r)])];
            const int per_item = A > 2 ? A : 2;
            std::vector<long long> offset(static_cast<size_t>(F)),
                rho(static_cast<size_t>(F));
            long long total = 0;
            bool soft = false;
            for (int f = 0; f < F; ++f) {
                const frame_read& rd = frames[ks[size_t(f)]].reads[size_t(r)];
                offset[size_t(f)] = total;
                rho[size_t(f)] = (long long)rd.L;
                total += (long long)rd.L;
                soft = soft || rd.llr || rd.logprob;
            }
            std::vector<uint8_t> bits;
            std::vector<real> probs;
            if (soft)
                probs.resize(size_t(total) * size_t(per_item));
            else
                bits.resize(size_t(total));
            for (int f = 0; f < F; ++f) {
                const frame_read& rd = frames[ks[size_t(f)]].reads[size_t(r)];
                if (soft)
                    item_probabilities(rd.items(A),
                                       rd.L,
                                       probs.data() +
                                           size_t(offset[size_t(f)]) * per_item);
                else
                    std::copy(rd.bits, rd.bits + rd.L, bits.begin() + offset[size_t(f)]);
            }
            d_offset.ensure(size_t(F));
            d_offset.upload(offset.data(), size_t(F));
            d_rho.ensure(size_t(F));
            d_rho.upload(rho.data(), size_t(F));
            if (soft) {
                d_soft.ensure(std::max<size_t>(probs.size(), 1));
                d_soft.upload(probs.data(), probs.size());
            } else {
                d_bits.ensure(std::max<size_t>(bits.size(), 1));
                d_bits.upload(bits.data(), bits.size());
            }
            d_gamma[size_t(r)].ensure(size_t(F) * size_t(sh.rstride[r]));
            joint_gamma_params<real> p;
            p.w = cd.w;
            p.lw = cd.lw.get();
            p.A = A;
            p.n = d_base.cb.n();
            p.q = Q;
            p.P = d_base.cb.P();
            p.N = Nn;
            p.words = d_words.get();
            p.dlo = cd.ch.limits.mn.lo;
            p.Mn = cd.ch.limits.mn.size();
            p.Mt = cd.ch.limits.mtau.size();
            p.mtlo = cd.ch.limits.mtau.lo;
            p.F = F;
            p.bits = soft ? nullptr : d_bits.get();
            p.soft = soft ? d_soft.get() : nullptr;
            p.offset = d_offset.get();
            p.rho = d_rho.get();
            p.out = d_gamma[size_t(r)].get();
            const long long threads = (long long)F * Nn * p.Mt;
            const size_t shared = size_t(gamma_threads) * size_t(p.Mn) * sizeof(real);
            if (A > 2)
                joint_gamma_kernel<real, true>
                    <<<blocks(threads, gamma_threads), gamma_threads, shared>>>(p);
            else
                joint_gamma_kernel<real, false>
                    <<<blocks(threads, gamma_threads), gamma_threads, shared>>>(p);
            BSID_CUDA(cudaGetLastError());
            // (the items' buffers are reused by the next read: finish first)
            BSID_CUDA(cudaStreamSynchronize(cudaStreamPerThread));
        }
        // priors, flags, ends
        std::vector<double> priors;
        std::vector<uint8_t> flags(2 * size_t(F), 0);
        std::vector<long long> ends(static_cast<size_t>(F));
        long long start = 0;
        for (int r = 0; r < sh.M; ++r)
            start +=
                (long long)(-d_channels[size_t(chans[size_t(r)])]->ch.limits.mtau.lo) *
                sh.stride[r];
        bool any_prior = false;
        for (int f = 0; f < F; ++f) {
            const auto& jf = frames[ks[size_t(f)]];
            any_prior = any_prior || jf.priors;
            flags[size_t(F + f)] = jf.extrinsic;
            long long e = 0;
            for (int r = 0; r < sh.M; ++r)
                e += ((long long)jf.reads[size_t(r)].L - tau -
                      d_channels[size_t(chans[size_t(r)])]->ch.limits.mtau.lo) *
                     sh.stride[r];
            ends[size_t(f)] = e;
        }
        if (any_prior) {
            priors.assign(size_t(F) * NQ, 0.0);
            for (int f = 0; f < F; ++f) {
                const auto& jf = frames[ks[size_t(f)]];
                if (jf.priors) {
                    flags[size_t(f)] = 1;
                    std::copy(
                        jf.priors, jf.priors + NQ, priors.begin() + long(size_t(f) * NQ));
                }
            }
            d_priors.ensure(priors.size());
            d_priors.upload(priors.data(), priors.size());
        }
        d_flags.ensure(flags.size());
        d_flags.upload(flags.data(), flags.size());
        d_ends.ensure(size_t(F));
        d_ends.upload(ends.data(), size_t(F));
        std::vector<int> status(size_t(F), joint_ok);
        d_status.ensure(size_t(F));
        d_status.upload(status.data(), size_t(F));

        const size_t SF = size_t(F) * size_t(sh.S);
        d_alpha.ensure(SF * size_t(Nn + 1));
        d_X.ensure(SF * size_t(Q));
        d_Y.ensure(SF * size_t(Q));
        d_beta.ensure(SF);
        d_post.ensure(size_t(F) * NQ);
        BSID_CUDA(cudaMemsetAsync(
            d_alpha.get(), 0, SF * size_t(Nn + 1) * sizeof(double), cudaStreamPerThread));
        BSID_CUDA(
            cudaMemsetAsync(d_beta.get(), 0, SF * sizeof(double), cudaStreamPerThread));
        const unsigned fb = blocks(F, 128);
        joint_bounds<<<fb, 128>>>(
            sh, start, d_ends.get(), d_alpha.get(), d_beta.get(), d_status.get(), false);
        BSID_CUDA(cudaGetLastError());
        const double* pri = any_prior ? d_priors.get() : nullptr;
        const long long cells = (long long)SF * Q;
        const unsigned cb = blocks(cells, 256);
        const size_t red = close_threads * sizeof(double);
        // each pass reads `in` and writes `out`; then they swap
        double* in = d_X.get();
        double* out_t = d_Y.get();
        for (int i = 0; i < Nn; ++i) {
            for (int r = 0; r < sh.M; ++r) {
                joint_pass<real, true>
                    <<<cb, 256>>>(sh,
                                  axis_of(sh, r),
                                  i,
                                  d_gamma[size_t(r)].get(),
                                  r == 0 ? d_alpha.get() + (long long)i * sh.S : nullptr,
                                  (long long)(sh.N + 1) * sh.S,
                                  in,
                                  out_t);
                BSID_CUDA(cudaGetLastError());
                std::swap(in, out_t);
            }
            joint_forward_close<<<unsigned(F), close_threads, red>>>(
                sh, i, in, pri, d_flags.get(), d_alpha.get(), d_status.get());
            BSID_CUDA(cudaGetLastError());
        }
        joint_bounds<<<fb, 128>>>(
            sh, start, d_ends.get(), d_alpha.get(), d_beta.get(), d_status.get(), true);
        BSID_CUDA(cudaGetLastError());
        for (int i = Nn - 1; i >= 0; --i) {
            for (int r = 0; r < sh.M; ++r) {
                joint_pass<real, false><<<cb, 256>>>(sh,
                                                     axis_of(sh, r),
                                                     i,
                                                     d_gamma[size_t(r)].get(),
                                                     r == 0 ? d_beta.get() : nullptr,
                                                     sh.S,
                                                     in,
                                                     out_t);
                BSID_CUDA(cudaGetLastError());
                std::swap(in, out_t);
            }
            joint_backward_close<<<unsigned(F), close_threads, red>>>(sh,
                                                                      i,
                                                                      in,
                                                                      pri,
                                                                      d_flags.get(),
                                                                      d_flags.get() + F,
                                                                      d_alpha.get(),
                                                                      d_beta.get(),
                                                                      d_post.get(),
                                                                      d_status.get());
            BSID_CUDA(cudaGetLastError());
        }
        std::vector<double> out(size_t(F) * NQ);
        d_post.download(out.data(), out.size());
        d_status.download(status.data(), size_t(F));
        for (int f = 0; f < F; ++f) {
            const size_t k = ks[size_t(f)];
            if (status[size_t(f)] == joint_ok) {
                std::copy(out.begin() + long(size_t(f) * NQ),
                          out.begin() + long(size_t(f + 1) * NQ),
                          post[k]);
                res[k] = {};
            } else {
                std::fill(post[k], post[k] + NQ, 1.0 / Q);
                res[k] = { frame_status::impossible,
                           "the reads together have probability 0 under the channel "
                           "model within the drift limits" };
            }
        }
    }

    decoder_config d_base;
    std::unique_ptr<reads::joint_decoder> d_cpu;
    int d_device;
    size_t d_shared_max = 0;
    std::vector<std::unique_ptr<channel_device<real>>> d_channels;
    std::mutex d_mutex;
    device_buffer<uint32_t> d_words;
    device_buffer<uint8_t> d_bits, d_flags;
    device_buffer<real> d_soft;
    device_buffer<long long> d_offset, d_rho, d_ends;
    device_buffer<int> d_status;
    device_buffer<real> d_gamma[3];
    device_buffer<double> d_alpha, d_X, d_Y, d_beta, d_post, d_priors;
};

} // namespace

} // namespace cuda

std::unique_ptr<reads::joint_decoder>
make_joint_cuda_decoder(const decoder_config& base,
                        const std::vector<reads::read_channel>& channels,
                        std::unique_ptr<reads::joint_decoder> cpu_fallback)
{
    if (base.precision == precision_kind::dual)
        return std::make_unique<cuda::joint_cuda<double>>(
            base, channels, std::move(cpu_fallback));
    return std::make_unique<cuda::joint_cuda<float>>(
        base, channels, std::move(cpu_fallback));
}

} // namespace bsid
