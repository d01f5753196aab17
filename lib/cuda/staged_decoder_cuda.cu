/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA MAP decoder's staged face for the concatenated decoder's device
// loop (device_loop.h): a batch's received items copied to the device once
// (stage), then decoded with priors from and extrinsic outputs to the device
// as often as the loop asks (decode_staged, through the batch pipeline).

#include "cuda_check.h"
#include "map_decoder_cuda.h"
#include <omp.h>
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

namespace bsid {
namespace cuda {

template <typename real>
std::vector<char> cuda_decoder<real>::stage(const std::vector<frame_view>& frames,
                                            std::vector<frame_result>& results)
{
    results.assign(frames.size(), frame_result{});
    std::vector<char> valid(frames.size(), 0);
    for (size_t k = 0; k < frames.size(); ++k) {
        if (frames[k].priors)
            validate_priors(frames[k].priors, frames[k].log_priors);
        valid[k] = precheck(frames[k], results[k]);
    }
    std::lock_guard<std::mutex> lock(d_mutex);
    BSID_CUDA(cudaSetDevice(d_device));
    d_staged.frames = &frames;
    d_staged.offset.assign(frames.size(), 0);
    d_staged.soft = false;
    long long total = 0;
    for (size_t k = 0; k < frames.size(); ++k) {
        if (!valid[k])
            continue;
        d_staged.soft = d_staged.soft || soft_frame(frames[k]);
        d_staged.offset[k] = total;
        total += (long long)frames[k].rho;
    }
    d_staged.soft = d_staged.soft && total > 0;
    const size_t T = size_t(std::max<long long>(total, 1));
    if (d_staged.soft) {
        // every frame's items in the soft form, as run() does
        const size_t per = soft_per_item();
        std::vector<double> llr(per * T, 0.0);
        for (size_t k = 0; k < frames.size(); ++k) {
            if (valid[k])
                soft_host(frames[k], llr.data() + per * size_t(d_staged.offset[k]));
        }
        d_staged_llr.ensure(per * T);
        d_staged_soft.ensure(std::max<size_t>(per, 2) * T);
        d_staged_llr.upload(llr.data(), per * T);
        soft_on_device(d_staged_llr.get(), d_staged_soft.get(), total);
    } else {
        std::vector<uint8_t> bits(T, 0);
        for (size_t k = 0; k < frames.size(); ++k) {
            if (valid[k])
                std::copy(frames[k].bits,
                          frames[k].bits + frames[k].rho,
                          bits.begin() + d_staged.offset[k]);
        }
        d_staged_bits.ensure(T);
        d_staged_bits.upload(bits.data(), T);
    }
    return valid;
}

template <typename real>
void cuda_decoder<real>::decode_staged(const std::vector<size_t>& which,
                                       const double* log_priors,
                                       double* ext,
                                       std::vector<frame_result>& results)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (!d_staged.frames)
        throw std::logic_error("map_decoder(cuda): decode_staged without a staged batch");
    const auto& frames = *d_staged.frames;
    const size_t NQ = size_t(N()) * size_t(q());
    std::vector<double*> none(frames.size(), nullptr);
    lane& ln = *d_lanes[0]; // on the caller's thread and stream
    d_lane_threads = omp_get_max_threads();
    size_t pos = 0;
    while (pos < which.size()) {
        size_t count = which.size() - pos, W = 0;
        std::unique_lock<std::mutex> plan(d_plan_mutex);
        while (true) {
            W = window_for(ln, frames, which, pos, count);
            if (W >= 1 || count == 1)
                break;
            count = (count + 1) / 2;
        }
        if (W < 1)
            throw std::runtime_error(
                "map_decoder(cuda): a frame does not fit in device memory");
        staged_io io;
        io.log_priors = log_priors ? log_priors + pos * NQ : nullptr;
        io.ext = ext + pos * NQ;
        run({ ln, frames, none, which, pos, count, W, results, &io, &plan, {} });
        pos += count;
    }
}

template <typename real>
void cuda_decoder<real>::release()
{
    std::lock_guard<std::mutex> lock(d_mutex);
    BSID_CUDA(cudaSetDevice(d_device));
    d_staged = staged_batch{};
    d_staged_bits.release();
    d_staged_llr.release();
    d_staged_soft.release();
    for (auto& ln : d_lanes)
        ln->release_cache();
}

template void cuda_decoder<float>::release();
template void cuda_decoder<double>::release();
template std::vector<char> cuda_decoder<float>::stage(const std::vector<frame_view>&,
                                                      std::vector<frame_result>&);
template std::vector<char> cuda_decoder<double>::stage(const std::vector<frame_view>&,
                                                       std::vector<frame_result>&);
template void cuda_decoder<float>::decode_staged(const std::vector<size_t>&,
                                                 const double*,
                                                 double*,
                                                 std::vector<frame_result>&);
template void cuda_decoder<double>::decode_staged(const std::vector<size_t>&,
                                                  const double*,
                                                  double*,
                                                  std::vector<frame_result>&);

} // namespace cuda
} // namespace bsid
