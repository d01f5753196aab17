/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_VISIBILITY_H
#define INCLUDED_BSID_CORE_VISIBILITY_H

/*!
 * A core class whose type more than one library shares: the GNU Radio
 * blocks' library and their Python bindings (built with GNU Radio's
 * -fvisibility=hidden) and the core module, which pybind11 lets share a
 * type by its type_info, and which call its members (the channel they make
 * from a block's Pi, Pd and Ps). The core library exports everything; this
 * keeps the class visible in those hidden-by-default users too, so that
 * their references to its type_info and members resolve to the core
 * library's one copy.
 */
#if defined(__GNUC__)
#define BSID_CORE_SHARED_TYPE __attribute__((visibility("default")))
#else
#define BSID_CORE_SHARED_TYPE
#endif

/*!
 * A core function that the GNU Radio blocks' Python bindings call (the
 * options reader, which reads the blocks' keywords): visible there for the
 * same reason.
 */
#define BSID_CORE_SHARED_FUNCTION BSID_CORE_SHARED_TYPE

#endif /* INCLUDED_BSID_CORE_VISIBILITY_H */
