/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "bindings.h"
#include <gnuradio/bsid/core/outer/ldpc_code.h>
#include <gnuradio/bsid/core/outer/ldpc_decoder.h>
#include <gnuradio/bsid/core/outer/symbol_mapping.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <sstream>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace py::literals;

namespace {

using dense_f64 = py::array_t<double, py::array::c_style | py::array::forcecast>;

// Symbols as int32 values, checked to be integers (not floats or booleans).
std::vector<int32_t>
symbols_from_python(const py::handle& obj, size_t count, const char* what)
{
    const py::array any = py::array::ensure(obj);
    if (!any ||
        (any.size() > 0 && any.dtype().kind() != 'i' && any.dtype().kind() != 'u')) {
        throw py::type_error(std::string(what) + " must be an array of integer symbols");
    }
    auto a = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(any);
    if (a.ndim() != 1 || size_t(a.size()) != count) {
        throw py::value_error(std::string(what) + " must hold " + std::to_string(count) +
                              " symbols in one dimension, got " +
                              std::to_string(a.size()));
    }
    std::vector<int32_t> v(count);
    for (size_t t = 0; t < count; ++t) {
        const int64_t x = a.data()[t];
        if (x < 0 || x > INT32_MAX)
            throw py::value_error(std::string(what) + "[" + std::to_string(t) +
                                  "] = " + std::to_string(x) + " is not a symbol");
        v[t] = int32_t(x);
    }
    return v;
}

// Real-valued arrays of shape (rows, q) or (words, rows, q).
dense_f64 rows_from_python(const py::handle& obj, int rows, int q, const char* what)
{
    const py::array any = py::array::ensure(obj);
    if (!any || (any.dtype().kind() != 'f' && any.dtype().kind() != 'i' &&
                 any.dtype().kind() != 'u')) {
        throw py::type_error(std::string(what) + " must be an array of real numbers");
    }
    dense_f64 a = dense_f64::ensure(any);
    const bool ok = (a.ndim() == 2 && a.shape(0) == rows && a.shape(1) == q) ||
                    (a.ndim() == 3 && a.shape(1) == rows && a.shape(2) == q);
    if (!ok) {
        std::ostringstream os;
        os << what << " must have shape (" << rows << ", " << q << ") or (words, " << rows
           << ", " << q << "), got (";
        for (py::ssize_t k = 0; k < a.ndim(); ++k)
            os << (k ? ", " : "") << a.shape(k);
        os << ")";
        throw py::value_error(os.str());
    }
    return a;
}

py::array_t<int32_t> int32_array(const std::vector<int32_t>& v)
{
    py::array_t<int32_t> a(py::ssize_t(v.size()));
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}

} // namespace

