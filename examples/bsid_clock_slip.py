#!/usr/bin/env python3
# -*- coding: utf-8 -*-

#
# SPDX-License-Identifier: GPL-3.0
#
# GNU Radio Python Flow Graph
# Title: gr-bsid: receiving with clock slips
# Author: gr-bsid authors
# Copyright: 2026 gr-bsid authors
# Description: Clock slips on a real waveform: BPSK through GNU Radio's channel model with a sample clock offset, a receiver on its own clock, soft bits into the MAP decoder in stream framing
# GNU Radio version: 3.10.5.1

from packaging.version import Version as StrictVersion

if __name__ == '__main__':
    import ctypes
    import sys
    if sys.platform.startswith('linux'):
        try:
            x11 = ctypes.cdll.LoadLibrary('libX11.so')
            x11.XInitThreads()
        except:
            print("Warning: failed to XInitThreads()")

from PyQt5 import Qt
from gnuradio import qtgui
from gnuradio.filter import firdes
import sip
from gnuradio import blocks
from gnuradio import bsid
from gnuradio import channels
from gnuradio import digital
from gnuradio import filter
from gnuradio import gr
from gnuradio.fft import window
import sys
import signal
from argparse import ArgumentParser
from gnuradio.eng_arg import eng_float, intx
from gnuradio import eng_notation
from gnuradio.qtgui import Range, RangeWidget
from PyQt5 import QtCore
import bsid_clock_slip_drift as drift  # embedded python block
import bsid_clock_slip_naive as naive  # embedded python block
import bsid_clock_slip_ser as ser  # embedded python block
import numpy as np


def snipfcn_logging(self):
    # --log-level: what GNU Radio and the core log from the blocks on (their
    # messages go where GNU Radio's configuration says: on Debian, stdout)
    from bsid_sim.log_setup import configure_logging
    configure_logging(self.log_level)

def snipfcn_summary(self):
    # the totals so far in the SER plot's title, and the drift axis that follows the track
    def refresh(self=self):
        ser, naive, track = self.ser.frame_sers, self.naive.frame_sers, self.drift.track
        if ser:
            self.ser_plot.set_title("SER so far: MAP decoder %.4f, without the inner decoder %.4f "
                                    "(%d frames, %d bits slipped)"
                                    % (float(np.mean(ser)), float(np.mean(naive or [0.0])),
                                       len(ser), int(track[-1]) if track else 0))
        top = max([abs(v) for v in self.drift.history] + [10.0])
        self.drift_plot.set_y_axis(-1.1 * top, 1.1 * top)
    self._summary_timer = Qt.QTimer(self)
    self._summary_timer.timeout.connect(refresh)
    self._summary_timer.start(250)

def snipfcn_finish(self):
    # with --frames N > 0: close the window, which stops the flowgraph and
    # ends the program, once the decoder has put out the N frames
    def finish_when_done(self=self):
        if self.frames > 0 and self.decoder.frames() >= self.frames:
            self.close()
    self._finish_timer = Qt.QTimer(self)
    self._finish_timer.timeout.connect(finish_when_done)
    self._finish_timer.start(200)

def snipfcn_window_size(self):
    # open at a readable size; the plots take the height the sliders do not need
    self.top_grid_layout.setRowStretch(0, 0)
    for plot in (self._ser_plot_win, self._drift_plot_win):
        plot.setMinimumHeight(250)
    self.resize(self.size().expandedTo(Qt.QSize(1000, 800)))

def snipfcn_plots_outlive_their_sinks(self):
    # GNU Radio 3.10's Qt GUI sinks close their plot widget when they are
    # destroyed (gnuradio/gnuradio#7050), but the window deletes that widget
    # with itself, and at exit Python may destroy the window before the
    # sinks: a use after free that crashes now and then. Once stopped, take
    # the plots out of the window and leave them to C++, so that they live
    # until the sinks close them.
    for plot in (self._ser_plot_win, self._drift_plot_win):
        plot.setParent(None)
        sip.transferto(plot, None)


