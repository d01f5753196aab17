/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Vectors whose data begins on a 64-byte boundary: a cache line, and the width
// of an AVX-512 vector. The CPU lattice loads and stores whole vectors of its
// rows; on memory that malloc aligns to 16 bytes only, one vector in four or
// more straddles two cache lines, and how many depends on what was allocated
// before (the speed of a decode would then hang on the heap's history).

#ifndef INCLUDED_BSID_RUNTIME_ALIGNED_VECTOR_H
#define INCLUDED_BSID_RUNTIME_ALIGNED_VECTOR_H

#include <cstddef>
#include <limits>
#include <new>
#include <vector>

namespace bsid {

template <typename T, std::size_t Align = 64>
struct aligned_allocator {
    static_assert(Align >= alignof(T) && (Align & (Align - 1)) == 0,
                  "a power of two, at least the type's own alignment");
    using value_type = T;
    template <typename U>
    struct rebind {
        using other = aligned_allocator<U, Align>;
    };

    aligned_allocator() noexcept = default;
    template <typename U>
    aligned_allocator(const aligned_allocator<U, Align>&) noexcept
    {
    }

    T* allocate(std::size_t n)
    {
        if (n > std::numeric_limits<std::size_t>::max() / sizeof(T))
            throw std::bad_array_new_length();
        return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(Align)));
    }
    void deallocate(T* p, std::size_t) noexcept
    {
        ::operator delete(p, std::align_val_t(Align));
    }

    template <typename U>
    bool operator==(const aligned_allocator<U, Align>&) const noexcept
    {
        return true;
    }
    template <typename U>
    bool operator!=(const aligned_allocator<U, Align>&) const noexcept
    {
        return false;
    }
};

//! A std::vector whose data is 64-byte aligned.
template <typename T>
using aligned_vector = std::vector<T, aligned_allocator<T>>;

} // namespace bsid

#endif
