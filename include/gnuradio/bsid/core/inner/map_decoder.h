/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_MAP_DECODER_H
#define INCLUDED_BSID_CORE_MAP_DECODER_H

#include <gnuradio/bsid/core/channel/channel_params.h>
#include <gnuradio/bsid/core/channel/soft_input.h>
#include <gnuradio/bsid/core/estimation/event_counts.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/inner/drift_limits.h>
#include <gnuradio/bsid/core/inner/frame_status.h>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace bsid {

enum class backend_kind { cpu, cuda, automatic };
enum class precision_kind { single, dual };
enum class storage_kind { global, local, automatic };
//! How the CUDA backend runs alpha and beta: one warp per frame where M_tau <= 64
//! and blocks beyond, the frame's steps split into segments run side by side
//! for small batches in global storage (automatic); always blocks (block); or
//! segments wherever their shape allows, whatever the batch (segmented). Tests
//! compare them; all are exact.
enum class recursion_kind { automatic, block, segmented };

//! The CUDA backend's lanes (cuda_options::streams): by default, and at most.
constexpr int default_cuda_streams = 2, max_cuda_streams = 8;

//! "cpu" | "cuda" | "auto", "float" | "double", "global" | "local" | "auto".
backend_kind parse_backend(const std::string& s);
precision_kind parse_precision(const std::string& s);
storage_kind parse_storage(const std::string& s);
//! "auto" | "block" | "segmented"
recursion_kind parse_recursion(const std::string& s);
std::string to_string(recursion_kind r);
std::string to_string(backend_kind b);
std::string to_string(precision_kind p);
std::string to_string(storage_kind s);

/*!
 * \brief A device list: "" (none: decoder_config::device alone), "all"
 * (every CUDA device present, cuda_device_count(); none on a machine without
 * one), or indices separated by commas ("0", "0,1,3"; spaces around an index
 * allowed). Throws std::invalid_argument, naming the text, for an empty item,
 * anything but a non-negative decimal index, or an index given twice. Whether
 * the devices exist is make()'s business.
 */
std::vector<int> parse_devices(const std::string& s);

//! The CUDA devices present: 0 in a build without CUDA, or when the runtime
//! finds no driver or device. Never throws.
int cuda_device_count();

//! The instruction set of the CPU backend's vector kernels: "avx512", "avx2"
//! or "baseline", the best this machine runs, at most what the environment
//! variable BSID_CPU_ISA names (the same spellings; a cap for testing and
//! timing smaller machines' code). Throws std::invalid_argument for a
//! BSID_CPU_ISA that names none of them.
std::string cpu_isa();

/*!
 * \brief The CUDA backend's settings (decoder_config::cuda; the CPU backend
 * ignores them). The environment variables BSID_CUDA_DEVICE,
 * BSID_CUDA_AB=block and BSID_CUDA_LOCAL_WINDOW override them when set (for
 * tests and experiments without changing code).
 */
struct cuda_options {
    int device = 0; //!< device index
    /*!
     * The devices one decoder spreads each batch over (parse_devices);
     * empty: the one `device`. With two or more, make() builds one CUDA
     * decoder per device and decode_batch splits a batch among them by its
     * received bits (docs/design.md section 5, "Several GPUs"). Each index at
     * most once, none negative. BSID_CUDA_DEVICE, when set, replaces the list
     * by its one device.
     */
    std::vector<int> devices;
    recursion_kind recursion = recursion_kind::automatic; //!< alpha/beta kernels
    //! Local storage: symbol indices per window, as far as the free
    //! memory allows (0: within 192 MiB of the window's metrics)
    int local_window = 0;
    /*!
     * Lanes (streams) that decode a batch's chunks at once, so that one
     * lane's host work overlaps another's kernels; 1: one chunk at a time;
     * 0: default_cuda_streams. At most max_cuda_streams.
     */
    int streams = 0;
    /*!
     * The register kernels make G (the sums that alpha and beta read)
     * once per book and received position, shared by every index whose state
     * starts there, where that takes fewer threads than once per index and
     * state (frames without priors; docs/design.md, "G by position"); over
     * letters, pass L then reads the lattices' last rows that pass G stored
     * by position (the position table) instead of making them again; false:
     * always by index. The values are the same either way.
     */
    bool share_g = true;
};

/*!
 * \brief Everything a decoder is built from.
 *
 * mtau and mn, when set, replace the limits computed from Pr
 * (compute_decoder_limits); each must hold 0 (m^- <= 0 <= m^+). The corridor
 * m_n bounds a drift change, so it may be wider than m_tau.
 *
 * The CUDA backend's settings are its own object, `cuda`.
 */
