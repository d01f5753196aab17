/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Per-row conversions of the MAP decoder's inputs and outputs when they stay
// on the device (the concatenated decoder's device loop, device_loop.h): the
// same arithmetic as the host's map_decoder::normalized_priors and as the
// host copy of single-precision posteriors in map_decoder_cuda.cu.

#include "cuda_check.h"
#include "kernel_launchers.h"
#include <type_traits>
#include <cfloat>

namespace bsid {
namespace cuda {
namespace {

template <typename real>
__global__ void prior_rows_kernel(
    const double* log_priors, long long rows, int q, real* pr, double* exact)
{
    for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < rows;
         r += (long long)gridDim.x * blockDim.x) {
        const double* l = log_priors + r * q;
        double* ex = exact + r * q;
        real* out = pr + r * q;
        double top = -INFINITY;
        for (int D = 0; D < q; ++D)
            top = l[D] > top ? l[D] : top;
        if (!isfinite(top)) {
            // no finite maximum (never from the loop's own mapping): uniform
            for (int D = 0; D < q; ++D) {
                ex[D] = 1.0 / q;
                out[D] = real(1.0 / q);
            }
            continue;
        }
        double sum = 0;
        for (int D = 0; D < q; ++D)
            sum += (ex[D] = exp(l[D] - top));
        const real least = sizeof(real) == 4 ? real(FLT_MIN) : real(DBL_MIN);
        for (int D = 0; D < q; ++D) {
            ex[D] /= sum;
            out[D] = ex[D] > 0 ? (ex[D] > double(least) ? real(ex[D]) : least) : real(0);
        }
    }
}

template <typename real>
__global__ void rows_to_double_kernel(const real* in, long long rows, int q, double* out)
{
    for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < rows;
         r += (long long)gridDim.x * blockDim.x) {
        const real* from = in + r * q;
        double* to = out + r * q;
        if constexpr (std::is_same<real, double>::value) {
            for (int D = 0; D < q; ++D)
                to[D] = from[D];
        } else {
            double sum = 0;
            for (int D = 0; D < q; ++D)
                sum += double(from[D]);
            for (int D = 0; D < q; ++D)
                to[D] = double(from[D]) / sum;
        }
    }
}

unsigned grid_for(long long rows)
{
    return unsigned(std::min<long long>((rows + 127) / 128, 65535));
}

} // namespace

template <typename real>
void launch_prior_rows(
    const double* log_priors, long long rows, int q, real* priors, double* exact)
{
    if (rows <= 0)
        return;
    prior_rows_kernel<real><<<grid_for(rows), 128>>>(log_priors, rows, q, priors, exact);
    BSID_CUDA(cudaGetLastError());
}

template <typename real>
void launch_rows_to_double(const real* in, long long rows, int q, double* out)
{
    if (rows <= 0)
        return;
    rows_to_double_kernel<real><<<grid_for(rows), 128>>>(in, rows, q, out);
    BSID_CUDA(cudaGetLastError());
}

template void launch_prior_rows<float>(const double*, long long, int, float*, double*);
template void launch_prior_rows<double>(const double*, long long, int, double*, double*);
template void launch_rows_to_double<float>(const float*, long long, int, double*);
template void launch_rows_to_double<double>(const double*, long long, int, double*);

} // namespace cuda
} // namespace bsid
