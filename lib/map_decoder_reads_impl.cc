/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bsid.map_decoder with reads = M > 1 (map_decoder_reads_impl.h). Each input
// is a tagged stream read by its own frame_assembler into slots, one per
// frame in stream order: its items, or why it has none (cut short,
// truncated by the channel, an invalid length tag, lost). Frame k is the
// k-th slot of every input; it is decoded once every input has a k-th slot
// or has ended, from the reads it has (an input that ended, or whose slot
// has no items, lacks its read), in batches of at most max_batch frames per
// call of bsid::reads_decoder::decode_batch, each read with its input's
// channel (set_channel, or its own bsid_channel tags).

#include "core_log_handler.h"
#include "frame_collector.h"
#include "map_decoder_reads_impl.h"
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace bsid {

namespace {

const pmt::pmt_t reads_key = pmt::intern("bsid_reads");
const pmt::pmt_t truncated_key = pmt::intern("bsid_truncated");

std::string status_name(::bsid::frame_status s) { return ::bsid::to_string(s); }

} // namespace

// One input's frames, as its frame_assembler reports them.
struct map_decoder_reads_impl::input_reader : frame_assembler::events {
    input_reader(map_decoder_reads_impl& b, int port)
        : block(b),
          port(port),
          assembler(b.d_len_key, pmt::intern("bsid_frames_lost"), b.d_item_bytes)
    {
    }

    map_decoder_reads_impl& block;
    const int port;
    frame_assembler assembler;
    read_slot cur;
    // the channel a bsid_channel tag of this input announced, if any
    std::optional<::bsid::channel_params> tagged;
    // frames were lost, how many is not known: this input's frames can no
    // longer be paired with the others', and its reads are left out
    bool unpaired = false;

    // this input's next frame (none once unpaired: the frames are then
    // formed without it, and its read is missing as invalid_tag)
    void push(read_slot s)
    {
        if (unpaired)
            return;
        if (!s.missing.empty())
            s.ch = channel();
        block.d_slots[size_t(port)].push_back(std::move(s));
    }
    void unpair(const std::string& why)
    {
        if (!unpaired)
            GR_LOG_ERROR(block.d_logger,
                         "input " + std::to_string(port) + ": " + why +
                             ": its frames can no longer be paired with the other "
                             "inputs', and its reads are left out (invalid_tag) from "
                             "here on");
        unpaired = true;
    }

    ::bsid::channel_params channel()
    {
        if (tagged)
            return *tagged;
        std::lock_guard<std::mutex> lock(block.d_mutex);
        return block.d_channel;
    }

    // a bsid_channel tag: this input's channel from here on (a tag that is
    // not a channel is logged and ignored)
    bool take_channel_tag(const gr::tag_t& t)
    {
        if (!block.d_follow_channel || !pmt::eqv(t.key, pmt::intern("bsid_channel")))
            return false;
        std::string why;
        const auto ch = channel_of_tag(t.value, channel(), why);
        if (ch)
            tagged = *ch;
        else
            GR_LOG_WARN(block.d_logger,
                        "input " + std::to_string(port) +
                            ": the bsid_channel tag on item " + std::to_string(t.offset) +
                            " is ignored: " + why);
        return true;
    }

    void begin(uint64_t length, std::vector<gr::tag_t> tags) override
    {
        cur = read_slot{};
        for (const auto& t : tags) {
            if (take_channel_tag(t))
                continue;
            if (pmt::eqv(t.key, truncated_key))
                cur.missing = status_name(::bsid::frame_status::truncated);
            else
                cur.tags.push_back(t);
        }
        cur.ch = channel();
        cur.items.reserve(size_t(length) * block.d_item_bytes);
    }
    void invalid(const gr::tag_t& tag,
                 const std::string& why,
                 std::vector<gr::tag_t> tags) override
    {
        GR_LOG_WARN(block.d_logger,
                    "input " + std::to_string(port) + ": the length tag on item " +
                        std::to_string(tag.offset) + " is not a frame length (" + why +
                        "): that read is an erasure");
        read_slot s;
        s.missing = status_name(::bsid::frame_status::invalid_tag);
        for (const auto& t : tags)
            if (!take_channel_tag(t))
                s.tags.push_back(t);
        push(std::move(s)); // (a missing read gets the input's channel there)
    }
    void items(const uint8_t* in, size_t count) override
    {
        cur.items.insert(cur.items.end(), in, in + count * block.d_item_bytes);
        cur.count += count;
    }
    void end() override { push(std::move(cur)); }
    void cut(uint64_t missing, bool stream_ended) override
    {
        (void)missing;
        (void)stream_ended;
        cur.missing = status_name(::bsid::frame_status::truncated);
        end();
    }
    void lost(uint64_t count) override
    {
        if (count > max_frames_lost) {
            unpair("a bsid_frames_lost count of " + std::to_string(count) +
                   " is more than the " + std::to_string(max_frames_lost) +
                   " a count may report");
            return;
        }
        for (uint64_t k = 0; k < count; ++k) {
            read_slot s;
            s.missing = status_name(::bsid::frame_status::frame_lost);
            push(std::move(s));
        }
    }
    void invalid_lost(const gr::tag_t& tag, const std::string& why) override
    {
        unpair("the bsid_frames_lost tag on item " + std::to_string(tag.offset) +
               " is not a count: " + why);
    }
    void inner_tag(const gr::tag_t& tag, uint64_t offset) override
    {
        (void)offset;
        if (!take_channel_tag(tag) && pmt::eqv(tag.key, truncated_key))
            cur.missing = status_name(::bsid::frame_status::truncated);
    }
    void outside(const uint8_t* in, size_t count, std::vector<gr::tag_t> tags) override
    {
        (void)in;
        for (const auto& t : tags)
            take_channel_tag(t);
        block.d_discarded += count;
    }
};

map_decoder::sptr make_map_decoder_reads(const ::bsid::codebook& codebook,
                                         int N,
                                         const ::bsid::channel_params& channel,
                                         const ::bsid::receiver_options& options)
{
    return gnuradio::make_block_sptr<map_decoder_reads_impl>(
        codebook, N, channel, options);
}

map_decoder_reads_impl::map_decoder_reads_impl(const ::bsid::codebook& codebook,
                                               int N,
                                               const ::bsid::channel_params& channel,
                                               const ::bsid::receiver_options& options)
    : gr::block("map_decoder",
                gr::io_signature::make(options.input.reads,
                                       options.input.reads,
                                       int(input_item_size("map_decoder",
                                                           options.input.kind,
                                                           codebook.alphabet()))),
                gr::io_signature::make(
                    1,
                    1,
                    int(output_item_size(parse_output_mode(options.output.kind),
                                         codebook.q())))),
      d_cfg(::bsid::make_decoder_config(codebook, N, channel, options.decoding)),
      d_M(options.input.reads),
      d_mode(parse_output_mode(options.output.kind)),
      d_max_batch(options.decoding.max_batch),
      d_llr_scale(options.output.llr_scale),
      d_llr_clip(options.output.llr_clip),
      d_method(::bsid::parse_read_method(options.input.read_method)),
      d_len_key(pmt::intern(options.framing.len_tag_key)),
      d_floats(input_floats("map_decoder", options.input.kind, codebook.alphabet())),
      d_item_bytes(
          input_item_size("map_decoder", options.input.kind, codebook.alphabet())),
      d_follow_channel(options.input.follow_channel_tags),
      d_channel(channel),
      d_queue(output_item_size(parse_output_mode(options.output.kind), codebook.q()))
{
    auto refuse = [](const std::string& what) {
        throw std::invalid_argument("map_decoder: reads > 1 " + what +
                                    " (docs/reads.md, \"In a flowgraph\")");
    };
    if (parse_framing("map_decoder", options.framing.framing))
        refuse("takes tagged frames, not framing \"stream\"");
    if (options.input.priors_input)
        refuse("takes no priors input");
    if (options.input.estimate_every != 0)
        refuse("does not estimate the channel (estimate_every 0)");
    if (!options.framing.sync_word.empty())
        refuse("decodes frames without a sync word");
    if (d_max_batch < 1)
        throw std::invalid_argument("map_decoder: max_batch must be at least 1");
    if (d_method == ::bsid::read_method::joint && d_M > ::bsid::max_joint_reads)
        refuse("with read_method \"joint\" takes at most 3 reads (\"combine\" takes any "
               "number)");
    d_items_per_frame = output_items_per_frame(d_mode, N, codebook.q());
    install_core_log_handler();
    // the decoder of the starting channel, built now: a setup the decoder
    // refuses (the joint state space past its bound) is an error of make()
    decoder_for(std::vector<::bsid::channel_params>(size_t(d_M), channel));
    d_slots.resize(size_t(d_M));
    d_over.assign(size_t(d_M), false);
    for (int r = 0; r < d_M; ++r)
        d_in.push_back(std::make_unique<input_reader>(*this, r));
    set_tag_propagation_policy(TPP_DONT);
}

std::shared_ptr<::bsid::reads_decoder>
map_decoder_reads_impl::decoder_for(const std::vector<::bsid::channel_params>& chans)
{
    for (const auto& d : d_decoders)
        if (d.first == chans)
            return d.second;
    ::bsid::reads_config rc(d_cfg);
    rc.base.ch = chans.front();
    rc.channels = chans;
    rc.method = d_method;
    auto dec = std::make_shared<::bsid::reads_decoder>(rc);
    // a few channels at a time (each holds its single decoders)
    if (d_decoders.size() >= 4)
        d_decoders.erase(d_decoders.begin());
    d_decoders.emplace_back(chans, dec);
    return dec;
}

std::string map_decoder_reads_impl::backend() const
{
    return d_decoders.empty()
               ? "cpu"
               : ::bsid::to_string(d_decoders.back().second->single(0).backend());
}

double map_decoder_reads_impl::mean_batch() const
{
    const uint64_t b = d_batches;
    return b ? double(d_batched) / double(b) : 0.0;
}

void map_decoder_reads_impl::set_channel(double Pi, double Pd, double Ps)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_channel = d_channel.with_rates(Pi, Pd, Ps);
}

