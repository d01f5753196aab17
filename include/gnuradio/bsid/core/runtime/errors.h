/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_ERRORS_H
#define INCLUDED_BSID_CORE_ERRORS_H

#include <stdexcept>

namespace bsid {

/*!
 * Error conventions of the core library:
 *  - std::invalid_argument: a bad parameter, codebook, file content or input
 *    (Python: ValueError). The message names the offending value.
 *  - bsid::io_error: a file that cannot be opened, read or written
 *    (Python: OSError).
 */
class io_error : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_ERRORS_H */