struct decoder_config {
    codebook cb;
    channel_params ch;
    int N = 0; //!< message symbols per frame
    backend_kind backend = backend_kind::automatic;
    precision_kind precision = precision_kind::single;
    storage_kind storage = storage_kind::automatic;
    double Pr = 1e-10;                   //!< drift exclusion probability
    std::optional<drift_range> mtau, mn; //!< explicit limits
    int threads = 0;                     //!< decode_batch threads; 0: all cores
    cuda_options cuda;                   //!< the CUDA backend's settings

    decoder_config(codebook c, channel_params p, int N_) : cb(std::move(c)), ch(p), N(N_)
    {
    }
};

/*!
 * \brief A frame's boundary conditions (paper: "Initial conditions are given
 * by alpha_0(m) and beta_N(m), set as the prior probabilities of the frame
 * boundaries"), over the Mt drift states of m_tau (state a is drift
 * m_tau^- + a): start weighs the drift at boundary 0 (alpha_0), end the drift
 * at boundary N (beta_N). Non-negative, each summing to 1 (or all 0: a frame
 * no boundary allows, which the decoders refuse as impossible).
 */
struct frame_boundaries {
    std::vector<double> start, end;
};

/*!
 * \brief What a frame decode reads: one received frame (its bits or LLRs),
 * its optional priors and flags, and its optional boundary conditions, as
 * pointers into caller memory.
 */
struct frame_input {
    const uint8_t* bits = nullptr; //!< rho received bits, one 0/1 per byte
    size_t rho = 0;
    const double* priors = nullptr; //!< N x q prior probabilities, or null for uniform
    /*!
     * When true, `priors` holds natural logarithms of the prior
     * probabilities, up to any constant per row (-infinity: a zero prior).
     * They are taken to probabilities in double, relative to each row's
     * largest, so a log-prior ratio of up to about 700 stays nonzero.
     */
    bool log_priors = false;
    /*!
     * When true, the decoder writes each symbol's extrinsic probabilities
     * instead of its posteriors: the posterior without the symbol's own
     * prior, sum over m', m of alpha_i(m') R_i(m', m | D) beta_{i+1}(m), each
     * row normalized (docs/concatenated.md, "The iterative decoder"). The
     * priors still weigh every other symbol through alpha and beta. It is
     * computed directly, never as posterior over prior, so a zero prior is no
     * 0/0. Without priors it equals the posterior.
     */
    bool extrinsic = false;
    /*!
     * Boundary conditions over the decoder's Mt states, or null for the
     * default: the frame starts at drift 0 and ends at drift rho - tau
     * (boundaries()). With them, rho is the length of the segment the weights
     * refer to: it is not checked against the limits, and an empty segment is
     * decoded like any other (the weights decide what is possible).
     * frame_decoder sets them.
     */
    const frame_boundaries* boundaries = nullptr;
    /*!
     * Instead of bits, rho received LLRs (soft input, docs/design.md
     * section 3): set exactly one of bits and llr. A NaN LLR makes the
     * frame invalid_input.
     */
    const double* llr = nullptr;
    /*!
     * Instead of bits, over an alphabet of A > 2 letters: rho A received
     * log-probabilities, item j's at [A j] (received_items::logprob).
     */
    const double* logprob = nullptr;

    //! The received items, over the decoder's alphabet.
    received_items items(int alphabet = 2) const
    {
        return { bits, llr, alphabet, logprob };
    }
};

/*!
 * \brief What a frame decode writes beside its posteriors, each only where
 * its pointer is not null: pointers into caller memory.
 */
struct frame_outputs {
    /*!
     * If not null, 2 Mt values receive the frame's boundary metrics: the
     * forward metric alpha_N (Mt values) then the backward metric beta_0 (Mt
     * values) on the states the frame can start in (start weight not 0, drift
     * within the received word; 0 elsewhere), each normalized to sum 1 (all 0
     * for a refused frame).
     */
    double* boundary_metrics = nullptr;
    /*!
     * If not null, receives the frame's log evidence against random bits, in
     * the backend's weighing: ln of the sum over all paths and messages of
     * alpha_0 (normalized) times the path's likelihood ratio (each received
     * bit against a random one, lattice_weights::ratio) times beta_N
     * (normalized), plus tau ln Pt. With the default boundaries this is
     * ln P(rx | the model) - ln P(rx | rho random bits); frame_decoder turns
     * it into the evidence of its own boundaries. -infinity for a refused
     * frame.
     */
    double* log_evidence = nullptr;
    /*!
     * If not null, receives the frame's expected channel events given its
     * items (the E-step of channel estimation, docs/design.md section 3, "Channel
     * estimation"): insertions, deletions, transmissions and substitutions, exact sums of
     * edge posteriors over the decoder's lattices (in double in every
     * precision). Zeros for a refused frame. Costs about two more lattice
     * passes.
     */
    event_counts* events = nullptr;
    /*!
     * With events: A rho values (A the decoder's alphabet, 2 for bits) that
     * receive, for each item j, the posterior probability that it is a
     * transmitted letter received as y (entry A j + y; for bits: as 0, entry
     * 2 j, and as 1, entry 2 j + 1); 1 minus their sum is the probability
     * that it was inserted (or lies outside the frame's path). Zeros for a
     * refused frame.
     */
    double* item_posteriors = nullptr;
    /*!
     * With events: A x A values that receive the expected number of
     * transmissions of letter x received as letter y at [x A + y] (the
     * counts the M-step of a substitution matrix needs; their sum is
     * events->trans, their off-diagonal sum events->subst). Zeros for a
     * refused frame.
     */
    double* substitution_counts = nullptr;
    /*!
     * false: the symbol posteriors are not asked for (channel estimation
     * needs the events alone; the frame decoder's look-ahead and the stream
     * decoder's reads, the evidence and the boundary metrics). The CPU
     * backend then skips their sums and leaves the posteriors uniform; the
     * status, the evidence, the boundary metrics and the events are the
     * same. The CUDA backend skips pass L in a batch where no frame asks for
     * them and no frame asks for its events (the posteriors are then
     * uniform), and computes them otherwise.
     */
    bool posteriors = true;
};

