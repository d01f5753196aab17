/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// reads_decoder: checks each read as the single decoder would, leaves out the
// ones that cannot be decoded, and hands the rest to the joint decoder or
// the combiner; a frame with one read left is the single decoder's decode.
// docs/reads.md.

#include "reads/combining_decoder.h"
#include "reads/joint_decoder.h"
#include "runtime/backends.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/reads/reads_decoder.h>
#include <algorithm>
#include <mutex>
#include <stdexcept>

namespace bsid {

read_method parse_read_method(const std::string& s)
{
    if (s == "joint")
        return read_method::joint;
    if (s == "combine")
        return read_method::combine;
    throw std::invalid_argument("read method '" + s +
                                "' is not one of 'joint', 'combine'");
}

std::string to_string(read_method m)
{
    return m == read_method::joint ? "joint" : "combine";
}

struct reads_decoder::impl {
    // the distinct channels, each with its single decoder; slot r's channel
    std::vector<reads::read_channel> channels;
    std::vector<std::shared_ptr<map_decoder>> singles;
    std::vector<int> slot;
    std::unique_ptr<reads::joint_decoder> joint; // made at the first joint frame
    std::mutex joint_mutex;
    reads::combine_workspace combine; // the combiner's buffers, one batch at a time
    std::mutex combine_mutex;

