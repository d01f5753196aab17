/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "inner/builtin_codebooks.h"
#include "runtime/format.h"
#include "runtime/text_file.h"
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/runtime/errors.h>
#include <gnuradio/bsid/core/sim/philox.h>
#include <unordered_map>
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

constexpr int max_n = 32;
constexpr int max_q = 65536;

[[noreturn]] void fail(const std::string& what)
{
    throw std::invalid_argument("codebook: " + what);
}

void check_n_q(int n, long long q)
{
    if (n < 1 || n > max_n) {
        fail(detail::concat("n = ", n, " must be between 1 and ", max_n));
    }
    if (q < 2) {
        fail(detail::concat("q = ", q, " must be at least 2"));
    }
    if (q > max_q) {
        fail(detail::concat("q = ", q, " must be at most ", max_q));
    }
    if (n < 32 && q > (1LL << n)) {
        fail(detail::concat("q = ",
                            q,
                            " distinct words cannot fit in n = ",
                            n,
                            " bits (at most ",
                            1LL << n,
                            ")"));
    }
}


std::vector<std::string> split_ws(const std::string& line)
{
    std::istringstream is(line);
    std::vector<std::string> toks;
    std::string t;
    while (is >> t)
        toks.push_back(t);
    return toks;
}


} // namespace

codebook::codebook(int n, std::vector<std::vector<word_type>> books, std::string spec)
    : d_n(n), d_q(0), d_books(std::move(books)), d_spec(std::move(spec))
{
    if (n < 1 || n > max_n) {
        fail(detail::concat("n = ", n, " must be between 1 and ", max_n));
    }
    if (d_books.empty()) {
        fail("no books given (P = 0); a codebook needs at least one book of q words");
    }
    d_q = int(std::min<size_t>(d_books[0].size(), size_t(max_q) + 1));
    check_n_q(n, (long long)d_books[0].size());
    const uint64_t limit = n == 32 ? (1ULL << 32) : (1ULL << n);
    for (size_t b = 0; b < d_books.size(); ++b) {
        const auto& book = d_books[b];
        if (book.size() != size_t(d_q)) {
            fail(detail::concat("book ",
                                b,
                                " has ",
                                book.size(),
                                " words, but book 0 has ",
                                d_q,
                                " (every book needs q words)"));
        }
        std::unordered_map<word_type, int> seen;
        seen.reserve(book.size());
        for (int D = 0; D < d_q; ++D) {
            const word_type w = book[size_t(D)];
            if (uint64_t(w) >= limit) {
                fail(detail::concat("book ",
                                    b,
                                    ", symbol ",
                                    D,
                                    ": word ",
                                    w,
                                    " does not fit in n = ",
                                    n,
                                    " bits"));
            }
            auto ins = seen.emplace(w, D);
            if (!ins.second) {
                fail(detail::concat("book ",
                                    b,
                                    " repeats word ",
                                    w,
                                    " (symbols ",
                                    ins.first->second,
                                    " and ",
                                    D,
                                    "); the words of a book must be distinct"));
            }
        }
    }
}

