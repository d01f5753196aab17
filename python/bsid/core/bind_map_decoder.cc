/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// map_decoder_core and its frame results.

#include "bindings.h"
#include "py_map_decoder.h"

namespace py = pybind11;
using namespace py::literals;
using namespace bsid_py;

void bind_map_decoder(py::module_& m)
{
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
priors, and over letters pass L then reads the lattices' rows that pass G
stored; False: once per index and state; the values are the same, see
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
                      const py::object&,
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
        .def(
            "count_errors",
            [](py_map_decoder& d, const bsid::frame_batch& batch, int threads) {
                if (batch.reads != 1)
                    throw py::value_error(
                        "count_errors: the batch has " + std::to_string(batch.reads) +
                        " reads per frame; give read_method (\"joint\" or \"combine\")");
                return d.count_errors(batch, threads);
            },
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
}
