/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bsid_core: Python bindings of lib/core (docs/design.md section 2). numpy in and
// out; std::invalid_argument becomes ValueError and bsid::io_error OSError.

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

#include "ldpc_python.h"
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>

namespace py = pybind11;
using namespace py::literals;

namespace {

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

// Unpacked bits (uint8 0/1) from any integer array-like. Values are checked
// before narrowing, so 257 is refused rather than read as 1.
py::array_t<uint8_t> bits_array(const py::handle& obj, const char* what)
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
        if (src[t] != 0 && src[t] != 1) {
            std::ostringstream os;
            os << what << ": value " << src[t] << " at position " << t
               << " is not a bit (expected 0 or 1)";
            throw py::value_error(os.str());
        }
        dst[t] = uint8_t(src[t]);
    }
    return out;
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

// rows x cols values as a (rows, cols) array (a copy).
py::array_t<int32_t> rows_of(const std::vector<int32_t>& v, size_t rows, size_t cols)
{
    py::array_t<int32_t> a({ py::ssize_t(rows), py::ssize_t(cols) });
    std::copy(v.begin(), v.begin() + long(rows * cols), a.mutable_data());
    return a;
}

py::tuple range_tuple(const bsid::drift_range& r) { return py::make_tuple(r.lo, r.hi); }


// A received frame as bytes for the decoder. Values other than 0 and 1 are
// not an exception here: the decoder refuses such a frame with its status.
struct received_frame {
    py::array_t<uint8_t> bytes; // when the input was already bytes
    std::vector<uint8_t> owned; // otherwise
    std::string bad;            // a value that does not fit in a byte, described
    bool soft = false;          // LLRs (input="llr") instead of bits
    py::array_t<double, py::array::c_style | py::array::forcecast> llr;
    const uint8_t* data() const
    {
        return owned.empty() && bytes ? bytes.data() : owned.data();
    }
    size_t size() const
    {
        if (soft)
            return size_t(llr.size());
        return owned.empty() && bytes ? size_t(bytes.size()) : owned.size();
    }
    bsid::received_items items() const
    {
        if (soft)
            return { nullptr, llr.data() };
        return { data(), nullptr };
    }
};

// LLRs (float64) from a one-dimensional array of real numbers: float32 and
// float64 as they are (GNU Radio's float items), integers converted. NaN is
// not refused here: the decoder gives that frame the status invalid_input.
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

received_frame received_from_python(const py::handle& obj)
{
    received_frame f;
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
        if ((v < 0 || v > 1) && f.bad.empty()) {
            std::ostringstream os;
            os << "received value " << v << " at position " << t
               << " is not a bit (expected 0 or 1)";
            f.bad = os.str();
        }
        f.owned[size_t(t)] = v == 0 ? 0 : v == 1 ? 1 : 2;
    }
    if (f.owned.empty())
        f.bytes = py::array_t<uint8_t>(0);
    return f;
}

// Priors as a C-contiguous (N, q) float64 array, shape checked.
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

// A start prior from Python: None, a dict {position: weight}, or a pair
// (positions, weights) of array-likes.
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

// The Python-facing decoder: a bsid::map_decoder plus numpy conversions.
class py_map_decoder
{
public:
    py_map_decoder(const bsid::codebook& cb,
                   const bsid::channel_params& ch,
                   int N,
                   const std::string& backend,
                   const std::string& precision,
                   const std::string& storage,
                   double Pr,
                   const py::object& mtau,
                   const py::object& mn,
                   int threads,
                   int device,
                   const std::string& recursion,
                   int local_window,
                   const std::string& sync_word,
                   const std::string& input,
                   int cuda_streams,
                   const py::object& devices,
                   bool share_g)
        : d_input(bsid::parse_input_kind(input))
    {
        bsid::decoder_config cfg(cb, ch, N);
        cfg.backend = bsid::parse_backend(backend);
        cfg.precision = bsid::parse_precision(precision);
        cfg.storage = bsid::parse_storage(storage);
        cfg.Pr = Pr;
        cfg.mtau = range_from_python(mtau, "mtau");
        cfg.mn = range_from_python(mn, "mn");
        cfg.threads = threads;
        cfg.cuda.device = device;
        cfg.cuda.recursion = bsid::parse_recursion(recursion);
        cfg.cuda.local_window = local_window;
        cfg.cuda.streams = cuda_streams;
        cfg.cuda.devices = devices_from_python(devices);
        cfg.cuda.share_g = share_g;
        d_frames =
            std::make_shared<bsid::frame_decoder>(cfg, bsid::parse_sync_word(sync_word));
        d_dec = &d_frames->primary();
        d_sync = sync_word;
        d_watch.emplace("map_decoder_core",
                        (long long)d_frames->sync_word().size() + d_frames->tau(),
                        N,
                        cb.n(),
                        ch);
    }

    const bsid::setup_watch& watch() const { return *d_watch; }

    // frames of known boundaries, decoded: does N fit them? (setup_watch)
    void watch_lengths(const std::vector<bsid::frame_view>& views,
                       const std::vector<bsid::frame_result>& results)
    {
        for (size_t k = 0; k < views.size(); ++k)
            if (results[k].ok())
                d_watch->add_received_length(views[k].rho);
    }

    const std::string& sync_word() const { return d_sync; }
    bsid::input_kind input() const { return d_input; }
    bsid::frame_decoder& frames() { return *d_frames; }

    // a received frame as this decoder takes it: bits, or LLRs (input="llr")
    received_frame received(const py::handle& obj) const
    {
        return d_input == bsid::input_kind::llr ? llrs_from_python(obj)
                                                : received_from_python(obj);
    }
    std::shared_ptr<bsid::frame_decoder> shared_frames() const { return d_frames; }

    // priors or log_priors (not both): which one, as an object, and whether it is logs
    static std::pair<py::object, bool> pick_priors(const py::object& priors,
                                                   const py::object& log_priors)
    {
        if (!priors.is_none() && !log_priors.is_none()) {
            throw py::value_error("give priors or log_priors, not both");
        }
        return log_priors.is_none() ? std::make_pair(priors, false)
                                    : std::make_pair(log_priors, true);
    }

    py::array_t<double> decode(const py::object& rx,
                               const py::object& priors_in,
                               const py::object& log_priors,
                               bool extrinsic)
    {
        const auto [priors, is_log] = pick_priors(priors_in, log_priors);
        const auto f = received(rx);
        std::optional<py::array_t<double, py::array::c_style | py::array::forcecast>> pri;
        if (!priors.is_none())
            pri = priors_from_python(priors, d_dec->N(), d_dec->q());
        if (!f.bad.empty()) {
            throw frame_refused({ bsid::frame_status::invalid_input, f.bad });
        }
        py::array_t<double> post({ d_dec->N(), d_dec->q() });
        bsid::frame_view view = view_of(f, pri ? pri->data() : nullptr, is_log);
        view.extrinsic = extrinsic;
        double* out = post.mutable_data();
        bsid::frame_result r;
        {
            py::gil_scoped_release nogil;
            r = d_frames->decode_batch({ view }, { out })[0];
        }
        watch_lengths({ view }, { r });
        if (r.status == bsid::frame_status::decoder_error)
            throw std::runtime_error(r.reason);
        if (!r.ok())
            throw frame_refused(r);
        return post;
    }