void bind_ldpc(py::module_& m)
{
    py::class_<bsid::ldpc_code>(m, "ldpc_code", R"doc(
An LDPC code over GF(q), q = 2^1 .. 2^8: its sparse parity-check matrix H
(M checks by n symbols) and a systematic encoder derived once by Gaussian
elimination (docs/concatenated.md).

    code = ldpc_code.from_spec("ldpc-regular:1000:125:16:3:1")  # n:M:q:wc:seed
    code = ldpc_code.read_alist("H.alist")                     # or ldpc:H.alist
    c = code.encode(info)         # k symbols in, n out; code.is_codeword(c)

Elements are integers whose bits are polynomial coefficients over the
primitive polynomials of docs/concatenated.md; the alist format (binary, or
non-binary with coefficients) is documented there.)doc")
        .def(py::init([](int q,
                         int n,
                         int M,
                         const py::object& rows,
                         const py::object& cols,
                         const py::object& coefs,
                         bool allow_dependent_rows) {
                 auto r = symbols_from_python(rows, py::len(rows), "rows");
                 auto c = symbols_from_python(cols, py::len(cols), "cols");
                 if (c.size() != r.size())
                     throw py::value_error("rows and cols must have the same length");
                 std::vector<int32_t> h(r.size(), 1);
                 if (!coefs.is_none())
                     h = symbols_from_python(coefs, r.size(), "coefs");
                 std::vector<bsid::ldpc_code::entry> e(r.size());
                 for (size_t t = 0; t < r.size(); ++t)
                     e[t] = { r[t], c[t], h[t] };
                 return bsid::ldpc_code(q, n, M, std::move(e), allow_dependent_rows);
             }),
             "q"_a,
             "n"_a,
             "M"_a,
             "rows"_a,
             "cols"_a,
             "coefs"_a = py::none(),
             py::kw_only(),
             "allow_dependent_rows"_a = false,
             "H from its nonzero entries H[rows[t], cols[t]] = coefs[t] (1 if None).")
        .def_static("read_alist",
                    &bsid::ldpc_code::read_alist,
                    "path"_a,
                    py::kw_only(),
                    "allow_dependent_rows"_a = false)
        .def_static("parse_alist",
                    &bsid::ldpc_code::parse_alist,
                    "text"_a,
                    py::kw_only(),
                    "allow_dependent_rows"_a = false)
        .def_static("regular",
                    &bsid::ldpc_code::regular,
                    "n"_a,
                    "M"_a,
                    "q"_a,
                    "column_weight"_a,
                    "seed"_a,
                    "A regular code with no length-4 cycle, of full rank (seeded).")
        .def_static(
            "peg",
            [](int n, int M, int q, const py::object& degrees, uint64_t seed) {
                std::vector<bsid::ldpc_degree> d;
                if (py::isinstance<py::str>(degrees)) {
                    d = bsid::parse_degrees(degrees.cast<std::string>());
                } else {
                    for (const auto& item : degrees.cast<py::dict>())
                        d.push_back(
                            { item.first.cast<int>(), item.second.cast<double>() });
                }
                return bsid::ldpc_code::peg(n, M, q, d, seed);
            },
            "n"_a,
            "M"_a,
            "q"_a,
            "degrees"_a,
            "seed"_a,
            R"doc(
An irregular code by progressive edge growth (Hu, Eleftheriou and Arnold 2005):
degrees maps each column degree to the fraction of the n columns that have it
({2: 0.5, 3: 0.3, 8: 0.2}, or the text '2=0.5,3=0.3,8=0.2'); coefficients uniform
over 1 .. q-1; of full rank (seeded). Spec: ldpc-peg:n:M:q:DEGREES:seed.)doc")
        .def_static("from_spec",
                    &bsid::ldpc_code::from_spec,
                    "spec"_a,
                    "'ldpc:PATH' (alist), 'ldpc-regular:n:M:q:wc:seed' or "
                    "'ldpc-peg:n:M:q:DEGREES:seed'.")
        .def("alist", &bsid::ldpc_code::alist)
        .def("write_alist", &bsid::ldpc_code::write_alist, "path"_a)
        .def_property_readonly("q", &bsid::ldpc_code::q)
        .def_property_readonly("n", &bsid::ldpc_code::n)
        .def_property_readonly("M", &bsid::ldpc_code::M)
        .def_property_readonly("k", &bsid::ldpc_code::k)
        .def_property_readonly("rank", &bsid::ldpc_code::rank)
        .def_property_readonly("rate", &bsid::ldpc_code::rate)
        .def_property_readonly("spec", &bsid::ldpc_code::spec)
        .def_property_readonly(
            "info_positions",
            [](const bsid::ldpc_code& c) { return int32_array(c.info_positions()); },
            "The k positions of the information symbols in a codeword.")
        .def(
            "H",
            [](const bsid::ldpc_code& c) {
                py::array_t<int32_t> h({ py::ssize_t(c.M()), py::ssize_t(c.n()) });
                std::fill(h.mutable_data(), h.mutable_data() + h.size(), 0);
                for (const auto& e : c.entries())
                    h.mutable_data()[size_t(e.row) * size_t(c.n()) + size_t(e.col)] =
                        e.coef;
                return h;
            },
            "The parity-check matrix as a dense (M, n) int32 array.")
        .def(
            "encode",
            [](const bsid::ldpc_code& c, const py::object& info) {
                const auto u = symbols_from_python(info, size_t(c.k()), "info");
                std::vector<int32_t> w(size_t(c.n()));
                c.encode(u.data(), w.data());
                return int32_array(w);
            },
            "info"_a,
            "The codeword (n symbols) of k information symbols.")
        .def(
            "extract",
            [](const bsid::ldpc_code& c, const py::object& word) {
                const auto w = symbols_from_python(word, size_t(c.n()), "word");
                std::vector<int32_t> u(size_t(c.k()));
                c.extract(w.data(), u.data());
                return int32_array(u);
            },
            "word"_a)
        .def(
            "unsatisfied",
            [](const bsid::ldpc_code& c, const py::object& word) {
                const auto w = symbols_from_python(word, size_t(c.n()), "word");
                for (size_t t = 0; t < w.size(); ++t) {
                    if (w[t] >= c.q())
                        throw py::value_error("word[" + std::to_string(t) +
                                              "] is not an element of GF(q)");
                }
                return c.unsatisfied(w.data());
            },
            "word"_a,
            "The number of checks the word does not satisfy.")
        .def(
            "is_codeword",
            [](const bsid::ldpc_code& c, const py::object& word) {
                const auto w = symbols_from_python(word, size_t(c.n()), "word");
                for (int32_t x : w) {
                    if (x >= c.q())
                        return false;
                }
                return c.is_codeword(w.data());
            },
            "word"_a)
        .def("__repr__", [](const bsid::ldpc_code& c) {
            std::ostringstream os;
            os << "ldpc_code(q=" << c.q() << ", n=" << c.n() << ", M=" << c.M()
               << ", k=" << c.k() << ", rate=" << c.rate() << ", spec='" << c.spec()
               << "')";
            return os.str();
        });

    py::class_<bsid::ldpc_decoder, std::unique_ptr<bsid::ldpc_decoder>>(
        m, "ldpc_decoder", R"doc(
Belief propagation over GF(q) for an ldpc_code, soft in and soft out
(docs/concatenated.md): log-domain variable nodes, Walsh-Hadamard check
nodes, flooding, early stop on a satisfied syndrome.

    bp = ldpc_decoder(code, threads=0, backend="cpu", precision="double")
    r = bp.decode(log_probs, max_iterations=50)
    # r: post, ext ((n, q) or (words, n, q) normalized log-probabilities),
    #    decisions, iterations, syndrome_ok

An input whose own hard decisions already form a codeword passes no message:
iterations 0, post is the input (normalized) and ext is uniform.
)doc")
        .def(py::init([](const bsid::ldpc_code& code,
                         int threads,
                         const std::string& backend,
                         const std::string& precision,
                         int device) {
                 bsid::bp_config cfg;
                 cfg.backend = bsid::parse_backend(backend);
                 cfg.precision = bsid::parse_precision(precision);
                 cfg.threads = threads;
                 cfg.device = device;
                 return bsid::ldpc_decoder::make(code, cfg);
             }),
             "code"_a,
             "threads"_a = 0,
             py::kw_only(),
             "backend"_a = "cpu",
             "precision"_a = "double",
             "device"_a = 0,
             py::keep_alive<1, 2>())
        .def(
            "decode",
            [](bsid::ldpc_decoder& d, const py::object& in, int max_iterations) {
                const int n = d.code().n(), q = d.code().q();
                dense_f64 a = rows_from_python(in, n, q, "log_probs");
                const bool many = a.ndim() == 3;
                const size_t W = many ? size_t(a.shape(0)) : 1,
                             NQ = size_t(n) * size_t(q);
                std::vector<py::ssize_t> shape{ py::ssize_t(n), py::ssize_t(q) };
                std::vector<py::ssize_t> dshape{ py::ssize_t(n) };
                if (many) {
                    shape.insert(shape.begin(), py::ssize_t(W));
                    dshape.insert(dshape.begin(), py::ssize_t(W));
                }
                py::array_t<double> post(shape), ext(shape);
                py::array_t<int32_t> dec(dshape);
                std::vector<const double*> pin(W);
                std::vector<double*> ppost(W), pext(W);
                std::vector<int32_t*> pdec(W);
                for (size_t j = 0; j < W; ++j) {
                    pin[j] = a.data() + j * NQ;
                    ppost[j] = post.mutable_data() + j * NQ;
                    pext[j] = ext.mutable_data() + j * NQ;
                    pdec[j] = dec.mutable_data() + j * size_t(n);
                }
                std::vector<bsid::bp_result> r;
                {
                    py::gil_scoped_release nogil;
                    r = d.decode_batch(pin, max_iterations, ppost, pext, pdec);
                }
                py::dict out;
                out["post"] = post;
                out["ext"] = ext;
                out["decisions"] = dec;
                if (many) {
                    py::array_t<int32_t> it(static_cast<py::ssize_t>(W));
                    py::array_t<bool> ok(static_cast<py::ssize_t>(W));
                    for (size_t j = 0; j < W; ++j) {
                        it.mutable_data()[j] = r[j].iterations;
                        ok.mutable_data()[j] = r[j].syndrome_ok;
                    }
                    out["iterations"] = it;
                    out["syndrome_ok"] = ok;
                } else {
                    out["iterations"] = r[0].iterations;
                    out["syndrome_ok"] = r[0].syndrome_ok;
                }
                return out;
            },
            "log_probs"_a,
            "max_iterations"_a = 50,
            "Decodes one word ((n, q) log-probabilities) or many ((words, n, q)).")
        .def_property_readonly("code", &bsid::ldpc_decoder::code)
        .def_property_readonly(
            "backend",
            [](const bsid::ldpc_decoder& d) { return bsid::to_string(d.backend()); })
        .def_property_readonly("precision", [](const bsid::ldpc_decoder& d) {
            return bsid::to_string(d.config().precision);
        });

    py::class_<bsid::symbol_mapping>(m, "symbol_mapping", R"doc(
How an outer codeword's n symbols over GF(q_outer) become N inner symbols of
q_inner values: one for one when the sizes agree, otherwise through bits (MSB
first, zero pad bits at the end), with probabilities passed as bit marginals
(docs/concatenated.md, "Symbol mapping").)doc")
        .def(py::init<int, int, int>(), "q_outer"_a, "n_outer"_a, "q_inner"_a)
        .def_property_readonly("n_inner", &bsid::symbol_mapping::n_inner)
        .def_property_readonly("pad_bits", &bsid::symbol_mapping::pad_bits)
        .def_property_readonly("identity", &bsid::symbol_mapping::identity)
        .def(
            "to_inner",
            [](const bsid::symbol_mapping& s, const py::object& outer) {
                const auto o = symbols_from_python(outer, size_t(s.n_outer()), "outer");
                for (size_t t = 0; t < o.size(); ++t) {
                    if (o[t] >= s.q_outer())
                        throw py::value_error("outer[" + std::to_string(t) +
                                              "] is not below q_outer");
                }
                std::vector<int32_t> in(size_t(s.n_inner()));
                s.to_inner(o.data(), in.data());
                return int32_array(in);
            },
            "outer"_a)
        .def(
            "inner_to_outer",
            [](const bsid::symbol_mapping& s, const py::object& p) {
                dense_f64 a = rows_from_python(p, s.n_inner(), s.q_inner(), "inner");
                if (a.ndim() != 2)
                    throw py::value_error("inner must be one (N, q_inner) array");
                py::array_t<double> o({ s.n_outer(), s.q_outer() });
                s.inner_to_outer(a.data(), o.mutable_data());
                return o;
            },
            "inner_probabilities"_a,
            "Inner probabilities (N, q_inner) to outer log-probabilities (n, q_outer).")
        .def(
            "outer_to_inner",
            [](const bsid::symbol_mapping& s, const py::object& l) {
                dense_f64 a = rows_from_python(l, s.n_outer(), s.q_outer(), "outer");
                if (a.ndim() != 2)
                    throw py::value_error("outer must be one (n, q_outer) array");
                py::array_t<double> o({ s.n_inner(), s.q_inner() });
                s.outer_to_inner(a.data(), o.mutable_data());
                return o;
            },
            "outer_log_probabilities"_a,
            "Outer log-probabilities (n, q_outer) to inner log-priors (N, q_inner).");
}
