/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/format.h"
#include "runtime/text_file.h"
#include <gnuradio/bsid/core/outer/ldpc_code.h>
#include <gnuradio/bsid/core/runtime/errors.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <unordered_set>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace bsid {

namespace {

using detail::parse_uint;
using detail::split_on;
using detail::starts_with;

// The dense copy of H that the encoder is derived from has M n bytes.
constexpr long long max_dense_bytes = 1LL << 30;
// Sizes in an alist or a spec beyond this are refused before allocating.
constexpr unsigned long long max_size = 100000000ULL;

[[noreturn]] void fail(const std::string& what)
{
    throw std::invalid_argument("ldpc_code: " + what);
}

int checked_q(int q)
{
    for (int m = 1; m <= 8; ++m) {
        if (q == (1 << m)) {
            return q;
        }
    }
    fail(detail::concat("q = ", q, " must be 2^m with m = 1..8 (2, 4, 8, ..., 256)"));
}


bool by_row_col(const ldpc_code::entry& a, const ldpc_code::entry& b)
{
    return a.row != b.row ? a.row < b.row : a.col < b.col;
}

/*
 * The alist text as numbered lines of numbers: blank lines and lines whose
 * first token starts with '#' are skipped; any other token must be a
 * non-negative decimal integer.
 */
class alist_lines
{
public:
    struct line {
        int number;
        std::vector<unsigned long long> values;
    };

    alist_lines(const std::string& text, const std::string& origin) : d_origin(origin)
    {
        std::istringstream is(text);
        std::string s;
        int number = 0;
        while (std::getline(is, s)) {
            ++number;
            std::istringstream ls(s);
            std::string tok;
            line l{ number, {} };
            bool comment = false;
            while (ls >> tok) {
                if (l.values.empty() && tok[0] == '#') {
                    comment = true;
                    break;
                }
                unsigned long long v;
                if (!parse_uint(tok, v)) {
                    fail(at(number) + "'" + tok +
                         "' is not a non-negative decimal integer");
                }
                l.values.push_back(v);
            }
            if (!comment && !l.values.empty()) {
                d_lines.push_back(std::move(l));
            }
        }
        d_last = number;
    }

    std::string at(int number) const
    {
        return detail::concat(d_origin, ", line ", number, ": ");
    }

    //! The next line; what names the line expected, for a truncated text.
    const line& next(const std::string& what)
    {
        if (d_pos == d_lines.size()) {
            fail(detail::concat(d_origin,
                                ": truncated: expected ",
                                what,
                                " after line ",
                                d_last,
                                ", found the end of the text"));
        }
        return d_lines[d_pos++];
    }

