#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Helpers shared by the flowgraph QA: tagged vector sources and tag lookups."""

import pmt
from gnuradio import blocks, gr


def tags_of(sink, key):
    """(offset, value) of every tag with this key that reached the sink."""
    return [(t.offset, pmt.to_python(t.value)) for t in sink.tags()
            if pmt.symbol_to_string(t.key) == key]


def tagged_source(frames, extra=(), floats=False):
    """A byte vector source of the concatenated frames (floats: a float source,
    for LLRs), a packet_len tag on the first item of each, plus extra (offset,
    key, long value) tags."""
    data, tags, off = [], [], 0
    for f in frames:
        tags.append(gr.tag_utils.python_to_tag((off, pmt.intern("packet_len"),
                                                pmt.from_long(len(f)))))
        data.extend(float(b) if floats else int(b) for b in f)
        off += len(f)
    for offset, key, value in extra:
        tags.append(gr.tag_utils.python_to_tag((offset, pmt.intern(key), pmt.from_long(value))))
    if floats:
        return blocks.vector_source_f(data, False, 1, tags)
    return blocks.vector_source_b(data, False, 1, tags)
