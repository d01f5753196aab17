/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CUDA_PINNED_BUFFER_H
#define INCLUDED_BSID_CUDA_PINNED_BUFFER_H

#include "cuda_check.h"
#include <cstddef>

namespace bsid {
namespace cuda {

// Page-locked host memory, freed with its owner (RAII); kept and grown between
// batches. Copies between it and the device run at the bus's full rate, and a
// batch faults in no fresh host pages.
template <typename T>
class pinned_buffer
{
public:
    pinned_buffer() = default;
    ~pinned_buffer() { release(); }
    pinned_buffer(const pinned_buffer&) = delete;
    pinned_buffer& operator=(const pinned_buffer&) = delete;

    //! Grows the buffer to at least count items (contents not kept).
    void ensure(size_t count)
    {
        if (count <= d_count)
            return;
        release();
        BSID_CUDA(cudaMallocHost(reinterpret_cast<void**>(&d_ptr), count * sizeof(T)));
        d_count = count;
    }
    void release()
    {
        if (d_ptr)
            cudaFreeHost(d_ptr);
        d_ptr = nullptr;
        d_count = 0;
    }
    T* get() const { return d_ptr; }

private:
    T* d_ptr = nullptr;
    size_t d_count = 0;
};

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_PINNED_BUFFER_H */
