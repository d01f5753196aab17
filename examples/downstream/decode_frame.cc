/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One frame through gr-bsid's core API, as a program of another project
// would use it: N random symbols encoded with the built-in (8,16) code
// ld3-modvec6, sent through the BSID channel (Pi = Pd = 0.01), decoded by
// bsid::map_decoder, and the most likely symbols compared with those sent.
// Exits 0 when the frame decodes with status ok and at most 2 % symbol errors.

#include <gnuradio/bsid/core/channel/channel.h>
#include <gnuradio/bsid/core/channel/channel_params.h>
#include <gnuradio/bsid/core/inner/codebook.h>
#include <gnuradio/bsid/core/inner/map_decoder.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <vector>

int main()
{
    try {
        const int N = 200;
        const bsid::codebook cb = bsid::codebook::builtin("ld3-modvec6");
        const bsid::channel_params channel(0.01, 0.01, 0.0);
        const int q = cb.q();

        std::mt19937_64 rng(2026);
        std::vector<int64_t> sent(N);
        for (auto& s : sent)
            s = int64_t(rng() % uint64_t(q));
        const std::vector<uint8_t> bits = cb.encode(sent.data(), sent.size());
        const bsid::transmission tx =
            bsid::transmit(channel, bits.data(), bits.size(), /*seed=*/7, /*frame=*/0);

        bsid::decoder_config cfg(cb, channel, N);
        cfg.backend = bsid::backend_kind::cpu;
        const auto decoder = bsid::map_decoder::make(cfg);
        std::vector<double> post(size_t(N) * size_t(q));
        const bsid::frame_result result =
            decoder->decode(bsid::frame_view(tx.rx.data(), tx.rx.size()), post.data());

        int errors = 0;
        for (int i = 0; i < N; i++) {
            const double* row = post.data() + size_t(i) * size_t(q);
            errors += int(std::max_element(row, row + q) - row) != sent[i];
        }
        std::printf("decode_frame: %d symbols, %zu bits sent, %zu received, status %s, "
                    "%d symbol errors\n",
                    N,
                    bits.size(),
                    tx.rx.size(),
                    result.ok() ? "ok" : result.reason.c_str(),
                    errors);
        return result.ok() && errors <= N / 50 ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "decode_frame: %s\n", e.what());
        return 1;
    }
}
