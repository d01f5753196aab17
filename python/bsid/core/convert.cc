/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The conversions of convert.h that are not templates.

#include "convert.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

namespace bsid_py {

py::array int_array(const py::handle& obj, const char* what)
{
    py::array a = py::array::ensure(obj);
    if (!a) {
        throw py::type_error(std::string(what) + " must be an array of integers");
    }
    if (a.ndim() != 1) {
        std::ostringstream os;
        os << what << " must be one-dimensional, got " << a.ndim() << " dimensions";
        throw py::value_error(os.str());
    }
    if (a.size() == 0) {
        return py::array_t<int64_t>(0); // [] arrives as float64; emptiness has no type
    }
    const char kind = a.dtype().kind();
    if (kind != 'i' && kind != 'u' && kind != 'b') {
        throw py::type_error(std::string(what) + " must hold integers, got dtype " +
                             std::string(py::str(a.dtype())));
    }
    return a;
}

py::array_t<uint8_t> bits_array(const py::handle& obj, const char* what)
{
    return letters_array(obj, what, 2);
}

py::array_t<uint8_t> letters_array(const py::handle& obj, const char* what, int alphabet)
{
    py::array a = int_array(obj, what);
    if (a.dtype().kind() == 'b' ||
        (a.dtype().kind() == 'u' && a.dtype().itemsize() == 1)) {
        return py::array_t<uint8_t, py::array::c_style | py::array::forcecast>::ensure(a);
    }
    auto wide =
        py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(a);
    if (!wide) {
        throw py::value_error(std::string(what) +
                              ": values do not fit in 64-bit integers");
    }
    const auto n = wide.size();
    py::array_t<uint8_t> out(n);
    const int64_t* src = wide.data();
    uint8_t* dst = out.mutable_data();
    for (py::ssize_t t = 0; t < n; ++t) {
        if (src[t] < 0 || src[t] >= alphabet) {
            std::ostringstream os;
            os << what << ": value " << src[t] << " at position " << t;
            if (alphabet == 2)
                os << " is not a bit (expected 0 or 1)";
            else
                os << " is not a letter of the alphabet (expected 0 to " << alphabet - 1
                   << ")";
            throw py::value_error(os.str());
        }
        dst[t] = uint8_t(src[t]);
    }
    return out;
}

std::vector<double> substitution_from_python(const py::handle& obj, int alphabet)
{
    if (obj.is_none())
        return {};
    py::array a = py::module_::import("numpy").attr("asarray")(obj);
    if (a.dtype().kind() == 'O' || a.dtype().kind() == 'U' || a.dtype().kind() == 'S')
        throw py::type_error("channel_params: substitution must be an array of numbers");
    auto m = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
    const auto A = py::ssize_t(alphabet);
    if (!m || m.ndim() != 2 || m.shape(0) != A || m.shape(1) != A) {
        std::ostringstream os;
        os << "channel_params: substitution must be an A x A matrix with A = alphabet = "
           << alphabet << ", got shape (";
        for (py::ssize_t k = 0; k < a.ndim(); ++k)
            os << (k ? ", " : "") << a.shape(k);
        os << (a.ndim() == 1 ? ",)" : ")");
        throw py::value_error(os.str());
    }
    return std::vector<double>(m.data(), m.data() + A * A);
}

std::vector<std::vector<bsid::codebook::word_type>>
books_from_python(const py::handle& obj)
{
    std::vector<std::vector<bsid::codebook::word_type>> books;
    if (!py::isinstance<py::sequence>(obj) && !py::isinstance<py::array>(obj)) {
        throw py::type_error("codebook: books must be a list of P lists of q integers");
    }
    size_t b = 0;
    for (py::handle book : obj) {
        if (py::isinstance<py::str>(book) || !py::hasattr(book, "__iter__")) {
            throw py::type_error("codebook: book " + std::to_string(b) +
                                 " is not a list of integers");
        }
        std::vector<bsid::codebook::word_type> words;
        size_t D = 0;
        for (py::handle w : book) {
            if (!py::isinstance<py::int_>(w) && !py::hasattr(w, "__index__")) {
                throw py::type_error("codebook: book " + std::to_string(b) + ", symbol " +
                                     std::to_string(D) + ": " + std::string(py::repr(w)) +
                                     " is not an integer");
            }
            const py::int_ iv(py::reinterpret_borrow<py::object>(w).attr("__index__")());
            if (iv < py::int_(0) || iv > py::int_(0xffffffffLL)) {
                throw py::value_error(
                    "codebook: book " + std::to_string(b) + ", symbol " +
                    std::to_string(D) + ": word " +
                    py::str(static_cast<const py::object&>(iv)).cast<std::string>() +
                    " is not an unsigned 32-bit value");
            }
            words.push_back(bsid::codebook::word_type(iv.cast<unsigned long long>()));
            ++D;
        }
        books.push_back(std::move(words));
        ++b;
    }
    return books;
}

py::list books_to_python(const bsid::codebook& cb)
{
    py::list books;
    for (const auto& book : cb.books()) {
        py::list l;
        for (auto w : book)
            l.append(py::int_(w));
        books.append(l);
    }
    return books;
}

py::array_t<int32_t> rows_of(const std::vector<int32_t>& v, size_t rows, size_t cols)
{
    py::array_t<int32_t> a({ py::ssize_t(rows), py::ssize_t(cols) });
    std::copy(v.begin(), v.begin() + long(rows * cols), a.mutable_data());
    return a;
}

py::tuple range_tuple(const bsid::drift_range& r) { return py::make_tuple(r.lo, r.hi); }

received_frame llrs_from_python(const py::handle& obj)
{
    received_frame f;
    f.soft = true;
    const py::array a = py::array::ensure(obj);
    if (!a)
        throw py::type_error(
            "received LLRs must be a one-dimensional array of real numbers");
    if (a.ndim() != 1) {
        throw py::value_error("received LLRs must be one-dimensional, got " +
                              std::to_string(a.ndim()) + " dimensions");
    }
    const char kind = a.dtype().kind();
    if (a.size() > 0 && (kind == 'i' || kind == 'u' || kind == 'b')) {
        // integers are bits (or hard decisions), not LLRs: decoded as LLRs
        // they would say "nearly sure 1" and "no idea" (0), and decode garbage
        throw py::type_error(
            "received LLRs (input=\"llr\") must be floating-point numbers, got dtype " +
            std::string(py::str(a.dtype())) +
            ": integer items look like bits; decode bits with a decoder of "
            "input=\"bits\", or pass real LLRs as floats (.astype(float))");
    }
    if (a.size() > 0 && kind != 'f') {
        throw py::type_error(
            "received LLRs (input=\"llr\") must be real numbers, got dtype " +
            std::string(py::str(a.dtype())));
    }
    f.llr = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
    return f;
}

received_frame received_from_python(const py::handle& obj, int alphabet)
{
    received_frame f;
    f.alphabet = alphabet;
    py::array a = int_array(obj, "received frame");
    if (a.dtype().kind() == 'b' ||
        (a.dtype().kind() == 'u' && a.dtype().itemsize() == 1)) {
        f.bytes =
            py::array_t<uint8_t, py::array::c_style | py::array::forcecast>::ensure(a);
        return f;
    }
    auto wide =
        py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(a);
    f.owned.resize(size_t(wide.size()));
    for (py::ssize_t t = 0; t < wide.size(); ++t) {
        const int64_t v = wide.data()[t];
        const bool letter = v >= 0 && v < alphabet;
        if (!letter && f.bad.empty()) {
            std::ostringstream os;
            os << "received value " << v << " at position " << t;
            if (alphabet == 2)
                os << " is not a bit (expected 0 or 1)";
            else
                os << " is not a letter of the alphabet (expected 0 to " << alphabet - 1
                   << ")";
            f.bad = os.str();
        }
        // a value outside the alphabet stays outside it (the frame is refused)
        f.owned[size_t(t)] = letter ? uint8_t(v) : uint8_t(std::min(alphabet, 255));
    }
    if (f.owned.empty())
        f.bytes = py::array_t<uint8_t>(0);
    return f;
}

received_frame logprobs_from_python(const py::handle& obj, int alphabet)
{
    const py::array a = py::array::ensure(obj);
    if (!a)
        throw py::type_error("received log-probabilities must be an (L, A) array of real "
                             "numbers");
    const char kind = a.dtype().kind();
    if (a.size() > 0 && kind != 'f') {
        throw py::type_error(
            "received log-probabilities (input=\"logprob\") must be floating-point "
            "numbers, got dtype " +
            std::string(py::str(a.dtype())));
    }
    const bool empty_1d = a.ndim() == 1 && a.size() == 0;
    if (!empty_1d && (a.ndim() != 2 || a.shape(1) != alphabet)) {
        std::ostringstream os;
        os << "received log-probabilities must be an (L, A) array with A = " << alphabet
           << " (one row per received item, one column per letter), got shape (";
        for (py::ssize_t d = 0; d < a.ndim(); ++d)
            os << (d ? ", " : "") << a.shape(d);
        os << (a.ndim() == 1 ? ",)" : ")");
        throw py::value_error(os.str());
    }
    received_frame f;
    f.alphabet = alphabet;
    auto lp = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(
        empty_1d ? py::array_t<double>(std::vector<py::ssize_t>{ 0, alphabet }) : a);
    if (alphabet != 2) {
        f.has_logprob = true;
        f.logprob = lp; // checked by the decoder (find_invalid_item)
        return f;
    }
    // bits: LLRs lp(1) - lp(0), the rows checked first (-inf - -inf is NaN)
    const py::ssize_t L = lp.shape(0);
    py::array_t<double> llr(L);
    const double* src = lp.data();
    double* dst = llr.mutable_data();
    bsid::find_invalid_logprob(src, size_t(L), 2, f.bad);
    for (py::ssize_t t = 0; t < L; ++t)
        dst[t] = src[2 * t + 1] - src[2 * t];
    f.soft = true;
    f.llr = llr;
    return f;
}

std::vector<uint8_t> sync_word_from_python(const py::object& obj, int alphabet)
{
    if (obj.is_none())
        return {};
    if (py::isinstance<py::str>(obj))
        return bsid::parse_sync_word(obj.cast<std::string>(), alphabet);
    const py::array a = letters_array(obj, "sync_word", alphabet);
    const uint8_t* p = static_cast<const uint8_t*>(a.data());
    return std::vector<uint8_t>(p, p + a.size());
}

py::object sync_word_to_python(const std::vector<uint8_t>& w, int alphabet)
{
    if (alphabet == 2) {
        std::string s;
        for (uint8_t b : w)
            s += char('0' + b);
        return py::str(s);
    }
    py::list l;
    for (uint8_t b : w)
        l.append(int(b));
    return std::move(l);
}

received_frame
items_from_python(const py::handle& obj, bsid::input_kind kind, int alphabet)
{
    switch (kind) {
    case bsid::input_kind::llr:
        return llrs_from_python(obj);
    case bsid::input_kind::logprob:
        return logprobs_from_python(obj, alphabet);
    default:
        return received_from_python(obj, alphabet);
    }
}

py::array_t<double, py::array::c_style | py::array::forcecast>
priors_from_python(const py::handle& obj, int N, int q)
{
    // real numbers only: forcecast would take complex values' real parts
    // (and strings or objects their conversions) without a word
    const py::array any = py::array::ensure(obj);
    if (!any) {
        throw py::type_error("priors must be an (N, q) array of real numbers");
    }
    const char kind = any.dtype().kind();
    if (kind != 'f' && kind != 'i' && kind != 'u') {
        throw py::type_error(
            "priors must be an (N, q) array of real numbers, got dtype " +
            std::string(py::str(any.dtype())));
    }
    auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(any);
    if (!a) {
        throw py::type_error("priors must be an (N, q) array of real numbers");
    }
    if (a.ndim() != 2 || a.shape(0) != N || a.shape(1) != q) {
        std::ostringstream os;
        os << "priors must have shape (N, q) = (" << N << ", " << q << "), got (";
        for (py::ssize_t k = 0; k < a.ndim(); ++k)
            os << (k ? ", " : "") << a.shape(k);
        os << (a.ndim() == 1 ? ",)" : ")");
        throw py::value_error(os.str());
    }
    return a;
}

std::vector<int> devices_from_python(const py::object& obj)
{
    if (obj.is_none())
        return {};
    if (py::isinstance<py::str>(obj))
        return bsid::parse_devices(obj.cast<std::string>());
    const std::string err =
        "devices must be None, a string (\"all\", \"0,1\") or a sequence of device "
        "indices";
    // bytes are sequences of small integers: b"0,1" would be devices 48, 44, 49
    if (!py::isinstance<py::sequence>(obj) || py::isinstance<py::bytes>(obj) ||
        PyByteArray_Check(obj.ptr()))
        throw py::type_error(err);
    std::vector<int> out;
    for (const auto& item : py::iter(obj)) {
        if (py::isinstance<py::bool_>(item) || !PyIndex_Check(item.ptr()))
            throw py::type_error(err);
        const py::int_ x = py::reinterpret_steal<py::int_>(PyNumber_Index(item.ptr()));
        if (x < py::int_(0) || x > py::int_(std::numeric_limits<int>::max()))
            throw py::value_error(
                "devices: " +
                py::str(static_cast<const py::object&>(x)).cast<std::string>() +
                " is not a device index (>= 0)");
        out.push_back(x.cast<int>());
    }
    return out; // duplicates: the decoder refuses them (ValueError)
}

std::optional<bsid::drift_range> range_from_python(const py::object& obj,
                                                   const char* name)
{
    if (obj.is_none())
        return std::nullopt;
    const std::string err =
        std::string(name) + " must be None or a pair (lo, hi) of integers";
    if (!py::isinstance<py::sequence>(obj) || py::isinstance<py::str>(obj) ||
        py::len(obj) != 2) {
        throw py::type_error(err);
    }
    // compared as Python integers: a bound beyond 64 bits is "too wide", not a type error
    const py::int_ lo_lim(std::numeric_limits<int>::min()),
        hi_lim(std::numeric_limits<int>::max());
    int v[2];
    const py::sequence seq = obj;
    for (int k = 0; k < 2; ++k) {
        const py::object item = seq[k];
        if (py::isinstance<py::bool_>(item) || !PyIndex_Check(item.ptr()))
            throw py::type_error(err);
        const py::int_ x = py::reinterpret_steal<py::int_>(PyNumber_Index(item.ptr()));
        if (x < lo_lim || x > hi_lim) {
            throw py::value_error(
                std::string(name) + " = (" + std::string(py::str(seq[0])) + ", " +
                std::string(py::str(seq[1])) + ") is too wide: each bound must lie in [" +
                std::to_string(std::numeric_limits<int>::min()) + ", " +
                std::to_string(std::numeric_limits<int>::max()) + "]");
        }
        v[k] = x.cast<int>();
    }
    return bsid::drift_range{ v[0], v[1] };
}

std::optional<bsid::position_weights> start_from_python(const py::object& obj)
{
    if (obj.is_none())
        return std::nullopt;
    const std::string err =
        "start_prior must be None, a dict {position: weight} or a pair "
        "(positions, weights)";
    bsid::position_weights pw;
    auto weight = [&](const py::handle& v) {
        // a number with a float value that is not a bool, a complex or a string
        if (py::isinstance<py::bool_>(v) || PyComplex_Check(v.ptr()) ||
            py::isinstance<py::str>(v) || !py::hasattr(v, "__float__"))
            throw py::type_error("start_prior: weights must be real numbers");
        return v.cast<double>();
    };
    auto position = [&](const py::handle& v) {
        if (py::isinstance<py::bool_>(v) || !PyIndex_Check(v.ptr()))
            throw py::type_error("start_prior: positions must be integers");
        return v.cast<long long>();
    };
    if (py::isinstance<py::dict>(obj)) {
        for (const auto& item : py::reinterpret_borrow<py::dict>(obj)) {
            pw.positions.push_back(position(item.first));
            pw.weights.push_back(weight(item.second));
        }
        return pw;
    }
    if (!py::isinstance<py::sequence>(obj) || py::isinstance<py::str>(obj) ||
        py::len(obj) != 2)
        throw py::type_error(err);
    const py::sequence seq = obj;
    const py::array pos = py::array::ensure(seq[0]), w = py::array::ensure(seq[1]);
    if (!pos || !w || pos.ndim() != 1 || w.ndim() != 1)
        throw py::type_error(err);
    if (pos.size() > 0 && pos.dtype().kind() != 'i' && pos.dtype().kind() != 'u')
        throw py::type_error("start_prior: positions must be integers, got dtype " +
                             std::string(py::str(pos.dtype())));
    if (w.size() > 0 && w.dtype().kind() != 'f' && w.dtype().kind() != 'i' &&
        w.dtype().kind() != 'u')
        throw py::type_error("start_prior: weights must be real numbers, got dtype " +
                             std::string(py::str(w.dtype())));
    const auto p64 =
        py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(pos);
    const auto wd =
        py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(w);
    pw.positions.assign(p64.data(), p64.data() + p64.size());
    pw.weights.assign(wd.data(), wd.data() + wd.size());
    return pw;
}

} // namespace bsid_py
