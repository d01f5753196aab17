/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core_log_handler.h"
#include "decoder_output.h"
#include "llr.h"
#include "map_decoder_impl.h"
#include "map_decoder_reads_impl.h"
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace bsid {

namespace {

std::string status_name(::bsid::frame_status s) { return ::bsid::to_string(s); }

// the input ports: the received items, and with priors_input a vector of q floats
gr::io_signature::sptr ports_in(const std::string& input, bool priors, int q, int A)
{
    const int item = int(input_item_size("map_decoder", input, A));
    if (!priors)
        return gr::io_signature::make(1, 1, item);
    return gr::io_signature::make2(2, 2, item, int(sizeof(float)) * q);
}

size_t out_item_size(const ::bsid::receiver_options& o, const ::bsid::codebook& cb)
{
    return output_item_size(parse_output_mode(o.output.kind),
                            cb.q(),
                            input_floats("map_decoder", o.input.kind, cb.alphabet()));
}


} // namespace

map_decoder::sptr map_decoder::make(const ::bsid::codebook& codebook,
                                    int N,
                                    const ::bsid::channel_params& channel,
                                    const ::bsid::receiver_options& options)
{
    if (options.input.reads < 1) {
        throw std::invalid_argument(
            "map_decoder: reads = " + std::to_string(options.input.reads) +
            " must be at least 1");
    }
    if (options.input.reads > 1) // several reads of each frame (docs/reads.md)
        return make_map_decoder_reads(codebook, N, channel, options);
    if (options.input.read_method != "joint")
        ::bsid::parse_read_method(options.input.read_method); // (checked: no effect)
    return gnuradio::make_block_sptr<map_decoder_impl>(codebook, N, channel, options);
}

map_decoder_impl::map_decoder_impl(const ::bsid::codebook& codebook,
                                   int N,
                                   const ::bsid::channel_params& channel,
                                   const ::bsid::receiver_options& options)
    : gr::block("map_decoder",
                ports_in(options.input.kind,
                         options.input.priors_input,
                         codebook.q(),
                         codebook.alphabet()),
                gr::io_signature::make(1, 1, int(out_item_size(options, codebook)))),
      d_cfg(::bsid::make_decoder_config(codebook, N, channel, options.decoding)),
      d_mode(parse_output_mode(options.output.kind)),
      d_max_batch(options.decoding.max_batch),
      d_llr_scale(options.output.llr_scale),
      d_llr_clip(options.output.llr_clip),
      d_len_key(pmt::intern(options.framing.len_tag_key)),
      d_sync(::bsid::parse_sync_word(options.framing.sync_word, codebook.alphabet())),
      d_soft(::bsid::parse_input_kind(options.input.kind) != ::bsid::input_kind::bits),
      d_stream(parse_framing("map_decoder", options.framing.framing)),
      d_rx(d_logger,
           options.framing.len_tag_key,
           input_floats("map_decoder", options.input.kind, codebook.alphabet()),
           options.input.follow_channel_tags,
           d_cfg.ch,
           { [this](const ::bsid::channel_params& ch) { return build(ch); },
             [](const decoder_ptr& dec) { return dec; } }),
      d_queue(out_item_size(options, codebook)),
      d_max_delay_ms(options.decoding.max_delay_ms),
      d_priors(options.input.priors_input)
{
    if (d_priors && d_stream) {
        throw std::invalid_argument(
            "map_decoder: priors_input = true needs framing \"tagged\", not \"stream\": "
            "stream frames are found at run time (acquisition, sync loss), so priors "
            "cannot be aligned to them");
    }
    if (d_max_batch < 1) {
        throw std::invalid_argument("map_decoder: max_batch = " +
                                    std::to_string(d_max_batch) + " must be at least 1");
    }
    if (!(d_max_delay_ms >= 0) || std::isinf(d_max_delay_ms)) {
        std::ostringstream os;
        os << "map_decoder: max_delay_ms = " << d_max_delay_ms
           << " must be a finite number of milliseconds, at least 0";
        throw std::invalid_argument(os.str());
    }
    if (!std::isfinite(d_llr_scale) || !std::isfinite(d_llr_clip) || d_llr_clip < 0) {
        throw std::invalid_argument(
            "map_decoder: llr_scale must be finite and llr_clip >= 0");
    }
    if (d_mode == mode::received && !d_stream) {
        throw std::invalid_argument(
            "map_decoder: output \"received\" needs framing \"stream\": it puts out "
            "the frames the stream receiver finds, and tagged frames are found already");
    }
    const int estimate = options.input.estimate_every;
    d_items_per_frame = d_mode == mode::received
                            ? d_sync.size() + size_t(N) * size_t(codebook.n()) // nominal
                            : output_items_per_frame(d_mode, N, codebook.q());
    install_core_log_handler();
    d_rx.start();
    if (d_stream) {
        // with estimation, the last input items are kept to cut the in-sync
        // frames out of (as tagged frames, for the tracker)
        // (and with output "received", to put them out)
        const auto& sd =
            d_rx.start_stream(options.framing, estimate > 0 || d_mode == mode::received);
        d_stream_decoder = &sd;
        GR_LOG_INFO(
            d_logger,
            "stream framing: look-ahead K = " + std::to_string(sd.options().lookahead) +
                ", start tags '" + options.framing.start_tag_key + "', " +
                (options.framing.synchronized_at_start ? "synchronized at the first bit"
                                                       : "acquiring first"));
    }
    if (estimate < 0) {
        throw std::invalid_argument(
            "map_decoder: estimate_every = " + std::to_string(estimate) +
            " must be 0 (off) or a number of frames");
    }
    if (estimate > 0) {
        d_tracker = std::make_unique<::bsid::channel_tracker>(
            d_cfg, estimate, ::bsid::estimate_options{}, d_sync);
        GR_LOG_INFO(d_logger,
                    "channel estimation: every " + std::to_string(estimate) +
                        " frames, from the last " + std::to_string(estimate));
    }
    if (!d_stream) {
        d_batcher = std::make_unique<::bsid::frame_batcher>(
            ::bsid::batcher_options{ d_max_batch, d_max_delay_ms });
        d_watch.emplace("map_decoder",
                        (long long)d_sync.size() + (long long)N * codebook.n(),
                        N,
                        codebook.n(),
                        d_cfg.ch);
    }
    message_port_register_out(pmt::mp("channel_estimate"));
    set_tag_propagation_policy(TPP_DONT); // frames change length: tags are placed by hand
}

map_decoder_impl::decoder_ptr
map_decoder_impl::build(const ::bsid::channel_params& ch) const
{
    ::bsid::decoder_config cfg = d_cfg; // written only by the constructor
    cfg.ch = ch;
    return std::make_shared<::bsid::frame_decoder>(cfg, d_sync);
}

void map_decoder_impl::set_channel(double Pi, double Pd, double Ps)
{
    if (d_rx.set_channel(Pi, Pd, Ps)) { // for frames that start from now on
        d_new_initial = true;           // the next estimate starts from it
        if (d_watch)
            d_watch->set_channel(d_cfg.ch.with_rates(Pi, Pd, Ps));
    }
}

std::vector<std::string> map_decoder_impl::warnings() const
{
    return d_stream_decoder ? d_stream_decoder->warnings() : d_watch->warnings();
}

uint64_t map_decoder_impl::warning_count() const
{
    return d_stream_decoder ? d_stream_decoder->warning_count() : d_watch->count();
}

uint64_t map_decoder_impl::batches() const
{
    return d_batcher ? d_batcher->batches() : 0;
}

double map_decoder_impl::mean_batch() const
{
    return d_batcher ? d_batcher->mean_batch() : 0.0;
}

std::string map_decoder_impl::backend() const
{
    return ::bsid::to_string(d_rx.current_decoder()->primary().backend());
}

void map_decoder_impl::forecast(int noutput_items, gr_vector_int& ninput_items_required)
{
    (void)noutput_items;
    if (d_stream) {
        // at the end of the stream, one more call (with no input) flushes
        ninput_items_required[0] =
            d_queue.size() > 0 || (!d_rx.flushed() && upstream_done(*this, -1)) ? 0 : 1;
        return;
    }
    // A frame still open (or a lost count pending) when the upstream is done
    // needs one more call, with no input, to be put out (general_work); so do
    // the channel estimates still running, to be posted while the flowgraph
    // runs (the last call with input may have come before the upstream was
    // done, and the scheduler calls no more without this). Frames on their
    // way through the batcher need calls until their results are put out,
    // whether or not more input comes (general_work waits briefly for them
    // when it has nothing else to do).
    const bool busy = d_queue.size() > 0 || !d_flight.empty();
    ninput_items_required[0] =
        busy || !d_rx.ready().empty() ||
                ((d_rx.pending() || (d_tracker && !d_estimates_final)) &&
                 upstream_done(*this, -1))
            ? 0
            : 1;
    if (d_priors) {
        // priors only for frames received without them; once the priors
        // stream has ended, one more call puts those frames out as erasures
        ninput_items_required[1] = !busy && frames_without_priors() > 0 &&
                                           !d_priors_over && !upstream_done(*this, -1, 1)
                                       ? 1
                                       : 0;
    }
}

void map_decoder_impl::stream_work(const void* in_items, size_t count, uint64_t in0)
{
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, in0, in0 + uint64_t(count));
    d_rx.push_stream(
        in_items,
        count,
        in0,
        std::move(tags),
        d_llr_gain, // soft input: the estimated LLR scale
        [this](const std::vector<::bsid::stream_frame>& frames) { emit_stream(frames); },
        [this] { take_estimates(false); });
}

