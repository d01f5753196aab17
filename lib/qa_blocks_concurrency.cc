/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The blocks under concurrency (docs/testing.md, "Concurrency"), from C++ so
// that scripts/tsan-blocks can run it under ThreadSanitizer: one channel block
// feeding two decoder blocks in two branches of one flowgraph, while another
// thread calls the setters (and getters) of all three as the flowgraph runs.
// Every input frame must come out of each decoder as exactly one output frame,
// decoded or flagged as an erasure, and nothing may throw.

#include <gnuradio/blocks/throttle.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/bsid/channel.h>
#include <gnuradio/bsid/codebook_encoder.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/map_decoder.h>
#include <gnuradio/logger.h>
#include <gnuradio/top_block.h>
#include <pmt/pmt.h>
#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace gr {
namespace bsid {

namespace {

struct ch3 {
    double Pi, Pd, Ps;
};
const ch3 CH_A{ 0.01, 0.01, 0.005 };
const ch3 CH_B{ 0.02, 0.005, 0.01 };

//! (offset, value) of every tag with this key, in offset order.
std::vector<std::pair<uint64_t, pmt::pmt_t>> tags_with(const std::vector<gr::tag_t>& tags,
                                                       const std::string& key)
{
    std::vector<std::pair<uint64_t, pmt::pmt_t>> out;
    for (const auto& t : tags) {
        if (pmt::symbol_to_string(t.key) == key)
            out.emplace_back(t.offset, t.value);
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return a.first < b.first;
    });
    return out;
}

//! Checks the frame accounting of one decoder branch: items_per_frame items
//! (of the sink) per output frame, one length tag each, erasures tagged and
//! counted, and, with lost frames (reported or not), every input frame.
void check_branch(const std::string& name,
                  const map_decoder::sptr& dec,
                  size_t items,
                  const std::vector<gr::tag_t>& tags,
                  size_t items_per_frame,
                  uint64_t frames_in,
                  uint64_t lost)
{
    BOOST_TEST_CONTEXT(name)
    {
        BOOST_CHECK_EQUAL(items % items_per_frame, 0u);
        const uint64_t out_frames = items / items_per_frame;
        BOOST_CHECK_EQUAL(dec->frames(), out_frames);
        // one length tag per output frame, at its first item, of the right length
        const auto lengths = tags_with(tags, "packet_len");
        BOOST_REQUIRE_EQUAL(lengths.size(), out_frames);
        for (size_t k = 0; k < lengths.size(); ++k) {
            BOOST_CHECK_EQUAL(lengths[k].first, k * items_per_frame);
            BOOST_CHECK_EQUAL(pmt::to_long(lengths[k].second), long(items_per_frame));
        }
        // erasures: at most one tag per frame, at a frame start, counted
        const auto erasures = tags_with(tags, "bsid_erasure");
        std::set<uint64_t> erased;
        uint64_t reported_lost = 0;
        for (const auto& e : erasures) {
            BOOST_CHECK_EQUAL(e.first % items_per_frame, 0u);
            erased.insert(e.first);
            if (pmt::symbol_to_string(e.second) == "frame_lost")
                ++reported_lost;
        }
        BOOST_CHECK_EQUAL(erased.size(), erasures.size());
        BOOST_CHECK_EQUAL(dec->erasures(), erasures.size());
        // every input frame: decoded, erased, or lost at the very end of the
        // stream (a loss is reported on the next frame, so the last ones cannot be)
        BOOST_CHECK_LE(reported_lost, lost);
        BOOST_CHECK_EQUAL(out_frames + (lost - reported_lost), frames_in);
        BOOST_CHECK_EQUAL(dec->bits_discarded(), 0u);
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(two_decoders_and_setters_from_another_thread)
{
    // the per-call "decoder built" lines would swamp the output
    gr::logging::singleton().set_default_level(gr::log_level::warn);

    const auto cb = ::bsid::codebook::builtin("ld3-modvec6");
    const int N = 12;
    const uint64_t seed = 5;
    const uint64_t frames = 400;

    std::mt19937 rng(1);
    std::uniform_int_distribution<int> sym(0, cb.q() - 1);
    std::vector<int> msg(frames * N);
    for (auto& s : msg)
        s = sym(rng);

    auto tb = gr::make_top_block("bsid_concurrency");
    auto src = gr::blocks::vector_source_i::make(msg, false);
    // slow the source a little so that the flowgraph outlives many setter calls
    auto thr = gr::blocks::throttle::make(sizeof(int), 20000);
    auto enc = codebook_encoder::make(cb, N);
    auto chan = channel::make(CH_A.Pi, CH_A.Pd, CH_A.Ps, seed);
    ::bsid::receiver_options hard_opt, post_opt;
    hard_opt.output.kind = "hard";
    hard_opt.decoding.backend = "cpu";
    hard_opt.decoding.max_batch = 4;
    post_opt.decoding.backend = "cpu";
    post_opt.decoding.precision = "double";
    post_opt.decoding.max_batch = 1;
    auto dec_hard = map_decoder::make(
        cb, N, ::bsid::channel_params(CH_A.Pi, CH_A.Pd, CH_A.Ps), hard_opt);
    auto dec_post = map_decoder::make(
        cb, N, ::bsid::channel_params(CH_B.Pi, CH_B.Pd, CH_B.Ps), post_opt);
    auto snk_rx = gr::blocks::vector_sink_b::make(1);
    auto snk_hard = gr::blocks::vector_sink_i::make(1);
    auto snk_post = gr::blocks::vector_sink_f::make(cb.q());
    tb->connect(src, 0, thr, 0);
    tb->connect(thr, 0, enc, 0);
    tb->connect(enc, 0, chan, 0);
    tb->connect(chan, 0, snk_rx, 0);
    tb->connect(chan, 0, dec_hard, 0);
    tb->connect(dec_hard, 0, snk_hard, 0);
    tb->connect(chan, 0, dec_post, 0);
    tb->connect(dec_post, 0, snk_post, 0);

    std::atomic<bool> stop{ false };
    std::atomic<long> calls{ 0 }, refused{ 0 };
    std::exception_ptr setter_error;
    std::thread setter([&] {
        try {
            for (long k = 0; !stop.load(); ++k) {
                const ch3& ch = k % 2 ? CH_B : CH_A;
                const ch3& other = k % 2 ? CH_A : CH_B;
                chan->set_channel(ch.Pi, ch.Pd, ch.Ps);
                chan->set_Pi(ch.Pi);
                chan->set_Pd(ch.Pd);
                chan->set_Ps(ch.Ps);
                dec_hard->set_channel(ch.Pi, ch.Pd, ch.Ps);
                dec_post->set_channel(other.Pi, other.Pd, other.Ps);
                if (k % 8 == 0) {
                    // bad values are refused and leave the block as it was
                    try {
                        chan->set_channel(-0.5, 0.0, 0.0);
                    } catch (const std::invalid_argument&) {
                        ++refused;
                    }
                    try {
                        dec_hard->set_channel(0.7, 0.7, 0.0);
                    } catch (const std::invalid_argument&) {
                        ++refused;
                    }
                }
                // the getters, read while the work threads write
                if (chan->Pi() < 0 || chan->Ps() > 1 || !chan->error().empty() ||
                    dec_hard->frames() > frames || dec_post->erasures() > frames ||
                    dec_hard->backend() != "cpu" || chan->frames() > frames ||
                    chan->frames_lost() > frames) {
                    throw std::runtime_error("a getter returned an impossible value");
                }
                ++calls;
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        } catch (...) {
            setter_error = std::current_exception();
        }
    });

    std::exception_ptr run_error;
    try {
        tb->start();
        tb->wait();
    } catch (...) {
        run_error = std::current_exception();
    }
    stop = true;
    setter.join();
    if (run_error)
        std::rethrow_exception(run_error);
    if (setter_error)
        std::rethrow_exception(setter_error);

    BOOST_TEST_MESSAGE("setter calls during the run: " << calls.load());
    BOOST_CHECK_GT(calls.load(), 5);
    BOOST_CHECK_EQUAL(refused.load(), 2 * ((calls.load() + 7) / 8));
    BOOST_CHECK_EQUAL(chan->error(), "");

    // the channel: every frame passed, each out frame tagged with its length
    BOOST_CHECK_EQUAL(chan->frames(), frames);
    const uint64_t lost = chan->frames_lost();
    const auto rx_lengths = tags_with(snk_rx->tags(), "packet_len");
    BOOST_CHECK_EQUAL(rx_lengths.size() + lost, frames);
    uint64_t rx_bits = 0;
    for (const auto& l : rx_lengths) {
        BOOST_CHECK_EQUAL(l.first, rx_bits);
        rx_bits += uint64_t(pmt::to_long(l.second));
    }
    BOOST_CHECK_EQUAL(snk_rx->data().size(), rx_bits);

    check_branch(
        "hard", dec_hard, snk_hard->data().size(), snk_hard->tags(), N, frames, lost);
    check_branch("posteriors",
                 dec_post,
                 snk_post->data().size() / cb.q(),
                 snk_post->tags(),
                 N,
                 frames,
                 lost);

    // the decoded symbols: in range, or all -1 for an erasure
    const auto hard = snk_hard->data();
    std::set<uint64_t> erased;
    for (const auto& e : tags_with(snk_hard->tags(), "bsid_erasure"))
        erased.insert(e.first);
    for (size_t f = 0; f * N < hard.size(); ++f) {
        for (int j = 0; j < N; ++j) {
            const int s = hard[f * N + j];
            if (erased.count(f * N)) {
                BOOST_CHECK_EQUAL(s, -1);
            } else {
                BOOST_CHECK(s >= 0 && s < cb.q());
            }
        }
    }
    // the posteriors: each symbol's sum to one (1/q each for an erasure)
    const auto post = snk_post->data();
    for (size_t s = 0; (s + 1) * size_t(cb.q()) <= post.size(); ++s) {
        double sum = 0;
        for (int a = 0; a < cb.q(); ++a)
            sum += post[s * cb.q() + a];
        BOOST_CHECK_CLOSE(sum, 1.0, 1e-3);
    }
    // with these channels, nearly every frame decodes
    BOOST_CHECK_LT(dec_hard->erasures(), frames / 10);
}

} // namespace bsid
} // namespace gr
