/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "concatenated_decoder_impl.h"
#include "core_log_handler.h"
#include <gnuradio/bsid/core/channel/soft_input.h>
#include <gnuradio/bsid/core/outer/symbol_mapping.h>
#include <gnuradio/bsid/core/sim/error_counter.h>
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace bsid {

namespace {

const pmt::pmt_t erasure_key = pmt::intern("bsid_erasure");
const pmt::pmt_t frame_ok_key = pmt::intern("bsid_frame_ok");
const pmt::pmt_t iterations_key = pmt::intern("bsid_iterations");

std::string status_name(::bsid::frame_status s) { return ::bsid::to_string(s); }


// N of the outer code's frames with this codebook; the mapping's refusal
// names the sizes
int inner_symbols(const ::bsid::ldpc_code& outer, const ::bsid::codebook& cb)
{
    try {
        return ::bsid::symbol_mapping(outer.q(), outer.n(), cb.q()).n_inner();
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(
            "concatenated_decoder: the outer code (n = " + std::to_string(outer.n()) +
            " over GF(" + std::to_string(outer.q()) +
            ")) does not fit the codebook's q = " + std::to_string(cb.q()) + ": " +
            e.what());
    }
}

} // namespace

concatenated_decoder::sptr
concatenated_decoder::make(const ::bsid::codebook& codebook,
                           const ::bsid::ldpc_code& outer,
                           const ::bsid::channel_params& channel,
                           int iterations,
                           int bp_iterations,
                           const ::bsid::receiver_options& options)
{
    return gnuradio::make_block_sptr<concatenated_decoder_impl>(
        codebook, outer, channel, iterations, bp_iterations, options);
}

concatenated_decoder_impl::concatenated_decoder_impl(
    const ::bsid::codebook& codebook,
    const ::bsid::ldpc_code& outer,
    const ::bsid::channel_params& channel,
    int iterations,
    int bp_iterations,
    const ::bsid::receiver_options& options)
    : gr::block("concatenated_decoder",
                gr::io_signature::make(1,
                                       1,
                                       input_item_size("concatenated_decoder",
                                                       options.input.kind,
                                                       codebook.alphabet())),
                gr::io_signature::make(1, 1, sizeof(uint8_t))),
      d_code(outer),
      // the decoding options parsed as the map_decoder block parses them
      d_cfg(::bsid::make_decoder_config(
          codebook, inner_symbols(outer, codebook), channel, options.decoding)),
      d_bits(::bsid::error_counter::bits_per_symbol(outer.q())),
      d_K(outer.k() * ::bsid::error_counter::bits_per_symbol(outer.q())),
      d_max_batch(options.decoding.max_batch),
      d_len_key(pmt::intern(options.framing.len_tag_key)),
      d_sync(::bsid::parse_sync_word(options.framing.sync_word, codebook.alphabet())),
      d_soft(::bsid::parse_input_kind(options.input.kind) != ::bsid::input_kind::bits),
      d_stream(parse_framing("concatenated_decoder", options.framing.framing)),
      d_rx(d_logger,
           options.framing.len_tag_key,
           input_floats("concatenated_decoder", options.input.kind, codebook.alphabet()),
           options.input.follow_channel_tags,
           d_cfg.ch,
           { [this](const ::bsid::channel_params& ch) { return build(ch); },
             [](const decoder_ptr& dec) { return dec->fd; } })
{
    if (iterations < 1 || bp_iterations < 1) {
        throw std::invalid_argument(
            "concatenated_decoder: iterations = " + std::to_string(iterations) +
            " and bp_iterations = " + std::to_string(bp_iterations) +
            " must each be at least 1");
    }
    if (d_max_batch < 1) {
        throw std::invalid_argument("concatenated_decoder: max_batch = " +
                                    std::to_string(d_max_batch) + " must be at least 1");
    }
    // a C++ caller's map_decoder-only setting would otherwise be ignored
    ::bsid::refuse_options_not_taken(
        options, ::bsid::concatenated_receiver_options(), "concatenated_decoder");
    d_opt.iterations = iterations;
    d_opt.bp_iterations = bp_iterations;
    install_core_log_handler();
    d_rx.start();
    GR_LOG_INFO(
        d_logger,
        "outer code " + (outer.spec().empty() ? std::string("(no spec)") : outer.spec()) +
            ": n = " + std::to_string(outer.n()) + ", k = " + std::to_string(outer.k()) +
            " over GF(" + std::to_string(outer.q()) + "); N = " +
            std::to_string(d_cfg.N) + " inner symbols, K = " + std::to_string(d_K) +
            " information bits a frame; " + std::to_string(iterations) +
            " passes of up to " + std::to_string(bp_iterations) + " BP iterations");
    if (d_stream) {
        // the last input items are kept to cut the in-sync frames out of
        d_rx.start_stream(options.framing, true);
    }
    set_tag_propagation_policy(TPP_DONT); // frames change length: tags are placed by hand
}

concatenated_decoder_impl::decoder_ptr
concatenated_decoder_impl::build(const ::bsid::channel_params& ch) const
{
    ::bsid::decoder_config cfg = d_cfg; // written only by the constructor
    cfg.ch = ch;
    auto dec = std::make_shared<decoder>();
    dec->fd = std::make_shared<::bsid::frame_decoder>(cfg, d_sync);
    // (without a sync word a CUDA backend still runs the passes on the device)
    dec->cd = std::make_unique<::bsid::concatenated_decoder>(*dec->fd, d_code);
    return dec;
}

void concatenated_decoder_impl::set_channel(double Pi, double Pd, double Ps)
{
    d_rx.set_channel(Pi, Pd, Ps); // for the frames that start from now on
}

std::string concatenated_decoder_impl::backend() const
{
    return ::bsid::to_string(d_rx.current_decoder()->fd->primary().backend());
}

void concatenated_decoder_impl::forecast(int noutput_items,
                                         gr_vector_int& ninput_items_required)
{
    (void)noutput_items;
    // output waiting, or a last call (with no input) at the end of the stream
    const bool last = d_stream ? !d_rx.flushed() && upstream_done(*this, -1)
                               : d_rx.pending() && upstream_done(*this, -1);
    ninput_items_required[0] =
        d_queue.size() > 0 || !d_rx.ready().empty() || last ? 0 : 1;
}

// ---- stream framing

void concatenated_decoder_impl::stream_work(const void* in_items,
                                            size_t count,
                                            uint64_t in0)
{
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, in0, in0 + uint64_t(count));
    const double llr_gain = 1.0;
    d_rx.push_stream(
        in_items,
        count,
        in0,
        std::move(tags),
        llr_gain,
        [this](const std::vector<::bsid::stream_frame>& frames) { emit_stream(frames); });
}