void map_decoder_impl::emit_stream(const std::vector<::bsid::stream_frame>& frames)
{
    for (const auto& f : frames) {
        std::vector<gr::tag_t> tags;
        std::string erasure;
        if (f.result.ok()) {
            tags.push_back(d_rx.drift_tag(f, alias_pmt()));
        } else {
            erasure = status_name(f.result.status);
            if (f.result.status == ::bsid::frame_status::decoder_error) {
                GR_LOG_ERROR(d_logger, "erasure: " + f.result.reason);
            } else {
                GR_LOG_DEBUG(d_logger,
                             "frame " + std::to_string(f.index) + ": " + erasure + ": " +
                                 f.result.reason);
            }
        }
        if (f.result.ok())
            track_stream_frame(f);
        if (d_mode == mode::received)
            emit_received(f, tags, erasure);
        else
            emit(tags, f.result.ok() ? f.posteriors.data() : nullptr, erasure);
    }
}

void map_decoder_impl::emit_received(const ::bsid::stream_frame& f,
                                     const std::vector<gr::tag_t>& tags,
                                     const std::string& erasure)
{
    // a decoded frame's items from its decoded start to its end; an erasure
    // puts out nothing and is counted on the next frame's bsid_frames_lost
    ++d_frames;
    std::vector<uint8_t> bits;
    std::vector<double> llr;
    const bool cut = erasure.empty() && d_rx.cut(f, bits, llr);
    const size_t count = d_soft ? llr.size() / d_rx.values_per_item() : bits.size();
    if (!cut || count == 0) {
        if (erasure.empty())
            GR_LOG_ERROR(d_logger,
                         "frame " + std::to_string(f.index) +
                             ": its received items are no longer held; it is put "
                             "out as a lost frame");
        ++d_erasures;
        d_lost.add();
        return;
    }
    const uint64_t start = d_queue.end();
    d_queue.tag(start, d_len_key, pmt::from_long(long(count)));
    d_lost.tag_next(d_queue, start);
    for (const auto& t : tags)
        d_queue.tag(start, t.key, t.value, t.srcid);
    if (d_soft) {
        const std::vector<float> v(llr.begin(), llr.end());
        d_queue.push(reinterpret_cast<const uint8_t*>(v.data()), count);
    } else {
        d_queue.push(bits.data(), count);
    }
}

