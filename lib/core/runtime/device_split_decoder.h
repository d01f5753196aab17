/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One decoder over several devices (decoder_config::devices): the planner
// that splits a batch among them, and the map_decoder that owns one decoder
// per device (docs/design.md section 5, "Several GPUs").

#ifndef INCLUDED_BSID_CORE_DEVICE_SPLIT_DECODER_H
#define INCLUDED_BSID_CORE_DEVICE_SPLIT_DECODER_H

#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <cstddef>
#include <memory>
#include <vector>

namespace bsid {

//! Frames [begin, end) of a batch.
struct index_range {
    size_t begin = 0, end = 0;
    size_t size() const { return end - begin; }
    bool operator==(const index_range& o) const
    {
        return begin == o.begin && end == o.end;
    }
};

/*!
 * \brief A batch's frames split among `devices` devices by work: contiguous
 * ranges, one per device in order, covering every frame once. The work of a
 * frame is its received length rho (what the lattices grow with, at a given
 * N); cut k (k = 1 .. devices - 1) falls where the running total of rho comes
 * nearest to k / devices of the whole (ties: the later cut, so that earlier
 * devices get the frame). With no work at all (every rho 0) the frames are
 * split by count. A range may be empty (fewer frames than devices, or one
 * frame longer than the rest together). Throws std::invalid_argument for
 * devices < 1.
 */
std::vector<index_range> plan_device_split(const std::vector<size_t>& rho, int devices);

/*!
 * \brief A map_decoder over several decoders of the same code and limits (one
 * per device): decode() goes to the first; decode_batch() validates every
 * prior, splits the batch with plan_device_split and decodes the ranges at
 * once, each on its decoder's own host thread (kept for the decoder's life;
 * each thread's OpenMP teams hold the decoder's `threads`), results and
 * posteriors landing in the caller's order. Each frame is decoded by exactly
 * one decoder, as it would be alone, so the output equals any one of them
 * decoding the whole batch where they agree frame by frame (decoders of one
 * backend and precision do).
 *
 * A range whose decoder throws anything but std::invalid_argument gets
 * decoder_error for its frames (uniform posteriors), like a device error
 * inside a backend; std::invalid_argument is rethrown on the calling thread.
 * backend() and storage() are the first decoder's, peak_device_bytes() the
 * largest of any one decoder (device memory is per device), and the stage
 * profile is the decoders' profiles summed. One batch at a time.
 */
class device_split_decoder final : public map_decoder
{
public:
    /*!
     * \param cfg the configuration the decoder reports (config()); its limits
     *        must be the parts' own.
     * \param parts at least one decoder; all of one N, q, precision and limits
     *        (std::invalid_argument otherwise).
     */
    device_split_decoder(const decoder_config& cfg,
                         std::vector<std::unique_ptr<map_decoder>> parts);
    ~device_split_decoder() override;

    frame_result decode(const frame_view& frame, double* post) override;
    std::vector<frame_result> decode_batch(const std::vector<frame_view>& frames,
                                           const std::vector<double*>& post) override;
    backend_kind backend() const override;
    bool wide_frames_in_parts() const override;
    storage_kind storage() const override;
    size_t peak_device_bytes() const override;

    size_t parts() const;
    map_decoder& part(size_t k);

private:
    struct impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_DEVICE_SPLIT_DECODER_H */
