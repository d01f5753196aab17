#!/usr/bin/env python3
# -*- coding: utf-8 -*-

#
# SPDX-License-Identifier: GPL-3.0
#
# GNU Radio Python Flow Graph
# Title: gr-bsid loopback
# Author: gr-bsid authors
# Copyright: 2026 gr-bsid authors
# Description: Random symbols -> codebook encoder -> BSID channel -> MAP decoder (hard) -> SER
# GNU Radio version: 3.10.5.1

from gnuradio import analog
from gnuradio import blocks
from gnuradio import bsid
from gnuradio import gr
from gnuradio.filter import firdes
from gnuradio.fft import window
import sys
import signal
from argparse import ArgumentParser
from gnuradio.eng_arg import eng_float, intx
from gnuradio import eng_notation
import bsid_loopback_ser as ser  # embedded python block
import numpy


def snipfcn_logging(self):
    # --log-level: what GNU Radio and the core log from the blocks on (their
    # messages go where GNU Radio's configuration says: on Debian, stdout)
    from bsid_sim.log_setup import configure_logging
    configure_logging(self.log_level)


def snippets_init_before_blocks(tb):
    snipfcn_logging(tb)


class bsid_loopback(gr.top_block):

    def __init__(self, log_level='warning', frames=200, Pi='0.01', Pd='0.01', Ps='0.0', seed=1):
        gr.top_block.__init__(self, "gr-bsid loopback", catch_exceptions=True)

        ##################################################
        # Parameters
        ##################################################
        self.log_level = log_level
        self.frames = frames
        self.Pi = Pi
        self.Pd = Pd
        self.Ps = Ps
        self.seed = seed

        ##################################################
        # Variables
        ##################################################
        self.q = q = 16
        self.codebook = codebook = 'builtin:ld3-modvec6'
        self.N = N = 500

        ##################################################
        # Blocks
        ##################################################
        snippets_init_before_blocks(self)
        self.ser = ser.ser_counter(N=N, bits_per_symbol=numpy.log2(q))
        self.bsid_map_decoder_0 = bsid.map_decoder(bsid.codebook.from_spec(codebook), N, float(Pi), float(Pd), float(Ps), 'hard', 'auto', 'float', 'auto', (1e-10), 64, 1.0, 0.0, "packet_len", True, "", 'tagged', (-1), "bsid_start", 4, True, 0.0, True, True, 'bits', 0, False, 10.0, "")
        self.bsid_codebook_encoder_0 = bsid.codebook_encoder(bsid.codebook.from_spec(codebook), N, "packet_len", "")
        self.bsid_channel_0 = bsid.channel(float(Pi), float(Pd), float(Ps), seed, "packet_len", False)
        self.blocks_head_0 = blocks.head(gr.sizeof_int*1, (frames * N))
        self.analog_random_uniform_source_x_0 = analog.random_uniform_source_i(0, q, seed)


        ##################################################
        # Connections
        ##################################################
        self.connect((self.analog_random_uniform_source_x_0, 0), (self.blocks_head_0, 0))
        self.connect((self.blocks_head_0, 0), (self.bsid_codebook_encoder_0, 0))
        self.connect((self.blocks_head_0, 0), (self.ser, 0))
        self.connect((self.bsid_channel_0, 0), (self.bsid_map_decoder_0, 0))
        self.connect((self.bsid_codebook_encoder_0, 0), (self.bsid_channel_0, 0))
        self.connect((self.bsid_map_decoder_0, 0), (self.ser, 1))


    def get_log_level(self):
        return self.log_level

    def set_log_level(self, log_level):
        self.log_level = log_level

    def get_frames(self):
        return self.frames

    def set_frames(self, frames):
        self.frames = frames
        self.blocks_head_0.set_length((self.frames * self.N))

    def get_Pi(self):
        return self.Pi

    def set_Pi(self, Pi):
        self.Pi = Pi
        self.bsid_channel_0.set_Pi(float(self.Pi))
        self.bsid_map_decoder_0.set_channel(float(self.Pi), float(self.Pd), float(self.Ps))

    def get_Pd(self):
        return self.Pd

    def set_Pd(self, Pd):
        self.Pd = Pd
        self.bsid_channel_0.set_Pd(float(self.Pd))
        self.bsid_map_decoder_0.set_channel(float(self.Pi), float(self.Pd), float(self.Ps))

    def get_Ps(self):
        return self.Ps

    def set_Ps(self, Ps):
        self.Ps = Ps
        self.bsid_channel_0.set_Ps(float(self.Ps))
        self.bsid_map_decoder_0.set_channel(float(self.Pi), float(self.Pd), float(self.Ps))

    def get_seed(self):
        return self.seed

    def set_seed(self, seed):
        self.seed = seed

    def get_q(self):
        return self.q

    def set_q(self, q):
        self.q = q
        self.ser.bits_per_symbol = numpy.log2(self.q)

    def get_codebook(self):
        return self.codebook

    def set_codebook(self, codebook):
        self.codebook = codebook

    def get_N(self):
        return self.N

    def set_N(self, N):
        self.N = N
        self.blocks_head_0.set_length((self.frames * self.N))
        self.ser.N = self.N



def argument_parser():
    description = 'Random symbols -> codebook encoder -> BSID channel -> MAP decoder (hard) -> SER'
    parser = ArgumentParser(description=description)
    parser.add_argument(
        "--log-level", dest="log_level", type=str, default='warning',
        help="Set what is logged: debug, info, warning, error or off [default=%(default)r]")
    parser.add_argument(
        "--frames", dest="frames", type=intx, default=200,
        help="Set Frames to send [default=%(default)r]")
    parser.add_argument(
        "--Pi", dest="Pi", type=str, default='0.01',
        help="Set Insertion probability [default=%(default)r]")
    parser.add_argument(
        "--Pd", dest="Pd", type=str, default='0.01',
        help="Set Deletion probability [default=%(default)r]")
    parser.add_argument(
        "--Ps", dest="Ps", type=str, default='0.0',
        help="Set Substitution probability [default=%(default)r]")
    parser.add_argument(
        "--seed", dest="seed", type=intx, default=1,
        help="Set Seed of the symbols and the channel [default=%(default)r]")
    return parser


def main(top_block_cls=bsid_loopback, options=None):
    if options is None:
        options = argument_parser().parse_args()
    tb = top_block_cls(log_level=options.log_level, frames=options.frames, Pi=options.Pi, Pd=options.Pd, Ps=options.Ps, seed=options.seed)

    def sig_handler(sig=None, frame=None):
        tb.stop()
        tb.wait()

        sys.exit(0)

    signal.signal(signal.SIGINT, sig_handler)
    signal.signal(signal.SIGTERM, sig_handler)

    tb.start()

    tb.wait()


if __name__ == '__main__':
    main()