void map_decoder_impl::track_stream_frame(const ::bsid::stream_frame& f)
{
    // the frame cut at its most probable start and end, as a tagged frame
    // (W first); one whose items are gone from the history is left out
    std::vector<uint8_t> bits;
    std::vector<double> llr;
    if (d_tracker && d_rx.cut(f, bits, llr))
        d_tracker->add(std::move(bits), std::move(llr));
}

// ---- output

void map_decoder_impl::emit(const std::vector<gr::tag_t>& tags,
                            const double* post,
                            const std::string& erasure)
{
    const int N = d_cfg.N, q = d_cfg.cb.q();
    const uint64_t start = d_queue.end();
    d_queue.tag(start, d_len_key, pmt::from_long(long(d_items_per_frame)));
    for (const auto& t : tags)
        d_queue.tag(start, t.key, t.value, t.srcid);
    ++d_frames;
    const bool erased = !erasure.empty();
    if (erased) {
        ++d_erasures;
        d_queue.tag(start, erasure_key(), pmt::intern(erasure));
    }
    push_frame_output(
        d_mode, erased ? nullptr : post, N, q, d_llr_scale, d_llr_clip, d_queue);
}

void map_decoder_impl::admit()
{
    auto& ready = d_rx.ready();
    while (!ready.empty() && d_flight.size() < flight_room()) {
        frame& f = ready.front();
        if (d_priors && d_prior_ready.empty() && !d_priors_over)
            return; // its priors have not come yet
        prior_frame pri;
        if (d_priors)
            take_prior(pri); // once the priors have ended: an erasure
        in_flight e;
        if (f.lost > 0) {
            // lost frames, one at a time: a huge count never fills memory
            // (each takes its priors too)
            e.erasure = f.erasure;
            d_flight.push_back(std::move(e));
            if (--f.lost == 0)
                ready.pop_front();
            continue;
        }
        e.tags = std::move(f.tags);
        e.erasure = f.erasure;
        if (e.erasure.empty() && d_priors)
            e.erasure = pri.erasure;
        if (e.erasure.empty() && f.store) {
            ::bsid::batched_frame b;
            b.soft = d_soft;
            if (d_soft && d_llr_gain != 1.0) {
                // the estimated LLR scale, applied to a copy: the tracker
                // takes the frame's LLRs as they came
                b.llr = f.llr;
                for (double& l : b.llr)
                    l *= d_llr_gain;
                if (d_tracker)
                    e.llr = std::move(f.llr);
            } else if (d_soft) {
                b.llr = std::move(f.llr);
            } else {
                b.bits = std::move(f.bits);
            }
            if (d_priors)
                b.log_priors = std::move(pri.logs);
            b.extrinsic = d_mode == mode::extrinsic;
            e.decoded = true;
            e.ch = f.dec->config().ch;
            e.sequence = d_batcher->push(std::move(b), f.dec); // W weighed, if any
        }
        d_flight.push_back(std::move(e));
        ready.pop_front();
    }
}

