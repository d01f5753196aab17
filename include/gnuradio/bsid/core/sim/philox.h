/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_PHILOX_H
#define INCLUDED_BSID_CORE_PHILOX_H

#include <array>
#include <cstdint>

namespace bsid {

/*!
 * \brief Philox4x32-10, the counter-based generator of Salmon et al.,
 * "Parallel random numbers: as easy as 1, 2, 3" (SC'11).
 *
 * A pure function of a 128-bit counter and a 64-bit key: the same
 * (counter, key) gives the same four 32-bit words on every thread, host and
 * device. This is what makes frame k of seed s reproducible everywhere.
 * Checked against the published known-answer vectors in qa_philox.cc.
 */
struct philox4x32_10 {
    using counter_type = std::array<uint32_t, 4>;
    using key_type = std::array<uint32_t, 2>;

    static constexpr uint32_t M0 = 0xD2511F53u; // round multipliers
    static constexpr uint32_t M1 = 0xCD9E8D57u;
    static constexpr uint32_t W0 = 0x9E3779B9u; // key schedule (Weyl) increments
    static constexpr uint32_t W1 = 0xBB67AE85u;
    static constexpr int rounds = 10;

    static counter_type block(counter_type ctr, key_type key)
    {
        for (int r = 0; r < rounds; ++r) {
            if (r > 0) { // the key is bumped before every round but the first
                key[0] += W0;
                key[1] += W1;
            }
            const uint64_t p0 = uint64_t(M0) * ctr[0];
            const uint64_t p1 = uint64_t(M1) * ctr[2];
            ctr = { uint32_t(p1 >> 32) ^ ctr[1] ^ key[0],
                    uint32_t(p1),
                    uint32_t(p0 >> 32) ^ ctr[3] ^ key[1],
                    uint32_t(p0) };
        }
        return ctr;
    }
};

/*!
 * \brief A sequential stream of random numbers drawn from Philox4x32-10.
 *
 * Stream (seed, id) is the sequence of 32-bit words
 *   philox(counter = {b_lo, b_hi, id_lo, id_hi}, key = {seed_lo, seed_hi})
 * for blocks b = 0, 1, 2, ..., each block giving its four words in order.
 * The layout is part of the project's reproducibility contract (see
 * docs/random-numbers.md): changing it changes every saved result.
 *
 * Stream ids below 2^63 are the channel's frames; ids from 2^63 upwards are
 * reserved for other users (random codebooks use 2^63 + book index).
 */
class philox_stream
{
public:
    philox_stream(uint64_t seed, uint64_t id)
        : d_key{ uint32_t(seed), uint32_t(seed >> 32) }, d_id(id)
    {
    }

    //! Next 32-bit word of the stream.
    uint32_t next_u32()
    {
        if (d_pos == 4) {
            refill();
        }
        return d_buf[d_pos++];
    }

    //! Uniform double in the open interval (0, 1), from 53 bits of two words.
    double next_open01()
    {
        const uint64_t hi = next_u32();
        const uint64_t lo = next_u32();
        const uint64_t bits53 = ((hi << 32) | lo) >> 11;
        return (double(bits53) + 0.5) * 0x1.0p-53;
    }

    //! Number of 32-bit words consumed so far.
    uint64_t position() const { return d_block * 4 - (4 - d_pos); }

private:
    void refill()
    {
        d_buf = philox4x32_10::block({ uint32_t(d_block),
                                       uint32_t(d_block >> 32),
                                       uint32_t(d_id),
                                       uint32_t(d_id >> 32) },
                                     d_key);
        ++d_block;
        d_pos = 0;
    }

    philox4x32_10::key_type d_key;
    uint64_t d_id;
    uint64_t d_block = 0;
    philox4x32_10::counter_type d_buf{};
    int d_pos = 4;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_PHILOX_H */
