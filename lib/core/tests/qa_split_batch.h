/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A batch that exercises every output of decode_batch, and its outputs
// compared bit for bit: the tests of one decoder over several devices
// (qa_device_split.cc on CPU decoders, lib/cuda/qa_multi_device_cuda.cc on
// GPUs) decode it whole with one decoder and split over several.

#ifndef INCLUDED_BSID_QA_SPLIT_BATCH_H
#define INCLUDED_BSID_QA_SPLIT_BATCH_H

#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gtest/gtest.h>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace bsid {
namespace qa {

// Frames of very different lengths and kinds: sent through the channel
// (some with priors, log priors, extrinsic output, events), segments of
// arbitrary length under caller boundary weights, and refused ones (empty, end
// drift out of range, a value other than 0/1). Every frame asks for its
// boundary metrics and evidence.
struct split_batch {
    std::vector<std::vector<uint8_t>> rx;
    std::vector<std::vector<double>> priors;
    std::vector<frame_boundaries> bounds;
    std::vector<frame_view> views;
    std::vector<int> expect_ok; // the frames that must decode (status ok)

    struct outputs {
        std::vector<std::vector<double>> post, metrics, items;
        std::vector<double> evidence;
        std::vector<event_counts> events;
        std::vector<frame_result> results;
    };

    split_batch(const map_decoder& dec, int frames, uint64_t seed)
    {
        const int N = dec.N(), q = dec.q(), n = dec.n();
        const size_t tau = size_t(N) * size_t(n);
        const int Mt = dec.limits().mtau.size();
        std::mt19937_64 g(seed);
        rx.resize(size_t(frames));
        priors.resize(size_t(frames));
        bounds.resize(size_t(frames));
        for (int k = 0; k < frames; ++k) {
            auto& r = rx[size_t(k)];
            const int kind = k % 9;
            if (kind == 3) {
                r.clear(); // empty
            } else if (kind == 5) {
                r.assign(tau / 3, 1); // end drift out of range
            } else if (kind == 7) {
                // a segment as short or as long as the drift limits allow,
                // under boundary weights with a free end
                const auto& m = dec.limits().mtau;
                r.resize(size_t((long long)tau + (k % 2 ? m.lo + 1 : m.hi - 1)));
                for (auto& b : r)
                    b = uint8_t(g() & 1u);
                auto& b = bounds[size_t(k)];
                b.start.assign(size_t(Mt), 0.0);
                b.start[size_t(-dec.limits().mtau.lo)] = 1.0;
                b.end.assign(size_t(Mt), 1.0); // a free end
            } else {
                std::vector<int64_t> msg(static_cast<size_t>(N));
                for (auto& m : msg)
                    m = int64_t(g() % uint64_t(q));
                const auto sent = dec.config().cb.encode(msg.data(), msg.size());
                r = transmit(dec.config().ch, sent.data(), sent.size(), seed, uint64_t(k))
                        .rx;
                if (kind == 8 && !r.empty())
                    r[r.size() / 2] = 2; // not a bit
            }
            if (kind == 1 || kind == 2 || kind == 4) {
                auto& p = priors[size_t(k)];
                p.resize(size_t(N) * size_t(q));
                for (auto& v : p)
                    v = kind == 2 ? -double(g() % 50) / 10.0 : double(g() % 100) / 100.0;
                p[0] = kind == 2 ? 0.0 : 1.0; // every row of ones: a positive sum
                for (int i = 0; i < N; ++i)
                    p[size_t(i) * size_t(q) + size_t(i % q)] = 1.0;
            }
            if (kind != 3 && kind != 5 && kind != 8)
                expect_ok.push_back(k);
        }
        for (int k = 0; k < frames; ++k) {
            frame_view v;
            v.bits = rx[size_t(k)].data();
            v.rho = rx[size_t(k)].size();
            if (!priors[size_t(k)].empty()) {
                v.priors = priors[size_t(k)].data();
                v.log_priors = k % 9 == 2;
                v.extrinsic = k % 9 == 4;
            }
            if (!bounds[size_t(k)].start.empty())
                v.boundaries = &bounds[size_t(k)];
            views.push_back(v);
        }
    }

    // decodes the batch with dec, every output asked for (events on every
    // third frame)
    outputs decode(map_decoder& dec) const
    {
        const size_t F = views.size();
        const size_t Nq = size_t(dec.N()) * size_t(dec.q());
        const size_t Mt = size_t(dec.limits().mtau.size());
        outputs o;
        o.post.assign(F, std::vector<double>(Nq, -1.0));
        o.metrics.assign(F, std::vector<double>(2 * Mt, -1.0));
        o.evidence.assign(F, -1.0);
        o.events.assign(F, event_counts{ -1, -1, -1, -1 });
        o.items.resize(F);
        std::vector<frame_view> v = views;
        std::vector<double*> post(F);
        for (size_t k = 0; k < F; ++k) {
            post[k] = o.post[k].data();
            v[k].boundary_metrics = o.metrics[k].data();
            v[k].log_evidence = &o.evidence[k];
            if (k % 3 == 0) {
                o.items[k].assign(2 * v[k].rho, -1.0);
                v[k].events = &o.events[k];
                v[k].item_posteriors = o.items[k].data();
            }
        }
        o.results = dec.decode_batch(v, post);
        return o;
    }
};

inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b)
{
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// got equals want to the bit, output by output and frame by frame
inline void expect_same_outputs(const split_batch::outputs& want,
                                const split_batch::outputs& got,
                                const std::vector<int>& expect_ok)
{
    ASSERT_EQ(want.results.size(), got.results.size());
    for (int k : expect_ok)
        EXPECT_EQ(want.results[size_t(k)].status, frame_status::ok)
            << k << ": " << want.results[size_t(k)].reason;
    for (size_t k = 0; k < want.results.size(); ++k) {
        EXPECT_EQ(got.results[k].status, want.results[k].status) << k;
        EXPECT_EQ(got.results[k].reason, want.results[k].reason) << k;
        EXPECT_TRUE(same_bits(got.post[k], want.post[k])) << "posteriors of frame " << k;
        EXPECT_TRUE(same_bits(got.metrics[k], want.metrics[k])) << "metrics " << k;
        EXPECT_TRUE(same_bits(got.evidence[k], want.evidence[k]))
            << "evidence " << k << ": " << got.evidence[k] << " " << want.evidence[k];
        EXPECT_TRUE(same_bits(got.items[k], want.items[k])) << "item posteriors " << k;
        const event_counts &a = got.events[k], &b = want.events[k];
        EXPECT_TRUE(same_bits(a.ins, b.ins) && same_bits(a.del, b.del) &&
                    same_bits(a.trans, b.trans) && same_bits(a.subst, b.subst))
            << "events " << k;
    }
}

} // namespace qa
} // namespace bsid

#endif /* INCLUDED_BSID_QA_SPLIT_BATCH_H */
