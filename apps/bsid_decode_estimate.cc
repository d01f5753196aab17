/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bsid_decode --estimate.

#include "bsid_decode_parts.h"

namespace bsid_decode {

/*
 * --estimate: every frame of stdin (one per line) read, the channel estimated
 * from them (bsid::estimate_channel) and printed as one JSON line. A line
 * that is not a frame (a character other than 0 and 1, or over --alphabet A
 * not a letter; a token that is not an LLR or a log-probability) is refused
 * and counted, as the decoder would refuse it.
 */
int run_estimate(const bsid::frame_decoder& dec,
                 std::map<std::string, std::string>& opt,
                 bsid::input_kind input,
                 const std::vector<std::vector<double>>& priors,
                 bool log_priors,
                 bool stream,
                 int lookahead)
{
    bsid::estimate_options eo;
    // progress on stderr, one line an iteration, once the estimate has run
    // for 2 s (a short one stays quiet); not below --log-level warning
    const auto t0 = std::chrono::steady_clock::now();
    eo.on_iteration = [t0](int it, double ll, const bsid::channel_params& ch) {
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s < 2.0 || bsid::get_log_level() > bsid::log_level::warning)
            return;
        std::fprintf(stderr,
                     "bsid_decode: --estimate: iteration %d (%.0f s): log-likelihood "
                     "%.6g, then Pi = %.4g, Pd = %.4g, Ps = %.4g\n",
                     it + 1,
                     s,
                     ll,
                     ch.Pi(),
                     ch.Pd(),
                     ch.Ps());
        std::fflush(stderr);
    };
    if (opt.count("--iterations"))
        eo.iterations = int(integer("--iterations", opt["--iterations"], 1, 1 << 20));
    if (opt.count("--tolerance"))
        eo.tolerance = number("--tolerance", opt["--tolerance"]);
    if (opt.count("--llr-scale"))
        eo.llr_scale = number("--llr-scale", opt["--llr-scale"]);
    eo.substitution_matrix = opt.count("--substitution-matrix") > 0;
    if (opt.count("--fix")) {
        std::stringstream ss(opt["--fix"]);
        std::string name;
        while (std::getline(ss, name, ',')) {
            try {
                eo.fix(name);
            } catch (const std::invalid_argument& e) {
                die(std::string("--fix: ") + e.what());
            }
        }
    }
    const int A = dec.config().ch.alphabet();
    const bool logprob = input == bsid::input_kind::logprob;
    const bool soft = input == bsid::input_kind::llr || logprob;
    std::vector<std::vector<uint8_t>> bits;
    std::vector<std::vector<double>> llrs;
    std::vector<size_t> line_of; // the frames' line indices (for their priors)
    size_t bad = 0, count = 0;
    std::string line;
    bsid::channel_estimate est;
    bits_given_as_llrs guard; // --input llr given bits
    if (stream) {
        // the whole stream: 0s and 1s (whitespace ignored), or LLRs
        std::vector<uint8_t> b;
        std::vector<double> l;
        std::string tok;
        size_t pos = 0;
        while (std::cin >> tok) {
            if (soft) {
                double v;
                guard.token(tok);
                bits_given_as_llrs::stream_token(tok, (long long)l.size());
                if (!llr_token(tok, v))
                    die("--estimate: '" + tok + "' at item " + std::to_string(l.size()) +
                        " of the stream is not an LLR (a number)");
                l.push_back(v);
                continue;
            }
            for (const char c : tok) {
                const int v = letter_of(c, A);
                if (v < 0)
                    die("--estimate: character '" + std::string(1, c) + "' at item " +
                        std::to_string(pos) + " of the stream is not " +
                        (A == 2 ? std::string("0 or 1")
                                : "a letter of the alphabet of " + std::to_string(A)));
                b.push_back(uint8_t(v));
                ++pos;
            }
        }
        if (soft && !logprob)
            guard.check();
        if (logprob && l.size() % size_t(A) != 0)
            die("--estimate: the stream's " + std::to_string(l.size()) +
                " log-probabilities are not a whole number of items of " +
                std::to_string(A));
        bsid::stream_options so;
        so.lookahead = lookahead;
        bsid::received_items items;
        items.alphabet = A;
        if (logprob)
            items.logprob = l.data();
        else if (soft)
            items.llr = l.data();
        else
            items.bits = b.data();
        try {
            est = bsid::estimate_channel_stream(dec.config(),
                                                items,
                                                logprob ? l.size() / size_t(A)
                                                : soft  ? l.size()
                                                        : b.size(),
                                                eo,
                                                dec.sync_word(),
                                                so);
        } catch (const std::exception& e) {
            die(e.what());
        }
        return print_estimate(est, 0);
    }
    while (std::getline(std::cin, line)) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        bool ok = true;
        if (soft) {
            std::string why;
            auto l = llr_line(line, why, guard, count + 1);
            ok = why.empty() && (!logprob || l.size() % size_t(A) == 0);
            if (ok)
                llrs.push_back(std::move(l));
        } else if (A != 2) {
            std::string why;
            auto b = letters_line(line, A, why);
            ok = why.empty();
            if (ok)
                bits.push_back(std::move(b));
        } else {
            std::vector<uint8_t> b;
            for (const char c : line) {
                ok = ok && (c == '0' || c == '1');
                b.push_back(uint8_t(c - '0'));
            }
            if (ok)
                bits.push_back(std::move(b));
        }
        if (ok)
            line_of.push_back(count);
        else
            ++bad;
        ++count;
    }
    if (soft && !logprob)
        guard.check();
    if (!priors.empty() && priors.size() != 1 && priors.size() < count)
        die("priors file has " + std::to_string(priors.size()) + " lines but there are " +
            std::to_string(count) + " frames");
    std::vector<bsid::frame_view> views;
    for (size_t k = 0; k < line_of.size(); ++k) {
        bsid::frame_view v;
        if (logprob) {
            v.logprob = llrs[k].data();
            v.rho = llrs[k].size() / size_t(A);
        } else if (soft) {
            v.llr = llrs[k].data();
            v.rho = llrs[k].size();
        } else {
            v.bits = bits[k].data();
            v.rho = bits[k].size();
        }
        if (!priors.empty()) {
            v.priors = priors[priors.size() == 1 ? 0 : line_of[k]].data();
            v.log_priors = log_priors;
        }
        views.push_back(v);
    }
    if (views.empty())
        die(count == 0 ? "--estimate: no frames on stdin"
                       : "--estimate: no line of stdin is a frame (" +
                             std::to_string(bad) + " lines of other characters)");
    try {
        est = bsid::estimate_channel(dec.config(), views, eo, dec.sync_word());
    } catch (const std::exception& e) {
        die(e.what());
    }
    return print_estimate(est, bad);
}