void concatenated_decoder_impl::emit_stream(
    const std::vector<::bsid::stream_frame>& frames)
{
    for (const auto& sf : frames) {
        frame f;
        f.dec = d_rx.current_decoder();
        if (!sf.result.ok()) {
            f.store = false;
            f.erasure = status_name(sf.result.status);
            GR_LOG_DEBUG(d_logger,
                         "frame " + std::to_string(sf.index) + ": " + f.erasure + ": " +
                             sf.result.reason);
            d_rx.ready().push_back(std::move(f));
            continue;
        }
        f.tags.push_back(d_rx.drift_tag(sf, alias_pmt()));
        // the frame cut at its most probable start and end, decoded as a
        // tagged frame (W first)
        if (!d_rx.cut(sf, f.bits, f.llr)) {
            GR_LOG_ERROR(d_logger,
                         "frame " + std::to_string(sf.index) + ": its bits [" +
                             std::to_string(sf.start) + ", " + std::to_string(sf.end) +
                             ") are no longer held; it is put out as a decoder_error "
                             "erasure");
            f.store = false;
            f.erasure = status_name(::bsid::frame_status::decoder_error);
            d_rx.ready().push_back(std::move(f));
            continue;
        }
        f.rho = d_soft ? f.llr.size() / d_rx.values_per_item() : f.bits.size();
        d_rx.ready().push_back(std::move(f));
    }
}

