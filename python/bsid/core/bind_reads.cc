/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// map_decoder_core.decode_reads and decode_reads_batch: several reads of one
// frame (bsid::reads_decoder, docs/reads.md), as methods of the decoder.

#include "bindings.h"
#include "py_map_decoder.h"

namespace py = pybind11;
using namespace py::literals;

namespace bsid_py {

namespace {

// One cluster's reads converted, each kept alive beside its frame_read; a
// read that is not valid input keeps its place (no items: the core reports
// it) and its description.
struct cluster {
    std::vector<received_frame> rx;
    std::vector<std::string> bad;
    bsid::frame_reads req;
};

cluster cluster_from_python(py_map_decoder& self, const py::handle& reads)
{
    if (!py::isinstance<py::sequence>(reads) || py::isinstance<py::str>(reads) ||
        py::isinstance<py::array>(reads)) {
        throw py::type_error("reads: a list of received frames (one array per read)");
    }
    cluster c;
    for (const auto& r : py::reinterpret_borrow<py::sequence>(reads))
        c.rx.push_back(self.received(r));
    for (const auto& f : c.rx) {
        bsid::frame_read fr;
        c.bad.push_back(f.bad);
        if (f.bad.empty()) {
            const bsid::received_items y = f.items();
            fr.bits = y.bits;
            fr.llr = y.llr;
            fr.logprob = y.logprob;
            fr.L = f.size();
        } else {
            fr.L = 1; // (no items: left out; info_of gives `bad` as its reason)
        }
        c.req.reads.push_back(fr);
    }
    return c;
}

py::dict info_of(const bsid::reads_result& r, const cluster& c)
{
    py::list reads;
    for (size_t k = 0; k < r.reads.size(); ++k) {
        // (a read that is not valid input goes to the core without items)
        const bsid::frame_result fr =
            c.bad[k].empty()
                ? r.reads[k]
                : bsid::frame_result{ bsid::frame_status::invalid_input, c.bad[k] };
        reads.append(py::make_tuple(bsid::to_string(fr.status), fr.reason));
    }
    py::dict d;
    d["status"] = bsid::to_string(r.result.status);
    d["reason"] = r.result.reason;
    d["reads"] = reads;
    d["used"] = r.used;
    d["rounds"] = r.rounds;
    d["converged"] = r.converged;
    return d;
}

} // namespace

std::shared_ptr<bsid::reads_decoder> reads_decoder_of(py_map_decoder& self,
                                                      const std::string& method,
                                                      const py::object& iterations,
                                                      const py::object& tolerance,
                                                      const py::object& channels)
{
    if (!self.frames().sync_word().empty()) {
        throw py::value_error(
            "decode_reads: this decoder's frames begin with a sync word; several "
            "reads are decoded as frames of their own codewords (a decoder without "
            "sync_word)");
    }
    const bsid::read_method m = bsid::parse_read_method(method);
    bsid::combine_options opts;
    if (!iterations.is_none()) {
        if (m != bsid::read_method::combine)
            throw py::value_error("iterations applies to method 'combine'");
        opts.iterations = iterations.cast<int>();
    }
    if (!tolerance.is_none()) {
        if (m != bsid::read_method::combine)
            throw py::value_error("tolerance applies to method 'combine'");
        opts.tolerance = tolerance.cast<double>();
    }
    std::vector<bsid::channel_params> chans;
    if (!channels.is_none()) {
        for (const auto& ch : py::reinterpret_borrow<py::sequence>(channels))
            chans.push_back(ch.cast<bsid::channel_params>());
        if (chans.empty())
            throw py::value_error("channels: one channel per read (or None)");
    }
    return self.reads_decoder_for(chans, m, opts);
}

} // namespace bsid_py

using namespace bsid_py;

