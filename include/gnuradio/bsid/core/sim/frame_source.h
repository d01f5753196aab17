/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_FRAME_SOURCE_H
#define INCLUDED_BSID_CORE_FRAME_SOURCE_H

#include <gnuradio/bsid/core/channel/channel_params.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/outer/ldpc_code.h>
#include <gnuradio/bsid/core/outer/symbol_mapping.h>
#include <gnuradio/bsid/core/reads/reads_decoder.h>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace bsid {

//! A batch of simulated frames, as frame_source::generate() fills it.
struct frame_batch {
    uint64_t first = 0;                   //!< index of the batch's first frame
    int N = 0;                            //!< message symbols per frame
    std::vector<int32_t> symbols;         //!< size() rows of N sent symbols
    std::vector<std::vector<uint8_t>> rx; //!< the received bits of each frame (0/1 bytes)
    /*!
     * Reads per frame (frame_source::set_reads): rx holds each frame's read
     * 0, `more` its reads 1 .. reads - 1, frame j's read r at
     * more[j (reads - 1) + r - 1].
     */
    int reads = 1;
    std::vector<std::vector<uint8_t>> more;
    //! With an outer code: the k information symbols of each frame (size() rows)
    int k = 0;
    std::vector<int32_t> info;

    size_t size() const { return rx.size(); }
    //! Frame k of the batch as the decoder reads it (uniform priors).
    frame_view view(size_t k) const { return { rx[k].data(), rx[k].size(), nullptr }; }
    const int32_t* sent(size_t k) const { return symbols.data() + k * size_t(N); }
    const int32_t* sent_info(size_t j) const { return info.data() + j * size_t(k); }
    //! Read r of frame j (r < reads).
    const std::vector<uint8_t>& read(size_t j, int r) const
    {
        return r == 0 ? rx[j] : more[j * size_t(reads - 1) + size_t(r - 1)];
    }
    //! Frame j's reads as reads_decoder takes them (bits, uniform priors).
    frame_reads reads_of(size_t j) const
    {
        frame_reads f;
        for (int r = 0; r < reads; ++r) {
            const auto& y = read(j, r);
            f.reads.push_back({ y.data(), nullptr, y.size() });
        }
        return f;
    }
};

//! One simulated frame with everything about it (failure dumps, replays).
struct simulated_frame {
    uint64_t index = 0;
    std::vector<int32_t> symbols; //!< the N sent symbols
    std::vector<int32_t> info;    //!< with an outer code: its k information symbols
    std::vector<uint8_t> tx;      //!< the G + tau transmitted bits (W, then n N)
    std::vector<uint8_t> rx;      //!< the rho received bits
    std::vector<int32_t>
        drift; //!< tau + 1 values: the true drift path, as transmit() gives it
};

/*!
 * \brief The simulator's frames: random messages, encoded, sent through the
 * BSID channel, in batches over threads.
 *
 * Frame k of seed s is a pure function of (codebook, channel, N, s, k), on any
 * thread count (docs/random-numbers.md):
 *  - its message symbols come from the Philox stream (s, 2^63 + 2^62 + k).
 *    Each symbol takes one 32-bit word x and is (x q) >> 32, except that x is
 *    drawn again while (x q) mod 2^32 < 2^32 mod q (Lemire's unbiased
 *    multiply-and-reject, ACM TOMACS 29(1), 2019). For a power-of-two q
 *    nothing is ever rejected, and D is the top log2 q bits of x;
 *  - the codewords are codebook::encode() of the message (position i uses
 *    book i mod P), after the sync word W if there is one;
 *  - the channel is frame k of seed s: channel_emulator(ch, s, k), the same
 *    output as transmit(ch, bits, s, k).
 * Frame indices must be below 2^62.
 */
class frame_source
{
public:
    //! First stream id of the message streams (frame k uses this + k).
    static constexpr uint64_t message_stream_base =
        (uint64_t(1) << 63) + (uint64_t(1) << 62);
    static constexpr uint64_t max_frames = uint64_t(1) << 62;

    /*!
     * sync_word: the word W sent before every frame's codewords (bits 0/1;
     * empty for none), so that frame k's transmitted bits are W || X(D).
     * Throws std::invalid_argument if N < 1 or a sync word bit is not 0 or 1.
     */
    frame_source(const codebook& cb,
                 const channel_params& ch,
                 int N,
                 uint64_t seed,
                 std::vector<uint8_t> sync_word = {});

    /*!
     * \brief Frames of a concatenated scheme (docs/concatenated.md): frame
     * k's k information symbols over GF(q_o) are drawn from the same message
     * stream by the same rule (with q_o for q), encoded by the outer code,
     * mapped to the N = symbol_mapping(q_o, n, q).n_inner() inner symbols
     * (symbol_mapping::to_inner) and sent like any other frame. Throws
     * std::invalid_argument if no mapping joins the two codes.
     */
    frame_source(const codebook& cb,
                 const channel_params& ch,
                 const ldpc_code& outer,
                 uint64_t seed,
                 std::vector<uint8_t> sync_word = {});

    /*!
     * \brief Fills `out` with frames first .. first + count - 1, spread over
     * `threads` threads (0: all cores). `out` keeps its buffers between calls,
     * so refilling one batch allocates nothing once it has grown.
     * Throws std::invalid_argument if a frame index would reach 2^62.
     */
    void generate(uint64_t first, size_t count, frame_batch& out, int threads = 0) const;

    /*!
     * Sends each frame M times (several reads of it, docs/reads.md): read r
     * of frame k is channel frame k of seed read_seed(r) (read 0: the one
     * read of a source without reads, seed s itself). Throws
     * std::invalid_argument unless 1 <= M <= 1024.
     */
    void set_reads(int M);
    int reads() const { return d_reads; }
    //! The channel seed of read r: s + r 0x9E3779B97F4A7C15 (mod 2^64).
    uint64_t read_seed(int r) const
    {
        return d_seed + uint64_t(r) * 0x9E3779B97F4A7C15ULL;
    }

    //! The N message symbols of frame k (with an outer code: its mapped codeword).
    void message(uint64_t k, int32_t* symbols) const;
    //! With an outer code: the k information symbols of frame k.
    void info(uint64_t k, int32_t* symbols) const;
    //! The outer code, or null.
    const ldpc_code* outer() const { return d_outer.get(); }

    //! Frame k in full, with its transmitted bits and true drift path.
    simulated_frame frame(uint64_t k) const;

    const codebook& cb() const { return d_cb; }
    const channel_params& channel() const { return d_ch; }
    int N() const { return d_N; }
    uint64_t seed() const { return d_seed; }
    const std::vector<uint8_t>& sync_word() const { return d_sync; }

private:
    codebook d_cb;
    channel_params d_ch;
    int d_N;
    uint64_t d_seed;
    std::vector<uint8_t> d_sync;
    int d_reads = 1;
    std::shared_ptr<const ldpc_code> d_outer; // null: uncoded messages
    std::shared_ptr<const symbol_mapping>
        d_map; // with d_outer: its codewords to N symbols

    // With an outer code: the N inner symbols that carry information symbols u.
    void encode_outer(const int32_t* u, int32_t* symbols) const;

    // n_draw uniform symbols of q values from frame k's message stream
    void draw(uint64_t k, int n_draw, int q, int32_t* symbols) const;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_FRAME_SOURCE_H */
