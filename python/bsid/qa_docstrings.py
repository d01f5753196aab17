#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The blocks' Python docstrings: every block class, its constructor (make) and
each of its public methods documented, the parameters and tags named."""

import re

from gnuradio import gr_unittest

from gnuradio import bsid

# block -> (words its class docstring names, its public methods)
BLOCKS = {
    "channel": (
        ["insertion", "deletion", "substitution", "len_tag_key", "bsid_drift",
         "bsid_frames_lost", "seed"],
        ["set_Pi", "set_Pd", "set_Ps", "set_channel", "Pi", "Pd", "Ps", "frames",
         "frames_lost", "error"],
    ),
    "codebook_encoder": (
        ["codebook", "codeword", "len_tag_key", "tau"],
        ["frames", "error"],
    ),
    "map_decoder": (
        ["posteriors", "llr", "hard", "len_tag_key", "bsid_erasure", "bsid_frames_lost",
         "max_batch", "bits_discarded", "framing", "bsid_drift", "sync_lost"],
        ["set_channel", "frames", "erasures", "bits_discarded", "backend"],
    ),
    "ldpc_encoder": (
        ["information bits", "len_tag_key", "information positions", "symbol_mapping",
         "MSB first", "padded", "codebook_encoder", "error()"],
        ["bits_per_frame", "symbols_per_frame", "frames", "error"],
    ),
    "concatenated_decoder": (
        ["iterations", "bp_iterations", "belief propagation", "len_tag_key",
         "bsid_frame_ok", "bsid_iterations", "bsid_erasure", "bsid_frames_lost",
         "bsid_truncated", "bsid_channel", "Frames in equal frames out", "max_batch",
         "bits_discarded", "framing", "bsid_drift", "sync_lost", "sync_word"],
        ["set_channel", "frames", "erasures", "frames_ok", "bits_discarded",
         "bits_per_frame", "symbols_per_frame", "backend"],
    ),
}


def split_doc(func):
    """(parameter names, docstring body) of a pybind11 function, whose __doc__
    is its signature line followed by the docstring proper."""
    doc = func.__doc__ or ""
    signature, _, body = doc.partition("\n")
    args = signature[signature.index("(") + 1:signature.rindex(")")]
    names = [n for n in re.findall(r"(\w+): ", args) if n != "self"]
    return names, body.strip()


def documented(body, name):
    """Whether the docstring body has an 'Args:' line for this parameter."""
    return re.search(r"^\s*{}\s*:".format(re.escape(name)), body, re.M) is not None


class qa_docstrings(gr_unittest.TestCase):

    def test_001_classes(self):
        for block, (words, _) in BLOCKS.items():
            doc = " ".join((getattr(bsid, block).__doc__ or "").split())  # lines rejoined
            self.assertGreater(len(doc), 200, block)
            for w in words:
                self.assertIn(w, doc, "bsid.{} docstring lacks {!r}".format(block, w))

    def test_002_make_names_every_parameter(self):
        # make is bound as the constructor: bsid.<block>(...) and help(...__init__)
        for block in BLOCKS:
            names, body = split_doc(getattr(bsid, block).__init__)
            self.assertTrue(names, block)
            self.assertTrue(body, "bsid.{} make has no docstring".format(block))
            for n in names:
                self.assertTrue(documented(body, n),
                                "bsid.{} make docstring lacks parameter {!r}".format(block, n))
        _, body = split_doc(bsid.map_decoder.__init__)
        for w in ("posteriors", "llr", "hard", "bsid_erasure"):
            self.assertIn(w, body)

    def test_003_public_methods(self):
        for block, (_, methods) in BLOCKS.items():
            cls = getattr(bsid, block)
            own = sorted(k for k, v in vars(cls).items()
                         if not k.startswith("_") and callable(v))
            # every method of the class itself, including any added later
            self.assertLessEqual(set(methods), set(own), block)
            for m in own:
                names, body = split_doc(getattr(cls, m))
                self.assertTrue(body, "bsid.{}.{} has no docstring".format(block, m))
                for n in names:
                    self.assertTrue(documented(body, n),
                                    "bsid.{}.{} docstring lacks parameter {!r}".format(block, m, n))

    def test_004_key_words(self):
        self.assertIn("next frame", split_doc(bsid.channel.set_channel)[1])
        self.assertIn("while the flowgraph runs", split_doc(bsid.map_decoder.set_channel)[1])
        self.assertIn("cuda", split_doc(bsid.map_decoder.backend)[1])
        self.assertIn("bad input", split_doc(bsid.channel.error)[1])
        self.assertIn("bad input", split_doc(bsid.codebook_encoder.error)[1])
        # the concatenated decoder's promises: every frame tagged with its
        # outcome, and never a frame dropped
        _, body = split_doc(bsid.concatenated_decoder.__init__)
        body = " ".join(body.split())
        for w in ("bsid_frame_ok", "bsid_iterations", "bsid_erasure",
                  "Frames in equal frames out", "ValueError"):
            self.assertIn(w, body)
        doc = " ".join(bsid.concatenated_decoder.__doc__.split())
        self.assertIn("PMT bool: the decisions satisfy every check", doc)
        self.assertIn("PMT long: the passes run, 0 for an erasure", doc)
        self.assertIn("still gives its last decisions", doc)
        self.assertIn("K zero bits", doc)
        self.assertIn("bsid_frame_ok", split_doc(bsid.concatenated_decoder.frames_ok)[1])
        self.assertIn("bsid_erasure", split_doc(bsid.concatenated_decoder.erasures)[1])
        self.assertIn("erasures included", split_doc(bsid.concatenated_decoder.frames)[1])
        self.assertIn("while the flowgraph runs",
                      split_doc(bsid.concatenated_decoder.set_channel)[1])
        # the encoder's: bit order, padding, and a stop with a reason on bad input
        doc = " ".join(bsid.ldpc_encoder.__doc__.split())
        for w in ("most significant bit first", "information positions",
                  "padded with zero bits", "value must be K", "ends its stream"):
            self.assertIn(w, doc)
        self.assertIn("bad input", split_doc(bsid.ldpc_encoder.error)[1])
        self.assertIn("K = k log2 q_o", split_doc(bsid.ldpc_encoder.bits_per_frame)[1])


if __name__ == '__main__':
    gr_unittest.run(qa_docstrings)
