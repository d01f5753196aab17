/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The alist format of ldpc_code (docs/concatenated.md, "The alist format"):
// parsing, with every error named by line, and writing.

#include "outer/ldpc_checks.h"
#include "runtime/format.h"
#include "runtime/text_file.h"
#include <gnuradio/bsid/core/outer/ldpc_code.h>
#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace bsid {

namespace {

using detail::parse_uint;
using namespace ldpc_detail;

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

} // namespace

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

} // namespace bsid