// --estimate's output: one JSON line (bad: lines refused before decoding)
int print_estimate(const bsid::channel_estimate& est, size_t bad)
{
    char b[64];
    auto num = [&](double x) {
        std::snprintf(b, sizeof b, "%.17g", x);
        return std::string(b);
    };
    std::string out = "{\"Pi\":" + num(est.ch.Pi()) + ",\"Pd\":" + num(est.ch.Pd()) +
                      ",\"Ps\":" + num(est.ch.Ps()) +
                      ",\"alphabet\":" + std::to_string(est.ch.alphabet());
    if (est.ch.has_substitution_matrix()) {
        // row x: P(received y | x transmitted), then the counts behind it
        const size_t A = size_t(est.ch.alphabet());
        auto matrix = [&](const std::vector<double>& m) {
            std::string s = "[";
            for (size_t x = 0; x < A; ++x) {
                s += x ? ",[" : "[";
                for (size_t y = 0; y < A; ++y)
                    s += (y ? "," : "") + num(m[x * A + y]);
                s += "]";
            }
            return s + "]";
        };
        out += ",\"substitution\":" + matrix(est.ch.substitution());
        if (est.substitution_counts.size() == A * A)
            out += ",\"substitution_counts\":" + matrix(est.substitution_counts);
    }
    out += ",\"llr_scale\":" + num(est.llr_scale) +
           ",\"iterations\":" + std::to_string(est.iterations) +
           ",\"converged\":" + (est.converged ? "true" : "false") +
           ",\"frames_used\":" + std::to_string(est.frames_used) +
           ",\"frames_refused\":" + std::to_string(est.frames_refused + bad) +
           ",\"log_likelihoods\":[";
    for (size_t k = 0; k < est.log_likelihoods.size(); ++k)
        out += (k ? "," : "") + num(est.log_likelihoods[k]);
    out += "],\"events\":{\"insertions\":" + num(est.events.ins) +
           ",\"deletions\":" + num(est.events.del) +
           ",\"transmissions\":" + num(est.events.trans) +
           ",\"substitutions\":" + num(est.events.subst) + "},\"notes\":[";
    for (size_t k = 0; k < est.notes.size(); ++k)
        out += (k ? "," : "") + json_string(est.notes[k]);
    out += "]}\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

} // namespace bsid_decode
