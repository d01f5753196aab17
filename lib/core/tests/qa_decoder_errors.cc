/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Failures that must stay inside one frame (docs/design.md section 2,
// "Erasures"): the status vocabulary, limits whose widths overflow an int,
// and a decoder running out of memory in the middle of a batch, which gives
// that frame a decoder_error status (or, with storage "auto", local storage)
// and never ends the batch or the process.

#include "qa_log_capture.h"
#include "qa_sanitized.h"
#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>
#include <climits>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace bsid;

namespace {

using qa::sanitized;

std::vector<uint8_t> random_bits(size_t count, uint32_t seed)
{
    std::mt19937 g(seed);
    std::vector<uint8_t> v(count);
    for (auto& b : v)
        b = uint8_t(g() & 1u);
    return v;
}

// Lowers the address-space limit for its lifetime (restored after).
class address_space_limit
{
public:
    explicit address_space_limit(size_t extra_bytes)
    {
        getrlimit(RLIMIT_AS, &d_saved);
        size_t pages = 0;
        std::ifstream("/proc/self/statm") >> pages;
        rlimit r = d_saved;
        r.rlim_cur = rlim_t(pages * size_t(sysconf(_SC_PAGESIZE)) + extra_bytes);
        d_ok = setrlimit(RLIMIT_AS, &r) == 0;
    }
    ~address_space_limit() { setrlimit(RLIMIT_AS, &d_saved); }
    bool ok() const { return d_ok; }

private:
    rlimit d_saved{};
    bool d_ok = false;
};

} // namespace

TEST(frame_status, one_vocabulary)
{
    std::set<std::string> names;
    for (size_t k = 0; k < all_frame_statuses.size(); ++k) {
        const frame_status s = all_frame_statuses[k];
        EXPECT_EQ(int(s), int(k)) << "statuses are listed in the order of their values";
        const std::string name = to_string(s);
        EXPECT_NE(name, "unknown");
        EXPECT_TRUE(names.insert(name).second) << name << " is used twice";
        EXPECT_EQ(parse_frame_status(name), s);
    }
    for (const char* n : { "ok",
                           "empty",
                           "invalid_input",
                           "drift_out_of_range",
                           "impossible",
                           "decoder_error",
                           "truncated",
                           "frame_lost",
                           "invalid_tag",
                           "sync_lost",
                           "sync_ambiguous" }) {
        EXPECT_EQ(names.count(n), 1u) << n;
    }
    EXPECT_THROW(parse_frame_status("lost"), std::invalid_argument);
}

TEST(decoder_limits_input, widths_that_overflow_an_int_are_refused_by_name)
{
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    const drift_range huge{ INT_MIN, INT_MAX }; // 2^32 states: an int size wraps to 0
    for (int which = 0; which < 2; ++which) {
        decoder_config cfg(cb, ch, 10);
        cfg.backend = backend_kind::cpu;
        (which == 0 ? cfg.mtau : cfg.mn) = huge;
        try {
            map_decoder::make(cfg);
            ADD_FAILURE() << "accepted limits of 2^32 states";
        } catch (const std::invalid_argument& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(which == 0 ? "mtau" : "mn"), std::string::npos) << what;
            EXPECT_NE(what.find("too wide"), std::string::npos) << what;
        }
    }
    // the range at fault is the one named: lo > hi in mtau is not an mn problem
    decoder_config cfg(cb, ch, 10);
    cfg.mtau = drift_range{ 5, -5 };
    try {
        map_decoder::make(cfg);
        ADD_FAILURE() << "accepted mtau = [5, -5]";
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("mtau = [5, -5]"), std::string::npos) << what;
        EXPECT_EQ(what.find("mn"), std::string::npos) << what;
    }
}

TEST(decoder_errors, subnormal_priors_in_a_batch_decode_like_one_frame)
{
    // priors that pass validation (positive, finite) but are subnormal: the
    // batch's threads decode them as decode() does, in both precisions
    const codebook cb = codebook::builtin("ld3-modvec6");
    const channel_params ch(0.01, 0.01, 0.0);
    const int N = 12;
    for (auto prec : { precision_kind::single, precision_kind::dual }) {
        decoder_config cfg(cb, ch, N);
        cfg.backend = backend_kind::cpu;
        cfg.precision = prec;
        cfg.threads = 2;
        auto dec = map_decoder::make(cfg);
        std::vector<double> priors(size_t(N) * cb.q(), 1e-320);
        const auto rx = random_bits(size_t(N) * cb.n(), 3);
        std::vector<double> one(priors.size()), a(priors.size()), b(priors.size());
        ASSERT_TRUE(
            dec->decode({ rx.data(), rx.size(), priors.data() }, one.data()).ok());
        const auto rs = dec->decode_batch({ { rx.data(), rx.size(), priors.data() },
                                            { rx.data(), rx.size(), priors.data() } },
                                          { a.data(), b.data() });
        ASSERT_TRUE(rs[0].ok() && rs[1].ok()) << rs[0].reason << rs[1].reason;
        EXPECT_EQ(one, a);
        EXPECT_EQ(one, b);
    }
}

