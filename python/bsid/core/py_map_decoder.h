/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// map_decoder_core: a bsid::map_decoder (and its frame decoder) with numpy
// conversions; the stream and concatenated decoders' bindings take it.

#ifndef INCLUDED_BSID_PYTHON_PY_MAP_DECODER_H
#define INCLUDED_BSID_PYTHON_PY_MAP_DECODER_H

#include "convert.h"
#include <gnuradio/bsid/core/reads/reads_decoder.h>

namespace bsid_py {

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
                   const py::object& sync_word,
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
        d_frames = std::make_shared<bsid::frame_decoder>(
            cfg, sync_word_from_python(sync_word, ch.alphabet()));
        d_dec = &d_frames->primary();
        d_sync = sync_word_to_python(d_frames->sync_word(), ch.alphabet());
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

    const py::object& sync_word() const { return d_sync; }
    bsid::input_kind input() const { return d_input; }
    bsid::frame_decoder& frames() { return *d_frames; }

    // a received frame as this decoder takes it: letters (bits), LLRs
    // (input="llr") or log-probabilities (input="logprob")
    received_frame received(const py::handle& obj) const
    {
        return items_from_python(obj, d_input, d_dec->config().ch.alphabet());
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
            req[k].logprob = y.logprob;
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
    py::dict count_errors(const bsid::frame_batch& batch,
                          int threads,
                          const std::shared_ptr<bsid::reads_decoder>& reads = nullptr)
    {
        const size_t K = batch.size();
        py::array_t<uint8_t> status(K);
        py::array_t<int32_t> symbol_errors(K), bit_errors(K);
        py::array_t<int32_t> decisions({ py::ssize_t(K), py::ssize_t(d_dec->N()) });
        {
            py::gil_scoped_release nogil;
            std::lock_guard<std::mutex> lock(d_counter_mutex);
            // a counter per decoder (this one's frames, or a reads decoder's)
            const void* key = reads ? static_cast<const void*>(reads.get()) : nullptr;
            if (!d_counter || d_counter_threads != threads || d_counter_key != key) {
                d_counter =
                    reads ? std::make_unique<bsid::error_counter>(*reads, threads)
                          : std::make_unique<bsid::error_counter>(*d_frames, threads);
                d_counter_threads = threads;
                d_counter_key = key;
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

    /*!
     * The decoder of several reads (decode_reads, bind_reads.cc) for these
     * channels, method and combiner's rule over this decoder's settings:
     * built at the first call with them and kept (a few, most recent last).
     */
    std::shared_ptr<bsid::reads_decoder>
    reads_decoder_for(const std::vector<bsid::channel_params>& channels,
                      bsid::read_method method,
                      const bsid::combine_options& combine)
    {
        std::lock_guard<std::mutex> lock(d_reads_mutex);
        for (const auto& d : d_reads) {
            const auto& c = d->config();
            if (c.channels == channels && c.method == method &&
                c.combine.iterations == combine.iterations &&
                c.combine.tolerance == combine.tolerance)
                return d;
        }
        bsid::reads_config rc(d_frames->config());
        rc.channels = channels;
        rc.method = method;
        rc.combine = combine;
        auto made = std::make_shared<bsid::reads_decoder>(rc);
        if (d_reads.size() >= 8)
            d_reads.erase(d_reads.begin());
        d_reads.push_back(made);
        return made;
    }

private:
    static bsid::frame_view
    view_of(const received_frame& f, const double* priors, bool log_priors)
    {
        bsid::frame_view v;
        const bsid::received_items y = f.items();
        v.bits = y.bits;
        v.llr = y.llr;
        v.logprob = y.logprob;
        v.rho = f.size();
        v.priors = priors;
        v.log_priors = log_priors;
        return v;
    }

    bsid::input_kind d_input;
    std::shared_ptr<bsid::frame_decoder> d_frames; // the sync word, boundary priors
    bsid::map_decoder* d_dec = nullptr;            // its primary backend
    py::object d_sync;          // the sync word as Python shows it (sync_word_to_python)
    std::mutex d_counter_mutex; // guards d_counter and its buffers
    std::unique_ptr<bsid::error_counter> d_counter;
    int d_counter_threads = -1;
    const void* d_counter_key = nullptr;      // the reads decoder d_counter uses, or null
    std::optional<bsid::setup_watch> d_watch; // (set in the constructor)
    std::mutex d_reads_mutex;                 // guards d_reads
    std::vector<std::shared_ptr<bsid::reads_decoder>> d_reads;
};


/*!
 * The reads decoder decode_reads and count_errors use (bind_reads.cc): the
 * method by name, the combiner's iterations and tolerance (None: its
 * defaults), a channel per read (None: the decoder's). Raises ValueError
 * for a decoder with a sync word or options that do not apply.
 */
std::shared_ptr<bsid::reads_decoder> reads_decoder_of(py_map_decoder& self,
                                                      const std::string& method,
                                                      const pybind11::object& iterations,
                                                      const pybind11::object& tolerance,
                                                      const pybind11::object& channels);

} // namespace bsid_py

#endif /* INCLUDED_BSID_PYTHON_PY_MAP_DECODER_H */
