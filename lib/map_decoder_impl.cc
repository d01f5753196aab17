/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "map_decoder_impl.h"
#include "llr.h"
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace bsid {

namespace {

const pmt::pmt_t erasure_key = pmt::intern("bsid_erasure");
const pmt::pmt_t lost_key = pmt::intern("bsid_frames_lost");

map_decoder_impl::mode parse_mode(const std::string& s)
{
    if (s == "posteriors") return map_decoder_impl::mode::posteriors;
    if (s == "llr") return map_decoder_impl::mode::llr;
    if (s == "hard") return map_decoder_impl::mode::hard;
    throw std::invalid_argument("map_decoder: output '" + s +
                                "' is not one of posteriors, llr, hard");
}

size_t item_size(map_decoder_impl::mode m, int q)
{
    switch (m) {
    case map_decoder_impl::mode::posteriors:
        return sizeof(float) * size_t(q);
    case map_decoder_impl::mode::llr:
        return sizeof(float);
    default:
        return sizeof(int32_t);
    }
}

} // namespace

map_decoder::sptr map_decoder::make(const ::bsid::codebook& codebook,
                                    int N,
                                    double Pi,
                                    double Pd,
                                    double Ps,
                                    const std::string& output,
                                    const std::string& backend,
                                    const std::string& precision,
                                    const std::string& storage,
                                    double Pr,
                                    int max_batch,
                                    float llr_scale,
                                    float llr_clip,
                                    const std::string& len_tag_key)
{
    return gnuradio::make_block_sptr<map_decoder_impl>(codebook, N, Pi, Pd, Ps, output, backend,
                                                       precision, storage, Pr, max_batch,
                                                       llr_scale, llr_clip, len_tag_key);
}

map_decoder_impl::map_decoder_impl(const ::bsid::codebook& codebook,
                                   int N,
                                   double Pi,
                                   double Pd,
                                   double Ps,
                                   const std::string& output,
                                   const std::string& backend,
                                   const std::string& precision,
                                   const std::string& storage,
                                   double Pr,
                                   int max_batch,
                                   float llr_scale,
                                   float llr_clip,
                                   const std::string& len_tag_key)
    : gr::block("map_decoder",
                gr::io_signature::make(1, 1, sizeof(uint8_t)),
                gr::io_signature::make(1, 1, item_size(parse_mode(output), codebook.q()))),
      d_cfg(codebook, ::bsid::channel_params(Pi, Pd, Ps), N),
      d_mode(parse_mode(output)),
      d_max_batch(max_batch),
      d_llr_scale(llr_scale),
      d_llr_clip(llr_clip),
      d_len_key(pmt::intern(len_tag_key)),
      d_queue(item_size(parse_mode(output), codebook.q()))
{
    if (max_batch < 1) {
        throw std::invalid_argument("map_decoder: max_batch = " + std::to_string(max_batch) +
                                    " must be at least 1");
    }
    if (!std::isfinite(llr_scale) || !std::isfinite(llr_clip) || llr_clip < 0) {
        throw std::invalid_argument("map_decoder: llr_scale must be finite and llr_clip >= 0");
    }
    d_cfg.backend = ::bsid::parse_backend(backend);
    d_cfg.precision = ::bsid::parse_precision(precision);
    d_cfg.storage = ::bsid::parse_storage(storage);
    d_cfg.Pr = Pr;
    d_items_per_frame =
        d_mode == mode::llr ? size_t(N) * size_t(llr_bits_per_symbol(codebook.q())) : size_t(N);
    d_dec = build(Pi, Pd, Ps);
    set_tag_propagation_policy(TPP_DONT); // frames change length: tags are placed by hand
}

std::unique_ptr<::bsid::map_decoder> map_decoder_impl::build(double Pi, double Pd, double Ps) const
{
    ::bsid::decoder_config cfg = [this] {
        std::lock_guard<std::mutex> lock(d_dec_mutex); // set_channel writes d_cfg.ch
        return d_cfg;
    }();
    cfg.ch = ::bsid::channel_params(Pi, Pd, Ps);
    auto dec = ::bsid::map_decoder::make(cfg);
    const auto& L = dec->limits();
    std::ostringstream os;
    os << "backend " << ::bsid::to_string(dec->backend()) << ", "
       << ::bsid::to_string(dec->precision()) << ", " << ::bsid::to_string(dec->storage())
       << " storage; " << cfg.ch.repr() << "; drift limits m_tau = [" << L.mtau.lo << ", "
       << L.mtau.hi << "], m_n = [" << L.mn.lo << ", " << L.mn.hi << "]";
    GR_LOG_INFO(d_logger, os.str());
    return dec;
}

void map_decoder_impl::set_channel(double Pi, double Pd, double Ps)
{
    auto dec = build(Pi, Pd, Ps); // throws on bad values, leaving the decoder as it was
    std::lock_guard<std::mutex> lock(d_dec_mutex);
    d_dec = std::move(dec);
    d_cfg.ch = ::bsid::channel_params(Pi, Pd, Ps);
}

std::string map_decoder_impl::backend() const
{
    std::lock_guard<std::mutex> lock(d_dec_mutex);
    return ::bsid::to_string(d_dec->backend());
}

void map_decoder_impl::forecast(int noutput_items, gr_vector_int& ninput_items_required)
{
    (void)noutput_items;
    // A frame still open when the upstream is done needs one more call, with
    // no input, to be put out as an erasure (general_work).
    ninput_items_required[0] =
        d_queue.size() > 0 || !d_ready.empty() || (d_in_frame && input_ended(-1)) ? 0 : 1;
}

bool map_decoder_impl::input_ended(long in_this_call) const
{
    const auto d = detail();
    if (!d || d->ninputs() < 1) return false;
    const auto in = d->input(0);
    gr::thread::scoped_lock guard(*in->mutex());
    // done first: once the upstream is done, items_available() is final
    return in->done() && (in_this_call < 0 || in->items_available() <= in_this_call);
}

void map_decoder_impl::begin_frame(long length, std::vector<gr::tag_t> tags)
{
    d_cur = frame{};
    d_cur.tags = std::move(tags);
    d_cur_left = std::max(0L, length);
    d_in_frame = true;
    // A frame that will be refused for its length is counted, not stored:
    // a bogus length tag cannot make the block hold gigabytes.
    std::lock_guard<std::mutex> lock(d_dec_mutex);
    const auto pre = d_dec->check_length(size_t(d_cur_left));
    d_cur_store = pre.ok();
    if (d_cur_store) d_cur.bits.reserve(size_t(d_cur_left));
    if (d_cur_left == 0) end_frame();
}

void map_decoder_impl::end_frame()
{
    d_cur.rho = d_cur_store ? d_cur.bits.size() : d_cur.rho;
    d_ready.push_back(std::move(d_cur));
    d_cur = frame{};
    d_in_frame = false;
    d_cur_left = 0;
}

void map_decoder_impl::emit(const frame& f, const double* post, const std::string& erasure)
{
    const int N = d_cfg.N, q = d_cfg.cb.q();
    const uint64_t start = d_queue.end();
    d_queue.tag(start, d_len_key, pmt::from_long(long(d_items_per_frame)));
    for (const auto& t : f.tags) d_queue.tag(start, t.key, t.value, t.srcid);
    ++d_frames;
    const bool erased = !erasure.empty();
    if (erased) {
        ++d_erasures;
        d_queue.tag(start, erasure_key, pmt::intern(erasure));
    }
    switch (d_mode) {
    case mode::posteriors: {
        std::vector<float> v(size_t(N) * size_t(q));
        for (size_t k = 0; k < v.size(); ++k) v[k] = erased ? 1.0f / float(q) : float(post[k]);
        d_queue.push(reinterpret_cast<const uint8_t*>(v.data()), size_t(N));
        break;
    }
    case mode::llr: {
        std::vector<float> v(d_items_per_frame, 0.0f);
        if (!erased) posteriors_to_llr(post, N, q, d_llr_scale, d_llr_clip, v.data());
        d_queue.push(reinterpret_cast<const uint8_t*>(v.data()), v.size());
        break;
    }
    case mode::hard: {
        std::vector<int32_t> v(size_t(N), -1);
        if (!erased) ::bsid::hard_decisions(post, N, q, v.data());
        d_queue.push(reinterpret_cast<const uint8_t*>(v.data()), v.size());
        break;
    }
    }
}

void map_decoder_impl::decode_ready()
{
    const size_t NQ = size_t(d_cfg.N) * size_t(d_cfg.cb.q());
    size_t k = 0;
    while (k < d_ready.size()) {
        // the next batch: up to max_batch frames, in order
        const size_t end = std::min(d_ready.size(), k + size_t(d_max_batch));
        std::vector<::bsid::frame_view> views;
        std::vector<std::vector<double>> posts;
        std::vector<size_t> which;
        for (size_t j = k; j < end; ++j) {
            const frame& f = d_ready[j];
            if (!f.erasure.empty() || !(f.rho == f.bits.size())) continue;
            which.push_back(j);
            views.push_back({ f.bits.data(), f.bits.size(), nullptr });
        }
        posts.assign(views.size(), std::vector<double>(NQ));
        std::vector<double*> outs;
        for (auto& p : posts) outs.push_back(p.data());
        std::vector<::bsid::frame_result> results;
        {
            std::lock_guard<std::mutex> lock(d_dec_mutex);
            results = d_dec->decode_batch(views, outs);
            size_t w = 0;
            for (size_t j = k; j < end; ++j) {
                const frame& f = d_ready[j];
                std::string erasure = f.erasure;
                const double* post = nullptr;
                if (w < which.size() && which[w] == j) {
                    const auto& r = results[w];
                    if (r.ok()) {
                        post = posts[w].data();
                    } else {
                        erasure = ::bsid::to_string(r.status);
                        GR_LOG_DEBUG(d_logger, "erasure: " + r.reason);
                    }
                    ++w;
                } else if (erasure.empty()) {
                    // not stored: refused for its length when its tag arrived
                    const auto r = d_dec->check_length(f.rho);
                    erasure = r.ok() ? "truncated" : ::bsid::to_string(r.status);
                    GR_LOG_DEBUG(d_logger, "erasure: " + (r.ok() ? erasure : r.reason));
                }
                emit(f, post, erasure);
            }
        }
        k = end;
    }
    d_ready.clear();
}

int map_decoder_impl::general_work(int noutput_items,
                                   gr_vector_int& ninput_items,
                                   gr_vector_const_void_star& input_items,
                                   gr_vector_void_star& output_items)
{
    const auto* in = static_cast<const uint8_t*>(input_items[0]);
    const uint64_t in0 = nitems_read(0);

    // Take input while little output waits; a frame in progress always
    // continues, so a frame longer than any buffer still completes.
    const uint64_t cap = std::max<uint64_t>(uint64_t(noutput_items) * 2,
                                            d_items_per_frame * uint64_t(d_max_batch));
    const long nin = (d_queue.size() < cap || d_in_frame) ? ninput_items[0] : 0;
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, in0, in0 + uint64_t(nin));
    std::stable_sort(tags.begin(), tags.end(), gr::tag_t::offset_compare);

    long pos = 0;
    size_t ti = 0;
    while (pos < nin) {
        const uint64_t abs = in0 + uint64_t(pos);
        // Several length tags on one item: all but the last start frames that
        // received nothing (their successor starts on the same item); a
        // frames-lost count belongs to the last one, the frame with bits.
        std::vector<long> lengths;
        long lost = 0;
        std::vector<gr::tag_t> others;
        while (ti < tags.size() && tags[ti].offset == abs) {
            const auto& t = tags[ti++];
            if (pmt::eqv(t.key, d_len_key)) {
                lengths.push_back(pmt::is_integer(t.value) ? pmt::to_long(t.value) : 0);
            } else if (pmt::eqv(t.key, lost_key)) {
                lost = pmt::is_integer(t.value) ? std::max(0L, pmt::to_long(t.value)) : 0;
            } else {
                others.push_back(t);
            }
        }
        for (size_t k = 0; k < lengths.size(); ++k) {
            if (d_in_frame) {
                // the previous frame was cut short by this one
                const size_t got = d_cur_store ? d_cur.bits.size() : d_cur.rho;
                GR_LOG_WARN(d_logger, "a frame ends after " + std::to_string(got) + " of its bits: "
                                      "the next frame starts at input item " + std::to_string(abs));
                d_cur.erasure = "truncated";
                end_frame();
            }
            const bool last = k + 1 == lengths.size();
            if (last) {
                for (long j = 0; j < lost; ++j) {
                    frame f;
                    f.erasure = "frame_lost";
                    d_ready.push_back(std::move(f));
                }
                lost = 0;
            }
            begin_frame(lengths[k], last ? std::move(others) : std::vector<gr::tag_t>{});
        }
        for (long j = 0; j < lost; ++j) { // a count with no frame starting here
            frame f;
            f.erasure = "frame_lost";
            d_ready.push_back(std::move(f));
        }

        long run = nin - pos;
        if (ti < tags.size()) run = std::min<long>(run, long(tags[ti].offset - abs));
        if (d_in_frame) {
            run = std::min(run, d_cur_left);
            if (d_cur_store) {
                d_cur.bits.insert(d_cur.bits.end(), in + pos, in + pos + run);
            } else {
                d_cur.rho += size_t(run);
            }
            d_cur_left -= run;
            if (d_cur_left == 0) end_frame();
        } else if (run > 0) {
            if (d_bits_discarded == 0) {
                GR_LOG_WARN(d_logger, "input bits outside any tagged frame are discarded (no '" +
                                          pmt::symbol_to_string(d_len_key) + "' tag)");
            }
            d_bits_discarded += uint64_t(run);
        }
        pos += run;
    }
    // Asked before consume_each: that moves the read pointer at once, after
    // which items_available() no longer counts this call's items, and items
    // the upstream wrote since ninput_items was taken would pass for them.
    const bool ended_in_frame = d_in_frame && nin == ninput_items[0] && input_ended(nin);
    consume_each(int(nin));

    if (ended_in_frame) {
        // the stream ended inside a frame: it will never complete
        const size_t got = d_cur_store ? d_cur.bits.size() : d_cur.rho;
        GR_LOG_WARN(d_logger, "the stream ended inside a frame after " + std::to_string(got) +
                                  " of its bits (" + std::to_string(d_cur_left) +
                                  " missing); it is put out as a truncated erasure");
        d_cur.erasure = "truncated";
        end_frame();
    }

    if (!d_ready.empty()) decode_ready();

    auto* out = static_cast<uint8_t*>(output_items[0]);
    const size_t n = d_queue.pop(out, size_t(noutput_items), [&](const queued_tag& t) {
        add_item_tag(0, t.offset, t.key, t.value, t.srcid);
    });
    return int(n);
}

bool map_decoder_impl::stop()
{
    if (d_in_frame) {
        // only when the flowgraph is stopped mid-frame: at the end of the
        // stream, general_work has already put the frame out as an erasure
        GR_LOG_WARN(d_logger, "the flowgraph stopped inside a frame: " +
                                  std::to_string(d_cur.bits.size() + d_cur.rho) + " bits, " +
                                  std::to_string(d_cur_left) + " missing; it was not decoded");
    }
    return true;
}

} // namespace bsid
} // namespace gr
