/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/format.h"
#include "runtime/parallel_loop.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/outer/symbol_mapping.h>
#include <gnuradio/bsid/core/sim/frame_source.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <exception>
#include <mutex>
#include <stdexcept>

namespace bsid {

frame_source::frame_source(const codebook& cb,
                           const channel_params& ch,
                           int N,
                           uint64_t seed,
                           std::vector<uint8_t> sync_word)
    : d_cb(cb), d_ch(ch), d_N(N), d_seed(seed), d_sync(std::move(sync_word))
{
    for (auto b : d_sync) {
        if (int(b) >= ch.alphabet())
            throw std::invalid_argument(
                ch.alphabet() == 2
                    ? std::string("frame_source: a sync word bit is not 0 or 1")
                    : detail::concat("frame_source: a sync word letter is not in 0 .. ",
                                     ch.alphabet() - 1));
    }
    if (cb.alphabet() != ch.alphabet())
        throw std::invalid_argument(
            detail::concat("frame_source: the codebook's alphabet is ",
                           cb.alphabet(),
                           " letters but the channel's is ",
                           ch.alphabet()));
    if (N < 1) {
        throw std::invalid_argument(
            detail::concat("frame_source: N = ", N, " must be at least 1 symbol"));
    }
}

frame_source::frame_source(const codebook& cb,
                           const channel_params& ch,
                           const ldpc_code& outer,
                           uint64_t seed,
                           std::vector<uint8_t> sync_word)
    : frame_source(cb,
                   ch,
                   symbol_mapping(outer.q(), outer.n(), cb.q()).n_inner(),
                   seed,
                   std::move(sync_word))
{
    d_outer = std::make_shared<const ldpc_code>(outer);
    d_map = std::make_shared<const symbol_mapping>(outer.q(), outer.n(), cb.q());
}

void frame_source::encode_outer(const int32_t* u, int32_t* symbols) const
{
    std::vector<int32_t> c(size_t(d_outer->n()));
    d_outer->encode(u, c.data());
    d_map->to_inner(c.data(), symbols);
}

void frame_source::info(uint64_t k, int32_t* symbols) const
{
    if (!d_outer)
        throw std::logic_error("frame_source::info: no outer code");
    draw(k, d_outer->k(), d_outer->q(), symbols);
}

void frame_source::message(uint64_t k, int32_t* symbols) const
{
    if (!d_outer) {
        draw(k, d_N, d_cb.q(), symbols);
        return;
    }
    std::vector<int32_t> u(static_cast<size_t>(d_outer->k()));
    info(k, u.data());
    encode_outer(u.data(), symbols);
}

void frame_source::draw(uint64_t k, int n_draw, int q_draw, int32_t* symbols) const
{
    philox_stream s(d_seed, message_stream_base + k);
    const uint64_t q = uint64_t(q_draw);
    // Lemire's multiply-and-reject: (x q) >> 32 is uniform on [0, q) once the
    // 2^32 mod q values of x whose low product falls below that are redrawn.
    const uint32_t reject_below = uint32_t((uint64_t(1) << 32) % q);
    for (int i = 0; i < n_draw; ++i) {
        uint64_t m = uint64_t(s.next_u32()) * q;
        while (uint32_t(m) < reject_below) {
            m = uint64_t(s.next_u32()) * q;
        }
        symbols[i] = int32_t(m >> 32);
    }
}

void frame_source::generate(uint64_t first,
                            size_t count,
                            frame_batch& out,
                            int threads) const
{
    if (first >= max_frames || count > max_frames - first) {
        throw std::invalid_argument(
            detail::concat("frame_source: frames ",
                           first,
                           " + ",
                           count,
                           " reach 2^62 (the limit of frame indices)"));
    }
    const int T = resolve_threads(threads);
    const size_t N = size_t(d_N), tau = N * size_t(d_cb.n());
    out.first = first;
    out.N = d_N;
    out.symbols.resize(count * N);
    out.k = d_outer ? d_outer->k() : 0;
    out.info.resize(count * size_t(out.k));
    out.rx.resize(count); // kept vectors keep their capacity
    out.reads = d_reads;
    out.more.resize(count * size_t(d_reads - 1));
    // An exception must not leave the loop (it would end the process): the
    // first one is kept and thrown here, in the caller's thread.
    std::exception_ptr failure;
    std::mutex failure_mutex;
    // each worker's transmitted frame: W, then the codewords
    std::vector<std::vector<uint8_t>> tx(size_t(std::max(T, 1)));
    detail::parallel_loop::shared().run(T, count, [&](size_t j, int w) {
        try {
            auto& t = tx[size_t(w)];
            if (t.empty()) {
                t.resize(d_sync.size() + tau);
                std::copy(d_sync.begin(), d_sync.end(), t.begin());
            }
            const uint64_t k = first + uint64_t(j);
            int32_t* sym = out.symbols.data() + j * N;
            if (d_outer) { // the information symbols are drawn once
                int32_t* u = out.info.data() + j * size_t(out.k);
                info(k, u);
                encode_outer(u, sym);
            } else {
                message(k, sym);
            }
            d_cb.encode(sym, N, t.data() + d_sync.size());
            auto& rx = out.rx[j];
            rx.clear();
            channel_emulator em(d_ch, d_seed, k);
            em.process(t.data(), t.size(), rx);
            for (int r = 1; r < d_reads; ++r) {
                auto& y = out.more[j * size_t(d_reads - 1) + size_t(r - 1)];
                y.clear();
                channel_emulator er(d_ch, read_seed(r), k);
                er.process(t.data(), t.size(), y);
            }
        } catch (...) {
            std::lock_guard<std::mutex> lock(failure_mutex);
            if (!failure)
                failure = std::current_exception();
        }
    });
    if (failure)
        std::rethrow_exception(failure);
}

void frame_source::set_reads(int M)
{
    if (M < 1 || M > 1024) {
        throw std::invalid_argument(
            detail::concat("frame_source: reads = ", M, " must be in [1, 1024]"));
    }
    d_reads = M;
}

simulated_frame frame_source::frame(uint64_t k) const
{
    if (k >= max_frames) {
        throw std::invalid_argument(
            detail::concat("frame_source: frame ", k, " is not below 2^62"));
    }
    simulated_frame f;
    f.index = k;
    f.symbols.resize(size_t(d_N));
    message(k, f.symbols.data());
    if (d_outer) {
        f.info.resize(size_t(d_outer->k()));
        info(k, f.info.data());
    }
    f.tx = d_sync;
    f.tx.resize(d_sync.size() + size_t(d_N) * size_t(d_cb.n()));
    d_cb.encode(f.symbols.data(), size_t(d_N), f.tx.data() + d_sync.size());
    auto t = transmit(d_ch, f.tx.data(), f.tx.size(), d_seed, k);
    f.rx = std::move(t.rx);
    f.drift = std::move(t.drift);
    return f;
}

} // namespace bsid
