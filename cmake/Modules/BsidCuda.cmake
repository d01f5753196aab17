# Copyright 2026 gr-bsid authors.
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Optional CUDA toolchain detection, shared by both builds. Without nvcc the
# module builds and works on the CPU alone. See docs/building.md.
#
#   -DBSID_ENABLE_CUDA=OFF             never look for CUDA
#   -DCMAKE_CUDA_COMPILER=/path/nvcc   nvcc outside PATH (/usr/local/cuda/bin)
#   -DCMAKE_CUDA_ARCHITECTURES=...     default "90" (H100/H200) plus "native" where a GPU is seen

option(BSID_ENABLE_CUDA "Build the CUDA backend when a CUDA compiler is found" ON)
set(BSID_HAVE_CUDA OFF)
if(BSID_ENABLE_CUDA)
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
    else()
        message(STATUS "CUDA backend: disabled (no CUDA compiler found)")
    endif()
else()
    message(STATUS "CUDA backend: disabled (BSID_ENABLE_CUDA=OFF)")
endif()
