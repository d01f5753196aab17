/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_BUILTIN_CODEBOOKS_H
#define INCLUDED_BSID_CORE_BUILTIN_CODEBOOKS_H

#include <vector>

namespace bsid {
namespace detail {

//! A codebook shipped with the module: its name and the text of its file.
struct builtin_codebook {
    const char* name;
    const char* text;
};

const std::vector<builtin_codebook>& builtin_codebooks();

} // namespace detail
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_BUILTIN_CODEBOOKS_H */
