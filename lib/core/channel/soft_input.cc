/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/format.h"
#include <gnuradio/bsid/core/channel/soft_input.h>
#include <gnuradio/bsid/core/inner/model.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace bsid {

input_kind parse_input_kind(const std::string& s)
{
    if (s == "bits")
        return input_kind::bits;
    if (s == "llr")
        return input_kind::llr;
    if (s == "logprob")
        return input_kind::logprob;
    throw std::invalid_argument("input must be \"bits\", \"llr\" or \"logprob\", not \"" +
                                s + "\"");
}

std::string to_string(input_kind k)
{
    return k == input_kind::llr ? "llr" : k == input_kind::logprob ? "logprob" : "bits";
}

void received_items::probabilities(size_t j, double& w0, double& w1) const
{
    if (llr) {
        model::llr_probabilities(double(llr[j]), w0, w1);
    } else {
        w1 = bits[j] ? 1.0 : 0.0;
        w0 = bits[j] ? 0.0 : 1.0;
    }
}

template <typename real>
void item_probabilities(const received_items& y, size_t count, real* out)
{
    const size_t A = size_t(y.alphabet);
    if (A != 2) {
        for (size_t j = 0; j < count; ++j) {
            real* w = out + A * j;
            if (!y.logprob) {
                std::fill(w, w + A, real(0));
                w[y.bits[j]] = real(1);
                continue;
            }
            // exp(lp - max lp) / sum, in double (find_invalid_item: max is finite)
            const double* lp = y.logprob + A * j;
            const double top = *std::max_element(lp, lp + A);
            double sum = 0;
            for (size_t l = 0; l < A; ++l)
                sum += std::exp(lp[l] - top);
            for (size_t l = 0; l < A; ++l)
                w[l] = real(std::exp(lp[l] - top) / sum);
        }
        return;
    }
    for (size_t j = 0; j < count; ++j) {
        double w0, w1;
        y.probabilities(j, w0, w1);
        out[2 * j] = real(w0);
        out[2 * j + 1] = real(w1);
    }
}

template void item_probabilities<float>(const received_items&, size_t, float*);
template void item_probabilities<double>(const received_items&, size_t, double*);

size_t find_invalid_logprob(const double* lp, size_t count, int A, std::string& what)
{
    for (size_t t = 0; t < count; ++t) {
        const double* item = lp + size_t(A) * t;
        bool any = false;
        for (int l = 0; l < A; ++l) {
            if (std::isnan(item[l]) ||
                item[l] == std::numeric_limits<double>::infinity()) {
                what = detail::concat("received log-probability of letter ",
                                      l,
                                      " at position ",
                                      t,
                                      " is ",
                                      detail::fmt_double(item[l]),
                                      " (a log-probability is finite, or -inf for an "
                                      "impossible letter)");
                return t;
            }
            any = any || std::isfinite(item[l]);
        }
        if (!any) {
            what = detail::concat("received item at position ",
                                  t,
                                  ": every letter's log-probability is -inf");
            return t;
        }
    }
    return count;
}

size_t find_invalid_item(const received_items& y, size_t count, std::string& what)
{
    if (count == 0)
        return 0;
    if (y.empty()) {
        what = "no received items were given";
        return 0;
    }
    if ((y.bits != nullptr) + (y.llr != nullptr) + (y.logprob != nullptr) > 1) {
        std::string kinds[3];
        int k = 0;
        for (const auto& [given, name] :
             { std::make_pair(y.bits != nullptr, "bits"),
               std::make_pair(y.llr != nullptr, "LLRs"),
               std::make_pair(y.logprob != nullptr, "log-probabilities") })
            if (given)
                kinds[k++] = name;
        what = k == 2
                   ? "both " + kinds[0] + " and " + kinds[1] + " were given for one frame"
                   : "bits, LLRs and log-probabilities were all given for one frame";
        return 0;
    }
    if (y.llr && y.alphabet != 2) {
        what = detail::concat("LLR items are soft bits; the decoder's alphabet has ",
                              y.alphabet,
                              " letters (give A log-probabilities per item: "
                              "input=\"logprob\")");
        return 0;
    }
    if (y.logprob && y.alphabet == 2) {
        what = "log-probability items are for alphabets of more than 2 letters; over "
               "bits give LLRs, lp(1) - lp(0) (input=\"llr\")";
        return 0;
    }
    if (y.logprob)
        return find_invalid_logprob(y.logprob, count, y.alphabet, what);
    if (y.llr) {
        // one branch-free pass that the compiler vectorizes (x != x only for
        // NaN; a sum would be a chain of dependent additions), then the exact
        // search only if needed
        bool any_nan = false;
        for (size_t t = 0; t < count; ++t)
            any_nan |= y.llr[t] != y.llr[t];
        if (!any_nan)
            return count;
        for (size_t t = 0; t < count; ++t) {
            if (std::isnan(y.llr[t])) {
                what = detail::concat("received LLR at position ", t, " is NaN");
                return t;
            }
        }
        return count;
    }
    // all bytes ORed together first (vectorized: a frame of thousands of bits
    // in a fraction of a microsecond), then the first byte that is not a bit
    if (y.alphabet == 2) {
        uint8_t any = 0;
        for (size_t t = 0; t < count; ++t)
            any |= y.bits[t];
        if (any <= 1)
            return count;
    } else {
        uint8_t top = 0;
        for (size_t t = 0; t < count; ++t)
            top = std::max(top, y.bits[t]);
        if (int(top) < y.alphabet)
            return count;
    }
    for (size_t t = 0; t < count; ++t) {
        if (int(y.bits[t]) >= y.alphabet) {
            what = y.alphabet == 2 ? detail::concat("received byte ",
                                                    int(y.bits[t]),
                                                    " at position ",
                                                    t,
                                                    " is not a bit (expected 0 or 1)")
                                   : detail::concat("received byte ",
                                                    int(y.bits[t]),
                                                    " at position ",
                                                    t,
                                                    " is not a letter of the alphabet "
                                                    "(expected 0 to ",
                                                    y.alphabet - 1,
                                                    ")");
            return t;
        }
    }
    return count;
}

} // namespace bsid