    py::object decode_batch(const py::sequence& frames,
                            const py::object& priors_in,
                            bool statuses,
                            const py::object& log_priors,
                            bool extrinsic)
    {
        const auto [priors, is_log] = pick_priors(priors_in, log_priors);
        const size_t K = size_t(py::len(frames));
        std::vector<received_frame> rx;
        rx.reserve(K);
        for (const auto& fr : frames)
            rx.push_back(received(fr));
        // priors: None, one (N, q) array for every frame, or a list with one entry per
        // frame
        std::vector<
            std::optional<py::array_t<double, py::array::c_style | py::array::forcecast>>>
            pri(K);
        if (!priors.is_none()) {
            const bool per_frame =
                py::isinstance<py::list>(priors) || py::isinstance<py::tuple>(priors);
            if (per_frame) {
                if (size_t(py::len(priors)) != K) {
                    throw py::value_error(
                        "decode_batch: priors has " + std::to_string(py::len(priors)) +
                        " entries for " + std::to_string(K) + " frames");
                }
                size_t k = 0;
                for (const auto& p : priors) {
                    if (!p.is_none())
                        pri[k] = priors_from_python(p, d_dec->N(), d_dec->q());
                    ++k;
                }
            } else {
                const auto shared = priors_from_python(priors, d_dec->N(), d_dec->q());
                for (auto& p : pri)
                    p = shared;
            }
        }
        std::vector<py::array_t<double>> outs;
        std::vector<bsid::frame_view> views;
        std::vector<double*> ptrs;
        std::vector<size_t> index; // frames that reach the decoder
        std::vector<bsid::frame_result> results(K);
        for (size_t k = 0; k < K; ++k) {
            outs.emplace_back(std::vector<py::ssize_t>{ d_dec->N(), d_dec->q() });
            if (!rx[k].bad.empty()) {
                results[k] = { bsid::frame_status::invalid_input, rx[k].bad };
                continue;
            }
            views.push_back(view_of(rx[k], pri[k] ? pri[k]->data() : nullptr, is_log));
            views.back().extrinsic = extrinsic;
            ptrs.push_back(outs[k].mutable_data());
            index.push_back(k);
        }
        std::vector<bsid::frame_result> decoded;
        {
            py::gil_scoped_release nogil;
            decoded = d_frames->decode_batch(views, ptrs);
        }
        watch_lengths(views, decoded);
        for (size_t j = 0; j < index.size(); ++j)
            results[index[j]] = decoded[j];
        py::list posts, stats;
        for (size_t k = 0; k < K; ++k) {
            if (results[k].ok()) {
                posts.append(outs[k]);
            } else {
                posts.append(py::none());
            }
            stats.append(
                py::make_tuple(bsid::to_string(results[k].status), results[k].reason));
        }
        if (statuses)
            return py::make_tuple(posts, stats);
        return std::move(posts);
    }

    // decode_frame / decode_frames: the requests, checked, then decoded without the GIL
    py::list decode_frames(const py::sequence& frames,
                           const py::object& priors_in,
                           const py::object& log_priors,
                           const py::object& start_priors,
                           const std::string& end,
                           int lookahead,
                           double gap,
                           bool random_before)
    {
        const auto [priors, is_log] = pick_priors(priors_in, log_priors);
        const size_t K = size_t(py::len(frames));
        const bsid::end_mode e = bsid::parse_end_mode(end);
        std::vector<received_frame> rx;
        for (const auto& fr : frames)
            rx.push_back(received(fr));
        auto per_frame = [&](const py::object& obj, const char* name) {
            std::vector<py::object> v(K, obj);
            if (py::isinstance<py::list>(obj)) {
                if (size_t(py::len(obj)) != K)
                    throw py::value_error(std::string("decode_frames: ") + name +
                                          " has " + std::to_string(py::len(obj)) +
                                          " entries for " + std::to_string(K) +
                                          " frames");
                for (size_t k = 0; k < K; ++k)
                    v[k] = obj[py::int_(k)];
            }
            return v;
        };
        const auto pri_obj = per_frame(priors, "priors");
        const auto start_obj = per_frame(start_priors, "start_priors");
        std::vector<
            std::optional<py::array_t<double, py::array::c_style | py::array::forcecast>>>
            pri(K);
        std::vector<bsid::frame_request> req(K);
        for (size_t k = 0; k < K; ++k) {
            if (!pri_obj[k].is_none())
                pri[k] = priors_from_python(pri_obj[k], d_dec->N(), d_dec->q());
            const bsid::received_items y = rx[k].items();
            req[k].bits = y.bits;
            req[k].llr = y.llr;
            req[k].L = rx[k].size();
            req[k].priors = pri[k] ? pri[k]->data() : nullptr;
            req[k].log_priors = is_log;
            req[k].start = start_from_python(start_obj[k]);
            req[k].end = e;
            req[k].lookahead = lookahead;
            req[k].gap = gap;
            req[k].random_before = random_before;
        }
        std::vector<bsid::frame_decode_result> got;
        {
            py::gil_scoped_release nogil;
            got = d_frames->decode_batch(req);
        }
        py::list out;
        for (size_t k = 0; k < K; ++k)
            out.append(py_frame_result{ std::move(got[k]), d_dec->N(), d_dec->q() });
        return out;
    }

    py::object decode_frame(const py::object& rx,
                            const py::object& priors,
                            const py::object& log_priors,
                            const py::object& start_prior,
                            const std::string& end,
                            int lookahead,
                            double gap,
                            bool random_before)
    {
        py::list one;
        one.append(rx);
        // one frame: its priors and start prior are not lists of per-frame entries
        auto wrap = [](const py::object& o) {
            if (o.is_none())
                return o;
            py::list l;
            l.append(o);
            return py::object(l);
        };
        return decode_frames(one,
                             wrap(priors),
                             wrap(log_priors),
                             wrap(start_prior),
                             end,
                             lookahead,
                             gap,
                             random_before)[0];
    }

    py::dict limits() const
    {
        py::dict d;
        d["mtau"] = range_tuple(d_frames->limits().mtau);
        d["mn"] = range_tuple(d_frames->limits().mn);
        return d;
    }

    // Decodes a simulated batch and counts its errors (bsid::error_counter),
    // all without the GIL; returns numpy arrays. The counter keeps its buffers
    // between calls, so calls from several Python threads take turns on it
    // (the mutex is taken without the GIL, so that the turns cannot deadlock).
    py::dict count_errors(const bsid::frame_batch& batch, int threads)
    {
        const size_t K = batch.size();
        py::array_t<uint8_t> status(K);
        py::array_t<int32_t> symbol_errors(K), bit_errors(K);
        py::array_t<int32_t> decisions({ py::ssize_t(K), py::ssize_t(d_dec->N()) });
        {
            py::gil_scoped_release nogil;
            std::lock_guard<std::mutex> lock(d_counter_mutex);
            if (!d_counter || d_counter_threads != threads) {
                d_counter = std::make_unique<bsid::error_counter>(*d_frames, threads);
                d_counter_threads = threads;
            }
            const auto& e = d_counter->run(batch);
            for (size_t k = 0; k < K; ++k) {
                status.mutable_data()[k] = uint8_t(e[k].status);
                symbol_errors.mutable_data()[k] = e[k].symbol_errors;
                bit_errors.mutable_data()[k] = e[k].bit_errors;
            }
            std::copy(d_counter->decisions().begin(),
                      d_counter->decisions().end(),
                      decisions.mutable_data());
        }
        py::dict d;
        d["status"] = status;
        d["symbol_errors"] = symbol_errors;
        d["bit_errors"] = bit_errors;
        d["decisions"] = decisions;
        return d;
    }

    const bsid::map_decoder& dec() const { return *d_dec; }

private:
    static bsid::frame_view
    view_of(const received_frame& f, const double* priors, bool log_priors)
    {
        bsid::frame_view v;
        const bsid::received_items y = f.items();
        v.bits = y.bits;
        v.llr = y.llr;
        v.rho = f.size();
        v.priors = priors;
        v.log_priors = log_priors;
        return v;
    }

    bsid::input_kind d_input;
    std::shared_ptr<bsid::frame_decoder> d_frames; // the sync word, boundary priors
    bsid::map_decoder* d_dec = nullptr;            // its primary backend
    std::string d_sync;
    std::mutex d_counter_mutex; // guards d_counter and its buffers
    std::unique_ptr<bsid::error_counter> d_counter;
    int d_counter_threads = -1;
    std::optional<bsid::setup_watch> d_watch; // (set in the constructor)
};