TEST(decoder_errors, auto_storage_counts_the_kept_sums_at_their_size_in_both_precisions)
{
    // The CPU decoder keeps every index's sums (G and Q) in double whatever
    // the lattice's precision, so storage "auto" must count them at 8 bytes
    // a value in float too: a float decoder that counted 4 would pick global
    // storage for frames whose sums do not fit the budget. Where the sums
    // dominate (q = 64, N = 3000), float's estimate is double's but for the
    // rings of positions (in the lattice's precision, a few MB).
    const codebook cb = codebook::random(8, 64, 1, 1);
    const channel_params ch(0.01, 0.01, 0.0);
    auto estimate_mib = [&](precision_kind prec) {
        qa::log_capture log;
        decoder_config cfg(cb, ch, 3000);
        cfg.backend = backend_kind::cpu;
        cfg.precision = prec;
        cfg.storage = storage_kind::automatic;
        (void)map_decoder::make(cfg);
        const std::string key = "global needs ";
        for (const auto& l : log.lines) {
            const size_t at = l.find(key);
            if (at != std::string::npos)
                return std::stod(l.substr(at + key.size()));
        }
        ADD_FAILURE() << "no storage estimate logged";
        return 0.0;
    };
    const double f = estimate_mib(precision_kind::single);
    const double d = estimate_mib(precision_kind::dual);
    EXPECT_GT(d, 100.0) << "the sums should dominate the estimate";
    EXPECT_GE(f, 0.95 * d) << "float " << f << " MiB, double " << d << " MiB";
    EXPECT_LE(f, d);
}

TEST(decoder_errors, out_of_memory_is_a_frame_status_not_a_crash)
{
    if (sanitized)
        GTEST_SKIP() << "sanitizers reserve address space; the limit cannot be set";
    // Global storage for this frame keeps every index's sums Q_i, N q M_tau
    // values (about 0.5 GB in double); the address space is limited to 160 MB
    // more than is in use, so that allocation fails while local storage (one
    // index's sums and the rings of positions, a few MB) fits.
    const codebook cb = codebook::random(8, 64, 1, 1);
    const channel_params ch(0.01, 0.01, 0.0);
    const int N = 3000;
    const auto sent = random_bits(size_t(N) * cb.n(), 5);
    const auto tx = transmit(ch, sent.data(), sent.size(), 11, 0);
    std::vector<uint8_t> bad = tx.rx;
    bad[7] = 5; // an invalid frame in the same batch keeps its own status

    for (auto storage : { storage_kind::global, storage_kind::automatic }) {
        decoder_config cfg(cb, ch, N);
        cfg.backend = backend_kind::cpu;
        cfg.storage = storage;
        cfg.threads = 2;
        auto dec = map_decoder::make(cfg);
        ASSERT_EQ(dec->storage(), storage_kind::global)
            << "the test needs global storage";
        const size_t NQ = size_t(N) * cb.q();
        std::vector<double> p0(NQ), p1(NQ), p2(NQ), ref(NQ);
        // the reference, and the OpenMP threads started, before the limit
        {
            decoder_config local = cfg;
            local.storage = storage_kind::local;
            auto ldec = map_decoder::make(local);
            const auto r = ldec->decode_batch(
                { { tx.rx.data(), tx.rx.size() }, { tx.rx.data(), tx.rx.size() } },
                { ref.data(), p1.data() });
            ASSERT_TRUE(r[0].ok()) << r[0].reason;
        }
        std::vector<frame_result> rs;
        frame_result single;
        {
            address_space_limit limit(size_t(160) << 20);
            ASSERT_TRUE(limit.ok());
            rs = dec->decode_batch({ { tx.rx.data(), tx.rx.size() },
                                     { bad.data(), bad.size() },
                                     { tx.rx.data(), tx.rx.size() } },
                                   { p0.data(), p1.data(), p2.data() });
            single = dec->decode({ tx.rx.data(), tx.rx.size() }, p1.data());
        }
        ASSERT_EQ(rs.size(), 3u);
        EXPECT_EQ(rs[1].status, frame_status::invalid_input) << rs[1].reason;
        if (storage == storage_kind::global) {
            for (const auto& r : { rs[0], rs[2], single }) {
                EXPECT_EQ(r.status, frame_status::decoder_error) << r.reason;
                EXPECT_NE(r.reason.find("out of host memory"), std::string::npos)
                    << r.reason;
            }
            for (double v : p0)
                ASSERT_EQ(v, 1.0 / cb.q()) << "a failed frame is uniform";
        } else {
            // auto: local storage takes over, with the same posteriors
            for (const auto& r : { rs[0], rs[2], single })
                EXPECT_TRUE(r.ok()) << r.reason;
            EXPECT_EQ(p0, ref);
            EXPECT_EQ(p2, ref);
            EXPECT_EQ(p1, ref);
        }
        // and the decoder works again once memory is back
        EXPECT_TRUE(dec->decode({ tx.rx.data(), tx.rx.size() }, p0.data()).ok());
        EXPECT_EQ(p0, ref);
    }
}
