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
 * Each of the P books maps the q message symbols D = 0..q-1 to distinct
 * codewords of n letters of an alphabet of A (2: bits), held as integers
 * whose n base-A digits are the letters, the most significant sent first.
 * Limits: 2 <= A <= 256, 1 <= n, A^n <= 2^32, 2 <= q <= min(A^n, 65536),
 * P >= 1. Construction throws std::invalid_argument naming the problem (a
 * repeated word, a book of the wrong size, a word of more than n letters, ...).
 *
 * A codebook is named everywhere by a spec string (docs/design.md section 2):
 *   builtin:NAME          a code shipped with the module (builtin_names(); binary)
 *   file:PATH, or PATH    a codebook file (format below)
 *   random:n:q:P:seed     random(n, q, P, seed, A) with from_spec's alphabet
 *   sparse:n:q            sparse(n, q, A) with from_spec's alphabet
 *   watermark:n:q:P:seed  watermark(n, q, P, seed, A) with from_spec's alphabet
 *   marker:k:MARKER       marker(k, MARKER's letters, A) with from_spec's
 *                         alphabet (MARKER written as a sync word is,
 *                         parse_sync_word: "01", "ACGT", "0,5,2")
 *
 * File format: lines whose first non-blank character is '#' are comments and
 * blank lines are skipped; the first other line is "n q P" (bits) or
 * "n q P A"; then come P lines of q decimal integers each, one line per book.
 */
class codebook
{
public:
    using word_type = uint32_t;

    //! Builds and validates a binary codebook; spec is an optional name for it.
    codebook(int n, std::vector<std::vector<word_type>> books, std::string spec = "");
    //! The same over an alphabet of `alphabet` letters.
    codebook(int n,
             std::vector<std::vector<word_type>> books,
             int alphabet,
             std::string spec = "");

    //! Reads a codebook file. Throws bsid::io_error if it cannot be read,
    //! std::invalid_argument (with the line number) if it is malformed.
    static codebook load(const std::string& path);

    //! Parses the text of a codebook file; origin names it in error messages.
    static codebook parse(const std::string& text, const std::string& origin = "<text>");

    /*!
     * \brief P books of q distinct random words of n letters of an alphabet
     * of A; stable across versions.
     *
     * Book b draws 32-bit words x from the Philox4x32-10 stream
     * (seed, 2^63 + b) (see philox.h). When A^n is a power of two (every
     * binary code) the word is the top log2(A^n) bits of x (bits: x >> (32 - n));
     * otherwise x is drawn again while x < 2^32 mod A^n, and the word is
     * (x - 2^32 mod A^n) mod A^n. Each value not already in the book is kept,
     * in order of drawing, until it holds q words. Symbol D maps to the D-th
     * word kept.
     */
    static codebook random(int n, int q, int P, uint64_t seed, int alphabet = 2);

    /*!
     * \brief The q lowest-weight words of n letters (P = 1), the weight being
     * the number of letters that are not 0 (for bits: the Hamming weight), ties
     * broken by increasing value; symbol D maps to the D-th word in that order.
     */
    static codebook sparse(int n, int q, int alphabet = 2);

    /*!
     * \brief Davey and MacKay's watermark code (IEEE Trans. Inf. Theory
     * 47(2), 2001): the sparse code sparse(n, q, A) added letter by letter
     * (mod A; for bits, XOR) to a pseudo-random watermark. Book b adds the
     * word w_b, drawn uniformly from the Philox stream (seed, 2^63 + 2^60 + b)
     * as random() draws a word; symbol D of book b is sparse word D + w_b.
     * The watermark repeats every P codewords (P = N: as long as the frame).
     */
    static codebook watermark(int n, int q, int P, uint64_t seed, int alphabet = 2);

    /*!
     * \brief A marker code (Sellers, IRE Trans. Inf. Theory 8(1), 1962;
     * Ratzer, Ann. Telecommun. 60(1-2), 2005): every codeword is k data
     * letters followed by the m fixed marker letters, so n = k + m, q = A^k
     * (at most 65536) and P = 1; symbol D's data letters are its k base-A
     * digits, the most significant first. Throws std::invalid_argument for
     * an empty marker, a letter outside the alphabet, or q or n too large.
     */
    static codebook marker(int k, const std::vector<uint8_t>& marker, int alphabet = 2);

    //! A codebook shipped with the module, such as "ld3-modvec6".
    static codebook builtin(const std::string& name);
    static std::vector<std::string> builtin_names();

    /*!
     * A codebook from a spec string (see above). random: and sparse: make a
     * code over `alphabet`; a built-in code or a file has its own alphabet,
     * which must be `alphabet` (std::invalid_argument otherwise).
     */
    static codebook from_spec(const std::string& spec, int alphabet = 2);

    //! Writes the codebook in the file format. Throws bsid::io_error on failure.
    void save(const std::string& path) const;
    std::string to_text() const;

    int n() const { return d_n; }
    //! A: the letters of a codeword are 0 .. A - 1 (2: bits).
    int alphabet() const { return d_alphabet; }
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

    //! Letter r (0: the first sent) of codeword w: its base-A digit r,
    //! the most significant first.
    unsigned letter(word_type w, int r) const
    {
        return d_alphabet == 2
                   ? unsigned((w >> (d_n - 1 - r)) & 1u)
                   : unsigned((w / d_place[size_t(r)]) % unsigned(d_alphabet));
    }

    /*!
     * \brief Encodes N symbols into tau = nN unpacked letters (one per byte;
     * for bits 0/1), the first letter of each codeword first. Throws
     * std::invalid_argument naming the first position whose symbol is outside [0, q).
     */
    std::vector<uint8_t> encode(const int64_t* symbols, size_t N) const;
    void encode(const int64_t* symbols, size_t N, uint8_t* bits) const;
    void encode(const int32_t* symbols, size_t N, uint8_t* bits) const;

    bool operator==(const codebook& o) const
    {
        return d_n == o.d_n && d_alphabet == o.d_alphabet && d_books == o.d_books;
    }
    bool operator!=(const codebook& o) const { return !(*this == o); }

private:
    int d_n;
    int d_q;
    int d_alphabet;
    std::vector<uint32_t> d_place; // A^(n-1-r): the value of letter r's digit
    std::vector<std::vector<word_type>> d_books;
    std::string d_spec;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_CODEBOOK_H */
