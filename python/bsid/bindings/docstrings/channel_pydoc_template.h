/*
 * Copyright 2026 Free Software Foundation, Inc.
 *
 * This file is part of GNU Radio
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, bsid, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_bsid_channel = R"doc()doc";


static const char* __doc_gr_bsid_channel_channel_0 = R"doc()doc";


static const char* __doc_gr_bsid_channel_channel_1 = R"doc()doc";


static const char* __doc_gr_bsid_channel_make = R"doc()doc";


static const char* __doc_gr_bsid_channel_set_Pi = R"doc()doc";


static const char* __doc_gr_bsid_channel_set_Pd = R"doc()doc";


static const char* __doc_gr_bsid_channel_set_Ps = R"doc()doc";


static const char* __doc_gr_bsid_channel_set_channel = R"doc()doc";


static const char* __doc_gr_bsid_channel_Pi = R"doc()doc";


static const char* __doc_gr_bsid_channel_Pd = R"doc()doc";


static const char* __doc_gr_bsid_channel_Ps = R"doc()doc";


static const char* __doc_gr_bsid_channel_frames = R"doc()doc";


static const char* __doc_gr_bsid_channel_frames_lost = R"doc()doc";


static const char* __doc_gr_bsid_channel_error = R"doc()doc";
