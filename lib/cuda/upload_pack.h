/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CUDA_UPLOAD_PACK_H
#define INCLUDED_BSID_CUDA_UPLOAD_PACK_H

#include "device_buffer.h"
#include <cstddef>

namespace bsid {
namespace cuda {

/*!
 * \brief Several input arrays of a batch sent to the device in one copy.
 *
 * Each array gets a place in one block of page-locked host memory (add(),
 * then ensure()); the caller fills them there (host()) and upload() copies the
 * block to its device twin in one asynchronous copy on the calling thread's
 * stream, in order with the kernels that read it (device()). A synchronous
 * copy costs about 6 us of host time each, and a one-frame decode would make
 * four of them (docs/benchmarks.md, "The one-frame latency, host side").
 *
 * The host block must not be written again before the copy is done: clear()
 * waits for the last upload() (an event recorded behind it; free where the
 * caller has already waited for its stream, as map_decoder_cuda does at the
 * end of every chunk, and the guard where a batch threw between the two).
 */
class upload_pack
{
public:
    upload_pack() = default;
    upload_pack(const upload_pack&) = delete;
    upload_pack& operator=(const upload_pack&) = delete;
    ~upload_pack()
    {
        if (d_sent)
            cudaEventDestroy(d_sent); // no throw from a destructor
    }

    //! Starts a new layout (the memory is kept), once the last upload is done.
    void clear()
    {
        if (d_sent)
            BSID_CUDA(cudaEventSynchronize(d_sent));
        d_size = 0;
    }

    //! Makes room for count items of T; returns its place for host() and device().
    template <typename T>
    size_t add(size_t count)
    {
        const size_t at = (d_size + align - 1) / align * align;
        d_size = at + count * sizeof(T);
        return at;
    }

    //! Grows both blocks to the layout (contents not kept), by a quarter
    //! more than asked: batches of slightly different sizes (received frames
    //! vary in length) would otherwise grow it again and again, and freeing
    //! pinned or device memory waits for the whole device.
    void ensure()
    {
        if (d_size > d_device.bytes()) {
            d_host.allocate(d_size + d_size / 4);
            d_device.allocate(d_size + d_size / 4);
        }
    }

    template <typename T>
    T* host(size_t at) const
    {
        return reinterpret_cast<T*>(d_host.get() + at);
    }
    template <typename T>
    T* device(size_t at) const
    {
        return reinterpret_cast<T*>(d_device.get() + at);
    }

    //! The whole layout to the device, on this thread's stream.
    void upload()
    {
        if (!d_size)
            return;
        if (!d_sent)
            BSID_CUDA(cudaEventCreateWithFlags(&d_sent, cudaEventDisableTiming));
        BSID_CUDA(cudaMemcpyAsync(d_device.get(),
                                  d_host.get(),
                                  d_size,
                                  cudaMemcpyHostToDevice,
                                  cudaStreamPerThread));
        BSID_CUDA(cudaEventRecord(d_sent, cudaStreamPerThread));
    }

    //! count items of T at place at (as the kernels left them) to to, queued
    //! on stream (this thread's by default); to must be page-locked for the
    //! copy to be asynchronous, and is valid once the stream has been waited for.
    template <typename T>
    void download_async(size_t at,
                        T* to,
                        size_t count,
                        cudaStream_t stream = cudaStreamPerThread) const
    {
        if (count)
            BSID_CUDA(cudaMemcpyAsync(
                to, device<T>(at), count * sizeof(T), cudaMemcpyDeviceToHost, stream));
    }

    //! Device bytes held.
    size_t bytes() const { return d_device.bytes(); }

private:
    static constexpr size_t align = 256; // as cudaMalloc aligns
    size_t d_size = 0;
    cudaEvent_t d_sent = nullptr; // recorded behind the last upload()
    pinned_buffer<unsigned char> d_host;
    device_buffer<unsigned char> d_device;
};

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_UPLOAD_PACK_H */
