/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// libFuzzer target: the CPU MAP decoder on arbitrary received frames with
// arbitrary valid parameters (docs/testing.md, "Fuzzing and sanitizers").
//
// The first bytes choose the parameters, always within their valid ranges and
// small enough that one execution takes milliseconds: n <= 6,
// q <= min(2^n, 8), P <= 3, N <= 5, Pi, Pd in [0, 0.45], Ps in [0, 1],
// Pr in [1e-20, 0.9], float or double, global or local storage, computed or
// explicit drift limits, uniform or given priors. The rest is the received
// frame, one byte per bit: mapped to 0/1, left raw, or with one non-bit byte
// planted, so that the refusal paths run too.
//
// Invariants: building the decoder never throws for these parameters;
// decode() throws nothing but std::invalid_argument for invalid priors; every
// posterior is finite and in [0, 1]; a decoded frame's rows sum to 1; a
// refused frame's rows are exactly uniform, and its status is the one the
// documented checks give (empty, invalid_input, drift_out_of_range); global
// and local storage give identical posteriors, and decode_batch the same as
// decode.

#include <gnuradio/bsid/core/channel/channel_params.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <fuzzer/FuzzedDataProvider.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace bsid;

namespace {

std::string g_case; // the parameters of the current input, for the report

[[noreturn]] void violated(const char* what, const frame_result& r)
{
    std::fprintf(stderr,
                 "fuzz_decoder: invariant violated: %s (status %s: %s)\n  %s\n",
                 what,
                 to_string(r.status),
                 r.reason.c_str(),
                 g_case.c_str());
    std::abort();
}

// A probability in [0, hi] from 16 bits, hitting 0 and hi exactly.
double prob(FuzzedDataProvider& in, double hi)
{
    return hi * double(in.ConsumeIntegral<uint16_t>()) / 65535.0;
}

struct outcome {
    frame_result r;
    bool threw = false;
    std::vector<double> post;
};

outcome run(map_decoder& dec, const frame_view& f, bool batch)
{
    outcome o;
    const size_t count = size_t(dec.N()) * size_t(dec.q());
    // NaN first: a value the decoder forgets to write shows up as not finite
    o.post.assign(count, std::numeric_limits<double>::quiet_NaN());
    try {
        if (batch) {
            auto rs = dec.decode_batch({ f }, { o.post.data() });
            if (rs.size() != 1)
                violated("decode_batch returned the wrong number of results", {});
            o.r = rs[0];
        } else {
            o.r = dec.decode(f, o.post.data());
        }
    } catch (const std::invalid_argument&) {
        if (!f.priors)
            violated("invalid_argument without priors", o.r);
        o.threw = true;
    }
    return o;
}

void check(const map_decoder& dec, const frame_view& f, const outcome& o)
{
    if (o.threw)
        return;
    const int N = dec.N(), q = dec.q();
    // the documented refusals, in the order precheck applies them
    frame_status expected = frame_status::ok;
    if (f.rho == 0) {
        expected = frame_status::empty;
    } else if (!dec.limits().mtau.contains((long long)f.rho - dec.tau())) {
        expected = frame_status::drift_out_of_range;
    } else if (std::any_of(f.bits, f.bits + f.rho, [](uint8_t b) { return b > 1; })) {
        expected = frame_status::invalid_input;
    }
    if (expected != frame_status::ok && o.r.status != expected)
        violated("a refused frame has the wrong status", o.r);
    if (expected == frame_status::ok && o.r.status != frame_status::ok &&
        o.r.status != frame_status::impossible)
        violated("a well-formed frame refused for a reason other than impossible", o.r);
    if (!o.r.ok() && o.r.reason.empty())
        violated("a refusal without a reason", o.r);

    for (int i = 0; i < N; ++i) {
        const double* row = o.post.data() + size_t(i) * size_t(q);
        double sum = 0;
        for (int D = 0; D < q; ++D) {
            if (!std::isfinite(row[D]) || row[D] < 0 || row[D] > 1)
                violated("a posterior is not a finite probability", o.r);
            if (!o.r.ok() && row[D] != 1.0 / q)
                violated("a refused frame's row is not uniform", o.r);
            sum += row[D];
        }
        if (o.r.ok() && std::abs(sum - 1) > 1e-9)
            violated("a decoded row does not sum to 1", o.r);
    }
}

bool same(const outcome& a, const outcome& b)
{
    if (a.threw || b.threw)
        return a.threw == b.threw; // the output is not defined then
    return a.r.status == b.r.status && a.post == b.post;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    set_log_level(log_level::off);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    FuzzedDataProvider in(data, size);

    // The code: random or sparse, always valid.
    const int n = in.ConsumeIntegralInRange<int>(1, 6);
    const int q = in.ConsumeIntegralInRange<int>(2, std::min(1 << n, 8));
    const int P = in.ConsumeIntegralInRange<int>(1, 3);
    const uint32_t seed = in.ConsumeIntegral<uint32_t>();
    const bool sparse = in.ConsumeBool();
    const codebook cb = sparse ? codebook::sparse(n, q) : codebook::random(n, q, P, seed);
    const int N = in.ConsumeIntegralInRange<int>(1, 5);

    const double Pi = prob(in, 0.45), Pd = prob(in, 0.45), Ps = prob(in, 1.0);
    decoder_config cfg(cb, channel_params(Pi, Pd, Ps), N);
    cfg.backend = backend_kind::cpu;
    cfg.precision = in.ConsumeBool() ? precision_kind::dual : precision_kind::single;
    cfg.threads = 1;
    // Pr = 10^-k, k in [0.05, 20]: strictly inside (0, 1)
    cfg.Pr = std::pow(10.0, -double(in.ConsumeIntegralInRange<int>(1, 400)) / 20.0);
    const int limits_mode = in.ConsumeIntegralInRange<int>(0, 3);
    if (limits_mode >= 2) {
        // explicit limits: mtau_lo <= mn_lo <= 0 <= mn_hi <= mtau_hi, bounded
        drift_range t, m;
        t.lo = -in.ConsumeIntegralInRange<int>(0, 10);
        t.hi = in.ConsumeIntegralInRange<int>(0, 10);
        m.lo = -in.ConsumeIntegralInRange<int>(0, -t.lo);
        m.hi = in.ConsumeIntegralInRange<int>(0, t.hi);
        cfg.mtau = t;
        if (limits_mode == 3)
            cfg.mn = m;
    }

    // Priors: absent, or N q values from the input (possibly zero rows,
    // which must be refused with std::invalid_argument).
    std::vector<double> priors;
    if (in.ConsumeBool()) {
        priors.resize(size_t(N) * size_t(q));
        for (auto& p : priors)
            p = double(in.ConsumeIntegralInRange<int>(0, 15)) / 4.0;
    }

    // The frame: at most tau + 24 bits.
    const int mode = in.ConsumeIntegralInRange<int>(0, 7);
    const size_t tau = size_t(n) * size_t(N);
    const size_t rho = std::min<size_t>(in.remaining_bytes(), tau + 24);
    std::vector<uint8_t> bits = in.ConsumeBytes<uint8_t>(rho);
    if (mode == 7) {
        // raw bytes: almost always refused as invalid_input
    } else {
        for (auto& b : bits)
            b &= 1;
        if (mode == 6 && !bits.empty())
            bits[size_t(seed) % bits.size()] = uint8_t(2 + seed % 254);
    }
    frame_view f;
    f.bits = bits.data();
    f.rho = bits.size();
    f.priors = priors.empty() ? nullptr : priors.data();

    {
        std::ostringstream os;
        os.precision(17);
        os << "n=" << n << " q=" << q << " P=" << cb.P() << " seed=" << seed
           << " sparse=" << sparse << " N=" << N << " " << cfg.ch.repr()
           << " precision=" << to_string(cfg.precision) << " Pr=" << cfg.Pr
           << " limits_mode=" << limits_mode;
        if (cfg.mtau)
            os << " mtau=[" << cfg.mtau->lo << "," << cfg.mtau->hi << "]";
        if (cfg.mn)
            os << " mn=[" << cfg.mn->lo << "," << cfg.mn->hi << "]";
        os << " priors=" << !priors.empty() << " rho=" << f.rho << " bits=";
        for (size_t t = 0; t < f.rho; ++t)
            os << int(f.bits[t]) << (f.bits[t] > 1 ? "," : "");
        g_case = os.str();
    }

    std::unique_ptr<map_decoder> global, local;
    try {
        cfg.storage = storage_kind::global;
        global = map_decoder::make(cfg);
        cfg.storage = storage_kind::local;
        local = map_decoder::make(cfg);
    } catch (const std::exception& e) {
        std::fprintf(
            stderr, "fuzz_decoder: make() refused valid parameters: %s\n", e.what());
        std::abort();
    }
    const outcome g = run(*global, f, false);
    check(*global, f, g);
    const outcome l = run(*local, f, false);
    check(*local, f, l);
    if (!same(g, l)) {
        for (size_t k = 0; k < g.post.size(); ++k)
            if (!(g.post[k] == l.post[k]))
                std::fprintf(stderr,
                             "  post[%zu]: global %.17g local %.17g\n",
                             k,
                             g.post[k],
                             l.post[k]);
        std::fprintf(stderr,
                     "  statuses: global %s, local %s\n",
                     to_string(g.r.status),
                     to_string(l.r.status));
        violated("global and local storage differ", g.r);
    }
    const outcome b = run(*global, f, true);
    if (!same(g, b))
        violated("decode_batch differs from decode", g.r);
    return 0;
}
