/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/isa.h"
#include <gnuradio/bsid/core/inner/map_decoder.h>

#include <cstdlib>

namespace bsid {
namespace cpu {

isa machine_isa()
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

const char* isa_name(isa i)
{
    switch (i) {
    case isa::avx512:
        return "avx512";
    case isa::avx2:
        return "avx2";
    default:
        return "baseline";
    }
}

isa parse_isa(const std::string& name)
{
    for (isa i : { isa::baseline, isa::avx2, isa::avx512 })
        if (name == isa_name(i))
            return i;
    throw std::invalid_argument("BSID_CPU_ISA=\"" + name +
                                "\": expected baseline, avx2 or avx512");
}

isa best_isa()
{
    static const isa best = [] {
        const isa machine = machine_isa();
        const char* env = std::getenv("BSID_CPU_ISA");
        if (!env || !*env)
            return machine;
        const isa cap = parse_isa(env);
        return int(cap) < int(machine) ? cap : machine;
    }();
    return best;
}

} // namespace cpu

std::string cpu_isa() { return cpu::isa_name(cpu::best_isa()); }

} // namespace bsid
