/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_SOFT_INPUT_H
#define INCLUDED_BSID_CORE_SOFT_INPUT_H

/*
 * Received items as hard bits or as soft decisions (LLRs): what a decoder
 * takes (docs/design.md section 3, "Soft input"). A frame, a request or a
 * stream holds one or the other; the lattices read both through the item
 * probabilities (w(0), w(1)) of model::llr_probabilities.
 */

#include <cstddef>
#include <cstdint>
#include <string>

namespace bsid {

//! What a decoder's received items are: bits (one 0/1 per byte) or LLRs
//! (one float each, ln p(r | 1) - ln p(r | 0): GNU Radio's soft-bit sign).
enum class input_kind { bits, llr };

//! "bits" | "llr"; throws std::invalid_argument for anything else.
input_kind parse_input_kind(const std::string& s);
std::string to_string(input_kind k);

/*!
 * \brief Received items [0, count) as pointers into caller memory: bits or
 * llr (exactly one is set when count > 0).
 */
struct received_items {
    const uint8_t* bits = nullptr; //!< one 0/1 per byte (a letter in [0, alphabet))
    const double* llr = nullptr;   //!< one LLR per item (never NaN; bits only)
    int alphabet = 2;              //!< the letters bits holds (the decoder's)

    bool soft() const { return llr != nullptr; }
    bool empty() const { return bits == nullptr && llr == nullptr; }
    //! The items from `offset` on.
    received_items operator+(long long offset) const
    {
        return { bits ? bits + offset : nullptr, llr ? llr + offset : nullptr, alphabet };
    }
    //! Item j's probabilities (w(0), w(1)); a bit b gives exactly (1 - b, b).
    void probabilities(size_t j, double& w0, double& w1) const;
};

/*!
 * Items [0, count) as 2 count probabilities w(0), w(1) in `out` (in the
 * decoder's precision, each computed in double first).
 */
template <typename real>
void item_probabilities(const received_items& y, size_t count, real* out);

/*!
 * The position of the first item that is not a valid received item (a byte
 * other than 0 or 1, or for an alphabet of A a byte of A or more; a NaN
 * LLR; any LLR over an alphabet of more than 2), or count when all are
 * valid; `what` receives a description of the bad item.
 */
size_t find_invalid_item(const received_items& y, size_t count, std::string& what);

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_SOFT_INPUT_H */
