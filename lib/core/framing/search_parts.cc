/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "channel/letter_scale.h"
#include "framing/search_parts.h"
#include "framing/stream_positions.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace bsid {
namespace detail {

search_parts cut_search(const frame_request& whole, size_t starts)
{
    if (!whole.start || starts == 0)
        throw std::invalid_argument("cut_search: a start prior and parts of >= 1 start");
    const position_weights& p = *whole.start;
    double total = 0;
    for (double w : p.weights)
        total += w;
    search_parts out;
    for (size_t a = 0; a < p.positions.size(); a += starts) {
        const size_t b = std::min(p.positions.size(), a + starts);
        frame_request r = whole;
        position_weights part;
        part.positions.assign(p.positions.begin() + long(a),
                              p.positions.begin() + long(b));
        part.weights.assign(p.weights.begin() + long(a), p.weights.begin() + long(b));
        double mass = 0;
        for (double w : part.weights)
            mass += w;
        if (!(mass > 0))
            continue; // (no start there)
        const long long top = std::min(
            padded_top(part.positions.front(), part.positions.back()), (long long)r.L);
        r.start = relative_prior(part, 0, top);
        out.requests.push_back(std::move(r));
        out.mass.push_back(mass / total);
    }
    return out;
}

namespace {

// positions (each list sorted) and weights of every part, each part's
// weighed by c[j], summed where positions meet
std::pair<std::vector<long long>, std::vector<double>>
weighed_union(const std::vector<const std::vector<long long>*>& pos,
              const std::vector<const std::vector<double>*>& val,
              const std::vector<double>& c)
{
    long long lo = std::numeric_limits<long long>::max(), hi = -1;
    for (const auto* p : pos) {
        if (!p->empty())
            lo = std::min(lo, p->front()), hi = std::max(hi, p->back());
    }
    std::vector<double> w(hi >= lo ? size_t(hi - lo + 1) : 0, 0.0);
    std::vector<char> seen(w.size(), 0);
    for (size_t j = 0; j < pos.size(); ++j) {
        // (a part refused before its decode may hold no weights)
        const size_t m = std::min(pos[j]->size(), val[j]->size());
        for (size_t k = 0; k < m; ++k) {
            const size_t at = size_t((*pos[j])[k] - lo);
            w[at] += c[j] * (*val[j])[k];
            seen[at] = 1;
        }
    }
    std::pair<std::vector<long long>, std::vector<double>> out;
    for (size_t k = 0; k < w.size(); ++k) {
        if (seen[k])
            out.first.push_back(lo + (long long)k), out.second.push_back(w[k]);
    }
    return out;
}

} // namespace

frame_decode_result merge_search_parts(std::vector<frame_decode_result>& parts,
                                       const std::vector<double>& mass,
                                       int alphabet)
{
    if (parts.empty() || parts.size() != mass.size())
        throw std::invalid_argument(
            "merge_search_parts: one mass per part, at least one");
    const double inf = std::numeric_limits<double>::infinity();
    // a_j = ln(m_j) + l_j: ln of part j's share of the window's weight
    std::vector<double> a(parts.size(), -inf);
    double top = -inf;
    size_t best = 0;
    for (size_t j = 0; j < parts.size(); ++j) {
        const double l = parts[j].log_likelihood_ratio;
        if (parts[j].result.ok() && std::isfinite(l) && mass[j] > 0) {
            a[j] = std::log(mass[j]) + l;
            if (a[j] > top)
                top = a[j], best = j;
        }
    }
    if (!std::isfinite(top))
        return std::move(parts.front()); // (no part decoded: the first's refusal)
    double sum = 0;
    for (double x : a)
        sum += std::isfinite(x) ? std::exp(x - top) : 0.0;
    std::vector<double> c(parts.size());
    for (size_t j = 0; j < parts.size(); ++j)
        c[j] = std::isfinite(a[j]) ? std::exp(a[j] - top) / sum : 0.0;
    frame_decode_result out;
    out.result = parts[best].result;
    out.log_likelihood_ratio = top + std::log(sum);
    // the evidence of the segment from the window's first start on, the
    // items before a start random (ln LR = ln Z + (L - s_0) ln A): part
    // best's, moved from its first start to the window's
    out.log_evidence = parts[best].log_evidence + out.log_likelihood_ratio -
                       parts[best].log_likelihood_ratio -
                       double(parts[best].start.positions.front() -
                              parts.front().start.positions.front()) *
                           ln_letters(alphabet);
    std::vector<const std::vector<long long>*> pos;
    std::vector<const std::vector<double>*> val;
    for (const auto& r : parts)
        pos.push_back(&r.start.positions), val.push_back(&r.start.weights);
    std::tie(out.start.positions, out.start.weights) = weighed_union(pos, val, c);
    pos.clear(), val.clear();
    for (const auto& r : parts)
        pos.push_back(&r.end_positions), val.push_back(&r.end_posterior);
    std::tie(out.end_positions, out.end_posterior) = weighed_union(pos, val, c);
    return out;
}

} // namespace detail
} // namespace bsid
