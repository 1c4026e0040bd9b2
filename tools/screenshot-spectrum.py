#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""Take docs/spectrum.png: examples/rx_qt_spectrum.grc compiled with grcc, run for a
few seconds against the built-in emulator, its window grabbed from the X server.

The window is shown on a virtual X server: the script runs itself again under
xvfb-run (Debian package xvfb), with Qt's xcb platform, and grabs the window's pixels
from the server as a screenshot tool would. Without xvfb-run (--platform auto) it
falls back to Qt's offscreen platform, which renders the window in memory and grabs
it from the widget, and says so. Usage, from a build tree or against an installed copy
(README.md, "Use an installed copy"):

    /usr/bin/python3 tools/screenshot-spectrum.py [--out docs/spectrum.png] \
        [--seconds 6] [--size 1000x700] [--retune 100.1e6] [--platform auto]

The GRC blocks must be found (GRC_BLOCKS_PATH=<source>/grc or an installed prefix),
and gnuradio.rdma must import (PYTHONPATH=<build>/test_modules or the prefix's).
"""

import argparse
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
# Set in the copy of this script that runs under xvfb-run.
INSIDE_XVFB = "GR_RDMA_SCREENSHOT_INSIDE_XVFB"


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
    parser.add_argument("--platform", choices=["auto", "xvfb", "offscreen"],
                        default="auto",
                        help="xvfb: a virtual X server (xvfb-run) and Qt's xcb "
                        "platform; offscreen: Qt's in-memory platform, no X server; "
                        "auto (default): xvfb when xvfb-run is installed")
    opts = parser.parse_args()
    if not 2 <= opts.seconds <= 60:
        parser.error("--seconds=%g is invalid: expected 2..60" % opts.seconds)
    os.environ.setdefault("GRC_BLOCKS_PATH", os.path.join(SRC, "grc"))
    if os.environ.get(INSIDE_XVFB):
        platform = "xvfb"
    else:
        platform = choose_platform(opts.platform)
        if platform == "xvfb":
            sys.exit(run_under_xvfb(opts.size))
    # Whatever the caller's environment says: the platform chosen.
    os.environ["QT_QPA_PLATFORM"] = "xcb" if platform == "xvfb" else "offscreen"

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
        if platform == "xvfb":
            # The pixels the X server shows in the window: a real screenshot.
            picture = app.primaryScreen().grabWindow(int(tb.winId()))
        else:
            picture = tb.grab()  # offscreen has no screen to read: the widget renders
        saved.append((picture.width(), picture.height())
                     if picture.save(opts.out, "PNG") else None)
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
    print("screenshot-spectrum: %s (%dx%d, %s)"
          % (opts.out, *saved[0], "Xvfb, xcb" if platform == "xvfb" else "offscreen"))


def choose_platform(asked):
    """xvfb when asked for, or for auto when xvfb-run is there; else offscreen."""
    have = shutil.which("xvfb-run") is not None
    if asked == "xvfb" and not have:
        sys.exit("screenshot-spectrum: --platform xvfb needs xvfb-run: apt install "
                 "xvfb xauth (.ci/build installs both), or --platform offscreen")
    if asked == "auto" and not have:
        print("screenshot-spectrum: xvfb-run is not installed (apt install xvfb "
              "xauth): Qt's offscreen platform instead", file=sys.stderr)
        return "offscreen"
    return "offscreen" if asked == "offscreen" else "xvfb"


def run_under_xvfb(size):
    """This script again, on a virtual X server of the window's size (a free display
    number, its own authority file, no TCP); its exit status."""
    env = dict(os.environ, **{INSIDE_XVFB: "1"})
    env.pop("DISPLAY", None)
    command = ["xvfb-run", "--auto-servernum",
               "--server-args=-screen 0 %dx%dx24 -nolisten tcp" % size,
               sys.executable, os.path.abspath(__file__), *sys.argv[1:]]
    return subprocess.run(command, env=env).returncode


if __name__ == "__main__":
    main()