// ---- decoding and output

std::vector<concatenated_decoder_impl::outcome>
concatenated_decoder_impl::decode(decoder& dec, const std::vector<const frame*>& fs)
{
    const size_t n = size_t(d_code.n());
    std::vector<outcome> out(fs.size());
    auto run = [&](const std::vector<size_t>& which) {
        std::vector<::bsid::frame_view> views;
        std::vector<int32_t*> decs;
        for (size_t j : which) {
            const frame& f = *fs[j];
            ::bsid::frame_view v;
            if (d_soft && d_rx.values_per_item() > 1) { // A log-probabilities an item
                v.logprob = f.llr.data();
                v.rho = f.llr.size() / d_rx.values_per_item();
            } else if (d_soft) {
                v.llr = f.llr.data();
                v.rho = f.llr.size();
            } else {
                v.bits = f.bits.data();
                v.rho = f.bits.size();
            }
            views.push_back(v);
            out[j].decisions.assign(n, -1);
            decs.push_back(out[j].decisions.data());
        }
        const auto res = dec.cd->decode_batch(views, d_opt, decs);
        for (size_t i = 0; i < which.size(); ++i) {
            const auto& r = res[i];
            outcome& o = out[which[i]];
            if (!r.ok()) {
                o.erasure = status_name(r.status);
                if (r.status == ::bsid::frame_status::decoder_error) {
                    GR_LOG_ERROR(d_logger, "erasure: " + r.reason);
                } else {
                    GR_LOG_DEBUG(d_logger, "erasure: " + r.reason);
                }
                continue;
            }
            if (!r.reason.empty())
                GR_LOG_DEBUG(d_logger, r.reason);
            o.iterations = r.iterations;
            o.ok = r.syndrome_ok;
        }
    };
    std::vector<size_t> all(fs.size());
    for (size_t j = 0; j < fs.size(); ++j)
        all[j] = j;
    auto fail = [&](size_t j, const std::string& why) {
        GR_LOG_ERROR(d_logger,
                     "the decoder failed on a frame (" + why +
                         "); it is put out as a decoder_error erasure");
        out[j] = outcome{};
        out[j].erasure = status_name(::bsid::frame_status::decoder_error);
    };
    try {
        run(all);
        return out;
    } catch (const std::exception& e) {
        if (fs.size() == 1) {
            fail(0, e.what());
            return out;
        }
    } catch (...) {
        if (fs.size() == 1) {
            fail(0, "an unknown exception");
            return out;
        }
    }
    // one frame's failure never takes the others down: each alone
    for (size_t j = 0; j < fs.size(); ++j) {
        out[j] = outcome{};
        try {
            run({ j });
        } catch (const std::exception& e) {
            fail(j, e.what());
        } catch (...) {
            fail(j, "an unknown exception");
        }
    }
    return out;
}

void concatenated_decoder_impl::emit(const std::vector<gr::tag_t>& tags,
                                     const outcome* o,
                                     const std::string& erasure)
{
    const uint64_t start = d_queue.end();
    const bool erased = !erasure.empty() || !o;
    const bool ok = !erased && o->ok;
    d_queue.tag(start, d_len_key, pmt::from_long(long(d_K)));
    d_queue.tag(start, frame_ok_key, pmt::from_bool(ok));
    d_queue.tag(start, iterations_key, pmt::from_long(erased ? 0 : long(o->iterations)));
    for (const auto& t : tags)
        d_queue.tag(start, t.key, t.value, t.srcid);
    ++d_frames;
    if (erased) {
        ++d_erasures;
        d_queue.tag(start, erasure_key, pmt::intern(erasure));
    }
    if (ok)
        ++d_frames_ok;
    std::vector<uint8_t> v(size_t(d_K), 0);
    if (!erased) {
        const auto& info = d_code.info_positions();
        for (size_t t = 0; t < info.size(); ++t) {
            const int32_t u = o->decisions[size_t(info[t])];
            for (int b = 0; b < d_bits; ++b) // MSB first
                v[t * size_t(d_bits) + size_t(b)] = uint8_t((u >> (d_bits - 1 - b)) & 1);
        }
    }
    d_queue.push(v.data(), v.size());
}

