/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "receiver_keywords.h"
#include <deque>
#include <map>
#include <variant>

namespace py = pybind11;

namespace gr {
namespace bsid {

namespace {

bool is_bool(const py::handle& v)
{
    const std::string ty = py::str(py::type::handle_of(v).attr("__name__"));
    return PyBool_Check(v.ptr()) || ty == "bool_" || ty == "bool";
}

bool is_int(const py::handle& v)
{
    return !is_bool(v) && (PyLong_Check(v.ptr()) || PyIndex_Check(v.ptr()));
}

// A Python value as the option's type, or TypeError in the words of the
// blocks' other argument errors (python/bsid/short_errors.py).
::bsid::option_value to_value(const std::string& block,
                              const std::string& name,
                              ::bsid::option_type t,
                              const py::handle& v)
{
    switch (t) {
    case ::bsid::option_type::flag:
        if (is_bool(v))
            return bool(py::bool_(py::reinterpret_borrow<py::object>(v)));
        break;
    case ::bsid::option_type::integer:
        if (is_int(v))
            return py::int_(py::reinterpret_borrow<py::object>(v)).cast<long long>();
        break;
    case ::bsid::option_type::number:
        if (is_int(v) || (!is_bool(v) && PyFloat_Check(v.ptr())) ||
            (!is_bool(v) && !py::isinstance<py::str>(v) && py::hasattr(v, "__float__")))
            return py::float_(py::reinterpret_borrow<py::object>(v)).cast<double>();
        break;
    default:
        if (py::isinstance<py::str>(v))
            return v.cast<std::string>();
        break;
    }
    const std::string shown = py::repr(v);
    std::string msg = block + ": " + name + " = " + shown + " must be " +
                      ::bsid::describe(t, ::bsid::spelling::python);
    if (t == ::bsid::option_type::integer && PyFloat_Check(v.ptr())) {
        const double d = v.cast<double>();
        if (d == (double)(long long)d)
            msg += " (write " + std::to_string((long long)d) + ")";
    } else {
        msg += ", not " + std::string(py::str(py::type::handle_of(v).attr("__name__")));
    }
    throw py::type_error(msg + " (help(bsid." + block + ") lists them all)");
}

} // namespace

::bsid::receiver_options read_receiver_keywords(const std::string& block,
                                                const std::vector<std::string>& names,
                                                const py::args& args,
                                                const py::kwargs& kwargs)
{
    const auto& table = ::bsid::receiver_option_table();
    ::bsid::receiver_options opt;
    if (args.size() > names.size()) {
        throw py::type_error(block + ": " + std::to_string(args.size()) +
                             " receiver options given by position, at most " +
                             std::to_string(names.size()) + " taken");
    }
    std::map<std::string, bool> given;
    const auto put = [&](const std::string& name, const py::handle& v) {
        const auto& e = table.find(name);
        const auto value = to_value(block, name, e.type, v);
        try {
            e.set(opt, value);
        } catch (const ::bsid::option_type_error& err) {
            throw py::type_error(block + ": " + err.what());
        } catch (const std::invalid_argument& err) {
            throw py::value_error(block + ": " + err.what());
        }
        given[name] = true;
    };
    for (size_t k = 0; k < args.size(); ++k)
        put(names[k], args[k]);
    for (const auto& item : kwargs) {
        const std::string name = py::str(item.first);
        if (std::find(names.begin(), names.end(), name) == names.end()) {
            const std::string close = ::bsid::closest_option(name, names);
            throw py::type_error(block + ": no parameter named '" + name + "'" +
                                 (close.empty() ? "" : " (did you mean " + close + "?)") +
                                 " (help(bsid." + block + ") lists them all)");
        }
        if (given.count(name))
            throw py::type_error(block + ": " + name +
                                 " given twice (by position and by name)");
        put(name, item.second);
    }
    return opt;
}

const char* receiver_keywords_doc(const char* head, const std::vector<std::string>& names)
{
    static std::deque<std::string> docs; // the module's docstrings live as long as it
    const auto& table = ::bsid::receiver_option_table();
    const ::bsid::receiver_options defaults;
    std::string doc = head;
    for (const auto& name : names) {
        const auto& e = table.find(name);
        // the default as Python writes it
        const std::string dflt = py::repr(std::visit(
            [](const auto& v) -> py::object { return py::cast(v); }, e.get(defaults)));
        doc += "\n    " + name + " : " + e.help + " (default " + dflt + ")";
    }
    docs.push_back(doc);
    return docs.back().c_str();
}

} // namespace bsid
} // namespace gr
