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
BSID channel parameters: insertion Pi, deletion Pd and substitution Ps
probabilities (Pt = 1 - Pi - Pd is the transmission probability).
Raises ValueError, naming the value, for a negative or non-finite value,
Pi + Pd >= 1, or Ps > 1.)doc")
        .def(py::init<double, double, double>(), "Pi"_a, "Pd"_a, "Ps"_a = 0.0)
        .def_property_readonly("Pi", &bsid::channel_params::Pi)
        .def_property_readonly("Pd", &bsid::channel_params::Pd)
        .def_property_readonly("Ps", &bsid::channel_params::Ps)
        .def_property_readonly("Pt", &bsid::channel_params::Pt)
        .def("__repr__", &bsid::channel_params::repr)
        .def(py::self == py::self)
        .def(py::self != py::self)
        .def(py::pickle(
            [](const bsid::channel_params& c) {
                return py::make_tuple(c.Pi(), c.Pd(), c.Ps());
            },
            [](const py::tuple& t) {
                return bsid::channel_params(
                    t[0].cast<double>(), t[1].cast<double>(), t[2].cast<double>());
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
Time-varying inner code: P books of q distinct n-bit codewords, used
cyclically (C_i = books[i mod P]); the most significant bit is sent first.

    codebook(n, books)           books: P lists of q ints (or a P x q array)
    codebook.from_spec(spec)     builtin:NAME, file:PATH or PATH,
                                 random:n:q:P:seed, sparse:n:q
    codebook.load(path), .random(n, q, P, seed), .sparse(n, q), .builtin(name)

Invalid codebooks raise ValueError naming the problem.)doc")
        .def(py::init([](int n, const py::object& books) {
                 return bsid::codebook(n, books_from_python(books));
             }),
             "n"_a,
             "books"_a)
        .def_static(
            "load",
            &bsid::codebook::load,
            "path"_a,
            "Reads a codebook file ('#' comments, a line 'n q P', then P lines of q "
            "integers).")
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
                    R"doc(
P books of q distinct random n-bit words. Stable across versions: book b
draws 32-bit words from the Philox4x32-10 stream (seed, 2^63 + b), keeps
the top n bits, and skips repeats until it has q words (docs/random-numbers.md).)doc")
        .def_static(
            "sparse",
            &bsid::codebook::sparse,
            "n"_a,
            "q"_a,
            "The q lowest-weight n-bit words, ties broken by increasing value (P = 1).")
        .def_static("builtin",
                    &bsid::codebook::builtin,
                    "name"_a,
                    "A codebook shipped with the module, e.g. 'ld3-modvec6'.")
        .def_static("builtin_names", &bsid::codebook::builtin_names)
        .def_static("from_spec", &bsid::codebook::from_spec, "spec"_a)
        .def("save", &bsid::codebook::save, "path"_a)
        .def("to_text", &bsid::codebook::to_text)
        .def_property_readonly("n", &bsid::codebook::n)
        .def_property_readonly("q", &bsid::codebook::q)
        .def_property_readonly("P", &bsid::codebook::P)
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
            "Encodes N symbols in [0, q) to nN unpacked bits (uint8), MSB of each "
            "codeword "
            "first.")
        .def("__repr__",
             [](const bsid::codebook& cb) {
                 std::ostringstream os;
                 os << "codebook(n=" << cb.n() << ", q=" << cb.q() << ", P=" << cb.P();
                 if (!cb.spec().empty())
                     os << ", spec='" << cb.spec() << "'";
                 os << ")";
                 return os.str();
             })
        .def(py::self == py::self)
        .def(py::self != py::self)
        .def(py::pickle(
            [](const bsid::codebook& cb) {
                return py::make_tuple(cb.n(), books_to_python(cb), cb.spec());
            },
            [](const py::tuple& t) {
                return bsid::codebook(
                    t[0].cast<int>(), books_from_python(t[1]), t[2].cast<std::string>());
            }));

    // ---------------------------------------------------------------- channel
    py::class_<bsid::channel_emulator>(m, "channel_emulator", R"doc(
The BSID channel as a stream: feed bits in any chunks with process(); the
output equals transmit(ch, all_bits, seed, frame) however the input is split.
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
                auto in = bits_array(bits, "channel_emulator.process: bits");
                std::vector<uint8_t> rx;
                {
                    py::gil_scoped_release nogil;
                    em.process(in.data(), size_t(in.size()), rx);
                }
                return to_numpy(std::move(rx));
            },
            "bits"_a,
            "Passes bits through the channel; returns the received bits (uint8).")
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
            auto in = bits_array(bits, "transmit: bits");
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

Sends one frame of unpacked bits through the BSID channel ch. rx is the
received uint8 bit array; drift (int32) has tau + 1 entries: the drift before
each transmitted bit, then rho - tau. Frame `frame` of `seed` is the same on
any thread and device (Philox4x32-10 stream (seed, frame); frame < 2^63).)doc");
}
