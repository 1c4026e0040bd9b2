#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""A device that fails the host: the emulator daemon killed, frozen (SIGSTOP), or
restarted mid-stream, under a receive or a transmit stream. No crash, no hang; the loss is reported within a second, once;
the books balance, or the report says which counter could not be read and why."""

import json
import os
import signal
import socket
import subprocess
import threading
import time

import numpy as np
from gnuradio import blocks, gr, gr_unittest
from gnuradio import rdma

EMU = os.environ.get("GR_RDMA_EMU", "gr-rdma-emu")
RX = os.environ.get("GR_RDMA_RX", "gr-rdma-rx")
TX = os.environ.get("GR_RDMA_TX", "gr-rdma-tx")


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class daemon:
    """gr-rdma-emu on loopback, on the port given (so that a restart is the same
    device to the host)."""

    def __init__(self, port, links=1):
        self.port = port
        self.proc = subprocess.Popen(
            [EMU, "--control", "127.0.0.1:%d" % port, "--link", "127.0.0.1",
             "--links", str(links)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        banner = self.proc.stdout.readline()  # once its AXIoE server listens
        assert "AXIoE on" in banner, banner

    def kill(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)  # a stopped process dies on CONT
            self.proc.kill()
        self.proc.wait()


def ramp_sc16(first, n):
    return (np.arange(first, first + n, dtype=np.uint64) & 0xFFFFFFFF).astype(np.uint32)


class qa_device_loss(gr_unittest.TestCase):

    def setUp(self):
        self.port = free_udp_port()
        self.dev = daemon(self.port)

    def tearDown(self):
        self.dev.kill()

    def stream(self, extra=""):
        args = ("type=remote,addr=127.0.0.1:%d,signal=ramp,hugepages=off,latency=0.2%s"
                % (self.port, extra))
        return rdma.rx_stream(args, "sc16", 2e6, 0)

    @staticmethod
    def drain(s, seconds, until=None):
        """Consume for up to `seconds` (or until `until(s, events)`); returns the
        events and the host time each first appeared."""
        events = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            x = s.recv(1 << 16, 0.02)
            s.release(len(x))
            for e in s.events():
                e["seen"] = time.monotonic()
                events.append(e)
            if until and until(s, events):
                break
        return events

    @staticmethod
    def check_ramp_after(s, item, first, want_items=200000):
        """Consume up to want_items from the stream's item `item` on (5 s at most),
        each the ramp from `first` on (a lost one reads 0); returns (items, mismatches)."""
        got = mismatches = 0
        deadline = time.monotonic() + 5
        while got < want_items and time.monotonic() < deadline:
            x = s.recv(1 << 16, 0.05)
            if len(x) and s.first_item >= item:
                want = ramp_sc16(first + s.first_item - item, len(x))
                data = np.frombuffer(x, dtype=np.uint32)
                mismatches += int(np.count_nonzero((data != want) & (data != 0)))
                got += len(x)
            s.release(len(x))
        return got, mismatches

    def finish_rearmed(self, s, item, first):
        """A re-armed stream from its item `item` on: the ramp from `first`, whole and
        without gaps; then stopped, without error, re-armed once. Its counters."""
        got, mismatches = self.check_ramp_after(s, item, first)
        gaps = [e for e in s.events() if e["type"] == "gap"]
        s.stop()
        self.assertEqual(s.error(), "")
        self.assertGreaterEqual(got, 200000)
        self.assertEqual(mismatches, 0)
        self.assertEqual(gaps, [])
        c = s.read_counters()
        self.assertEqual(c["host.rearms"], 1)
        return c

    @staticmethod
    def causes(events):
        return [e["cause"] for e in events if e["type"] == "device"]

    def test_killed_device_ends_the_run_within_a_second(self):
        s = self.stream()
        s.start()
        self.drain(s, 0.5)
        killed = time.monotonic()
        self.dev.kill()
        events = self.drain(s, 5, lambda s, ev: bool(s.error()))
        self.assertIn("has not answered", s.error())
        self.assertIn("on_device_loss=end", s.error())
        lost = [e for e in events if e["cause"] == "device_lost"]
        self.assertEqual(len(lost), 1, events)  # one report for the outage
        self.assertLessEqual(lost[0]["seen"] - killed, 1.0)
        self.assertTrue(s.end_of_stream)
        # stop() neither throws nor hangs; it says why the counters are unknown.
        t = time.monotonic()
        s.stop()
        self.assertLess(time.monotonic() - t, 3.0)
        self.assertIn("STOP failed", s.device_note())
        c = s.read_counters()
        self.assertEqual(c["device.counters_known"], 0)
        self.assertNotIn("device.samples_emitted", c)

    def test_frozen_device_with_wait_resumes_and_the_books_balance(self):
        s = self.stream(",on_device_loss=wait")
        s.start()
        self.drain(s, 0.5)
        stopped = time.monotonic()
        os.kill(self.dev.proc.pid, signal.SIGSTOP)
        events = self.drain(s, 2.0)
        os.kill(self.dev.proc.pid, signal.SIGCONT)
        events += self.drain(s, 3.0, lambda s, ev: "device_back" in self.causes(ev))
        events += self.drain(s, 0.5)
        s.stop()
        self.assertEqual(s.error(), "")
        causes = self.causes(events)
        self.assertEqual(causes.count("device_lost"), 1, causes)
        self.assertEqual(causes.count("device_back"), 1, causes)
        lost = [e for e in events if e["cause"] == "device_lost"][0]
        self.assertLessEqual(lost["seen"] - stopped, 1.0)
        # The device's run went on: its final count is known and every sample of it
        # is delivered or reported lost.
        self.assertEqual(s.device_note(), "")
        c = s.read_counters()
        self.assertEqual(c["device.samples_emitted"], c["host.delivered"] + c["host.lost"],
                         {k: v for k, v in c.items() if k.startswith(("host.", "device."))})
        self.assertGreater(c["host.lost"], 0)  # 2 s of a 0.2 s ring cannot all arrive

    def test_restarted_device_with_wait_is_rearmed(self):
        s = self.stream(",on_device_loss=wait")
        s.start()
        self.drain(s, 0.5)
        self.dev.kill()
        events = self.drain(s, 1.0)
        self.dev = daemon(self.port)  # the same address: the same device, restarted
        events += self.drain(s, 5.0, lambda s, ev: "device_outage" in self.causes(ev))
        outage = [e for e in events if e["cause"] == "device_outage"]
        self.assertEqual(len(outage), 1, self.causes(events))
        base = outage[0]["value"]  # where the new run's sample 0 is in this stream
        self.assertEqual(base % s.ring_items(), 0)
        self.assertGreater(outage[0]["count"], 0)
        # After the outage the stream goes on: the new run's ramp, from its sample 0,
        # at this stream's item outage["item"] onwards.
        c = self.finish_rearmed(s, outage[0]["item"], 0)
        self.assertEqual(c["host.outage_items"], outage[0]["count"])
        self.assertIn("restarted", s.device_note())

    def test_restarted_device_with_end_leaves_the_counters_unknown(self):
        # on_device_loss=end, the daemon killed and at once restarted on its port: the
        # run ends (the device lost, or the stream found stopped), and its STOP reaches
        # the new device, whose counters (emitted 0) are not this run's. Before, they
        # were taken for its books: "emitted 0 != delivered + lost", the identity false.
        s = self.stream()
        s.start()
        self.drain(s, 0.5)
        self.dev.kill()
        self.dev = daemon(self.port)  # the same address: the same device, restarted
        self.drain(s, 5, lambda s, ev: bool(s.error()))
        self.assertNotEqual(s.error(), "")
        s.stop()
        self.assertIn("restarted during the run", s.device_note())
        c = s.read_counters()
        self.assertEqual(c["device.counters_known"], 0)
        self.assertNotIn("device.samples_emitted", c)

    def test_restarted_device_with_wait_is_rearmed_over_two_links(self):
        # A stream over two links re-armed: the new run continues the stream's message
        # numbers (RX_FIRST_MESSAGE with LINKS_CONTINUE) from a window boundary (not
        # a ring boundary: its messages land in their own slots), its schedule over
        # both links from there; the ramp goes on from that item, and the outage's
        # messages count for no link.
        self.dev.kill()
        self.dev = daemon(self.port, links=2)
        s = self.stream(",on_device_loss=wait,links=2,weights=1:1,notify=16")
        s.start()
        self.drain(s, 0.5)
        self.dev.kill()
        events = self.drain(s, 1.0)
        self.dev = daemon(self.port, links=2)  # the same device, restarted
        events += self.drain(s, 5.0, lambda s, ev: "device_outage" in self.causes(ev))
        self.assertEqual(s.error(), "")
        outage = [e for e in events if e["cause"] == "device_outage"]
        self.assertEqual(len(outage), 1, self.causes(events))
        base = outage[0]["value"]
        P = s.payload_bytes() // 4
        self.assertEqual(base % (16 * P), 0)
        before = s.read_counters()
        c = self.finish_rearmed(s, outage[0]["item"], base)
        # Both links carry the new run, half each, and lose nothing of it.
        new0 = c["host.link0.messages"] - before["host.link0.messages"]
        new1 = c["host.link1.messages"] - before["host.link1.messages"]
        self.assertGreater(new0, 0)
        self.assertLessEqual(abs(new0 - new1), 1,
                             {k: v for k, v in c.items() if k.startswith("host.")})
        for n in (0, 1):
            self.assertGreater(c["host.link%d.frontier" % n], base // P)
        self.assertEqual(c["host.link0.lost_samples"] + c["host.link1.lost_samples"],
                         before["host.link0.lost_samples"] +
                         before["host.link1.lost_samples"])
        # The outage's messages, sent by no run: no link's.
        self.assertGreaterEqual(c["host.links_unattributed_messages"] * P,
                                outage[0]["count"] - P)

    def test_rx_source_ends_when_the_device_restarts(self):
        # rx_source cannot skip to the ring boundary a re-armed run starts at (its
        # output buffer is the ring): the run ends with an error that says so, the
        # flowgraph ends, nothing crashes.
        args = ("type=remote,addr=127.0.0.1:%d,signal=ramp,hugepages=off,latency=0.2,"
                "on_device_loss=wait" % self.port)
        tb = gr.top_block()
        src = rdma.rx_source(args, "sc16", 2e6, 0)
        sink = blocks.null_sink(4)
        tb.connect(src, sink)
        tb.start()
        time.sleep(0.5)
        self.dev.kill()
        time.sleep(1.0)
        self.dev = daemon(self.port)  # the same address: the same device, restarted
        ended = threading.Event()
        threading.Thread(target=lambda: (tb.wait(), ended.set()), daemon=True).start()
        self.assertTrue(ended.wait(10), "the flowgraph did not end")
        tb.stop()
        self.assertIn("rx_source cannot re-arm it", src.error())
        self.assertIn("restart the flowgraph", src.error())

    def test_gr_rdma_rx_reports_a_lost_device_and_fails(self):
        rx = subprocess.Popen([RX, "--args", "type=remote,addr=127.0.0.1:%d" % self.port,
                               "--rate", "2e6", "--duration", "20", "--json"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        killed = time.monotonic()
        self.dev.kill()
        out, err = rx.communicate(timeout=20)
        self.assertLess(time.monotonic() - killed, 5.0)
        self.assertEqual(rx.returncode, 1, err)
        self.assertNotIn("Traceback", err)
        report = json.loads(out)
        self.assertIn("has not answered", report["error"])
        self.assertIsNone(report["identity_holds"])
        self.assertIn("STOP failed", report["identity_unknown_because"])
        self.assertEqual([e["cause"] for e in report["device_events"]], ["device_lost"])

    # Transmit: a device that dies under a TX stream is known as soon as under an RX
    # stream (device_timeout, 0.5 s, past the AXIoE client's last retry); it once ran on,
    # silent, until the producer gave up.

    def tx(self):
        return rdma.tx_stream("type=remote,addr=127.0.0.1:%d,hugepages=off,latency=0.2"
                              % self.port, "sc16", 1e6)

    @staticmethod
    def produce(t, seconds, until=None):
        """Commit whatever space there is for up to `seconds` (or until `until(t)`);
        returns the reports and the host time each first appeared."""
        events = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            x = t.wait_space(1, 0.02)
            if len(x):
                t.commit(len(x))
            for e in t.events():
                e["seen"] = time.monotonic()
                events.append(e)
            if until and until(t):
                break
        return events

    def test_tx_stream_ends_within_a_second_of_a_killed_device(self):
        t = self.tx()
        t.start()
        self.produce(t, 0.5)
        self.assertEqual(t.error(), "")
        killed = time.monotonic()
        self.dev.kill()
        events = self.produce(t, 5, lambda t: bool(t.error()))
        self.assertIn("has not answered", t.error())
        lost = [e for e in events if e["type"] == "device_lost"]
        self.assertEqual(len(lost), 1, events)  # one report
        self.assertLessEqual(lost[0]["seen"] - killed, 1.0)
        self.assertGreaterEqual(lost[0]["value"], 500)  # ms silent: device_timeout
        # stop() neither throws nor hangs; the final counters are unknown, and said so.
        began = time.monotonic()
        t.stop()
        self.assertLess(time.monotonic() - began, 3.0)
        self.assertFalse(t.counts()["final"])

    def test_tx_stream_with_a_device_that_answers_is_not_lost(self):
        # The same run, the device alive: no report of loss after many timeouts' worth.
        t = self.tx()
        t.start()
        events = self.produce(t, 2.0)
        self.assertEqual(t.error(), "")
        self.assertEqual([e for e in events if e["type"] == "device_lost"], [])
        t.stop()
        self.assertTrue(t.counts()["final"])

    def test_tx_sink_flowgraph_ends_when_the_device_is_killed(self):
        # An endless source: only the sink can end the flowgraph.
        tb = gr.top_block()
        src = blocks.null_source(gr.sizeof_gr_complex)
        snk = rdma.tx_sink("type=remote,addr=127.0.0.1:%d,hugepages=off,latency=0.2"
                           % self.port, "fc32", 1e6)
        tb.connect(src, snk)
        tb.start()
        time.sleep(0.5)
        killed = time.monotonic()
        self.dev.kill()
        ended = threading.Event()
        threading.Thread(target=lambda: (tb.wait(), ended.set()), daemon=True).start()
        finished = ended.wait(10)
        if not finished:
            tb.stop()
            ended.wait(10)
        self.assertTrue(finished, "the flowgraph ran on after its device died")
        self.assertLess(time.monotonic() - killed, 5.0)
        self.assertIn("has not answered", snk.error())

    def test_gr_rdma_tx_reports_a_lost_device_and_fails(self):
        tx = subprocess.Popen([TX, "--args", "type=remote,addr=127.0.0.1:%d" % self.port,
                               "--format", "sc16", "--rate", "1e6", "--json"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        killed = time.monotonic()
        self.dev.kill()
        out, err = tx.communicate(timeout=20)
        self.assertLess(time.monotonic() - killed, 5.0)
        self.assertEqual(tx.returncode, 1, err)
        report = json.loads(out)
        self.assertIn("has not answered", report["error"])
        self.assertEqual(report["failure"], report["error"])


if __name__ == '__main__':
    gr_unittest.run(qa_device_loss)