/*!
 * \brief One frame to decode: its input (frame_input) and the outputs asked
 * for (frame_outputs). frame_view{ bits, rho, priors, log_priors } sets
 * those input fields and leaves the rest at their defaults.
 */
struct frame_view : frame_input, frame_outputs {
    frame_view() = default;
    frame_view(const uint8_t* bits_,
               size_t rho_,
               const double* priors_ = nullptr,
               bool log_priors_ = false)
    {
        bits = bits_;
        rho = rho_;
        priors = priors_;
        log_priors = log_priors_;
    }
    explicit frame_view(const frame_input& in, const frame_outputs& out = {})
        : frame_input(in), frame_outputs(out)
    {
    }
};

/*!
 * \brief Time spent per stage, accumulated over decodes when profiling is on
 * (bsid_bench). Seconds of wall time per calling thread, summed.
 */
struct stage_times {
    double gamma = 0, alpha = 0, beta = 0, L = 0;
};

/*!
 * \brief The MAP decoder of the paper ("The MAP Decoder"): APPs L_i(D) of
 * every message symbol, by the forward-backward algorithm over the drift at
 * codeword boundaries (eqn:L to eqn:F_lastrow).
 *
 * One interface, several backends (the CPU here, CUDA in lib/cuda); make()
 * picks one and logs the choice. All backends produce the same posteriors
 * within their precision.
 *
 * Posteriors: N x q doubles, row i sums to 1. A refused frame gets a status
 * and reason, never an exception, and its posteriors are set uniform (1/q);
 * so does a frame the decoder fails on (decoder_error: out of memory, a
 * device error), so that one frame's failure never ends a batch, a block or
 * the process. Only invalid arguments (priors, buffer counts) throw, from
 * the calling thread, before any frame is decoded.
 * Priors: N x q non-negative finite values, each row with a positive sum (rows
 * are normalized); invalid priors throw std::invalid_argument.
 */
class map_decoder
{
public:
    virtual ~map_decoder() = default;

    /*!
     * Builds a decoder; throws std::invalid_argument for bad parameters or
     * limits, std::runtime_error if the requested backend is unavailable
     * (backend cuda with a device, or one of cfg.devices, that does not exist;
     * backend auto then takes the CPU). With two or more cfg.devices and a
     * backend that is not cpu, the decoder spreads each batch over them.
     */
    static std::unique_ptr<map_decoder> make(const decoder_config& cfg);

    /*!
     * The drift limits a decoder of `cfg` uses: cfg.mtau and cfg.mn where
     * given, the rest from Pr (compute_decoder_limits); throws
     * std::invalid_argument, naming the range, for limits that do not hold 0
     * or are too wide, or a frame that is too long.
     */
    static decoder_limits limits_for(const decoder_config& cfg);

    //! Decodes one frame into post (N q values).
    virtual frame_result decode(const frame_view& frame, double* post) = 0;

    /*!
     * \brief Decodes many frames, spread over threads; post[k] receives frame
     * k's N q posteriors. Equal to calling decode() on each frame in turn.
     */
    virtual std::vector<frame_result> decode_batch(const std::vector<frame_view>& frames,
                                                   const std::vector<double*>& post) = 0;

    /*!
     * Whether a frame of rho received bits can be decoded at all: empty, or an
     * end drift rho - tau outside m_tau, is refused before any bit is read
     * (lets a caller skip storing a frame it will not decode).
     */
    frame_result check_length(size_t rho) const;

