#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""Take docs/spectrum.png: examples/rx_qt_spectrum.grc compiled with grcc, run for a
few seconds against the built-in emulator, its window grabbed.

No X server is needed: Qt's offscreen platform renders the window in memory, and the
widget's own grab() reads it (so no Xvfb, no import/xwd). Usage, from a build tree or
against an installed copy (README.md, "Use an installed copy"):

    /usr/bin/python3 tools/screenshot-spectrum.py [--out docs/spectrum.png] \
        [--seconds 6] [--size 1000x700] [--retune 100.1e6]

The GRC blocks must be found (GRC_BLOCKS_PATH=<source>/grc or an installed prefix),
and gnuradio.rdma must import (PYTHONPATH=<build>/test_modules or the prefix's).
"""

import argparse
import importlib.util
import os
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)


def parse_size(text):
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            "--size=%r is invalid: expected WIDTHxHEIGHT, e.g. 1000x700" % text)
    if not (200 <= width <= 4000 and 200 <= height <= 4000):
        raise argparse.ArgumentTypeError(
            "--size=%r is invalid: each side 200..4000 pixels" % text)
    return width, height


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--grc", default=os.path.join(SRC, "examples/rx_qt_spectrum.grc"))
    parser.add_argument("--out", default=os.path.join(SRC, "docs/spectrum.png"))
    parser.add_argument("--seconds", type=float, default=6.0,
                        help="how long the flowgraph runs before the grab (2..60)")
    parser.add_argument("--size", type=parse_size, default=(1000, 700))
    parser.add_argument("--retune", type=float, default=100.1e6,
                        help="after 1 s, move the Center Freq slider here (Hz; 0: no):"
                        " the tones stay at their RF frequencies, the axis moves")
    opts = parser.parse_args()
    if not 2 <= opts.seconds <= 60:
        parser.error("--seconds=%g is invalid: expected 2..60" % opts.seconds)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("GRC_BLOCKS_PATH", os.path.join(SRC, "grc"))

    with tempfile.TemporaryDirectory(prefix="screenshot-spectrum.") as out_dir:
        grcc = subprocess.run(["grcc", "-o", out_dir, opts.grc], capture_output=True,
                              text=True)
        name = os.path.splitext(os.path.basename(opts.grc))[0]
        generated = os.path.join(out_dir, name + ".py")
        if grcc.returncode != 0 or not os.path.exists(generated):
            sys.exit("screenshot-spectrum: grcc %s failed (are the RDMA blocks on "
                     "GRC_BLOCKS_PATH?):\n%s%s" % (opts.grc, grcc.stdout, grcc.stderr))
        spec = importlib.util.spec_from_file_location(name, generated)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)

    from PyQt5 import Qt
    app = Qt.QApplication(sys.argv[:1])
    tb = getattr(module, name)()
    tb.resize(*opts.size)
    tb.start()
    tb.show()
    saved = []

    def grab():
        saved.append(tb.grab().save(opts.out, "PNG"))
        tb.stop()
        tb.wait()
        app.quit()

    if opts.retune:
        # Move the slider as a user would (the widget calls the variable's setter,
        # whose callback retunes the RDMA Device block), early: the waterfall starts
        # afresh at a new centre frequency.
        slider = tb._freq_win.d_widget
        Qt.QTimer.singleShot(1000, lambda: slider.setValue(opts.retune))
    Qt.QTimer.singleShot(int(opts.seconds * 1000), grab)
    # Ctrl-C ends it too: Python sees the signal between Qt's events.
    signal.signal(signal.SIGINT, lambda *a: app.quit())
    tick = Qt.QTimer()
    tick.timeout.connect(lambda: None)
    tick.start(200)
    app.exec_()
    if not saved or not saved[0]:
        sys.exit("screenshot-spectrum: could not write %s" % opts.out)
    print("screenshot-spectrum: %s (%dx%d)" % (opts.out, *opts.size))


if __name__ == "__main__":
    main()
