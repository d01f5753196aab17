/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CUDA_CUDA_CHECK_H
#define INCLUDED_BSID_CUDA_CUDA_CHECK_H

// Every CUDA runtime call of the backend goes through BSID_CUDA: a failure
// becomes a cuda_error (a std::runtime_error carrying the cudaError_t), with
// the call's text, and the runtime's sticky error state is cleared.

#include <cuda_runtime.h>
#include <stdexcept>
#include <string>

namespace bsid {
namespace cuda {

class cuda_error : public std::runtime_error
{
public:
    cuda_error(const char* what, cudaError_t e)
        : std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorName(e) +
                             " (" + cudaGetErrorString(e) + ")"),
          code(e)
    {
    }
    cudaError_t code;
};

#define BSID_CUDA(call)                        \
    do {                                       \
        const cudaError_t e_ = (call);         \
        if (e_ != cudaSuccess) {               \
            cudaGetLastError(); /* clear it */ \
            throw cuda_error(#call, e_);       \
        }                                      \
    } while (0)

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_CUDA_CHECK_H */
