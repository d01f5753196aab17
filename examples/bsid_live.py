#!/usr/bin/env python3
# -*- coding: utf-8 -*-

#
# SPDX-License-Identifier: GPL-3.0
#
# GNU Radio Python Flow Graph
# Title: gr-bsid live
# Author: gr-bsid authors
# Copyright: 2026 gr-bsid authors
# Description: Live BSID channel and MAP decoder: sliders for Pi, Pd, Ps; SER and drift per frame
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
from gnuradio import analog
from gnuradio import blocks
from gnuradio import bsid
from gnuradio import gr
from gnuradio.fft import window
import sys
import signal
from argparse import ArgumentParser
from gnuradio.eng_arg import eng_float, intx
from gnuradio import eng_notation
from gnuradio.qtgui import Range, RangeWidget
from PyQt5 import QtCore
import bsid_live_drift as drift  # embedded python block
import bsid_live_ser as ser  # embedded python block


def snipfcn_logging(self):
    # --log-level: what GNU Radio and the core log from the blocks on (their
    # messages go where GNU Radio's configuration says: on Debian, stdout)
    from bsid_sim.log_setup import configure_logging
    configure_logging(self.log_level)

def snipfcn_ser_axis(self):
    # SER axis from 0 to a little above the largest SER shown, at least 0.01
    # (autoscaling leaves a window of error-free frames without a scale)
    def rescale(self=self):
        top = max(float(self.ser.history.max()), 0.01)
        self.ser_plot.set_y_axis(0, 1.1 * top)
    self._ser_axis_timer = Qt.QTimer(self)
    self._ser_axis_timer.timeout.connect(rescale)
    self._ser_axis_timer.start(100)

def snipfcn_window_size(self):
    # open at a readable size: at least 1000 x 800, or the larger size saved when
    # the window was last closed; the plots take the height the sliders do not
    # need, and on smaller screens shrink to 250 pixels each rather than scroll
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
    snipfcn_ser_axis(tb)
    snipfcn_window_size(tb)

def snippets_main_after_stop(tb):
    snipfcn_plots_outlive_their_sinks(tb)

def snippets_init_before_blocks(tb):
    snipfcn_logging(tb)

from gnuradio import qtgui

