/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Test-only: environment variables set for the length of a scope. A test that
// sets BSID_CUDA_AB, BSID_CUDA_DEVICE, BSID_CUDA_LOCAL_WINDOW, ... holds one
// scoped_env per variable; its destructor puts back the value the variable
// had before (or its absence), also when a failed ASSERT returns from the
// test early, so that no setting leaks into the tests that run after it.

#ifndef INCLUDED_BSID_QA_ENV_GUARD_H
#define INCLUDED_BSID_QA_ENV_GUARD_H

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

namespace bsid {
namespace qa {

class scoped_env
{
public:
    //! Remembers the variable's value (or absence) and leaves it as it is.
    explicit scoped_env(std::string name) : d_name(std::move(name))
    {
        if (const char* v = std::getenv(d_name.c_str()))
            d_saved = std::string(v);
    }

    //! Remembers the variable, then sets it to `value` (nullptr: unsets it).
    scoped_env(std::string name, const char* value) : scoped_env(std::move(name))
    {
        set(value);
    }

    scoped_env(const scoped_env&) = delete;
    scoped_env& operator=(const scoped_env&) = delete;

    ~scoped_env()
    {
        // no throw from a destructor: setenv and unsetenv fail only for a
        // name they refuse, which set() has reported already
        if (d_saved) {
            ::setenv(d_name.c_str(), d_saved->c_str(), 1);
        } else {
            ::unsetenv(d_name.c_str());
        }
    }

    //! Sets the variable for the rest of the scope (nullptr: unsets it).
    void set(const char* value)
    {
        const int rc =
            value ? ::setenv(d_name.c_str(), value, 1) : ::unsetenv(d_name.c_str());
        if (rc != 0) {
            throw std::runtime_error(std::string("scoped_env: cannot ") +
                                     (value ? "set " : "unset ") + d_name + ": " +
                                     std::strerror(errno));
        }
    }

    void unset() { set(nullptr); }

    const std::string& name() const { return d_name; }

    //! The value the variable had when the guard was made (empty: it was unset).
    const std::optional<std::string>& saved() const { return d_saved; }

private:
    std::string d_name;
    std::optional<std::string> d_saved;
};

} // namespace qa
} // namespace bsid

#endif /* INCLUDED_BSID_QA_ENV_GUARD_H */