// The Python-facing stream decoder: a bsid::stream_decoder over a
// map_decoder_core's frame decoder (shared: both may be used).
class py_stream_decoder
{
public:
    py_stream_decoder(const py_map_decoder& dec,
                      const py::object& lookahead,
                      const py::object& start,
                      int acquire_window,
                      const py::object& tag_offset,
                      double sync_threshold,
                      bool search,
                      const py::object& sync_word_threshold)
    {
        bsid::stream_options opt;
        if (!lookahead.is_none()) {
            if (py::isinstance<py::bool_>(lookahead) || !PyIndex_Check(lookahead.ptr()))
                throw py::type_error("lookahead must be None (auto) or an integer");
            opt.lookahead = lookahead.cast<int>();
            if (opt.lookahead < 0)
                throw py::value_error("lookahead must not be negative (None: auto)");
        }
        if (start.is_none()) {
            opt.first_start.reset();
        } else if (PyIndex_Check(start.ptr()) && !py::isinstance<py::bool_>(start)) {
            opt.first_start =
                bsid::position_weights{ { start.cast<long long>() }, { 1.0 } };
        } else {
            opt.first_start = start_from_python(start);
        }
        opt.acquire_window = acquire_window;
        if (!tag_offset.is_none()) {
            if (py::isinstance<py::bool_>(tag_offset) || !PyIndex_Check(tag_offset.ptr()))
                throw py::type_error("tag_offset must be None or an integer");
            opt.tag_offset = tag_offset.cast<long long>();
        }
        opt.sync_threshold = sync_threshold;
        opt.search = search;
        if (!sync_word_threshold.is_none()) {
            if (py::isinstance<py::bool_>(sync_word_threshold))
                throw py::type_error(
                    "sync_word_threshold must be None (auto) or a number");
            opt.sync_word_threshold = sync_word_threshold.cast<double>();
            if (std::isnan(opt.sync_word_threshold))
                throw py::value_error(
                    "sync_word_threshold must be a number (None: auto)");
        }
        opt.input = dec.input();
        d_dec = &dec;
        d_N = dec.dec().N();
        d_q = dec.dec().q();
        d_sd = std::make_unique<bsid::stream_decoder>(dec.shared_frames(), opt);
    }

    py::list push(const py::object& bits, const py::object& tags)
    {
        const auto f = d_dec->received(bits);
        std::vector<size_t> at;
        if (!tags.is_none()) {
            const py::array t = int_array(tags, "tags");
            const auto t64 =
                py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(
                    t);
            for (py::ssize_t k = 0; k < t64.size(); ++k) {
                if (t64.data()[k] < 0)
                    throw py::value_error("tags: a position is negative");
                at.push_back(size_t(t64.data()[k]));
            }
        }
        std::vector<bsid::stream_frame> got;
        {
            py::gil_scoped_release nogil;
            got = f.soft ? d_sd->push(f.llr.data(), f.size(), at)
                         : d_sd->push(f.data(), f.size(), at);
        }
        return wrap(std::move(got));
    }

    py::list flush()
    {
        std::vector<bsid::stream_frame> got;
        {
            py::gil_scoped_release nogil;
            got = d_sd->flush();
        }
        return wrap(std::move(got));
    }

    const bsid::stream_decoder& sd() const { return *d_sd; }

    struct frame {
        bsid::stream_frame f;
        int N, q;
    };

private:
    py::list wrap(std::vector<bsid::stream_frame>&& v) const
    {
        py::list out;
        for (auto& f : v)
            out.append(py::cast(frame{ std::move(f), d_N, d_q }));
        return out;
    }

    std::unique_ptr<bsid::stream_decoder> d_sd;
    const py_map_decoder* d_dec = nullptr; // kept alive (keep_alive in the binding)
    int d_N = 0, d_q = 0;
};

} // namespace

// The iterative decoder of a concatenated scheme over a map_decoder_core's
// frame decoder (shared) and a copy of the outer code.
class py_concatenated
{
public:
    py_concatenated(py_map_decoder& inner,
                    const bsid::ldpc_code& code,
                    int iterations,
                    int bp_iterations,
                    int threads,
                    bool device_loop)
        : d_inner(&inner),
          d_frames(inner.shared_frames()),
          d_code(code),
          d_dec(*d_frames, d_code, threads)
    {
        d_opt.iterations = iterations;
        d_opt.bp_iterations = bp_iterations;
        d_opt.device_loop = device_loop;
        if (iterations < 1 || bp_iterations < 1) {
            throw py::value_error(
                "concatenated_decoder: iterations = " + std::to_string(iterations) +
                " and bp_iterations = " + std::to_string(bp_iterations) +
                " must each be at least 1");
        }
    }

    py::list decode(const py::sequence& frames)
    {
        const size_t K = size_t(py::len(frames));
        std::vector<received_frame> rx;
        rx.reserve(K);
        for (size_t k = 0; k < K; ++k)
            rx.push_back(d_inner->received(frames[k]));
        const int n = d_code.n(), qo = d_code.q();
        std::vector<bsid::frame_view> views(K);
        std::vector<std::vector<int32_t>> dec(K, std::vector<int32_t>(size_t(n)));
        std::vector<std::vector<double>> post(K, std::vector<double>(size_t(n) * qo));
        std::vector<int32_t*> pd(K);
        std::vector<double*> pp(K);
        for (size_t k = 0; k < K; ++k) {
            const bsid::received_items y = rx[k].items();
            views[k].bits = y.bits;
            views[k].llr = y.llr;
            views[k].rho = rx[k].size();
            pd[k] = dec[k].data();
            pp[k] = post[k].data();
        }
        std::vector<bsid::concatenated_result> r;
        {
            py::gil_scoped_release nogil;
            std::lock_guard<std::mutex> lock(d_mutex);
            r = d_dec.decode_batch(views, d_opt, pd, pp);
        }
        py::list out;
        for (size_t k = 0; k < K; ++k) {
            py::dict d;
            d["status"] = bsid::to_string(r[k].status);
            d["reason"] = r[k].reason;
            d["iterations"] = r[k].iterations;
            d["bp_iterations"] = r[k].bp_iterations;
            d["syndrome_ok"] = r[k].syndrome_ok;
            std::vector<int32_t> info(size_t(d_code.k()), -1);
            if (r[k].ok())
                d_code.extract(dec[k].data(), info.data());
            d["decisions"] = to_numpy(std::move(dec[k]));
            d["info"] = to_numpy(std::move(info));
            py::array_t<double> p({ n, qo });
            std::copy(post[k].begin(), post[k].end(), p.mutable_data());
            d["posteriors"] = p;
            out.append(d);
        }
        return out;
    }

    py::dict count_errors(const bsid::frame_batch& batch, int threads)
    {
        const size_t K = batch.size();
        const int I = d_opt.iterations;
        py::array_t<uint8_t> status(K), syndrome_ok(K);
        py::array_t<int32_t> symbol_errors(K), bit_errors(K), iterations(K), bp(K);
        py::array_t<uint8_t> wrong({ py::ssize_t(K), py::ssize_t(I) });
        const int kk = d_code.k();
        py::array_t<int32_t> info({ py::ssize_t(K), py::ssize_t(kk) });
        {
            py::gil_scoped_release nogil;
            std::lock_guard<std::mutex> lock(d_mutex);
            if (!d_counter || d_counter_threads != threads) {
                d_counter =
                    std::make_unique<bsid::concatenated_counter>(d_dec, d_opt, threads);
                d_counter_threads = threads;
            }
            const auto& e = d_counter->run(batch);
            for (size_t k = 0; k < K; ++k) {
                status.mutable_data()[k] = uint8_t(e[k].status);
                symbol_errors.mutable_data()[k] = e[k].symbol_errors;
                bit_errors.mutable_data()[k] = e[k].bit_errors;
                iterations.mutable_data()[k] = e[k].iterations;
                bp.mutable_data()[k] = e[k].bp_iterations;
                syndrome_ok.mutable_data()[k] = e[k].syndrome_ok ? 1 : 0;
            }
            std::copy(d_counter->wrong_after().begin(),
                      d_counter->wrong_after().end(),
                      wrong.mutable_data());
            const size_t n = size_t(d_code.n());
            for (size_t k = 0; k < K; ++k) {
                int32_t* to = info.mutable_data() + k * size_t(kk);
                if (e[k].status == bsid::frame_status::ok)
                    d_code.extract(d_counter->decisions().data() + k * n, to);
                else
                    std::fill(to, to + kk, -1);
            }
        }
        py::dict d;
        d["status"] = status;
        d["symbol_errors"] = symbol_errors;
        d["bit_errors"] = bit_errors;
        d["iterations"] = iterations;
        d["bp_iterations"] = bp;
        d["syndrome_ok"] = syndrome_ok;
        d["wrong_after"] = wrong;
        d["info"] = info;
        return d;
    }