def snippets_main_after_init(tb):
    snipfcn_finish(tb)
    snipfcn_summary(tb)
    snipfcn_window_size(tb)

def snippets_main_after_stop(tb):
    snipfcn_plots_outlive_their_sinks(tb)

def snippets_init_before_blocks(tb):
    snipfcn_logging(tb)

from gnuradio import qtgui

class bsid_clock_slip(gr.top_block, Qt.QWidget):

    def __init__(self, log_level='warning', frames=0, offset=(2e-3), noise=0.3, seed=1, symbol_rate=3000):
        gr.top_block.__init__(self, "gr-bsid: receiving with clock slips", catch_exceptions=True)
        Qt.QWidget.__init__(self)
        self.setWindowTitle("gr-bsid: receiving with clock slips")
        qtgui.util.check_set_qss()
        try:
            self.setWindowIcon(Qt.QIcon.fromTheme('gnuradio-grc'))
        except:
            pass
        self.top_scroll_layout = Qt.QVBoxLayout()
        self.setLayout(self.top_scroll_layout)
        self.top_scroll = Qt.QScrollArea()
        self.top_scroll.setFrameStyle(Qt.QFrame.NoFrame)
        self.top_scroll_layout.addWidget(self.top_scroll)
        self.top_scroll.setWidgetResizable(True)
        self.top_widget = Qt.QWidget()
        self.top_scroll.setWidget(self.top_widget)
        self.top_layout = Qt.QVBoxLayout(self.top_widget)
        self.top_grid_layout = Qt.QGridLayout()
        self.top_layout.addLayout(self.top_grid_layout)

        self.settings = Qt.QSettings("GNU Radio", "bsid_clock_slip")

        try:
            if StrictVersion(Qt.qVersion()) < StrictVersion("5.0.0"):
                self.restoreGeometry(self.settings.value("geometry").toByteArray())
            else:
                self.restoreGeometry(self.settings.value("geometry"))
        except:
            pass

        ##################################################
        # Parameters
        ##################################################
        self.log_level = log_level
        self.frames = frames
        self.offset = offset
        self.noise = noise
        self.seed = seed
        self.symbol_rate = symbol_rate

        ##################################################
        # Variables
        ##################################################
        self.sps = sps = 8
        self.noise_voltage = noise_voltage = noise
        self.codebook = codebook = 'builtin:ld3-modvec6'
        self.clock_offset = clock_offset = offset
        self.sync_word = sync_word = '0110100111010010'
        self.sigma2 = sigma2 = max(noise_voltage, 1e-3) ** 2 / (2 * sps)
        self.q = q = bsid.codebook.from_spec(codebook).q
        self.ps_floor = ps_floor = 0.02
        self.p_slip = p_slip = max(abs(clock_offset), 1e-4)
        self.frames_shown = frames_shown = 200
        self.N = N = 100

        ##################################################
        # Blocks
        ##################################################
        snippets_init_before_blocks(self)
        self._noise_voltage_range = Range(0, 1.5, 0.05, noise, 200)
        self._noise_voltage_win = RangeWidget(self._noise_voltage_range, self.set_noise_voltage, "noise voltage", "counter_slider", float, QtCore.Qt.Horizontal)
        self.top_grid_layout.addWidget(self._noise_voltage_win, 0, 1, 1, 1)
        for r in range(0, 1):
            self.top_grid_layout.setRowStretch(r, 1)
        for c in range(1, 2):
            self.top_grid_layout.setColumnStretch(c, 1)
        self._clock_offset_range = Range(-5e-3, 5e-3, 1e-4, offset, 200)
        self._clock_offset_win = RangeWidget(self._clock_offset_range, self.set_clock_offset, "clock offset (receiver against transmitter)", "counter_slider", float, QtCore.Qt.Horizontal)
        self.top_grid_layout.addWidget(self._clock_offset_win, 0, 0, 1, 1)
        for r in range(0, 1):
            self.top_grid_layout.setRowStretch(r, 1)
        for c in range(0, 1):
            self.top_grid_layout.setColumnStretch(c, 1)
        self.to_real = blocks.complex_to_real(1)
        self.to_complex = blocks.float_to_complex(1)
        self.throttle = blocks.throttle(gr.sizeof_int*1, symbol_rate,True)
        self.symbols = blocks.vector_source_i(np.random.default_rng(seed).integers(0, q, 200 * N).tolist(), True, 1, [])
        self.ser_window = blocks.vector_to_stream(gr.sizeof_float*1, frames_shown)
        self.ser_plot = qtgui.time_sink_f(
            frames_shown, #size
            symbol_rate / N, #samp_rate
            "symbol error rate per frame, last %g s (newest on the right)" % (frames_shown * N / symbol_rate), #name
            2, #number of inputs
            None # parent
        )
        self.ser_plot.set_update_time(0.10)
        self.ser_plot.set_y_axis(0, 1.05)

        self.ser_plot.set_y_label('SER', "")

        self.ser_plot.enable_tags(False)
        self.ser_plot.set_trigger_mode(qtgui.TRIG_MODE_FREE, qtgui.TRIG_SLOPE_POS, 0.0, 0, 0, "")
        self.ser_plot.enable_autoscale(False)
        self.ser_plot.enable_grid(True)
        self.ser_plot.enable_axis_labels(True)
        self.ser_plot.enable_control_panel(False)
        self.ser_plot.enable_stem_plot(False)


        labels = ['MAP decoder, soft input', 'without the inner decoder', 'Signal 3', 'Signal 4', 'Signal 5',
            'Signal 6', 'Signal 7', 'Signal 8', 'Signal 9', 'Signal 10']
        widths = [2, 2, 1, 1, 1,
            1, 1, 1, 1, 1]
        colors = ['blue', 'red', 'green', 'black', 'cyan',
            'magenta', 'yellow', 'dark red', 'dark green', 'dark blue']
        alphas = [1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 1.0]
        styles = [1, 1, 1, 1, 1,
            1, 1, 1, 1, 1]
        markers = [-1, -1, -1, -1, -1,
            -1, -1, -1, -1, -1]


        for i in range(2):
            if len(labels[i]) == 0:
                self.ser_plot.set_line_label(i, "Data {0}".format(i))
            else:
                self.ser_plot.set_line_label(i, labels[i])
            self.ser_plot.set_line_width(i, widths[i])
            self.ser_plot.set_line_color(i, colors[i])
            self.ser_plot.set_line_style(i, styles[i])
            self.ser_plot.set_line_marker(i, markers[i])
            self.ser_plot.set_line_alpha(i, alphas[i])

        self._ser_plot_win = sip.wrapinstance(self.ser_plot.qwidget(), Qt.QWidget)
        self.top_grid_layout.addWidget(self._ser_plot_win, 1, 0, 1, 2)
        for r in range(1, 2):
            self.top_grid_layout.setRowStretch(r, 1)
        for c in range(0, 2):
            self.top_grid_layout.setColumnStretch(c, 1)
        self.ser = ser.frame_ser(N=N, window=frames_shown)
        self.sampler = blocks.keep_one_in_n(gr.sizeof_float*1, sps)
        self.pulse = filter.interp_fir_filter_fff(sps, [1.0] * sps)
        self.pulse.declare_sample_delay(0)
        self.phase = blocks.delay(gr.sizeof_float*1, 3)
        self.naive_window = blocks.vector_to_stream(gr.sizeof_float*1, frames_shown)
        self.naive = naive.naive_ser(codebook=codebook, N=N, sync_word=sync_word, window=frames_shown)
        self.matched_filter = filter.fir_filter_fff(1, [1.0 / sps] * sps)
        self.matched_filter.declare_sample_delay(0)
        self.llr = blocks.multiply_const_ff(2.0 / sigma2, 1)
        self.head = blocks.head(gr.sizeof_int*1, (frames * N if frames > 0 else 2 ** 62))
        self.hard_bits = digital.binary_slicer_fb()
        self.encoder = bsid.codebook_encoder(bsid.codebook.from_spec(codebook), N, "packet_len", sync_word)
        self.drift_window = blocks.vector_to_stream(gr.sizeof_float*1, frames_shown)
        self.drift_plot = qtgui.time_sink_f(
            frames_shown, #size
            symbol_rate / N, #samp_rate
            "drift track: bits slipped, last %g s (newest on the right)" % (frames_shown * N / symbol_rate), #name
            1, #number of inputs
            None # parent
        )
        self.drift_plot.set_update_time(0.10)
        self.drift_plot.set_y_axis(-60, 60)

        self.drift_plot.set_y_label('received - sent bits', "")

        self.drift_plot.enable_tags(False)
        self.drift_plot.set_trigger_mode(qtgui.TRIG_MODE_FREE, qtgui.TRIG_SLOPE_POS, 0.0, 0, 0, "")
        self.drift_plot.enable_autoscale(False)
        self.drift_plot.enable_grid(True)
        self.drift_plot.enable_axis_labels(True)
        self.drift_plot.enable_control_panel(False)
        self.drift_plot.enable_stem_plot(False)

        self.drift_plot.disable_legend()

        labels = ['drift', 'Signal 2', 'Signal 3', 'Signal 4', 'Signal 5',
            'Signal 6', 'Signal 7', 'Signal 8', 'Signal 9', 'Signal 10']
        widths = [2, 1, 1, 1, 1,
            1, 1, 1, 1, 1]
        colors = ['blue', 'red', 'green', 'black', 'cyan',
            'magenta', 'yellow', 'dark red', 'dark green', 'dark blue']
        alphas = [1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 1.0]
        styles = [1, 1, 1, 1, 1,
            1, 1, 1, 1, 1]
        markers = [-1, -1, -1, -1, -1,
            -1, -1, -1, -1, -1]


        for i in range(1):
            if len(labels[i]) == 0:
                self.drift_plot.set_line_label(i, "Data {0}".format(i))
            else:
                self.drift_plot.set_line_label(i, labels[i])
            self.drift_plot.set_line_width(i, widths[i])
            self.drift_plot.set_line_color(i, colors[i])
            self.drift_plot.set_line_style(i, styles[i])
            self.drift_plot.set_line_marker(i, markers[i])
            self.drift_plot.set_line_alpha(i, alphas[i])

        self._drift_plot_win = sip.wrapinstance(self.drift_plot.qwidget(), Qt.QWidget)
        self.top_grid_layout.addWidget(self._drift_plot_win, 2, 0, 1, 2)
        for r in range(2, 3):
            self.top_grid_layout.setRowStretch(r, 1)
        for c in range(0, 2):
            self.top_grid_layout.setColumnStretch(c, 1)
        self.drift = drift.drift_track(N=N, window=frames_shown)
        self.decoder = bsid.map_decoder(bsid.codebook.from_spec(codebook), N, p_slip, p_slip, ps_floor, 'hard', 'auto', 'float', 'auto', (1e-10), 64, 1.0, 0.0, "packet_len", True, sync_word, 'stream', (-1), "bsid_start", 4, True, 0.0, True, False, 'llr', 0, False, 10.0, "")
        self.correlator = digital.correlate_access_code_tag_ff(sync_word, 1, "bsid_start")
        self.channel = channels.channel_model(
            noise_voltage=noise_voltage,
            frequency_offset=0.0,
            epsilon=(1.0 + clock_offset),
            taps=[1.0 + 0.0j],
            noise_seed=seed,
            block_tags=False)
        self.bpsk = digital.chunks_to_symbols_bf([-1.0, 1.0], 1)


        ##################################################
        # Connections
        ##################################################
        self.connect((self.bpsk, 0), (self.pulse, 0))
        self.connect((self.channel, 0), (self.to_real, 0))
        self.connect((self.correlator, 0), (self.decoder, 0))
        self.connect((self.decoder, 0), (self.drift, 0))
        self.connect((self.decoder, 0), (self.ser, 1))
        self.connect((self.drift, 0), (self.drift_window, 0))
        self.connect((self.drift_window, 0), (self.drift_plot, 0))
        self.connect((self.encoder, 0), (self.bpsk, 0))
        self.connect((self.encoder, 0), (self.naive, 0))
        self.connect((self.hard_bits, 0), (self.naive, 1))
        self.connect((self.head, 0), (self.throttle, 0))
        self.connect((self.llr, 0), (self.correlator, 0))
        self.connect((self.llr, 0), (self.hard_bits, 0))
        self.connect((self.matched_filter, 0), (self.phase, 0))
        self.connect((self.naive, 0), (self.naive_window, 0))
        self.connect((self.naive_window, 0), (self.ser_plot, 1))
        self.connect((self.phase, 0), (self.sampler, 0))
        self.connect((self.pulse, 0), (self.to_complex, 0))
        self.connect((self.sampler, 0), (self.llr, 0))
        self.connect((self.ser, 0), (self.ser_window, 0))
        self.connect((self.ser_window, 0), (self.ser_plot, 0))
        self.connect((self.symbols, 0), (self.head, 0))
        self.connect((self.throttle, 0), (self.encoder, 0))
        self.connect((self.throttle, 0), (self.ser, 0))
        self.connect((self.to_complex, 0), (self.channel, 0))
        self.connect((self.to_real, 0), (self.matched_filter, 0))


    def closeEvent(self, event):
        self.settings = Qt.QSettings("GNU Radio", "bsid_clock_slip")
        self.settings.setValue("geometry", self.saveGeometry())
        self.stop()
        self.wait()
        snippets_main_after_stop(self)
        event.accept()

    def get_log_level(self):
        return self.log_level

    def set_log_level(self, log_level):
        self.log_level = log_level

    def get_frames(self):
        return self.frames

    def set_frames(self, frames):
        self.frames = frames
        self.head.set_length((self.frames * self.N if self.frames > 0 else 2 ** 62))

    def get_offset(self):
        return self.offset

    def set_offset(self, offset):
        self.offset = offset
        self.set_clock_offset(self.offset)

    def get_noise(self):
        return self.noise

    def set_noise(self, noise):
        self.noise = noise
        self.set_noise_voltage(self.noise)

    def get_seed(self):
        return self.seed

    def set_seed(self, seed):
        self.seed = seed
        self.symbols.set_data(np.random.default_rng(self.seed).integers(0, self.q, 200 * self.N).tolist(), [])

    def get_symbol_rate(self):
        return self.symbol_rate

    def set_symbol_rate(self, symbol_rate):
        self.symbol_rate = symbol_rate
        self.throttle.set_sample_rate(self.symbol_rate)
        self.ser_plot.set_samp_rate(self.symbol_rate / self.N)
        self.drift_plot.set_samp_rate(self.symbol_rate / self.N)

    def get_sps(self):
        return self.sps

    def set_sps(self, sps):
        self.sps = sps
        self.set_sigma2(max(self.noise_voltage, 1e-3) ** 2 / (2 * self.sps))
        self.pulse.set_taps([1.0] * self.sps)
        self.matched_filter.set_taps([1.0 / self.sps] * self.sps)
        self.sampler.set_n(self.sps)

    def get_noise_voltage(self):
        return self.noise_voltage

    def set_noise_voltage(self, noise_voltage):
        self.noise_voltage = noise_voltage
        self.set_sigma2(max(self.noise_voltage, 1e-3) ** 2 / (2 * self.sps))
        self.channel.set_noise_voltage(self.noise_voltage)

    def get_codebook(self):
        return self.codebook

    def set_codebook(self, codebook):
        self.codebook = codebook
        self.set_q(bsid.codebook.from_spec(self.codebook).q)

    def get_clock_offset(self):
        return self.clock_offset

    def set_clock_offset(self, clock_offset):
        self.clock_offset = clock_offset
        self.set_p_slip(max(abs(self.clock_offset), 1e-4))
        self.channel.set_timing_offset((1.0 + self.clock_offset))

    def get_sync_word(self):
        return self.sync_word

    def set_sync_word(self, sync_word):
        self.sync_word = sync_word
        self.correlator.set_access_code(self.sync_word)

    def get_sigma2(self):
        return self.sigma2

    def set_sigma2(self, sigma2):
        self.sigma2 = sigma2
        self.llr.set_k(2.0 / self.sigma2)

    def get_q(self):
        return self.q

    def set_q(self, q):
        self.q = q
        self.symbols.set_data(np.random.default_rng(self.seed).integers(0, self.q, 200 * self.N).tolist(), [])

    def get_ps_floor(self):
        return self.ps_floor

    def set_ps_floor(self, ps_floor):
        self.ps_floor = ps_floor
        self.decoder.set_channel(self.p_slip, self.p_slip, self.ps_floor)

    def get_p_slip(self):
        return self.p_slip

    def set_p_slip(self, p_slip):
        self.p_slip = p_slip
        self.decoder.set_channel(self.p_slip, self.p_slip, self.ps_floor)

    def get_frames_shown(self):
        return self.frames_shown

    def set_frames_shown(self, frames_shown):
        self.frames_shown = frames_shown

    def get_N(self):
        return self.N

    def set_N(self, N):
        self.N = N
        self.symbols.set_data(np.random.default_rng(self.seed).integers(0, self.q, 200 * self.N).tolist(), [])
        self.head.set_length((self.frames * self.N if self.frames > 0 else 2 ** 62))
        self.ser.N = self.N
        self.naive.N = self.N
        self.drift.N = self.N
        self.ser_plot.set_samp_rate(self.symbol_rate / self.N)
        self.drift_plot.set_samp_rate(self.symbol_rate / self.N)



