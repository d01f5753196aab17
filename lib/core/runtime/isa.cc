/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/isa.h"

namespace bsid {
namespace cpu {

isa best_isa()
{
#if BSID_ISA_X86
    static const isa best = [] {
        __builtin_cpu_init();
        if (__builtin_cpu_supports("x86-64-v4"))
            return isa::avx512;
        if (__builtin_cpu_supports("x86-64-v3"))
            return isa::avx2;
        return isa::baseline;
    }();
    return best;
#else
    return isa::baseline;
#endif
}

} // namespace cpu
} // namespace bsid
