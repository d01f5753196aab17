# Copyright 2026 gr-bsid authors.
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Optional CUDA toolchain detection, shared by both builds. Without nvcc the
# module builds and works on the CPU alone. See docs/building.md.
#
#   -DBSID_ENABLE_CUDA=ON              (default) the CUDA backend wherever nvcc is found:
#                                      every kernel compiles, as the tests and CI need
#   -DBSID_ENABLE_CUDA=DRIVER          only where an NVIDIA driver is present too (the
#                                      kernel module's /proc/driver/nvidia, or libcuda):
#                                      a build for use on this machine, as scripts/demo
#                                      and packages built on the machine they serve
#   -DBSID_ENABLE_CUDA=OFF             never look for CUDA
#   -DCMAKE_CUDA_COMPILER=/path/nvcc   nvcc outside PATH (/usr/local/cuda/bin)
#   -DCMAKE_CUDA_ARCHITECTURES=...     default "90" (H100/H200) plus "native" where a GPU is seen
#   -DBSID_CUDA_DEVICE_OPT=3           the device code's optimization level (NVVM and ptxas):
#                                      3 (default) for kernels that run; 1 compiles every
#                                      kernel through the same steps about 4 times faster, for
#                                      a machine that cannot run them (scripts/run-tests, CI)

set(BSID_ENABLE_CUDA ON CACHE STRING
    "Build the CUDA backend: ON (where nvcc is found), DRIVER (where an NVIDIA driver is present too), OFF")
set_property(CACHE BSID_ENABLE_CUDA PROPERTY STRINGS ON DRIVER OFF)
set(BSID_CUDA_DEVICE_OPT 3 CACHE STRING
    "Optimization level of the CUDA device code, NVVM and ptxas: 3 for kernels that run, 0 to 2 for a build that only compiles them")
set_property(CACHE BSID_CUDA_DEVICE_OPT PROPERTY STRINGS 3 2 1 0)
if(NOT BSID_CUDA_DEVICE_OPT MATCHES "^[0-3]$")
    message(FATAL_ERROR "BSID_CUDA_DEVICE_OPT must be 0, 1, 2 or 3 (got '${BSID_CUDA_DEVICE_OPT}')")
endif()
set(BSID_HAVE_CUDA OFF)
set(bsid_cuda_wanted ${BSID_ENABLE_CUDA})
if(BSID_ENABLE_CUDA STREQUAL "DRIVER")
    # the driver's library, not the toolkit's link stub (lib/stubs, lib64/stubs)
    find_library(BSID_LIBCUDA NAMES libcuda.so.1 cuda
                 PATHS /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib64 /usr/lib
                 NO_DEFAULT_PATH)
    if(EXISTS /proc/driver/nvidia/version OR BSID_LIBCUDA)
        set(bsid_cuda_wanted ON)
    else()
        set(bsid_cuda_wanted OFF)
        message(STATUS "CUDA backend: disabled (BSID_ENABLE_CUDA=DRIVER and no NVIDIA driver here)")
    endif()
elseif(NOT BSID_ENABLE_CUDA STREQUAL "ON" AND BSID_ENABLE_CUDA)
    # (other true values: TRUE, YES, 1)
    set(bsid_cuda_wanted ON)
endif()
if(bsid_cuda_wanted)
    if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
        set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
    endif()
    # nvcc's host compiler is the C++ compiler of the build, unless set: two
    # toolchains would link two libstdc++ into one library
    if(NOT CMAKE_CUDA_HOST_COMPILER AND NOT DEFINED ENV{CUDAHOSTCXX}
       AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
        set(CMAKE_CUDA_HOST_COMPILER ${CMAKE_CXX_COMPILER})
    endif()
    include(CheckLanguage)
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
        if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
            # CUDA 13 rejects architectures below 75; 90 is the H100/H200.
            set(CMAKE_CUDA_ARCHITECTURES 90)
        endif()
        enable_language(CUDA)
        find_package(CUDAToolkit REQUIRED)
        set(BSID_HAVE_CUDA ON)
        message(STATUS "CUDA backend: enabled (${CMAKE_CUDA_COMPILER}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
        if(NOT BSID_CUDA_DEVICE_OPT STREQUAL "3")
            message(STATUS "CUDA device code at optimization level ${BSID_CUDA_DEVICE_OPT}: "
                           "a build that compiles the kernels, not one to run or time them")
        endif()
    else()
        message(STATUS "CUDA backend: disabled (no CUDA compiler found)")
    endif()
elseif(NOT BSID_ENABLE_CUDA STREQUAL "DRIVER")
    message(STATUS "CUDA backend: disabled (BSID_ENABLE_CUDA=${BSID_ENABLE_CUDA})")
endif()
