/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// stream_decoder and its frames.

#include "bindings.h"
#include "py_map_decoder.h"

namespace py = pybind11;
using namespace py::literals;
using namespace bsid_py;

namespace {

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
        // log-probabilities over bits arrive as LLRs (logprobs_from_python)
        opt.input = dec.input() == bsid::input_kind::logprob &&
                            dec.dec().config().ch.alphabet() == 2
                        ? bsid::input_kind::llr
                        : dec.input();
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
            got = f.has_logprob ? d_sd->push(f.logprob.data(), f.size(), at)
                  : f.soft      ? d_sd->push(f.llr.data(), f.size(), at)
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

void bind_stream(py::module_& m)
{
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
}
