/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The belief-propagation interface: the tables and the checks every backend
// shares (the CPU backend is ldpc_decoder_cpu.cc, CUDA
// lib/cuda/ldpc_decoder_cuda.cu; the math is bp_math.h; the factory,
// ldpc_decoder::make, is runtime/backends.cc).

#include "runtime/format.h"
#include <gnuradio/bsid/core/outer/ldpc_decoder.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace bsid {

namespace {
constexpr double neg_inf = -std::numeric_limits<double>::infinity();
} // namespace

ldpc_decoder::ldpc_decoder(const ldpc_code& code, const bp_config& cfg)
    : d_code(code), d_cfg(cfg)
{
    const int q = code.q();
    const galois_field& gf = code.field();
    d_perm.assign(size_t(q) * size_t(q), 0);
    for (int c = 1; c < q; ++c) {
        for (int x = 0; x < q; ++x) {
            d_perm[size_t(c) * size_t(q) + size_t(x)] = int32_t(gf.mul(c, x));
        }
    }
    d_coef.reserve(code.entries().size());
    for (const auto& e : code.entries())
        d_coef.push_back(e.coef);
}

bp_result ldpc_decoder::decode(
    const double* in, int max_iterations, double* post, double* ext, int32_t* decisions)
{
    return decode_batch({ in }, max_iterations, { post }, { ext }, { decisions })[0];
}

void ldpc_decoder::check_batch(const std::vector<const double*>& in,
                               int max_iterations,
                               const std::vector<double*>& post,
                               const std::vector<double*>& ext,
                               const std::vector<int32_t*>& decisions) const
{
    if (max_iterations < 1) {
        throw std::invalid_argument(detail::concat(
            "ldpc_decoder: max_iterations = ", max_iterations, " must be >= 1"));
    }
    const size_t W = in.size();
    auto check_size = [W](size_t s, const char* name) {
        if (s != 0 && s != W) {
            throw std::invalid_argument(detail::concat("ldpc_decoder::decode_batch: ",
                                                       name,
                                                       " has ",
                                                       s,
                                                       " pointers for ",
                                                       W,
                                                       " words (0 or one per word)"));
        }
    };
    check_size(post.size(), "post");
    check_size(ext.size(), "ext");
    check_size(decisions.size(), "decisions");
    for (size_t j = 0; j < W; ++j) {
        try {
            validate(in[j]);
        } catch (const std::invalid_argument& e) {
            if (W == 1)
                throw;
            throw std::invalid_argument(
                detail::concat("ldpc_decoder::decode_batch: word ", j, ": ", e.what()));
        }
    }
}

void ldpc_decoder::validate(const double* in) const
{
    if (!in) {
        throw std::invalid_argument("ldpc_decoder: null input");
    }
    const int q = d_code.q();
    for (int v = 0; v < d_code.n(); ++v) {
        const double* r = in + size_t(v) * size_t(q);
        bool any = false;
        for (int x = 0; x < q; ++x) {
            if (std::isnan(r[x])) {
                throw std::invalid_argument(detail::concat(
                    "ldpc_decoder: input row ", v, " has a NaN (symbol value ", x, ")"));
            }
            if (r[x] == std::numeric_limits<double>::infinity()) {
                throw std::invalid_argument(
                    detail::concat("ldpc_decoder: input row ",
                                   v,
                                   " has +infinity (symbol value ",
                                   x,
                                   "); log-probabilities must be finite or -infinity"));
            }
            any = any || r[x] != neg_inf;
        }
        if (!any) {
            throw std::invalid_argument(
                detail::concat("ldpc_decoder: input row ",
                               v,
                               " is all -infinity (every symbol value impossible)"));
        }
    }
}

} // namespace bsid