    bool done() const { return d_pos == d_lines.size(); }

private:
    std::string d_origin;
    std::vector<line> d_lines;
    size_t d_pos = 0;
    int d_last = 0;
};

ldpc_code parse_alist_impl(const std::string& text,
                           const std::string& origin,
                           bool allow_dependent_rows,
                           const std::string& spec)
{
    alist_lines lines(text, origin);

    // line 1: "n M" (binary) or "n M q"
    const auto& head = lines.next("the header 'n M' or 'n M q'");
    const std::string at_head = lines.at(head.number);
    if (head.values.size() != 2 && head.values.size() != 3) {
        fail(at_head + detail::concat("expected the header 'n M' (binary) or 'n M q' "
                                      "(non-binary), found ",
                                      head.values.size(),
                                      " values"));
    }
    const unsigned long long n_ = head.values[0], M_ = head.values[1];
    if (n_ < 1 || n_ > max_size) {
        fail(at_head + detail::concat("n = ", n_, " must be between 1 and ", max_size));
    }
    if (M_ < 1 || M_ > max_size) {
        fail(at_head + detail::concat("M = ", M_, " must be between 1 and ", max_size));
    }
    const bool binary = head.values.size() == 2;
    const unsigned long long q_ = binary ? 2 : head.values[2];
    if (q_ < 2 || q_ > 256 || (q_ & (q_ - 1)) != 0) {
        fail(at_head + detail::concat("q = ", q_, " must be 2^m with m = 1..8"));
    }
    const int n = int(n_), M = int(M_), q = int(q_);

    // line 2: the largest column and row weights
    const auto& maxw = lines.next("the maximum weights line");
    if (maxw.values.size() != 2) {
        fail(lines.at(maxw.number) +
             detail::concat(
                 "expected the maximum column and row weights (2 values), found ",
                 maxw.values.size(),
                 " values"));
    }
    const unsigned long long max_wc = maxw.values[0], max_wr = maxw.values[1];

    // lines 3 and 4: the weights of the n columns and of the M rows
    auto weights = [&](int count,
                       unsigned long long limit,
                       unsigned long long declared_max,
                       const char* what,
                       const char* max_name) {
        const auto& l = lines.next(detail::concat("the ", what, " weights line"));
        if (l.values.size() != size_t(count)) {
            fail(lines.at(l.number) +
                 detail::concat(
                     "expected ", count, " ", what, " weights, found ", l.values.size()));
        }
        std::vector<int> w(static_cast<size_t>(count));
        for (int j = 0; j < count; ++j) {
            const unsigned long long v = l.values[size_t(j)];
            if (v < 1 || v > limit) {
                fail(lines.at(l.number) +
                     detail::concat(
                         what, " ", j + 1, " has weight ", v, ", outside 1..", limit));
            }
            if (v > declared_max) {
                fail(lines.at(l.number) + detail::concat(what,
                                                         " ",
                                                         j + 1,
                                                         " has weight ",
                                                         v,
                                                         ", above the ",
                                                         max_name,
                                                         " ",
                                                         declared_max,
                                                         " of line ",
                                                         maxw.number));
            }
            w[size_t(j)] = int(v);
        }
        return w;
    };
    const auto col_w =
        weights(n, (unsigned long long)M, max_wc, "column", "maximum column weight");
    const auto row_w =
        weights(M, (unsigned long long)n, max_wr, "row", "maximum row weight");

    // the n column lists, then the M row lists
    auto lists = [&](int count,
                     const std::vector<int>& w,
                     unsigned long long max_w,
                     int range,
                     const char* what,
                     const char* other,
                     std::vector<int>& line_of) {
        std::vector<ldpc_code::entry> found; // (row, col, coef)
        line_of.assign(size_t(count), 0);
        for (int j = 0; j < count; ++j) {
            const auto& l = lines.next(detail::concat("the list of ", what, " ", j + 1));
            const std::string at = lines.at(l.number);
            line_of[size_t(j)] = l.number;
            const size_t per = binary ? 1 : 2;
            if (l.values.size() % per != 0) {
                fail(at + detail::concat(what,
                                         " ",
                                         j + 1,
                                         ": expected pairs '",
                                         other,
                                         " coefficient', found an odd number of values (",
                                         l.values.size(),
                                         ")"));
            }
            const size_t items = l.values.size() / per;
            if (items >
                std::max<unsigned long long>(max_w, (unsigned long long)w[size_t(j)])) {
                fail(at + detail::concat(what,
                                         " ",
                                         j + 1,
                                         " lists ",
                                         items,
                                         " values, more than the maximum weight ",
                                         max_w));
            }
            std::vector<int> seen;
            for (size_t t = 0; t < items; ++t) {
                const unsigned long long idx = l.values[t * per];
                const unsigned long long coef = binary ? 1 : l.values[t * per + 1];
                if (idx == 0 && (binary || coef == 0)) {
                    continue; // padding
                }
                if (idx < 1 || idx > (unsigned long long)range) {
                    fail(at + detail::concat(what,
                                             " ",
                                             j + 1,
                                             ": ",
                                             other,
                                             " index ",
                                             idx,
                                             " is outside 1..",
                                             range));
                }
                if (coef < 1 || coef >= (unsigned long long)q) {
                    fail(at + detail::concat(what,
                                             " ",
                                             j + 1,
                                             ", ",
                                             other,
                                             " ",
                                             idx,
                                             ": coefficient ",
                                             coef,
                                             " is not a nonzero element of GF(",
                                             q,
                                             ") (1..",
                                             q - 1,
                                             ")"));
                }
                if (std::find(seen.begin(), seen.end(), int(idx)) != seen.end()) {
                    fail(at +
                         detail::concat(
                             what, " ", j + 1, " lists ", other, " ", idx, " twice"));
                }
                seen.push_back(int(idx));
                ldpc_code::entry e;
                e.coef = int32_t(coef);
                if (what[0] == 'c') {
                    e.row = int32_t(idx - 1);
                    e.col = int32_t(j);
                } else {
                    e.row = int32_t(j);
                    e.col = int32_t(idx - 1);
                }
                found.push_back(e);
            }
            if (seen.size() != size_t(w[size_t(j)])) {
                fail(at + detail::concat(what,
                                         " ",
                                         j + 1,
                                         " lists ",
                                         seen.size(),
                                         " ",
                                         other,
                                         "s, but its weight is ",
                                         w[size_t(j)]));
            }
        }
        return found;
    };
    std::vector<int> col_line, row_line;
    auto from_cols = lists(n, col_w, max_wc, M, "column", "row", col_line);
    auto from_rows = lists(M, row_w, max_wr, n, "row", "column", row_line);
    if (!lines.done()) {
        const auto& extra = lines.next("");
        fail(lines.at(extra.number) +
             detail::concat("unexpected data after the ", M, " row lists"));
    }

    // the column lists and the row lists must describe the same matrix
    std::sort(from_cols.begin(), from_cols.end(), by_row_col);
    std::sort(from_rows.begin(), from_rows.end(), by_row_col);
    size_t a = 0, b = 0;
    while (a < from_cols.size() || b < from_rows.size()) {
        const bool have_a = a < from_cols.size();
        const bool have_b = b < from_rows.size();
        if (have_a && have_b && from_cols[a].row == from_rows[b].row &&
            from_cols[a].col == from_rows[b].col) {
            const auto& e = from_cols[a];
            if (e.coef != from_rows[b].coef) {
                fail(detail::concat(origin,
                                    ": column ",
                                    e.col + 1,
                                    " (line ",
                                    col_line[size_t(e.col)],
                                    ") gives row ",
                                    e.row + 1,
                                    " coefficient ",
                                    e.coef,
                                    ", but row ",
                                    e.row + 1,
                                    " (line ",
                                    row_line[size_t(e.row)],
                                    ") gives column ",
                                    e.col + 1,
                                    " coefficient ",
                                    from_rows[b].coef,
                                    ": the column and row lists disagree"));
            }
            ++a;
            ++b;
            continue;
        }
        if (have_a && (!have_b || by_row_col(from_cols[a], from_rows[b]))) {
            const auto& e = from_cols[a];
            fail(detail::concat(origin,
                                ": column ",
                                e.col + 1,
                                " (line ",
                                col_line[size_t(e.col)],
                                ") lists row ",
                                e.row + 1,
                                ", but row ",
                                e.row + 1,
                                " (line ",
                                row_line[size_t(e.row)],
                                ") does not list column ",
                                e.col + 1,
                                ": the column and row lists disagree"));
        }
        const auto& e = from_rows[b];
        fail(detail::concat(origin,
                            ": row ",
                            e.row + 1,
                            " (line ",
                            row_line[size_t(e.row)],
                            ") lists column ",
                            e.col + 1,
                            ", but column ",
                            e.col + 1,
                            " (line ",
                            col_line[size_t(e.col)],
                            ") does not list row ",
                            e.row + 1,
                            ": the column and row lists disagree"));
    }
    return ldpc_code(q, n, M, std::move(from_cols), allow_dependent_rows, spec);
}

// A uniform draw from 0 .. range - 1 (Lemire's multiply-and-reject).
uint32_t uniform_below(philox_stream& s, uint32_t range)
{
    const uint32_t reject_below = uint32_t((uint64_t(1) << 32) % range);
    uint64_t m = uint64_t(s.next_u32()) * range;
    while (uint32_t(m) < reject_below) {
        m = uint64_t(s.next_u32()) * range;
    }
    return uint32_t(m >> 32);
}

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

ldpc_code ldpc_code::parse_alist(const std::string& text, bool allow_dependent_rows)
{
    return parse_alist_impl(text, "alist", allow_dependent_rows, "");
}

ldpc_code ldpc_code::read_alist(const std::string& path, bool allow_dependent_rows)
{
    const std::string text =
        detail::read_text_file(path, "ldpc_code", "alist", size_t(256) << 20);
    return parse_alist_impl(text, "'" + path + "'", allow_dependent_rows, "ldpc:" + path);
}

std::string ldpc_code::alist() const
{
    const bool binary = q() == 2;
    int max_wc = 0, max_wr = 0;
    for (int j = 0; j < d_n; ++j) {
        max_wc = std::max(max_wc, d_col_start[size_t(j) + 1] - d_col_start[size_t(j)]);
    }
    for (int i = 0; i < d_M; ++i) {
        max_wr = std::max(max_wr, d_row_start[size_t(i) + 1] - d_row_start[size_t(i)]);
    }
    std::ostringstream os;
    os << d_n << ' ' << d_M;
    if (!binary) {
        os << ' ' << q();
    }
    os << '\n' << max_wc << ' ' << max_wr << '\n';
    for (int j = 0; j < d_n; ++j) {
        os << (j ? " " : "") << d_col_start[size_t(j) + 1] - d_col_start[size_t(j)];
    }
    os << '\n';
    for (int i = 0; i < d_M; ++i) {
        os << (i ? " " : "") << d_row_start[size_t(i) + 1] - d_row_start[size_t(i)];
    }
    os << '\n';
    for (int j = 0; j < d_n; ++j) {
        for (int32_t t = d_col_start[size_t(j)]; t < d_col_start[size_t(j) + 1]; ++t) {
            const auto& e = d_entries[size_t(d_col_entries[size_t(t)])];
            os << (t > d_col_start[size_t(j)] ? " " : "") << e.row + 1;
            if (!binary) {
                os << ' ' << e.coef;
            }
        }
        os << '\n';
    }
    for (int i = 0; i < d_M; ++i) {
        for (int32_t t = d_row_start[size_t(i)]; t < d_row_start[size_t(i) + 1]; ++t) {
            const auto& e = d_entries[size_t(t)];
            os << (t > d_row_start[size_t(i)] ? " " : "") << e.col + 1;
            if (!binary) {
                os << ' ' << e.coef;
            }
        }
        os << '\n';
    }
    return os.str();
}

void ldpc_code::write_alist(const std::string& path) const
{
    detail::write_text_file(path, "ldpc_code", alist());
}

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

ldpc_code ldpc_code::from_spec(const std::string& spec)
{
    const std::string usage = " (expected ldpc:PATH for an alist file, or "
                              "ldpc-regular:n:M:q:wc:seed)";
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
    if (spec.empty()) {
        fail("empty LDPC code spec" + usage);
    }
    fail("unknown LDPC code spec '" + spec + "'" + usage);
}

} // namespace bsid