    const bsid::ldpc_code& code() const { return d_code; }
    const bsid::concatenated_options& options() const { return d_opt; }
    bool device_loop() const { return d_opt.device_loop && d_dec.has_device_loop(); }
    int N() const { return d_dec.mapping().n_inner(); }

private:
    py_map_decoder* d_inner; // kept alive by the Python object (keep_alive)
    std::shared_ptr<bsid::frame_decoder> d_frames;
    bsid::ldpc_code d_code; // before d_dec, which refers to it
    bsid::concatenated_decoder d_dec;
    bsid::concatenated_options d_opt;
    std::mutex d_mutex; // one batch at a time: the decoder keeps per-call state
    std::unique_ptr<bsid::concatenated_counter> d_counter;
    int d_counter_threads = -1;
};

PYBIND11_MODULE(bsid_core, m)
{
    m.doc() =
        "gr-bsid core: codebooks, the BSID channel, drift limits (no GNU Radio needed).";
    m.attr("__version__") = BSID_VERSION;

    // bsid.FrameRefused: the decoder refused a frame; a ValueError whose
    // .status names why (a name in frame_status_names). A frame the decoder
    // failed on (decoder_error: out of memory, a device error) raises
    // RuntimeError instead.
    static py::handle refused(
        PyErr_NewExceptionWithDoc("bsid_core.FrameRefused",
                                  "A frame the decoder refused; a ValueError with the "
                                  "reason as message and the status "
                                  "name in .status.",
                                  PyExc_ValueError,
                                  nullptr));
    m.attr("FrameRefused") = refused;

    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p)
                std::rethrow_exception(p);
        } catch (const bsid::io_error& e) {
            PyErr_SetString(PyExc_OSError, e.what());
        } catch (const frame_refused& e) {
            py::object inst = py::reinterpret_borrow<py::object>(refused)(e.what());
            inst.attr("status") = e.status;
            PyErr_SetObject(refused.ptr(), inst.ptr());
        }
    });

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

    // ---------------------------------------------------------------- frame decode
    // results
    py::class_<py_frame_result>(m, "frame_decode_result", R"doc(
What map_decoder_core.decode_frame gives (docs/frame_boundaries.md). Positions
index the decoded segment. Unless status is "ok", posteriors are uniform and
the boundary posteriors all 0.)doc")
        .def_property_readonly(
            "posteriors",
            [](const py_frame_result& f) {
                py::array_t<double> a({ f.N, f.q });
                std::copy(f.r.posteriors.begin(), f.r.posteriors.end(), a.mutable_data());
                return a;
            },
            "(N, q) symbol posteriors, rows summing to 1.")
        .def_property_readonly(
            "start_positions",
            [](const py_frame_result& f) { return to_numpy(f.r.start.positions); },
            "The start prior's positions, ascending.")
        .def_property_readonly(
            "start_posterior",
            [](const py_frame_result& f) { return to_numpy(f.r.start.weights); },
            "P(the frame's first transmitted bit is at each start position | rx).")
        .def_property_readonly(
            "end_positions",
            [](const py_frame_result& f) { return to_numpy(f.r.end_positions); },
            "The end positions e (<= L) the state space allows, ascending.")
        .def_property_readonly(
            "end_posterior",
            [](const py_frame_result& f) { return to_numpy(f.r.end_posterior); },
            "lambda(e): P(the frame ends at e | rx).")
        .def_property_readonly(
            "end_forward",
            [](const py_frame_result& f) { return to_numpy(f.r.end_forward); },
            "alpha_end(e): the forward end metric, normalized: the next frame's start "
            "prior.")
        .def_property_readonly(
            "status",
            [](const py_frame_result& f) {
                return std::string(bsid::to_string(f.r.result.status));
            },
            "\"ok\" or why the frame was refused (frame_status_names).")
        .def_property_readonly(
            "reason",
            [](const py_frame_result& f) { return f.r.result.reason; },
            "Why the frame was refused (\"\" when ok).")
        .def_property_readonly(
            "log_evidence",
            [](const py_frame_result& f) { return f.r.log_evidence; },
            "ln Z: the model's total weight over messages, starts and ends, "
            "sum P(D) pi(s) P(rx[s:e] | W || X(D)) T(e) (-inf if refused).")
        .def_property_readonly(
            "log_likelihood_ratio",
            [](const py_frame_result& f) { return f.r.log_likelihood_ratio; },
            "ln sum_s pi(s) P(rx[s:L] | a frame from s) / 2^-(L - s): the evidence "
            "against random bits (stream_decoder's test of synchronization; -inf if "
            "refused).")
        .def("__repr__", [](const py_frame_result& f) {
            return "frame_decode_result(status='" +
                   std::string(bsid::to_string(f.r.result.status)) +
                   "', N=" + std::to_string(f.N) + ", q=" + std::to_string(f.q) +
                   ", starts=" + std::to_string(f.r.start.positions.size()) +
                   ", ends=" + std::to_string(f.r.end_positions.size()) + ")";
        });

    // ---------------------------------------------------------------- decoder
    py::class_<py_map_decoder>(m, "map_decoder_core", R"doc(
The MAP decoder of the paper (forward-backward over the drift), without GNU Radio.

    dec = map_decoder_core(cb, ch, N, backend="auto", precision="float",
                           storage="auto", Pr=1e-10, mtau=None, mn=None, threads=0,
                           device=0, recursion="auto", local_window=0, sync_word="",
                           input="bits", cuda_streams=0, devices=None,
                           share_g=True)
    post = dec.decode(rx)              # uint8 0/1 array in, (N, q) float64 posteriors out
    soft = map_decoder_core(cb, ch, N, input="llr")
    post = soft.decode(llr)            # float LLRs in: ln p(r|1) - ln p(r|0)
    res = dec.decode_frame(rx, start_prior={0: 1, 1: 1}, end="free", lookahead=2)
    post = dec.decode(rx, priors)      # priors: (N, q), rows normalized for you
    post = dec.decode(rx, log_priors=lp)  # natural logs, any constant per row (-inf: 0)
    posts = dec.decode_batch([rx0, rx1, ...])   # None in place of a refused frame

backend: "cpu", "cuda" or "auto"; precision: "float" or "double"; storage:
"global", "local" or "auto". mtau / mn: (lo, hi) to replace the drift limits
computed from Pr; each must hold 0 (lo <= 0 <= hi); mn bounds a drift change
and may be wider than mtau. The CUDA backend's settings: device (its index),
recursion ("auto": one warp per frame for alpha and beta up to 64 states,
blocks beyond, and for small batches in global storage the frame's steps in
segments run side by side; "block": blocks always; "segmented": segments
wherever the shape allows) and local_window (the symbol
indices per local-storage window, as far as the free memory allows; 0: within
192 MiB of the window's metrics), and cuda_streams
(lanes that decode a batch's chunks at once, so that copies and host work
overlap the kernels; 1: one chunk at a time; 0: the default, 2), and devices
(several GPUs in one decoder: "all", "0,1" or a list of indices; each batch
is split among them by received bits, docs/design.md section 5; None or "":
the one device; a device that does not exist is a RuntimeError for
backend "cuda", and backend "auto" then decodes on the CPU), and share_g
(True: the register kernels make the sums G that alpha and beta read once
per book and received position where that saves work, for frames without
priors; False: once per index and state; the values are the same, see
docs/design.md, "G by position"). The environment
variables BSID_CUDA_DEVICE, BSID_CUDA_AB=block and BSID_CUDA_LOCAL_WINDOW
override them. sync_word: the word W ("0110...") that begins every frame and
is weighed through the channel like the frame's other bits; with it, mtau and
mn bound the drift at codeword boundaries after W. input: "bits" (the
received frames are 0/1 integer arrays) or "llr" (they are arrays of real
numbers, one LLR per received item, GNU Radio's sign: positive means 1;
+-inf are hard bits, NaN makes the frame invalid_input); every decode call,
and a stream_decoder over this decoder, then takes LLRs
(docs/receiving.md, "Soft input").
decode raises FrameRefused (a ValueError) for an empty frame, a value other
than 0/1, an end drift outside the limits, or a frame of probability 0, and
RuntimeError for a frame the decoder failed on (out of memory, a device
error); decode_batch never raises for one frame: it gives that frame None and
its status.)doc")
        .def(py::init<const bsid::codebook&,
                      const bsid::channel_params&,
                      int,
                      const std::string&,
                      const std::string&,
                      const std::string&,
                      double,
                      const py::object&,
                      const py::object&,
                      int,
                      int,
                      const std::string&,
                      int,
                      const std::string&,
                      const std::string&,
                      int,
                      const py::object&,
                      bool>(),
             "codebook"_a,
             "channel"_a,
             "N"_a,
             "backend"_a = "auto",
             "precision"_a = "float",
             "storage"_a = "auto",
             "Pr"_a = 1e-10,
             "mtau"_a = py::none(),
             "mn"_a = py::none(),
             "threads"_a = 0,
             "device"_a = 0,
             "recursion"_a = "auto",
             "local_window"_a = 0,
             "sync_word"_a = "",
             "input"_a = "bits",
             "cuda_streams"_a = 0,
             "devices"_a = py::none(),
             "share_g"_a = true)
        .def("decode_frame",
             &py_map_decoder::decode_frame,
             "rx"_a,
             "priors"_a = py::none(),
             "log_priors"_a = py::none(),
             "start_prior"_a = py::none(),
             "end"_a = "known",
             "lookahead"_a = 0,
             "gap"_a = 0.0,
             "random_before"_a = false,
             R"doc(
Decodes a received segment rx[0:L] with its frame boundaries as probabilities
(docs/frame_boundaries.md): a frame_decode_result with posteriors (N, q),
start_positions / start_posterior, end_positions / end_posterior /
end_forward, status and reason. start_prior: None (the frame starts at
position 0), a dict {position: weight} or a pair (positions, weights).
end: "known" (the frame's last bit is rx[L-1]) or "free" (it ends anywhere;
rx[e:L] is the next frame's sync word and first `lookahead` symbols, then
random bits; with probability `gap`, random bits from e on). random_before:
the bits before each start are random bits, so that starts are compared on
the same bits (a search's window). Never raises for the frame itself: a refused frame has a status
other than "ok"; invalid arguments raise ValueError or TypeError.)doc")
        .def("decode_frames",
             &py_map_decoder::decode_frames,
             "frames"_a,
             "priors"_a = py::none(),
             "log_priors"_a = py::none(),
             "start_priors"_a = py::none(),
             "end"_a = "known",
             "lookahead"_a = 0,
             "gap"_a = 0.0,
             "random_before"_a = false,
             R"doc(
decode_frame for many segments: a list of frame_decode_result. priors and
start_priors: one for every frame, or a list with one entry (or None) per
frame (a start prior pair is then a tuple).)doc")
        .def_property_readonly("sync_word",
                               &py_map_decoder::sync_word,
                               "The sync word W that begins every frame (\"\" for none).")
        .def_property_readonly(
            "input",
            [](const py_map_decoder& d) { return bsid::to_string(d.input()); },
            "What the decoder takes: \"bits\" or \"llr\".")
        .def("decode",
             &py_map_decoder::decode,
             "rx"_a,
             "priors"_a = py::none(),
             py::kw_only(),
             "log_priors"_a = py::none(),
             "extrinsic"_a = false,
             R"doc(
Decodes one frame: (N, q) posteriors. priors: (N, q) probabilities (rows
normalized for you); or log_priors: (N, q) natural logs, any constant per row,
-inf for a zero prior. Priors keep their full double range in every precision:
a log-prior ratio of 200 (a prior of 1e-87) is not a hard zero. extrinsic=True:
each symbol's extrinsic probabilities instead, the posterior without its own
prior (computed directly, rows normalized; without priors, the posteriors).)doc")
        .def("decode_batch",
             &py_map_decoder::decode_batch,
             "frames"_a,
             "priors"_a = py::none(),
             "statuses"_a = false,
             py::kw_only(),
             "log_priors"_a = py::none(),
             "extrinsic"_a = false,
             R"doc(
Decodes many frames over `threads` threads. Returns a list with an (N, q)
array per frame, None for a refused frame; with statuses=True, returns
(posteriors, [(status, reason), ...]). priors (or log_priors, natural logs):
None, one (N, q) array for all frames, or a list with an array (or None) per
frame. extrinsic=True: extrinsic probabilities instead of posteriors (decode).)doc")
        .def("count_errors",
             &py_map_decoder::count_errors,
             "batch"_a,
             "threads"_a = 0,
             R"doc(
Decodes a frame_batch (frame_source.generate) and counts each frame's errors
against the sent symbols, without the GIL. Returns a dict of numpy arrays:
status (uint8, an index into frame_status_names), symbol_errors and
bit_errors (int32, one per frame), decisions (int32, (frames, N): the MAP
symbol decisions, ties to the lowest index, -1 for a refused frame). A
refused frame counts all N symbols and N ceil(log2 q) bits as errors; bits
follow the symbol-to-bit map (MSB first). threads: for the counting.)doc")
        .def_property_readonly(
            "limits",
            &py_map_decoder::limits,
            "{'mtau': (lo, hi), 'mn': (lo, hi)}: the drift limits in use.")
        .def_property_readonly(
            "backend",
            [](const py_map_decoder& d) { return bsid::to_string(d.dec().backend()); })
        .def_property_readonly(
            "storage",
            [](const py_map_decoder& d) { return bsid::to_string(d.dec().storage()); })
        .def_property_readonly(
            "precision",
            [](const py_map_decoder& d) { return bsid::to_string(d.dec().precision()); })
        .def_property_readonly("N", [](const py_map_decoder& d) { return d.dec().N(); })
        .def_property_readonly("n", [](const py_map_decoder& d) { return d.dec().n(); })
        .def_property_readonly("q", [](const py_map_decoder& d) { return d.dec().q(); })
        .def_property_readonly("tau",
                               [](const py_map_decoder& d) { return d.dec().tau(); })
        .def_property_readonly(
            "codebook", [](const py_map_decoder& d) { return d.dec().config().cb; })
        .def_property_readonly(
            "channel", [](const py_map_decoder& d) { return d.dec().config().ch; })
        .def_property_readonly(
            "cells_per_frame",
            [](const py_map_decoder& d) { return d.dec().cells_per_frame(); },
            "Lattice cells per frame, N q M_tau (n M_n - m_n^-(m_n^- - 1)/2).")
        .def_property_readonly(
            "warnings",
            [](const py_map_decoder& d) { return d.watch().warnings(); }, // (a list)
            "What the decoder warns of, latest last, each also logged once: frames "
            "(of decode and decode_batch) whose lengths say N does not fit them "
            "(docs/receiving.md, \"A setup that does not fit the frames\").")
        .def_property_readonly(
            "warning_count",
            [](const py_map_decoder& d) { return d.watch().count(); },
            "How many warnings were given.")
        .def("__repr__", [](const py_map_decoder& d) {
            std::ostringstream os;
            const auto& L = d.dec().limits();
            os << "map_decoder_core(N=" << d.dec().N() << ", n=" << d.dec().n()
               << ", q=" << d.dec().q() << ", backend='"
               << bsid::to_string(d.dec().backend()) << "', precision='"
               << bsid::to_string(d.dec().precision()) << "', storage='"
               << bsid::to_string(d.dec().storage()) << "', mtau=(" << L.mtau.lo << ", "
               << L.mtau.hi << "), mn=(" << L.mn.lo << ", " << L.mn.hi << "))";
            return os.str();
        });

    // ---------------------------------------------------------------- stream decoding
    using sframe = py_stream_decoder::frame;
    py::class_<sframe>(m, "stream_frame", R"doc(
One frame put out by stream_decoder (docs/receiving.md): decoded, or an
erasure (status other than "ok", uniform posteriors). Positions are absolute:
bit k of the stream is the k-th bit ever pushed, from 0.)doc")
        .def_property_readonly(
            "index",
            [](const sframe& f) { return f.f.index; },
            "k: the frames put out before this one.")
        .def_property_readonly(
            "status",
            [](const sframe& f) {
                return std::string(bsid::to_string(f.f.result.status));
            },
            "\"ok\", or why the frame is an erasure (frame_status_names): sync_lost, "
            "truncated, invalid_input, ...")
        .def_property_readonly("reason",
                               [](const sframe& f) { return f.f.result.reason; })
        .def_property_readonly(
            "posteriors",
            [](const sframe& f) {
                py::array_t<double> a({ f.N, f.q });
                std::copy(f.f.posteriors.begin(), f.f.posteriors.end(), a.mutable_data());
                return a;
            },
            "(N, q) symbol posteriors, rows summing to 1 (uniform for an erasure).")
        .def_property_readonly(
            "start",
            [](const sframe& f) { return f.f.start; },
            "The most probable start (first bit of the sync word); "
            "-1 for an erasure.")
        .def_property_readonly(
            "end",
            [](const sframe& f) { return f.f.end; },
            "The most probable end (one past the last bit); -1 for "
            "an erasure.")
        .def_property_readonly("start_probability",
                               [](const sframe& f) { return f.f.start_probability; })
        .def_property_readonly("end_probability",
                               [](const sframe& f) { return f.f.end_probability; })
        .def_property_readonly(
            "nominal_start",
            [](const sframe& f) { return f.f.nominal_start; },
            "The last anchor (start tag, acquisition or first start) plus whole frame "
            "lengths.")
        .def_property_readonly("nominal_end",
                               [](const sframe& f) { return f.f.nominal_end; })
        .def_property_readonly(
            "start_drift",
            [](const sframe& f) { return f.f.start_drift(); },
            "start - nominal_start (0 for an erasure).")
        .def_property_readonly(
            "end_drift",
            [](const sframe& f) { return f.f.end_drift(); },
            "end - nominal_end (0 for an erasure).")
        .def_property_readonly(
            "log_likelihood_ratio",
            [](const sframe& f) { return f.f.log_likelihood_ratio; },
            "ln of the frame's evidence against random bits (-inf if not decoded).")
        .def_property_readonly(
            "acquired",
            [](const sframe& f) { return f.f.acquired; },
            "Decoded from an acquisition (a start tag or a search).")
        .def_property_readonly(
            "segment",
            [](const sframe& f) {
                return py::make_tuple(f.f.segment_begin, f.f.segment_end);
            },
            "(begin, end): the received bits the decode read ((-1, -1): none).")
        .def("__repr__", [](const sframe& f) {
            std::ostringstream os;
            os << "stream_frame(index=" << f.f.index << ", status='"
               << bsid::to_string(f.f.result.status) << "', start=" << f.f.start
               << ", end=" << f.f.end << ", start_drift=" << f.f.start_drift()
               << ", end_drift=" << f.f.end_drift() << ")";
            return os.str();
        });

    py::class_<py_stream_decoder>(m, "stream_decoder", R"doc(
Decodes an unbounded received bitstream frame after frame (docs/receiving.md).

    dec = map_decoder_core(cb, ch, N, sync_word="0110...")   # any backend, precision
    sd = stream_decoder(dec, lookahead=None, start=0, acquire_window=4,
                        tag_offset=None, sync_threshold=0.0, search=True,
                        sync_word_threshold=None)
    frames = sd.push(bits)              # uint8 0/1, any chunk size; frames completed
    frames = sd.push(bits, tags=[17])   # start tags at chunk positions
    frames += sd.flush()                # the end of the stream

Every frame length of received bits gives one stream_frame out: decoded
("ok"), or an erasure ("sync_lost" while unsynchronized, "sync_ambiguous" for
a frame found whose alignment is not clearly the best, "truncated" for a
frame the stream ends inside, "invalid_input" for a frame with a byte that is
not a bit). "ok" means the frame is at its true alignment as far as the
stream can tell (docs/receiving.md, "What each setup guarantees"). Frame k + 1's start prior is frame k's forward end metric, trimmed
at Pr. lookahead: K, the next frame's symbols weighed after each frame's end;
None: 0 with a sync word, 2 without. start: the first frame's start (a position, a dict {position: weight}
or a pair (positions, weights)), or None to start unsynchronized. A start tag
(a bit after the sync word, as digital.correlate_access_code_tag_bb tags it)
says the frame starts at tag + tag_offset (None: -G) and acquires with a
uniform start prior of +-acquire_window bits. A frame whose log-likelihood
ratio against random bits is below sync_threshold + 1 loses sync, as does
one whose sync word fits below sync_word_threshold (ln of its likelihood
ratio; None: the automatic one, sd.sync_word_threshold) at its most probable
start; search re-acquires without tags (by the sync word, or by a frame-wide
start prior without one). sd.warnings lists what the decoder warns of (a
setup whose alignments cannot be told apart).)doc")
        .def(py::init<const py_map_decoder&,
                      const py::object&,
                      const py::object&,
                      int,
                      const py::object&,
                      double,
                      bool,
                      const py::object&>(),
             "decoder"_a,
             "lookahead"_a = py::none(),
             "start"_a = 0,
             "acquire_window"_a = 4,
             "tag_offset"_a = py::none(),
             "sync_threshold"_a = 0.0,
             "search"_a = true,
             "sync_word_threshold"_a = py::none(),
             py::keep_alive<1, 2>())
        .def("push",
             &py_stream_decoder::push,
             "bits"_a,
             "tags"_a = py::none(),
             "Appends bits (any count) with start tags at the given chunk positions; "
             "returns the frames completed (a list of stream_frame).")
        .def("flush",
             &py_stream_decoder::flush,
             "The end of the stream: the remaining frames, a frame the stream ends "
             "inside as a truncated erasure. Push nothing after.")
        .def_property_readonly(
            "received",
            [](const py_stream_decoder& s) { return s.sd().received(); },
            "Bits pushed so far.")
        .def_property_readonly(
            "buffered",
            [](const py_stream_decoder& s) { return s.sd().buffered(); },
            "Bits held (a few frames' worth, however long the stream).")
        .def_property_readonly(
            "synchronized",
            [](const py_stream_decoder& s) { return s.sd().synchronized(); })
        .def_property_readonly(
            "frames_out", [](const py_stream_decoder& s) { return s.sd().frames_out(); })
        .def_property_readonly(
            "frame_bits",
            [](const py_stream_decoder& s) { return s.sd().frame_bits(); },
            "F = G + N n, the transmitted bits of a frame.")
        .def_property_readonly(
            "lookahead",
            [](const py_stream_decoder& s) { return s.sd().options().lookahead; })
        .def_property_readonly(
            "sync_word_threshold",
            [](const py_stream_decoder& s) { return s.sd().sync_word_threshold(); },
            "ln of the least likelihood ratio the sync word must have at a frame's "
            "start (the automatic one resolved; 0 without a sync word).")
        .def_property_readonly(
            "warnings",
            [](const py_stream_decoder& s) { return s.sd().warnings(); }, // (a list)
            "What the decoder warns of, latest last, each also logged once: a setup "
            "whose alignments cannot be told apart, frames that do not fit the setup "
            "(a wrong N; frames far worse than the channel predicts).")
        .def_property_readonly(
            "warning_count",
            [](const py_stream_decoder& s) { return s.sd().warning_count(); },
            "How many warnings were given.");

    // ---------------------------------------------------------------- simulation
    {
        // bsid::frame_status, in the order of its values (count_errors' codes)
        py::list names;
        for (const auto s : bsid::all_frame_statuses)
            names.append(bsid::to_string(s));
        m.attr("frame_status_names") = py::tuple(names);
    }

    bind_ldpc(m);

    py::class_<py_concatenated>(m, "concatenated_decoder_core", R"doc(
The iterative decoder of a serially concatenated scheme (docs/concatenated.md):
the MAP decoder `inner` (a map_decoder_core, any backend, bits or LLRs, with
its sync word) and belief propagation over the outer ldpc_code, passing
extrinsic information both ways for up to `iterations` passes, each with up to
`bp_iterations` of belief propagation; a frame stops when its decisions
form a codeword. inner.N must be the inner symbols of one outer codeword
(symbol_mapping(code.q, code.n, inner.q).n_inner).

With the CUDA backend and no sync word the passes stay on the GPU (the device
loop; device_loop=False runs the host loop, with the same decisions).

    dec = concatenated_decoder_core(inner, code, iterations=10, bp_iterations=50)
    r = dec.decode([rx1, rx2])   # a dict per frame: status, reason, iterations,
                                 # bp_iterations, syndrome_ok, decisions (n),
                                 # info (k), posteriors ((n, q) log)
    counts = dec.count_errors(frame_source(cb, ch, 0, seed, outer=code).generate(0, 100))
)doc")
        .def(py::init<py_map_decoder&, const bsid::ldpc_code&, int, int, int, bool>(),
             "inner"_a,
             "code"_a,
             "iterations"_a = 10,
             "bp_iterations"_a = 50,
             "threads"_a = 0,
             "device_loop"_a = true,
             py::keep_alive<1, 2>())
        .def("decode",
             &py_concatenated::decode,
             "frames"_a,
             "Decodes a list of received frames (bits, or LLRs for input='llr').")
        .def("count_errors",
             &py_concatenated::count_errors,
             "batch"_a,
             "threads"_a = 0,
             R"doc(
Decodes a frame_batch of a frame_source with this outer code and counts the
errors of each frame's information symbols, without the GIL. Returns a dict
of numpy arrays: status (uint8, an index into frame_status_names),
symbol_errors, bit_errors, iterations (passes), bp_iterations (int32),
syndrome_ok (uint8), wrong_after ((frames, iterations) uint8: 1 where the
information symbols after that pass were wrong; a frame that stopped keeps its
last decisions, an erasure is wrong throughout), info ((frames, k) int32: the
decided information symbols, -1 for an erasure).)doc")
        .def_property_readonly("code", &py_concatenated::code)
        .def_property_readonly("N", &py_concatenated::N)
        .def_property_readonly(
            "iterations", [](const py_concatenated& d) { return d.options().iterations; })
        .def_property_readonly(
            "bp_iterations",
            [](const py_concatenated& d) { return d.options().bp_iterations; })
        .def_property_readonly(
            "device_loop",
            [](const py_concatenated& d) { return d.device_loop(); },
            "Whether batches run on the device loop (the CUDA backend without a sync "
            "word, and device_loop=True): the passes stay on the GPU.");

    py::class_<bsid::frame_batch, std::shared_ptr<bsid::frame_batch>>(
        m, "frame_batch", R"doc(
A batch of simulated frames (frame_source.generate): the sent symbols and
the received bits of frames first .. first + len - 1. Pass it back to
generate(out=...) to refill it without new allocations.)doc")
        .def(py::init<>())
        .def("__len__", &bsid::frame_batch::size)
        .def_readonly("first", &bsid::frame_batch::first)
        .def_readonly("N", &bsid::frame_batch::N)
        .def_readonly("k", &bsid::frame_batch::k)
        .def_property_readonly(
            "info",
            [](const bsid::frame_batch& b) {
                return rows_of(b.info, b.size(), size_t(b.k));
            },
            "With an outer code: the information symbols, (frames, k) int32 (a copy).")
        .def_property_readonly(
            "symbols",
            [](const bsid::frame_batch& b) {
                return rows_of(b.symbols, b.size(), size_t(b.N));
            },
            "The sent symbols, an (frames, N) int32 array (a copy).")
        .def(
            "rx",
            [](const bsid::frame_batch& b, size_t k) {
                if (k >= b.size())
                    throw py::index_error("frame_batch.rx: no such frame");
                return to_numpy(std::vector<uint8_t>(b.rx[k]));
            },
            "k"_a,
            "The received bits of the batch's k-th frame (a uint8 copy).")
        .def_property_readonly("rx_lengths", [](const bsid::frame_batch& b) {
            std::vector<int64_t> v;
            for (const auto& r : b.rx)
                v.push_back(int64_t(r.size()));
            return to_numpy(std::move(v));
        });

    py::class_<bsid::frame_source>(m, "frame_source", R"doc(
The simulator's frames: random messages, encoded, through the channel, made in
C++ over threads. Frame k of seed s depends only on (codebook, channel, N, s, k):
its symbols come from the Philox stream (s, 2^63 + 2^62 + k) and its channel is
transmit(ch, bits, s, k) (docs/random-numbers.md).

    src = frame_source(cb, ch, N, seed, sync_word="")
    batch = src.generate(first, count, threads=0)   # frames first .. first+count-1
    f = src.frame(k)     # dict: symbols, tx, rx, drift (G + tau + 1 values)

sync_word: the word W ("0110...") sent before every frame's codewords; decode
such frames with map_decoder_core(..., sync_word=W).
)doc")
        .def(py::init([](const bsid::codebook& cb,
                         const bsid::channel_params& ch,
                         int N,
                         uint64_t seed,
                         const std::string& sync_word,
                         const std::optional<bsid::ldpc_code>& outer) {
                 if (!outer)
                     return bsid::frame_source(
                         cb, ch, N, seed, bsid::parse_sync_word(sync_word));
                 const int need =
                     bsid::symbol_mapping(outer->q(), outer->n(), cb.q()).n_inner();
                 if (N != 0 && N != need) {
                     throw py::value_error(
                         "frame_source: the outer code's codeword fills N = " +
                         std::to_string(need) + " inner symbols, not " +
                         std::to_string(N) + " (pass N=0 for it)");
                 }
                 return bsid::frame_source(
                     cb, ch, *outer, seed, bsid::parse_sync_word(sync_word));
             }),
             "codebook"_a,
             "channel"_a,
             "N"_a,
             "seed"_a,
             "sync_word"_a = "",
             py::kw_only(),
             "outer"_a = py::none())
        .def(
            "generate",
            [](const bsid::frame_source& src,
               uint64_t first,
               size_t count,
               int threads,
               std::shared_ptr<bsid::frame_batch> out) {
                if (!out)
                    out = std::make_shared<bsid::frame_batch>();
                {
                    py::gil_scoped_release nogil;
                    src.generate(first, count, *out, threads);
                }
                return out;
            },
            "first"_a,
            "count"_a,
            "threads"_a = 0,
            "out"_a = nullptr,
            "Frames first .. first + count - 1 as a frame_batch (refills `out` if "
            "given), "
            "made without the GIL over `threads` threads (0: all cores).")
        .def(
            "message",
            [](const bsid::frame_source& src, uint64_t k) {
                std::vector<int32_t> v(size_t(src.N()));
                src.message(k, v.data());
                return to_numpy(std::move(v));
            },
            "k"_a,
            "The N message symbols of frame k (int32).")
        .def(
            "frame",
            [](const bsid::frame_source& src, uint64_t k) {
                bsid::simulated_frame f;
                {
                    py::gil_scoped_release nogil;
                    f = src.frame(k);
                }
                py::dict d;
                d["frame"] = f.index;
                d["symbols"] = to_numpy(std::move(f.symbols));
                if (src.outer())
                    d["info"] = to_numpy(std::move(f.info));
                d["tx"] = to_numpy(std::move(f.tx));
                d["rx"] = to_numpy(std::move(f.rx));
                d["drift"] = to_numpy(std::move(f.drift));
                return d;
            },
            "k"_a,
            "Frame k in full: a dict with symbols (N), tx (tau bits), rx (rho bits) and "
            "the "
            "true drift path (tau + 1 values, rho - tau last), as transmit() gives it.")
        .def_property_readonly("codebook", &bsid::frame_source::cb)
        .def_property_readonly("channel", &bsid::frame_source::channel)
        .def_property_readonly("N", &bsid::frame_source::N)
        .def_property_readonly("seed", &bsid::frame_source::seed)
        .def(
            "info",
            [](const bsid::frame_source& src, uint64_t k) {
                if (!src.outer())
                    throw py::value_error(
                        "frame_source.info: this source has no outer code");
                std::vector<int32_t> v(size_t(src.outer()->k()));
                src.info(k, v.data());
                return to_numpy(std::move(v));
            },
            "k"_a,
            "With an outer code: the k information symbols of frame k (int32).")
        .def_property_readonly("outer", [](const bsid::frame_source& src) {
            return src.outer() ? std::optional<bsid::ldpc_code>(*src.outer())
                               : std::nullopt;
        });

    m.def(
        "hard_decisions",
        [](const py::object& post) {
            auto a =
                py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(
                    post);
            if (!a || a.ndim() != 2)
                throw py::value_error("hard_decisions: post must be an (N, q) array");
            py::array_t<int32_t> out(a.shape(0));
            bsid::hard_decisions(
                a.data(), int(a.shape(0)), int(a.shape(1)), out.mutable_data());
            return out;
        },
        "post"_a,
        "The most likely symbol of each row of an (N, q) posterior array (int32); values "
        "within "
        "a relative 1e-12 of the largest tie, and ties go to the lowest index.");

    m.def(
        "estimate_channel",
        [](const bsid::codebook& cb,
           int N,
           const py::sequence& frames,
           const bsid::channel_params& initial,
           int iterations,
           const std::string& input,
           double tolerance,
           const py::object& fix,
           double llr_scale,
           const std::string& backend,
           const std::string& precision,
           double Pr,
           const py::object& mtau,
           const py::object& mn,
           int threads,
           int device,
           const py::object& devices,
           bool details,
           const std::string& sync_word,
           const std::string& framing,
           int lookahead,
           const py::object& progress) {
            const bsid::input_kind kind = bsid::parse_input_kind(input);
            const auto sync = bsid::parse_sync_word(sync_word);
            if (framing != "tagged" && framing != "stream")
                throw py::value_error("estimate_channel: framing '" + framing +
                                      "' is not one of tagged, stream");
            bsid::decoder_config cfg(cb, initial, N);
            cfg.backend = bsid::parse_backend(backend);
            cfg.precision = bsid::parse_precision(precision);
            cfg.Pr = Pr;
            cfg.mtau = range_from_python(mtau, "mtau");
            cfg.mn = range_from_python(mn, "mn");
            cfg.threads = threads;
            cfg.cuda.device = device;
            cfg.cuda.devices = devices_from_python(devices);
            bsid::estimate_options opt;
            opt.iterations = iterations;
            opt.tolerance = tolerance;
            opt.llr_scale = llr_scale;
            if (!fix.is_none()) {
                for (const auto& item : py::iter(fix))
                    opt.fix(py::str(item)); // ValueError for another name
            }
            if (!progress.is_none()) {
                if (!PyCallable_Check(progress.ptr()))
                    throw py::type_error("estimate_channel: progress must be callable "
                                         "(iteration, log_likelihood, channel_params)");
                // called between iterations, with the GIL (an exception it
                // raises ends the estimate and reaches the caller)
                opt.on_iteration =
                    [progress](int it, double ll, const bsid::channel_params& ch) {
                        py::gil_scoped_acquire gil;
                        progress(it, ll, ch);
                    };
            }
            std::vector<received_frame> rx;
            std::vector<bsid::frame_view> views;
            size_t bad = 0;
            bsid::channel_estimate est;
            if (framing == "stream") {
                // one array: the stream
                received_frame f = kind == bsid::input_kind::llr
                                       ? llrs_from_python(frames)
                                       : received_from_python(frames);
                if (!f.bad.empty())
                    throw py::value_error("estimate_channel: the stream holds " + f.bad);
                bsid::stream_options so;
                so.lookahead = lookahead;
                py::gil_scoped_release nogil;
                est = bsid::estimate_channel_stream(
                    cfg, f.items(), f.size(), opt, sync, so);
            }
            const bool tagged = framing == "tagged";
            for (const auto& obj : tagged ? frames : py::sequence(py::list())) {
                received_frame f = kind == bsid::input_kind::llr
                                       ? llrs_from_python(obj)
                                       : received_from_python(obj);
                if (!f.bad.empty()) {
                    ++bad; // not items at all: refused, as the decoder would
                    continue;
                }
                rx.push_back(std::move(f));
            }
            for (const auto& f : rx) {
                bsid::frame_view v;
                const bsid::received_items y = f.items();
                v.bits = y.bits;
                v.llr = y.llr;
                v.rho = f.size();
                views.push_back(v);
            }
            if (tagged && views.empty() && bad > 0)
                throw std::runtime_error(
                    "estimate_channel: the decoder refused every frame (" +
                    std::to_string(bad) + "; values that are not received items)");
            if (tagged) {
                py::gil_scoped_release nogil;
                est = bsid::estimate_channel(cfg, views, opt, sync);
            }
            py::list ll;
            for (double v : est.log_likelihoods)
                ll.append(v);
            if (!details)
                return py::object(py::make_tuple(est.ch, ll));
            py::dict d;
            d["llr_scale"] = est.llr_scale;
            d["iterations"] = est.iterations;
            d["converged"] = est.converged;
            d["frames_used"] = est.frames_used;
            d["frames_refused"] = est.frames_refused + bad;
            py::dict ev;
            ev["insertions"] = est.events.ins;
            ev["deletions"] = est.events.del;
            ev["transmissions"] = est.events.trans;
            ev["substitutions"] = est.events.subst;
            d["events"] = ev;
            d["mtau"] = range_tuple(est.mtau);
            d["mn"] = range_tuple(est.mn);
            py::list notes;
            for (const auto& n : est.notes)
                notes.append(n);
            d["notes"] = notes;
            return py::object(py::make_tuple(est.ch, ll, d));
        },
        "codebook"_a,
        "N"_a,
        "frames"_a,
        "initial"_a,
        "iterations"_a = 100,
        "input"_a = "bits",
        py::kw_only(),
        "tolerance"_a = 1e-4,
        "fix"_a = py::none(),
        "llr_scale"_a = 1.0,
        "backend"_a = "auto",
        "precision"_a = "double",
        "Pr"_a = 1e-10,
        "mtau"_a = py::none(),
        "mn"_a = py::none(),
        "threads"_a = 0,
        "device"_a = 0,
        "devices"_a = py::none(),
        "details"_a = false,
        "sync_word"_a = "",
        "framing"_a = "tagged",
        "lookahead"_a = -1,
        "progress"_a = py::none(),
        R"doc(
Estimates the channel from received frames by expectation-maximization over
the decoder's lattice (docs/design.md section 3, "Channel estimation", docs/receiving.md):

    ch, ll = estimate_channel(cb, N, frames, initial=channel_params(0.01, 0.01, 0.01))
    ch, ll, info = estimate_channel(cb, N, llrs, initial=ch0, input="llr", details=True)

frames: tagged frames (each starts at drift 0 and ends at its last item), 0/1
arrays, or LLR arrays with input="llr"; with sync_word W ("0110..."), each
frame begins with W, weighed through the channel with the rest. With
framing="stream", frames is one array: a received stream of frames back to
back (each W || X(D)), decoded frame after frame by a stream_decoder at each
iteration's estimate (first frame at position 0; lookahead as
stream_decoder's), and the frames decoded in sync estimate; their
log-likelihoods then follow the frames found and need not increase. Each iteration decodes every frame at
the current estimate and takes its exact expected insertions I, deletions D,
transmissions T and substitutions S: Pi = I/(I+D+T), Pd = D/(I+D+T),
Ps = S/T; for LLRs also a scale c (the items weigh as c l). It stops after
`iterations`, or when no estimated value moves by more than `tolerance`
(relative). Returns the estimate and the log-likelihood at each iterate (the
initial point first; ln P(rx | model) - ln P(rx | random items), summed over
the frames used), which never decreases; with details=True also a dict:
llr_scale, iterations, converged, frames_used, frames_refused, events (the
last E-step's expected counts), mtau, mn and notes (clamps, refusals, a
setup that does not fit).
fix: names to keep at their initial values ("Pi", "Pd", "Ps", "llr_scale").
A parameter to estimate must start above 0 (EM keeps a 0 at 0). progress: a
callable given (iteration from 0, its log-likelihood, the new estimate) after
each iteration, for long estimates (bsid-sim --estimate prints them). Notes
also say when the fit is worse than random items (a log-likelihood below 0)
or the frames' lengths say N does not fit them (docs/receiving.md).
backend, precision, Pr, mtau, mn, threads, device, devices: as map_decoder_core.
Raises ValueError for no frames or bad options and RuntimeError when every
frame is refused.)doc");

    m.def("cuda_device_count",
          &bsid::cuda_device_count,
          "The CUDA devices present (what devices=\"all\" takes): 0 in a build "
          "without CUDA, or without a driver or a device.");

    m.def(
        "set_log_level",
        [](const std::string& level) {
            bsid::set_log_level(bsid::parse_log_level(level));
        },
        "level"_a,
        "Threshold of the core library's log on stderr: debug, info, warning (default), "
        "error "
        "or off. The environment variable BSID_LOG_LEVEL sets the initial value.");
}