codebook codebook::parse(const std::string& text, const std::string& origin)
{
    // Refuse binary data up front, with a clear message, rather than failing
    // on some odd token later.
    for (size_t k = 0; k < text.size(); ++k) {
        const unsigned char c = static_cast<unsigned char>(text[k]);
        if (c == 0 || c >= 0x7f ||
            (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v')) {
            fail(detail::concat(origin,
                                ": not a text codebook file (byte 0x",
                                std::hex,
                                int(c),
                                std::dec,
                                " at offset ",
                                k,
                                ")"));
        }
    }
    std::istringstream is(text);
    std::string line;
    int lineno = 0;
    int n = 0;
    long long q = 0, P = 0;
    bool have_header = false;
    std::vector<std::vector<word_type>> books;
    while (std::getline(is, line)) {
        ++lineno;
        const auto toks = split_ws(line);
        if (toks.empty() || toks[0][0] == '#') {
            continue;
        }
        const std::string where = detail::concat(origin, ", line ", lineno, ": ");
        std::vector<unsigned long long> vals;
        for (const auto& t : toks) {
            unsigned long long v;
            if (!parse_uint(t, v)) {
                fail(where + "'" + t + "' is not a non-negative decimal integer");
            }
            vals.push_back(v);
        }
        if (!have_header) {
            if (vals.size() != 3) {
                fail(where +
                     detail::concat("expected the header 'n q P' (3 numbers), found ",
                                    vals.size(),
                                    " numbers"));
            }
            if (vals[0] < 1 || vals[0] > unsigned(max_n)) {
                fail(where +
                     detail::concat("n = ", vals[0], " must be between 1 and ", max_n));
            }
            if (vals[2] < 1 || vals[2] > 100000000ULL) {
                fail(where +
                     detail::concat("P = ", vals[2], " must be between 1 and 100000000"));
            }
            n = int(vals[0]);
            q = (long long)std::min<unsigned long long>(vals[1], 1ULL << 40);
            P = (long long)vals[2];
            try {
                check_n_q(n, q);
            } catch (const std::invalid_argument& e) {
                fail(where + std::string(e.what()).substr(10)); // drop "codebook: "
            }
            have_header = true;
            continue;
        }
        if ((long long)books.size() == P) {
            fail(where +
                 detail::concat("unexpected data after the ", P, " books of the header"));
        }
        if ((long long)vals.size() != q) {
            fail(where + detail::concat("book ",
                                        books.size(),
                                        " has ",
                                        vals.size(),
                                        " words, expected q = ",
                                        q));
        }
        std::vector<word_type> book;
        book.reserve(size_t(q));
        for (auto v : vals) {
            if (v > 0xffffffffULL || (n < 32 && v >= (1ULL << n))) {
                fail(where +
                     detail::concat("word ", v, " does not fit in n = ", n, " bits"));
            }
            book.push_back(word_type(v));
        }
        books.push_back(std::move(book));
    }
    if (!have_header) {
        fail(origin + ": no header line 'n q P' found (empty or all comments)");
    }
    if ((long long)books.size() != P) {
        fail(detail::concat(origin,
                            ": the header promises P = ",
                            P,
                            " books but the file has ",
                            books.size(),
                            " (truncated?)"));
    }
    try {
        return codebook(n, std::move(books));
    } catch (const std::invalid_argument& e) {
        fail(origin + ": " + std::string(e.what()).substr(10));
    }
}

codebook codebook::load(const std::string& path)
{
    const std::string text =
        detail::read_text_file(path, "codebook", "codebook", size_t(64) << 20);
    codebook cb = parse(text, path);
    cb.d_spec = "file:" + path;
    return cb;
}

std::string codebook::to_text() const
{
    std::ostringstream os;
    os << "# gr-bsid codebook";
    if (!d_spec.empty())
        os << " (" << d_spec << ")";
    os << "\n# Format: 'n q P', then P lines of q codewords (most significant bit sent "
          "first).\n";
    os << d_n << ' ' << d_q << ' ' << P() << '\n';
    for (const auto& book : d_books) {
        for (size_t D = 0; D < book.size(); ++D) {
            os << (D ? " " : "") << book[D];
        }
        os << '\n';
    }
    return os.str();
}

void codebook::save(const std::string& path) const
{
    detail::write_text_file(path, "codebook", to_text());
}

codebook codebook::random(int n, int q, int P, uint64_t seed)
{
    check_n_q(n, q);
    if (P < 1) {
        fail(detail::concat("P = ", P, " must be at least 1"));
    }
    std::vector<std::vector<word_type>> books(static_cast<size_t>(P));
    for (int b = 0; b < P; ++b) {
        philox_stream rng(seed, (1ULL << 63) + uint64_t(b));
        std::unordered_set<word_type> seen;
        seen.reserve(size_t(q) * 2);
        auto& book = books[size_t(b)];
        book.reserve(size_t(q));
        while (book.size() < size_t(q)) {
            const word_type w = rng.next_u32() >> (32 - n);
            if (seen.insert(w).second) {
                book.push_back(w);
            }
        }
    }
    return codebook(
        n, std::move(books), detail::concat("random:", n, ":", q, ":", P, ":", seed));
}

codebook codebook::sparse(int n, int q)
{
    check_n_q(n, q);
    std::vector<word_type> book;
    book.reserve(size_t(q));
    const uint64_t end = 1ULL << n;
    for (int w = 0; w <= n && book.size() < size_t(q); ++w) {
        if (w == 0) {
            book.push_back(0);
            continue;
        }
        // Gosper's hack: the words of weight w in increasing order.
        for (uint64_t x = (1ULL << w) - 1; x < end && book.size() < size_t(q);) {
            book.push_back(word_type(x));
            const uint64_t c = x & (~x + 1);
            const uint64_t r = x + c;
            x = (((r ^ x) >> 2) / c) | r;
        }
    }
    return codebook(n, { std::move(book) }, detail::concat("sparse:", n, ":", q));
}

std::vector<std::string> codebook::builtin_names()
{
    std::vector<std::string> names;
    for (const auto& b : detail::builtin_codebooks())
        names.push_back(b.name);
    return names;
}

codebook codebook::builtin(const std::string& name)
{
    for (const auto& b : detail::builtin_codebooks()) {
        if (name == b.name) {
            codebook cb = parse(b.text, "builtin:" + name);
            cb.d_spec = "builtin:" + name;
            return cb;
        }
    }
    std::string avail;
    for (const auto& nm : builtin_names())
        avail += (avail.empty() ? "" : ", ") + nm;
    fail("no built-in codebook named '" + name + "' (available: " + avail + ")");
}

codebook codebook::from_spec(const std::string& spec)
{
    const std::string usage = " (expected builtin:NAME, file:PATH, random:n:q:P:seed, "
                              "sparse:n:q, or a file path)";
    const detail::spec_numbers fields{ "codebook", spec };
    auto number = [&](const std::string& tok, const char* what) {
        return fields.number(tok, what);
    };
    auto small = [&](const std::string& tok, const char* what) {
        return fields.small(tok, what);
    };
    if (starts_with(spec, "builtin:")) {
        return builtin(spec.substr(8));
    }
    if (starts_with(spec, "file:")) {
        return load(spec.substr(5));
    }
    if (starts_with(spec, "random:")) {
        const auto parts = split_on(spec.substr(7), ':');
        if (parts.size() != 4) {
            fail("spec '" + spec + "': random takes four fields, random:n:q:P:seed");
        }
        return random(small(parts[0], "n"),
                      small(parts[1], "q"),
                      small(parts[2], "P"),
                      number(parts[3], "seed"));
    }
    if (starts_with(spec, "sparse:")) {
        const auto parts = split_on(spec.substr(7), ':');
        if (parts.size() != 2) {
            fail("spec '" + spec + "': sparse takes two fields, sparse:n:q");
        }
        return sparse(small(parts[0], "n"), small(parts[1], "q"));
    }
    if (spec.empty()) {
        fail("empty codebook spec" + usage);
    }
    std::ifstream probe(spec);
    if (!probe) {
        throw io_error("codebook: spec '" + spec + "' is not a readable file" + usage);
    }
    return load(spec);
}

namespace {
template <typename Sym>
void encode_impl(const codebook& cb, const Sym* symbols, size_t N, uint8_t* bits)
{
    const int n = cb.n();
    for (size_t i = 0; i < N; ++i) {
        const Sym D = symbols[i];
        if (D < 0 || D >= Sym(cb.q())) {
            throw std::invalid_argument(detail::concat("codebook.encode: symbol ",
                                                       (long long)D,
                                                       " at position ",
                                                       i,
                                                       " is outside [0, q) with q = ",
                                                       cb.q()));
        }
        const uint32_t w = cb.word(i, int(D));
        for (int k = 0; k < n; ++k) {
            *bits++ = uint8_t((w >> (n - 1 - k)) & 1u); // MSB first
        }
    }
}
} // namespace

void codebook::encode(const int64_t* symbols, size_t N, uint8_t* bits) const
{
    encode_impl(*this, symbols, N, bits);
}

void codebook::encode(const int32_t* symbols, size_t N, uint8_t* bits) const
{
    encode_impl(*this, symbols, N, bits);
}

std::vector<uint8_t> codebook::encode(const int64_t* symbols, size_t N) const
{
    std::vector<uint8_t> bits(N * size_t(d_n));
    encode(symbols, N, bits.data());
    return bits;
}

} // namespace bsid
