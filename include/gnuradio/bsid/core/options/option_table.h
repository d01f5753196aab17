/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_OPTION_TABLE_H
#define INCLUDED_BSID_CORE_OPTION_TABLE_H

/*
 * The options reader: a table of named options, each a field of an options
 * object, with its type, default and help. The command lines (bsid_decode,
 * bsid_bench) and the Python bindings read their settings through it, so an
 * option is named, typed, checked and documented in one place
 * (receiver_options.h holds the receiver's table).
 */

#include <gnuradio/bsid/core/runtime/visibility.h>
#include <type_traits>
#include <cstddef>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace bsid {

//! The types an option can have.
enum class option_type { flag, integer, number, text };

//! How a message spells values: as the command lines and C++ do, or as Python.
enum class spelling { text, python };

/*!
 * The name of a type in messages: "a bool (true or false)", "an int", "a
 * number", "a string"; as Python spells them, "a bool (True or False)" and
 * "a number (float)". The bindings' argument errors use the same words.
 */
BSID_CORE_SHARED_FUNCTION std::string describe(option_type t,
                                               spelling s = spelling::text);

//! A value given for an option: from Python, or parsed from text.
using option_value = std::variant<bool, long long, double, std::string>;

/*!
 * A value of the wrong type for its option (Python: TypeError). `name` and
 * the value's text are in the message.
 */
class option_type_error : public std::invalid_argument
{
public:
    using std::invalid_argument::invalid_argument;
};

/*!
 * An option the table does not have (Python: TypeError). The message names
 * it and, when one differs only in case or in '-' for '_', the option meant.
 */
class unknown_option_error : public std::invalid_argument
{
public:
    using std::invalid_argument::invalid_argument;
};

/*!
 * Text as a value of type t ("true"/"false"/"1"/"0" for a flag, a whole
 * number for an integer, a finite or infinite decimal for a number),
 * or option_type_error naming `name`.
 */
BSID_CORE_SHARED_FUNCTION option_value parse_option_text(const std::string& name,
                                                         option_type t,
                                                         const std::string& text);

//! A value as text, as the usage and the docstrings show defaults.
BSID_CORE_SHARED_FUNCTION std::string option_text(const option_value& v);

//! The option of `names` meant by `name`, or "" (the "did you mean" of errors).
BSID_CORE_SHARED_FUNCTION std::string
closest_option(const std::string& name, const std::vector<std::string>& names);

/*!
 * \brief The options of an object of type T.
 *
 * add() names a field (through an accessor such as
 * [](auto& o) -> auto& { return o.framing.sync_word; }) of type bool, int,
 * long long, float, double or std::string. set() writes a value given in
 * any type that converts without loss (an integer for a number, not a
 * number for an integer); read() parses text. Neither checks the value's
 * range: the object's user does, naming the option.
 */
template <typename T>
class option_table
{
public:
    struct entry {
        std::string name;
        option_type type;
        std::string help;
        std::function<void(T&, const option_value&)> set;
        std::function<option_value(const T&)> get;
    };

    template <typename Accessor>
    option_table& add(std::string name, std::string help, Accessor field)
    {
        using V = std::decay_t<decltype(field(std::declval<T&>()))>;
        entry e;
        e.name = std::move(name);
        e.type = type_of<V>();
        e.help = std::move(help);
        const std::string n = e.name;
        const option_type t = e.type;
        e.set = [field, n, t](T& obj, const option_value& v) {
            field(obj) = convert<V>(n, t, v);
        };
        e.get = [field](const T& obj) { // field is generic: it takes a const T too
            return option_value(widen(field(obj)));
        };
        d_entries.push_back(std::move(e));
        return *this;
    }

    const std::vector<entry>& entries() const { return d_entries; }

    std::vector<std::string> names() const
    {
        std::vector<std::string> out;
        for (const auto& e : d_entries)
            out.push_back(e.name);
        return out;
    }

    //! The entry named `name`, or unknown_option_error.
    const entry& find(const std::string& name) const
    {
        for (const auto& e : d_entries)
            if (e.name == name)
                return e;
        const std::string close = closest_option(name, names());
        throw unknown_option_error(
            "no parameter named '" + name + "'" +
            (close.empty() ? "" : " (did you mean " + close + "?)"));
    }

    bool has(const std::string& name) const
    {
        for (const auto& e : d_entries)
            if (e.name == name)
                return true;
        return false;
    }

    void set(T& obj, const std::string& name, const option_value& v) const
    {
        find(name).set(obj, v);
    }

    void read(T& obj, const std::string& name, const std::string& text) const
    {
        const entry& e = find(name);
        e.set(obj, parse_option_text(name, e.type, text));
    }

    option_value get(const T& obj, const std::string& name) const
    {
        return find(name).get(obj);
    }

private:
    std::vector<entry> d_entries;

    template <typename V>
    static constexpr option_type type_of()
    {
        static_assert(std::is_same_v<V, bool> || std::is_same_v<V, int> ||
                          std::is_same_v<V, long long> || std::is_same_v<V, float> ||
                          std::is_same_v<V, double> || std::is_same_v<V, std::string>,
                      "an option is a bool, an integer, a number or text");
        if constexpr (std::is_same_v<V, bool>)
            return option_type::flag;
        else if constexpr (std::is_integral_v<V>)
            return option_type::integer;
        else if constexpr (std::is_floating_point_v<V>)
            return option_type::number;
        else
            return option_type::text;
    }

    static bool widen(bool v) { return v; }
    static long long widen(int v) { return v; }
    static long long widen(long long v) { return v; }
    static double widen(float v) { return v; }
    static double widen(double v) { return v; }
    static std::string widen(const std::string& v) { return v; }

    [[noreturn]] static void
    wrong(const std::string& name, option_type t, const option_value& v)
    {
        throw option_type_error(name + " = " + option_text(v) + " must be " +
                                describe(t));
    }

    template <typename V>
    static V convert(const std::string& name, option_type t, const option_value& v)
    {
        if constexpr (std::is_same_v<V, bool>) {
            if (const bool* b = std::get_if<bool>(&v))
                return *b;
        } else if constexpr (std::is_integral_v<V>) {
            if (const long long* i = std::get_if<long long>(&v)) {
                if (*i < (long long)std::numeric_limits<V>::min() ||
                    *i > (long long)std::numeric_limits<V>::max())
                    throw std::invalid_argument(name + " = " + std::to_string(*i) +
                                                " is out of range");
                return V(*i);
            }
        } else if constexpr (std::is_floating_point_v<V>) {
            if (const double* d = std::get_if<double>(&v))
                return V(*d);
            if (const long long* i = std::get_if<long long>(&v))
                return V(*i);
        } else {
            if (const std::string* s = std::get_if<std::string>(&v))
                return *s;
        }
        wrong(name, t, v);
    }
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_OPTION_TABLE_H */
