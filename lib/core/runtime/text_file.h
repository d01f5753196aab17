/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_TEXT_FILE_H
#define INCLUDED_BSID_CORE_TEXT_FILE_H

#include <cstddef>
#include <string>

namespace bsid {
namespace detail {

/*!
 * The whole text of the file `path`, read with a bound (a device such as
 * /dev/zero never ends). Throws bsid::io_error, each message beginning
 * "<who>: " and naming the file as a "<kind> file", for a directory, a file
 * that cannot be opened or read, or one larger than max_bytes.
 */
std::string read_text_file(const std::string& path,
                           const std::string& who,
                           const std::string& kind,
                           size_t max_bytes);

/*!
 * Writes `text` to the file `path`, replacing it. Throws bsid::io_error,
 * beginning "<who>: ", if it cannot be opened or written.
 */
void write_text_file(const std::string& path,
                     const std::string& who,
                     const std::string& text);

} // namespace detail
} // namespace bsid

#endif /* INCLUDED_BSID_CORE_TEXT_FILE_H */
