/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_LDPC_CODE_H
#define INCLUDED_BSID_CORE_LDPC_CODE_H

#include <gnuradio/bsid/core/outer/galois_field.h>
#include <gnuradio/bsid/core/outer/outer_code.h>
#include <gnuradio/bsid/core/runtime/visibility.h>
#include <cstdint>
#include <string>
#include <vector>

namespace bsid {

//! A column degree and the fraction of the n columns that have it.
struct ldpc_degree {
    int degree = 0;
    double fraction = 0;
};
//! "DEGREE=FRACTION,...", as ldpc-peg specs write them ("2=0.5,3=0.3,8=0.2").
//! Throws std::invalid_argument for an item of another form.
BSID_CORE_SHARED_FUNCTION std::vector<ldpc_degree> parse_degrees(const std::string& text);
BSID_CORE_SHARED_FUNCTION std::string to_string(const std::vector<ldpc_degree>& degrees);

/*!
 * \brief An LDPC code over GF(q), q = 2^m with m = 1..8: its sparse
 * parity-check matrix H (M checks by n symbols) and a systematic encoder
 * derived from it once (docs/concatenated.md).
 *
 * A word c of n symbols is a codeword when H c = 0 over GF(q). The encoder
 * reduces H to row echelon form by Gaussian elimination over GF(q), choosing
 * pivots from the last column backwards, so the parity symbols sit at the
 * pivot columns (mostly the last M) and the k = n - M information symbols at
 * the others, in increasing order (info_positions()). H must have full row
 * rank: a matrix with a dependent row, or with no nonzero entry at all, is
 * refused with its rank named (remove the dependent rows, or pass
 * allow_dependent_rows, which makes k = n - rank).
 */
class BSID_CORE_SHARED_TYPE ldpc_code final : public outer_code
{
public:
    //! One nonzero entry H[row][col] = coef (1 <= coef < q).
    struct entry {
        int32_t row = 0, col = 0;
        int32_t coef = 1;
    };

    /*!
     * H from its nonzero entries (any order; a repeated (row, col) is an
     * error). Throws std::invalid_argument for q not 2^1 .. 2^8, sizes below
     * 1, an entry outside the matrix or a coefficient outside 1 .. q - 1, a
     * column or row without entries, or a rank below M (see above).
     */
    ldpc_code(int q,
              int n,
              int M,
              std::vector<entry> entries,
              bool allow_dependent_rows = false,
              std::string spec = "");

    /*!
     * \brief The alist format (docs/concatenated.md, "The alist format"),
     * binary (first line "n M") or non-binary (first line "n M q", each
     * index followed by its coefficient). Throws std::invalid_argument, naming
     * the line, for malformed text, or for column and row lists that disagree.
     */
    static ldpc_code parse_alist(const std::string& text,
                                 bool allow_dependent_rows = false);
    //! Reads an alist file; bsid::io_error if it cannot be read.
    static ldpc_code read_alist(const std::string& path,
                                bool allow_dependent_rows = false);
    //! The alist text: binary for q = 2, non-binary otherwise.
    std::string alist() const;
    void write_alist(const std::string& path) const;

    /*!
     * \brief A regular code: every column has `column_weight` (2 or 3) entries,
     * rows have floor or ceil of n column_weight / M, coefficients uniform over
     * 1 .. q - 1, and no length-4 cycle (no two columns share two rows). Built
     * by a seeded greedy placement (docs/concatenated.md, "Generated codes"),
     * drawn again if the result is not of full rank. Throws
     * std::invalid_argument when no such code exists (including M >= n, which
     * leaves no information symbols) or none was found (a
     * binary code of column weight 2 is never of full rank: every column's two
     * ones make the rows sum to zero).
     */
    static ldpc_code regular(int n, int M, int q, int column_weight, uint64_t seed);
    /*!
     * \brief An irregular code by progressive edge growth (Hu, Eleftheriou and
     * Arnold, IEEE Trans. Inf. Theory 51(1), 2005): the columns get the
     * degrees of `degrees` (fractions of n summing to 1, rounded to whole
     * columns by largest remainder), placed lowest degree first; each
     * column's first edge goes to a check of least degree, each further edge
     * to a check of least degree among those farthest from the column in the
     * graph so far (never reached by its tree, or reached only at its last
     * level), ties broken at random (Philox stream (seed, 2^63 + 2^59 + a)
     * for attempt a). Coefficients are uniform over 1 .. q - 1. Drawn again
     * (up to 100 attempts) until every check has an edge and H has full rank.
     * Throws std::invalid_argument for bad sizes or degrees, or when no code
     * was found.
     */
    static ldpc_code
    peg(int n, int M, int q, const std::vector<ldpc_degree>& degrees, uint64_t seed);

    /*!
     * A code from its spec: "ldpc:PATH" (an alist file),
     * "ldpc-regular:n:M:q:wc:seed" (regular()) or
     * "ldpc-peg:n:M:q:DEGREES:seed" (peg(), DEGREES as parse_degrees reads). Throws
     * std::invalid_argument for another form.
     */
    static ldpc_code from_spec(const std::string& spec);

    int q() const override { return d_gf.q(); }
    int n() const override { return d_n; }
    int M() const { return d_M; }
    int k() const override { return int(d_info.size()); }
    int rank() const { return d_n - k(); }
    double rate() const { return double(k()) / double(d_n); }
    const std::string& spec() const override { return d_spec; }
    const galois_field& field() const { return d_gf; }

    //! The entries by row (each sorted by column) and the row starts (M + 1).
    const std::vector<entry>& entries() const { return d_entries; }
    const std::vector<int32_t>& row_start() const { return d_row_start; }
    //! For each column (n + 1 starts), the indices into entries() of its entries.
    const std::vector<int32_t>& col_start() const { return d_col_start; }
    const std::vector<int32_t>& col_entries() const { return d_col_entries; }

    //! The k positions of the information symbols, increasing.
    const std::vector<int32_t>& info_positions() const { return d_info; }

    /*!
     * Encodes k information symbols (each 0 .. q - 1; std::invalid_argument
     * otherwise) into the n symbols of a codeword.
     */
    void encode(const int32_t* info, int32_t* codeword) const override;
    //! The information symbols of a word (its info_positions()).
    void extract(const int32_t* codeword, int32_t* info) const override;

    //! The number of checks a word of n symbols (each 0 .. q - 1;
    //! std::invalid_argument otherwise) does not satisfy.
    int unsatisfied(const int32_t* word) const;
    bool is_codeword(const int32_t* word) const override
    {
        return unsatisfied(word) == 0;
    }
    //! Belief propagation over GF(q) (ldpc_decoder::make).
    std::unique_ptr<siso_decoder> make_decoder(const siso_config& cfg) const override;

private:
    galois_field d_gf;
    int d_n, d_M;
    std::string d_spec;
    std::vector<entry> d_entries;
    std::vector<int32_t> d_row_start, d_col_start, d_col_entries;
    std::vector<int32_t> d_info;   // k information positions
    std::vector<int32_t> d_parity; // r pivot columns, one per independent row
    // r x k: parity symbol j is the sum over t of d_gen[j k + t] info[t]
    std::vector<uint8_t> d_gen;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_LDPC_CODE_H */
