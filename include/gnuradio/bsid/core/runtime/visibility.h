/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_VISIBILITY_H
#define INCLUDED_BSID_CORE_VISIBILITY_H

/*!
 * A core class whose type the GNU Radio blocks' Python bindings share with
 * the core module (pybind11 finds it by its type_info; a polymorphic class's
 * type_info lives with its key function inside the blocks library, which is
 * built with -fvisibility=hidden), or whose members the bindings call (the
 * channel they make from a block's Pi, Pd and Ps). This keeps the class
 * visible there.
 */
#if defined(__GNUC__)
#define BSID_CORE_SHARED_TYPE __attribute__((visibility("default")))
#else
#define BSID_CORE_SHARED_TYPE
#endif

/*!
 * A core function that the GNU Radio blocks' Python bindings call (the
 * options reader, which reads the blocks' keywords): visible from the blocks
 * library for the same reason.
 */
#define BSID_CORE_SHARED_FUNCTION BSID_CORE_SHARED_TYPE

#endif /* INCLUDED_BSID_CORE_VISIBILITY_H */
