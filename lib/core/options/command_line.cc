/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/bsid/core/options/command_line.h>
#include <gnuradio/bsid/core/options/option_table.h>

namespace bsid {

bool command_line::has(const std::string& name) const
{
    for (const auto& g : given)
        if (g.first == name)
            return true;
    return false;
}

std::string command_line::value(const std::string& name, const std::string& dflt) const
{
    for (const auto& g : given)
        if (g.first == name)
            return g.second;
    return dflt;
}

std::map<std::string, std::string> command_line::values() const
{
    return std::map<std::string, std::string>(given.begin(), given.end());
}

command_line read_command_line(int argc,
                               const char* const* argv,
                               const std::vector<command_line_option>& options)
{
    std::vector<std::string> names;
    for (const auto& o : options)
        names.push_back(o.name);
    command_line out;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            out.help = true;
            break;
        }
        bool inline_value = false;
        std::string value;
        const auto eq = a.find('=');
        if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
            inline_value = true;
            value = a.substr(eq + 1);
            a = a.substr(0, eq);
        }
        const command_line_option* opt = nullptr;
        for (const auto& o : options)
            if (o.name == a)
                opt = &o;
        if (!opt) {
            const std::string close = closest_option(a, names);
            throw command_line_error(
                "unknown argument '" + a + "'" +
                (close.empty() ? "" : " (did you mean " + close + "?)"));
        }
        if (out.has(a))
            throw command_line_error("option " + a + " is given twice");
        if (!opt->takes_value) {
            if (inline_value)
                throw command_line_error("option " + a + " takes no value");
            out.given.emplace_back(a, "");
            continue;
        }
        if (!inline_value) {
            if (i + 1 >= argc)
                throw command_line_error("option " + a + " needs a value");
            value = argv[++i];
        }
        out.given.emplace_back(a, value);
    }
    return out;
}

std::string table_name(const std::string& cli_name)
{
    const size_t dashes = cli_name.rfind("--", 0) == 0 ? 2 : cli_name.rfind('-', 0) == 0;
    std::string out = cli_name.substr(dashes);
    for (char& c : out)
        if (c == '-')
            c = '_';
    return out;
}

} // namespace bsid
