/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "launch_plan.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/inner/model.h>
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace bsid {
namespace cuda {

register_weights plan_register_weights(const channel_params& ch, int n, bool single)
{
    register_weights r;
    const double Pd = ch.Pd(), Pt = ch.Pt();
    // the scaled rows stay below 2^bound times the ratio lattice's values
    // (at most 2^48: float keeps 2^(127 - 60 - 48) of headroom)
    const double bound = single ? 60 : 500;
    r.usable =
        n >= 1 && Pd > 0 && Pd <= 2 * Pt && Pt >= 0.25 && std::log2(1 / Pd) <= bound;
    if (!r.usable)
        return r;
    const auto w = lattice_weights<double>::ratio(ch);
    const int R = std::max(1, int(std::floor(bound / std::log2(1 / Pd))));
    int renorms = 0;
    for (int row = R; row < n; row += R) {
        r.renorm_rows |= 1u << row;
        ++renorms;
    }
    r.renorm_factor = std::pow(Pd, R);
    r.out_scale = std::pow(Pd, n - R * renorms) / std::pow(Pt, n);
    r.wmatch = w.match / w.del;
    r.wmismatch = w.mismatch / w.del;
    return r;
}

size_t memory_model::per_index() const
{
    const size_t MtMn = size_t(Mt) * size_t(Mn);
    // the table's n positions an index (its M_tau more: per_frame)
    const size_t table = size_t(table_books) * size_t(n) * size_t(q) * size_t(Mn);
    return real_bytes * (MtMn + size_t(nwarps()) * size_t(q) + table);
}

size_t memory_model::per_frame(size_t rho) const
{
    // alpha, beta, start, end, and the logs of alpha's and beta's normalizers
    const size_t rows =
        2 * size_t(N + 1) * size_t(Mt) + 2 * size_t(Mt) + 2 * size_t(N + 2);
    const size_t Nq = size_t(N) * size_t(q);
    // the state metrics in double; priors and posteriors in the decoder's
    // precision and in double
    // soft items: an LLR (double) and 2 reals each over bits, A doubles and A
    // reals over A > 2 letters; hard ones a byte each, and bits packed
    const size_t A = size_t(alphabet);
    const size_t received = soft     ? (A == 2 ? rho * (sizeof(double) + 2 * real_bytes)
                                               : rho * A * (sizeof(double) + real_bytes))
                            : A == 2 ? rho + rho / 8
                                     : rho;
    // the E-step: A probabilities per item in double, 4 events per index and
    // per frame, A item posteriors per item, and the A x A substitution
    // counts per index and per frame (if asked: counted for any)
    const size_t pairs = A * A;
    const size_t events_bytes =
        !events ? 0
                : sizeof(double) * (A * rho + (4 + pairs) * size_t(N + 1) +
                                    (items ? A * rho : 0)) +
                      2 * sizeof(int);
    // the position table's M_tau positions past a window's n per index, and
    // up to 31 more for its whole tiles of 32 (plan_table_span)
    const size_t table =
        real_bytes * size_t(table_books) * size_t(Mt + 31) * size_t(q) * size_t(Mn);
    return sizeof(double) * (rows + 2 * Nq) + real_bytes * 2 * Nq + received +
           events_bytes + table + 64;
}

size_t plan_window(const memory_model& m,
                   const std::vector<size_t>& rho,
                   size_t usable,
                   storage_kind storage,
                   int local_cap,
                   bool* fell_back)
{
    if (fell_back)
        *fell_back = false;
    const size_t budget = usable / 10 * 8;
    size_t fixed = m.general_scratch + (m.events ? m.events_scratch : 0);
    for (size_t r : rho)
        fixed += m.per_frame(r);
    if (fixed >= budget)
        return 0;
    const size_t per_index = std::max<size_t>(1, m.per_index() * rho.size());
    const size_t fit = (budget - fixed) / per_index;
    const size_t below_N = size_t(std::max(1, m.N - 1));
    if (storage == storage_kind::global) {
        if (fit >= size_t(m.N))
            return size_t(m.N);
        if (fell_back)
            *fell_back = true;
        // global storage asked for speed: the largest window that fits
        return std::min(fit, below_N);
    }
    // local storage: windows of at most N - 1 indices, of the caller's
    // local_cap indices or else within local_window_bytes of G and partial L
    // (the recursions run a window per launch)
    const size_t cap = local_cap > 0
                           ? size_t(local_cap)
                           : std::max<size_t>(1, local_window_bytes / per_index);
    return std::min({ fit, below_N, cap });
}

size_t plan_window_in_cache(const memory_model& m,
                            const std::vector<size_t>& rho,
                            size_t cached,
                            storage_kind storage,
                            int local_cap)
{
    const size_t widest = plan_window(
        m, rho, std::numeric_limits<size_t>::max(), storage, local_cap, nullptr);
    if (widest >= 1 && plan_window(m, rho, cached, storage, local_cap, nullptr) == widest)
        return widest;
    return 0;
}

std::vector<int> plan_local_windows(int N, int W)
{
    std::vector<int> starts;
    if (N < 1 || W < 1)
        return starts;
    const int first = N - (N - 1) / W * W; // 1 .. W
    starts.push_back(0);
    for (int i0 = first; i0 < N; i0 += W)
        starts.push_back(i0);
    return starts;
}

int plan_ab_block(int Mt, int limit)
{
    return std::max(32, std::min((Mt + 31) / 32 * 32, limit / 32 * 32));
}

int plan_ab_row_pad(int Mt, int Mn, int ab_block)
{
    if (plan_ab_fast(Mt, Mn, ab_block))
        return 0;
    const size_t need = sizeof(double) * (32 + size_t(Mt) + 2 * size_t(Mn));
    return need <= size_t(48) * 1024 ? Mn : 0;
}

int plan_reg_block(int Mt) { return Mt <= 32 ? 32 : Mt <= 64 ? 64 : 128; }

int plan_shared_g(int n, int P, int Mt, int Wc)
{
    if (n < 1 || P < 1 || Mt < 1 || Wc < 1)
        return 0;
    const long long warp = 32, books = std::min(P, Wc);
    auto warps = [&](long long threads) { return (threads + warp - 1) / warp * warp; };
    const long long by_position = books * warps((long long)n * (Wc - 1) + Mt);
    const long long by_index = (long long)Wc * warps(Mt);
    return 4 * by_position <= 3 * by_index ? int(books) : 0;
}

int plan_position_table(int n, int q, int P, int Mt, int Wc)
{
    const int books = plan_shared_g(n, P, Mt, Wc);
    if (books == 0 || q < 1)
        return 0;
    const long long table = (long long)books * ((long long)n * (Wc - 1) + Mt) * q;
    return table <= 4 * (long long)Wc * Mt ? books : 0;
}

long long plan_table_span(int n, int W, int Mt)
{
    return ((long long)n * ((long long)W - 1) + Mt + 31) / 32 * 32;
}

table_launch plan_table_launch(int n, int books, int Mt, int Wc, int K)
{
    table_launch t;
    t.states = std::min(128, (Mt + 31) / 32 * 32);
    t.chunks = (Mt + t.states - 1) / t.states;
    const int nP = n * books;
    t.tile = nP >= t.states
                 ? 1
                 : std::max(1, std::min(K, 1 + (table_block_max - t.states) / nP));
    t.block = (t.states + nP * (t.tile - 1) + 31) / 32 * 32;
    const int per_book = (Wc + books - 1) / books;
    t.tiles = (per_book + t.tile - 1) / t.tile;
    return t;
}

namespace {

int plan_corner(int n, int nmax, int Mn, int dlo, unsigned renorm_rows)
{
    if (n != nmax || renorm_rows != 0 || Mn < 1)
        return 0; // only the fast path's exact loop skips it
    const int k0 = -dlo, wide = reg_corner_wide(nmax, Mn),
              narrow = reg_corner_narrow(nmax, Mn);
    return wide > 0 && k0 >= wide ? wide : narrow > 0 && k0 >= narrow ? narrow : 0;
}

} // namespace

int plan_reg_corner(int n, int Mn, int dlo, unsigned renorm_rows)
{
    return plan_corner(n, reg_band(n), Mn, dlo, renorm_rows);
}

int plan_wide_corner(int n, int Mn, int dlo, unsigned renorm_rows)
{
    return plan_corner(n, wide_band(n), wide_corridor(Mn), dlo, renorm_rows);
}

bool plan_warp_recursion(recursion_kind r, int Mt, int Mn)
{
    return r != recursion_kind::block && (Mt + 31) / 32 <= 2 && Mn <= 32;
}

int plan_warp_emax(int Mn) { return Mn <= 8 ? 8 : Mn <= 12 ? 12 : Mn <= 16 ? 16 : 32; }

int plan_segments(recursion_kind r, int Mt, int Mn, int Wc, int F, bool both_directions)
{
    if (!both_directions || !plan_warp_recursion(r, Mt, Mn) || Wc < 1 || F < 1)
        return 0;
    int L = 8;
    while ((long long)L * L < 2LL * Wc)
        ++L;
    const int segs = seg_count(Wc, L);
    if (segs < seg_min_segments || seg_workspace(Mt, segs, F).bytes() > seg_max_bytes)
        return 0;
    if (r == recursion_kind::segmented)
        return L;
    return (long long)F * segs * Mt <= seg_max_warps ? L : 0;
}

namespace {

// A whole non-negative int from an environment variable, or `fallback` when unset.
int env_int(const char* name, int fallback, bool positive)
{
    const char* v = std::getenv(name);
    if (!v || !*v)
        return fallback;
    errno = 0;
    char* end = nullptr;
    const long x = std::strtol(v, &end, 10);
    if (errno != 0 || *end != '\0' || x < (positive ? 1 : 0) || x > INT_MAX) {
        throw std::invalid_argument(detail::concat(name,
                                                   " = '",
                                                   v,
                                                   "' is not a ",
                                                   positive ? "positive" : "non-negative",
                                                   " integer"));
    }
    return int(x);
}

} // namespace

int plan_general_block(size_t per_thread, size_t shared_limit)
{
    int block = 128;
    while (block >= 32 && per_thread * size_t(block) > shared_limit)
        block -= 32;
    return block >= 32 ? block : 0;
}

size_t plan_chunk(size_t frames, int streams)
{
    if (streams <= 1 || frames < lane_min_chunks * chunk_frames)
        return std::max<size_t>(frames, 1);
    return chunk_frames;
}

std::vector<size_t> plan_tail_parts(size_t frames)
{
    std::vector<size_t> bounds{ 0 };
    size_t left = frames;
    while (left / 2 >= tail_part_min) {
        left /= 2; // the part takes the rest: half, rounded up
        bounds.push_back(frames - left);
    }
    bounds.push_back(frames);
    return bounds;
}

backend_settings settings_from(const decoder_config& cfg)
{
    if (cfg.cuda.device < 0) {
        throw std::invalid_argument(
            detail::concat("map_decoder: device = ", cfg.cuda.device, " must be >= 0"));
    }
    if (cfg.cuda.local_window < 0) {
        throw std::invalid_argument(detail::concat("map_decoder: local_window = ",
                                                   cfg.cuda.local_window,
                                                   " must be >= 0 (0: auto)"));
    }
    backend_settings s;
    s.device = env_int("BSID_CUDA_DEVICE", cfg.cuda.device, false);
    s.recursion = cfg.cuda.recursion;
    if (const char* ab = std::getenv("BSID_CUDA_AB")) {
        if (std::string(ab) == "block" || std::string(ab) == "segmented") {
            s.recursion = parse_recursion(ab);
        } else if (*ab) {
            throw std::invalid_argument(
                detail::concat("BSID_CUDA_AB = '",
                               ab,
                               "': only 'block' and 'segmented' are understood"));
        }
    }
    s.local_window = env_int("BSID_CUDA_LOCAL_WINDOW", cfg.cuda.local_window, true);
    // (map_decoder's constructor has checked the range)
    s.streams = cfg.cuda.streams == 0 ? default_cuda_streams
                                      : std::min(cfg.cuda.streams, max_cuda_streams);
    s.share_g = cfg.cuda.share_g;
    return s;
}

} // namespace cuda
} // namespace bsid
