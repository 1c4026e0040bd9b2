#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""tools/screenshot-spectrum.py, which takes docs/spectrum.png: it runs
examples/rx_qt_spectrum.grc on a virtual X server (Xvfb, Qt's xcb platform; CI
installs xvfb) and writes a PNG of the size asked for, grabbed from the server, with a
picture in it (not a blank window); it refuses a bad --size with one line, and says
what to install when xvfb-run is missing."""

import os
import subprocess
import sys
import tempfile

from gnuradio import gr_unittest

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(SRC, "tools", "screenshot-spectrum.py")


class qa_screenshot_spectrum(gr_unittest.TestCase):

    def test_001_png_of_the_window(self):
        with tempfile.TemporaryDirectory(prefix="qa_screenshot.") as tmp:
            out = os.path.join(tmp, "spectrum.png")
            # Xvfb, not the offscreen fallback: the caller's QT_QPA_PLATFORM and
            # DISPLAY must not matter.
            env = dict(os.environ, QT_QPA_PLATFORM="offscreen", DISPLAY=":99999")
            run = subprocess.run([sys.executable, TOOL, "--out", out, "--seconds", "3",
                                  "--size", "800x600", "--platform", "xvfb"],
                                 capture_output=True, text=True, timeout=120, env=env)
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
            self.assertNotIn("Traceback", run.stderr)
            self.assertIn("screenshot-spectrum: %s (800x600, Xvfb, xcb)" % out,
                          run.stdout)
            from PyQt5 import QtGui
            image = QtGui.QImage(out)
            self.assertFalse(image.isNull(), "%s is not a PNG Qt reads" % out)
            self.assertEqual((image.width(), image.height()), (800, 600))
            # Plots, labels and a waterfall: many colours. A window that was never
            # painted is one or two.
            colours = {image.pixel(x, y) for x in range(0, 800, 7)
                       for y in range(0, 600, 7)}
            self.assertGreater(len(colours), 30)

    def test_003_xvfb_needs_xvfb_run(self):
        # Without xvfb-run on PATH: what to install, before anything runs.
        with tempfile.TemporaryDirectory(prefix="qa_screenshot.") as empty:
            env = dict(os.environ, PATH=empty)
            run = subprocess.run([sys.executable, TOOL, "--platform", "xvfb"],
                                 capture_output=True, text=True, timeout=60, env=env)
        self.assertEqual(run.returncode, 1)
        self.assertIn("--platform xvfb needs xvfb-run: apt install xvfb xauth",
                      run.stderr)

    def test_002_bad_size_is_one_line(self):
        run = subprocess.run([sys.executable, TOOL, "--size", "10x10"],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 2)
        self.assertIn("--size='10x10' is invalid: each side 200..4000 pixels", run.stderr)


if __name__ == "__main__":
    gr_unittest.run(qa_screenshot_spectrum)