    int channel_of(size_t r) const { return slot.size() == 1 ? slot[0] : slot[r]; }
};

reads_decoder::reads_decoder(const reads_config& cfg) : d_cfg(cfg), d(new impl)
{
    if (d_cfg.combine.iterations < 1) {
        throw std::invalid_argument(detail::concat(
            "combine iterations = ", d_cfg.combine.iterations, " must be at least 1"));
    }
    if (!(d_cfg.combine.tolerance >= 0)) {
        throw std::invalid_argument("combine tolerance must be a number >= 0");
    }
    std::vector<channel_params> per_slot = d_cfg.channels;
    if (per_slot.empty())
        per_slot.push_back(d_cfg.base.ch);
    for (const auto& ch : per_slot) {
        if (ch.alphabet() != d_cfg.base.ch.alphabet()) {
            throw std::invalid_argument(
                detail::concat("every read's channel needs the decoder's alphabet of ",
                               d_cfg.base.ch.alphabet(),
                               " letters; one has ",
                               ch.alphabet()));
        }
        int found = -1;
        for (size_t c = 0; c < d->channels.size(); ++c)
            if (d->channels[c].ch == ch)
                found = int(c);
        if (found < 0) {
            decoder_config one = d_cfg.base;
            one.ch = ch;
            auto dec = std::shared_ptr<map_decoder>(map_decoder::make(one));
            d->channels.push_back({ ch, dec->limits() });
            d->singles.push_back(std::move(dec));
            found = int(d->channels.size()) - 1;
        }
        d->slot.push_back(found);
    }
}

reads_decoder::~reads_decoder() = default;

const channel_params& reads_decoder::channel(size_t r) const
{
    return d->channels[size_t(d->channel_of(r))].ch;
}

const decoder_limits& reads_decoder::limits(size_t r) const
{
    return d->channels[size_t(d->channel_of(r))].limits;
}

map_decoder& reads_decoder::single(size_t r)
{
    return *d->singles[size_t(d->channel_of(r))];
}

reads_result reads_decoder::decode(const frame_reads& frame, double* post)
{
    return decode_batch({ frame }, { post })[0];
}

std::vector<reads_result>
reads_decoder::decode_batch(const std::vector<frame_reads>& frames,
                            const std::vector<double*>& post)
{
    const size_t K = frames.size();
    if (post.size() != K) {
        throw std::invalid_argument(
            "reads_decoder::decode_batch: one output buffer per frame is needed");
    }
    const size_t NQ = size_t(N()) * size_t(q());
    const bool joint = d_cfg.method == read_method::joint;
    // arguments first, before any frame is decoded
    for (size_t k = 0; k < K; ++k) {
        const auto& f = frames[k];
        const size_t M = f.reads.size();
        if (!d_cfg.channels.empty() && M > d_cfg.channels.size()) {
            throw std::invalid_argument(
                detail::concat("frame ",
                               k,
                               " has ",
                               M,
                               " reads; the decoder has a channel "
                               "for ",
                               d_cfg.channels.size()));
        }
        if (f.priors)
            d->singles[0]->validate_priors(f.priors, f.log_priors);
        if (joint && M > size_t(max_joint_reads)) {
            throw std::invalid_argument(detail::concat(
                "joint decoding takes at most ",
                max_joint_reads,
                " reads of a frame (frame ",
                k,
                " has ",
                M,
                "): its cost grows as the product of the reads' M_tau; method "
                "'combine' takes any number"));
        }
        if (joint && M > 1) {
            std::vector<const reads::read_channel*> chans;
            for (size_t r = 0; r < M; ++r)
                chans.push_back(&d->channels[size_t(d->channel_of(r))]);
            const size_t S = reads::joint_states(chans);
            const double bytes = double(S) * double(N() + 1) * 8.0;
            if (S > max_joint_states || bytes > double(max_joint_bytes)) {
                throw std::invalid_argument(detail::concat(
                    "joint decoding of ",
                    M,
                    " reads needs ",
                    S,
                    " joint states per codeword boundary and ",
                    (long long)(bytes / double(1 << 20)),
                    " MiB of forward metrics; the bound is ",
                    max_joint_states,
                    " states and ",
                    max_joint_bytes >> 20,
                    " MiB (docs/reads.md): use fewer reads, narrower limits (a larger "
                    "Pr), or method 'combine'"));
            }
        }
    }

    std::vector<reads_result> res(K);
    // each read checked as the single decoder checks a frame
    std::vector<std::vector<int>> kept(K);
    for (size_t k = 0; k < K; ++k) {
        const auto& f = frames[k];
        res[k].reads.resize(f.reads.size());
        for (size_t r = 0; r < f.reads.size(); ++r) {
            const frame_read& rd = f.reads[r];
            map_decoder& dec = single(r);
            frame_result fr = dec.check_length(rd.L);
            const int given =
                (rd.bits != nullptr) + (rd.llr != nullptr) + (rd.logprob != nullptr);
            if (fr.ok() && given != 1) {
                fr = { frame_status::invalid_input,
                       "a read needs exactly one of bits, llr and logprob" };
            }
            if (fr.ok())
                fr = dec.check_frame(reads::read_view(rd));
            res[k].reads[r] = fr;
            if (fr.ok())
                kept[k].push_back(int(r));
        }
    }

    // one read: the single decoder, exactly; none: refused
    auto decode_single = [&](const std::vector<size_t>& which) {
        std::vector<std::vector<frame_view>> views(d->singles.size());
        std::vector<std::vector<double*>> ptrs(d->singles.size());
        std::vector<std::vector<size_t>> whose(d->singles.size());
        for (size_t k : which) {
            const int r = kept[k].front();
            frame_view v = reads::read_view(frames[k].reads[size_t(r)]);
            v.priors = frames[k].priors;
            v.log_priors = frames[k].log_priors;
            v.extrinsic = frames[k].extrinsic;
            const size_t c = size_t(d->channel_of(size_t(r)));
            views[c].push_back(v);
            ptrs[c].push_back(post[k]);
            whose[c].push_back(k);
        }
        for (size_t c = 0; c < d->singles.size(); ++c) {
            if (views[c].empty())
                continue;
            const auto got = d->singles[c]->decode_batch(views[c], ptrs[c]);
            for (size_t t = 0; t < got.size(); ++t) {
                const size_t k = whose[c][t];
                res[k].result = got[t];
                res[k].used = 1;
                if (got[t].status == frame_status::impossible)
                    res[k].reads[size_t(kept[k].front())] = got[t];
            }
        }
    };
    auto refuse = [&](size_t k) {
        std::fill(post[k], post[k] + NQ, 1.0 / q());
        std::string why = "no read of the frame can be decoded";
        for (size_t r = 0; r < res[k].reads.size(); ++r)
            why += detail::concat(
                r ? "; read " : " (read ", r, ": ", res[k].reads[r].reason);
        if (!res[k].reads.empty())
            why += ")";
        res[k].result = { res[k].reads.empty() ? frame_status::empty
                                               : res[k].reads.front().status,
                          why };
        res[k].used = 0;
    };

    std::vector<size_t> ones, many;
    for (size_t k = 0; k < K; ++k) {
        if (kept[k].empty())
            refuse(k);
        else if (kept[k].size() == 1)
            ones.push_back(k);
        else
            many.push_back(k);
    }
    decode_single(ones);
    if (many.empty())
        return res;

    if (!joint) {
        std::vector<reads::combine_frame> cf;
        std::vector<double*> ptrs;
        for (size_t k : many) {
            reads::combine_frame c;
            for (int r : kept[k]) {
                c.reads.push_back(frames[k].reads[size_t(r)]);
                c.channel.push_back(d->channel_of(size_t(r)));
            }
            c.priors = frames[k].priors;
            c.log_priors = frames[k].log_priors;
            c.extrinsic = frames[k].extrinsic;
            cf.push_back(std::move(c));
            ptrs.push_back(post[k]);
        }
        std::vector<map_decoder*> decs;
        for (auto& s : d->singles)
            decs.push_back(s.get());
        std::vector<reads::combine_outcome> got;
        {
            std::lock_guard<std::mutex> lock(d->combine_mutex);
            got = reads::combine_batch(decs,
                                       d_cfg.combine,
                                       cf,
                                       ptrs,
                                       resolve_threads(d_cfg.base.threads),
                                       d->combine);
        }
        std::vector<size_t> left_one;
        for (size_t t = 0; t < many.size(); ++t) {
            const size_t k = many[t];
            const auto& o = got[t];
            for (size_t j = 0; j < o.reads.size(); ++j)
                res[k].reads[size_t(kept[k][j])] = o.reads[j];
            res[k].rounds = o.rounds;
            res[k].converged = o.converged;
            if (o.single >= 0) {
                kept[k] = { kept[k][size_t(o.single)] };
                left_one.push_back(k);
                continue;
            }
            res[k].result = o.result;
            res[k].used = int(kept[k].size());
            for (const auto& fr : o.reads)
                res[k].used -= !fr.ok();
        }
        decode_single(left_one);
        return res;
    }

    // joint: a frame the reads make impossible together is decoded again
    // without the reads that are impossible on their own, if any
    std::vector<std::vector<double>> priors(K);
    for (size_t k : many) {
        if (frames[k].priors) {
            priors[k].resize(NQ);
            d->singles[0]->normalized_priors(
                frames[k].priors, frames[k].log_priors, priors[k].data());
        }
    }
    {
        std::lock_guard<std::mutex> lock(d->joint_mutex);
        if (!d->joint)
            d->joint =
                make_joint_decoder(d_cfg.base, d->channels, d->singles[0]->backend());
    }
    std::vector<double> scratch(NQ);
    while (!many.empty()) {
        std::vector<reads::joint_frame> jf;
        std::vector<double*> ptrs;
        for (size_t k : many) {
            reads::joint_frame j;
            for (int r : kept[k]) {
                j.reads.push_back(frames[k].reads[size_t(r)]);
                j.channel.push_back(d->channel_of(size_t(r)));
            }
            j.priors = priors[k].empty() ? nullptr : priors[k].data();
            j.extrinsic = frames[k].extrinsic;
            jf.push_back(std::move(j));
            ptrs.push_back(post[k]);
        }
        const auto got = d->joint->decode_batch(jf, ptrs);
        std::vector<size_t> again, left_one;
        for (size_t t = 0; t < many.size(); ++t) {
            const size_t k = many[t];
            res[k].result = got[t];
            res[k].used = int(kept[k].size());
            if (got[t].status != frame_status::impossible)
                continue;
            // which reads are impossible alone?
            std::vector<int> still;
            for (int r : kept[k]) {
                frame_view v = reads::read_view(frames[k].reads[size_t(r)]);
                v.priors = frames[k].priors;
                v.log_priors = frames[k].log_priors;
                const frame_result alone = single(size_t(r)).decode(v, scratch.data());
                if (alone.status == frame_status::impossible)
                    res[k].reads[size_t(r)] = alone;
                else
                    still.push_back(r);
            }
            if (still.size() == kept[k].size() || still.empty()) {
                if (still.empty())
                    refuse(k);
                continue; // the reads disagree: impossible together
            }
            kept[k] = still;
            (still.size() == 1 ? left_one : again).push_back(k);
        }
        decode_single(left_one);
        many = again;
    }
    return res;
}

} // namespace bsid
