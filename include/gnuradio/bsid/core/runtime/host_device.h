/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_HOST_DEVICE_H
#define INCLUDED_BSID_CORE_HOST_DEVICE_H

/*
 * BSID_HD marks a function of the headers that compile as plain C++ and
 * under nvcc (inner/model.h, channel/channel_model.h): host and device code,
 * always inlined.
 */
#if defined(__CUDACC__)
#define BSID_HD __host__ __device__ __forceinline__
#elif defined(__GNUC__)
// always inlined: the CPU lattice calls the cells inside vectorized loops of
// functions compiled once per instruction set (target_clones), where a call
// would stop the vectorization
#define BSID_HD inline __attribute__((always_inline))
#else
#define BSID_HD inline
#endif

#endif /* INCLUDED_BSID_CORE_HOST_DEVICE_H */
