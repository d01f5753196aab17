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
 * the core module (pybind11 finds it by its type_info): polymorphic, so its
 * type_info lives with its key function inside the blocks library, which is
 * built with -fvisibility=hidden. This keeps the class visible there.
 */
#if defined(__GNUC__)
#define BSID_CORE_SHARED_TYPE __attribute__((visibility("default")))
#else
#define BSID_CORE_SHARED_TYPE
#endif

#endif /* INCLUDED_BSID_CORE_VISIBILITY_H */
