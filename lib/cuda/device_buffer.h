/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CUDA_DEVICE_BUFFER_H
#define INCLUDED_BSID_CUDA_DEVICE_BUFFER_H

#include "cuda_check.h"
#include <cstddef>

namespace bsid {
namespace cuda {

// Device memory, freed with its owner (RAII); kept and grown between batches.
template <typename T>
class device_buffer
{
public:
    device_buffer() = default;
    explicit device_buffer(size_t count) { allocate(count); }
    ~device_buffer() { release(); }
    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;

    //! Grows the buffer to at least count items (contents not kept).
    void ensure(size_t count)
    {
        if (count > d_count)
            allocate(count);
    }
    size_t bytes() const { return d_count * sizeof(T); }
    void release()
    {
        if (d_ptr)
            cudaFree(d_ptr);
        d_ptr = nullptr;
        d_count = 0;
    }

    void allocate(size_t count)
    {
        release();
        if (count == 0)
            return;
        BSID_CUDA(cudaMalloc(reinterpret_cast<void**>(&d_ptr), count * sizeof(T)));
        d_count = count;
    }
    void upload(const T* host, size_t count)
    {
        if (count)
            BSID_CUDA(cudaMemcpy(d_ptr, host, count * sizeof(T), cudaMemcpyHostToDevice));
    }
    void download(T* host, size_t count) const
    {
        if (count)
            BSID_CUDA(cudaMemcpy(host, d_ptr, count * sizeof(T), cudaMemcpyDeviceToHost));
    }
    //! count values from element `offset` on.
    void download_at(T* host, size_t offset, size_t count) const
    {
        if (count)
            BSID_CUDA(cudaMemcpy(
                host, d_ptr + offset, count * sizeof(T), cudaMemcpyDeviceToHost));
    }
    T* get() const { return d_ptr; }

private:
    T* d_ptr = nullptr;
    size_t d_count = 0;
};

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_DEVICE_BUFFER_H */
