#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""gr-rdma-tx against the built-in emulator: the signal written in place into the TX
ring, read by the device by RDMA READ over the soft NIC, checked there against the ramp
(tx_check=1); the report's books balance to the sample."""

import json
import os
import signal
import subprocess
import tempfile
import threading
import time

import numpy as np

from gnuradio import gr_unittest


APP = os.environ.get("GR_RDMA_TX", "gr-rdma-tx")
# A small ring (4 KiB pages, 20 ms budget), so that a short run wraps it many times.
CHECKED = "type=emu,tx_check=1,hugepages=off,latency=0.02"
# The converter waits for each piece instead of playing it late (a test mode,
# docs/device-args.md): ten wraps played intact however busy the machine is.
PACED = CHECKED + ",emu_pace=consumer"


def ramp_sc16(n):
    """The emulator's ramp, sc16: item k read as a little-endian uint32 is k."""
    return np.arange(n, dtype=np.uint32)


class qa_gr_rdma_tx(gr_unittest.TestCase):

    def run_app(self, *args, timeout=120):
        return subprocess.run([APP, *args], capture_output=True, text=True,
                              timeout=timeout)

    def report_of(self, proc, code=0):
        self.assertEqual(proc.returncode, code, proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        return json.loads(proc.stdout)

    def assert_books_balance(self, r):
        """provided = played intact + zero-substituted (late) + not played, and the
        stream's reports add up to the device's counters (it is stopped)."""
        self.assertTrue(r["identity_holds"], r)
        # The names, and no other: "late" alone does not say what happened.
        for old in ("samples_played", "samples_late", "samples_not_played",
                    "late_reports", "late_reported"):
            self.assertNotIn(old, r)
        self.assertGreaterEqual(r["zero_substituted_late_reports"], 0)
        self.assertEqual(r["samples_provided"],
                         r["played_intact"] + r["zero_substituted_late"] + r["not_played"])
        self.assertEqual(r["underflow_reported"], r["underflow_zeros"])
        self.assertEqual(r["zero_substituted_late_reported"], r["zero_substituted_late"])
        self.assertEqual(r["device"]["samples_played"], r["played_intact"])
        self.assertEqual(r["host"]["committed"], r["samples_provided"])
        # Zero copy: every span the producer wrote lay in the registered ring.
        self.assertGreater(r["zero_copy"]["spans_written"], 0)
        self.assertEqual(r["zero_copy"]["spans_outside_ring"], 0)

    def ramp_checked(self, fmt, rate=1000000):
        # One second of the ramp.
        r = self.report_of(self.run_app("--args", PACED, "--format", fmt, "--rate",
                                        str(rate), "--duration", "1", "--json"))
        self.assertEqual(r["kind"], "report")
        self.assertEqual(r["signal"], "ramp")
        self.assertEqual(r["samples_requested"], rate)
        self.assertEqual(r["samples_provided"], rate)
        self.assert_books_balance(r)
        # A burst: the device plays all of it (late zeros are reported, not stale).
        self.assertEqual(r["played_intact"] + r["zero_substituted_late"], rate)
        self.assertEqual(r["not_played"], 0)
        self.assertTrue(r["device_check"]["enabled"])
        self.assertEqual(r["device_check"]["mismatches"], 0)
        self.assertEqual(r["device_check"]["samples_checked"], r["played_intact"])
        # Many wraps of the ring, every sample intact.
        self.assertGreaterEqual(r["played_intact"], 10 * r["ring_items"], r)
        self.assertIsNone(r["interrupted"])
        self.assertIsNone(r["failure"])
        self.assertFalse(r["timed_out"])
        self.assertGreater(r["lead_time_ns"], 0)
        self.assertGreater(r["rtt_ns"], 0)
        self.assertGreater(r["reads"], 0)
        for role in ("producer", "other_host", "host", "nic", "device", "total"):
            self.assertIn(role, r["cpu_seconds"])
        # The emulator's TX engine and the producer both ran.
        self.assertGreater(r["cpu_seconds"]["producer"], 0.0)
        self.assertGreater(r["cpu_seconds"]["device"], 0.0)
        self.assertGreaterEqual(r["cpu_seconds"]["host"], r["cpu_seconds"]["producer"])
        return r

    def test_ramp_sc16_bit_exact(self):
        self.ramp_checked("sc16")

    def test_ramp_fc32_bit_exact(self):
        self.ramp_checked("fc32")

    def test_ramp_sc8_bit_exact(self):
        # TX_FORMAT 2: the emulator's TX engine plays sc8 too. The ring's smallest size
        # holds four times as many sc8 items as fc32: twice the rate, for ten wraps.
        self.ramp_checked("sc8", rate=2000000)

    def test_tone(self):
        r = self.report_of(self.run_app("--args", "type=emu,hugepages=off,latency=0.02",
                                        "--signal", "tone", "--wave-freq", "1e4",
                                        "--ampl", "0.3", "--rate", "1e6",
                                        "--duration", "0.5", "--json"))
        self.assertEqual(r["signal"], "tone")
        self.assertEqual(r["samples_provided"], 500000)
        self.assertEqual(r["played_intact"] + r["zero_substituted_late"], 500000)
        self.assertFalse(r["device_check"]["enabled"])
        self.assert_books_balance(r)

    def write_file(self, words):
        f = tempfile.NamedTemporaryFile(suffix=".sc16", delete=False)
        f.write(words.tobytes())
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_file_of_the_ramp_arrives_intact(self):
        # A FILE holding the ramp: read into the ring, and checked on the device.
        n = 300000
        path = self.write_file(ramp_sc16(n))
        r = self.report_of(self.run_app("--args", CHECKED, "--format", "sc16",
                                        "--signal", path, "--rate", "1e6", "--json"))
        self.assertEqual(r["samples_requested"], n)  # the FILE's length
        self.assertEqual(r["samples_provided"], n)
        self.assertEqual(r["played_intact"] + r["zero_substituted_late"], n)
        self.assertEqual(r["device_check"]["mismatches"], 0)
        self.assertEqual(r["device_check"]["samples_checked"], r["played_intact"])
        self.assertTrue(r["file"]["ended"])
        self.assert_books_balance(r)

    def test_file_from_a_pipe(self):
        # A pipe's length is known at its end: the run streams continuously until then,
        # and only the items of a last partial message are not played.
        n = 200000
        proc = subprocess.run([APP, "--args", CHECKED, "--format", "sc16", "--signal",
                               "/dev/stdin", "--rate", "1e6", "--json"],
                              input=ramp_sc16(n).tobytes(), capture_output=True,
                              timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        r = json.loads(proc.stdout)
        self.assertTrue(r["continuous"])
        self.assertTrue(r["file"]["ended"])
        self.assertEqual(r["samples_provided"], n)
        self.assert_books_balance(r)
        self.assertLess(r["not_played"], r["payload_bytes"] // 4)
        self.assertEqual(r["device_check"]["mismatches"], 0)
        self.assertEqual(r["device_check"]["samples_checked"], r["played_intact"])

    def test_file_corruption_is_seen_by_the_check(self):
        # The check can fail: three items that are not the ramp are found, and the
        # run fails (exit 1) saying so.
        words = ramp_sc16(100000)
        words[[10, 50000, 99999]] ^= 0x10000
        path = self.write_file(words)
        r = self.report_of(self.run_app("--args", CHECKED, "--format", "sc16",
                                        "--signal", path, "--rate", "1e6", "--json"),
                           code=1)
        self.assertEqual(r["played_intact"] + r["zero_substituted_late"], 100000)
        # Late zeros are not checked: a corrupted item played as one is not seen.
        if r["zero_substituted_late"] == 0:
            self.assertEqual(r["device_check"]["mismatches"], 3)
        self.assertGreater(r["device_check"]["mismatches"], 0)
        self.assertLessEqual(r["device_check"]["mismatches"], 3)
        self.assertIn("mismatches", r["failure"])

    def test_file_repeat_until_duration(self):
        n = 40000
        path = self.write_file(ramp_sc16(n))
        r = self.report_of(self.run_app("--args", "type=emu,hugepages=off,latency=0.02",
                                        "--format", "sc16", "--signal", path, "--repeat",
                                        "--rate", "1e6", "--duration", "0.1", "--json"))
        self.assertEqual(r["samples_provided"], 100000)
        self.assertEqual(r["file"]["rewinds"], 2)  # 2.5 passes of the FILE
        self.assertFalse(r["file"]["ended"])
        self.assert_books_balance(r)

    def test_throttled_producer_underflows_exactly(self):
        # The producer provides half the rate: the device plays zeros for the rest,
        # counted and reported, and never a stale sample (the ramp check sees only the
        # host's samples, in order).
        r = self.report_of(self.run_app("--args", CHECKED, "--format", "sc16",
                                        "--rate", "1e6", "--throttle", "5e5",
                                        "--duration", "0.5", "--json"))
        self.assertEqual(r["samples_provided"], 500000)
        self.assertGreater(r["underflow_zeros"], 0)
        self.assertGreater(r["underflow_reports"], 0)
        self.assert_books_balance(r)
        self.assertEqual(r["device_check"]["mismatches"], 0)
        self.assertEqual(r["device_check"]["samples_checked"], r["played_intact"])

    def interrupt(self, sig, *args, duplicate=False):
        proc = subprocess.Popen([APP, "--args", CHECKED, "--format", "sc16",
                                 "--rate", "1e6", *args, "--json"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # The stream logs its setup once built; the app took the signals over before.
        streaming = threading.Event()
        stderr = []

        def read_stderr():
            for line in proc.stderr:
                stderr.append(line)
                if "TX stream" in line:
                    streaming.set()
        reader = threading.Thread(target=read_stderr, daemon=True)
        reader.start()
        try:
            self.assertTrue(streaming.wait(20), "".join(stderr))
            time.sleep(1.5)
            self.assertIsNone(proc.poll(), "it ended before the signal")
            proc.send_signal(sig)
            if duplicate:
                # As coreutils' timeout does (the process, then its group): the same
                # request twice, the second after the app took the first.
                time.sleep(0.1)
                proc.send_signal(sig)
            out = proc.stdout.read()
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            reader.join(5)
            proc.stdout.close()
            proc.stderr.close()
        err = "".join(stderr)
        self.assertEqual(proc.returncode, 0, err)
        r = json.loads(out)
        self.assertEqual(r["interrupted"], signal.Signals(sig).name)
        self.assertIsNone(r["failure"])
        self.assertGreater(r["played_intact"], 0)
        self.assert_books_balance(r)
        self.assertEqual(r["device_check"]["mismatches"], 0)
        return r

    def test_sigint_mid_run_prints_the_report(self):
        r = self.interrupt(signal.SIGINT, "--duration", "30")
        self.assertLess(r["samples_provided"], r["samples_requested"])

    def test_a_signal_delivered_twice_is_one_stop_request(self):
        r = self.interrupt(signal.SIGINT, duplicate=True)
        self.assertTrue(r["continuous"])

    def test_sigterm_ends_a_continuous_run(self):
        r = self.interrupt(signal.SIGTERM)
        self.assertTrue(r["continuous"])
        self.assertIsNone(r["samples_requested"])

    def test_hangup_quit_and_user_signals_are_stop_requests(self):
        # Each once killed the app with no report.
        for sig in (signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2):
            with self.subTest(signal=sig.name):
                r = self.interrupt(sig, "--duration", "30")
                self.assertLess(r["samples_provided"], r["samples_requested"])

    def test_emulator_daemon(self):
        # Any device the args name: here the emulator daemon, another process (so the
        # device's CPU is not this one's).
        emu = os.environ.get("GR_RDMA_EMU", "gr-rdma-emu")
        daemon = subprocess.Popen([emu, "--control", "127.0.0.1:0"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            banner = daemon.stdout.readline()
            port = int(banner.split("127.0.0.1:")[1].split()[0].rstrip(",;:"))
            r = self.report_of(self.run_app(
                "--args", "type=remote,addr=127.0.0.1:%d,tx_check=1,hugepages=off" % port,
                "--format", "sc16", "--rate", "1e6", "--duration", "0.5", "--json"))
        finally:
            daemon.terminate()
            daemon.wait(timeout=10)
        self.assertEqual(r["samples_provided"], 500000)
        self.assertEqual(r["played_intact"] + r["zero_substituted_late"], 500000)
        self.assertGreater(r["played_intact"], 0)
        self.assert_books_balance(r)
        self.assertEqual(r["device_check"]["mismatches"], 0)
        self.assertEqual(r["cpu_seconds"]["device"], 0.0)

    def test_text_report(self):
        proc = self.run_app("--args", CHECKED, "--rate", "1e6", "--duration", "0.1")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for line in ("Samples provided: 100000", "Played intact:",
                     "Zero-substituted (late):", "Underflow zeros:", "Not played:",
                     "Zero-substituted (late) reported:", "Identity holds: yes",
                     "Mismatches: 0", "Lead time:", "Producer:"):
            self.assertIn(line, proc.stdout)
        # The old names are gone: no "late" without what it means.
        for old in ("Samples played:", "Samples late:", "Late reported:"):
            self.assertNotIn(old, proc.stdout)

    def test_help(self):
        proc = self.run_app("--help")
        self.assertEqual(proc.returncode, 0)
        for flag in ("--args", "--signal", "--rate", "--duration", "--json", "--throttle"):
            self.assertIn(flag, proc.stdout)

    def assert_usage_error(self, args, *expected):
        proc = self.run_app(*args)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertEqual(proc.stdout, "")
        self.assertNotIn("Traceback", proc.stderr)
        line = proc.stderr.strip().splitlines()[-1]
        for text in expected:
            self.assertIn(text, line)

    def test_bad_flags_exit_2_with_the_fix(self):
        self.assert_usage_error(["--rate", "-1"], "--rate -1 is invalid",
                                "expected S/s above 0")
        self.assert_usage_error(["--duration", "x"], "--duration x is invalid",
                                "seconds 0..1000000")
        self.assert_usage_error(["--frobnicate"], "unknown flag '--frobnicate'", "--help")
        self.assert_usage_error(["--format", "sc12"], "fc32, sc16 or sc8")
        self.assert_usage_error(["--rate"], "--rate needs a value")
        self.assert_usage_error(["--signal", "/nonexistent/x.fc32"],
                                "/nonexistent/x.fc32", "expected ramp, tone or a")
        self.assert_usage_error(["--wave-freq", "1e3"], "add --signal tone")
        self.assert_usage_error(["--signal", "tone", "--wave-freq", "6e5"],
                                "at most half of --rate")
        self.assert_usage_error(["--repeat"], "--duration ends it")
        self.assert_usage_error(["--args", "type=emu,tx_check=1", "--signal", "tone"],
                                "drop tx_check=1")
        path = self.write_file(np.zeros(3, dtype=np.uint16))  # 6 bytes: no fc32 item
        self.assert_usage_error(["--signal", path], "not a whole number of fc32 items",
                                "--format")

    def test_bad_device_args_exit_2_naming_the_key(self):
        self.assert_usage_error(["--args", "type=emu,no_such_key=1", "--duration", "0.1"],
                                "no_such_key")


if __name__ == '__main__':
    gr_unittest.run(qa_gr_rdma_tx)
