/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Whether the CUDA backend can run: the devices the runtime sees, and why
// none is usable (runtime/backends.h).

#include "launch_plan.h"
#include "runtime/backends.h"
#include "runtime/format.h"
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdexcept>
#include <string>

namespace bsid {

using namespace cuda;

int cuda_device_count()
{
    int count = 0; // left unwritten when there is no driver
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count > 0 ? count : 0;
}

bool cuda_device_available(int dev, std::string* why)
{
    int count = 0; // left unwritten when there is no driver
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        cudaGetLastError();
        const std::string runtime =
            std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
        if (!why)
            return false;
        if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice) {
            // without a driver the runtime reports an "insufficient" one: say what it
            // means
            void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
            if (!driver) {
                *why = "this machine has no GPU driver (libcuda.so.1 is not installed), "
                       "so no GPU "
                       "can be used";
            } else {
                dlclose(driver);
                *why = e == cudaErrorNoDevice
                           ? "the NVIDIA driver finds no GPU (" + runtime + ")"
                           : "the NVIDIA driver is older than this build's CUDA runtime "
                             "needs (" +
                                 runtime + ")";
            }
        } else {
            *why = runtime;
        }
        return false;
    }
    if (count <= 0) {
        if (why)
            *why = "no CUDA device";
        return false;
    }
    if (dev < 0 || dev >= count) {
        if (why)
            *why = detail::concat(
                "device ", dev, " was asked for but there are ", count, " devices");
        return false;
    }
    return true;
}

bool cuda_device_available(const decoder_config& cfg, std::string* why)
{
    try {
        return cuda_device_available(settings_from(cfg).device, why);
    } catch (const std::invalid_argument& e) {
        if (why)
            *why = e.what();
        return false;
    }
}

} // namespace bsid
