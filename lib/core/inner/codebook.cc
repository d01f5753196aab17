/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "inner/builtin_codebooks.h"
#include "inner/word_draw.h"
#include "runtime/format.h"
#include "runtime/text_file.h"
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/inner/frame_decoder.h>
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
constexpr uint64_t max_words = 1ULL << 32; // A^n: a codeword is a 32-bit integer

[[noreturn]] void fail(const std::string& what)
{
    throw std::invalid_argument("codebook: " + what);
}

void check_alphabet(long long A)
{
    if (A < 2 || A > 256) {
        fail(detail::concat("alphabet = ", A, " must be between 2 and 256"));
    }
}

// A^n, or 0 when it exceeds 2^32 (n and A checked)
uint64_t word_space(int n, int A)
{
    uint64_t s = 1;
    for (int k = 0; k < n; ++k) {
        s *= uint64_t(A);
        if (s > max_words)
            return 0;
    }
    return s;
}

// what a word is made of, in messages: "bits" or "letters of the alphabet A"
std::string letters(int A)
{
    return A == 2 ? std::string("bits") : detail::concat("letters of an alphabet of ", A);
}

void check_n_q(int n, long long q, int A = 2)
{
    check_alphabet(A);
    if (n < 1 || n > max_n) {
        fail(detail::concat("n = ", n, " must be between 1 and ", max_n));
    }
    const uint64_t words = word_space(n, A);
    if (words == 0) {
        fail(detail::concat("n = ",
                            n,
                            " letters of an alphabet of ",
                            A,
                            " make more than 2^32 words (A^n must be at most 2^32)"));
    }
    if (q < 2) {
        fail(detail::concat("q = ", q, " must be at least 2"));
    }
    if (q > max_q) {
        fail(detail::concat("q = ", q, " must be at most ", max_q));
    }
    if (uint64_t(q) > words) {
        fail(detail::concat("q = ",
                            q,
                            " distinct words cannot fit in n = ",
                            n,
                            " ",
                            letters(A),
                            " (at most ",
                            words,
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
    : codebook(n, std::move(books), 2, std::move(spec))
{
}

codebook::codebook(int n,
                   std::vector<std::vector<word_type>> books,
                   int alphabet,
                   std::string spec)
    : d_n(n),
      d_q(0),
      d_alphabet(alphabet),
      d_books(std::move(books)),
      d_spec(std::move(spec))
{
    check_alphabet(alphabet);
    if (n < 1 || n > max_n) {
        fail(detail::concat("n = ", n, " must be between 1 and ", max_n));
    }
    if (d_books.empty()) {
        fail("no books given (P = 0); a codebook needs at least one book of q words");
    }
    d_q = int(std::min<size_t>(d_books[0].size(), size_t(max_q) + 1));
    check_n_q(n, (long long)d_books[0].size(), alphabet);
    const uint64_t limit = word_space(n, alphabet);
    d_place.resize(size_t(n));
    for (int r = 0; r < n; ++r)
        d_place[size_t(r)] = uint32_t(word_space(n - 1 - r, alphabet));
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
                                    " ",
                                    letters(alphabet)));
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
    int n = 0, A = 2;
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
            if (vals.size() != 3 && vals.size() != 4) {
                fail(where +
                     detail::concat("expected the header 'n q P' or 'n q P A' (3 or 4 "
                                    "numbers), found ",
                                    vals.size(),
                                    " numbers"));
            }
            if (vals.size() == 4) {
                if (vals[3] < 2 || vals[3] > 256) {
                    fail(where +
                         detail::concat(
                             "alphabet A = ", vals[3], " must be between 2 and 256"));
                }
                A = int(vals[3]);
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
                check_n_q(n, q, A);
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
        const uint64_t words = word_space(n, A);
        for (auto v : vals) {
            if (v >= words) {
                fail(where +
                     detail::concat(
                         "word ", v, " does not fit in n = ", n, " ", letters(A)));
            }
            book.push_back(word_type(v));
        }
        books.push_back(std::move(book));
    }
    if (!have_header) {
        fail(origin + ": no header line 'n q P [A]' found (empty or all comments)");
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
        return codebook(n, std::move(books), A);
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
    if (d_alphabet == 2) {
        os << "\n# Format: 'n q P', then P lines of q codewords (most significant bit "
              "sent first).\n";
        os << d_n << ' ' << d_q << ' ' << P() << '\n';
    } else {
        os << "\n# Format: 'n q P A', then P lines of q codewords (each n base-A digits, "
              "the most significant sent first).\n";
        os << d_n << ' ' << d_q << ' ' << P() << ' ' << d_alphabet << '\n';
    }
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

codebook codebook::random(int n, int q, int P, uint64_t seed, int alphabet)
{
    check_n_q(n, q, alphabet);
    if (P < 1) {
        fail(detail::concat("P = ", P, " must be at least 1"));
    }
    const detail::word_draw draw(word_space(n, alphabet));
    std::vector<std::vector<word_type>> books(static_cast<size_t>(P));
    for (int b = 0; b < P; ++b) {
        philox_stream rng(seed, (1ULL << 63) + uint64_t(b));
        std::unordered_set<word_type> seen;
        seen.reserve(size_t(q) * 2);
        auto& book = books[size_t(b)];
        book.reserve(size_t(q));
        while (book.size() < size_t(q)) {
            const word_type w = draw(rng);
            if (seen.insert(w).second) {
                book.push_back(w);
            }
        }
    }
    return codebook(n,
                    std::move(books),
                    alphabet,
                    detail::concat("random:", n, ":", q, ":", P, ":", seed));
}

codebook codebook::sparse(int n, int q, int alphabet)
{
    check_n_q(n, q, alphabet);
    std::vector<word_type> book;
    book.reserve(size_t(q));
    if (alphabet == 2) {
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
    } else {
        // weight: the letters that are not 0. The words of weight w in
        // increasing order are the digit strings of w non-zero letters in
        // lexicographic order (most significant first): a depth-first walk
        // that tries 0 before 1 .. A-1 and keeps room for the non-zero
        // letters still to place.
        for (int w = 0; w <= n && book.size() < size_t(q); ++w) {
            std::vector<int> digit(size_t(n), -1);
            int pos = 0, placed = 0;
            uint64_t value = 0;
            while (pos >= 0 && book.size() < size_t(q)) {
                if (pos == n) {
                    book.push_back(word_type(value));
                    --pos;
                    continue;
                }
                int& d = digit[size_t(pos)];
                if (d >= 0) { // undo this position's letter, try the next
                    value -= uint64_t(d) * word_space(n - 1 - pos, alphabet);
                    placed -= d != 0;
                }
                ++d;
                const int left = n - pos - 1; // positions after this one
                bool ok = false;
                for (; d < alphabet; ++d) {
                    const int p = placed + (d != 0);
                    if (p <= w && p + left >= w) {
                        ok = true;
                        break;
                    }
                }
                if (!ok) {
                    d = -1;
                    --pos;
                    continue;
                }
                placed += d != 0;
                value += uint64_t(d) * word_space(n - 1 - pos, alphabet);
                ++pos;
            }
        }
    }
    return codebook(
        n, { std::move(book) }, alphabet, detail::concat("sparse:", n, ":", q));
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

codebook codebook::from_spec(const std::string& spec, int alphabet)
{
    check_alphabet(alphabet);
    const std::string usage = " (expected builtin:NAME, file:PATH, random:n:q:P:seed, "
                              "sparse:n:q, watermark:n:q:P:seed, marker:k:MARKER, or a "
                              "file path)";
    const detail::spec_numbers fields{ "codebook", spec };
    auto number = [&](const std::string& tok, const char* what) {
        return fields.number(tok, what);
    };
    auto small = [&](const std::string& tok, const char* what) {
        return fields.small(tok, what);
    };
    // a code read from a file or built in has its own alphabet: the one asked
    // for must be it
    const auto same_alphabet = [&](codebook cb) {
        if (cb.alphabet() != alphabet) {
            fail(detail::concat("spec '",
                                spec,
                                "': the code's alphabet is ",
                                cb.alphabet(),
                                ", not alphabet = ",
                                alphabet,
                                cb.alphabet() == 2
                                    ? " (built-in codebooks and files without "
                                      "an A in their header are binary)"
                                    : " (pass its alphabet)"));
        }
        return cb;
    };
    if (starts_with(spec, "builtin:")) {
        return same_alphabet(builtin(spec.substr(8)));
    }
    if (starts_with(spec, "file:")) {
        return same_alphabet(load(spec.substr(5)));
    }
    if (starts_with(spec, "random:")) {
        const auto parts = split_on(spec.substr(7), ':');
        if (parts.size() != 4) {
            fail("spec '" + spec + "': random takes four fields, random:n:q:P:seed");
        }
        return random(small(parts[0], "n"),
                      small(parts[1], "q"),
                      small(parts[2], "P"),
                      number(parts[3], "seed"),
                      alphabet);
    }
    if (starts_with(spec, "sparse:")) {
        const auto parts = split_on(spec.substr(7), ':');
        if (parts.size() != 2) {
            fail("spec '" + spec + "': sparse takes two fields, sparse:n:q");
        }
        return sparse(small(parts[0], "n"), small(parts[1], "q"), alphabet);
    }
    if (starts_with(spec, "watermark:")) {
        const auto parts = split_on(spec.substr(10), ':');
        if (parts.size() != 4) {
            fail("spec '" + spec +
                 "': watermark takes four fields, watermark:n:q:P:seed");
        }
        return watermark(small(parts[0], "n"),
                         small(parts[1], "q"),
                         small(parts[2], "P"),
                         number(parts[3], "seed"),
                         alphabet);
    }
    if (starts_with(spec, "marker:")) {
        const auto parts = split_on(spec.substr(7), ':');
        if (parts.size() != 2) {
            fail("spec '" + spec + "': marker takes two fields, marker:k:MARKER");
        }
        std::vector<uint8_t> m;
        try {
            m = parse_sync_word(parts[1], alphabet);
        } catch (const std::invalid_argument& e) {
            fail("spec '" + spec + "': the marker: " + e.what());
        }
        return marker(small(parts[0], "k"), m, alphabet);
    }
    if (spec.empty()) {
        fail("empty codebook spec" + usage);
    }
    std::ifstream probe(spec);
    if (!probe) {
        throw io_error("codebook: spec '" + spec + "' is not a readable file" + usage);
    }
    return same_alphabet(load(spec));
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
            *bits++ = uint8_t(cb.letter(w, k)); // most significant first
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
