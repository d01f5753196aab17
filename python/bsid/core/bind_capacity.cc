/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// information_rate: a code's Monte-Carlo information rate on a channel
// (docs/capacity.md).

#include "bindings.h"
#include "convert.h"
#include <gnuradio/bsid/core/sim/information_rate.h>

namespace py = pybind11;
using namespace py::literals;
using namespace bsid_py;

void bind_capacity(py::module_& m)
{
    py::class_<bsid::information_rate_result>(m, "information_rate_result", R"doc(
An information rate estimate (information_rate): .rate in bits per transmitted
channel symbol, .ci its 95 % interval (low, high), .frames the frames averaged,
.excluded those whose drift left the decoder's limits, .samples each frame's
(log2 P(y|x) - log2 P(y)) / (N n).)doc")
        .def_readonly("rate", &bsid::information_rate_result::rate)
        .def_property_readonly("ci",
                               [](const bsid::information_rate_result& r) {
                                   return py::make_tuple(r.ci_low, r.ci_high);
                               })
        .def_readonly("frames", &bsid::information_rate_result::frames)
        .def_readonly("excluded", &bsid::information_rate_result::excluded)
        .def_property_readonly("samples",
                               [](const bsid::information_rate_result& r) {
                                   return to_numpy(std::vector<double>(r.samples));
                               })
        .def("__repr__", [](const bsid::information_rate_result& r) {
            return py::str("information_rate_result(rate={:.6f}, ci=({:.6f}, {:.6f}), "
                           "frames={}, excluded={})")
                .format(r.rate, r.ci_low, r.ci_high, r.frames, r.excluded);
        });

    m.def(
        "information_rate",
        [](const bsid::codebook& cb,
           const bsid::channel_params& ch,
           int N,
           size_t frames,
           uint64_t seed,
           const std::string& backend,
           const std::string& precision,
           double Pr,
           const py::object& mtau,
           const py::object& mn,
           int threads,
           size_t batch,
           int device) {
            bsid::decoder_config cfg(cb, ch, N);
            cfg.backend = bsid::parse_backend(backend);
            cfg.precision = bsid::parse_precision(precision);
            cfg.Pr = Pr;
            cfg.mtau = range_from_python(mtau, "mtau");
            cfg.mn = range_from_python(mn, "mn");
            cfg.threads = threads;
            cfg.cuda.device = device;
            bsid::information_rate_options opt;
            opt.frames = frames;
            opt.seed = seed;
            opt.batch = batch;
            opt.threads = threads;
            py::gil_scoped_release nogil;
            return bsid::information_rate(cfg, opt);
        },
        "codebook"_a,
        "channel"_a,
        "N"_a,
        "frames"_a = 100,
        "seed"_a = 0,
        "backend"_a = "auto",
        "precision"_a = "double",
        "Pr"_a = 1e-10,
        "mtau"_a = py::none(),
        "mn"_a = py::none(),
        "threads"_a = 0,
        "batch"_a = 256,
        "device"_a = 0,
        R"doc(
The information rate of a codebook on a channel, in bits per transmitted
channel symbol: the average over `frames` simulated frames (frame_source's
frames of this seed, N uniform independent message symbols, no sync word) of
(log2 P(y|x) - log2 P(y)) / (N n). Both likelihoods are exact under the
decoder's drift limits (from Pr, or mtau and mn) with the frame's ends known:
P(y) from the decoder's pass over every message, P(y|x) from the same pass
with the sent message certain. With the uncoded codebook (sparse:1:A) it is
the channel's i.i.d. information rate at N symbols; the known ends bias it
upwards by about log2(N) / N (docs/capacity.md).

Returns an information_rate_result (.rate, .ci, .frames, .excluded,
.samples). ValueError for fewer than 2 frames, a batch of 0 or bad decoder
settings.)doc");
}