bool map_decoder_reads_impl::no_more_slots(int r) const
{
    return d_over[size_t(r)] || d_in[size_t(r)]->unpaired;
}

void map_decoder_reads_impl::forecast(int noutput_items,
                                      gr_vector_int& ninput_items_required)
{
    (void)noutput_items;
    // a frame needs every input that has not ended; output waiting, or
    // frames complete, need no input
    const bool ready = d_queue.size() > 0;
    for (int r = 0; r < d_M; ++r)
        ninput_items_required[size_t(r)] =
            ready || no_more_slots(r) || upstream_done(*this, -1, r) ? 0 : 1;
}

void map_decoder_reads_impl::emit(const std::vector<gr::tag_t>& tags,
                                  const double* post,
                                  const std::string& erasure,
                                  const pmt::pmt_t& reads_tag)
{
    const uint64_t start = d_queue.end();
    d_queue.tag(start, d_len_key, pmt::from_long(long(d_items_per_frame)));
    for (const auto& t : tags)
        d_queue.tag(start, t.key, t.value, t.srcid);
    d_queue.tag(start, reads_key, reads_tag);
    ++d_frames;
    if (!erasure.empty()) {
        ++d_erasures;
        d_queue.tag(start, erasure_key(), pmt::intern(erasure));
    }
    push_frame_output(d_mode,
                      erasure.empty() ? post : nullptr,
                      d_cfg.N,
                      d_cfg.cb.q(),
                      d_llr_scale,
                      d_llr_clip,
                      d_queue);
}

