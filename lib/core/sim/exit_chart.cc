/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/format.h"
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/sim/exit_chart.h>
#include <gnuradio/bsid/core/sim/frame_source.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace bsid {

namespace {

constexpr double floor_probability = 1e-300;
// the a priori model's draws for information(): a fixed stream
constexpr uint64_t model_seed = 0x45584954; // "EXIT"

// a standard normal draw (Box-Muller on two open-interval uniforms)
double normal(philox_stream& rng)
{
    const double u = rng.next_open01(), v = rng.next_open01();
    return std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * v);
}

// log2 of softmax(l)(x) over q values
double log2_softmax_at(const double* l, int q, int x)
{
    double top = l[0];
    for (int D = 1; D < q; ++D)
        top = std::max(top, l[D]);
    double sum = 0;
    for (int D = 0; D < q; ++D)
        sum += std::exp(l[D] - top);
    return (l[x] - top - std::log(sum)) / std::log(2.0);
}

// fills l (q values per symbol) for symbols x: sigma^2 [D == x] + sigma z_D
void apriori(
    philox_stream& rng, double sigma, int q, const int32_t* x, size_t count, double* l)
{
    for (size_t i = 0; i < count; ++i)
        for (int D = 0; D < q; ++D)
            l[i * size_t(q) + size_t(D)] =
                sigma * normal(rng) + (D == x[i] ? sigma * sigma : 0.0);
}

// the stream of frame (word) k's z's
philox_stream z_stream(uint64_t seed, uint64_t k)
{
    return philox_stream(seed, (1ULL << 63) + (1ULL << 58) + k);
}

void check(const std::vector<double>& ia, const exit_options& opt, const char* who)
{
    if (opt.frames < 2)
        throw std::invalid_argument(
            detail::concat(who, ": frames must be at least 2, got ", opt.frames));
    if (opt.batch == 0)
        throw std::invalid_argument(detail::concat(who, ": batch must be at least 1"));
    for (double v : ia)
        if (!(v >= 0 && v < 1))
            throw std::invalid_argument(
                detail::concat(who, ": I_A = ", v, " must lie in [0, 1)"));
}

// mean and 95 % interval of per-frame samples
void summarize(const std::vector<double>& s, exit_point& p)
{
    p.frames = s.size();
    if (s.empty())
        return;
    double mean = 0;
    for (double v : s)
        mean += v;
    mean /= double(s.size());
    double var = 0;
    for (double v : s)
        var += (v - mean) * (v - mean);
    const double se =
        s.size() > 1 ? std::sqrt(var / double(s.size() - 1) / double(s.size())) : 0.0;
    p.ie = mean;
    p.ie_low = mean - 1.96 * se;
    p.ie_high = mean + 1.96 * se;
}

} // namespace

namespace {

// The model's fixed draws for information(): samples x q standard normals,
// in the order apriori() draws them (symbol 0 sent: the model is symmetric).
std::vector<double> model_draws(int q, size_t samples)
{
    if (q < 2)
        throw std::invalid_argument("apriori_model: q must be at least 2");
    philox_stream rng(model_seed, uint64_t(q));
    std::vector<double> z(samples * size_t(q));
    for (auto& v : z)
        v = normal(rng);
    return z;
}

// I_A / log2 q at sigma over the draws z (the same arithmetic as apriori())
double information_of(const std::vector<double>& z, double sigma, int q)
{
    if (sigma <= 0)
        return 0;
    const size_t samples = z.size() / size_t(q);
    std::vector<double> l(static_cast<size_t>(q));
    double sum = 0;
    for (size_t s = 0; s < samples; ++s) {
        for (int D = 0; D < q; ++D)
            l[size_t(D)] =
                sigma * z[s * size_t(q) + size_t(D)] + (D == 0 ? sigma * sigma : 0.0);
        sum += log2_softmax_at(l.data(), q, 0);
    }
    return std::max(0.0, 1 + sum / double(samples) / std::log2(double(q)));
}

} // namespace

double apriori_model::information(double sigma, int q, size_t samples)
{
    return information_of(model_draws(q, samples), sigma, q);
}

