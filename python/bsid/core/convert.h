/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Conversions between numpy / Python objects and the core's types, shared by
// the core module's bindings (bsid_core_python.cc and bind_*.cc). The
// functions that are not templates are defined in convert.cc.

#ifndef INCLUDED_BSID_PYTHON_CONVERT_H
#define INCLUDED_BSID_PYTHON_CONVERT_H

#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/channel/channel_params.h>
#include <gnuradio/bsid/core/estimation/channel_estimator.h>
#include <gnuradio/bsid/core/framing/setup_watch.h>
#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/inner/drift_limits.h>
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/runtime/errors.h>
#include <gnuradio/bsid/core/runtime/log.h>
#include <gnuradio/bsid/core/sim/concatenated_counter.h>
#include <gnuradio/bsid/core/sim/error_counter.h>
#include <gnuradio/bsid/core/sim/frame_source.h>

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>

namespace bsid_py {

namespace py = pybind11;

// Moves a std::vector into a 1-D numpy array without copying.
template <typename T>
py::array_t<T> to_numpy(std::vector<T>&& v)
{
    auto* heap = new std::vector<T>(std::move(v));
    py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<T>*>(p); });
    return py::array_t<T>({ heap->size() }, { sizeof(T) }, heap->data(), owner);
}

// A 1-D integer array from any array-like; refuses floats and other kinds
// rather than truncating them.
py::array int_array(const py::handle& obj, const char* what);

// Unpacked bits (uint8 0/1) from any integer array-like. Values are checked
// before narrowing, so 257 is refused rather than read as 1.
py::array_t<uint8_t> bits_array(const py::handle& obj, const char* what);

// The same for letters of an alphabet of A (uint8 in [0, A)); a uint8 or bool
// array passes unchecked (the core checks it).
py::array_t<uint8_t> letters_array(const py::handle& obj, const char* what, int alphabet);

std::vector<std::vector<bsid::codebook::word_type>>
books_from_python(const py::handle& obj);

// A channel's substitution matrix from None (empty: uniform substitutions)
// or an A x A array-like of probabilities, row-major; ValueError for another
// shape.
std::vector<double> substitution_from_python(const py::handle& obj, int alphabet);

py::list books_to_python(const bsid::codebook& cb);

// rows x cols values as a (rows, cols) array (a copy).
py::array_t<int32_t> rows_of(const std::vector<int32_t>& v, size_t rows, size_t cols);

py::tuple range_tuple(const bsid::drift_range& r);


// A received frame as bytes for the decoder. Values other than 0 and 1 are
// not an exception here: the decoder refuses such a frame with its status.
struct received_frame {
    py::array_t<uint8_t> bytes; // when the input was already bytes
    std::vector<uint8_t> owned; // otherwise
    std::string bad;            // a value that is not a letter, described
    bool soft = false;          // LLRs (input="llr", or "logprob" over bits)
    py::array_t<double, py::array::c_style | py::array::forcecast> llr;
    // input="logprob" over A > 2 letters: (L, A) log-probabilities (a
    // default array_t is an empty array, not None: hence the flag)
    bool has_logprob = false;
    py::array_t<double, py::array::c_style | py::array::forcecast> logprob;
    int alphabet = 2;
    const uint8_t* data() const
    {
        return owned.empty() && bytes ? bytes.data() : owned.data();
    }
    size_t size() const
    {
        if (has_logprob)
            return size_t(logprob.shape(0));
        if (soft)
            return size_t(llr.size());
        return owned.empty() && bytes ? size_t(bytes.size()) : owned.size();
    }
    bsid::received_items items() const
    {
        if (has_logprob)
            return { nullptr, nullptr, alphabet, logprob.data() };
        if (soft)
            return { nullptr, llr.data(), alphabet };
        return { data(), nullptr, alphabet };
    }
};

// LLRs (float64) from a one-dimensional array of real numbers: float32 and
// float64 as they are (GNU Radio's float items), integers converted. NaN is
// not refused here: the decoder gives that frame the status invalid_input.
received_frame llrs_from_python(const py::handle& obj);

// Letters of an alphabet of A (bits: A = 2), one per item; a value outside
// the alphabet is described in `bad` (the frame is then invalid_input).
received_frame received_from_python(const py::handle& obj, int alphabet = 2);

/*
 * Soft items over A letters (input="logprob"): an (L, A) array of real
 * numbers, ln p(r | y) up to a constant per row (-inf: impossible). Over
 * bits (A = 2) they become LLRs, lp(1) - lp(0) (the LLR path); a NaN or +inf
 * value, or a row of -inf only, is described in `bad`.
 */
received_frame logprobs_from_python(const py::handle& obj, int alphabet);

/*
 * A sync word from Python over an alphabet of A letters: text
 * (parse_sync_word: "0110", "ACGT", "0,5,2") or a sequence of integers, each
 * a letter in [0, A).
 */
std::vector<uint8_t> sync_word_from_python(const py::object& obj, int alphabet);

// A sync word as Python shows it: text "0110..." for bits (as given), a
// list of ints over more letters.
py::object sync_word_to_python(const std::vector<uint8_t>& w, int alphabet);

// What a decoder of input kind `kind` over `alphabet` takes (one of the above).
received_frame
items_from_python(const py::handle& obj, bsid::input_kind kind, int alphabet);

// Priors as a C-contiguous (N, q) float64 array, shape checked.
py::array_t<double, py::array::c_style | py::array::forcecast>
priors_from_python(const py::handle& obj, int N, int q);

// A refused frame, raised in Python as bsid.FrameRefused (a ValueError).
struct frame_refused : std::runtime_error {
    std::string status;
    frame_refused(const bsid::frame_result& r)
        : std::runtime_error(r.reason), status(bsid::to_string(r.status))
    {
    }
};

// devices=: None or "" (the one `device`), "all", "0,1" (parse_devices), or a
// sequence of indices
std::vector<int> devices_from_python(const py::object& obj);

std::optional<bsid::drift_range> range_from_python(const py::object& obj,
                                                   const char* name);

// A start prior from Python: None, a dict {position: weight}, or a pair
// (positions, weights) of array-likes.
std::optional<bsid::position_weights> start_from_python(const py::object& obj);

// One frame decode's outputs, as numpy arrays.
struct py_frame_result {
    bsid::frame_decode_result r;
    int N = 0, q = 0;
};

template <typename T>
py::array_t<T> to_numpy(const std::vector<T>& v)
{
    py::array_t<T> a(py::ssize_t(v.size()));
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}


} // namespace bsid_py

#endif /* INCLUDED_BSID_PYTHON_CONVERT_H */
