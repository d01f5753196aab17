/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Where the backends are chosen (docs/design.md, "Backends"): every factory
// (map_decoder::make, ldpc_decoder::make and ldpc_code::make_decoder,
// make_device_loop) and the
// auto/fallback policy, in the one core file that knows whether the CUDA
// backend is built. A GPU decoder is given the maker of its CPU fallback.

#include "runtime/backends.h"
#include "runtime/device_split_decoder.h"
#include "runtime/format.h"
#include <gnuradio/bsid/core/runtime/log.h>
#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace bsid {

#ifndef BSID_WITH_CUDA
// the CUDA backend's answers where it is not built
int cuda_device_count() { return 0; }

bool cuda_device_available(int, std::string* why)
{
    if (why)
        *why = "no CUDA backend in this build (configured without a CUDA compiler)";
    return false;
}

bool cuda_device_available(const decoder_config&, std::string* why)
{
    return cuda_device_available(0, why);
}
#endif

#ifdef BSID_WITH_CUDA
namespace {

// The CPU decoder a GPU decoder hands frames to when its device cannot take
// them: its settings on the CPU.
std::unique_ptr<map_decoder> cpu_fallback(const decoder_config& cfg)
{
    decoder_config c = cfg;
    c.backend = backend_kind::cpu;
    c.cuda.devices.clear();
    return make_cpu_decoder(c);
}

// One CUDA decoder per device of `devices`, under one decoder that splits
// each batch among them; the host's cores shared among the devices' threads.
std::unique_ptr<map_decoder> make_split_cuda_decoder(const decoder_config& cfg,
                                                     const std::vector<int>& devices)
{
    decoder_config top = cfg;
    top.cuda.device = devices[0];
    const int share = std::max(1, resolve_threads(cfg.threads) / int(devices.size()));
    std::vector<std::unique_ptr<map_decoder>> parts;
    for (int d : devices) {
        decoder_config c = cfg;
        c.cuda.devices.clear();
        c.cuda.device = d;
        c.threads = share;
        parts.push_back(
            make_cuda_decoder(c, cpu_fallback)); // a clear error for a device not there
    }
    log(log_level::info,
        detail::concat("map_decoder(cuda): ",
                       devices.size(),
                       " devices, batches split by received bits, ",
                       share,
                       " host threads each"));
    return std::make_unique<device_split_decoder>(top, std::move(parts));
}

// Backend auto: the CUDA decoder that `build` makes, or null (logged) when
// the CUDA backend fails, so that the CPU decodes.
template <typename Build>
std::unique_ptr<map_decoder> auto_cuda(Build build)
{
    try {
        auto dec = build();
        log(log_level::info, "map_decoder: backend auto -> cuda");
        return dec;
    } catch (const std::runtime_error& e) {
        log(log_level::warning,
            std::string("map_decoder: backend auto -> cpu (the CUDA backend failed: ") +
                e.what() + ")");
        return nullptr;
    }
}

} // namespace
#endif

