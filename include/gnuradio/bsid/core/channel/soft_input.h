/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_SOFT_INPUT_H
#define INCLUDED_BSID_CORE_SOFT_INPUT_H

/*
 * Received items as hard letters (bits for the binary channel) or as soft
 * decisions: what a decoder takes (docs/design.md section 3, "Soft input").
 * Soft items are LLRs over bits, or A log-probabilities per item over an
 * alphabet of A letters (for example a basecaller's). A frame, a request or
 * a stream holds one kind; the lattices read them all through the item
 * probabilities w(y), y = 0 .. A - 1 (item_probabilities).
 */

#include <cstddef>
#include <cstdint>
#include <string>

namespace bsid {

/*!
 * What a decoder's received items are: bits (letters: one per byte), LLRs
 * (one float each, ln p(r | 1) - ln p(r | 0): GNU Radio's soft-bit sign), or
 * log-probabilities (A per item, ln p(r | y) up to a constant per item).
 */
enum class input_kind { bits, llr, logprob };

//! "bits" | "llr" | "logprob"; throws std::invalid_argument for anything else.
input_kind parse_input_kind(const std::string& s);
std::string to_string(input_kind k);

/*!
 * \brief Received items [0, count) as pointers into caller memory: bits,
 * llr or logprob (exactly one is set when count > 0).
 */
struct received_items {
    const uint8_t* bits = nullptr; //!< one 0/1 per byte (a letter in [0, alphabet))
    const double* llr = nullptr;   //!< one LLR per item (never NaN; bits only)
    int alphabet = 2;              //!< the letters an item is over (the decoder's)
    /*!
     * alphabet log-probabilities per item, item j's at [alphabet j]: ln p(r_j
     * | y) up to a constant per item (-inf: impossible); over more than two
     * letters only (bits take LLRs, lp(1) - lp(0)).
     */
    const double* logprob = nullptr;

    bool soft() const { return llr != nullptr || logprob != nullptr; }
    bool empty() const { return bits == nullptr && llr == nullptr && logprob == nullptr; }
    //! The items from `offset` on.
    received_items operator+(long long offset) const
    {
        return { bits ? bits + offset : nullptr,
                 llr ? llr + offset : nullptr,
                 alphabet,
                 logprob ? logprob + offset * alphabet : nullptr };
    }
    //! Item j's probabilities (w(0), w(1)); a bit b gives exactly (1 - b, b).
    void probabilities(size_t j, double& w0, double& w1) const;
};

/*!
 * Items [0, count) as their probabilities in `out` (in the decoder's
 * precision, each computed in double first): over bits 2 per item, w(0) and
 * w(1); over A > 2 letters A per item, w(y) = p(r | y) / sum_y' p(r | y')
 * (a hard letter y gives exactly 1 at y and 0 elsewhere).
 */
template <typename real>
void item_probabilities(const received_items& y, size_t count, real* out);

/*!
 * The position of the first item that is not a valid received item (a byte
 * other than 0 or 1, or for an alphabet of A a byte of A or more; a NaN
 * LLR; any LLR over an alphabet of more than 2; a log-probability that is
 * NaN or +inf, an item whose every log-probability is -inf, or
 * log-probabilities over bits), or count when all are valid; `what`
 * receives a description of the bad item.
 */
size_t find_invalid_item(const received_items& y, size_t count, std::string& what);

/*!
 * The first of `count` items of A log-probabilities each (item t's at
 * [A t]) that is not valid: a NaN or +inf value, or every value -inf; count
 * when all are valid; `what` receives why.
 */
size_t find_invalid_logprob(const double* lp, size_t count, int A, std::string& what);

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_SOFT_INPUT_H */