void map_decoder_reads_impl::decode_ready()
{
    const size_t NQ = size_t(d_cfg.N) * size_t(d_cfg.cb.q());
    for (;;) {
        // the frames every input has reached, at most max_batch
        std::vector<std::vector<read_slot>> batch;
        while (batch.size() < size_t(d_max_batch)) {
            bool ready = true, any = false;
            for (int r = 0; r < d_M; ++r) {
                if (d_slots[size_t(r)].empty())
                    ready = ready && no_more_slots(r);
                else
                    any = true;
            }
            if (!ready || !any)
                break;
            std::vector<read_slot> f(static_cast<size_t>(d_M));
            for (int r = 0; r < d_M; ++r) {
                auto& q = d_slots[size_t(r)];
                if (q.empty()) {
                    // the input ended before this frame's read, or lost its
                    // pairing (unpaired)
                    f[size_t(r)].missing = status_name(
                        d_in[size_t(r)]->unpaired ? ::bsid::frame_status::invalid_tag
                                                  : ::bsid::frame_status::frame_lost);
                    f[size_t(r)].ch = d_in[size_t(r)]->channel();
                } else {
                    f[size_t(r)] = std::move(q.front());
                    q.pop_front();
                }
            }
            batch.push_back(std::move(f));
        }
        if (batch.empty())
            return;
        // decoded in groups of the same channels
        std::vector<std::vector<double>> post(batch.size(), std::vector<double>(NQ));
        std::vector<::bsid::reads_result> res(batch.size());
        std::vector<bool> done(batch.size(), false);
        for (size_t k = 0; k < batch.size(); ++k) {
            if (done[k])
                continue;
            std::vector<::bsid::channel_params> chans;
            for (const auto& s : batch[k])
                chans.push_back(s.ch);
            std::vector<size_t> group;
            for (size_t j = k; j < batch.size(); ++j) {
                bool same = !done[j];
                for (int r = 0; r < d_M && same; ++r)
                    same = batch[j][size_t(r)].ch == chans[size_t(r)];
                if (same) {
                    group.push_back(j);
                    done[j] = true;
                }
            }
            std::vector<::bsid::frame_reads> frames;
            std::vector<double*> ptrs;
            for (size_t j : group) {
                ::bsid::frame_reads fr;
                for (const auto& s : batch[j]) {
                    // a missing read has no items (left out); soft items are
                    // set below
                    ::bsid::frame_read rd;
                    if (s.missing.empty()) {
                        rd.L = s.count;
                        if (d_floats == 0)
                            rd.bits = s.items.data();
                    }
                    fr.reads.push_back(rd);
                }
                frames.push_back(std::move(fr));
                ptrs.push_back(post[j].data());
            }
            // soft items: the floats as doubles, kept alive for the call
            std::vector<std::vector<double>> soft;
            if (d_floats != 0) {
                soft.reserve(group.size() * size_t(d_M));
                for (size_t g = 0; g < group.size(); ++g) {
                    for (int r = 0; r < d_M; ++r) {
                        const read_slot& s = batch[group[g]][size_t(r)];
                        if (!s.missing.empty())
                            continue;
                        const float* v = reinterpret_cast<const float*>(s.items.data());
                        soft.emplace_back(v, v + s.count * size_t(d_floats));
                        auto& rd = frames[g].reads[size_t(r)];
                        if (d_floats == 1)
                            rd.llr = soft.back().data();
                        else
                            rd.logprob = soft.back().data();
                    }
                }
            }
            std::vector<::bsid::reads_result> got;
            try {
                got = decoder_for(chans)->decode_batch(frames, ptrs);
            } catch (const std::exception& e) {
                // (not expected: the block's setup was checked at make())
                GR_LOG_ERROR(d_logger, std::string("decoding failed: ") + e.what());
                got.assign(group.size(), ::bsid::reads_result{});
                for (auto& g : got)
                    g.result = { ::bsid::frame_status::decoder_error, e.what() };
            }
            for (size_t g = 0; g < group.size(); ++g)
                res[group[g]] = std::move(got[g]);
        }
        ++d_batches;
        d_batched += batch.size();
        for (size_t k = 0; k < batch.size(); ++k) {
            // the reads' statuses: a missing read's own, the decoder's for the rest
            pmt::pmt_t statuses = pmt::make_vector(size_t(d_M), pmt::PMT_NIL);
            std::vector<gr::tag_t> tags;
            std::string first_status;
            for (int r = 0; r < d_M; ++r) {
                const read_slot& s = batch[k][size_t(r)];
                const std::string st =
                    !s.missing.empty()
                        ? s.missing
                        : (size_t(r) < res[k].reads.size()
                               ? status_name(res[k].reads[size_t(r)].status)
                               : status_name(::bsid::frame_status::ok));
                pmt::vector_set(statuses, size_t(r), pmt::intern(st));
                if (r == 0)
                    first_status = st;
                if (tags.empty())
                    tags = s.tags; // the first read's own tags, as the one-read block
            }
            pmt::pmt_t info = pmt::make_dict();
            info = pmt::dict_add(info, pmt::intern("used"), pmt::from_long(res[k].used));
            info = pmt::dict_add(info, pmt::intern("reads"), statuses);
            if (d_method == ::bsid::read_method::combine)
                info = pmt::dict_add(
                    info, pmt::intern("rounds"), pmt::from_long(res[k].rounds));
            std::string erasure;
            if (!res[k].ok()) {
                // no read used: why the first was not (a missing read's own
                // status, not the decoder's "empty"); else the decoder's why
                erasure =
                    res[k].used == 0 ? first_status : status_name(res[k].result.status);
                GR_LOG_DEBUG(d_logger, "frame: " + erasure + ": " + res[k].result.reason);
            }
            emit(tags, post[k].data(), erasure, info);
        }
    }
}

