#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The MAP synchronization decoder as a message (PDU) block.

map_decoder_pdu decodes one received frame per PDU with the core decoder
(bsid_core.map_decoder_core) and publishes the soft or hard outputs as a PDU,
following the data conventions of docs/design.md section 2.
posteriors_to_llr turns symbol posteriors into bit LLRs the same way.
"""

import threading

import numpy as np
import pmt
from gnuradio import gr

# The core module itself, not gnuradio.bsid: gnuradio.bsid imports this file.
import bsid_core
from bsid_sim.engine import bits_per_symbol as _bits_per_symbol

__all__ = ['map_decoder_pdu', 'posteriors_to_llr']

#: Outputs the block offers, by the name its `output` argument takes.
OUTPUTS = ('posteriors', 'llr', 'hard')

#: Floor of each bit probability before its logarithm, so no LLR is infinite.
LLR_FLOOR = 1e-300

_PORT = pmt.intern('pdus')
_ERASURE_KEY = pmt.intern('bsid_erasure')


def bits_per_symbol(q):
    """ceil(log2 q): the bits that carry a symbol index in [0, q)."""
    q = int(q)
    if q < 2:
        raise ValueError('bits_per_symbol: q must be at least 2, got %d' % q)
    return _bits_per_symbol(q)


def posteriors_to_llr(post, q, scale=1.0, clip=0.0):
    """Bit LLRs from symbol posteriors (docs/design.md section 2).

    post: the posteriors of N symbols, an (N, q) array or a flat array of
    N*q values, symbol-major. Each symbol index maps to m = ceil(log2 q)
    bits, most significant bit first. For bit b of each symbol,

        LLR = ln P(b=1) - ln P(b=0)

    where P(b=v) sums the posteriors of the symbols whose bit b equals v,
    and each of the two probabilities is floored at 1e-300 so that no LLR is
    infinite. A positive LLR means 1 (GNU Radio's sign, as in gr-fec and
    gr-digital). The LLRs are then multiplied by `scale` and, when
    clip > 0, clipped to [-clip, clip].

    Returns a flat float32 array of N*m LLRs: the m bits of symbol 0, then
    those of symbol 1, and so on.
    """
    m = bits_per_symbol(q)
    q = int(q)
    p = np.asarray(post, dtype=np.float64)
    if p.size % q != 0:
        raise ValueError('posteriors_to_llr: %d values are not a whole number of '
                         'symbols of q = %d' % (p.size, q))
    p = p.reshape(-1, q)
    # bits[D, j]: bit j (MSB first) of symbol index D
    shifts = np.arange(m - 1, -1, -1)
    bits = (np.arange(q)[:, None] >> shifts[None, :]) & 1
    p1 = p @ bits.astype(np.float64)
    p0 = p @ (1 - bits).astype(np.float64)
    llr = np.log(np.maximum(p1, LLR_FLOOR)) - np.log(np.maximum(p0, LLR_FLOOR))
    llr *= float(scale)
    if clip > 0:
        np.clip(llr, -float(clip), float(clip), out=llr)
    return llr.astype(np.float32).ravel()


class map_decoder_pdu(gr.basic_block):
    """MAP synchronization decoder, message (PDU) variant.

    The message counterpart of bsid.map_decoder: one received frame per PDU
    in, the decoder's output for that frame as a PDU out.

        map_decoder_pdu(codebook, N, Pi, Pd, Ps, output="posteriors",
                        backend="auto", precision="float", storage="auto",
                        Pr=1e-10, llr_scale=1.0, llr_clip=0.0, input="bits")

    Arguments:
        codebook: the inner code, a bsid.codebook (e.g.
            bsid.codebook.from_spec("builtin:ld3-modvec6")); n bits per
            codeword, q symbols.
        N: message symbols per frame; a frame is sent as tau = n*N bits.
        Pi, Pd, Ps: insertion, deletion and substitution probabilities of
            the channel the decoder assumes.
        output: "posteriors", "llr" or "hard" (see below).
        backend: "cpu", "cuda" or "auto" (CUDA when a GPU is usable).
        precision: "float" or "double", the arithmetic of the decoder.
        storage: "global", "local" or "auto", where the CUDA backend keeps
            its lattice.
        Pr: drift exclusion probability from which the drift limits are
            computed.
        llr_scale: multiplier of the LLRs ("llr" output).
        llr_clip: magnitude limit of the LLRs after scaling, 0 for none
            ("llr" output).
        input: "bits" (u8vector PDUs of bits or letters), "logprob" (f32vector
            or f64vector PDUs of A log-probabilities per item, item after
            item; over bits two an item, taken as their LLR) or "llr"
            (f32vector or f64vector PDUs
            of soft decisions; docs/receiving.md, "Soft input").

    Message ports: input "pdus" and output "pdus", as in gr-pdu. A PDU is
    pmt.cons(metadata, vector) with a dictionary as metadata.

    Input: a PDU whose vector is a u8vector of received bits, one bit per
    byte with value 0 or 1; its length is the received length rho, which
    may differ from tau. With input="llr", the vector is an f32vector or
    f64vector of LLRs ln p(r|1) - ln p(r|0), one per received item (positive
    means 1; +-inf are hard bits; a NaN makes the frame an invalid_input
    erasure).

    Output: for each input frame, one PDU with the same metadata and, by
    `output`:
      - "posteriors": an f32vector of N*q values, symbol-major: the
        posteriors of symbol 0 (summing to 1), then those of symbol 1, ...;
      - "llr": an f32vector of N*ceil(log2 q) bit LLRs,
        LLR = ln P(b=1) - ln P(b=0), where P(b=v) sums the posteriors of the
        symbols whose bit b equals v (symbol bits MSB first), each
        probability floored at 1e-300; positive means 1 (GNU Radio's sign).
        The LLRs are then multiplied by llr_scale and clipped to +-llr_clip
        when llr_clip > 0 (see posteriors_to_llr);
      - "hard": an s32vector of N symbols, the most likely of each position
        (bsid.hard_decisions: ties go to the lowest index).

    Erasures: a frame the decoder refuses (empty, a byte other than 0 or 1,
    an end drift rho - tau outside the drift limits, or a frame of
    probability 0 under the model) is not dropped. Its output PDU has
    uniform posteriors (1/q), zero LLRs or hard symbols -1, and its metadata
    gets the key "bsid_erasure" whose value is the reason, a PMT symbol:
    "empty", "invalid_input", "drift_out_of_range" or "impossible".

    Invalid PDUs: a message that is not a pair, whose metadata is not a
    dictionary, or whose vector is not a u8vector (input="bits") or an
    f32vector or f64vector (input="llr") produces no output; the
    block logs a warning for it and counts it (invalid_pdus()).

    Counters: frames() counts the output PDUs, erasures included;
    erasures() counts the erasures; invalid_pdus() the messages refused.

    set_channel(Pi, Pd, Ps) rebuilds the decoder for a new channel (the drift
    limits follow it). It is safe to call while the flowgraph runs and
    applies to the frames decoded afterwards. The backend and the drift
    limits are logged when the flowgraph starts, and again after each
    set_channel.
    """

    def __init__(self, codebook, N, Pi, Pd, Ps, output='posteriors',
                 backend='auto', precision='float', storage='auto', Pr=1e-10,
                 llr_scale=1.0, llr_clip=0.0, input='bits'):
        gr.basic_block.__init__(self, name='map_decoder_pdu', in_sig=None, out_sig=None)

        if output not in OUTPUTS:
            raise ValueError('map_decoder_pdu: output must be one of %s, got %r'
                             % (', '.join(OUTPUTS), output))
        if not np.isfinite(llr_scale):
            raise ValueError('map_decoder_pdu: llr_scale must be finite, got %r' % (llr_scale,))
        if not (llr_clip >= 0 and np.isfinite(llr_clip)):
            raise ValueError('map_decoder_pdu: llr_clip must be finite and >= 0 (0: no clip), '
                             'got %r' % (llr_clip,))

        if input not in ('bits', 'llr', 'logprob'):
            raise ValueError('map_decoder_pdu: input must be "bits", "llr" or "logprob", got %r'
                             % (input,))
        self._output = output
        self._input = input
        self._llr_scale = float(llr_scale)
        self._llr_clip = float(llr_clip)
        self._config = dict(N=int(N), backend=backend, precision=precision,
                            storage=storage, Pr=float(Pr), input=input)
        self._codebook = codebook

        self._lock = threading.Lock()
        # over the codebook's alphabet (bits, or letters: docs/dna.md)
        self._dec = self._make_decoder(
            bsid_core.channel_params(Pi, Pd, Ps, alphabet=codebook.alphabet))
        self._N = self._dec.N
        self._q = self._dec.q
        self._m = bits_per_symbol(self._q)

        self._frames = 0
        self._erasures = 0
        self._invalid = 0

        self.message_port_register_in(_PORT)
        self.message_port_register_out(_PORT)
        self.set_msg_handler(_PORT, self.handle_pdu)

    # ------------------------------------------------------------ configuration
    def _make_decoder(self, ch):
        c = self._config
        return bsid_core.map_decoder_core(self._codebook, ch, c['N'], backend=c['backend'],
                                          precision=c['precision'], storage=c['storage'],
                                          Pr=c['Pr'], input=c['input'])

    def _log(self, level, text):
        logger = getattr(self.gateway, 'logger', None)
        if logger is not None:
            getattr(logger, level)(text)
        else:
            getattr(gr.log, level)('map_decoder_pdu: ' + text)

    def _describe(self, dec):
        lim = dec.limits
        return ('backend %s (precision %s, storage %s), channel %r, drift limits '
                'm_tau = [%d, %d], m_n = [%d, %d]'
                % (dec.backend, dec.precision, dec.storage, dec.channel,
                   lim['mtau'][0], lim['mtau'][1], lim['mn'][0], lim['mn'][1]))

    def start(self):
        with self._lock:
            dec = self._dec
        self._log('info', self._describe(dec))
        return True

    def set_channel(self, Pi, Pd, Ps):
        """Decodes the following frames for the channel (Pi, Pd, Ps)."""
        # raises before anything changes
        ch = bsid_core.channel_params(Pi, Pd, Ps, alphabet=self._codebook.alphabet)
        with self._lock:
            self._dec = self._make_decoder(ch)
            dec = self._dec
        self._log('info', 'set_channel: ' + self._describe(dec))

    # ------------------------------------------------------------ accessors
    def frames(self):
        """Output PDUs published, erasures included."""
        return self._frames

    def erasures(self):
        """Output PDUs that are erasures."""
        return self._erasures

    def invalid_pdus(self):
        """Input messages refused as not being PDUs of u8 bits (or of LLRs) (no output)."""
        return self._invalid

    def backend(self):
        """The backend in use ("cpu" or "cuda")."""
        with self._lock:
            return self._dec.backend

    def limits(self):
        """The drift limits in use: {'mtau': (lo, hi), 'mn': (lo, hi)}."""
        with self._lock:
            return self._dec.limits

    def output(self):
        """The output mode: "posteriors", "llr" or "hard"."""
        return self._output

    # ------------------------------------------------------------ messages
    def _refuse(self, why):
        self._invalid += 1
        self._log('warn', 'invalid PDU dropped (%s); %d so far' % (why, self._invalid))

    def _erased_vector(self):
        if self._output == 'posteriors':
            return pmt.to_pmt(np.full(self._N * self._q, 1.0 / self._q, dtype=np.float32))
        if self._output == 'llr':
            return pmt.to_pmt(np.zeros(self._N * self._m, dtype=np.float32))
        return pmt.to_pmt(np.full(self._N, -1, dtype=np.int32))

    def _output_vector(self, post):
        if self._output == 'posteriors':
            return pmt.to_pmt(np.ascontiguousarray(post, dtype=np.float32).ravel())
        if self._output == 'llr':
            return pmt.to_pmt(posteriors_to_llr(post, self._q, self._llr_scale, self._llr_clip))
        return pmt.to_pmt(np.ascontiguousarray(bsid_core.hard_decisions(post), dtype=np.int32))

    def handle_pdu(self, msg):
        """Decodes the frame of one PDU and publishes the result."""
        if not pmt.is_pair(msg):
            self._refuse('not a pair (metadata . vector)')
            return
        meta = pmt.car(msg)
        vec = pmt.cdr(msg)
        if not pmt.is_dict(meta):
            self._refuse('the metadata is not a dictionary')
            return
        if self._input in ('llr', 'logprob'):
            if not (pmt.is_f32vector(vec) or pmt.is_f64vector(vec)):
                self._refuse('the vector is not an f32vector or f64vector of %s'
                             % ('LLRs' if self._input == 'llr' else 'log-probabilities'))
                return
            rx = np.asarray(pmt.to_python(vec), dtype=np.float64)
            if self._input == 'logprob':
                A = self._codebook.alphabet
                if rx.size % A:
                    # not whole items: the frame is an erasure, not dropped
                    self._publish_erasure(meta, 'invalid_input', rx.size,
                                          '%d log-probabilities are not a whole number '
                                          'of items of %d' % (rx.size, A))
                    return
                rx = rx.reshape(-1, A)
        else:
            if not pmt.is_u8vector(vec):
                self._refuse('the vector is not a u8vector of bits')
                return
            rx = np.asarray(pmt.to_python(vec), dtype=np.uint8)
        with self._lock:
            dec = self._dec
        try:
            out = self._output_vector(dec.decode(rx))
        except bsid_core.FrameRefused as e:
            self._publish_erasure(meta, getattr(e, 'status', 'invalid_input'), len(rx), e)
            return
        self._frames += 1
        self.message_port_pub(_PORT, pmt.cons(meta, out))

    def _publish_erasure(self, meta, status, rho, why):
        meta = pmt.dict_add(meta, _ERASURE_KEY, pmt.intern(status))
        self._erasures += 1
        self._log('debug', 'frame %d (rho = %d) erased: %s' % (self._frames, rho, why))
        self._frames += 1
        self.message_port_pub(_PORT, pmt.cons(meta, self._erased_vector()))