void map_decoder_impl::drain(uint64_t cap, double wait_ms)
{
    // waits only when the next output frame is a result not yet taken
    const bool need = !d_flight.empty() && d_flight.front().decoded && d_results.empty();
    for (auto& r : d_batcher->take(need ? wait_ms : 0.0))
        d_results.push_back(std::move(r));
    while (!d_flight.empty() && d_queue.size() < cap) {
        in_flight& e = d_flight.front();
        if (!e.decoded) {
            emit(e.tags, nullptr, e.erasure);
            d_flight.pop_front();
            continue;
        }
        if (d_results.empty())
            break; // still being decoded
        ::bsid::batched_result& r = d_results.front();
        if (r.sequence != e.sequence) {
            // the batcher returns its results in push order: never happens
            throw std::logic_error("map_decoder: the batcher's result " +
                                   std::to_string(r.sequence) + " came for frame " +
                                   std::to_string(e.sequence));
        }
        std::string erasure;
        if (r.result.ok()) {
            // does N fit the frames? (their received lengths, against the
            // channel each went through: bsid_channel tags may change it)
            d_watch->add_received_length(d_soft
                                             ? r.frame.llr.size() / d_rx.values_per_item()
                                             : r.frame.bits.size(),
                                         e.ch);
            track(std::move(r.frame.bits),
                  e.llr.empty() ? std::move(r.frame.llr) : std::move(e.llr));
        } else {
            erasure = status_name(r.result.status);
            if (r.result.status == ::bsid::frame_status::decoder_error) {
                GR_LOG_ERROR(d_logger, "erasure: " + r.result.reason);
            } else if (r.result.status == ::bsid::frame_status::invalid_input &&
                       !r.frame.log_priors.empty()) {
                GR_LOG_WARN(d_logger,
                            "a frame is put out as an invalid_input erasure: " +
                                r.result.reason);
            } else {
                GR_LOG_DEBUG(d_logger, "erasure: " + r.result.reason);
            }
        }
        emit(e.tags, r.result.ok() ? r.posteriors.data() : nullptr, erasure);
        d_batcher->recycle(std::move(r.posteriors)); // decoded into again
        d_results.pop_front();
        d_flight.pop_front();
    }
    take_estimates(false);
}

void map_decoder_impl::produce(uint64_t cap, bool input_over, double wait_ms)
{
    admit();
    if (!input_over) {
        // a full flight takes no more frames: what the batcher holds goes
        // now rather than wait out max_delay_ms for frames that cannot come
        if (d_flight.size() >= flight_room())
            d_batcher->flush();
        drain(cap, wait_ms);
        admit(); // into the room made
        return;
    }
    // The input has ended: nothing more will fill a batch, so every frame
    // goes to the decoder now, and the call waits for the results (until
    // the queue is full; the next call goes on).
    while (d_queue.size() < cap) {
        admit();
        d_batcher->flush();
        if (d_flight.empty())
            break; // nothing ready, or frames waiting for their priors
        drain(cap, 100.0);
    }
}

