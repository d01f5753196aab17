/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CUDA_STAGE_CLOCK_H
#define INCLUDED_BSID_CUDA_STAGE_CLOCK_H

// Profiling of the CUDA backend (bsid_bench's per-stage times).

#include "cuda_check.h"
#include <vector>

namespace bsid {
namespace cuda {

// Device time per stage: events recorded around each stage's launches, read
// once the batch has finished. Does nothing unless enabled.
class stage_clock
{
public:
    enum stage { gamma = 0, alpha = 1, beta = 2, L = 3 };
    explicit stage_clock(bool on) : d_on(on) {}
    ~stage_clock()
    {
        for (auto& m : d_marks) {
            cudaEventDestroy(m.a);
            cudaEventDestroy(m.b);
        }
    }
    void begin()
    {
        if (!d_on)
            return;
        mark m{};
        BSID_CUDA(cudaEventCreate(&m.a));
        BSID_CUDA(cudaEventCreate(&m.b));
        BSID_CUDA(cudaEventRecord(m.a));
        d_marks.push_back(m);
    }
    void end(stage s)
    {
        if (!d_on)
            return;
        d_marks.back().s = s;
        BSID_CUDA(cudaEventRecord(d_marks.back().b));
    }
    //! Seconds per stage; call after the device has finished.
    std::vector<double> collect() const
    {
        std::vector<double> t(4, 0.0);
        for (const auto& m : d_marks) {
            float ms = 0;
            BSID_CUDA(cudaEventElapsedTime(&ms, m.a, m.b));
            t[size_t(m.s)] += ms * 1e-3;
        }
        return t;
    }

private:
    struct mark {
        cudaEvent_t a, b;
        stage s;
    };
    bool d_on;
    std::vector<mark> d_marks;
};

} // namespace cuda
} // namespace bsid

#endif /* INCLUDED_BSID_CUDA_STAGE_CLOCK_H */
