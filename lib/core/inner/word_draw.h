/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Uniform words of n letters of an alphabet of A from a Philox stream: the
// draw of codebook::random and of the watermark codes' watermarks
// (docs/random-numbers.md).

#ifndef INCLUDED_BSID_INNER_WORD_DRAW_H
#define INCLUDED_BSID_INNER_WORD_DRAW_H

#include <gnuradio/bsid/core/sim/philox.h>
#include <cstdint>

namespace bsid {
namespace detail {

/*
 * Words of `words` = A^n values (at most 2^32): when that is a power of two
 * (every binary code) the word is the top log2(words) bits of a 32-bit x;
 * otherwise x is drawn again while x < 2^32 mod words, and the word is
 * (x - 2^32 mod words) mod words.
 */
class word_draw
{
public:
    explicit word_draw(uint64_t words)
        : d_words(words),
          d_pow2((words & (words - 1)) == 0),
          d_reject((1ULL << 32) % words)
    {
        while ((1ULL << d_bits) < words)
            ++d_bits;
    }

    uint32_t operator()(philox_stream& rng) const
    {
        for (;;) {
            const uint32_t x = rng.next_u32();
            if (d_pow2)
                return d_bits == 32 ? x : (d_bits == 0 ? 0u : x >> (32 - d_bits));
            if (x >= d_reject)
                return uint32_t((x - d_reject) % d_words);
        }
    }

private:
    uint64_t d_words;
    bool d_pow2;
    uint64_t d_reject;
    int d_bits = 0;
};

} // namespace detail
} // namespace bsid

#endif /* INCLUDED_BSID_INNER_WORD_DRAW_H */
