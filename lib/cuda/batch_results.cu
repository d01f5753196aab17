/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The batch pipeline's last stage (batch_run.h): once the lane's stream is
// done, each frame's posteriors copied out of pinned memory into the
// caller's buffers, and its boundary metrics, evidence, events and result.

#include "batch_run.h"
#include "cuda_check.h"
#include "host_team.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/estimation/event_counts.h>
#include <type_traits>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace bsid {
namespace cuda {

template <typename real>
void batch_run<real>::finish()
{
    const int* status = ln.status_host.get();
    const int* where = status + count;
    const size_t A = size_t(dec.d_A);
    std::vector<double> ev_out, ev_items_host, ev_pairs;
    if (Fe > 0) {
        ev_out.resize(size_t(Fe) * 4);
        ln.ev_out.download(ev_out.data(), ev_out.size());
        if (any_items) {
            ev_items_host.resize(A * size_t(total));
            ln.ev_items.download(ev_items_host.data(), ev_items_host.size());
        }
        if (npairs > 0) {
            ev_pairs.resize(size_t(Fe) * size_t(npairs));
            ln.ev_pairs.download(ev_pairs.data(), ev_pairs.size());
        }
    }
    if (io) {
        for (size_t j = 0; j < count; ++j)
            results[todo[pos + j]] = status_result(status[j], where[j], rho[j]);
        return;
    }
    // the posteriors came through a pinned staging buffer kept between
    // batches: a fast copy, and no fresh host pages to fault in every batch
    std::vector<double> post_d;
    if (any_prior && want_post) {
        // frames with priors: posteriors in double (finish_kernel)
        post_d.resize(nout);
        ln.post_d.download(post_d.data(), nout);
    }
    if (want_post)
        copy_out(tail0, count, post_d.data());
    // the boundary metrics (alpha_N, beta_0) and the evidence of the frames
    // that ask for them, each gathered for the whole batch in one strided
    // copy (a copy per frame costs more than its decode)
    bool want_metrics = false, want_evidence = false;
    for (size_t j = 0; j < count; ++j) {
        want_metrics = want_metrics || frames[todo[pos + j]].boundary_metrics;
        want_evidence = want_evidence || frames[todo[pos + j]].log_evidence;
    }
    const size_t row = size_t(Nn + 1) * size_t(Mt) * sizeof(double);
    std::vector<double> alpha_N, beta_0, log_c, log_l;
    if (want_metrics) {
        alpha_N.resize(count * size_t(Mt));
        beta_0.resize(count * size_t(Mt));
        BSID_CUDA(cudaMemcpy2D(alpha_N.data(),
                               size_t(Mt) * sizeof(double),
                               ln.alpha.get() + size_t(Nn) * Mt,
                               row,
                               size_t(Mt) * sizeof(double),
                               count,
                               cudaMemcpyDeviceToHost));
        BSID_CUDA(cudaMemcpy2D(beta_0.data(),
                               size_t(Mt) * sizeof(double),
                               ln.beta.get(),
                               row,
                               size_t(Mt) * sizeof(double),
                               count,
                               cudaMemcpyDeviceToHost));
    }
    if (want_evidence) {
        log_c.resize(count);
        log_l.resize(count);
        BSID_CUDA(cudaMemcpy2D(log_c.data(),
                               sizeof(double),
                               ln.log_alpha_norm.get() + Nn,
                               size_t(Nn + 1) * sizeof(double),
                               sizeof(double),
                               count,
                               cudaMemcpyDeviceToHost));
        ln.log_lambda_end.download(log_l.data(), count);
    }
    for (size_t j = 0; j < count; ++j) {
        const size_t k = todo[pos + j];
        if (frames[k].events) {
            if (status[j] == st_ok) {
                const double* v = ev_out.data() + size_t(fe_of[j]) * 4;
                event_counts& ev = *frames[k].events;
                ev.ins = v[0];
                ev.del = v[1];
                ev.trans = v[2];
                ev.subst = v[3];
                if (frames[k].item_posteriors) {
                    const double* from = ev_items_host.data() + A * size_t(offset[j]);
                    std::copy(from, from + A * frames[k].rho, frames[k].item_posteriors);
                }
                if (frames[k].substitution_counts) {
                    const double* from =
                        ev_pairs.data() + size_t(fe_of[j]) * size_t(npairs);
                    std::copy(from, from + A * A, frames[k].substitution_counts);
                }
            } else {
                dec.write_no_events(frames[k]);
            }
        }
        if (frames[k].boundary_metrics) {
            // frame_decoder's boundary posteriors
            if (status[j] == st_ok)
                dec.write_boundary_metrics(frames[k],
                                           alpha_N.data() + j * size_t(Mt),
                                           beta_0.data() + j * size_t(Mt),
                                           in.host<double>(at_bounds) + j * size_t(Mt));
            else
                dec.write_boundary_metrics(frames[k], nullptr, nullptr, nullptr);
        }
        if (frames[k].log_evidence) {
            // ln of C_N lambda_N (base-2 logs on the device), less the
            // N ln q that the sums over D without priors carry (the CPU
            // divides them by q), plus tau ln Pt (map_decoder.h)
            *frames[k].log_evidence =
                status[j] == st_ok
                    ? (log_c[j] + log_l[j]) * std::log(2.0) -
                          (has_prior[j] ? 0.0 : double(Nn) * std::log(double(Q))) +
                          double(dec.tau()) * std::log(dec.d_cfg.ch.Pt())
                    : -std::numeric_limits<double>::infinity();
        }
        if (status[j] != st_ok || !want_post)
            dec.fill_uniform(post[k]); // (refused, or no frame asked: no pass L)
        results[k] = status_result(status[j], where[j], rho[j]);
    }
}

// A frame's result from its device status.
template <typename real>
frame_result batch_run<real>::status_result(int status, int where, long long rho) const
{
    if (status == st_ok)
        return {};
    std::string where_s =
        status == st_alpha ? detail::concat("no path reaches symbol boundary ", where)
        : status == st_end
            ? detail::concat("no path ends at drift rho - tau = ", rho - dec.tau())
            : detail::concat("the backward pass vanished at symbol ", where);
    return { frame_status::impossible,
             "the frame has probability 0 under the channel model within the drift "
             "limits (" +
                 where_s + ")" };
}

// The posteriors of frames todo[pos + j], j in [j0, j1), from the lane's
// pinned copies (staging, status_host) to their output buffers, on the
// lane's share of the cores (tens of MB per batch; a few frames on this
// thread alone: a team costs more than their copy). Frames with priors
// (has_prior) take theirs from post_d, in double; refused frames keep
// the uniform rows precheck or fail wrote.
template <typename real>
void batch_run<real>::copy_out(size_t j0, size_t j1, const double* post_d) const
{
    const int* status = ln.status_host.get();
    const real* out = ln.staging.get();
    for_each_index(j0, j1, j1 - j0 >= team_min_frames, dec.d_lane_threads, [&](size_t j) {
        const size_t k = todo[pos + j];
        if (status[j] != st_ok)
            return;
        double* to = post[k];
        if (has_prior[j]) {
            const double* from = post_d + j * NQ;
            std::copy(from, from + NQ, to);
            return;
        }
        const real* from = out + j * NQ;
        if constexpr (std::is_same<real, double>::value) {
            std::copy(from, from + NQ, to);
        } else {
            // single precision: each row normalized again in double, so that
            // it sums to 1 to double precision like the other backends' rows
            for (int i = 0; i < Nn; ++i, from += Q, to += Q) {
                double sum = 0;
                for (int D = 0; D < Q; ++D)
                    sum += double(from[D]);
                for (int D = 0; D < Q; ++D)
                    to[D] = double(from[D]) / sum;
            }
        }
    });
}

template void batch_run<float>::finish();
template void batch_run<double>::finish();
template void batch_run<float>::copy_out(size_t, size_t, const double*) const;
template void batch_run<double>::copy_out(size_t, size_t, const double*) const;

} // namespace cuda
} // namespace bsid
