/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_ISA_H
#define INCLUDED_BSID_CORE_ISA_H

/*
 * The instruction sets the CPU's vector kernels are compiled for, and how a
 * kernel picks its entry at run time: each kernel file compiles one entry per
 * set (BSID_TARGET_V3, BSID_TARGET_V4, or none for baseline) and calls
 * isa_entry with them. On other compilers and architectures only the baseline
 * entry exists (BSID_ISA_X86 is 0) and is used for every set.
 */

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define BSID_ISA_X86 1
#define BSID_TARGET_V4 __attribute__((target("arch=x86-64-v4")))
#define BSID_TARGET_V3 __attribute__((target("arch=x86-64-v3")))
#else
#define BSID_ISA_X86 0
#endif

#include <stdexcept>
#include <string>

namespace bsid {
namespace cpu {

//! The instruction sets the lane kernels are compiled for (x86-64 levels).
enum class isa {
    baseline = 0, //!< x86-64 (SSE2), or any other GCC target: 16-byte vectors
    avx2 = 1,     //!< x86-64-v3 (AVX2, FMA): up to 32-byte vectors
    avx512 = 2,   //!< x86-64-v4 (AVX-512): up to 64-byte vectors
};

/*!
 * The best of them this machine runs (always baseline on other compilers),
 * at most the set the environment variable BSID_CPU_ISA names ("baseline",
 * "avx2" or "avx512"): a cap, so that one machine can run, test and time
 * the entries of smaller machines. Read once, on the first call; a value
 * that names none of them throws std::invalid_argument.
 */
isa best_isa();

//! What the machine itself runs, without the cap.
isa machine_isa();

//! The set's name as BSID_CPU_ISA spells it.
const char* isa_name(isa i);

//! The set BSID_CPU_ISA's spelling names; std::invalid_argument for others.
isa parse_isa(const std::string& name);

/*!
 * The entry of a kernel for set i, of its entries for baseline, AVX2 and
 * AVX-512 (pass the baseline entry for all three where BSID_ISA_X86 is 0).
 * Throws std::invalid_argument where this machine does not run i.
 */
template <typename Fn>
Fn isa_entry(isa i, Fn base, Fn v3, Fn v4, const char* kernel)
{
    if (int(i) > int(best_isa()) || int(i) < 0)
        throw std::invalid_argument(std::string(kernel) +
                                    ": the instruction set is not available here");
    return i == isa::avx512 ? v4 : i == isa::avx2 ? v3 : base;
}

} // namespace cpu
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_ISA_H */
