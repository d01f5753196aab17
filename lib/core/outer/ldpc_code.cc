/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// ldpc_code: H, its elimination into a systematic encoder, encoding and the
// checks, and codes named by spec (the alist format is ldpc_alist.cc, the
// regular construction ldpc_regular.cc).

#include "outer/ldpc_checks.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/outer/ldpc_code.h>
#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace bsid {

namespace {
using detail::split_on;
using detail::starts_with;
using namespace ldpc_detail;
} // namespace

ldpc_code::ldpc_code(int q,
                     int n,
                     int M,
                     std::vector<entry> entries,
                     bool allow_dependent_rows,
                     std::string spec)
    : d_gf(checked_q(q)),
      d_n(n),
      d_M(M),
      d_spec(std::move(spec)),
      d_entries(std::move(entries))
{
    if (n < 1) {
        fail(detail::concat("n = ", n, " must be at least 1"));
    }
    if (M < 1) {
        fail(detail::concat("M = ", M, " must be at least 1"));
    }
    if ((long long)n * M > max_dense_bytes) {
        fail(detail::concat("H of M = ",
                            M,
                            " checks by n = ",
                            n,
                            " symbols is too large for the dense encoder (M n above ",
                            max_dense_bytes,
                            ")"));
    }
    for (size_t t = 0; t < d_entries.size(); ++t) {
        const auto& e = d_entries[t];
        if (e.row < 0 || e.row >= M || e.col < 0 || e.col >= n) {
            fail(detail::concat("entry ",
                                t,
                                " at (row ",
                                e.row,
                                ", column ",
                                e.col,
                                ") is outside H of M = ",
                                M,
                                " rows by n = ",
                                n,
                                " columns"));
        }
        if (e.coef < 1 || e.coef >= q) {
            fail(detail::concat("entry ",
                                t,
                                " at (row ",
                                e.row,
                                ", column ",
                                e.col,
                                "): coefficient ",
                                e.coef,
                                " is not a nonzero element of GF(",
                                q,
                                ") (1..",
                                q - 1,
                                ")"));
        }
    }
    std::sort(d_entries.begin(), d_entries.end(), by_row_col);
    for (size_t t = 1; t < d_entries.size(); ++t) {
        if (d_entries[t].row == d_entries[t - 1].row &&
            d_entries[t].col == d_entries[t - 1].col) {
            fail(detail::concat("entry (row ",
                                d_entries[t].row,
                                ", column ",
                                d_entries[t].col,
                                ") is given twice"));
        }
    }

    // row starts, and per column the entry indices (by row, since entries are)
    d_row_start.assign(size_t(M) + 1, 0);
    d_col_start.assign(size_t(n) + 1, 0);
    for (const auto& e : d_entries) {
        ++d_row_start[size_t(e.row) + 1];
        ++d_col_start[size_t(e.col) + 1];
    }
    for (int i = 0; i < M; ++i) {
        if (d_row_start[size_t(i) + 1] == 0) {
            fail(detail::concat("row ", i, " of H has no entries"));
        }
        d_row_start[size_t(i) + 1] += d_row_start[size_t(i)];
    }
    for (int j = 0; j < n; ++j) {
        if (d_col_start[size_t(j) + 1] == 0) {
            fail(detail::concat("column ", j, " of H has no entries"));
        }
        d_col_start[size_t(j) + 1] += d_col_start[size_t(j)];
    }
    d_col_entries.assign(d_entries.size(), 0);
    {
        std::vector<int32_t> fill(d_col_start.begin(), d_col_start.end() - 1);
        for (size_t t = 0; t < d_entries.size(); ++t) {
            d_col_entries[size_t(fill[size_t(d_entries[t].col)]++)] = int32_t(t);
        }
    }

    // Gauss-Jordan elimination of a dense copy, pivots from the last column
    // backwards: the reduced row echelon form R gives the encoder.
    const size_t un = size_t(n);
    std::vector<uint8_t> R(size_t(M) * un, 0);
    for (const auto& e : d_entries) {
        R[size_t(e.row) * un + size_t(e.col)] = uint8_t(e.coef);
    }
    std::vector<uint8_t> mul(size_t(q) * size_t(q));
    for (int a = 0; a < q; ++a) {
        for (int b = 0; b < q; ++b) {
            mul[size_t(a * q + b)] = uint8_t(d_gf.mul(a, b));
        }
    }
    std::vector<char> used(size_t(M), 0);
    std::vector<int32_t> pivot_row; // per pivot column in d_parity
    std::vector<char> is_pivot(un, 0);
    std::vector<int32_t> rows; // rows with a nonzero in the pivot column
    for (int c = n - 1; c >= 0; --c) {
        // Every unused row is zero in the earlier pivot columns and in the
        // columns above c skipped for lack of a pivot, so the pivot row, and
        // what it changes in the others, lies in columns 0 .. c.
        const size_t width = size_t(c) + 1;
        int p = -1;
        rows.clear();
        for (int i = 0; i < M; ++i) {
            if (R[size_t(i) * un + size_t(c)] != 0) {
                if (p < 0 && !used[size_t(i)]) {
                    p = i;
                } else {
                    rows.push_back(i);
                }
            }
        }
        if (p < 0) {
            continue;
        }
        uint8_t* rp = &R[size_t(p) * un];
        const uint8_t lead = rp[c];
        if (lead != 1) {
            const uint8_t* scale = &mul[size_t(d_gf.inv(lead)) * size_t(q)];
            for (size_t j = 0; j < width; ++j) {
                rp[j] = scale[rp[j]];
            }
        }
        for (const int32_t i : rows) {
            uint8_t* __restrict ri = &R[size_t(i) * un];
            const uint8_t* __restrict src = rp;
            const uint8_t f = ri[c];
            if (f == 1) {
                for (size_t j = 0; j < width; ++j) {
                    ri[j] ^= src[j];
                }
            } else {
                const uint8_t* scale = &mul[size_t(f) * size_t(q)];
                for (size_t j = 0; j < width; ++j) {
                    ri[j] ^= scale[src[j]];
                }
            }
        }
        used[size_t(p)] = 1;
        is_pivot[size_t(c)] = 1;
        d_parity.push_back(c);
        pivot_row.push_back(p);
    }
    const int r = int(d_parity.size());
    if (r < M && !allow_dependent_rows) {
        fail(detail::concat("H (M = ",
                            M,
                            " checks, n = ",
                            n,
                            ") has rank ",
                            r,
                            ": ",
                            M - r,
                            " row(s) depend on the others; remove them or allow "
                            "dependent rows"));
    }
    for (int j = 0; j < n; ++j) {
        if (!is_pivot[size_t(j)]) {
            d_info.push_back(j);
        }
    }
    const size_t k = d_info.size();
    d_gen.assign(size_t(r) * k, 0);
    for (int j = 0; j < r; ++j) {
        const uint8_t* rp = &R[size_t(pivot_row[size_t(j)]) * un];
        for (size_t t = 0; t < k; ++t) {
            d_gen[size_t(j) * k + t] = rp[size_t(d_info[t])];
        }
    }
}

