/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bsid_core: Python bindings of lib/core (docs/design.md section 2). numpy in and
// out; std::invalid_argument becomes ValueError and bsid::io_error OSError.
// Each concern binds itself (bind_*.cc, bindings.h); this file makes the
// module, its exceptions and the calls in order.

#include "bindings.h"
#include "convert.h"
#include <gnuradio/bsid/core/options/option_table.h>

namespace py = pybind11;
using namespace py::literals;
using namespace bsid_py;

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

    bind_channel(m);
    bind_map_decoder(m);
    bind_stream(m);

    // ---------------------------------------------------------------- simulation
    {
        // bsid::frame_status, in the order of its values (count_errors' codes)
        py::list names;
        for (const auto s : bsid::all_frame_statuses)
            names.append(bsid::to_string(s));
        m.attr("frame_status_names") = py::tuple(names);
    }

    {
        // the names of Python's argument types in argument errors, in the words
        // of the receiver options' errors (python/bsid/short_errors.py)
        using bsid::option_type;
        const auto words = [](option_type t) {
            return bsid::describe(t, bsid::spelling::python);
        };
        m.attr("_type_words") = py::dict("int"_a = words(option_type::integer),
                                         "float"_a = words(option_type::number),
                                         "str"_a = words(option_type::text),
                                         "bool"_a = words(option_type::flag));
    }

    bind_ldpc(m);
    bind_concatenated(m);
    bind_sim(m);
    bind_estimation(m);
    bind_reads(m);
    bind_capacity(m);

    m.def("cuda_device_count",
          &bsid::cuda_device_count,
          "The CUDA devices present (what devices=\"all\" takes): 0 in a build "
          "without CUDA, or without a driver or a device.");

    m.def("cpu_isa",
          &bsid::cpu_isa,
          "The instruction set of the CPU backend's vector kernels: \"avx512\", "
          "\"avx2\" or \"baseline\", the best this machine runs, at most what "
          "the environment variable BSID_CPU_ISA names (read once, at the first "
          "CPU decoder). ValueError for a BSID_CPU_ISA that names none of them.");

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
