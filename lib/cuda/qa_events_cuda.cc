/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The E-step of channel estimation on the CUDA backend (frame_view::events
// and item_posteriors, docs/design.md section 3, "Channel estimation"): tiny frames
// against the brute force (qa_event_reference.h), hard and soft, with and without priors,
// in both precisions and storage modes; S500-sized frames against the CPU
// backend in batches that mix frames asking for events with frames that do
// not, refused frames, priors and explicit frame boundaries; and a frame the
// device finds impossible inside a batch. Skips cleanly where no GPU is usable.

#include "qa_event_reference.h"
#include "qa_reference.h"
#include "qa_soft_reference.h"
#include "runtime/backends.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <string>
#include <vector>

using namespace bsid;
using namespace bsid::qa;

namespace {

class cuda_events : public ::testing::Test
{
protected:
    void SetUp() override
    {
        std::string why;
        if (!cuda_device_available(0, &why))
            GTEST_SKIP() << "no GPU: " << why;
    }
};

const precision_kind precisions[] = { precision_kind::dual, precision_kind::single };
const storage_kind storages[] = { storage_kind::global, storage_kind::local };

// What a frame asks for and receives: events, and item posteriors (2 rho,
// filled with -1 so that a value never written shows).
struct event_out {
    event_counts ev{ -1, -1, -1, -1 };
    std::vector<double> items;
};

void ask(frame_view& f, event_out& o, bool items)
{
    f.events = &o.ev;
    if (items) {
        o.items.assign(2 * f.rho, -1.0);
        f.item_posteriors = o.items.data();
    }
}

void expect_zero(const event_out& o, const std::string& what)
{
    EXPECT_EQ(o.ev.ins, 0.0) << what;
    EXPECT_EQ(o.ev.del, 0.0) << what;
    EXPECT_EQ(o.ev.trans, 0.0) << what;
    EXPECT_EQ(o.ev.subst, 0.0) << what;
    for (size_t j = 0; j < o.items.size(); ++j)
        ASSERT_EQ(o.items[j], 0.0) << what << " item " << j;
}

// Largest relative difference of the events (relative to max(1, |want|)).
double events_diff(const event_counts& got, const event_counts& want)
{
    auto rel = [](double a, double b) {
        return std::abs(a - b) / std::max(1.0, std::abs(b));
    };
    return std::max({ rel(got.ins, want.ins),
                      rel(got.del, want.del),
                      rel(got.trans, want.trans),
                      rel(got.subst, want.subst) });
}

} // namespace

TEST_F(cuda_events, expected_events_equal_the_brute_force)
{
    std::mt19937_64 rng(test_seed());
    int checked = 0;
    for (int trial = 0; trial < 24; ++trial) {
        const bool soft = trial % 2 == 1, priors = trial % 3 == 2;
        const events_case c = tiny_events_case(rng, soft, priors);
        const int rho = int(c.rx.size()), tau = c.N * c.cb.n();
        const reference_events ref =
            brute_force_events(c.cb,
                               c.N,
                               c.ch,
                               c.rx.data(),
                               soft ? c.llr.data() : nullptr,
                               rho,
                               priors ? c.prior.data() : nullptr);
        // with item posteriors (the edges' kernel) and without (the counts' kernel)
        for (const bool items : { true, false }) {
            for (auto prec : precisions) {
                for (auto st : storages) {
                    decoder_config cfg =
                        every_path_config(c, backend_kind::cuda, prec, st);
                    // events only: M_n also wider than the paths need (up to 20
                    // more drifts), so that the counts kernel runs with rows of 8,
                    // 16 and 32 nodes and past 32 (the edges kernel instead)
                    if (!items)
                        cfg.mn->hi += 4 * (trial % 6);
                    auto dec = map_decoder::make(cfg);
                    frame_view f = case_frame(c, soft, priors);
                    event_out o;
                    ask(f, o, items);
                    std::vector<double> post(size_t(c.N * c.cb.q()));
                    const frame_result r = dec->decode(f, post.data());
                    ASSERT_TRUE(r.ok()) << r.reason;
                    const double item_tol = prec == precision_kind::dual ? 1e-9 : 1e-5;
                    const double tol = item_tol * (tau + rho);
                    const std::string what =
                        "trial " + std::to_string(trial) + (soft ? " soft" : " hard") +
                        (priors ? " priors " : " ") + to_string(prec) + " " +
                        to_string(st) + (items ? " items" : " events only");
                    EXPECT_NEAR(o.ev.ins, ref.ev.ins, tol) << what;
                    EXPECT_NEAR(o.ev.del, ref.ev.del, tol) << what;
                    EXPECT_NEAR(o.ev.trans, ref.ev.trans, tol) << what;
                    EXPECT_NEAR(o.ev.subst, ref.ev.subst, tol) << what;
                    for (size_t j = 0; j < o.items.size(); ++j)
                        EXPECT_NEAR(o.items[j], ref.items[j], item_tol)
                            << what << " item " << j;
                    EXPECT_NEAR(o.ev.del + o.ev.trans, tau, 1e-9 * tau) << what;
                    ++checked;
                }
            }
        }
    }
    EXPECT_EQ(checked, 192);
}

TEST_F(cuda_events, s500_frames_match_the_cpu_in_mixed_batches)
{
    // S500: ld3-modvec6, N = 500, Pi = 0.02, Pd = 0.01, Ps = 0.005. A batch of
    // seven frames: events and items (hard or soft), no events, events only
    // with priors, an empty frame (refused), events and items with explicit
    // frame boundaries, a frame too long for the drift limits (refused), and
    // events and items again. Against the CPU in double; the posteriors
    // against the same batch decoded without asking for events (identical).
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.02, 0.01, 0.005);
    const int N = 500, Q = cb.q();
    std::mt19937_64 rng(test_seed() + 5);
    std::normal_distribution<double> noise(0.0, 0.7);
    std::uniform_real_distribution<double> u(0, 1);
    double worst[2] = { 0, 0 }, worst_items[2] = { 0, 0 };
    for (const bool soft : { false, true }) {
        std::vector<std::vector<uint8_t>> rx;
        std::vector<std::vector<double>> llr;
        for (int k = 0; k < 4; ++k) {
            rx.push_back(sent_frame(cb, N, {}, ch, rng()));
            std::vector<double> l;
            for (uint8_t b : rx.back())
                l.push_back(2 * ((b ? 1.0 : -1.0) + noise(rng)) / (0.7 * 0.7));
            llr.push_back(std::move(l));
        }
        std::vector<double> prior(size_t(N) * Q);
        for (int i = 0; i < N; ++i) {
            double s = 0;
            for (int D = 0; D < Q; ++D)
                s += (prior[size_t(i) * Q + D] = u(rng) < 0.1 ? 0.0 : u(rng) + 0.05);
            for (int D = 0; D < Q; ++D)
                prior[size_t(i) * Q + D] /= s;
        }
        const std::vector<uint8_t> empty, too_long(size_t(N * cb.n() + 2000), 1);
        for (const bool with_items : { true, false })
            for (auto prec : precisions)
                for (auto st : storages) {
                    decoder_config cfg(cb, ch, N);
                    cfg.precision = prec;
                    cfg.storage = st;
                    cfg.cuda.local_window = 64; // local storage: eight windows
                    cfg.backend = backend_kind::cuda;
                    auto gpu = map_decoder::make(cfg);
                    ASSERT_EQ(gpu->storage(), st);
                    cfg.backend = backend_kind::cpu;
                    cfg.precision = precision_kind::dual;
                    cfg.mtau = gpu->limits().mtau;
                    cfg.mn = gpu->limits().mn;
                    auto cpu = map_decoder::make(cfg);
                    // explicit boundaries: the start spread over drifts -2..2, the
                    // end over the frame's end drift +-3
                    const drift_range mt = gpu->limits().mtau;
                    frame_boundaries fb;
                    fb.start.assign(size_t(mt.size()), 0.0);
                    fb.end.assign(size_t(mt.size()), 0.0);
                    const long long end_drift = (long long)rx[3].size() - N * cb.n();
                    for (int a = 0; a < mt.size(); ++a) {
                        const long long d = mt.lo + a;
                        if (d >= -2 && d <= 2)
                            fb.start[size_t(a)] = 1.0 + 0.1 * double(d + 2);
                        if (std::abs(d - end_drift) <= 3)
                            fb.end[size_t(a)] =
                                1.0 + 0.2 * double(std::abs(d - end_drift));
                    }
                    for (auto* v : { &fb.start, &fb.end }) {
                        double s = 0;
                        for (double x : *v)
                            s += x;
                        for (double& x : *v)
                            x /= s;
                    }

                    auto view = [&](int k) {
                        frame_view f;
                        if (soft && k != 1) {
                            f.llr = llr[size_t(k)].data();
                            f.rho = llr[size_t(k)].size();
                        } else {
                            f.bits = rx[size_t(k)].data();
                            f.rho = rx[size_t(k)].size();
                        }
                        return f;
                    };
                    std::vector<frame_view> plain;
                    plain.push_back(view(0));
                    plain.push_back(view(1));
                    plain.push_back(view(2));
                    plain.back().priors = prior.data();
                    plain.push_back(frame_view{ empty.data(), 0 });
                    plain.push_back(view(3));
                    plain.back().boundaries = &fb;
                    plain.push_back(frame_view{ too_long.data(), too_long.size() });
                    plain.push_back(view(0));
                    const size_t F = plain.size();
                    const bool asks[] = { true, false, true, true, true, true, true };
                    // a batch with item posteriors runs the edges' kernel, one
                    // without the counts' kernel
                    bool items[] = { true, false, false, true, true, true, true };
                    if (!with_items)
                        std::fill(std::begin(items), std::end(items), false);

                    // the same batch three times: without events (GPU), with (GPU, CPU)
                    std::vector<std::vector<double>> base(F), got(F), want(F);
                    std::vector<double*> pb, pg, pw;
                    for (size_t k = 0; k < F; ++k) {
                        for (auto* v : { &base[k], &got[k], &want[k] })
                            v->assign(size_t(N) * Q, -1.0);
                        pb.push_back(base[k].data());
                        pg.push_back(got[k].data());
                        pw.push_back(want[k].data());
                    }
                    std::vector<frame_view> vg = plain, vw = plain;
                    std::vector<event_out> og(F), ow(F);
                    for (size_t k = 0; k < F; ++k) {
                        if (!asks[k])
                            continue;
                        ask(vg[k], og[k], items[k]);
                        ask(vw[k], ow[k], items[k]);
                    }
                    const auto rb = gpu->decode_batch(plain, pb);
                    const auto rg = gpu->decode_batch(vg, pg);
                    const auto rw = cpu->decode_batch(vw, pw);
                    const int p = prec == precision_kind::dual ? 0 : 1;
                    const double ev_tol = p == 0 ? 1e-9 : 1e-3, item_tol = ev_tol;
                    for (size_t k = 0; k < F; ++k) {
                        const std::string what = std::string(soft ? "soft " : "hard ") +
                                                 to_string(prec) + " " + to_string(st) +
                                                 (with_items ? "" : " events only") +
                                                 " frame " + std::to_string(k);
                        EXPECT_EQ(rg[k].status, rw[k].status)
                            << what << ": " << rg[k].reason;
                        EXPECT_EQ(rg[k].status, rb[k].status) << what;
                        // asking for events changes no posterior
                        EXPECT_EQ(got[k], base[k]) << what;
                        if (k == 3 || k == 5) {
                            EXPECT_FALSE(rg[k].ok()) << what;
                            expect_zero(og[k], what);
                            continue;
                        }
                        ASSERT_TRUE(rg[k].ok()) << what << ": " << rg[k].reason;
                        if (!asks[k]) {
                            EXPECT_EQ(vg[k].events, nullptr);
                            continue;
                        }
                        const double d = events_diff(og[k].ev, ow[k].ev);
                        worst[p] = std::max(worst[p], d);
                        EXPECT_LE(d, ev_tol)
                            << what << ": ins " << og[k].ev.ins << " / " << ow[k].ev.ins
                            << ", del " << og[k].ev.del << " / " << ow[k].ev.del
                            << ", trans " << og[k].ev.trans << " / " << ow[k].ev.trans
                            << ", subst " << og[k].ev.subst << " / " << ow[k].ev.subst;
                        // every sent bit is deleted or transmitted
                        EXPECT_NEAR(
                            og[k].ev.del + og[k].ev.trans, N * cb.n(), 1e-9 * N * cb.n())
                            << what;
                        if (items[k]) {
                            const double di = max_abs_diff(og[k].items, ow[k].items);
                            worst_items[p] = std::max(worst_items[p], di);
                            EXPECT_LE(di, item_tol) << what;
                            // an item is transmitted at most once
                            for (size_t j = 0; j + 1 < og[k].items.size(); j += 2)
                                ASSERT_LE(og[k].items[j] + og[k].items[j + 1], 1 + 1e-9)
                                    << what << " item " << j / 2;
                        }
                    }
                    // the same frame twice in one batch: the same events
                    EXPECT_LE(events_diff(og[6].ev, og[0].ev), 1e-12);
                }
    }
    std::cout << "largest relative difference of the events from the CPU: double "
              << worst[0] << ", float " << worst[1] << "; of the item posteriors: double "
              << worst_items[0] << ", float " << worst_items[1] << std::endl;
}