std::unique_ptr<map_decoder> map_decoder::make(const decoder_config& cfg)
{
    if (!cfg.cuda.devices.empty()) {
        check_devices(cfg.cuda.devices);
        const std::vector<int> devices = cfg.cuda.devices;
        decoder_config one = cfg;
        one.cuda.devices.clear();
        const char* env = std::getenv("BSID_CUDA_DEVICE");
        if (devices.size() == 1 || cfg.backend == backend_kind::cpu || (env && *env)) {
            // one device: the decoder of today (BSID_CUDA_DEVICE, when set, names it)
            one.cuda.device = devices[0];
            return make(one);
        }
#ifdef BSID_WITH_CUDA
        if (cfg.backend == backend_kind::cuda)
            return make_split_cuda_decoder(cfg, devices);
        // auto: every device must be usable, or the CPU decodes (as for one bad device)
        std::string why;
        for (int d : devices) {
            if (!cuda_device_available(d, &why)) {
                log(log_level::info,
                    detail::concat(
                        "map_decoder: backend auto -> cpu (device ", d, ": ", why, ")"));
                one.backend = backend_kind::cpu;
                return make(one);
            }
        }
        if (auto dec = auto_cuda([&] { return make_split_cuda_decoder(cfg, devices); }))
            return dec;
        one.backend = backend_kind::cpu;
        return make(one);
#else
        return make(one); // backend cuda: no CUDA in this build; auto: the CPU
#endif
    }
    switch (cfg.backend) {
    case backend_kind::cuda:
#ifdef BSID_WITH_CUDA
        return make_cuda_decoder(
            cfg, cpu_fallback); // a clear error if there is no usable device
#else
        throw std::runtime_error(
            "map_decoder: the CUDA backend is not available in this build "
            "(configured without a CUDA compiler)");
#endif
    case backend_kind::automatic: {
#ifdef BSID_WITH_CUDA
        std::string why;
        if (cuda_device_available(cfg, &why)) {
            if (auto dec =
                    auto_cuda([&] { return make_cuda_decoder(cfg, cpu_fallback); }))
                return dec;
        } else {
            log(log_level::info,
                "map_decoder: backend auto -> cpu (no GPU: " + why + ")");
        }
#else
        log(log_level::info,
            "map_decoder: backend auto -> cpu (no CUDA backend in this build)");
#endif
        break;
    }
    case backend_kind::cpu:
        break;
    }
    return make_cpu_decoder(cfg);
}

#ifdef BSID_WITH_CUDA
namespace {

// the CPU belief propagation a GPU one hands a batch to when its device
// runs out of memory
std::unique_ptr<ldpc_decoder> ldpc_fallback(const ldpc_code& code, const bp_config& cfg)
{
    return make_ldpc_decoder_cpu(code, cfg);
}

} // namespace
#endif

std::unique_ptr<ldpc_decoder> ldpc_decoder::make(const ldpc_code& code,
                                                 const bp_config& cfg)
{
    switch (cfg.backend) {
    case backend_kind::cuda:
#ifdef BSID_WITH_CUDA
        return make_ldpc_decoder_cuda(code, cfg, ldpc_fallback);
#else
        throw std::runtime_error(
            "ldpc_decoder: the CUDA backend is not available in this "
            "build (configured without a CUDA compiler)");
#endif
    case backend_kind::automatic:
#ifdef BSID_WITH_CUDA
        if (cuda_device_available(cfg.device)) {
            try {
                return make_ldpc_decoder_cuda(code, cfg, ldpc_fallback);
            } catch (const std::runtime_error& e) {
                log(log_level::warning,
                    std::string("ldpc_decoder: backend auto -> cpu (") + e.what() + ")");
            }
        }
#endif
        break;
    case backend_kind::cpu:
        break;
    }
    return make_ldpc_decoder_cpu(code, cfg);
}

std::unique_ptr<siso_decoder> ldpc_code::make_decoder(const siso_config& cfg) const
{
    return ldpc_decoder::make(*this, cfg);
}

std::unique_ptr<device_concatenated_loop> make_device_loop(map_decoder& inner,
                                                           siso_decoder& outer,
                                                           const outer_code& code,
                                                           const symbol_mapping& map)
{
#ifdef BSID_WITH_CUDA
    return make_device_concatenated_loop(inner, outer, code, map);
#else
    (void)inner, (void)outer, (void)code, (void)map;
    return nullptr;
#endif
}

std::unique_ptr<reads::joint_decoder>
make_joint_decoder(const decoder_config& base,
                   const std::vector<reads::read_channel>& channels,
                   backend_kind backend)
{
    auto cpu = reads::make_joint_cpu_decoder(base, channels);
#ifdef BSID_WITH_CUDA
    if (backend == backend_kind::cuda)
        return make_joint_cuda_decoder(base, channels, std::move(cpu));
#else
    (void)backend;
#endif
    return cpu;
}

} // namespace bsid
