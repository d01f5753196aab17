/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The channel, its parameters and drift limits, codebooks.

#include "bindings.h"
#include "py_map_decoder.h"

namespace py = pybind11;
using namespace py::literals;
using namespace bsid_py;

void bind_channel(py::module_& m)
{
    // ---------------------------------------------------------------- channel_params
    py::class_<bsid::channel_params>(m, "channel_params", R"doc(
Channel parameters: insertion Pi, deletion Pd and substitution Ps
probabilities (Pt = 1 - Pi - Pd is the transmission probability), over an
alphabet of `alphabet` letters 0 .. A-1 (2: the binary BSID channel; 4: DNA's
A, C, G, T as 0, 1, 2, 3). An inserted letter is uniform; a transmitted letter
is received as another with probability Ps, each other letter alike, or as
`substitution` says: an A x A row-stochastic matrix, S[x][y] = P(received y |
x transmitted), which replaces Ps (Ps is then the mean of 1 - S[x][x]).
Raises ValueError, naming the value, for a negative or non-finite value,
Pi + Pd >= 1, Ps > 1, an alphabet outside [2, 256], or a matrix of the wrong
shape or with a row that does not sum to 1.)doc")
        .def(py::init([](double Pi,
                         double Pd,
                         double Ps,
                         int alphabet,
                         const py::object& substitution) {
                 return bsid::channel_params(
                     Pi,
                     Pd,
                     Ps,
                     alphabet,
                     substitution_from_python(substitution, alphabet));
             }),
             "Pi"_a,
             "Pd"_a,
             "Ps"_a = 0.0,
             "alphabet"_a = 2,
             "substitution"_a = py::none())
        .def_property_readonly("Pi", &bsid::channel_params::Pi)
        .def_property_readonly("Pd", &bsid::channel_params::Pd)
        .def_property_readonly("Ps", &bsid::channel_params::Ps)
        .def_property_readonly("Pt", &bsid::channel_params::Pt)
        .def_property_readonly("alphabet", &bsid::channel_params::alphabet)
        .def_property_readonly(
            "substitution",
            [](const bsid::channel_params& c) -> py::object {
                if (!c.has_substitution_matrix())
                    return py::none();
                const auto A = py::ssize_t(c.alphabet());
                py::array_t<double> S({ A, A });
                std::copy(
                    c.substitution().begin(), c.substitution().end(), S.mutable_data());
                return std::move(S);
            },
            "The A x A substitution matrix (float64), or None (uniform, Ps).")
        .def("__repr__", &bsid::channel_params::repr)
        .def(py::self == py::self)
        .def(py::self != py::self)
        .def(py::pickle(
            [](const bsid::channel_params& c) {
                return py::make_tuple(
                    c.Pi(), c.Pd(), c.Ps(), c.alphabet(), py::cast(c.substitution()));
            },
            [](const py::tuple& t) {
                if (t.size() == 3) // pickled before the alphabet
                    return bsid::channel_params(
                        t[0].cast<double>(), t[1].cast<double>(), t[2].cast<double>());
                return bsid::channel_params(t[0].cast<double>(),
                                            t[1].cast<double>(),
                                            t[2].cast<double>(),
                                            t[3].cast<int>(),
                                            t[4].cast<std::vector<double>>());
            }));

    // ---------------------------------------------------------------- drift limits
    m.def(
        "drift_limits",
        [](long long T, double Pi, double Pd, double Pr) {
            bsid::drift_range r;
            {
                py::gil_scoped_release nogil;
                r = bsid::drift_limits(T, Pi, Pd, Pr);
            }
            return range_tuple(r);
        },
        "T"_a,
        "Pi"_a,
        "Pd"_a,
        "Pr"_a = 1e-10,
        R"doc(
Drift limits (lo, hi) for T transmitted bits: the smallest range, grown from
drift 0 by the rule of docs/design.md section 4, outside which the drift falls
with probability below Pr.)doc");
    m.def(
        "drift_pdf",
        [](long long T, double Pi, double Pd, long long lo, long long hi) {
            std::vector<double> v;
            {
                py::gil_scoped_release nogil;
                v = bsid::drift_pdf(T, Pi, Pd, lo, hi);
            }
            return to_numpy(std::move(v));
        },
        "T"_a,
        "Pi"_a,
        "Pd"_a,
        "lo"_a,
        "hi"_a,
        R"doc(
phi_T(m) for m = lo..hi: the probability that the drift after T transmitted
bits is m (docs/design.md section 4). Returns a float64 numpy array.)doc");
    m.def("Pr_n",
          &bsid::codeword_exclusion,
          "Pr"_a,
          "N"_a,
          "Per-codeword exclusion probability 1 - (1 - Pr)^(1/N), computed as "
          "-expm1(log1p(-Pr)/N).");
    m.def(
        "decoder_limits",
        [](long long N, int n, double Pi, double Pd, double Pr) {
            const auto L = bsid::compute_decoder_limits(N, n, Pi, Pd, Pr);
            py::dict d;
            d["mtau"] = range_tuple(L.mtau);
            d["mn"] = range_tuple(L.mn);
            return d;
        },
        "N"_a,
        "n"_a,
        "Pi"_a,
        "Pd"_a,
        "Pr"_a = 1e-10,
        R"doc(
The decoder's state spaces for N codewords of n bits (docs/design.md section 4),
so that P(some boundary's drift lies outside mtau) + P(some codeword's lattice
path leaves mn) < Pr, each by a union bound. Pr is split: for k = 1..8 the
corridors get Pr / 2^k (mn = corridor_limits(N, n, Pi, Pd, Pr / 2^k)) and the
boundaries what mn leaves (mtau = boundary_limits(N, n, Pi, Pd,
Pr - excluded_mass(...)["corridors"])); the pair with the least work
ceil(M_tau / 32) (n M_n - mn_lo (mn_lo - 1) / 2) wins, the first on a tie.
Neither range is clipped to the other.)doc");
    m.def(
        "boundary_limits",
        [](long long N, int n, double Pi, double Pd, double Pr) {
            return range_tuple(bsid::boundary_limits(N, n, Pi, Pd, Pr));
        },
        "N"_a,
        "n"_a,
        "Pi"_a,
        "Pd"_a,
        "Pr"_a,
        R"doc(
(lo, hi) such that sum over the N + 1 codeword boundaries i of P(drift after i n bits
lies outside [lo, hi]) < Pr: the limits rule applied to mu(m) = sum_i phi_{i n}(m).)doc");
    m.def(
        "corridor_limits",
        [](long long N, int n, double Pi, double Pd, double Pr) {
            return range_tuple(bsid::corridor_limits(N, n, Pi, Pd, Pr));
        },
        "N"_a,
        "n"_a,
        "Pi"_a,
        "Pd"_a,
        "Pr"_a,
        R"doc(
(lo, hi) such that N P(a codeword's lattice path leaves [lo, hi] at some node) < Pr.)doc");
    m.def(
        "excluded_mass",
        [](long long N,
           int n,
           double Pi,
           double Pd,
           std::pair<int, int> mtau,
           std::pair<int, int> mn) {
            const auto e = bsid::excluded_mass(
                N, n, Pi, Pd, { mtau.first, mtau.second }, { mn.first, mn.second });
            py::dict d;
            d["boundaries"] = e.boundaries;
            d["corridors"] = e.corridors;
            return d;
        },
        "N"_a,
        "n"_a,
        "Pi"_a,
        "Pd"_a,
        "mtau"_a,
        "mn"_a,
        R"doc(
What limits leave out, each a union bound: {"boundaries": sum over the N + 1 boundaries
of P(drift outside mtau), "corridors": N P(a codeword's path leaves mn)}.)doc");

    // ---------------------------------------------------------------- codebook
    py::class_<bsid::codebook>(m, "codebook", R"doc(
Time-varying inner code: P books of q distinct codewords of n letters of an
alphabet of A (2: bits), used cyclically (C_i = books[i mod P]). A codeword
is an integer whose n base-A digits are its letters, the most significant
sent first; A^n <= 2^32.

    codebook(n, books, alphabet=2)   books: P lists of q ints (or a P x q array)
    codebook.from_spec(spec, alphabet=2)
                                     builtin:NAME, file:PATH or PATH (their own
                                     alphabet, which must be `alphabet`),
                                     random:n:q:P:seed, sparse:n:q (over `alphabet`)
    codebook.load(path), .random(n, q, P, seed, alphabet=2),
    .sparse(n, q, alphabet=2), .builtin(name)

Invalid codebooks raise ValueError naming the problem.)doc")
        .def(py::init([](int n, const py::object& books, int alphabet) {
                 return bsid::codebook(n, books_from_python(books), alphabet);
             }),
             "n"_a,
             "books"_a,
             "alphabet"_a = 2)
        .def_static(
            "load",
            &bsid::codebook::load,
            "path"_a,
            "Reads a codebook file ('#' comments, a line 'n q P' or 'n q P A', then P "
            "lines of q integers).")
        .def_static("parse",
                    &bsid::codebook::parse,
                    "text"_a,
                    "origin"_a = "<text>",
                    "Parses the text of a codebook file.")
        .def_static("random",
                    &bsid::codebook::random,
                    "n"_a,
                    "q"_a,
                    "P"_a = 1,
                    "seed"_a = 0,
                    "alphabet"_a = 2,
                    R"doc(
P books of q distinct random words of n letters. Stable across versions: book b
draws 32-bit words from the Philox4x32-10 stream (seed, 2^63 + b), keeps
the top log2(A^n) bits when A^n is a power of two (bits: the top n), else the
word modulo A^n of a draw outside the last partial run, and skips repeats
until it has q words (docs/random-numbers.md).)doc")
        .def_static("sparse",
                    &bsid::codebook::sparse,
                    "n"_a,
                    "q"_a,
                    "alphabet"_a = 2,
                    "The q lowest-weight words of n letters (weight: the letters that "
                    "are not 0), "
                    "ties broken by increasing value (P = 1).")
        .def_static("watermark",
                    &bsid::codebook::watermark,
                    "n"_a,
                    "q"_a,
                    "P"_a,
                    "seed"_a,
                    "alphabet"_a = 2,
                    R"doc(
Davey and MacKay's watermark code (IEEE Trans. Inf. Theory 47(2), 2001): the
sparse code sparse(n, q) added letter by letter (mod A; for bits, XOR) to a
pseudo-random watermark word per book, book b's drawn from the Philox stream
(seed, 2^63 + 2^60 + b); the watermark repeats every P codewords (P = N: as long
as the frame). Spec: watermark:n:q:P:seed (docs/capacity.md).)doc")
        .def_static(
            "marker",
            [](int k, const py::object& marker, int alphabet) {
                std::vector<uint8_t> m;
                if (py::isinstance<py::str>(marker)) {
                    m = bsid::parse_sync_word(marker.cast<std::string>(), alphabet);
                } else {
                    for (const auto& v : py::iter(marker)) {
                        const long long x = v.cast<long long>();
                        if (x < 0 || x >= alphabet)
                            throw py::value_error("codebook.marker: marker letter " +
                                                  std::to_string(x) + " is not in 0 .. " +
                                                  std::to_string(alphabet - 1));
                        m.push_back(uint8_t(x));
                    }
                }
                return bsid::codebook::marker(k, m, alphabet);
            },
            "k"_a,
            "marker"_a,
            "alphabet"_a = 2,
            R"doc(
A marker code (Sellers 1962; Ratzer 2005): every codeword is k data letters
(the symbol's base-A digits, most significant first) followed by the fixed
marker letters, so n = k + len(marker), q = A^k, P = 1. marker: text as a sync
word is written ("01", "ACGT", "0,5,2") or a sequence of letters. Spec:
marker:k:MARKER (docs/capacity.md).)doc")
        .def_static("builtin",
                    &bsid::codebook::builtin,
                    "name"_a,
                    "A codebook shipped with the module, e.g. 'ld3-modvec6'.")
        .def_static("builtin_names", &bsid::codebook::builtin_names)
        .def_static("from_spec", &bsid::codebook::from_spec, "spec"_a, "alphabet"_a = 2)
        .def("save", &bsid::codebook::save, "path"_a)
        .def("to_text", &bsid::codebook::to_text)
        .def_property_readonly("n", &bsid::codebook::n)
        .def_property_readonly("q", &bsid::codebook::q)
        .def_property_readonly("P", &bsid::codebook::P)
        .def_property_readonly("alphabet",
                               &bsid::codebook::alphabet,
                               "A: a codeword's letters are 0 .. A-1 (2: bits).")
        .def_property_readonly(
            "spec",
            &bsid::codebook::spec,
            "The spec this codebook came from ('' if built from lists).")
        .def_property_readonly("books", &books_to_python)
        .def(
            "word",
            [](const bsid::codebook& cb, long long i, int D) {
                if (i < 0 || D < 0 || D >= cb.q()) {
                    throw py::index_error("codebook.word: need i >= 0 and 0 <= D < q");
                }
                return cb.word(size_t(i), D);
            },
            "i"_a,
            "D"_a,
            "C_i(D): the codeword of symbol D at message position i.")
        .def(
            "encode",
            [](const bsid::codebook& cb, const py::object& symbols) {
                auto a = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::
                    ensure(int_array(symbols, "symbols"));
                py::array_t<uint8_t> bits(a.size() * cb.n());
                cb.encode(a.data(), size_t(a.size()), bits.mutable_data());
                return bits;
            },
            "symbols"_a,
            "Encodes N symbols in [0, q) to nN letters (uint8 in [0, A); bits for A = "
            "2), "
            "the first letter of each codeword first.")
        .def("__repr__",
             [](const bsid::codebook& cb) {
                 std::ostringstream os;
                 os << "codebook(n=" << cb.n() << ", q=" << cb.q() << ", P=" << cb.P();
                 if (cb.alphabet() != 2)
                     os << ", alphabet=" << cb.alphabet();
                 if (!cb.spec().empty())
                     os << ", spec='" << cb.spec() << "'";
                 os << ")";
                 return os.str();
             })
        .def(py::self == py::self)
        .def(py::self != py::self)
        .def(py::pickle(
            [](const bsid::codebook& cb) {
                return py::make_tuple(
                    cb.n(), books_to_python(cb), cb.spec(), cb.alphabet());
            },
            [](const py::tuple& t) {
                return bsid::codebook(t[0].cast<int>(),
                                      books_from_python(t[1]),
                                      t.size() > 3 ? t[3].cast<int>() : 2,
                                      t[2].cast<std::string>());
            }));

    // ---------------------------------------------------------------- channel
    py::class_<bsid::channel_emulator>(m, "channel_emulator", R"doc(
The channel as a stream: feed letters (bits for the binary channel) in any
chunks with process(); the output equals transmit(ch, all_letters, seed,
frame) however the input is split.
Counts the events it applied (insertions, deletions, substitutions).)doc")
        .def(py::init<const bsid::channel_params&,
                      unsigned long long,
                      unsigned long long>(),
             "ch"_a,
             "seed"_a,
             "frame"_a = 0)
        .def(
            "process",
            [](bsid::channel_emulator& em, const py::object& bits) {
                auto in = letters_array(
                    bits, "channel_emulator.process: bits", em.params().alphabet());
                std::vector<uint8_t> rx;
                {
                    py::gil_scoped_release nogil;
                    em.process(in.data(), size_t(in.size()), rx);
                }
                return to_numpy(std::move(rx));
            },
            "bits"_a,
            "Passes letters through the channel; returns the received letters (uint8).")
        .def("set_params", &bsid::channel_emulator::set_params, "ch"_a)
        .def_property_readonly("params", &bsid::channel_emulator::params)
        .def_property_readonly("drift",
                               &bsid::channel_emulator::drift,
                               "Received minus transmitted bits so far.")
        .def_property_readonly("bits_in", &bsid::channel_emulator::bits_in)
        .def_property_readonly("insertions", &bsid::channel_emulator::insertions)
        .def_property_readonly("deletions", &bsid::channel_emulator::deletions)
        .def_property_readonly("substitutions", &bsid::channel_emulator::substitutions);

    m.def(
        "transmit",
        [](const bsid::channel_params& ch,
           const py::object& bits,
           unsigned long long seed,
           unsigned long long frame) {
            auto in = letters_array(bits, "transmit: bits", ch.alphabet());
            bsid::transmission t;
            {
                py::gil_scoped_release nogil;
                t = bsid::transmit(ch, in.data(), size_t(in.size()), seed, frame);
            }
            return py::make_tuple(to_numpy(std::move(t.rx)),
                                  to_numpy(std::move(t.drift)));
        },
        "ch"_a,
        "bits"_a,
        "seed"_a,
        "frame"_a = 0,
        R"doc(
rx, drift = transmit(ch, bits, seed, frame=0)

Sends one frame of unpacked letters (bits for the binary channel; uint8 in
[0, ch.alphabet)) through the channel ch. rx is the received uint8 array;
drift (int32) has tau + 1 entries: the drift before each transmitted letter,
then rho - tau. Frame `frame` of `seed` is the same on
any thread and device (Philox4x32-10 stream (seed, frame); frame < 2^63).)doc");
}