double apriori_model::sigma_for(double ia, int q, size_t samples)
{
    if (!(ia >= 0 && ia < 1))
        throw std::invalid_argument(
            detail::concat("apriori_model: I_A = ", ia, " must lie in [0, 1)"));
    if (ia == 0)
        return 0;
    const std::vector<double> z = model_draws(q, samples); // drawn once, not per step
    double lo = 0, hi = 1;
    while (information_of(z, hi, q) < ia && hi < 1e3)
        hi *= 2;
    for (int it = 0; it < 40; ++it) {
        const double mid = (lo + hi) / 2;
        (information_of(z, mid, q) < ia ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}

std::vector<exit_point> inner_exit_curve(const decoder_config& cfg,
                                         const std::vector<double>& ia,
                                         const exit_options& opt)
{
    check(ia, opt, "inner_exit_curve");
    frame_source source(cfg.cb, cfg.ch, cfg.N, opt.seed);
    frame_decoder dec(cfg);
    const int N = cfg.N, q = cfg.cb.q();
    const size_t NQ = size_t(N) * size_t(q);
    const double lq = std::log2(double(q));
    std::vector<exit_point> out;
    frame_batch batch;
    std::vector<double> priors;
    std::vector<frame_request> requests;
    for (double target : ia) {
        exit_point p;
        p.sigma = apriori_model::sigma_for(target, q);
        std::vector<double> ie_samples;
        double ia_sum = 0;
        size_t ia_count = 0;
        for (size_t first = 0; first < opt.frames; first += opt.batch) {
            const size_t count = std::min(opt.batch, opt.frames - first);
            source.generate(first, count, batch, opt.threads);
            priors.resize(count * NQ);
            requests.assign(count, frame_request{});
            for (size_t k = 0; k < count; ++k) {
                auto rng = z_stream(opt.seed, first + k);
                double* l = priors.data() + k * NQ;
                apriori(rng, p.sigma, q, batch.sent(k), size_t(N), l);
                for (int i = 0; i < N; ++i)
                    ia_sum += 1 + log2_softmax_at(
                                      l + size_t(i) * size_t(q), q, batch.sent(k)[i]) /
                                      lq;
                ia_count += size_t(N);
                frame_request& r = requests[k];
                r.bits = batch.rx[k].data();
                r.L = batch.rx[k].size();
                r.priors = l;
                r.log_priors = true;
                r.extrinsic = true;
            }
            const auto got = dec.decode_batch(requests);
            for (size_t k = 0; k < count; ++k) {
                if (!got[k].result.ok())
                    continue;
                double s = 0;
                for (int i = 0; i < N; ++i) {
                    const double e =
                        got[k]
                            .posteriors[size_t(i) * size_t(q) + size_t(batch.sent(k)[i])];
                    s += std::log2(std::max(e, floor_probability));
                }
                ie_samples.push_back(1 + s / double(N) / lq);
            }
        }
        p.ia = ia_count ? ia_sum / double(ia_count) : 0;
        summarize(ie_samples, p);
        out.push_back(p);
    }
    return out;
}

std::vector<exit_point> outer_exit_curve(const outer_code& code,
                                         const siso_config& cfg,
                                         const std::vector<double>& ia,
                                         const exit_options& opt)
{
    check(ia, opt, "outer_exit_curve");
    if (opt.iterations < 1)
        throw std::invalid_argument("outer_exit_curve: iterations must be at least 1");
    const auto dec = code.make_decoder(cfg);
    const int n = code.n(), k = code.k(), q = code.q();
    const size_t NQ = size_t(n) * size_t(q);
    const double lq = std::log2(double(q));
    int m = 0;
    while ((1 << m) < q)
        ++m;
    std::vector<exit_point> out;
    std::vector<int32_t> info(static_cast<size_t>(k)), words, decisions;
    std::vector<double> in, ext;
    for (double target : ia) {
        exit_point p;
        p.sigma = apriori_model::sigma_for(target, q);
        std::vector<double> ie_samples;
        double ia_sum = 0;
        size_t ia_count = 0, decoded = 0;
        for (size_t first = 0; first < opt.frames; first += opt.batch) {
            const size_t count = std::min(opt.batch, opt.frames - first);
            words.resize(count * size_t(n));
            decisions.resize(count * size_t(n));
            in.resize(count * NQ);
            ext.resize(count * NQ);
            std::vector<const double*> ins;
            std::vector<double*> exts;
            for (size_t j = 0; j < count; ++j) {
                philox_stream word_rng(opt.seed, (1ULL << 63) + (1ULL << 57) + first + j);
                for (auto& u : info)
                    u = int32_t(word_rng.next_u32() >> (32 - m));
                int32_t* c = words.data() + j * size_t(n);
                code.encode(info.data(), c);
                auto rng = z_stream(opt.seed, first + j);
                double* l = in.data() + j * NQ;
                apriori(rng, p.sigma, q, c, size_t(n), l);
                for (int i = 0; i < n; ++i)
                    ia_sum +=
                        1 + log2_softmax_at(l + size_t(i) * size_t(q), q, c[i]) / lq;
                ia_count += size_t(n);
                ins.push_back(l);
                exts.push_back(ext.data() + j * NQ);
            }
            std::vector<int32_t*> decided;
            for (size_t j = 0; j < count; ++j)
                decided.push_back(decisions.data() + j * size_t(n));
            const auto res = dec->decode_batch(ins, opt.iterations, {}, exts, decided);
            for (size_t j = 0; j < count; ++j) {
                const int32_t* c = words.data() + j * size_t(n);
                // a word decoded to the codeword sent is done: I_E = 1 (the
                // decoder stops there, and its extrinsic output is the last
                // iteration's, or uniform when the input already decoded)
                if (res[j].syndrome_ok && std::equal(c, c + n, decided[j])) {
                    ie_samples.push_back(1.0);
                    ++decoded;
                    continue;
                }
                double s = 0;
                for (int i = 0; i < n; ++i) // ext: natural logs, each row normalized
                    s += std::max(ext[j * NQ + size_t(i) * size_t(q) + size_t(c[i])],
                                  std::log(floor_probability)) /
                         std::log(2.0);
                ie_samples.push_back(1 + s / double(n) / lq);
            }
        }
        p.ia = ia_count ? ia_sum / double(ia_count) : 0;
        summarize(ie_samples, p);
        p.decoded = double(decoded) / double(opt.frames);
        out.push_back(p);
    }
    return out;
}

} // namespace bsid