// The item posteriors and events are made in one order whatever the batch
// (no atomics: event_kernels.cu): S500 frames decoded in a batch of six, one
// by one, and in the reverse order, in both precisions and storage modes, give
// the same values bit for bit, and so does a second decoder. This is what
// makes one decoder over several GPUs equal one GPU (qa_multi_device_cuda.cc).
TEST_F(cuda_events, item_posteriors_do_not_depend_on_the_batch)
{
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.02, 0.01, 0.005);
    const int N = 120;
    std::mt19937_64 rng(test_seed() + 23);
    std::vector<std::vector<uint8_t>> rx;
    for (int k = 0; k < 6; ++k)
        rx.push_back(sent_frame(cb, N, {}, ch, rng()));
    for (auto prec : precisions)
        for (auto st : storages) {
            decoder_config cfg(cb, ch, N);
            cfg.precision = prec;
            cfg.storage = st;
            cfg.cuda.local_window = 32;
            cfg.backend = backend_kind::cuda;
            const std::string what = to_string(prec) + " " + to_string(st);
            // decodes the frames of `order` in one batch; outputs by frame
            auto run = [&](map_decoder& dec, const std::vector<int>& order) {
                std::vector<event_out> out(rx.size());
                std::vector<frame_view> views;
                std::vector<std::vector<double>> post(rx.size());
                std::vector<double*> pp;
                for (int k : order) {
                    frame_view v;
                    v.bits = rx[k].data();
                    v.rho = rx[k].size();
                    ask(v, out[k], true);
                    views.push_back(v);
                    post[k].resize(size_t(N) * cb.q());
                    pp.push_back(post[k].data());
                }
                const auto res = dec.decode_batch(views, pp);
                for (const auto& r : res)
                    EXPECT_TRUE(r.ok()) << what << ": " << r.reason;
                return out;
            };
            auto dec = map_decoder::make(cfg);
            auto other = map_decoder::make(cfg);
            const auto batch = run(*dec, { 0, 1, 2, 3, 4, 5 });
            const auto reversed = run(*dec, { 5, 4, 3, 2, 1, 0 });
            const auto again = run(*other, { 0, 1, 2, 3, 4, 5 });
            for (int k = 0; k < 6; ++k) {
                const auto alone = run(*dec, { k });
                for (const auto* got : { &reversed[k], &again[k], &alone[k] }) {
                    EXPECT_EQ(got->ev.ins, batch[k].ev.ins) << what << " frame " << k;
                    EXPECT_EQ(got->ev.del, batch[k].ev.del) << what << " frame " << k;
                    EXPECT_EQ(got->ev.trans, batch[k].ev.trans) << what << " frame " << k;
                    EXPECT_EQ(got->ev.subst, batch[k].ev.subst) << what << " frame " << k;
                    ASSERT_EQ(got->items.size(), batch[k].items.size());
                    size_t differ = 0;
                    for (size_t j = 0; j < got->items.size(); ++j)
                        differ += got->items[j] != batch[k].items[j];
                    EXPECT_EQ(differ, 0u) << what << " frame " << k;
                }
            }
        }
}