void map_decoder_impl::track(std::vector<uint8_t>&& bits, std::vector<double>&& llr)
{
    if (d_tracker) // the frame is put out and dropped next: its items move
        d_tracker->add(std::move(bits), std::move(llr));
}

void map_decoder_impl::take_estimates(bool wait)
{
    if (!d_tracker)
        return;
    if (d_new_initial.exchange(false))
        d_tracker->set_channel(d_rx.channel(), d_llr_gain);
    // each estimate applied before the next starts from it
    while (auto u = wait ? d_tracker->wait() : d_tracker->poll()) {
        apply_estimate(*u);
        d_tracker->start_pending();
    }
}

void map_decoder_impl::apply_estimate(const ::bsid::channel_tracker::update& u)
{
    ++d_estimates;
    pmt::pmt_t d = pmt::make_dict();
    d = pmt::dict_add(d, pmt::mp("frames_seen"), pmt::from_uint64(u.frames_seen));
    if (!u.ok) {
        GR_LOG_WARN(d_logger, "channel estimate failed: " + u.error);
        d = pmt::dict_add(d, pmt::mp("error"), pmt::mp(u.error));
        d = pmt::dict_add(d, pmt::mp("applied"), pmt::PMT_F);
        message_port_pub(pmt::mp("channel_estimate"), d);
        return;
    }
    const auto& e = u.estimate;
    const bool apply = !d_rx.channel_tagged();
    std::ostringstream os;
    os << "channel estimate from " << e.frames_used << " frames (" << e.iterations
       << " iterations" << (e.converged ? "" : ", not converged") << "): " << e.ch.repr();
    if (d_soft)
        os << ", LLR scale " << e.llr_scale;
    os << (apply ? "; applied to the frames that begin from now on"
                 : "; not applied: bsid_channel tags set the channel");
    GR_LOG_INFO(d_logger, os.str());
    if (apply) {
        d_rx.switch_to(e.ch);
        d_llr_gain = e.llr_scale;
        d_tracker->set_channel(e.ch, e.llr_scale);
    }
    d = pmt::dict_add(d, pmt::mp("Pi"), pmt::from_double(e.ch.Pi()));
    d = pmt::dict_add(d, pmt::mp("Pd"), pmt::from_double(e.ch.Pd()));
    d = pmt::dict_add(d, pmt::mp("Ps"), pmt::from_double(e.ch.Ps()));
    d = pmt::dict_add(d, pmt::mp("llr_scale"), pmt::from_double(e.llr_scale));
    d = pmt::dict_add(d, pmt::mp("iterations"), pmt::from_long(e.iterations));
    d = pmt::dict_add(d, pmt::mp("converged"), pmt::from_bool(e.converged));
    d = pmt::dict_add(d, pmt::mp("frames"), pmt::from_uint64(e.frames_used));
    d = pmt::dict_add(
        d, pmt::mp("log_likelihood"), pmt::from_double(e.log_likelihoods.back()));
    d = pmt::dict_add(d, pmt::mp("applied"), pmt::from_bool(apply));
    // the estimator's notes (clamps, refusals, a fit worse than random
    // items), each logged by the estimator already
    pmt::pmt_t notes = pmt::make_vector(e.notes.size(), pmt::PMT_NIL);
    for (size_t k = 0; k < e.notes.size(); ++k)
        pmt::vector_set(notes, k, pmt::mp(e.notes[k]));
    d = pmt::dict_add(d, pmt::mp("notes"), notes);
    message_port_pub(pmt::mp("channel_estimate"), d);
}

