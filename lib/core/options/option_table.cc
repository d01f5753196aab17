/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/bsid/core/options/option_table.h>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace bsid {

std::string describe(option_type t, spelling s)
{
    const bool py = s == spelling::python;
    switch (t) {
    case option_type::flag:
        return py ? "a bool (True or False)" : "a bool (true or false)";
    case option_type::integer:
        return "an int";
    case option_type::number:
        return py ? "a number (float)" : "a number";
    default:
        return "a string";
    }
}

option_value
parse_option_text(const std::string& name, option_type t, const std::string& text)
{
    const auto bad = [&] {
        return option_type_error(name + " = '" + text + "' must be " + describe(t));
    };
    switch (t) {
    case option_type::flag:
        if (text == "true" || text == "1")
            return true;
        if (text == "false" || text == "0")
            return false;
        throw bad();
    case option_type::integer: {
        char* end = nullptr;
        errno = 0;
        const long long v = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || std::isspace((unsigned char)text[0]))
            throw bad();
        if (errno == ERANGE)
            throw std::invalid_argument(name + " = " + text + " is out of range");
        return v;
    }
    case option_type::number: {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || std::isspace((unsigned char)text[0]))
            throw bad();
        return v;
    }
    default:
        return text;
    }
}

std::string option_text(const option_value& v)
{
    if (const bool* b = std::get_if<bool>(&v))
        return *b ? "true" : "false";
    if (const long long* i = std::get_if<long long>(&v))
        return std::to_string(*i);
    if (const double* d = std::get_if<double>(&v)) {
        std::ostringstream os;
        os.precision(17);
        os << *d;
        return os.str();
    }
    return "'" + std::get<std::string>(v) + "'";
}

namespace {

std::string folded(const std::string& s)
{
    std::string out;
    for (char c : s)
        out.push_back(c == '-' ? '_' : (char)std::tolower((unsigned char)c));
    return out;
}

} // namespace

std::string closest_option(const std::string& name, const std::vector<std::string>& names)
{
    for (const auto& n : names)
        if (folded(n) == folded(name))
            return n;
    return "";
}

} // namespace bsid
