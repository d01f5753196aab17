/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_CODEWORD_TRIE_H
#define INCLUDED_BSID_CORE_CODEWORD_TRIE_H

#include <gnuradio/bsid/core/inner/codebook.h>
#include <cstdint>
#include <vector>

namespace bsid {

/*!
 * The codewords of one book as a trie of their prefixes, for the CPU
 * decoder's lattice by position (position_lattice.h). Row r of a codeword's
 * lattice depends on the codeword's first r letters only, so codewords that
 * share a prefix share those rows: the lattice computes one row per distinct
 * prefix. For S500's books (n = 8, q = 16) that is 94 rows instead of 128.
 *
 * The codewords, sorted by value (their letters in transmission order), are
 * cut into chunks of at most `chunk` consecutive ones, and each chunk is a
 * trie of its own, so that a level's rows (at most `chunk` of them) fit the
 * lattice's workspace whatever q is; the prefixes two chunks share (near the
 * root) are computed once per chunk.
 */
struct codeword_trie {
    struct chunk_trie {
        int first_leaf = 0; //!< its leaves: [first_leaf, first_leaf + leaves)
        int leaves = 0;
        //! n + 2 entries: the nodes of level r are [level_begin[r],
        //! level_begin[r + 1]); node 0 is the root (level 0, the empty prefix)
        std::vector<int> level_begin;
        //! per node of level r >= 1: its parent's place in level r - 1
        //! (the parent's node index minus level_begin[r - 1])
        std::vector<int> parent;
        //! per node of level r >= 1: letter r - 1 of its prefix
        std::vector<uint8_t> letter;
    };

    std::vector<chunk_trie> chunks;
    //! leaf (in sorted order) -> the message symbol D of its codeword
    std::vector<int> word;
    //! the most nodes of one level below the leaves (levels 0 .. n - 1) of
    //! any chunk: the rows a level of the lattice's workspace holds
    int widest = 1;
};

//! The trie of book p of cb, in chunks of at most `chunk` codewords.
codeword_trie make_codeword_trie(const codebook& cb, int p, int chunk);

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_CODEWORD_TRIE_H */
