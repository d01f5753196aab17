/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The classic inner codes for synchronization errors, as time-varying
// codebooks (docs/capacity.md, "Classic inner codes"): Davey and MacKay's
// watermark codes and marker codes.

#include "inner/word_draw.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <stdexcept>
#include <string>

namespace bsid {

namespace {

[[noreturn]] void fail(const std::string& what)
{
    throw std::invalid_argument("codebook: " + what);
}

// a + b letter by letter (mod A), for words of n letters
codebook::word_type
add_letters(codebook::word_type a, codebook::word_type b, int n, int A)
{
    if (A == 2)
        return a ^ b;
    uint64_t out = 0, place = 1;
    for (int r = 0; r < n; ++r) {
        out += uint64_t((a % unsigned(A) + b % unsigned(A)) % unsigned(A)) * place;
        a /= unsigned(A);
        b /= unsigned(A);
        place *= uint64_t(A);
    }
    return codebook::word_type(out);
}

// The marker's letters as a spec writes them: digits up to ten letters,
// comma-separated integers beyond (parse_sync_word reads both back).
std::string marker_text(const std::vector<uint8_t>& marker, int A)
{
    std::string s;
    for (size_t j = 0; j < marker.size(); ++j) {
        if (A > 10 && j > 0)
            s += ',';
        s += std::to_string(int(marker[j]));
    }
    return s;
}

} // namespace

codebook codebook::watermark(int n, int q, int P, uint64_t seed, int alphabet)
{
    if (P < 1)
        fail(detail::concat("P = ", P, " must be at least 1"));
    const codebook sp = sparse(n, q, alphabet); // checks n, q and the alphabet
    uint64_t words = 1;
    for (int r = 0; r < n; ++r)
        words *= uint64_t(alphabet);
    const detail::word_draw draw(words);
    std::vector<std::vector<word_type>> books(static_cast<size_t>(P));
    for (int b = 0; b < P; ++b) {
        philox_stream rng(seed, (1ULL << 63) + (1ULL << 60) + uint64_t(b));
        const word_type w = draw(rng);
        for (word_type s : sp.books()[0])
            books[size_t(b)].push_back(add_letters(s, w, n, alphabet));
    }
    return codebook(n,
                    std::move(books),
                    alphabet,
                    detail::concat("watermark:", n, ":", q, ":", P, ":", seed));
}

codebook codebook::marker(int k, const std::vector<uint8_t>& marker, int alphabet)
{
    if (alphabet < 2 || alphabet > 256)
        fail(detail::concat("alphabet = ", alphabet, " must be between 2 and 256"));
    if (marker.empty())
        fail("a marker code needs at least one marker letter");
    for (size_t j = 0; j < marker.size(); ++j)
        if (int(marker[j]) >= alphabet)
            fail(detail::concat("marker letter ",
                                j,
                                " is ",
                                int(marker[j]),
                                ", not below alphabet = ",
                                alphabet));
    if (k < 1)
        fail(detail::concat("k = ", k, " data letters must be at least 1"));
    uint64_t q = 1;
    for (int r = 0; r < k && q <= 65536; ++r)
        q *= uint64_t(alphabet);
    if (q > 65536)
        fail(detail::concat("k = ",
                            k,
                            " data letters of an alphabet of ",
                            alphabet,
                            " make more than 65536 symbols (q = A^k)"));
    const int n = k + int(marker.size());
    uint64_t words = q;
    uint64_t m = 0; // the marker's value as the word's last letters
    for (uint8_t letter : marker) {
        words *= uint64_t(alphabet);
        if (words > (1ULL << 32))
            fail(detail::concat("n = k + m = ",
                                n,
                                " letters make more than 2^32 words (A^n must be at "
                                "most 2^32)"));
        m = m * uint64_t(alphabet) + letter;
    }
    const uint64_t shift = words / q; // A^m
    std::vector<word_type> book(static_cast<size_t>(q));
    for (uint64_t D = 0; D < q; ++D)
        book[size_t(D)] = word_type(D * shift + m);
    return codebook(n,
                    { book },
                    alphabet,
                    detail::concat("marker:", k, ":", marker_text(marker, alphabet)));
}

} // namespace bsid
