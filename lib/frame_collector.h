/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The receive side of the framed decoders (bsid.map_decoder and
// bsid.concatenated_decoder): the input's frames as they arrive (tagged
// frames through a frame_assembler, or in stream framing the frames a
// stream decoder finds), the frames waiting to be decoded, and the decoder
// (the channel) each frame is decoded with, as set_channel and bsid_channel
// tags choose it. Both blocks own one and decode what it collects; what they
// decode with is theirs.

#ifndef INCLUDED_BSID_FRAME_COLLECTOR_H
#define INCLUDED_BSID_FRAME_COLLECTOR_H

#include "frame_assembler.h"
#include <gnuradio/bsid/core/channel/channel_params.h>
#include <gnuradio/bsid/core/framing/stream_decoder.h>
#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/inner/frame_status.h>
#include <gnuradio/bsid/core/options/receiver_options.h>
#include <gnuradio/logger.h>
#include <gnuradio/tags.h>
#include <pmt/pmt.h>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gr {
namespace bsid {

/*!
 * A decoder block's `framing` parameter: true for "stream", false for
 * "tagged"; anything else throws std::invalid_argument naming the block.
 */
inline bool parse_framing(const std::string& block, const std::string& s)
{
    if (s == "tagged")
        return false;
    if (s == "stream")
        return true;
    throw std::invalid_argument(block + ": framing '" + s +
                                "' is not one of tagged, stream");
}

/*!
 * The floats of a decoder block's soft input item for its `input` parameter
 * and the decoder's alphabet A: one LLR ("llr", bits only), or A
 * log-probabilities ("logprob": a vector of A floats an item; for bits the
 * LLR path, lp(1) - lp(0)); 0 for bits ("bits", a byte an item: a bit, or a
 * letter in [0, A)). Anything else throws std::invalid_argument naming the
 * block.
 */
inline int input_floats(const std::string& block, const std::string& input, int A)
{
    if (input == "bits")
        return 0;
    if (input == "llr") {
        if (A != 2)
            throw std::invalid_argument(
                block + ": input 'llr' is for bits (LLRs are soft bits); over " +
                std::to_string(A) + " letters give log-probabilities: input 'logprob'");
        return 1;
    }
    if (input == "logprob")
        return A;
    throw std::invalid_argument(block + ": input '" + input +
                                "' is not one of bits, llr, logprob");
}

//! A decoder block's input item size in bytes (input_floats).
inline size_t input_item_size(const std::string& block, const std::string& input, int A)
{
    const int f = input_floats(block, input, A);
    return f == 0 ? sizeof(uint8_t) : size_t(f) * sizeof(float);
}

/*!
 * The channel a bsid_channel tag's value announces ((Pi, Pd, Ps) over bits,
 * (Pi, Pd, Ps, A) over A > 2 letters), over the alphabet and substitutions
 * of `current`; nothing, with why, for a value that is not such a channel.
 */
inline std::optional<::bsid::channel_params> channel_of_tag(
    const pmt::pmt_t& value, const ::bsid::channel_params& current, std::string& why)
{
    const size_t len = pmt::is_f64vector(value) ? pmt::length(value) : 0;
    const int A = current.alphabet();
    if (len != 3 && len != 4) {
        why = "the value " + pmt::write_string(value) +
              " is not three doubles (Pi, Pd, Ps) or four (Pi, Pd, Ps, A)";
        return std::nullopt;
    }
    const auto v = pmt::f64vector_elements(value);
    const double tagged = len == 4 ? v[3] : 2.0;
    try {
        if (tagged != double(A))
            throw std::invalid_argument(
                "it announces a channel over " + std::to_string(tagged) +
                " letters; the decoder's alphabet has " + std::to_string(A));
        return current.with_rates(v[0], v[1], v[2]);
    } catch (const std::invalid_argument& e) {
        why = e.what();
        return std::nullopt;
    }
}

/*!
 * \brief The frames a decoder block receives, and the decoder for each.
 *
 * Reads the input's tagged frames (through a frame_assembler) into frames
 * ready to decode, in stream order: received frames, erasures decided on
 * arrival (a bsid_truncated tag, a length the decoder refuses, an invalid
 * length tag, a frame cut short) and runs of lost frames. Each frame keeps
 * the decoder current when it began: set_channel and (unless turned off)
 * bsid_channel tags switch it for the frames that begin afterwards.
 *
 * In stream framing (start_stream()), the input goes to a stream decoder
 * instead, which takes up each new decoder before the next items, and the
 * last input items can be kept to cut the frames it finds out of.
 *
 * Decoder: what a block decodes one channel's frames with; the callbacks
 * build one and name the frame decoder it decodes through (which checks a
 * frame's length, describes the decoder in the log and finds stream frames).
 */
template <typename Decoder>
class frame_collector : private frame_assembler::events
{
public:
    using decoder_ptr = std::shared_ptr<Decoder>;

    //! A received frame waiting to be decoded, an erasure decided already,
    //! or (lost > 0) a run of frames the channel lost.
    struct frame {
        std::vector<uint8_t> bits;
        //! soft input instead of bits: an LLR per item, or over A > 2 letters
        //! A log-probabilities per item (values_per_item())
        std::vector<double> llr;
        size_t rho = 0;      // bits received (bits holds them unless refused early)
        std::string erasure; // status name, if already refused
        std::vector<gr::tag_t> tags; // other tags on the frame's first bit
        decoder_ptr dec;             // the decoder (channel) the frame is decoded with
        bool store = true;           // false: refused already, its bits are not kept
        uint64_t lost = 0;           // > 0: this many lost frames, put out as erasures
    };

    struct callbacks {
        //! A decoder for the channel (called without the collector's lock held).
        std::function<decoder_ptr(const ::bsid::channel_params&)> build;
        //! The frame decoder a decoder decodes through.
        std::function<std::shared_ptr<::bsid::frame_decoder>(const decoder_ptr&)> frames;
    };

    /*!
     * logger: the block's, for the warnings (held by reference: the block
     * owns the collector). len_tag_key: the frames' length tags. floats:
     * the floats of a soft input item (input_floats: 1 for an LLR, A for A
     * log-probabilities; two log-probabilities over bits are taken as their
     * LLR), 0 for a byte an item (a bit or a letter). follow_channel_tags:
     * whether bsid_channel tags switch the decoder. ch: the channel the
     * block was made with; its decoder is built by start().
     */
    frame_collector(const gr::logger_ptr& logger,
                    const std::string& len_tag_key,
                    int floats,
                    bool follow_channel_tags,
                    const ::bsid::channel_params& ch,
                    callbacks cb)
        : d_logger(logger),
          d_len_key(pmt::intern(len_tag_key)),
          d_soft(floats > 0),
          d_floats(floats),
          d_per(floats == 2 ? 1 : std::max(floats, 1)),
          d_follow_channel(follow_channel_tags),
          d_cb(std::move(cb)),
          d_ch(ch),
          d_asm(d_len_key,
                d_lost_key,
                floats > 0 ? size_t(floats) * sizeof(float) : sizeof(uint8_t))
    {
    }

    //! The values frame::llr holds per item: 1 (LLRs), or A (log-probabilities).
    size_t values_per_item() const { return d_per; }

    //! Builds the first decoder, for the channel the block was made with
    //! (once the block can build one).
    void start()
    {
        auto dec = make(channel());
        std::lock_guard<std::mutex> lock(d_mutex);
        d_dec = std::move(dec);
    }

    // ---- the input

    //! The `count` items in[0..count) from absolute offset `first`, with their tags.
    void
    feed(const uint8_t* in, size_t count, uint64_t first, std::vector<gr::tag_t> tags)
    {
        d_asm.feed(in, count, first, std::move(tags), *this);
    }
    //! The input has ended: an open frame is cut, a pending lost count queued.
    void finish() { d_asm.finish(*this); }
    bool in_frame() const { return d_asm.in_frame(); }
    //! Whether finish() has something to queue.
    bool pending() const { return d_asm.pending(); }
    //! The flowgraph stops: a frame still open is logged (it is not decoded).
    void stop() const
    {
        if (d_asm.in_frame()) {
            // only when the flowgraph is stopped mid-frame: at the end of the
            // stream, the block has already put the frame out as an erasure
            GR_LOG_WARN(
                d_logger,
                "the flowgraph stopped inside a frame: " + std::to_string(d_cur.rho) +
                    " bits, " + std::to_string(d_asm.left()) +
                    " missing; it was not decoded");
        }
    }

    //! The frames ready to decode, in order (the block takes them from the front).
    std::deque<frame>& ready() { return d_ready; }
    const std::deque<frame>& ready() const { return d_ready; }

    //! Input items outside any tagged frame (discarded), so far.
    uint64_t bits_discarded() const { return d_bits_discarded; }

    // ---- the channel

    //! Whether `t` is a bsid_channel tag this collector follows.
    bool is_channel_tag(const gr::tag_t& t) const
    {
        return d_follow_channel && pmt::eqv(t.key, d_channel_key);
    }

    //! Switches to the channel a bsid_channel tag announces (if it differs);
    //! a tag that is not a channel is logged and ignored.
    void follow_channel(const gr::tag_t& t)
    {
        // the channel block's settings for this frame and those after it
        std::string why;
        if (const auto ch = channel_of_tag(t.value, channel(), why)) {
            d_channel_tagged = true;
            {
                std::lock_guard<std::mutex> lock(d_mutex);
                if (*ch == d_ch)
                    return;
            }
            switch_to(*ch);
            return;
        }
        GR_LOG_WARN(d_logger,
                    "the bsid_channel tag on input item " + std::to_string(t.offset) +
                        " is ignored: " + why);
    }

    /*!
     * The block's set_channel, from any thread: the frames that begin from
     * now on are decoded with this channel, unless bsid_channel tags set it
     * (then it is logged and false returned). Throws std::invalid_argument on
     * bad values, leaving all as it was.
     */
    bool set_channel(double Pi, double Pd, double Ps)
    {
        // throws on bad values; the decoder's alphabet and matrix stay
        const ::bsid::channel_params ch = channel().with_rates(Pi, Pd, Ps);
        if (d_channel_tagged) {
            GR_LOG_DEBUG(d_logger,
                         "set_channel(" + ch.repr() +
                             "): the input's bsid_channel tags set the channel");
            return false;
        }
        switch_to(ch);
        return true;
    }

    //! A new decoder, for this channel, for the frames that begin from now on.
    void switch_to(const ::bsid::channel_params& ch)
    {
        auto dec = make(ch);
        std::lock_guard<std::mutex> lock(d_mutex);
        d_dec = std::move(dec);
        d_ch = ch;
        d_changed = true; // stream framing: taken up before the next bits
    }

    //! Whether a bsid_channel tag has set the channel (set_channel then does not).
    bool channel_tagged() const { return d_channel_tagged; }

    //! The decoder for frames that begin now (any thread).
    decoder_ptr current_decoder() const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_dec;
    }

    //! The channel of current_decoder() (any thread).
    ::bsid::channel_params channel() const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_ch;
    }

    // ---- stream framing

    /*!
     * Makes the stream decoder, with the current decoder, and returns it
     * (its constructor checks the options), from the block's framing options
     * (framing.start_tag_key: the tags that anchor a frame's start). keep_history: keep
     * the last input items, for cut() (four frames, their margins and the last chunk).
     */
    const ::bsid::stream_decoder& start_stream(const ::bsid::framing_options& framing,
                                               bool keep_history)
    {
        const auto fd = d_cb.frames(current_decoder());
        const auto opt =
            ::bsid::make_stream_options(framing,
                                        fd->sync_word().size(),
                                        d_per > 1 ? ::bsid::input_kind::logprob
                                        : d_soft  ? ::bsid::input_kind::llr
                                                  : ::bsid::input_kind::bits);
        d_sd = std::make_unique<::bsid::stream_decoder>(fd, opt); // checks the options
        d_start_key = pmt::intern(framing.start_tag_key);
        d_keep_history = keep_history;
        return *d_sd;
    }

    /*!
     * Stream framing: the `count` items in_items[0..count) and the tags on
     * them (offsets absolute, from `first`) to the stream decoder, in
     * chunks split at bsid_channel tags (each chunk with the channel before
     * it). After each chunk, `out` gets the frames it completed, then
     * after_chunk (if any) is called. Soft items are scaled by llr_gain,
     * read for each chunk. Nothing once flushed.
     */
    void
    push_stream(const void* in_items,
                size_t count,
                uint64_t first,
                std::vector<gr::tag_t> tags,
                const double& llr_gain,
                const std::function<void(const std::vector<::bsid::stream_frame>&)>& out,
                const std::function<void()>& after_chunk = {})
    {
        if (d_flushed || count == 0)
            return;
        std::sort(tags.begin(), tags.end(), gr::tag_t::offset_compare);
        size_t done = 0;
        std::vector<size_t> starts;
        const auto* bits = static_cast<const uint8_t*>(in_items);
        const auto* llr = static_cast<const float*>(in_items);
        auto push_until = [&](size_t upto) {
            take_channel();
            if (d_soft) {
                // float items, decoded in double
                d_llr_chunk.clear();
                append_soft(llr + done * size_t(d_floats), upto - done, d_llr_chunk);
            }
            if (d_keep_history) { // kept to cut the in-sync frames out of
                if (d_soft)
                    d_hist_llr.insert(
                        d_hist_llr.end(), d_llr_chunk.begin(), d_llr_chunk.end());
                else
                    d_hist_bits.insert(d_hist_bits.end(), bits + done, bits + upto);
            }
            if (d_soft) {
                if (llr_gain != 1.0)
                    for (double& l : d_llr_chunk)
                        l *= llr_gain;
                out(d_sd->push(d_llr_chunk.data(), upto - done, starts));
            } else {
                out(d_sd->push(bits + done, upto - done, starts));
            }
            if (d_keep_history)
                trim_history(upto - done);
            if (after_chunk)
                after_chunk();
            starts.clear();
            done = upto;
        };
        for (const auto& t : tags) {
            const size_t at = size_t(t.offset - first);
            if (pmt::eqv(t.key, d_start_key)) {
                starts.push_back(at - done);
            } else if (is_channel_tag(t)) {
                if (at > done)
                    push_until(at);
                follow_channel(t);
            }
        }
        push_until(count);
    }

    //! The end of the stream: the stream decoder's last frames (a partial one).
    std::vector<::bsid::stream_frame> flush_stream()
    {
        d_flushed = true;
        return d_sd->flush();
    }
    //! Whether flush_stream() has been called.
    bool flushed() const { return d_flushed; }

    /*!
     * A stream frame's items, cut at its most probable start and end (W
     * first) from the kept history into bits or (soft input) llr; false if
     * it has none or they are no longer held.
     */
    bool cut(const ::bsid::stream_frame& f,
             std::vector<uint8_t>& bits,
             std::vector<double>& llr)
    {
        if (f.start < 0 || f.end < f.start || uint64_t(f.start) < d_hist_begin)
            return false;
        const size_t a = size_t(uint64_t(f.start) - d_hist_begin);
        const size_t b = size_t(uint64_t(f.end) - d_hist_begin);
        if (d_soft && b * d_per <= d_hist_llr.size())
            llr.assign(d_hist_llr.begin() + long(a * d_per),
                       d_hist_llr.begin() + long(b * d_per));
        else if (!d_soft && b <= d_hist_bits.size())
            bits.assign(d_hist_bits.begin() + long(a), d_hist_bits.begin() + long(b));
        else
            return false;
        return true;
    }

    //! The bsid_drift tag of a frame found in sync (its offset is left to the block).
    gr::tag_t drift_tag(const ::bsid::stream_frame& f, const pmt::pmt_t& srcid) const
    {
        gr::tag_t t;
        t.key = d_drift_key;
        pmt::pmt_t d = pmt::make_dict();
        d = pmt::dict_add(d, pmt::intern("start"), pmt::from_long(long(f.start_drift())));
        d = pmt::dict_add(d, pmt::intern("end"), pmt::from_long(long(f.end_drift())));
        d = pmt::dict_add(
            d, pmt::intern("end_probability"), pmt::from_double(f.end_probability));
        t.value = d;
        t.srcid = srcid;
        return t;
    }

private:
    static std::string status_name(::bsid::frame_status s)
    {
        return ::bsid::to_string(s);
    }

    //! count soft items of d_floats floats each, appended to `to` in double:
    //! as they are, or two log-probabilities over bits as their LLR
    //! lp(1) - lp(0) (NaN where both are -infinity: an invalid item)
    void append_soft(const float* in, size_t count, std::vector<double>& to) const
    {
        if (d_floats == 2) {
            for (size_t j = 0; j < count; ++j)
                to.push_back(double(in[2 * j + 1]) - double(in[2 * j]));
            return;
        }
        to.insert(to.end(), in, in + count * size_t(d_floats));
    }

    //! A decoder for the channel, described in the log.
    decoder_ptr make(const ::bsid::channel_params& ch) const
    {
        decoder_ptr dec = d_cb.build(ch);
        const ::bsid::frame_decoder& fd = *d_cb.frames(dec);
        const auto& L = fd.limits();
        const auto& b = fd.primary();
        std::ostringstream os;
        os << "backend " << ::bsid::to_string(b.backend()) << ", "
           << ::bsid::to_string(b.precision()) << ", " << ::bsid::to_string(b.storage())
           << " storage; " << fd.config().ch.repr() << "; drift limits m_tau = ["
           << L.mtau.lo << ", " << L.mtau.hi << "], m_n = [" << L.mn.lo << ", " << L.mn.hi
           << "]";
        if (!fd.sync_word().empty())
            os << "; sync word of " << fd.sync_word().size() << " bits";
        GR_LOG_INFO(d_logger, os.str());
        return dec;
    }

    //! Stream framing: a new decoder (set_channel, a bsid_channel tag) for
    //! the frames decoded from now on.
    void take_channel()
    {
        decoder_ptr dec;
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            if (!d_changed)
                return;
            d_changed = false;
            dec = d_dec;
        }
        d_sd->set_decoder(d_cb.frames(dec));
    }

    //! Keeps what a frame put out later may need: it starts at most a
    //! chunk, a frame and its margins before the stream's end, so 4 frames
    //! and the chunk.
    void trim_history(size_t chunk)
    {
        const auto fd = d_cb.frames(current_decoder());
        const size_t F = fd->sync_word().size() + size_t(fd->tau()) +
                         size_t(std::max(0, fd->limits().mtau.hi));
        const size_t keep = 4 * F + chunk;
        // (the history holds `per` values an item)
        auto trim = [&](auto& h, size_t per) {
            if (h.size() > keep * per) {
                d_hist_begin += (h.size() - keep * per) / per;
                h.erase(h.begin(), h.begin() + long(h.size() - keep * per));
            }
        };
        d_soft ? trim(d_hist_llr, d_per) : trim(d_hist_bits, 1);
    }

    // frame_assembler::events: the input's frames as they arrive

    void begin(uint64_t length, std::vector<gr::tag_t> tags) override
    {
        d_cur = frame{};
        for (const auto& t : tags) {
            if (is_channel_tag(t))
                follow_channel(t);
        }
        d_cur.dec = current_decoder();
        for (const auto& t : tags) {
            if (pmt::eqv(t.key, d_truncated_key)) {
                // the channel cut this frame short: it cannot be decoded
                d_cur.erasure = status_name(::bsid::frame_status::truncated);
            }
        }
        d_cur.tags = std::move(tags);
        // A frame that will be refused for its length is counted, not stored:
        // a bogus length tag cannot make the block hold gigabytes.
        const auto pre = d_cb.frames(d_cur.dec)->check_length(
            size_t(std::min<uint64_t>(length, SIZE_MAX)));
        if (d_cur.erasure.empty() && !pre.ok()) {
            d_cur.erasure = status_name(pre.status);
            GR_LOG_DEBUG(d_logger, "erasure: " + pre.reason);
        }
        d_cur.store = d_cur.erasure.empty();
        if (d_cur.store && d_soft)
            d_cur.llr.reserve(size_t(length) * d_per);
        else if (d_cur.store)
            d_cur.bits.reserve(size_t(length));
    }

    void invalid(const gr::tag_t& tag,
                 const std::string& why,
                 std::vector<gr::tag_t> tags) override
    {
        GR_LOG_WARN(d_logger,
                    "the '" + pmt::symbol_to_string(d_len_key) + "' tag on input item " +
                        std::to_string(tag.offset) + " is not a frame length: " + why +
                        "; the frame is put out as an invalid_tag erasure and its bits "
                        "discarded");
        frame f;
        f.erasure = status_name(::bsid::frame_status::invalid_tag);
        f.tags = std::move(tags);
        f.store = false;
        d_ready.push_back(std::move(f));
    }

    void items(const uint8_t* in, size_t count) override
    {
        if (d_cur.store && d_soft) {
            const auto* f = reinterpret_cast<const float*>(in); // the assembler's floats
            append_soft(f, count, d_cur.llr);
        } else if (d_cur.store) {
            d_cur.bits.insert(d_cur.bits.end(), in, in + count);
        }
        d_cur.rho += count;
    }

    void end() override { d_ready.push_back(std::move(d_cur)); }

    void cut(uint64_t missing, bool stream_ended) override
    {
        GR_LOG_WARN(d_logger,
                    "a frame ends after " + std::to_string(d_cur.rho) + " of its bits (" +
                        std::to_string(missing) + " missing): " +
                        (stream_ended ? "the stream ended" : "the next frame started") +
                        "; it is put out as a truncated erasure");
        d_cur.erasure = status_name(::bsid::frame_status::truncated);
        d_cur.store = false;
        d_cur.bits.clear();
        d_cur.bits.shrink_to_fit();
        d_cur.llr.clear();
        d_cur.llr.shrink_to_fit();
        end();
    }

    void lost(uint64_t count) override
    {
        frame f;
        f.store = false;
        if (count > max_frames_lost) {
            GR_LOG_ERROR(d_logger,
                         "a bsid_frames_lost count of " + std::to_string(count) +
                             " is more than the " + std::to_string(max_frames_lost) +
                             " a count may report; it is put out as one invalid_tag "
                             "erasure");
            f.erasure = status_name(::bsid::frame_status::invalid_tag);
        } else {
            f.lost = count; // put out one erasure at a time, as the output drains
            f.erasure = status_name(::bsid::frame_status::frame_lost);
        }
        d_ready.push_back(std::move(f));
    }

    void invalid_lost(const gr::tag_t& tag, const std::string& why) override
    {
        // frames were lost, how many is not known: one invalid_tag erasure
        // (as for a count beyond max_frames_lost), so that the decoder
        // downstream of it sees the loss
        GR_LOG_ERROR(d_logger,
                     "the bsid_frames_lost tag on input item " +
                         std::to_string(tag.offset) + " is not a count: " + why +
                         "; it is put out as one invalid_tag erasure");
        frame f;
        f.store = false;
        f.erasure = status_name(::bsid::frame_status::invalid_tag);
        d_ready.push_back(std::move(f));
    }

    void outside(const uint8_t* in, size_t count, std::vector<gr::tag_t> tags) override
    {
        (void)in;
        (void)tags;
        if (d_bits_discarded == 0) {
            GR_LOG_WARN(d_logger,
                        "input bits outside any tagged frame are discarded (no valid '" +
                            pmt::symbol_to_string(d_len_key) + "' tag)");
        }
        d_bits_discarded += uint64_t(count);
    }

    const gr::logger_ptr& d_logger;
    const pmt::pmt_t d_lost_key = pmt::intern("bsid_frames_lost");
    const pmt::pmt_t d_truncated_key = pmt::intern("bsid_truncated");
    const pmt::pmt_t d_channel_key = pmt::intern("bsid_channel");
    const pmt::pmt_t d_drift_key = pmt::intern("bsid_drift");
    const pmt::pmt_t d_len_key;
    const bool d_soft;
    const int d_floats; // the floats of a soft input item (input_floats)
    const size_t d_per; // the values frame::llr holds per item
    const bool d_follow_channel;
    const callbacks d_cb;

    mutable std::mutex d_mutex;  // guards d_dec, d_ch and d_changed against set_channel
    decoder_ptr d_dec;           // the decoder for frames that begin from now on
    ::bsid::channel_params d_ch; // its channel
    bool d_changed = false;      // d_dec changed since the stream decoder took it
    std::atomic<bool> d_channel_tagged{ false }; // a bsid_channel tag has set the channel

    frame_assembler d_asm;
    frame d_cur; // the frame being received
    std::deque<frame> d_ready;
    // written by the work thread, read from any thread
    std::atomic<uint64_t> d_bits_discarded{ 0 };

    // stream framing: the stream decoder, and the last input items (from
    // absolute position d_hist_begin) to cut its in-sync frames out of
    std::unique_ptr<::bsid::stream_decoder> d_sd;
    pmt::pmt_t d_start_key = pmt::PMT_NIL;
    bool d_flushed = false;
    bool d_keep_history = false;
    std::vector<double> d_llr_chunk; // a chunk of LLRs, in double
    std::deque<uint8_t> d_hist_bits;
    std::deque<double> d_hist_llr;
    uint64_t d_hist_begin = 0;
};

} // namespace bsid
} // namespace gr

#endif /* INCLUDED_BSID_FRAME_COLLECTOR_H */