int map_decoder_impl::general_work(int noutput_items,
                                   gr_vector_int& ninput_items,
                                   gr_vector_const_void_star& input_items,
                                   gr_vector_void_star& output_items)
{
    const auto* in = static_cast<const uint8_t*>(input_items[0]); // item bytes
    const uint64_t in0 = nitems_read(0);
    if (d_stream) {
        // take input while little output waits; one stream is decoded in
        // order, frame by frame, as its bits arrive
        const uint64_t cap =
            std::max<uint64_t>(uint64_t(noutput_items) * 2, d_items_per_frame * 4);
        const long nin = d_queue.size() < cap ? ninput_items[0] : 0;
        const bool ended =
            !d_rx.flushed() && nin == ninput_items[0] && upstream_done(*this, nin);
        stream_work(in, size_t(nin), in0);
        consume_each(int(nin));
        if (ended) {
            emit_stream(d_rx.flush_stream()); // the end of the stream: a partial frame
            take_estimates(true);             // posted while the flowgraph still runs
            d_lost.end_of_stream(d_logger, "erasures()");
        }
        auto* out = static_cast<uint8_t*>(output_items[0]);
        const size_t n =
            d_queue.pop(out, size_t(noutput_items), [&](const queued_tag& t) {
                add_item_tag(0, t.offset, t.key, t.value, t.srcid);
            });
        return int(n);
    }

    // Take input while little output waits and the flight has room; a frame
    // in progress always continues, so a frame longer than any buffer still
    // completes.
    const uint64_t cap = std::max<uint64_t>(uint64_t(noutput_items) * 2,
                                            d_items_per_frame * uint64_t(d_max_batch));
    const long nin =
        ((d_queue.size() < cap && d_rx.ready().size() < size_t(d_max_batch) &&
          d_flight.size() < flight_room()) ||
         d_rx.in_frame())
            ? ninput_items[0]
            : 0;
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, in0, in0 + uint64_t(nin));
    d_rx.feed(in, size_t(nin), in0, std::move(tags));
    // Asked before consume_each: that moves the read pointer at once, after
    // which items_available() no longer counts this call's items, and items
    // the upstream wrote since ninput_items was taken would pass for them.
    const bool input_over = nin == ninput_items[0] && upstream_done(*this, nin);
    const bool ended = d_rx.pending() && input_over;
    consume(0, int(nin));
    if (ended)
        d_rx.finish(); // an open frame never completes: truncated

    if (d_priors && !d_priors_over) {
        // priors ahead of the frames, up to two batches' worth; a frame of
        // priors in progress is completed, no further
        const uint64_t avail = uint64_t(ninput_items[1]);
        const uint64_t pin =
            d_prior_ready.size() < 2 * size_t(d_max_batch)
                ? avail
                : (d_pin_frame ? std::min<uint64_t>(avail, d_pleft) : uint64_t(0));
        feed_priors(
            static_cast<const float*>(input_items[1]), size_t(pin), nitems_read(1));
        const bool priors_over = pin == avail && upstream_done(*this, long(pin), 1);
        consume(1, int(pin));
        if (priors_over) {
            d_priors_over = true;
            if (d_pin_frame)
                finish_prior(true); // the priors stream ended inside a frame
        }
    }

    // With no input taken and no output waiting, the call waits a little
    // for the batcher (the scheduler calls again at once while frames are
    // on their way: forecast), rather than spin.
    const double wait_ms = nin == 0 && d_queue.size() == 0 ? 5.0 : 0.0;
    produce(cap, input_over, wait_ms);
    if (input_over && d_rx.ready().empty() && d_flight.empty() && !d_estimates_final) {
        take_estimates(true); // posted while the flowgraph still runs
        d_estimates_final = true;
    }

    auto* out = static_cast<uint8_t*>(output_items[0]);
    const size_t n = d_queue.pop(out, size_t(noutput_items), [&](const queued_tag& t) {
        add_item_tag(0, t.offset, t.key, t.value, t.srcid);
    });
    return int(n);
}

bool map_decoder_impl::stop()
{
    take_estimates(true); // stopped before the input ended: the one running, logged
    d_rx.stop();
    if (d_batcher) {
        if (!d_flight.empty()) {
            // only when the flowgraph is stopped before the input ended: at
            // its end, the block waits for every frame
            GR_LOG_WARN(d_logger,
                        "the flowgraph stopped with " + std::to_string(d_flight.size()) +
                            " frames on their way through the decoder; they were not "
                            "put out");
        }
        std::ostringstream os;
        os << "frames " << d_frames.load() << " put out (" << d_erasures.load()
           << " erasures), " << d_batcher->frames() << " decoded in "
           << d_batcher->batches() << " batches, mean batch " << d_batcher->mean_batch()
           << " (max_batch " << d_max_batch << ", max_delay_ms " << d_max_delay_ms << ")";
        GR_LOG_INFO(d_logger, os.str());
    }
    return true;
}

} // namespace bsid
} // namespace gr
