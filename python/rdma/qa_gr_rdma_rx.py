#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""The main job: gr-rdma-rx --json against the built-in emulator."""

import json
import os
import pty
import select
import signal
import subprocess
import sys
import threading
import time

from gnuradio import gr_unittest


APP = os.environ.get("GR_RDMA_RX", "gr-rdma-rx")


class qa_gr_rdma_rx(gr_unittest.TestCase):

    def run_app(self, *args):
        proc = subprocess.run([APP, *args], capture_output=True, text=True, timeout=120)
        return proc

    def test_main_job_20msps_3s(self):
        # sc16, as a converter delivers: 80 MB/s (fc32 would be 160). The real-time
        # emulator: a busy machine may lap the consumer, which the run must then report,
        # to the sample, and hand out nothing that is not the device's.
        proc = self.run_app("--args", "type=emu,signal=ramp", "--rate", "20e6",
                            "--format", "sc16", "--duration", "3", "--check", "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        report = json.loads(proc.stdout)
        for key in ("samples_delivered", "samples_lost", "rate_achieved", "ring_bytes",
                    "hugepages", "cpu_seconds"):
            self.assertIn(key, report)
        self.assertEqual(report["samples_emitted"], 60000000)
        self.assertTrue(report["identity_holds"], report)
        lost = report["lost_by_cause"]
        self.assertEqual(report["samples_lost"], sum(lost.values()), report)
        self.assertEqual(lost["stopped"], 0)
        # Every sample emitted went through the flowgraph but those skipped.
        self.assertEqual(report["items_through_flowgraph"] + lost["overrun_skipped"],
                         60000000)
        self.assertEqual(report["check"]["items_checked"],
                         report["items_through_flowgraph"])
        self.assertEqual(report["check"]["mismatches"], 0)
        self.assertEqual(report["check"]["out_of_ring_reads"], 0)
        # Pacing: 60 M samples cannot arrive faster than the device makes them.
        self.assertLessEqual(report["rate_achieved"], 20e6 * 1.001)
        for role in ("host", "nic", "device"):
            self.assertGreater(report["cpu_seconds"][role], 0.0)
        # One link: no per-link section.
        self.assertNotIn("links", report)

    def test_two_links_per_link_report(self):
        # links=2 at 3:1 (0 0 1 0, ...): messages 5 and 7 are link 0's, 6 and 102 link
        # 1's; the device drops them. 4000 messages of 1024 sc16 samples. Paced by the
        # consumer (emu_pace=consumer) and no link declared down by a late notification
        # (link_timeout=0): the attribution is the subject, not how busy the machine is.
        ipm, messages = 1024, 4000
        args = ("type=emu,signal=ramp,links=2,weights=3:1,mtu=4096,payload=4096,"
                "drop=5:6:7:102,emu_pace=consumer,link_timeout=0")
        proc = self.run_app("--args", args, "--rate", "4e6", "--format", "sc16",
                            "--samples", str(ipm * messages), "--check", "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        report = json.loads(proc.stdout)
        self.assertTrue(report["identity_holds"], report)
        self.assertEqual(report["check"]["mismatches"], 0)
        links = report["links"]
        self.assertEqual([l["link"] for l in links], [0, 1])
        for l in links:
            self.assertEqual(sorted(l), ["frontier", "imm_out_of_sequence", "link",
                                         "lost_samples", "messages", "path_ns"])
            self.assertEqual(l["imm_out_of_sequence"], 0)
            self.assertGreater(l["frontier"], 0)
        # Every message of the stream counted for one link, at the weights.
        self.assertEqual(report["samples_emitted"], ipm * messages)
        self.assertEqual(sum(l["messages"] for l in links), messages)
        self.assertEqual(report["links_unattributed"], {"messages": 0, "lost_samples": 0})
        self.assertAlmostEqual(links[1]["messages"] / messages, 0.25, delta=0.01)
        # The loss, each link's own; together the stream's.
        self.assertEqual([l["lost_samples"] for l in links], [2 * ipm, 2 * ipm])
        self.assertEqual(sum(l["lost_samples"] for l in links), report["samples_lost"])
        # The summary: a line per link.
        proc = self.run_app("--args", args, "--rate", "4e6", "--format", "sc16",
                            "--samples", str(ipm * messages))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        lines = proc.stdout.splitlines()
        self.assertIn("link 0: 3000 messages (75.0 %%), %d samples lost, 0 immediates "
                      "out of sequence" % (2 * ipm), lines)
        self.assertIn("link 1: 1000 messages (25.0 %%), %d samples lost, 0 immediates "
                      "out of sequence" % (2 * ipm), lines)

    def test_five_times_overload_checked(self):
        # Some 5x what a checking consumer keeps up with here (~100 MS/s): rings are
        # skipped, messages dropped and zero-filled, slots overwritten while unread.
        # Everything the host hands out is then the emulator's sample or reported: not
        # one unexplained mismatch, no rx_time naming the wrong sample, and the books
        # balance.
        proc = self.run_app("--args", "type=emu,signal=ramp", "--rate", "500e6",
                            "--format", "sc16", "--duration", "1", "--check", "--json")
        report = json.loads(proc.stdout)
        self.assertGreater(report["samples_lost"], 0, "not overloaded: tests nothing")
        self.assertEqual(report["check"]["mismatches"], 0,
                         report["check"]["first_mismatch"])
        self.assertEqual(report["check"]["time_errors"], 0)
        self.assertTrue(report["identity_holds"], report)
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_rc_failure_is_loud(self):
        # The device writes with a wrong rkey at the expected PSN: the NIC fails the RC
        # queue pair. The run ends at once, says why, and exits 1.
        proc = self.run_app("--args", "type=emu,signal=ramp,transport=rc,bad_rkey=500",
                            "--rate", "4e6", "--duration", "5", "--json")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        report = json.loads(proc.stdout)
        self.assertTrue(report["error"], report)
        self.assertEqual(report["failure"], report["error"])
        self.assertLess(report["elapsed_s"], 4.0)

    def test_bad_args_exit_2_with_the_fix(self):
        proc = self.run_app("--args", "type=emu,sgnal=ramp", "--duration", "0.1")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("sgnal", proc.stderr)
        self.assertIn("known keys", proc.stderr)

    def interrupt_mid_run(self, sig, args, duplicate=False):
        """A 30 s run, stopped by sig once it streams: the report, and exit 0 as every
        emitted sample is accounted for (those not handed out yet: lost to the stop)."""
        started = time.monotonic()
        proc = subprocess.Popen([APP, "--args", args, "--rate", "2e6", "--format", "sc16",
                                 "--duration", "30", "--check", "--json"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # The stream logs its setup once built, after the app took over the signals.
        streaming = threading.Event()
        stderr = []

        def read_stderr():
            for line in proc.stderr:
                stderr.append(line)
                if "RX stream" in line:
                    streaming.set()
        reader = threading.Thread(target=read_stderr, daemon=True)
        reader.start()
        try:
            self.assertTrue(streaming.wait(20), "".join(stderr))
            time.sleep(2)
            proc.send_signal(sig)
            if duplicate:
                # As coreutils' timeout does (the process, then its group): the same
                # request twice, the second after the app took the first.
                time.sleep(0.1)
                proc.send_signal(sig)
            out = proc.stdout.read()
            code = proc.wait(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            reader.join(5)
            proc.stdout.close()
            proc.stderr.close()
        elapsed = time.monotonic() - started
        why = "".join(stderr)
        self.assertNotIn("Traceback", why)
        report = json.loads(out)
        self.assertEqual(report["interrupted"], signal.Signals(sig).name)
        self.assertTrue(report["identity_holds"], why)
        self.assertEqual(code, 0, why)
        self.assertIsNone(report["failure"])
        self.assertFalse(report["timed_out"])
        self.assertLess(report["samples_emitted"], report["samples_requested"])
        self.assertGreater(report["samples_delivered"], 0)
        self.assertEqual(report["check"]["mismatches"], 0)
        self.assertLess(elapsed, 20)
        return report

    def test_sigint_stops_cleanly_with_the_report(self):
        self.interrupt_mid_run(signal.SIGINT, "type=emu,signal=ramp")

    def test_a_signal_delivered_twice_is_one_stop_request(self):
        self.interrupt_mid_run(signal.SIGINT, "type=emu,signal=ramp", duplicate=True)

    def test_sigterm_stops_cleanly_with_the_report(self):
        # Progress by the clock alone: the stop always finds samples of the last grace
        # period emitted and not handed out.
        report = self.interrupt_mid_run(signal.SIGTERM, "type=emu,signal=ramp,notify=0")
        self.assertGreater(report["lost_by_cause"]["stopped"], 0)
        self.assertEqual(report["samples_lost"], report["lost_by_cause"]["stopped"])

    def test_hangup_quit_and_user_signals_are_stop_requests(self):
        # Each once killed the app with no report.
        for sig in (signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2):
            with self.subTest(signal=sig.name):
                self.interrupt_mid_run(sig, "type=emu,signal=ramp")

    @staticmethod
    def catches(pid, sig):
        """Whether process pid has a handler for sig (/proc/PID/status, SigCgt)."""
        try:
            with open("/proc/%d/status" % pid) as f:
                for line in f:
                    if line.startswith("SigCgt:"):
                        return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
        except FileNotFoundError:
            pass
        return False

    def test_a_stop_request_during_startup_still_reports(self):
        # SIGTERM while the app still imports GNU Radio (once the launcher's first lines
        # ran) once killed it with no report. Sent as soon as the launcher catches it.
        # If this process was descheduled long enough for the app to be streaming by
        # then, the try proved nothing and is made again.
        for attempt in range(3):
            proc = subprocess.Popen([APP, "--args", "type=emu,signal=ramp", "--rate", "2e6",
                                     "--format", "sc16", "--duration", "30", "--check",
                                     "--json"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True)
            try:
                deadline = time.monotonic() + 20
                while not self.catches(proc.pid, signal.SIGTERM):
                    self.assertIsNone(proc.poll(), "the app ended before it caught SIGTERM")
                    self.assertLess(time.monotonic(), deadline)
                    time.sleep(0.001)
                proc.send_signal(signal.SIGTERM)
                out, err = proc.communicate(timeout=60)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.communicate()
            self.assertNotIn("Traceback", err)
            self.assertEqual(proc.returncode, 0, err)
            report = json.loads(out)
            self.assertEqual(report["interrupted"], "SIGTERM")
            self.assertTrue(report["identity_holds"], err)
            self.assertIsNone(report["failure"])
            if report["samples_delivered"] < 2e6:  # stopped before a second of samples
                return
        self.fail("the app streamed before SIGTERM in each of 3 tries: this process "
                  "was too slow to send it during startup")

    def test_output_file_records_the_stream(self):
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "gr-rdma-rx-qa-%d.sc16" % os.getpid())
        try:
            # Paced by the consumer: the file holds every sample, however busy the
            # machine is.
            proc = self.run_app("--args", "type=emu,signal=ramp,emu_pace=consumer",
                                "--rate", "1e6", "--samples", "100000",
                                "--format", "sc16", "--output", path, "--json")
            self.assertEqual(proc.returncode, 0, proc.stderr)
            with open(path, "rb") as f:
                data = f.read()
            self.assertEqual(len(data), 400000)
            import numpy as np
            words = np.frombuffer(data, dtype=np.uint32)
            np.testing.assert_array_equal(words, np.arange(100000, dtype=np.uint32))
        finally:
            if os.path.exists(path):
                os.unlink(path)

    def test_default_format_is_the_blocks(self):
        # rx_source's default is fc32: the app's too, so a file recorded with the
        # defaults reads like the block's output.
        proc = self.run_app("--samples", "1000", "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(json.loads(proc.stdout)["format"], "fc32")

    def start_server(self, *args, stderr=subprocess.PIPE):
        # A second of silence from the device is load on a shared CI machine here,
        # not the subject: device_timeout=5.
        return subprocess.Popen([APP, "--args", "type=emu,signal=ramp,device_timeout=5",
                                 "--format", "sc16", "--rate", "1e6", *args],
                                stdout=subprocess.PIPE,
                                stderr=stderr, text=True)

    def test_continuous_until_sigterm(self):
        # No --duration: it runs until told to stop (long past the old 3 s default),
        # then prints the report and exits 0 as the books balance.
        proc = self.start_server("--json")
        try:
            time.sleep(5)
            self.assertIsNone(proc.poll(), "a continuous run ended by itself")
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        self.assertEqual(proc.returncode, 0, err)
        report = json.loads(out)
        self.assertTrue(report["continuous"])
        self.assertIsNone(report["samples_requested"])
        self.assertEqual(report["interrupted"], "SIGTERM")
        self.assertTrue(report["identity_holds"])
        self.assertIsNone(report["failure"])
        self.assertGreater(report["samples_delivered"], 2e6)  # 5 s at 1 MS/s, less start-up

    def test_duration_0_is_continuous(self):
        proc = self.start_server("--duration", "0", "--json")
        try:
            time.sleep(3)
            self.assertIsNone(proc.poll())
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(json.loads(out)["interrupted"], "SIGINT")

    def test_status_lines_at_the_interval(self):
        proc = self.start_server("--status", "--progress-interval", "0.5", "--json")
        try:
            time.sleep(3.4)
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        self.assertEqual(proc.returncode, 0, err)
        lines = [json.loads(line) for line in out.splitlines()]
        status, final = lines[:-1], lines[-1]
        self.assertEqual(final["kind"], "report")
        # ~6 intervals in 3.4 s, less the start-up before the first.
        self.assertGreaterEqual(len(status), 4)
        self.assertLessEqual(len(status), 7)
        for line in status:
            self.assertEqual(line["kind"], "status")
            for key in ("time", "elapsed_s", "items", "samples_delivered",
                        "samples_lost", "gaps", "overruns", "rate_achieved", "ring_fill",
                        "error"):
                self.assertIn(key, line)
        gaps = [b["elapsed_s"] - a["elapsed_s"] for a, b in zip(status, status[1:])]
        for gap in gaps:
            self.assertAlmostEqual(gap, 0.5, delta=0.2)
        self.assertGreater(status[-1]["rate_achieved"], 0.8e6)
        self.assertLessEqual(status[-1]["samples_delivered"], final["samples_delivered"])
        # Not a terminal: no progress lines on stderr.
        self.assertNotIn("MS/s", err)

    def test_progress_on_a_terminal(self):
        # stderr a pty: a progress line per interval; --quiet: none.
        for quiet, expect in ((False, True), (True, False)):
            master, slave = pty.openpty()
            extra = ["--quiet"] if quiet else []
            proc = self.start_server("--progress-interval", "0.5", *extra, stderr=slave)
            os.close(slave)
            seen = b""
            try:
                deadline = time.monotonic() + 3
                while time.monotonic() < deadline:
                    ready, _, _ = select.select([master], [], [], 0.1)
                    if ready:
                        try:
                            seen += os.read(master, 65536)
                        except OSError:
                            break
                proc.send_signal(signal.SIGINT)
                proc.communicate(timeout=20)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.communicate()
                os.close(master)
            text = seen.decode(errors="replace")
            lines = [l for l in text.splitlines() if "MS/s" in l and "delivered" in l]
            if expect:
                self.assertGreaterEqual(len(lines), 2, text)
                self.assertIn("ring", lines[-1])
                self.assertIn("lost", lines[-1])
            else:
                self.assertEqual(lines, [], text)
            self.assertEqual(proc.returncode, 0)

    def test_addr_host_names(self):
        emu = os.environ.get("GR_RDMA_EMU", "gr-rdma-emu")
        # A second of FIFO and a ring to match: a busy machine makes it late, not lossy.
        daemon = subprocess.Popen([emu, "--control", "127.0.0.1:0", "--fifo-ms", "1000"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            banner = daemon.stdout.readline()
            port = int(banner.split("127.0.0.1:")[1].split()[0].rstrip(",;:"))
            proc = self.run_app("--args", "type=remote,addr=localhost:%d,latency=2.1" % port,
                                "--samples", "100000", "--json")
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertEqual(json.loads(proc.stdout)["samples_delivered"], 100000)
        finally:
            daemon.terminate()
            daemon.wait(timeout=10)
        proc = self.run_app("--args", "type=remote,addr=nonexistent.invalid",
                            "--samples", "1000")
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        last = proc.stderr.strip().splitlines()[-1]
        self.assertIn("addr=nonexistent.invalid is invalid", last)
        self.assertIn("expected", last)
        self.assertIn("'nonexistent.invalid' does not resolve", last)


if __name__ == '__main__':
    gr_unittest.run(qa_gr_rdma_rx)