    //! Throws std::invalid_argument, naming the entry, if priors (N q values) are
    //! invalid.
    void validate_priors(const double* priors, bool log_priors = false) const;

    //! Copies priors into `out` (N q values, rows normalized, in double) after
    //! checking them (as validate_priors).
    void normalized_priors(const double* priors, bool log_priors, double* out) const;

private:
    //! Row i of normalized_priors (Q values), or its error.
    void
    normalized_priors_row(const double* row, bool log_priors, int i, double* out) const;

public:
    /*!
     * The boundary conditions of a frame that passed check_length(): the
     * frame starts at drift 0 and its received length rho is known, so start
     * is one-hot at drift 0 and end one-hot at drift rho - tau.
     */
    frame_boundaries boundaries(const frame_view& frame) const;
    //! boundaries(frame) written into start and end, Mt values each (no allocation)
    void boundaries_into(const frame_view& frame, double* start, double* end) const;

    const decoder_config& config() const { return d_cfg; }
    const decoder_limits& limits() const { return d_limits; }
    int N() const { return d_cfg.N; }
    int n() const { return d_cfg.cb.n(); }
    int q() const { return d_cfg.cb.q(); }
    //! The letters of the channel's alphabet (2 for bits).
    int alphabet() const { return d_cfg.ch.alphabet(); }
    long long tau() const { return (long long)d_cfg.N * d_cfg.cb.n(); }
    //! The backend and storage actually used (never "auto").
    virtual backend_kind backend() const = 0;
    virtual storage_kind storage() const = 0;
    precision_kind precision() const { return d_cfg.precision; }

    //! Lattice cells per frame, N q M_tau (n M_n - m_n^- (m_n^- - 1)/2), as in the paper.
    double cells_per_frame() const;

    //! Device memory the backend held at most for one batch (0 for the CPU).
    virtual size_t peak_device_bytes() const { return 0; }

    /*!
     * Whether a frame of thousands of states (a window of thousands of
     * starts) decodes sooner cut into parts of a few hundred starts, each a
     * frame of its own in one batch, at the cost of their overlapping drift
     * (about 1.6 times the states for parts of 256 starts): true for the GPU,
     * whose recursion walks one frame's states in one block, false for the
     * CPU, whose time is linear in the states. stream_decoder's searches
     * follow it.
     */
    virtual bool wide_frames_in_parts() const { return false; }

    //! Per-stage timing, off by default (it costs a clock read per stage).
    void set_profiling(bool on) { d_profiling = on; }
    stage_times profile() const { return d_times; }
    void reset_profile() { d_times = stage_times{}; }

    /*!
     * The checks every backend makes on a frame before decoding it (its
     * length, or its boundary weights' shape, and its items): ok, or why the
     * frame is refused. Priors are not checked (validate_priors).
     */
    frame_result check_frame(const frame_view& frame) const
    {
        frame_result r;
        precheck(frame, r);
        return r;
    }

protected:
    explicit map_decoder(const decoder_config& cfg);

    /*!
     * Shared input checks for every backend: fills `result` and returns false
     * when the frame must be refused before decoding (empty, not bits, end
     * drift outside the limits). Priors are the entry points' business: they
     * validate all of them once, before any frame is decoded.
     */
    bool precheck(const frame_view& frame, frame_result& result) const;


    //! Writes uniform posteriors (a refused frame's output).
    void fill_uniform(double* post) const;

    /*!
     * Writes frame.boundary_metrics, if asked for: alpha_N then beta_0 (Mt
     * values each), each normalized; null rows (a refused frame) give zeros.
     * beta_0 is kept only on the states the frame can start in (alpha_0, the
     * start weights, not 0, and the drift within the received word): a
     * backend may leave the rest out of its backward pass, as the CPU's does.
     */
    void write_boundary_metrics(const frame_view& frame,
                                const double* alpha_N,
                                const double* beta_0,
                                const double* alpha_0) const;

    //! A refused frame's log evidence, if asked for: -infinity.
    static void write_no_evidence(const frame_view& frame);

    /*!
     * A frame without events (refused, or not decoded yet): zero events, and
     * zero item posteriors (A rho values) and substitution counts (A x A)
     * where asked for. A: the decoder's alphabet.
     */
    static void clear_events(const frame_view& frame, int A);

    decoder_config d_cfg;
    decoder_limits d_limits;
    bool d_profiling = false;
    stage_times d_times;
};

/*!
 * \brief Hard decisions: for each of the N rows of q posteriors, the index of
 * the largest; values within a relative 1e-12 of the largest count as ties,
 * and ties go to the lowest index.
 */
void hard_decisions(const double* post, int N, int q, int32_t* out);

//! The number of threads decode_batch uses for `threads` (0: all cores).
int resolve_threads(int threads);

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_MAP_DECODER_H */