void bind_reads(py::module_& m)
{
    auto cls =
        py::reinterpret_borrow<py::class_<py_map_decoder>>(m.attr("map_decoder_core"));
    cls.def(
        "decode_reads",
        [](py_map_decoder& self,
           const py::object& reads,
           const std::string& method,
           const py::object& priors_in,
           const py::object& log_priors,
           const py::object& iterations,
           bool extrinsic,
           const py::object& channels,
           const py::object& tolerance,
           bool statuses) -> py::object {
            auto dec = reads_decoder_of(self, method, iterations, tolerance, channels);
            const auto [priors, is_log] =
                py_map_decoder::pick_priors(priors_in, log_priors);
            cluster c = cluster_from_python(self, reads);
            std::optional<py::array_t<double, py::array::c_style | py::array::forcecast>>
                pri;
            if (!priors.is_none())
                pri = priors_from_python(priors, dec->N(), dec->q());
            c.req.priors = pri ? pri->data() : nullptr;
            c.req.log_priors = is_log;
            c.req.extrinsic = extrinsic;
            py::array_t<double> post({ dec->N(), dec->q() });
            bsid::reads_result r;
            {
                py::gil_scoped_release nogil;
                r = dec->decode(c.req, post.mutable_data());
            }
            if (statuses)
                return py::make_tuple(r.ok() ? py::object(post) : py::none(),
                                      info_of(r, c));
            if (r.result.status == bsid::frame_status::decoder_error)
                throw std::runtime_error(r.result.reason);
            if (!r.ok())
                throw frame_refused(r.result);
            return std::move(post);
        },
        "reads"_a,
        "method"_a = "joint",
        "priors"_a = py::none(),
        "log_priors"_a = py::none(),
        "iterations"_a = py::none(),
        "extrinsic"_a = false,
        "channels"_a = py::none(),
        "tolerance"_a = py::none(),
        "statuses"_a = false,
        R"doc(
Decodes one frame from several received reads of it (docs/reads.md): a list
of arrays of the decoder's input kind (bits, LLRs or log-probabilities), each
the whole frame through its own channel. Returns (N, q) float64 posteriors
(or extrinsic outputs with extrinsic=True); one read gives exactly decode().

method: "joint", the exact forward-backward over the tuple of the reads'
drifts (at most 3 reads; each read's drift limits by the decoder's Pr rule);
"combine", one forward-backward per read taking the other reads' extrinsic
outputs as its priors, in rounds until no posterior moves by more than
`tolerance` (default 1e-4) or after `iterations` rounds (default 8): any
number of reads, cost linear in their number, approximate. priors /
log_priors as for decode. channels: one channel per read (each its own Pi,
Pd, Ps; the decoder's alphabet), or None for the decoder's channel.

A read that cannot be decoded (empty, invalid items, an end drift outside
its limits, probability 0 alone) is left out and the frame decodes from the
others; with statuses=True the call returns (posteriors or None, info), info
a dict: status, reason, reads (each read's (status, reason)), used,
rounds (the combiner's) and converged. Otherwise a frame that no read can
decode, or whose reads have probability 0 together, raises FrameRefused;
more than 3 reads for "joint", or a joint state space past the documented
bound, raise ValueError.)doc");

    cls.def(
        "decode_reads_batch",
        [](py_map_decoder& self,
           const py::sequence& clusters,
           const std::string& method,
           const py::object& priors_in,
           const py::object& log_priors,
           const py::object& iterations,
           bool extrinsic,
           const py::object& channels,
           const py::object& tolerance) {
            auto dec = reads_decoder_of(self, method, iterations, tolerance, channels);
            const auto [priors, is_log] =
                py_map_decoder::pick_priors(priors_in, log_priors);
            const size_t K = size_t(py::len(clusters));
            std::vector<cluster> cl;
            for (const auto& c : clusters)
                cl.push_back(cluster_from_python(self, c));
            std::vector<std::optional<
                py::array_t<double, py::array::c_style | py::array::forcecast>>>
                pri(K);
            if (!priors.is_none()) {
                if (py::isinstance<py::list>(priors) ||
                    py::isinstance<py::tuple>(priors)) {
                    if (size_t(py::len(priors)) != K) {
                        throw py::value_error("decode_reads_batch: priors has " +
                                              std::to_string(py::len(priors)) +
                                              " entries for " + std::to_string(K) +
                                              " clusters");
                    }
                    size_t k = 0;
                    for (const auto& p : priors) {
                        if (!p.is_none())
                            pri[k] = priors_from_python(p, dec->N(), dec->q());
                        ++k;
                    }
                } else {
                    const auto shared = priors_from_python(priors, dec->N(), dec->q());
                    for (auto& p : pri)
                        p = shared;
                }
            }
            std::vector<py::array_t<double>> outs;
            std::vector<bsid::frame_reads> req;
            std::vector<double*> ptrs;
            for (size_t k = 0; k < K; ++k) {
                outs.emplace_back(std::vector<py::ssize_t>{ dec->N(), dec->q() });
                cl[k].req.priors = pri[k] ? pri[k]->data() : nullptr;
                cl[k].req.log_priors = is_log;
                cl[k].req.extrinsic = extrinsic;
                req.push_back(cl[k].req);
                ptrs.push_back(outs[k].mutable_data());
            }
            std::vector<bsid::reads_result> got;
            {
                py::gil_scoped_release nogil;
                got = dec->decode_batch(req, ptrs);
            }
            py::list posts, infos;
            for (size_t k = 0; k < K; ++k) {
                posts.append(got[k].ok() ? py::object(outs[k]) : py::none());
                infos.append(info_of(got[k], cl[k]));
            }
            return py::make_tuple(posts, infos);
        },
        "clusters"_a,
        "method"_a = "joint",
        "priors"_a = py::none(),
        "log_priors"_a = py::none(),
        "iterations"_a = py::none(),
        "extrinsic"_a = false,
        "channels"_a = py::none(),
        "tolerance"_a = py::none(),
        R"doc(
decode_reads for many frames, decoded together (on the decoder's threads;
the combiner's rounds as one batch of the decoder's backend each, so that a
GPU decodes every cluster's reads at once). clusters: a list of lists of
reads. priors (or log_priors): None, one (N, q) array for all, or a list with
an array (or None) per cluster. Returns (posteriors, statuses): a list with
an (N, q) array per cluster, None for a refused one, and a list of
decode_reads' info dicts. Only invalid arguments raise.)doc");

    cls.def(
        "count_errors",
        [](py_map_decoder& self,
           const bsid::frame_batch& batch,
           int threads,
           const std::string& read_method,
           const py::object& iterations,
           const py::object& tolerance) {
            auto dec =
                reads_decoder_of(self, read_method, iterations, tolerance, py::none());
            return self.count_errors(batch, threads, dec);
        },
        "batch"_a,
        "threads"_a = 0,
        py::kw_only(),
        "read_method"_a,
        "iterations"_a = py::none(),
        "tolerance"_a = py::none(),
        R"doc(
count_errors for a batch of several reads per frame (frame_source(...,
reads=M)): each frame decoded from its reads by read_method ("joint" or
"combine", with the combiner's iterations and tolerance, as decode_reads), a
frame that no read can decode an erasure.)doc");
}
