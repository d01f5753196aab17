/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Concurrency of the core (docs/testing.md, "Concurrency"): one decoder used
// from several std::threads at once (decode and decode_batch), decoders made
// and logging in several threads, channel emulators, transmit, a frame source
// and error counters per thread. Every result must equal the serial one.
// scripts/tsan-tests runs this program under ThreadSanitizer.
//
// decode_batch spreads frames over cfg.threads threads (parallel_loop.h:
// std::threads, which ThreadSanitizer sees); the decoder shared here asks for
// 3, so that each batch's threads run beside the other callers' decodes.

#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <gnuradio/bsid/core/sim/error_counter.h>
#include <gnuradio/bsid/core/sim/frame_source.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <atomic>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

using namespace bsid;

namespace {

constexpr int threads_used = 4;

struct frames_fixture {
    codebook cb = codebook::builtin("ld3-modvec6");
    channel_params ch{ 0.01, 0.01, 0.01 };
    int N = 12;
    std::vector<std::vector<uint8_t>> rx;

    explicit frames_fixture(int count)
    {
        std::mt19937_64 rng(7);
        for (int k = 0; k < count; ++k) {
            std::vector<int64_t> msg(static_cast<size_t>(N));
            for (auto& s : msg)
                s = int64_t(rng() % 16);
            const auto bits = cb.encode(msg.data(), msg.size());
            rx.push_back(transmit(ch, bits.data(), bits.size(), 3, uint64_t(k)).rx);
        }
        rx[3].clear();                       // empty
        rx[5][2] = 9;                        // not a bit
        rx[8].resize(rx[8].size() + 100, 1); // drift far beyond the limits
    }
    size_t size() const { return rx.size(); }
    frame_view view(size_t k) const { return { rx[k].data(), rx[k].size(), nullptr }; }
};

struct decoded {
    std::vector<double> post;
    frame_status status = frame_status::ok;
};

std::vector<decoded> decode_serially(map_decoder& dec, const frames_fixture& fx)
{
    std::vector<decoded> out(fx.size());
    for (size_t k = 0; k < fx.size(); ++k) {
        out[k].post.resize(size_t(dec.N() * dec.q()));
        out[k].status = dec.decode(fx.view(k), out[k].post.data()).status;
    }
    return out;
}

template <typename F>
void run_threads(int count, F&& body)
{
    std::vector<std::thread> threads;
    for (int t = 0; t < count; ++t)
        threads.emplace_back(body, t);
    for (auto& t : threads)
        t.join();
}

} // namespace

TEST(concurrency, one_decoder_from_many_threads)
{
    const frames_fixture fx(40);
    for (auto p : { precision_kind::single, precision_kind::dual })
        for (auto s : { storage_kind::global, storage_kind::local }) {
            decoder_config cfg(fx.cb, fx.ch, fx.N);
            cfg.backend = backend_kind::cpu;
            cfg.precision = p;
            cfg.storage = s;
            cfg.threads = 3;
            auto dec = map_decoder::make(cfg);
            const auto serial = decode_serially(*dec, fx);
            ASSERT_EQ(serial[3].status, frame_status::empty);
            ASSERT_EQ(serial[5].status, frame_status::invalid_input);
            ASSERT_EQ(serial[8].status, frame_status::drift_out_of_range);
            ASSERT_EQ(serial[0].status, frame_status::ok);

            // even threads: decode() frame by frame, each in its own order;
            // odd threads: decode_batch() in chunks
            std::vector<std::vector<decoded>> got(threads_used);
            run_threads(threads_used, [&](int t) {
                auto& out = got[size_t(t)];
                out.resize(fx.size());
                std::vector<size_t> order(fx.size());
                std::iota(order.begin(), order.end(), 0);
                std::shuffle(order.begin(), order.end(), std::mt19937(unsigned(t)));
                for (auto& d : out)
                    d.post.resize(size_t(fx.N * 16));
                if (t % 2 == 0) {
                    for (size_t k : order) {
                        out[k].status =
                            dec->decode(fx.view(k), out[k].post.data()).status;
                    }
                    return;
                }
                for (size_t first = 0; first < order.size(); first += 7) {
                    std::vector<frame_view> views;
                    std::vector<double*> posts;
                    const size_t last = std::min(order.size(), first + 7);
                    for (size_t j = first; j < last; ++j) {
                        views.push_back(fx.view(order[j]));
                        posts.push_back(out[order[j]].post.data());
                    }
                    const auto r = dec->decode_batch(views, posts);
                    for (size_t j = first; j < last; ++j)
                        out[order[j]].status = r[j - first].status;
                }
            });
            for (int t = 0; t < threads_used; ++t)
                for (size_t k = 0; k < fx.size(); ++k) {
                    EXPECT_EQ(got[size_t(t)][k].status, serial[k].status)
                        << to_string(p) << " " << to_string(s) << " thread " << t
                        << " frame " << k;
                    EXPECT_EQ(got[size_t(t)][k].post, serial[k].post)
                        << to_string(p) << " " << to_string(s) << " thread " << t
                        << " frame " << k;
                }
        }
}