void ldpc_code::encode(const int32_t* info, int32_t* codeword) const
{
    const size_t k = d_info.size();
    const int q = d_gf.q();
    for (size_t t = 0; t < k; ++t) {
        if (info[t] < 0 || info[t] >= q) {
            throw std::invalid_argument(
                detail::concat("ldpc_code.encode: information symbol ",
                               info[t],
                               " at index ",
                               t,
                               " is outside 0..",
                               q - 1));
        }
    }
    for (size_t t = 0; t < k; ++t) {
        codeword[d_info[t]] = info[t];
    }
    for (size_t j = 0; j < d_parity.size(); ++j) {
        const uint8_t* g = d_gen.data() + j * k;
        int acc = 0;
        if (q == 2) {
            for (size_t t = 0; t < k; ++t) {
                acc ^= g[t] & info[t];
            }
        } else {
            for (size_t t = 0; t < k; ++t) {
                acc ^= d_gf.mul(g[t], info[t]);
            }
        }
        codeword[d_parity[j]] = acc;
    }
}

void ldpc_code::extract(const int32_t* codeword, int32_t* info) const
{
    for (size_t t = 0; t < d_info.size(); ++t) {
        info[t] = codeword[d_info[t]];
    }
}

int ldpc_code::unsatisfied(const int32_t* word) const
{
    const int q = d_gf.q();
    for (int j = 0; j < d_n; ++j) {
        if (word[j] < 0 || word[j] >= q) {
            throw std::invalid_argument(detail::concat("ldpc_code.unsatisfied: symbol ",
                                                       word[j],
                                                       " at position ",
                                                       j,
                                                       " is outside 0..",
                                                       q - 1));
        }
    }
    int count = 0;
    for (int i = 0; i < d_M; ++i) {
        int s = 0;
        for (int32_t t = d_row_start[size_t(i)]; t < d_row_start[size_t(i) + 1]; ++t) {
            const auto& e = d_entries[size_t(t)];
            s ^= d_gf.mul(e.coef, word[e.col]);
        }
        count += s != 0;
    }
    return count;
}

ldpc_code ldpc_code::from_spec(const std::string& spec)
{
    const std::string usage =
        " (expected ldpc:PATH for an alist file, "
        "ldpc-regular:n:M:q:wc:seed or ldpc-peg:n:M:q:DEGREES:seed)";
    const detail::spec_numbers fields{ "ldpc_code", spec };
    auto number = [&](const std::string& tok, const char* what) {
        return fields.number(tok, what);
    };
    auto small = [&](const std::string& tok, const char* what) {
        return fields.small(tok, what);
    };
    if (starts_with(spec, "ldpc:")) {
        const std::string path = spec.substr(5);
        if (path.empty()) {
            fail("spec '" + spec + "': no alist file path after 'ldpc:'");
        }
        return read_alist(path);
    }
    if (starts_with(spec, "ldpc-regular:")) {
        const auto parts = split_on(spec.substr(13), ':');
        if (parts.size() != 5) {
            fail(detail::concat("spec '",
                                spec,
                                "': ldpc-regular takes five fields, "
                                "ldpc-regular:n:M:q:wc:seed (found ",
                                parts.size(),
                                ")"));
        }
        return regular(small(parts[0], "n"),
                       small(parts[1], "M"),
                       small(parts[2], "q"),
                       small(parts[3], "wc"),
                       number(parts[4], "seed"));
    }
    if (starts_with(spec, "ldpc-peg:")) {
        const auto parts = split_on(spec.substr(9), ':');
        if (parts.size() != 5) {
            fail(detail::concat("spec '",
                                spec,
                                "': ldpc-peg takes five fields, "
                                "ldpc-peg:n:M:q:DEGREES:seed (found ",
                                parts.size(),
                                ")"));
        }
        return peg(small(parts[0], "n"),
                   small(parts[1], "M"),
                   small(parts[2], "q"),
                   parse_degrees(parts[3]),
                   number(parts[4], "seed"));
    }
    if (spec.empty()) {
        fail("empty LDPC code spec" + usage);
    }
    fail("unknown LDPC code spec '" + spec + "'" + usage);
}

} // namespace bsid
