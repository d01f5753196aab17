/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "inner/codeword_trie.h"
#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace bsid {

codeword_trie make_codeword_trie(const codebook& cb, int p, int chunk)
{
    if (chunk < 1)
        throw std::invalid_argument("make_codeword_trie: chunk must be at least 1");
    const int n = cb.n(), Q = cb.q();
    const auto& book = cb.books().at(size_t(p));
    codeword_trie t;
    // sorted by value: the letters in transmission order, so that codewords
    // with a common prefix are neighbours
    t.word.resize(size_t(Q));
    std::iota(t.word.begin(), t.word.end(), 0);
    std::sort(t.word.begin(), t.word.end(), [&](int a, int b) {
        return book[size_t(a)] < book[size_t(b)];
    });
    for (int first = 0; first < Q; first += chunk) {
        codeword_trie::chunk_trie c;
        c.first_leaf = first;
        c.leaves = std::min(chunk, Q - first);
        c.level_begin.assign(size_t(n) + 2, 0);
        c.parent.push_back(0); // the root's entries (unused)
        c.letter.push_back(0);
        c.level_begin[1] = 1;
        // level r: one node per run of leaves with equal first r letters
        // (sorted, so equal prefixes are consecutive)
        // the letters each leaf shares with the one before it
        std::vector<int> common(size_t(c.leaves), 0);
        for (int j = 1; j < c.leaves; ++j) {
            const auto v = book[size_t(t.word[size_t(first + j - 1)])];
            const auto w = book[size_t(t.word[size_t(first + j)])];
            int k = 0;
            while (k < n && cb.letter(v, k) == cb.letter(w, k))
                ++k;
            common[size_t(j)] = k;
        }
        std::vector<int> node_of(size_t(c.leaves), 0); // the leaf's node at level r - 1
        for (int r = 1; r <= n; ++r) {
            const int begin = c.level_begin[size_t(r)];
            int count = 0;
            std::vector<int> next(size_t(c.leaves));
            for (int j = 0; j < c.leaves; ++j) {
                if (j == 0 || common[size_t(j)] < r) {
                    const auto w = book[size_t(t.word[size_t(first + j)])];
                    c.parent.push_back(node_of[size_t(j)] - c.level_begin[size_t(r - 1)]);
                    c.letter.push_back(uint8_t(cb.letter(w, r - 1)));
                    ++count;
                }
                next[size_t(j)] = begin + count - 1;
            }
            node_of.swap(next);
            c.level_begin[size_t(r) + 1] = begin + count;
            if (r < n)
                t.widest = std::max(t.widest, count);
        }
        t.chunks.push_back(std::move(c));
    }
    return t;
}

} // namespace bsid