TEST(concurrency, decoders_made_and_logging_in_many_threads)
{
    // make() with storage auto logs its choice; a log handler counts the
    // messages from every thread
    const frames_fixture fx(12);
    std::atomic<int> messages{ 0 };
    const auto level = get_log_level();
    set_log_level(log_level::info);
    set_log_handler([&](log_level, const std::string&) { ++messages; });
    decoder_config cfg(fx.cb, fx.ch, fx.N);
    cfg.backend = backend_kind::cpu;
    auto ref = map_decoder::make(cfg);
    const auto serial = decode_serially(*ref, fx);
    const int before = messages.load();
    std::vector<std::vector<decoded>> got(threads_used);
    run_threads(threads_used, [&](int t) {
        for (int round = 0; round < 3; ++round) {
            auto dec = map_decoder::make(cfg);
            got[size_t(t)] = decode_serially(*dec, fx);
        }
    });
    set_log_handler(nullptr);
    set_log_level(level);
    EXPECT_GE(messages.load() - before, threads_used * 3);
    for (const auto& g : got)
        for (size_t k = 0; k < fx.size(); ++k) {
            EXPECT_EQ(g[k].status, serial[k].status) << k;
            EXPECT_EQ(g[k].post, serial[k].post) << k;
        }
}

TEST(concurrency, channel_emulators_and_transmit_per_thread)
{
    const channel_params ch(0.02, 0.01, 0.01);
    std::mt19937_64 rng(11);
    std::vector<std::vector<uint8_t>> tx(30);
    for (auto& b : tx) {
        b.resize(500);
        for (auto& x : b)
            x = uint8_t(rng() & 1);
    }
    std::vector<std::vector<uint8_t>> serial;
    for (size_t k = 0; k < tx.size(); ++k)
        serial.push_back(transmit(ch, tx[k].data(), tx[k].size(), 21, k).rx);

    std::vector<std::vector<std::vector<uint8_t>>> by_emulator(threads_used),
        by_transmit(threads_used);
    run_threads(threads_used, [&](int t) {
        std::mt19937 chunks(unsigned(t) + 100);
        for (size_t k = 0; k < tx.size(); ++k) {
            // an emulator per frame, fed in chunks of random size
            channel_emulator em(ch, 21, k);
            std::vector<uint8_t> rx;
            size_t pos = 0;
            while (pos < tx[k].size()) {
                const size_t n = std::min<size_t>(tx[k].size() - pos, 1 + chunks() % 97);
                em.process(tx[k].data() + pos, n, rx);
                pos += n;
            }
            by_emulator[size_t(t)].push_back(std::move(rx));
            by_transmit[size_t(t)].push_back(
                transmit(ch, tx[k].data(), tx[k].size(), 21, k).rx);
        }
    });
    for (int t = 0; t < threads_used; ++t) {
        EXPECT_EQ(by_emulator[size_t(t)], serial) << "thread " << t;
        EXPECT_EQ(by_transmit[size_t(t)], serial) << "thread " << t;
    }
}

TEST(concurrency, frame_source_and_error_counters_per_thread)
{
    // one frame source and one decoder shared, an error counter per thread
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    const int N = 10;
    const frame_source src(cb, ch, N, 5);
    decoder_config cfg(cb, ch, N);
    cfg.backend = backend_kind::cpu;
    auto dec = map_decoder::make(cfg);

    constexpr int batches = 6;
    std::vector<std::vector<frame_errors>> serial_errors;
    std::vector<std::vector<int32_t>> serial_decisions;
    std::vector<frame_batch> serial_batches(batches);
    {
        error_counter counter(*dec, 1);
        for (int b = 0; b < batches; ++b) {
            src.generate(uint64_t(b) * 32, 32, serial_batches[size_t(b)], 1);
            serial_errors.push_back(counter.run(serial_batches[size_t(b)]));
            serial_decisions.push_back(counter.decisions());
        }
    }
    std::vector<int> failures(threads_used, 0);
    run_threads(threads_used, [&](int t) {
        error_counter counter(*dec, 1);
        frame_batch batch;
        for (int r = 0; r < batches; ++r) {
            const int b = (r + t) % batches;
            src.generate(uint64_t(b) * 32, 32, batch, 1);
            const auto& e = counter.run(batch);
            bool same = batch.symbols == serial_batches[size_t(b)].symbols &&
                        batch.rx == serial_batches[size_t(b)].rx &&
                        counter.decisions() == serial_decisions[size_t(b)] &&
                        e.size() == serial_errors[size_t(b)].size();
            for (size_t k = 0; same && k < e.size(); ++k) {
                same = e[k].status == serial_errors[size_t(b)][k].status &&
                       e[k].symbol_errors == serial_errors[size_t(b)][k].symbol_errors &&
                       e[k].bit_errors == serial_errors[size_t(b)][k].bit_errors;
            }
            if (!same)
                ++failures[size_t(t)];
        }
    });
    for (int t = 0; t < threads_used; ++t)
        EXPECT_EQ(failures[size_t(t)], 0) << "thread " << t;
}
