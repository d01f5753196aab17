/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Small helpers of the C++ tests: expected errors and temporary files.

#ifndef INCLUDED_BSID_QA_EXPECT_H
#define INCLUDED_BSID_QA_EXPECT_H

#include <gtest/gtest.h>
#include <functional>
#include <stdexcept>
#include <string>

namespace bsid {
namespace qa {

//! f must throw std::invalid_argument with `fragment` in its message.
inline void expect_invalid(const std::function<void()>& f, const std::string& fragment)
{
    try {
        f();
        ADD_FAILURE() << "accepted; expected an error containing '" << fragment << "'";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

//! A path in the test's temporary directory: "bsid_qa_" + name.
inline std::string temp_path(const std::string& name)
{
    return std::string(::testing::TempDir()) + "bsid_qa_" + name;
}

} // namespace qa
} // namespace bsid

#endif /* INCLUDED_BSID_QA_EXPECT_H */
