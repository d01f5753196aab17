/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_CODEBOOK_H
#define INCLUDED_BSID_CORE_CODEBOOK_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bsid {

/*!
 * \brief The inner code: a sequence of constituent encodings C_i used
 * cyclically, C_i = book[i mod P] (paper, section "The Coding Scheme").
 *
 * Each of the P books maps the q message symbols D = 0..q-1 to distinct n-bit
 * codewords, held as integers whose most significant bit is transmitted
 * first. Limits: 1 <= n <= 32, 2 <= q <= min(2^n, 65536), P >= 1.
 * Construction throws std::invalid_argument naming the problem (a repeated
 * word, a book of the wrong size, a word wider than n bits, ...).
 *
 * A codebook is named everywhere by a spec string (docs/design.md section 2):
 *   builtin:NAME          a code shipped with the module (builtin_names())
 *   file:PATH, or PATH    a codebook file (format below)
 *   random:n:q:P:seed     random(n, q, P, seed)
 *   sparse:n:q            sparse(n, q)
 *
 * File format: lines whose first non-blank character is '#' are comments and
 * blank lines are skipped; the first other line is "n q P"; then come P lines
 * of q decimal integers each, one line per book.
 */
class codebook
{
public:
    using word_type = uint32_t;

    //! Builds and validates a codebook; spec is an optional name for it.
    codebook(int n, std::vector<std::vector<word_type>> books, std::string spec = "");

    //! Reads a codebook file. Throws bsid::io_error if it cannot be read,
    //! std::invalid_argument (with the line number) if it is malformed.
    static codebook load(const std::string& path);

    //! Parses the text of a codebook file; origin names it in error messages.
    static codebook parse(const std::string& text, const std::string& origin = "<text>");

    /*!
     * \brief P books of q distinct random n-bit words; stable across versions.
     *
     * Book b draws 32-bit words x from the Philox4x32-10 stream
     * (seed, 2^63 + b) (see philox.h), takes the top n bits, x >> (32 - n), and
     * keeps each value not already in the book, in order of drawing, until it
     * holds q words. Symbol D maps to the D-th word kept.
     */
    static codebook random(int n, int q, int P, uint64_t seed);

    /*!
     * \brief The q lowest-weight n-bit words (P = 1), ties broken by increasing
     * value; symbol D maps to the D-th word in that order.
     */
    static codebook sparse(int n, int q);

    //! A codebook shipped with the module, such as "ld3-modvec6".
    static codebook builtin(const std::string& name);
    static std::vector<std::string> builtin_names();

    //! A codebook from a spec string (see above).
    static codebook from_spec(const std::string& spec);

    //! Writes the codebook in the file format. Throws bsid::io_error on failure.
    void save(const std::string& path) const;
    std::string to_text() const;

    int n() const { return d_n; }
    int q() const { return d_q; }
    int P() const { return int(d_books.size()); }
    //! The spec this codebook was made from ("" if built from lists).
    const std::string& spec() const { return d_spec; }
    const std::vector<std::vector<word_type>>& books() const { return d_books; }

    //! C_i(D): the codeword of symbol D at message position i.
    word_type word(size_t i, int D) const
    {
        return d_books[i % d_books.size()][size_t(D)];
    }

    /*!
     * \brief Encodes N symbols into tau = nN unpacked bits (one 0/1 per byte),
     * MSB of each codeword first. Throws std::invalid_argument naming the
     * first position whose symbol is outside [0, q).
     */
    std::vector<uint8_t> encode(const int64_t* symbols, size_t N) const;
    void encode(const int64_t* symbols, size_t N, uint8_t* bits) const;
    void encode(const int32_t* symbols, size_t N, uint8_t* bits) const;

    bool operator==(const codebook& o) const
    {
        return d_n == o.d_n && d_books == o.d_books;
    }
    bool operator!=(const codebook& o) const { return !(*this == o); }

private:
    int d_n;
    int d_q;
    std::vector<std::vector<word_type>> d_books;
    std::string d_spec;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_CODEBOOK_H */
