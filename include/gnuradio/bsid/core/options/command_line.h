/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_COMMAND_LINE_H
#define INCLUDED_BSID_CORE_COMMAND_LINE_H

/*
 * The command lines' reader of argv, shared by bsid_decode and bsid_bench:
 * each app describes its options (a name as typed, "--sync-word" or "-N",
 * and whether it takes a value), and gets back the options given, by name,
 * as text. The options an app shares with the blocks are then read from
 * that text through their option_table (receiver_options.h), their name
 * there the command line's without the leading dashes, '_' for '-'.
 */

#include <gnuradio/bsid/core/runtime/visibility.h>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace bsid {

//! An option of a command line.
struct command_line_option {
    std::string name;        //!< as typed: "--sync-word", "-N"
    bool takes_value = true; //!< false: a bare flag ("--no-search")
};

/*!
 * A command line the reader refuses: an argument that is not one of the
 * app's options (the message names it and, where one differs only in case
 * or in '_' for '-', the option meant), an option without its value, a value
 * given to a flag, an option given twice.
 */
class command_line_error : public std::invalid_argument
{
public:
    using std::invalid_argument::invalid_argument;
};

//! The options given on a command line, in their order.
struct command_line {
    //! name → text ("" for a flag), in the order given
    std::vector<std::pair<std::string, std::string>> given;
    //! -h or --help was given (the arguments after it are not read)
    bool help = false;

    bool has(const std::string& name) const;
    //! The text of option `name`, or `dflt` when it is not given.
    std::string value(const std::string& name, const std::string& dflt = "") const;
    //! The options given as a map, name → text.
    std::map<std::string, std::string> values() const;
};

/*!
 * Reads argv[1..argc-1] against `options`: "--name value" and "--name=value"
 * for an option that takes a value (the next argument is its value whatever
 * it looks like: "--tag-offset -16"), "--name" alone for a flag, "-h" or
 * "--help" (reading stops there). Anything else: command_line_error.
 */
BSID_CORE_SHARED_FUNCTION command_line read_command_line(
    int argc, const char* const* argv, const std::vector<command_line_option>& options);

/*!
 * The name of a command-line option in an option table: "--sync-word" is
 * "sync_word", "-N" is "N".
 */
BSID_CORE_SHARED_FUNCTION std::string table_name(const std::string& cli_name);

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_COMMAND_LINE_H */