def argument_parser():
    description = "Clock slips on a real waveform: BPSK through GNU Radio's channel model with a sample clock offset, a receiver on its own clock, soft bits into the MAP decoder in stream framing"
    parser = ArgumentParser(description=description)
    parser.add_argument(
        "--log-level", dest="log_level", type=str, default='warning',
        help="Set what is logged: debug, info, warning, error or off [default=%(default)r]")
    parser.add_argument(
        "--frames", dest="frames", type=intx, default=0,
        help="Set frames to send (0: endless) [default=%(default)r]")
    parser.add_argument(
        "--offset", dest="offset", type=eng_float, default=eng_notation.num_to_str(float((2e-3))),
        help="Set initial clock offset (receiver against transmitter) [default=%(default)r]")
    parser.add_argument(
        "--noise", dest="noise", type=eng_float, default=eng_notation.num_to_str(float(0.3)),
        help="Set initial noise voltage [default=%(default)r]")
    parser.add_argument(
        "--seed", dest="seed", type=intx, default=1,
        help="Set seed of the symbols and the noise [default=%(default)r]")
    parser.add_argument(
        "--symbol-rate", dest="symbol_rate", type=eng_float, default=eng_notation.num_to_str(float(3000)),
        help="Set message symbols per second [default=%(default)r]")
    return parser


def main(top_block_cls=bsid_clock_slip, options=None):
    if options is None:
        options = argument_parser().parse_args()

    if StrictVersion("4.5.0") <= StrictVersion(Qt.qVersion()) < StrictVersion("5.0.0"):
        style = gr.prefs().get_string('qtgui', 'style', 'raster')
        Qt.QApplication.setGraphicsSystem(style)
    qapp = Qt.QApplication(sys.argv)

    tb = top_block_cls(log_level=options.log_level, frames=options.frames, offset=options.offset, noise=options.noise, seed=options.seed, symbol_rate=options.symbol_rate)
    snippets_main_after_init(tb)
    tb.start()

    tb.show()

    def sig_handler(sig=None, frame=None):
        tb.stop()
        tb.wait()
        snippets_main_after_stop(tb)
        Qt.QApplication.quit()

    signal.signal(signal.SIGINT, sig_handler)
    signal.signal(signal.SIGTERM, sig_handler)

    timer = Qt.QTimer()
    timer.start(500)
    timer.timeout.connect(lambda: None)

    qapp.exec_()

if __name__ == '__main__':
    main()
