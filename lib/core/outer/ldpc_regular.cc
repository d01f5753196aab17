/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Regular LDPC codes by a seeded greedy placement (docs/concatenated.md,
// "Generated codes").

#include "outer/ldpc_checks.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/outer/ldpc_code.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <unordered_set>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace bsid {

using namespace ldpc_detail;

ldpc_code ldpc_code::regular(int n, int M, int q, int column_weight, uint64_t seed)
{
    checked_q(q);
    const int wc = column_weight;
    const std::string what =
        detail::concat("regular code n = ", n, ", M = ", M, ", wc = ", wc);
    if (wc != 2 && wc != 3) {
        fail(detail::concat("column weight ", wc, " must be 2 or 3"));
    }
    if (n < 1) {
        fail(detail::concat("n = ", n, " must be at least 1"));
    }
    if (M < wc) {
        fail(what + ": M must be at least the column weight");
    }
    if (M >= n) {
        fail(what + ": M must be below n (a full-rank H with M >= n leaves no "
                    "information symbols)");
    }
    if ((long long)n * wc < M) {
        fail(what + detail::concat(": n wc = ",
                                   (long long)n * wc,
                                   " entries cannot give each of the M rows one"));
    }
    if (q == 2 && wc == 2) {
        fail(what + ", q = 2: a binary code of column weight 2 is never of full rank "
                    "(every column's two ones make the rows sum to zero); use column "
                    "weight 3 or q > 2");
    }
    // No two columns may share two rows: the columns' row pairs must be distinct.
    const long long pairs_needed = (long long)n * (wc * (wc - 1) / 2);
    const long long pairs_available = (long long)M * (M - 1) / 2;
    if (pairs_needed > pairs_available) {
        fail(what + detail::concat(": the columns need ",
                                   pairs_needed,
                                   " distinct row pairs to avoid length-4 cycles, but "
                                   "M rows have only ",
                                   pairs_available,
                                   ": use more checks"));
    }
    if ((long long)n * M > max_dense_bytes) {
        fail(what + ": too large for the dense encoder");
    }
    const long long total = (long long)n * wc;
    const int deg_lo = int(total / M);
    const int deg_hi = int((total + M - 1) / M);
    const std::string spec =
        detail::concat("ldpc-regular:", n, ":", M, ":", q, ":", wc, ":", seed);

    struct candidate {
        uint64_t key; // degree << 32 | random key
        int32_t row;
    };
    // a max-heap by this order pops the smallest (key, row) first
    auto later = [](const candidate& a, const candidate& b) {
        return a.key != b.key ? a.key > b.key : a.row > b.row;
    };
    constexpr int attempts = 100;
    std::vector<int32_t> degree(static_cast<size_t>(M));
    std::vector<candidate> heap(static_cast<size_t>(M));
    std::vector<entry> entries;
    std::unordered_set<uint64_t> used_pairs;
    for (int attempt = 0; attempt < attempts; ++attempt) {
        philox_stream rng(seed, (1ULL << 63) + (1ULL << 61) + uint64_t(attempt));
        std::fill(degree.begin(), degree.end(), 0);
        entries.clear();
        entries.reserve(size_t(total));
        used_pairs.clear();
        used_pairs.reserve(size_t(pairs_needed) * 2);
        bool ok = true;
        for (int j = 0; j < n && ok; ++j) {
            for (int i = 0; i < M; ++i) {
                heap[size_t(i)] = { (uint64_t(degree[size_t(i)]) << 32) | rng.next_u32(),
                                    i };
            }
            std::make_heap(heap.begin(), heap.end(), later);
            int chosen[3];
            int count = 0;
            auto end = heap.end();
            while (count < wc && end != heap.begin()) {
                std::pop_heap(heap.begin(), end, later);
                --end;
                const int r = end->row;
                bool fits = true;
                for (int s = 0; s < count; ++s) {
                    const uint64_t lo = uint64_t(std::min(r, chosen[s]));
                    const uint64_t hi = uint64_t(std::max(r, chosen[s]));
                    if (used_pairs.count(lo * uint64_t(M) + hi)) {
                        fits = false;
                        break;
                    }
                }
                if (fits) {
                    chosen[count++] = r;
                }
            }
            if (count < wc) {
                ok = false;
                break;
            }
            for (int s = 0; s < wc; ++s) {
                for (int u = s + 1; u < wc; ++u) {
                    const uint64_t lo = uint64_t(std::min(chosen[s], chosen[u]));
                    const uint64_t hi = uint64_t(std::max(chosen[s], chosen[u]));
                    used_pairs.insert(lo * uint64_t(M) + hi);
                }
                ++degree[size_t(chosen[s])];
                entry e;
                e.row = chosen[s];
                e.col = j;
                entries.push_back(e);
            }
        }
        if (!ok) {
            continue;
        }
        if (std::any_of(degree.begin(), degree.end(), [&](int32_t d) {
                return d < deg_lo || d > deg_hi;
            })) {
            continue;
        }
        std::sort(entries.begin(), entries.end(), by_row_col);
        for (auto& e : entries) {
            e.coef = int32_t(1 + uniform_below(rng, uint32_t(q - 1)));
        }
        ldpc_code code(q, n, M, entries, true, spec);
        if (code.rank() == M) {
            return code;
        }
    }
    fail(detail::concat("no regular 4-cycle-free code of full rank found for n=",
                        n,
                        ", M=",
                        M,
                        ", wc=",
                        wc,
                        " (q = ",
                        q,
                        ", seed ",
                        seed,
                        ", ",
                        attempts,
                        " attempts): use more symbols per check or another seed"));
}

} // namespace bsid
