/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The decoder blocks' receiver options as Python arguments: read through the
// core's option table (bsid::receiver_option_table), so that each option is
// named, typed and documented once for the blocks, the core and the command
// lines.

#ifndef INCLUDED_BSID_BINDINGS_RECEIVER_KEYWORDS_H
#define INCLUDED_BSID_BINDINGS_RECEIVER_KEYWORDS_H

#include <gnuradio/bsid/core/options/receiver_options.h>
#include <pybind11/pybind11.h>
#include <string>
#include <vector>

namespace gr {
namespace bsid {

/*!
 * The receiver options of a block's call: `args` in the order of `names`
 * (the block's options after its fixed parameters), then `kwargs` by name,
 * each one of `names`. A wrong type, an unknown or repeated name or too many
 * arguments raise TypeError "<block>: ..." naming the option; the rest keep
 * their defaults.
 */
::bsid::receiver_options read_receiver_keywords(const std::string& block,
                                                const std::vector<std::string>& names,
                                                const pybind11::args& args,
                                                const pybind11::kwargs& kwargs);

/*!
 * The docstring of a block's make: `head` (its description and the Args of
 * its fixed parameters, as the docstring template has them) followed by one
 * Args line for each of `names`, from the option table (help and default).
 * Kept for the life of the module.
 */
const char* receiver_keywords_doc(const char* head,
                                  const std::vector<std::string>& names);

} // namespace bsid
} // namespace gr

#endif
