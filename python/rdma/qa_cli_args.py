#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""Every number on the command line checked: each bad flag value of gr-rdma-rx and
gr-rdma-emu is a one-line error naming the flag, exit status 2, never a traceback."""

import json
import os
import subprocess

from gnuradio import gr_unittest

RX = os.environ.get("GR_RDMA_RX", "gr-rdma-rx")
EMU = os.environ.get("GR_RDMA_EMU", "gr-rdma-emu")

# Overflow, negative, NaN/infinity, text, empty: for every numeric flag, plus the
# values particular to it.
COMMON = ["nan", "inf", "1e400", "-1", "abc", ""]

RX_TABLE = {
    "--rate": COMMON + ["0", "5e9", "1e300"],
    "--duration": COMMON + ["1e300", "2e6"],  # 0: continuous
    "--progress-interval": COMMON + ["0", "0.05", "3601"],
    "--rotate-size": COMMON + ["0", "1.5", "9223372036854775808"],
    "--rotate-seconds": COMMON + ["0", "2e6"],
    "--samples": COMMON + ["0", "1.5", "1e6", "9223372036854775808",
                           "18446744073709551616", "0x10"],
    "--timeout": COMMON + ["-0.5", "1e300"],
    # The device clips a frequency or gain out of its range; these are no number.
    "--freq": COMMON + ["1e16", "100MHz"],
    "--gain": [v for v in COMMON if v != "-1"] + ["1001", "-1001", "10dB"],
}

EMU_TABLE = {
    "--streams": COMMON + ["0", "17", "many", "4294967297", "1.5", "0x"],
    "--fifo-ms": COMMON + ["-5", "0", "0.05", "10001", "4294967.296"],
    "--max-burst-words": COMMON + ["0", "257", "1.5", "4294967297"],
    "--control": ["127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:", "localhost", "",
                  "1.2.3.4:nan"],
    "--link": ["1.2.3.256", "abc", "", "127.0.0.1:99999", "127.0.0.1+", "+127.0.0.1",
               "127.0.0.1++127.0.0.2", "127.0.0.1+abc", "+".join(["127.0.0.1"] * 17)],
    "--wire": ["tcp", "inproc", ""],
    "--serial": COMMON + ["18446744073709551616", "1.5", "0x", "0x1g"],
    "--master-clock": COMMON + ["4294967296", "30.72e6", "1.5", "0x"],
    "--links": COMMON + ["0", "17", "1.5", "0x"],
}


class qa_cli_args(gr_unittest.TestCase):

    def run_app(self, *argv):
        return subprocess.run(list(argv), capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL)

    def assert_usage_error(self, proc, flag, what):
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(proc.returncode, 2, "%s: %r" % (what, proc.stderr))
        self.assertNotIn("Traceback", proc.stderr, what)
        self.assertEqual(len(lines), 1, "%s: not one line: %r" % (what, proc.stderr))
        self.assertIn(flag, lines[0], what)
        self.assertEqual(proc.stdout, "", what)

    def test_rx_flags(self):
        for flag, values in RX_TABLE.items():
            for value in values:
                proc = self.run_app(RX, flag, value)
                self.assert_usage_error(proc, flag, "gr-rdma-rx %s %r" % (flag, value))
                if value and not value.startswith("-"):
                    # The value and the range, not just "invalid".
                    self.assertIn(value, proc.stderr)
                    self.assertIn("expected", proc.stderr)

    def test_rx_timeout_minus_one_is_no_success(self):
        proc = self.run_app(RX, "--timeout", "-1", "--duration", "0.1")
        self.assert_usage_error(proc, "--timeout", "--timeout -1")
        self.assertIn("0..1e6", proc.stderr)

    def test_rx_check_refuses_what_it_cannot_check(self):
        for args, why in (("type=emu,signal=sine", "signal=sine is none of them"),
                          ("type=null", "type=null")):
            proc = self.run_app(RX, "--args", args, "--check", "--duration", "0.1")
            self.assert_usage_error(proc, "--check", args)
            self.assertIn(why, proc.stderr)
        # The check reads the ring in place, in the wire format: not with a conversion.
        proc = self.run_app(RX, "--check", "--otw", "sc16", "--format", "fc32",
                            "--duration", "0.1")
        self.assert_usage_error(proc, "--check", "--check --otw sc16")
        self.assertIn("--otw", proc.stderr)
        proc = self.run_app(RX, "--otw", "sc12")
        self.assert_usage_error(proc, "--otw", "--otw sc12")
        self.assertIn("sc8", proc.stderr)

    def test_rx_check_verifies_every_test_signal(self):
        # The checker recomputes each of the emulator's signals: no refusal, and every
        # sample matches. Paced (emu_pace=consumer): every sample reaches the checker,
        # however busy the machine.
        for signal in ("tone", "noise,seed=3", "clipped_tone", "extremes"):
            proc = self.run_app(RX, "--args",
                                "type=emu,emu_pace=consumer,signal=" + signal, "--check",
                                "--format", "sc16", "--duration", "0.2", "--json")
            self.assertEqual(proc.returncode, 0, proc.stderr)
            report = json.loads(proc.stdout)
            self.assertEqual(report["check"]["mismatches"], 0, signal)
            self.assertEqual(report["check"]["items_checked"], 4000000, signal)

    def test_rx_bad_device_args_are_one_line(self):
        for args, key in (("type=emu,stream=4294967296", "stream=4294967296"),
                          ("type=emu,freq=1e12,signal=tone", "freq=1e12"),
                          ("type=emu,amplitude=nan,signal=tone", "amplitude=nan"),
                          ("type=emu,notify=-1", "notify=-1")):
            proc = self.run_app(RX, "--args", args, "--duration", "0.1")
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertNotIn("Traceback", proc.stderr)
            last = proc.stderr.strip().splitlines()[-1]
            self.assertTrue(last.startswith("gr-rdma-rx: "), last)
            self.assertIn(key, last)
            self.assertIn("expected", last)

    def test_rx_unknown_flag(self):
        proc = self.run_app(RX, "--bogus")
        self.assert_usage_error(proc, "--bogus", "--bogus")

    def test_emu_flags(self):
        for flag, values in EMU_TABLE.items():
            for value in values:
                proc = self.run_app(EMU, flag, value)
                self.assert_usage_error(proc, flag, "gr-rdma-emu %s %r" % (flag, value))
                self.assertIn("expected", proc.stderr)

    def test_emu_links_and_link_addresses_agree(self):
        proc = self.run_app(EMU, "--link", "127.0.0.1+127.0.0.2", "--links", "3")
        self.assert_usage_error(proc, "--links 3", "--links 3 with two --link addresses")
        self.assertIn("disagree", proc.stderr)

    def test_emu_usage_errors(self):
        for argv, says in ((["--bogus", "1"], "unknown flag '--bogus'"),
                           (["--streams"], "--streams needs a value")):
            proc = self.run_app(EMU, *argv)
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertIn("usage:", proc.stderr)
            self.assertIn(says, proc.stderr)

    def test_emu_accepts_the_bounds(self):
        # The ranges are not too tight: their ends start the daemon.
        daemon = subprocess.Popen(
            [EMU, "--control", "127.0.0.1:0", "--streams", "16", "--fifo-ms", "0.1",
             "--max-burst-words", "1", "--master-clock", "4294967295", "--links", "16"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            banner = daemon.stdout.readline()
            self.assertIn("16 RX stream(s)", banner)
            self.assertIn("max burst 1 word(s)", banner)
            self.assertIn("master clock 4294967295 Hz", banner)
            self.assertIn("16 links", banner)
        finally:
            daemon.terminate()
            self.assertEqual(daemon.wait(timeout=10), 0)


if __name__ == '__main__':
    gr_unittest.run(qa_cli_args)
