/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The joint decoder of several reads on the CPU (docs/reads.md, "Joint
// decoding"). The state at codeword boundary i is the tuple of the reads'
// drifts (a_1, .., a_M), a_r in read r's m_tau; given codeword D the reads
// are independent, so the weight of a step is the product of the reads'
// receiver metrics R_r(a_r -> b_r | D), each from read r's own corridor
// lattice (the single decoder's gamma blocks). The recursion factorizes
// over the reads, one read's transfer at a time with D kept apart:
//
//   alpha_{i+1}(b) = sum_D P_i(D) sum_a alpha_i(a) prod_r R_r(a_r -> b_r | D)
//
// is M passes over the joint states, each applying one read's R along its
// axis to a tensor with a trailing D (cost M S M_n q per index, S the joint
// states), then the sum over D. Beta takes the same passes as gathers, and
// L_i(D) = sum_a alpha_i(a) W(a, D), W the backward passes before the sum
// over D. The lattices run in the decoder's precision; everything after
// them is double in both precisions, as in the single decoder.
//
// Tensor layout: joint state s = sum_r a_r stride_r (the last read's drift
// varies fastest), each state's q values of D contiguous.

#include "inner/codeword_weights.h"
#include "inner/cpu_lattice.h"
#include "reads/joint_decoder.h"
#include "runtime/aligned_vector.h"
#include "runtime/flush_denormals.h"
#include "runtime/format.h"
#include "runtime/parallel_loop.h"
#include <gnuradio/bsid/core/channel/soft_input.h>
#include <gnuradio/bsid/core/inner/model.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <new>
#include <stdexcept>

namespace bsid {
namespace reads {

size_t joint_states(const std::vector<const read_channel*>& channels)
{
    size_t S = 1;
    for (const auto* c : channels)
        S *= size_t(c->limits.mtau.size());
    return S;
}

namespace {

// One read's place in the joint state: its limits and its axis's stride.
struct axis {
    int Mt = 0, Mn = 0, dlo = 0, mtlo = 0;
    size_t stride = 0;
    // the drift changes e whose end state a + dlo + e lies in [0, Mt)
    int e0(int a) const { return std::max(0, -(a + dlo)); }
    int e1(int a) const { return std::min(Mn, Mt - (a + dlo)); }
};

template <typename real>
struct channel_tables {
    cpu::lattice_shape<real> shape;
    decoder_limits limits;
    std::vector<std::vector<real>> tab;
    std::vector<std::vector<const real*>> rows;
};

template <typename real>
class joint_cpu final : public joint_decoder
{
public:
    joint_cpu(const decoder_config& base, std::vector<read_channel> channels)
        : d_base(base)
    {
        const int n = base.cb.n(), Q = base.cb.q();
        for (const auto& c : channels) {
            channel_tables<real> t;
            t.shape = { lattice_weights<real>::ratio(c.ch),
                        n,
                        Q,
                        c.limits.mn.lo,
                        c.limits.mn.hi,
                        c.ch.alphabet() };
            t.limits = c.limits;
            for (int p = 0; p < base.cb.P(); ++p) {
                t.tab.push_back(diagonal_table<real>(base.cb, c.ch, p));
                t.rows.push_back(table_rows(t.tab.back(), Q));
            }
            d_channels.push_back(std::move(t));
        }
    }

    std::vector<frame_result> decode_batch(const std::vector<joint_frame>& frames,
                                           const std::vector<double*>& post) override
    {
        std::vector<frame_result> results(frames.size());
        const int threads = std::min<int>(resolve_threads(d_base.threads),
                                          std::max<int>(1, int(frames.size())));
        std::vector<workspace> ws(static_cast<size_t>(threads));
        detail::parallel_loop::shared().run(
            threads, frames.size(), [&](size_t k, int worker) {
                results[k] = decode_contained(frames[k], post[k], ws[size_t(worker)]);
            });
        return results;
    }

private:
    struct workspace {
        std::array<aligned_vector<real>, 3> gamma; // per read: N Mt blocks of Mn q
        std::array<std::vector<uint8_t>, 3> live;  // per read: N Mt
        aligned_vector<real> soft, scratch;
        aligned_vector<double> alpha; // (N + 1) S
        aligned_vector<double> beta_next, beta_cur;
        aligned_vector<double> X, Y; // S q: the passes' tensors
        std::vector<uint8_t> nzX, nzY;
        aligned_vector<double> L;
    };

    int N() const { return d_base.N; }
    int q() const { return d_base.cb.q(); }
    int n() const { return d_base.cb.n(); }

    void fill_uniform(double* post) const
    {
        std::fill(post, post + size_t(N()) * size_t(q()), 1.0 / q());
    }

    frame_result
    decode_contained(const joint_frame& f, double* post, workspace& ws) noexcept
    {
        try {
            return decode_one(f, post, ws);
        } catch (const std::bad_alloc&) {
            ws = workspace{};
            fill_uniform(post);
            return { frame_status::decoder_error,
                     "out of host memory for the joint decoder's workspace" };
        } catch (const std::exception& e) {
            fill_uniform(post);
            return { frame_status::decoder_error,
                     std::string("the joint decoder failed on the frame: ") + e.what() };
        } catch (...) {
            fill_uniform(post);
            return { frame_status::decoder_error,
                     "the joint decoder failed on the frame" };
        }
    }

    // Read r's gamma blocks R_r(i, a) (Mn q values each) for every index and
    // state, and whether each state's segment starts inside the read.
    void read_gamma(const channel_tables<real>& c,
                    const frame_read& rd,
                    aligned_vector<real>& gamma,
                    std::vector<uint8_t>& live,
                    workspace& ws) const
    {
        const int Nn = N(), n = this->n(), Q = q();
        const int Mt = c.limits.mtau.size(), Mn = c.limits.mn.size();
        const int A = c.shape.letters;
        const size_t block = size_t(Mn) * size_t(Q);
        gamma.resize(size_t(Nn) * size_t(Mt) * block);
        live.assign(size_t(Nn) * size_t(Mt), 0);
        const bool soft = rd.llr || rd.logprob;
        if (soft) {
            ws.soft.resize(size_t(A) * rd.L);
            item_probabilities(rd.items(A), rd.L, ws.soft.data());
        }
        ws.scratch.resize(cpu::lattice_lanes_scratch(c.shape));
        for (int i = 0; i < Nn; ++i) {
            const int p = int(size_t(i) % c.rows.size());
            for (int a = 0; a < Mt; ++a) {
                real* out = gamma.data() + (size_t(i) * size_t(Mt) + size_t(a)) * block;
                const long long start = (long long)n * i + c.limits.mtau.lo + a;
                if (start < 0 || start > (long long)rd.L) {
                    std::fill(out, out + block, real(0));
                    continue;
                }
                live[size_t(i) * size_t(Mt) + size_t(a)] = 1;
                cpu::lattice_call<real> call;
                call.qsel = c.rows[size_t(p)].data();
                call.y = soft ? nullptr : rd.bits + start;
                call.yprob = soft ? ws.soft.data() + size_t(A) * size_t(start) : nullptr;
                call.avail = (long long)rd.L - start;
                call.scratch = ws.scratch.data();
                call.out = out;
                cpu::corridor_lattice_lanes(c.shape, call);
            }
        }
    }

    frame_result decode_one(const joint_frame& f, double* post, workspace& ws)
    {
        const int M = int(f.reads.size());
        if (M < 1 || M > 3 || f.channel.size() != f.reads.size())
            throw std::logic_error("joint_cpu: 1 to 3 reads, each with its channel");
        const int Nn = N(), Q = q();
        const long long tau = (long long)Nn * n();
        std::array<axis, 3> ax;
        size_t S = 1;
        for (int r = M - 1; r >= 0; --r) {
            const auto& lim = d_channels[size_t(f.channel[size_t(r)])].limits;
            ax[size_t(r)] = { lim.mtau.size(), lim.mn.size(), lim.mn.lo, lim.mtau.lo, S };
            S *= size_t(lim.mtau.size());
        }
        const detail::flush_denormals ftz;
        for (int r = 0; r < M; ++r) {
            read_gamma(d_channels[size_t(f.channel[size_t(r)])],
                       f.reads[size_t(r)],
                       ws.gamma[size_t(r)],
                       ws.live[size_t(r)],
                       ws);
        }
        auto block = [&](int r, int i, int a) {
            const axis& x = ax[size_t(r)];
            return ws.gamma[size_t(r)].data() +
                   (size_t(i) * size_t(x.Mt) + size_t(a)) * size_t(x.Mn) * size_t(Q);
        };
        auto live = [&](int r, int i, int a) {
            return ws.live[size_t(r)][size_t(i) * size_t(ax[size_t(r)].Mt) + size_t(a)] !=
                   0;
        };
        auto drift_of = [&](int r, size_t s) {
            return int((s / ax[size_t(r)].stride) % size_t(ax[size_t(r)].Mt));
        };
        auto impossible = [&](const std::string& where) {
            fill_uniform(post);
            return frame_result{ frame_status::impossible,
                                 "the reads together have probability 0 under the "
                                 "channel model within the drift limits (" +
                                     where + ")" };
        };
        // the start (every read at drift 0) and the end (read r at rho_r - tau)
        size_t s_start = 0, s_end = 0;
        for (int r = 0; r < M; ++r) {
            const axis& x = ax[size_t(r)];
            s_start += size_t(-x.mtlo) * x.stride;
            s_end += size_t((long long)f.reads[size_t(r)].L - tau - x.mtlo) * x.stride;
        }
        ws.alpha.assign(size_t(Nn + 1) * S, 0.0);
        ws.alpha[s_start] = 1.0;
        ws.X.resize(S * size_t(Q));
        ws.Y.resize(S * size_t(Q));
        ws.nzX.resize(S);
        ws.nzY.resize(S);
        ws.L.resize(size_t(Q));
        const double uniform = 1.0 / Q;
        auto prior_row = [&](int i) {
            return f.priors ? f.priors + size_t(i) * size_t(Q) : nullptr;
        };

        // forward: read 0's transfer from alpha_i, then each further read's
        for (int i = 0; i < Nn; ++i) {
            const double* alpha_i = ws.alpha.data() + size_t(i) * S;
            double* alpha_next = ws.alpha.data() + size_t(i + 1) * S;
            std::fill(ws.X.begin(), ws.X.end(), 0.0);
            std::fill(ws.nzX.begin(), ws.nzX.end(), 0);
            const axis& x0 = ax[0];
            for (size_t s = 0; s < S; ++s) {
                const double v = alpha_i[s];
                const int a = drift_of(0, s);
                if (v == 0.0 || !live(0, i, a))
                    continue;
                const real* R = block(0, i, a);
                for (int e = x0.e0(a), e1 = x0.e1(a); e < e1; ++e) {
                    const size_t t = s + size_t(long(x0.dlo + e) * long(x0.stride));
                    double* out = ws.X.data() + t * size_t(Q);
                    const real* row = R + size_t(e) * size_t(Q);
                    for (int D = 0; D < Q; ++D)
                        out[D] += v * double(row[D]);
                    ws.nzX[t] = 1;
                }
            }
            for (int r = 1; r < M; ++r) {
                const axis& xr = ax[size_t(r)];
                std::fill(ws.Y.begin(), ws.Y.end(), 0.0);
                std::fill(ws.nzY.begin(), ws.nzY.end(), 0);
                for (size_t s = 0; s < S; ++s) {
                    const int a = drift_of(r, s);
                    if (!ws.nzX[s] || !live(r, i, a))
                        continue;
                    const double* in = ws.X.data() + s * size_t(Q);
                    const real* R = block(r, i, a);
                    for (int e = xr.e0(a), e1 = xr.e1(a); e < e1; ++e) {
                        const size_t t = s + size_t(long(xr.dlo + e) * long(xr.stride));
                        double* out = ws.Y.data() + t * size_t(Q);
                        const real* row = R + size_t(e) * size_t(Q);
                        for (int D = 0; D < Q; ++D)
                            out[D] += double(row[D]) * in[D];
                        ws.nzY[t] = 1;
                    }
                }
                std::swap(ws.X, ws.Y);
                std::swap(ws.nzX, ws.nzY);
            }
            const double* P = prior_row(i);
            double sum = 0;
            for (size_t s = 0; s < S; ++s) {
                double v = 0;
                if (ws.nzX[s]) {
                    const double* in = ws.X.data() + s * size_t(Q);
                    if (P) {
                        for (int D = 0; D < Q; ++D)
                            v += P[D] * in[D];
                    } else {
                        for (int D = 0; D < Q; ++D)
                            v += in[D];
                        v *= uniform;
                    }
                }
                alpha_next[s] = v;
                sum += v;
            }
            double inv = 0;
            if (!model::normalizer(sum, inv))
                return impossible(
                    detail::concat("no path reaches symbol boundary ", i + 1));
            for (size_t s = 0; s < S; ++s)
                alpha_next[s] *= inv;
        }
        if (!(ws.alpha[size_t(Nn) * S + s_end] > 0))
            return impossible("no path ends at every read's end drift rho - tau");

        // backward, fused with L: read 0's transfer gathered from beta_{i+1},
        // then each further read's; W(a, D) gives beta_i and L_i
        ws.beta_next.assign(S, 0.0);
        ws.beta_next[s_end] = 1.0;
        ws.beta_cur.resize(S);
        for (int i = Nn - 1; i >= 0; --i) {
            const double* alpha_i = ws.alpha.data() + size_t(i) * S;
            const axis& x0 = ax[0];
            for (size_t s = 0; s < S; ++s) {
                double* out = ws.X.data() + s * size_t(Q);
                std::fill(out, out + Q, 0.0);
                ws.nzX[s] = 0;
                const int a = drift_of(0, s);
                if (!live(0, i, a))
                    continue;
                const real* R = block(0, i, a);
                for (int e = x0.e0(a), e1 = x0.e1(a); e < e1; ++e) {
                    const double u =
                        ws.beta_next[s + size_t(long(x0.dlo + e) * long(x0.stride))];
                    if (u == 0.0)
                        continue;
                    const real* row = R + size_t(e) * size_t(Q);
                    for (int D = 0; D < Q; ++D)
                        out[D] += double(row[D]) * u;
                    ws.nzX[s] = 1;
                }
            }
            for (int r = 1; r < M; ++r) {
                const axis& xr = ax[size_t(r)];
                const bool last = r == M - 1;
                for (size_t s = 0; s < S; ++s) {
                    double* out = ws.Y.data() + s * size_t(Q);
                    std::fill(out, out + Q, 0.0);
                    ws.nzY[s] = 0;
                    const int a = drift_of(r, s);
                    // the last pass only where alpha_i reaches: elsewhere
                    // beta_i weighs no path from the frame's start
                    if (!live(r, i, a) || (last && alpha_i[s] == 0.0))
                        continue;
                    const real* R = block(r, i, a);
                    for (int e = xr.e0(a), e1 = xr.e1(a); e < e1; ++e) {
                        const size_t t = s + size_t(long(xr.dlo + e) * long(xr.stride));
                        if (!ws.nzX[t])
                            continue;
                        const double* in = ws.X.data() + t * size_t(Q);
                        const real* row = R + size_t(e) * size_t(Q);
                        for (int D = 0; D < Q; ++D)
                            out[D] += double(row[D]) * in[D];
                        ws.nzY[s] = 1;
                    }
                }
                std::swap(ws.X, ws.Y);
                std::swap(ws.nzX, ws.nzY);
            }
            const double* P = prior_row(i);
            std::fill(ws.L.begin(), ws.L.end(), 0.0);
            double bs = 0;
            for (size_t s = 0; s < S; ++s) {
                double v = 0;
                if (ws.nzX[s] && alpha_i[s] != 0.0) {
                    const double* W = ws.X.data() + s * size_t(Q);
                    if (P) {
                        for (int D = 0; D < Q; ++D)
                            v += P[D] * W[D];
                    } else {
                        for (int D = 0; D < Q; ++D)
                            v += W[D];
                        v *= uniform;
                    }
                    for (int D = 0; D < Q; ++D)
                        ws.L[size_t(D)] += alpha_i[s] * W[D];
                }
                ws.beta_cur[s] = v;
                bs += v;
            }
            double ls = 0;
            if (P && !f.extrinsic) {
                for (int D = 0; D < Q; ++D)
                    ls += (ws.L[size_t(D)] *= P[D]);
            } else {
                for (int D = 0; D < Q; ++D)
                    ls += ws.L[size_t(D)];
            }
            double inv = 0, linv = 0;
            if (!model::normalizer(bs, inv) || !model::normalizer(ls, linv))
                return impossible(
                    detail::concat("the backward pass vanished at symbol ", i));
            for (size_t s = 0; s < S; ++s)
                ws.beta_cur[s] *= inv;
            double* out = post + size_t(i) * size_t(Q);
            for (int D = 0; D < Q; ++D)
                out[D] = ws.L[size_t(D)] / ls;
            std::swap(ws.beta_next, ws.beta_cur);
        }
        return {};
    }

    decoder_config d_base;
    std::vector<channel_tables<real>> d_channels;
};

} // namespace

std::unique_ptr<joint_decoder> make_joint_cpu_decoder(const decoder_config& base,
                                                      std::vector<read_channel> channels)
{
    if (base.precision == precision_kind::dual)
        return std::make_unique<joint_cpu<double>>(base, std::move(channels));
    return std::make_unique<joint_cpu<float>>(base, std::move(channels));
}

} // namespace reads
} // namespace bsid
