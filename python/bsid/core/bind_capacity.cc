/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Codes against capacity (docs/capacity.md): information_rate, a code's
// Monte-Carlo information rate on a channel, and EXIT curves of the inner
// decoder and of outer codes.

#include "bindings.h"
#include "convert.h"
#include <gnuradio/bsid/core/outer/ldpc_code.h>
#include <gnuradio/bsid/core/sim/exit_chart.h>
#include <gnuradio/bsid/core/sim/information_rate.h>

namespace py = pybind11;
using namespace py::literals;
using namespace bsid_py;

namespace {

// The decoder both measurements run (their shared keywords).
bsid::decoder_config decoder_for(const bsid::codebook& cb,
                                 const bsid::channel_params& ch,
                                 int N,
                                 const std::string& backend,
                                 const std::string& precision,
                                 double Pr,
                                 int threads)
{
    bsid::decoder_config cfg(cb, ch, N);
    cfg.backend = bsid::parse_backend(backend);
    cfg.precision = bsid::parse_precision(precision);
    cfg.Pr = Pr;
    cfg.threads = threads;
    return cfg;
}

} // namespace

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
            auto cfg = decoder_for(cb, ch, N, backend, precision, Pr, threads);
            cfg.mtau = range_from_python(mtau, "mtau");
            cfg.mn = range_from_python(mn, "mn");
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

    py::class_<bsid::exit_point>(m, "exit_point", R"doc(
One point of an EXIT curve (inner_exit_curve, outer_exit_curve), informations
normalized by log2 q: .ia the measured a priori information, .ie the extrinsic
one with its 95 % interval .ie_ci over frames, .sigma the a priori model's
sigma, .frames those averaged, .decoded (outer curves) the fraction of words
decoded to the codeword sent.)doc")
        .def_readonly("sigma", &bsid::exit_point::sigma)
        .def_readonly("ia", &bsid::exit_point::ia)
        .def_readonly("ie", &bsid::exit_point::ie)
        .def_property_readonly(
            "ie_ci",
            [](const bsid::exit_point& p) { return py::make_tuple(p.ie_low, p.ie_high); })
        .def_readonly("frames", &bsid::exit_point::frames)
        .def_readonly("decoded",
                      &bsid::exit_point::decoded,
                      "Outer curves: the fraction of words decoded to the codeword sent.")
        .def("__repr__", [](const bsid::exit_point& p) {
            return py::str("exit_point(ia={:.4f}, ie={:.4f}, ie_ci=({:.4f}, {:.4f}), "
                           "frames={}, decoded={:.3f})")
                .format(p.ia, p.ie, p.ie_low, p.ie_high, p.frames, p.decoded);
        });

    m.def("apriori_information",
          &bsid::apriori_model::information,
          "sigma"_a,
          "q"_a,
          "samples"_a = 20000,
          "The EXIT a priori model's I_A / log2 q at sigma (docs/capacity.md).");
    m.def("apriori_sigma",
          &bsid::apriori_model::sigma_for,
          "ia"_a,
          "q"_a,
          "samples"_a = 20000,
          "The EXIT a priori model's sigma for a target I_A in [0, 1).");

    m.def(
        "inner_exit_curve",
        [](const bsid::codebook& cb,
           const bsid::channel_params& ch,
           int N,
           const std::vector<double>& ia,
           size_t frames,
           uint64_t seed,
           const std::string& backend,
           const std::string& precision,
           double Pr,
           int threads,
           size_t batch) {
            const auto cfg = decoder_for(cb, ch, N, backend, precision, Pr, threads);
            bsid::exit_options opt;
            opt.frames = frames;
            opt.seed = seed;
            opt.batch = batch;
            opt.threads = threads;
            py::gil_scoped_release nogil;
            return bsid::inner_exit_curve(cfg, ia, opt);
        },
        "codebook"_a,
        "channel"_a,
        "N"_a,
        "ia"_a,
        "frames"_a = 100,
        "seed"_a = 0,
        "backend"_a = "auto",
        "precision"_a = "double",
        "Pr"_a = 1e-10,
        "threads"_a = 0,
        "batch"_a = 256,
        R"doc(
The inner MAP decoder's EXIT curve on a channel: for each target I_A (in [0, 1),
normalized by log2 q), frames of N symbols (frame_source's frames of this seed)
decoded with a priori probabilities from the model l(D) = sigma^2 [D == x] +
sigma z_D and extrinsic output; a list of exit_point (docs/capacity.md, "EXIT
charts").)doc");

    m.def(
        "outer_exit_curve",
        [](const bsid::ldpc_code& code,
           const std::vector<double>& ia,
           size_t frames,
           uint64_t seed,
           int iterations,
           const std::string& backend,
           const std::string& precision,
           int threads,
           size_t batch) {
            bsid::siso_config sc;
            sc.backend = bsid::parse_backend(backend);
            sc.precision = bsid::parse_precision(precision);
            sc.threads = threads;
            bsid::exit_options opt;
            opt.frames = frames;
            opt.seed = seed;
            opt.batch = batch;
            opt.iterations = iterations;
            py::gil_scoped_release nogil;
            return bsid::outer_exit_curve(code, sc, ia, opt);
        },
        "code"_a,
        "ia"_a,
        "frames"_a = 100,
        "seed"_a = 0,
        "iterations"_a = 50,
        "backend"_a = "cpu",
        "precision"_a = "double",
        "threads"_a = 0,
        "batch"_a = 256,
        R"doc(
An outer code's EXIT curve: codewords of uniform information symbols seen
through the same a priori model, decoded by belief propagation (iterations at
most); I_E from its extrinsic output, a word decoded to the codeword sent
counting 1. A list of exit_point.)doc");
}
