/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/format.h"
#include "runtime/text_file.h"
#include <gnuradio/bsid/core/runtime/errors.h>
#include <filesystem>
#include <fstream>

namespace bsid {
namespace detail {

std::string read_text_file(const std::string& path,
                           const std::string& who,
                           const std::string& kind,
                           size_t max_bytes)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        throw io_error(who + ": '" + path + "' is a directory, not a " + kind + " file");
    }
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        throw io_error(who + ": cannot open " + kind + " file '" + path + "'");
    }
    std::string text;
    char buf[1 << 16];
    while (f.read(buf, sizeof buf) || f.gcount() > 0) {
        text.append(buf, size_t(f.gcount()));
        if (text.size() > max_bytes) {
            throw io_error(concat(who,
                                  ": file '",
                                  path,
                                  "' is larger than ",
                                  max_bytes >> 20,
                                  " MiB; it is not a ",
                                  kind,
                                  " file"));
        }
    }
    if (f.bad()) {
        throw io_error(who + ": error reading " + kind + " file '" + path + "'");
    }
    return text;
}

void write_text_file(const std::string& path,
                     const std::string& who,
                     const std::string& text)
{
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) {
        throw io_error(who + ": cannot open '" + path + "' for writing");
    }
    f << text;
    f.flush();
    if (!f) {
        throw io_error(who + ": error writing '" + path + "'");
    }
}

} // namespace detail
} // namespace bsid
