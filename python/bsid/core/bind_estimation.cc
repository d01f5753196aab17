/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// estimate_channel: EM estimates of the channel from frames.

#include "bindings.h"
#include "py_map_decoder.h"

namespace py = pybind11;
using namespace py::literals;
using namespace bsid_py;

void bind_estimation(py::module_& m)
{
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
           const py::object& sync_word,
           const std::string& framing,
           int lookahead,
           const py::object& progress,
           bool substitution_matrix) {
            const bsid::input_kind kind = bsid::parse_input_kind(input);
            const auto sync = sync_word_from_python(sync_word, initial.alphabet());
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
            opt.substitution_matrix = substitution_matrix;
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
                received_frame f = items_from_python(frames, kind, initial.alphabet());
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
                received_frame f = items_from_python(obj, kind, initial.alphabet());
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
                v.logprob = y.logprob;
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
            if (!est.substitution_counts.empty()) {
                const size_t A = size_t(est.ch.alphabet());
                py::list rows;
                for (size_t x = 0; x < A; ++x) {
                    py::list row;
                    for (size_t y = 0; y < A; ++y)
                        row.append(est.substitution_counts[x * A + y]);
                    rows.append(row);
                }
                d["substitution_counts"] = rows;
            }
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
        "substitution_matrix"_a = false,
        R"doc(
Estimates the channel from received frames by expectation-maximization over
the decoder's lattice (docs/design.md section 3, "Channel estimation", docs/receiving.md):

    ch, ll = estimate_channel(cb, N, frames, initial=channel_params(0.01, 0.01, 0.01))
    ch, ll, info = estimate_channel(cb, N, llrs, initial=ch0, input="llr", details=True)

frames: tagged frames (each starts at drift 0 and ends at its last item), 0/1
arrays, or LLR arrays with input="llr"; over A > 2 letters (the initial
channel's alphabet) arrays of letters, or (L, A) arrays of log-probabilities
with input="logprob"; with sync_word W ("0110...", letters such as "ACGT"
for A = 4, or a list of ints), each frame begins with W, weighed through the channel with the
rest. With
framing="stream", frames is one array: a received stream of frames back to
back (each W || X(D)), decoded frame after frame by a stream_decoder at each
iteration's estimate (first frame at position 0; lookahead as
stream_decoder's), and the frames decoded in sync estimate; their
log-likelihoods then follow the frames found and need not increase. Each iteration decodes every frame at
the current estimate and takes its exact expected insertions I, deletions D,
transmissions T and substitutions S: Pi = I/(I+D+T), Pd = D/(I+D+T),
Ps = S/T; for LLRs also a scale c (the items weigh as c l; log-probabilities
as c lp, normalized). With substitution_matrix=True (A > 2; implied by an
initial channel with a matrix) the full A x A substitution matrix is
estimated instead of Ps: row x is the expected transmissions of x received as
each y over those of x, and details gives their substitution_counts. It stops after
`iterations`, or when no estimated value moves by more than `tolerance`
(relative). Returns the estimate and the log-likelihood at each iterate (the
initial point first; ln P(rx | model) - ln P(rx | random items), summed over
the frames used), which never decreases; with details=True also a dict:
llr_scale, iterations, converged, frames_used, frames_refused, events (the
last E-step's expected counts), mtau, mn and notes (clamps, refusals, a
setup that does not fit).
fix: names to keep at their initial values ("Pi", "Pd", "Ps", "llr_scale";
"Ps" keeps a substitution matrix).
A parameter to estimate must start above 0 (EM keeps a 0 at 0). progress: a
callable given (iteration from 0, its log-likelihood, the new estimate) after
each iteration, for long estimates (bsid-sim --estimate prints them). Notes
also say when the fit is worse than random items (a log-likelihood below 0)
or the frames' lengths say N does not fit them (docs/receiving.md).
backend, precision, Pr, mtau, mn, threads, device, devices: as map_decoder_core.
Raises ValueError for no frames or bad options and RuntimeError when every
frame is refused.)doc");
}