TEST_F(cuda_events, a_frame_impossible_on_the_device_gets_zeros_and_spares_the_others)
{
    // two codewords 000 and 111, a perfect channel: 101 000 passes every
    // check before decoding and is found impossible by the recursions
    const codebook cb(3, { { 0, 7 } });
    decoder_config cfg(cb, channel_params(0, 0, 0), 2);
    cfg.backend = backend_kind::cuda;
    const std::vector<uint8_t> good = { 1, 1, 1, 0, 0, 0 }, bad = { 1, 0, 1, 0, 0, 0 },
                               good2 = { 0, 0, 0, 1, 1, 1 };
    for (auto prec : precisions)
        for (auto st : storages) {
            cfg.precision = prec;
            cfg.storage = st;
            auto dec = map_decoder::make(cfg);
            std::vector<frame_view> v = { { good.data(), good.size() },
                                          { bad.data(), bad.size() },
                                          { good2.data(), good2.size() } };
            std::vector<event_out> o(3);
            for (size_t k = 0; k < 3; ++k)
                ask(v[k], o[k], true);
            std::vector<std::vector<double>> post(3, std::vector<double>(4));
            const auto r =
                dec->decode_batch(v, { post[0].data(), post[1].data(), post[2].data() });
            const std::string what = to_string(prec) + " " + to_string(st);
            EXPECT_EQ(r[1].status, frame_status::impossible)
                << what << ": " << r[1].reason;
            expect_zero(o[1], what);
            for (size_t k : { size_t(0), size_t(2) }) {
                ASSERT_TRUE(r[k].ok()) << what << ": " << r[k].reason;
                EXPECT_NEAR(o[k].ev.trans, 6.0, 1e-12) << what;
                EXPECT_EQ(o[k].ev.ins, 0.0) << what;
                EXPECT_EQ(o[k].ev.del, 0.0) << what;
                EXPECT_EQ(o[k].ev.subst, 0.0) << what;
                const auto& y = k == 0 ? good : good2;
                for (size_t j = 0; j < y.size(); ++j) {
                    EXPECT_NEAR(o[k].items[2 * j + y[j]], 1.0, 1e-12) << what;
                    EXPECT_EQ(o[k].items[2 * j + 1 - y[j]], 0.0) << what;
                }
            }
        }
}
