/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The codebooks behind "builtin:NAME" specs, in the codebook file format.
// Their content is frozen: saved results name them by spec.

#include "inner/builtin_codebooks.h"

namespace bsid {
namespace detail {

namespace {

// builtin:ld3-modvec6. The same text ships as codebooks/ld3-modvec6_n8_q16.txt.
const char ld3_modvec6[] = R"(
# Time-varying (n=8, q=16) block code from the literature (named (8,16)-ld3 there), with each
# codeword XORed with one of 6 modification vectors used cyclically: C_i(D) = book[i mod 6][D].
# Format: '#' lines are comments; the first other line is 'n q P'; then P lines of q integers
# (codewords, most significant bit transmitted first).
8 16 6
206 248 245 159 28 146 129 7 83 10 172 96 49 227 127 54
92 106 103 13 142 0 19 149 193 152 62 242 163 113 237 164
49 7 10 96 227 109 126 248 172 245 83 159 206 28 128 201
131 181 184 210 81 223 204 74 30 71 225 45 124 174 50 123
163 149 152 242 113 255 236 106 62 103 193 13 92 142 18 91
124 74 71 45 174 32 51 181 225 184 30 210 131 81 205 132
)";

} // namespace

const std::vector<builtin_codebook>& builtin_codebooks()
{
    static const std::vector<builtin_codebook> list = {
        { "ld3-modvec6", ld3_modvec6 },
    };
    return list;
}

} // namespace detail
} // namespace bsid