class bsid_live(gr.top_block, Qt.QWidget):

    def __init__(self, log_level='warning', seed=1):
        gr.top_block.__init__(self, "gr-bsid live", catch_exceptions=True)
        Qt.QWidget.__init__(self)
        self.setWindowTitle("gr-bsid live")
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

        self.settings = Qt.QSettings("GNU Radio", "bsid_live")

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
        self.seed = seed

        ##################################################
        # Variables
        ##################################################
        self.codebook = codebook = 'builtin:ld3-modvec6'
        self.Pi = Pi = 0.01
        self.Pd = Pd = 0.01
        self.N = N = 500
        self.symbol_rate = symbol_rate = 5000
        self.frames_shown = frames_shown = 200
        self.drift_limits = drift_limits = bsid.decoder_limits(N, bsid.codebook.from_spec(codebook).n, Pi, Pd)["mtau"]
        self.Ps = Ps = 0.0

        ##################################################
        # Blocks
        ##################################################
        snippets_init_before_blocks(self)
        self._Ps_range = Range(0, 0.1, 0.001, 0.0, 200)
        self._Ps_win = RangeWidget(self._Ps_range, self.set_Ps, "Ps (substitution)", "counter_slider", float, QtCore.Qt.Horizontal)
        self.top_grid_layout.addWidget(self._Ps_win, 0, 2, 1, 1)
        for r in range(0, 1):
            self.top_grid_layout.setRowStretch(r, 1)
        for c in range(2, 3):
            self.top_grid_layout.setColumnStretch(c, 1)
        self._Pi_range = Range(0, 0.1, 0.001, 0.01, 200)
        self._Pi_win = RangeWidget(self._Pi_range, self.set_Pi, "Pi (insertion)", "counter_slider", float, QtCore.Qt.Horizontal)
        self.top_grid_layout.addWidget(self._Pi_win, 0, 0, 1, 1)
        for r in range(0, 1):
            self.top_grid_layout.setRowStretch(r, 1)
        for c in range(0, 1):
            self.top_grid_layout.setColumnStretch(c, 1)
        self._Pd_range = Range(0, 0.1, 0.001, 0.01, 200)
        self._Pd_win = RangeWidget(self._Pd_range, self.set_Pd, "Pd (deletion)", "counter_slider", float, QtCore.Qt.Horizontal)
        self.top_grid_layout.addWidget(self._Pd_win, 0, 1, 1, 1)
        for r in range(0, 1):
            self.top_grid_layout.setRowStretch(r, 1)
        for c in range(1, 2):
            self.top_grid_layout.setColumnStretch(c, 1)
        self.ser_window = blocks.vector_to_stream(gr.sizeof_float*1, frames_shown)
        self.ser_plot = qtgui.time_sink_f(
            frames_shown, #size
            symbol_rate / N, #samp_rate
            "symbol error rate per frame, last %g s (newest on the right)" % (frames_shown * N / symbol_rate), #name
            1, #number of inputs
            None # parent
        )
        self.ser_plot.set_update_time(0.10)
        self.ser_plot.set_y_axis(0, 0.01)

        self.ser_plot.set_y_label('SER', "")

        self.ser_plot.enable_tags(False)
        self.ser_plot.set_trigger_mode(qtgui.TRIG_MODE_FREE, qtgui.TRIG_SLOPE_POS, 0.0, 0, 0, "")
        self.ser_plot.enable_autoscale(False)
        self.ser_plot.enable_grid(True)
        self.ser_plot.enable_axis_labels(True)
        self.ser_plot.enable_control_panel(False)
        self.ser_plot.enable_stem_plot(False)

        self.ser_plot.disable_legend()

        labels = ['symbol error rate per frame', 'Signal 2', 'Signal 3', 'Signal 4', 'Signal 5',
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
                self.ser_plot.set_line_label(i, "Data {0}".format(i))
            else:
                self.ser_plot.set_line_label(i, labels[i])
            self.ser_plot.set_line_width(i, widths[i])
            self.ser_plot.set_line_color(i, colors[i])
            self.ser_plot.set_line_style(i, styles[i])
            self.ser_plot.set_line_marker(i, markers[i])
            self.ser_plot.set_line_alpha(i, alphas[i])

        self._ser_plot_win = sip.wrapinstance(self.ser_plot.qwidget(), Qt.QWidget)
        self.top_grid_layout.addWidget(self._ser_plot_win, 1, 0, 1, 3)
        for r in range(1, 2):
            self.top_grid_layout.setRowStretch(r, 1)
        for c in range(0, 3):
            self.top_grid_layout.setColumnStretch(c, 1)
        self.ser = ser.frame_ser(N=N, window=frames_shown)
        self.drift_window = blocks.vector_to_stream(gr.sizeof_float*1, frames_shown)
        self.drift_plot = qtgui.time_sink_f(
            frames_shown, #size
            symbol_rate / N, #samp_rate
            "end drift per frame, last %g s (newest on the right)" % (frames_shown * N / symbol_rate), #name
            1, #number of inputs
            None # parent
        )
        self.drift_plot.set_update_time(0.10)
        self.drift_plot.set_y_axis(min(drift_limits[0], -1), max(drift_limits[1], 1))

        self.drift_plot.set_y_label('drift rho - tau', "")

        self.drift_plot.enable_tags(False)
        self.drift_plot.set_trigger_mode(qtgui.TRIG_MODE_FREE, qtgui.TRIG_SLOPE_POS, 0.0, 0, 0, "")
        self.drift_plot.enable_autoscale(False)
        self.drift_plot.enable_grid(True)
        self.drift_plot.enable_axis_labels(True)
        self.drift_plot.enable_control_panel(False)
        self.drift_plot.enable_stem_plot(False)

        self.drift_plot.disable_legend()

        labels = ['end drift per frame', 'Signal 2', 'Signal 3', 'Signal 4', 'Signal 5',
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
        self.top_grid_layout.addWidget(self._drift_plot_win, 2, 0, 1, 3)
        for r in range(2, 3):
            self.top_grid_layout.setRowStretch(r, 1)
        for c in range(0, 3):
            self.top_grid_layout.setColumnStretch(c, 1)
        self.drift = drift.drift_probe(window=frames_shown)
        self.bsid_map_decoder_0 = bsid.map_decoder(bsid.codebook.from_spec(codebook), N, Pi, Pd, Ps, 'hard', 'auto', 'float', 'auto', (1e-10), 64, 1.0, 0.0, "packet_len", True, "", 'tagged', (-1), "bsid_start", 4, True, 0.0, True, True, 'bits', 0, False, 10.0, "")
        self.bsid_codebook_encoder_0 = bsid.codebook_encoder(bsid.codebook.from_spec(codebook), N, "packet_len", "")
        self.bsid_channel_0 = bsid.channel(Pi, Pd, Ps, seed, "packet_len", True)
        self.blocks_throttle_0 = blocks.throttle(gr.sizeof_int*1, symbol_rate,True)
        self.analog_random_uniform_source_x_0 = analog.random_uniform_source_i(0, 16, seed)


        ##################################################
        # Connections
        ##################################################
        self.connect((self.analog_random_uniform_source_x_0, 0), (self.blocks_throttle_0, 0))
        self.connect((self.blocks_throttle_0, 0), (self.bsid_codebook_encoder_0, 0))
        self.connect((self.blocks_throttle_0, 0), (self.ser, 0))
        self.connect((self.bsid_channel_0, 0), (self.bsid_map_decoder_0, 0))
        self.connect((self.bsid_channel_0, 0), (self.drift, 0))
        self.connect((self.bsid_codebook_encoder_0, 0), (self.bsid_channel_0, 0))
        self.connect((self.bsid_map_decoder_0, 0), (self.ser, 1))
        self.connect((self.drift, 0), (self.drift_window, 0))
        self.connect((self.drift_window, 0), (self.drift_plot, 0))
        self.connect((self.ser, 0), (self.ser_window, 0))
        self.connect((self.ser_window, 0), (self.ser_plot, 0))


    def closeEvent(self, event):
        self.settings = Qt.QSettings("GNU Radio", "bsid_live")
        self.settings.setValue("geometry", self.saveGeometry())
        self.stop()
        self.wait()
        snippets_main_after_stop(self)
        event.accept()

    def get_log_level(self):
        return self.log_level

    def set_log_level(self, log_level):
        self.log_level = log_level

    def get_seed(self):
        return self.seed

    def set_seed(self, seed):
        self.seed = seed

    def get_codebook(self):
        return self.codebook

    def set_codebook(self, codebook):
        self.codebook = codebook
        self.set_drift_limits(bsid.decoder_limits(self.N, bsid.codebook.from_spec(self.codebook).n, self.Pi, self.Pd)["mtau"])

    def get_Pi(self):
        return self.Pi

    def set_Pi(self, Pi):
        self.Pi = Pi
        self.set_drift_limits(bsid.decoder_limits(self.N, bsid.codebook.from_spec(self.codebook).n, self.Pi, self.Pd)["mtau"])
        self.bsid_channel_0.set_Pi(self.Pi)
        self.bsid_map_decoder_0.set_channel(self.Pi, self.Pd, self.Ps)

    def get_Pd(self):
        return self.Pd

    def set_Pd(self, Pd):
        self.Pd = Pd
        self.set_drift_limits(bsid.decoder_limits(self.N, bsid.codebook.from_spec(self.codebook).n, self.Pi, self.Pd)["mtau"])
        self.bsid_channel_0.set_Pd(self.Pd)
        self.bsid_map_decoder_0.set_channel(self.Pi, self.Pd, self.Ps)

    def get_N(self):
        return self.N

    def set_N(self, N):
        self.N = N
        self.set_drift_limits(bsid.decoder_limits(self.N, bsid.codebook.from_spec(self.codebook).n, self.Pi, self.Pd)["mtau"])
        self.ser.N = self.N
        self.ser_plot.set_samp_rate(self.symbol_rate / self.N)
        self.drift_plot.set_samp_rate(self.symbol_rate / self.N)

    def get_symbol_rate(self):
        return self.symbol_rate

    def set_symbol_rate(self, symbol_rate):
        self.symbol_rate = symbol_rate
        self.blocks_throttle_0.set_sample_rate(self.symbol_rate)
        self.ser_plot.set_samp_rate(self.symbol_rate / self.N)
        self.drift_plot.set_samp_rate(self.symbol_rate / self.N)

    def get_frames_shown(self):
        return self.frames_shown

    def set_frames_shown(self, frames_shown):
        self.frames_shown = frames_shown

    def get_drift_limits(self):
        return self.drift_limits

    def set_drift_limits(self, drift_limits):
        self.drift_limits = drift_limits
        self.drift_plot.set_y_axis(min(self.drift_limits[0], -1), max(self.drift_limits[1], 1))

    def get_Ps(self):
        return self.Ps

    def set_Ps(self, Ps):
        self.Ps = Ps
        self.bsid_channel_0.set_Ps(self.Ps)
        self.bsid_map_decoder_0.set_channel(self.Pi, self.Pd, self.Ps)



def argument_parser():
    description = 'Live BSID channel and MAP decoder: sliders for Pi, Pd, Ps; SER and drift per frame'
    parser = ArgumentParser(description=description)
    parser.add_argument(
        "--log-level", dest="log_level", type=str, default='warning',
        help="Set what is logged: debug, info, warning, error or off [default=%(default)r]")
    parser.add_argument(
        "--seed", dest="seed", type=intx, default=1,
        help="Set seed of the symbols and the channel [default=%(default)r]")
    return parser


def main(top_block_cls=bsid_live, options=None):
    if options is None:
        options = argument_parser().parse_args()

    if StrictVersion("4.5.0") <= StrictVersion(Qt.qVersion()) < StrictVersion("5.0.0"):
        style = gr.prefs().get_string('qtgui', 'style', 'raster')
        Qt.QApplication.setGraphicsSystem(style)
    qapp = Qt.QApplication(sys.argv)

    tb = top_block_cls(log_level=options.log_level, seed=options.seed)
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
