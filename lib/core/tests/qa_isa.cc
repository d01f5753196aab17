/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU's instruction sets: the names BSID_CPU_ISA takes, and the cap it
// sets (this program also runs under BSID_CPU_ISA=avx2 and =baseline, with
// the decoder's exact references: lib/core/CMakeLists.txt).

#include "runtime/isa.h"
#include <gnuradio/bsid/core/inner/map_decoder.h>
#include <gtest/gtest.h>
#include <cstdlib>
#include <stdexcept>
#include <string>

using bsid::cpu::isa;

TEST(isa, names_parse_back_and_others_are_refused)
{
    for (isa i : { isa::baseline, isa::avx2, isa::avx512 })
        EXPECT_EQ(bsid::cpu::parse_isa(bsid::cpu::isa_name(i)), i);
    for (const char* bad : { "", "AVX2", "avx", "sse2", "avx512 ", "v3" }) {
        try {
            bsid::cpu::parse_isa(bad);
            FAIL() << "\"" << bad << "\" was taken";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("expected baseline, avx2 or avx512"),
                      std::string::npos)
                << e.what();
        }
    }
}

TEST(isa, the_environment_caps_the_machines_set)
{
    const isa machine = bsid::cpu::machine_isa();
    const char* env = std::getenv("BSID_CPU_ISA");
    isa want = machine;
    if (env && *env) {
        const isa cap = bsid::cpu::parse_isa(env);
        want = int(cap) < int(machine) ? cap : machine;
    }
    EXPECT_EQ(bsid::cpu::best_isa(), want);
    EXPECT_EQ(bsid::cpu_isa(), bsid::cpu::isa_name(want));
#if !BSID_ISA_X86
    EXPECT_EQ(machine, isa::baseline); // the only entry compiled
#endif
    // an entry above the cap is refused, as one above the machine's
    if (want != isa::avx512) {
        EXPECT_THROW(bsid::cpu::isa_entry(isa(int(want) + 1), 1, 2, 3, "test"),
                     std::invalid_argument);
    }
    EXPECT_EQ(bsid::cpu::isa_entry(want, 1, 2, 3, "test"), 1 + int(want));
}
