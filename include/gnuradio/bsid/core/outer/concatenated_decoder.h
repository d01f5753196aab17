/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_CONCATENATED_DECODER_H
#define INCLUDED_BSID_CORE_CONCATENATED_DECODER_H

#include <gnuradio/bsid/core/inner/frame_decoder.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gnuradio/bsid/core/outer/outer_code.h>
#include <gnuradio/bsid/core/outer/symbol_mapping.h>
#include <gnuradio/bsid/core/reads/reads_decoder.h>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace bsid {

class device_concatenated_loop;

//! How the iterative decoder runs.
struct concatenated_options {
    int iterations = 10;    //!< I: passes of inner MAP then outer BP, at least 1
    int bp_iterations = 50; //!< belief-propagation iterations per pass, at least 1
    /*!
     * With a CUDA inner decoder (without a sync word), run the passes on the
     * device (the device loop: received items, extrinsic information and
     * messages stay there); false: the host loop, with both decoders still on
     * the device. Both give the same decisions.
     */
    bool device_loop = true;
    /*!
     * The device loop's part size: the most frames it holds on the device at
     * once (each part runs every pass before the next is staged). 0: the
     * whole batch, or, where that does not fit the device's memory with the
     * inner decoder, the loop's rows and belief propagation together, halves
     * of it until a part fits (the size that fitted is kept for later
     * batches). The same decisions either way.
     */
    size_t device_part = 0;
};

//! What became of one frame.
struct concatenated_result {
    /*!
     * The inner decoder's status on the first pass: anything but ok is an
     * erasure (no decisions). A later pass the inner decoder refuses ends the
     * frame's passes with the previous decisions, and `reason` says why.
     */
    frame_status status = frame_status::ok;
    std::string reason;
    int iterations = 0;       //!< passes run
    int bp_iterations = 0;    //!< belief-propagation iterations, summed over the passes
    bool syndrome_ok = false; //!< the decisions form a codeword (the early stop)
    bool ok() const { return status == frame_status::ok; }
};

/*!
 * \brief The serially concatenated decoder (docs/concatenated.md, "The
 * iterative decoder"): the paper's MAP decoder as the inner decoder and
 * belief propagation over an LDPC code as the outer one, passing extrinsic
 * information both ways.
 *
 * Each pass, for all frames of a batch still undecided:
 *  1. the inner decoder runs with the outer decoder's last extrinsic output
 *     as its log-priors (none on the first pass, except the known zero pad
 *     bits of symbol_mapping), and gives its extrinsic output
 *     (frame_view::extrinsic: posterior without the prior, computed
 *     directly);
 *  2. the mapping takes that to the outer symbols (identity for the same q);
 *  3. belief propagation, started afresh, runs up to bp_iterations with it as
 *     the channel input and gives posteriors, hard decisions and its
 *     extrinsic output (posterior without that input, in logs);
 *  4. a frame whose decisions satisfy every check stops.
 * The inner decoder sees each batch as one decode_batch call, so a GPU
 * backend decodes every undecided frame of a pass together. Belief
 * propagation runs on the inner decoder's backend (the CUDA one on its
 * device), in double. With a CUDA inner decoder the passes run on the device
 * (concatenated_options::device_loop): only each pass's statuses, decisions
 * and iteration counts come back to the host. Should the device fail (out of
 * memory included), the batch is decoded again by the host loop, and a
 * warning logged: no frame is lost.
 */
class concatenated_decoder
{
public:
    /*!
     * inner decodes frames of N = symbol_mapping(outer.q(), outer.n(),
     * inner q).n_inner() symbols; throws std::invalid_argument otherwise, or
     * for a mapping the sizes do not allow. threads: for belief propagation
     * and the mapping (0: all cores). The decoders must outlive this object.
     */
    concatenated_decoder(map_decoder& inner, const outer_code& outer, int threads = 0);
    /*!
     * Frames that begin with a sync word, through a frame_decoder (without a
     * sync word it decodes as its primary decoder, and the device loop runs).
     */
    concatenated_decoder(frame_decoder& inner, const outer_code& outer, int threads = 0);
    ~concatenated_decoder();
    concatenated_decoder(const concatenated_decoder&) = delete;
    concatenated_decoder& operator=(const concatenated_decoder&) = delete;

