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
#   -DBSID_CUDA_DEVICE_OPT=3           the device code's optimization level (NVVM and ptxas),
#                                      0 to 3; DRIVER: 3 where an NVIDIA driver is present,
#                                      else 1, a build that only compiles the kernels
#                                      (scripts/run-tests; docs/building.md)

set(BSID_ENABLE_CUDA ON CACHE STRING
    "Build the CUDA backend: ON (where nvcc is found), DRIVER (where an NVIDIA driver is present too), OFF")
set_property(CACHE BSID_ENABLE_CUDA PROPERTY STRINGS ON DRIVER OFF)
set(BSID_CUDA_DEVICE_OPT 3 CACHE STRING
    "Optimization level of the CUDA device code, NVVM and ptxas: 0 to 3, or DRIVER (3 where an NVIDIA driver is present, else 1)")
set_property(CACHE BSID_CUDA_DEVICE_OPT PROPERTY STRINGS 3 2 1 0 DRIVER)
if(NOT BSID_CUDA_DEVICE_OPT MATCHES "^([0-3]|DRIVER)$")
    message(FATAL_ERROR "BSID_CUDA_DEVICE_OPT must be 0, 1, 2, 3 or DRIVER (got '${BSID_CUDA_DEVICE_OPT}')")
endif()
# whether an NVIDIA driver is present: the kernel module's version file, or the
# driver's library (not the toolkit's link stub in lib/stubs, lib64/stubs)
set(bsid_nvidia_driver OFF)
if(BSID_ENABLE_CUDA STREQUAL "DRIVER" OR BSID_CUDA_DEVICE_OPT STREQUAL "DRIVER")
    find_library(BSID_LIBCUDA NAMES libcuda.so.1 cuda
                 PATHS /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib64 /usr/lib
                 NO_DEFAULT_PATH)
    if(EXISTS /proc/driver/nvidia/version OR BSID_LIBCUDA)
        set(bsid_nvidia_driver ON)
    endif()
endif()
# the level lib/cuda passes to NVVM and ptxas
set(BSID_CUDA_DEVICE_LEVEL ${BSID_CUDA_DEVICE_OPT})
if(BSID_CUDA_DEVICE_OPT STREQUAL "DRIVER")
    if(bsid_nvidia_driver)
        set(BSID_CUDA_DEVICE_LEVEL 3)
    else()
        set(BSID_CUDA_DEVICE_LEVEL 1)
    endif()
endif()
set(BSID_HAVE_CUDA OFF)
set(bsid_cuda_wanted ${BSID_ENABLE_CUDA})
if(BSID_ENABLE_CUDA STREQUAL "DRIVER")
    if(bsid_nvidia_driver)
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
        if(NOT BSID_CUDA_DEVICE_LEVEL STREQUAL "3")
            message(STATUS "CUDA device code at optimization level ${BSID_CUDA_DEVICE_LEVEL}: "
                           "a build that compiles the kernels, not one to run or time them")
        endif()
    else()
        message(STATUS "CUDA backend: disabled (no CUDA compiler found)")
    endif()
elseif(NOT BSID_ENABLE_CUDA STREQUAL "DRIVER")
    message(STATUS "CUDA backend: disabled (BSID_ENABLE_CUDA=${BSID_ENABLE_CUDA})")
endif()