int map_decoder_reads_impl::general_work(int noutput_items,
                                         gr_vector_int& ninput_items,
                                         gr_vector_const_void_star& input_items,
                                         gr_vector_void_star& output_items)
{
    // take input while little output waits; a read in progress always
    // continues, so a frame longer than any buffer still completes
    const uint64_t cap = std::max<uint64_t>(uint64_t(noutput_items) * 2,
                                            d_items_per_frame * uint64_t(d_max_batch));
    bool all_over = true;
    for (int r = 0; r < d_M; ++r) {
        auto& rd = *d_in[size_t(r)];
        const long nin =
            d_queue.size() < cap || rd.assembler.in_frame() ? ninput_items[size_t(r)] : 0;
        const uint64_t first = nitems_read(unsigned(r));
        std::vector<gr::tag_t> tags;
        get_tags_in_range(tags, unsigned(r), first, first + uint64_t(nin));
        rd.assembler.feed(static_cast<const uint8_t*>(input_items[size_t(r)]),
                          size_t(nin),
                          first,
                          std::move(tags),
                          rd);
        // (asked before consume, which moves the read pointer at once)
        const bool over = nin == ninput_items[size_t(r)] && upstream_done(*this, nin, r);
        consume(r, int(nin));
        if (over && !d_over[size_t(r)]) {
            rd.assembler.finish(rd); // a read still open is cut short
            d_over[size_t(r)] = true;
        }
        all_over = all_over && d_over[size_t(r)];
    }
    decode_ready();
    auto* out = static_cast<uint8_t*>(output_items[0]);
    const size_t n = d_queue.pop(out, size_t(noutput_items), [&](const queued_tag& t) {
        add_item_tag(0, t.offset, t.key, t.value, t.srcid);
    });
    if (n == 0 && all_over && d_queue.size() == 0)
        return WORK_DONE;
    return int(n);
}

} // namespace bsid
} // namespace gr
