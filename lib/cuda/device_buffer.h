/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CUDA_DEVICE_BUFFER_H
#define INCLUDED_BSID_CUDA_DEVICE_BUFFER_H

#include "cuda_check.h"
#include <atomic>
#include <cstddef>

namespace bsid {
namespace cuda {

// How many device allocations this process has made (every device_buffer's):
// a caller that tracks the device's peak use queries the device again only
// when this has moved.
inline std::atomic<unsigned long long>& device_allocations()
{
    static std::atomic<unsigned long long> count{ 0 };
    return count;
}

// Where a buffer lives: device memory, or page-locked host memory (copies
// between it and the device run at the bus's full rate, and a batch faults in
// no fresh host pages).
struct device_memory {
    static constexpr bool on_device = true;
    static cudaError_t allocate(void** p, size_t bytes)
    {
        device_allocations().fetch_add(1, std::memory_order_relaxed);
        return cudaMalloc(p, bytes);
    }
    static void free(void* p) { cudaFree(p); }
};
struct pinned_host_memory {
    static constexpr bool on_device = false;
    static cudaError_t allocate(void** p, size_t bytes)
    {
        return cudaMallocHost(p, bytes);
    }
    static void free(void* p) { cudaFreeHost(p); }
};

// Memory freed with its owner (RAII); kept and grown between batches.
template <typename T, typename Memory>
class cuda_buffer
{
public:
    cuda_buffer() = default;
    explicit cuda_buffer(size_t count) { allocate(count); }
    ~cuda_buffer() { release(); }
    cuda_buffer(const cuda_buffer&) = delete;
    cuda_buffer& operator=(const cuda_buffer&) = delete;

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
            Memory::free(d_ptr);
        d_ptr = nullptr;
        d_count = 0;
    }

    void allocate(size_t count)
    {
        release();
        if (count == 0)
            return;
        BSID_CUDA(Memory::allocate(reinterpret_cast<void**>(&d_ptr), count * sizeof(T)));
        d_count = count;
    }
    // the copies below are between device memory and (any) host memory
    void upload(const T* host, size_t count)
    {
        static_assert(Memory::on_device, "a copy to or from the device");
        if (count)
            BSID_CUDA(cudaMemcpy(d_ptr, host, count * sizeof(T), cudaMemcpyHostToDevice));
    }
    void download(T* host, size_t count) const
    {
        static_assert(Memory::on_device, "a copy to or from the device");
        if (count)
            BSID_CUDA(cudaMemcpy(host, d_ptr, count * sizeof(T), cudaMemcpyDeviceToHost));
    }
    //! As download, queued on this thread's stream (host: pinned memory,
    //! read only once the stream is synchronized).
    void download_async(T* host, size_t count) const
    {
        download_async_at(host, 0, count, cudaStreamPerThread);
    }
    //! Items [offset, offset + count) to host[0, count), queued on stream.
    void
    download_async_at(T* host, size_t offset, size_t count, cudaStream_t stream) const
    {
        static_assert(Memory::on_device, "a copy to or from the device");
        if (count)
            BSID_CUDA(cudaMemcpyAsync(
                host, d_ptr + offset, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
    }
    //! count values from element `offset` on.
    void download_at(T* host, size_t offset, size_t count) const
    {
        static_assert(Memory::on_device, "a copy to or from the device");
        if (count)
            BSID_CUDA(cudaMemcpy(
                host, d_ptr + offset, count * sizeof(T), cudaMemcpyDeviceToHost));
    }
    T* get() const { return d_ptr; }

private:
    T* d_ptr = nullptr;
    size_t d_count = 0;
};

template <typename T>
using device_buffer = cuda_buffer<T, device_memory>;
template <typename T>
using pinned_buffer = cuda_buffer<T, pinned_host_memory>;

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_DEVICE_BUFFER_H */