void concatenated_decoder_impl::produce(uint64_t cap)
{
    auto& ready = d_rx.ready();
    while (!ready.empty() && d_queue.size() < cap) {
        frame& front = ready.front();
        if (front.lost > 0) {
            // lost frames, one at a time: a huge count never fills memory
            while (front.lost > 0 && d_queue.size() < cap) {
                emit({}, nullptr, front.erasure);
                --front.lost;
            }
            if (front.lost == 0)
                ready.pop_front();
            continue;
        }
        // the next batch: up to max_batch frames in order, one decoder, no lost run
        size_t count = 0;
        while (count < ready.size() && count < size_t(d_max_batch) &&
               ready[count].lost == 0 &&
               (ready[count].dec == front.dec || !ready[count].store)) {
            ++count;
        }
        std::vector<const frame*> fs;
        std::vector<size_t> which;
        for (size_t j = 0; j < count; ++j) {
            if (ready[j].store) {
                fs.push_back(&ready[j]);
                which.push_back(j);
            }
        }
        std::vector<outcome> res;
        if (!fs.empty())
            res = decode(*front.dec, fs);
        size_t w = 0;
        for (size_t j = 0; j < count; ++j) {
            const frame& f = ready[j];
            if (w < which.size() && which[w] == j) {
                emit(f.tags, &res[w], res[w].erasure);
                ++w;
            } else {
                emit(f.tags, nullptr, f.erasure);
            }
        }
        ready.erase(ready.begin(), ready.begin() + long(count));
    }
}

int concatenated_decoder_impl::general_work(int noutput_items,
                                            gr_vector_int& ninput_items,
                                            gr_vector_const_void_star& input_items,
                                            gr_vector_void_star& output_items)
{
    const auto* in = static_cast<const uint8_t*>(input_items[0]); // item bytes
    const uint64_t in0 = nitems_read(0);
    // Take input while little output waits.
    const uint64_t cap = std::max<uint64_t>(uint64_t(noutput_items) * 2,
                                            uint64_t(d_K) * uint64_t(d_max_batch));
    const bool room = d_queue.size() < cap && d_rx.ready().size() < size_t(d_max_batch);
    if (d_stream) {
        const long nin = room ? ninput_items[0] : 0;
        const bool ended =
            !d_rx.flushed() && nin == ninput_items[0] && upstream_done(*this, nin);
        stream_work(in, size_t(nin), in0);
        consume_each(int(nin));
        if (ended) {
            emit_stream(d_rx.flush_stream()); // the end of the stream: a partial frame
        }
    } else {
        // a frame in progress always continues, so a long frame completes
        const long nin = room || d_rx.in_frame() ? ninput_items[0] : 0;
        std::vector<gr::tag_t> tags;
        get_tags_in_range(tags, 0, in0, in0 + uint64_t(nin));
        d_rx.feed(in, size_t(nin), in0, std::move(tags));
        // asked before consume_each, which moves the read pointer at once
        const bool ended =
            d_rx.pending() && nin == ninput_items[0] && upstream_done(*this, nin);
        consume_each(int(nin));
        if (ended)
            d_rx.finish(); // an open frame never completes: truncated
    }
    produce(cap);
    auto* out = static_cast<uint8_t*>(output_items[0]);
    const size_t n = d_queue.pop(out, size_t(noutput_items), [&](const queued_tag& t) {
        add_item_tag(0, t.offset, t.key, t.value, t.srcid);
    });
    return int(n);
}

bool concatenated_decoder_impl::stop()
{
    d_rx.stop();
    return true;
}

} // namespace bsid
} // namespace gr
