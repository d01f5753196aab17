/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_FLUSH_DENORMALS_H
#define INCLUDED_BSID_CORE_FLUSH_DENORMALS_H

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace bsid::detail {

/*
 * Flush-to-zero and denormals-are-zero while a frame is decoded. Values below
 * the smallest normal float (1e-38, relative to a normalized alpha of order
 * 1) change no posterior at float precision, but subnormal arithmetic is
 * about a hundred times slower on x86. The caller's mode is restored.
 */
class flush_denormals
{
public:
#if defined(__SSE__)
    flush_denormals() : d_saved(_mm_getcsr()) { _mm_setcsr(d_saved | 0x8040); }
    ~flush_denormals() { _mm_setcsr(d_saved); }

private:
    unsigned d_saved;
#endif
};

} // namespace bsid::detail

#endif /* INCLUDED_BSID_CORE_FLUSH_DENORMALS_H */
