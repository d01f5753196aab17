/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The simulator's frames (frame_source, frame_batch) and hard decisions.

#include "bindings.h"
#include "py_map_decoder.h"

namespace py = pybind11;
using namespace py::literals;
using namespace bsid_py;

void bind_sim(py::module_& m)
{
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
            "The received bits of the batch's k-th frame (a uint8 copy; its read 0).")
        .def_readonly("reads", &bsid::frame_batch::reads, "Reads per frame.")
        .def(
            "read",
            [](const bsid::frame_batch& b, size_t k, int r) {
                if (k >= b.size())
                    throw py::index_error("frame_batch.read: no such frame");
                if (r < 0 || r >= b.reads)
                    throw py::index_error("frame_batch.read: no such read");
                return to_numpy(std::vector<uint8_t>(b.read(k, r)));
            },
            "k"_a,
            "r"_a,
            "Read r of the batch's k-th frame (a uint8 copy).")
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

sync_word: the word W ("0110..."; over letters "ACGT...", digits, comma
-separated integers or a list of ints) sent before every frame's codewords;
decode such frames with map_decoder_core(..., sync_word=W). reads: each frame
sent that many times (docs/reads.md), read r through channel frame k of seed
s + r 0x9E3779B97F4A7C15 (read 0 is the frame of a source without reads);
count their errors with map_decoder_core.count_errors(batch, read_method=...).
)doc")
        .def(py::init([](const bsid::codebook& cb,
                         const bsid::channel_params& ch,
                         int N,
                         uint64_t seed,
                         const py::object& sync_word,
                         const std::optional<bsid::ldpc_code>& outer,
                         int reads) {
                 const auto W = sync_word_from_python(sync_word, ch.alphabet());
                 if (!outer) {
                     bsid::frame_source src(cb, ch, N, seed, W);
                     src.set_reads(reads);
                     return src;
                 }
                 const int need =
                     bsid::symbol_mapping(outer->q(), outer->n(), cb.q()).n_inner();
                 if (N != 0 && N != need) {
                     throw py::value_error(
                         "frame_source: the outer code's codeword fills N = " +
                         std::to_string(need) + " inner symbols, not " +
                         std::to_string(N) + " (pass N=0 for it)");
                 }
                 bsid::frame_source src(cb, ch, *outer, seed, W);
                 src.set_reads(reads);
                 return src;
             }),
             "codebook"_a,
             "channel"_a,
             "N"_a,
             "seed"_a,
             "sync_word"_a = "",
             py::kw_only(),
             "outer"_a = py::none(),
             "reads"_a = 1)
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
}
