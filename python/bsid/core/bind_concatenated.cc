/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// concatenated_decoder_core: inner MAP and outer BP.

#include "bindings.h"
#include "py_map_decoder.h"

namespace py = pybind11;
using namespace py::literals;
using namespace bsid_py;

namespace {

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
            views[k].logprob = y.logprob;
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

    py::dict count_errors(const bsid::frame_batch& batch,
                          int threads,
                          const py::object& read_method)
    {
        const size_t K = batch.size();
        // several reads per frame: the inner decoder's reads decoder, by
        // read_method (default joint up to 3 reads, combine beyond)
        std::shared_ptr<bsid::reads_decoder> reads;
        if (batch.reads > 1) {
            const std::string m =
                read_method.is_none()
                    ? (batch.reads <= bsid::max_joint_reads ? "joint" : "combine")
                    : read_method.cast<std::string>();
            reads = reads_decoder_of(*d_inner, m, py::none(), py::none(), py::none());
        } else if (!read_method.is_none()) {
            throw py::value_error("count_errors: read_method applies to a batch of "
                                  "several reads per frame (frame_source(..., reads=M))");
        }
        const int I = d_opt.iterations;
        py::array_t<uint8_t> status(K), syndrome_ok(K);
        py::array_t<int32_t> symbol_errors(K), bit_errors(K), iterations(K), bp(K);
        py::array_t<uint8_t> wrong({ py::ssize_t(K), py::ssize_t(I) });
        const int kk = d_code.k();
        py::array_t<int32_t> info({ py::ssize_t(K), py::ssize_t(kk) });
        {
            py::gil_scoped_release nogil;
            std::lock_guard<std::mutex> lock(d_mutex);
            if (reads) {
                d_counter = std::make_unique<bsid::concatenated_counter>(
                    d_dec, *reads, d_opt, threads);
                d_counter_reads = reads; // kept while the counter refers to it
                d_counter_threads = -1;  // (made again for a batch of one read)
            } else if (!d_counter || d_counter_threads != threads) {
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
    std::shared_ptr<bsid::reads_decoder> d_counter_reads; // d_counter's, if any
    std::unique_ptr<bsid::concatenated_counter> d_counter;
    int d_counter_threads = -1;
};

} // namespace

void bind_concatenated(py::module_& m)
{
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
             py::kw_only(),
             "read_method"_a = py::none(),
             R"doc(
Decodes a frame_batch of a frame_source with this outer code and counts the
errors of each frame's information symbols, without the GIL. Returns a dict
of numpy arrays: status (uint8, an index into frame_status_names),
symbol_errors, bit_errors, iterations (passes), bp_iterations (int32),
syndrome_ok (uint8), wrong_after ((frames, iterations) uint8: 1 where the
information symbols after that pass were wrong; a frame that stopped keeps its
last decisions, an erasure is wrong throughout), info ((frames, k) int32: the
decided information symbols, -1 for an erasure).

A batch of several reads per frame (frame_source(..., outer=code, reads=M)):
each pass decodes every frame from all its reads, by read_method ("joint",
exact, up to 3 reads; "combine", any number; default joint up to 3 reads,
combine beyond) with the inner decoder's settings (docs/reads.md, "With an
outer code"), always on the host loop.)doc")
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
}