    /*!
     * Called after every pass for each frame that ran it, with the pass
     * (1 .. I), the frame's index in the batch and its n hard decisions.
     */
    using observer =
        std::function<void(int pass, size_t frame, const int32_t* decisions)>;

    /*!
     * \brief Decodes a batch. frames: the received frames (their priors are
     * ignored: the decoder sets them); decisions[k] (may be empty or null):
     * n symbols of the last pass's decisions (-1 for an erasure);
     * posteriors[k] (may be empty or null): n x q_o log-posteriors of the
     * outer code (uniform for an erasure). Throws std::invalid_argument for bad
     * options or pointer counts, before any work.
     */
    std::vector<concatenated_result>
    decode_batch(const std::vector<frame_view>& frames,
                 const concatenated_options& opt,
                 const std::vector<int32_t*>& decisions,
                 const std::vector<double*>& posteriors = {},
                 const observer& watch = nullptr);

    /*!
     * \brief Decodes a batch of frames each received as several reads
     * (docs/reads.md), with `reads` as the inner decoder: each pass decodes
     * every undecided frame from its reads (joint or combined, as `reads`
     * was made), the outer extrinsic information as the priors, and takes
     * their extrinsic output. Each pass leaves out the reads that cannot be
     * decoded (empty, a drift outside its limits), as reads_decoder does; a
     * frame none of whose reads can be decoded on the first pass, or whose
     * reads are impossible together, is an erasure.
     * `reads` must decode frames of the inner decoder's N and q (its frames'
     * priors and extrinsic flags are ignored: the passes set them); always
     * the host loop. Other arguments and errors as decode_batch.
     */
    std::vector<concatenated_result>
    decode_reads_batch(reads_decoder& reads,
                       const std::vector<frame_reads>& frames,
                       const concatenated_options& opt,
                       const std::vector<int32_t*>& decisions,
                       const std::vector<double*>& posteriors = {},
                       const observer& watch = nullptr);

    const outer_code& outer() const { return d_code; }
    const symbol_mapping& mapping() const { return d_map; }
    map_decoder& inner() { return d_inner; }
    //! Whether batches can run on the device loop (a CUDA inner decoder, no sync word).
    bool has_device_loop() const { return d_device != nullptr; }

private:
    map_decoder& d_inner;
    frame_decoder* d_frames = nullptr;
    const outer_code& d_code;
    symbol_mapping d_map;
    std::unique_ptr<siso_decoder> d_bp; // the outer code's soft-in soft-out decoder
    std::unique_ptr<device_concatenated_loop> d_device; // null: host loop only
    int d_threads;
    /*!
     * One inner pass: the frames `which` of the batch (indices), frame
     * which[j] with log-priors log_priors[j] (null: none), their extrinsic
     * outputs (N x q, rows normalized) into outs[j]; each frame's status.
     */
    using inner_pass = std::function<std::vector<frame_result>(
        const std::vector<size_t>& which,
        const std::vector<const double*>& log_priors,
        const std::vector<double*>& outs)>;
    //! Checks decode_batch's arguments (throws std::invalid_argument).
    void check_batch(size_t K,
                     const concatenated_options& opt,
                     const std::vector<int32_t*>& decisions,
                     const std::vector<double*>& posteriors) const;
    std::vector<concatenated_result> host_loop(size_t K,
                                               const inner_pass& inner,
                                               const concatenated_options& opt,
                                               const std::vector<int32_t*>& decisions,
                                               const std::vector<double*>& posteriors,
                                               const observer& watch);
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_CONCATENATED_DECODER_H */
