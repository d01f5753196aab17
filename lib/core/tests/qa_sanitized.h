/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Whether the tests run under a sanitizer (address, thread or memory): they
// reserve address space (no memory limit can be set) and run many times
// slower, so a few tests adapt.

#ifndef INCLUDED_BSID_QA_SANITIZED_H
#define INCLUDED_BSID_QA_SANITIZED_H

namespace bsid {
namespace qa {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif
#else
constexpr bool sanitized = false;
#endif

} // namespace qa
} // namespace bsid

#endif /* INCLUDED_BSID_QA_SANITIZED_H */
