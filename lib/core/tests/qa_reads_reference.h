/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Test-only: the exact posteriors of a frame from several reads by brute
// force, written from the model's statement (docs/reads.md) and independent
// of the decoders: for every message X, P(y_1..y_M | X) = prod_r P(y_r | X),
// each factor restricted to read r's drift limits (qa_reference.h's
// restricted_likelihood), weighed by the priors and summed per symbol.
// Shared by the CPU tests (qa_reads.cc) and the CUDA ones.

#ifndef INCLUDED_BSID_QA_READS_REFERENCE_H
#define INCLUDED_BSID_QA_READS_REFERENCE_H

#include "qa_reference.h"
#include <gnuradio/bsid/core/reads/reads_decoder.h>
#include <optional>

namespace bsid {
namespace qa {

//! One read of a tiny frame: its channel and what it received (bits or
//! letters in y, or soft items in llr: A log-probabilities per item over
//! more than two letters).
struct tiny_read {
    channel_params ch;
    std::vector<uint8_t> y;
    std::vector<double> llr;
    size_t size() const
    {
        return llr.empty()
                   ? y.size()
                   : llr.size() / (ch.alphabet() == 2 ? 1 : size_t(ch.alphabet()));
    }
    frame_read view() const
    {
        frame_read r;
        r.L = size();
        if (llr.empty())
            r.bits = y.data();
        else if (ch.alphabet() == 2)
            r.llr = llr.data();
        else
            r.logprob = llr.data();
        return r;
    }
};

/*!
 * The posteriors (or, with extrinsic, the extrinsic outputs) of a frame of N
 * codewords of cb from the reads, each P(y_r | X) restricted to limits[r];
 * priors: N q, or empty for uniform. Nothing where every message has
 * probability 0.
 */
inline std::optional<std::vector<double>>
brute_force_reads(const codebook& cb,
                  int N,
                  const std::vector<tiny_read>& reads,
                  const std::vector<decoder_limits>& limits,
                  const std::vector<double>& priors,
                  bool extrinsic = false)
{
    const int q = cb.q(), n = cb.n();
    // weight of each message without its priors
    std::vector<int> msg(size_t(N), 0);
    std::vector<std::vector<int>> messages;
    std::vector<double> like;
    for (;;) {
        std::vector<uint8_t> X;
        for (int i = 0; i < N; ++i) {
            const auto w =
                letters_of(cb.word(size_t(i), msg[size_t(i)]), n, cb.alphabet());
            X.insert(X.end(), w.begin(), w.end());
        }
        double p = 1;
        for (size_t r = 0; r < reads.size(); ++r) {
            const auto& rd = reads[r];
            p *= restricted_likelihood(rd.ch,
                                       X,
                                       n,
                                       N,
                                       rd.y.data(),
                                       rd.llr.empty() ? nullptr : rd.llr.data(),
                                       (long long)rd.size(),
                                       limits[r]);
        }
        messages.push_back(msg);
        like.push_back(p);
        int k = 0;
        while (k < N && ++msg[size_t(k)] == q)
            msg[size_t(k++)] = 0;
        if (k == N)
            break;
    }
    std::vector<double> out(size_t(N) * size_t(q), 0.0);
    for (int i = 0; i < N; ++i) {
        double total = 0;
        for (size_t m = 0; m < messages.size(); ++m) {
            double w = like[m];
            for (int j = 0; j < N && !priors.empty(); ++j)
                if (!(extrinsic && j == i))
                    w *= priors[size_t(j * q + messages[m][size_t(j)])];
            out[size_t(i * q + messages[m][size_t(i)])] += w;
            total += w;
        }
        if (!(total > 0))
            return std::nullopt;
        for (int D = 0; D < q; ++D)
            out[size_t(i * q + D)] /= total;
    }
    return out;
}

} // namespace qa
} // namespace bsid

#endif /* INCLUDED_BSID_QA_READS_REFERENCE_H */
