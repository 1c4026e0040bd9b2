#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""tx_stream from Python without a flowgraph: samples written in place into the TX
ring (numpy views of its free space), fetched by the emulator's TX engine by RDMA READ
over the soft NIC, checked against the ramp on the device (EMU_TX_CHECK)."""

import time

import numpy as np

from gnuradio import gr_unittest
from gnuradio import rdma

# A small ring (4 KiB pages, 20 ms budget), so that a short run wraps it many times.
ARGS = "type=emu,tx_check=1,hugepages=off,latency=0.02"
# The converter waits for each piece instead of playing it late (a test mode,
# docs/device-args.md): the tests of contents do not depend on how busy the machine is.
PACED = ARGS + ",emu_pace=consumer"


def ramp_sc16(first, n):
    k = np.arange(first, first + n, dtype=np.uint64)
    return np.stack([(k & 0xFFFF).astype(np.uint16).view(np.int16),
                     ((k >> 16) & 0xFFFF).astype(np.uint16).view(np.int16)], axis=1)


def ramp_fc32(first, n):
    k = np.arange(first, first + n, dtype=np.uint64)
    return ((k & 0xFFFFFF).astype(np.float32) + 0j).astype(np.complex64)


RAMPS = {"sc16": ramp_sc16, "fc32": ramp_fc32}


def wait_for(condition, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


class qa_tx_stream(gr_unittest.TestCase):

    def assert_in_ring(self, t, x):
        base, span = t.ring_base(), 2 * t.ring_bytes()
        address = x.__array_interface__["data"][0]
        self.assertTrue(base <= address and address + x.nbytes <= base + span,
                        "the view is not inside the registered ring")
        self.assertTrue(x.flags.writeable)

    def fill(self, t, fmt, first, total, timeout=2.0):
        """Write the ramp from item first up to item total in place; returns the item
        reached."""
        done = first
        while done < total:
            x = t.wait_space(1, timeout)
            if len(x) == 0:
                break
            self.assert_in_ring(t, x)
            n = min(len(x), total - done)
            x[:n] = RAMPS[fmt](done, n)
            t.commit(n)
            done += n
        return done

    def check_reports(self, t, c):
        """The reports add up to the device's counters, to the sample."""
        events = t.events()
        underflow = sum(e["count"] for e in events if e["type"] == "underflow")
        late = sum(e["count"] for e in events if e["type"] == "late")
        self.assertEqual(underflow, c["underflow"])
        self.assertEqual(late, c["late"])

    def ramp_over_wraps(self, fmt):
        t = rdma.tx_stream(PACED, fmt, 1e6)
        N = t.ring_items()
        total = 12 * N
        # Primed before START: the converter has samples from its first tick.
        self.assertEqual(self.fill(t, fmt, 0, N), N)
        t.start()
        self.assertEqual(self.fill(t, fmt, N, total), total)
        self.assertTrue(t.wait_fetched(2.0), "the device did not fetch everything")
        self.assertEqual(t.fetched(), total)
        # Let the converter play what it fetched, then stop.
        self.assertTrue(t.wait_played(2.0), "the device did not play everything")
        self.assertGreaterEqual(t.counts()["played"] + t.counts()["late"], total)
        t.stop()
        c = t.counts()
        counters = t.read_counters()
        self.assertTrue(c["final"])
        self.assertEqual(c["host_committed"], total)
        self.assertTrue(c["identity_holds"], str(c))
        self.assertEqual(c["played"] + c["late"] + c["not_played"], total)
        self.assertEqual(counters["device.check_mismatches"], 0)
        self.assertEqual(counters["device.check_samples"], c["played"])
        self.assertGreaterEqual(c["played"], 10 * N, str(c))
        self.assertEqual(counters["host.implausible_fetch"], 0)
        # The device fetched every message but those it gave up as late.
        self.assertGreaterEqual(counters["device.samples_fetched"], total - c["late"])
        self.assertGreater(t.max_reads(), 0)
        self.check_reports(t, c)

    def test_ramp_bit_exact_over_ten_wraps_sc16(self):
        self.ramp_over_wraps("sc16")

    def test_ramp_bit_exact_over_ten_wraps_fc32(self):
        self.ramp_over_wraps("fc32")

    def test_producer_that_stops_underflows_exactly(self):
        rate = 1e6
        t = rdma.tx_stream(ARGS, "sc16", rate)
        N = t.ring_items()
        given = N // 2
        self.assertEqual(self.fill(t, "sc16", 0, given), given)
        t.start()
        # Nothing more: once the given samples are played, the converter runs dry.
        self.assertTrue(wait_for(lambda: t.counts()["underflow"] > rate * 0.1, 5.0),
                        "no underflow reported: " + str(t.counts()))
        t.stop()
        c = t.counts()
        self.assertTrue(c["final"])
        self.assertTrue(c["identity_holds"], str(c))
        self.assertEqual(c["played"] + c["late"], given)  # all played before STOP
        self.assertEqual(c["not_played"], 0)
        self.assertGreater(c["underflow"], rate * 0.1)
        self.check_reports(t, c)
        self.assertEqual(t.read_counters()["device.check_mismatches"], 0)

    def test_paced_device_waits_for_a_slow_producer(self):
        # emu_pace=consumer (a test mode, docs/device-args.md): a producer that pauses
        # 20 ms after every third chunk would starve a real-time converter; a paced one
        # waits for it, so that every sample plays, none late, no underflow.
        t = rdma.tx_stream(PACED, "sc16", 1e6)
        total = 12 * t.ring_items()
        t.start()
        done, chunks = 0, 0
        while done < total:
            x = t.wait_space(1, 2.0)
            self.assertGreater(len(x), 0, "no room within 2 s")
            n = min(len(x), total - done, 4096)
            x[:n] = ramp_sc16(done, n)
            t.commit(n)
            done += n
            chunks += 1
            if chunks % 3 == 0:
                time.sleep(0.02)
        self.assertTrue(t.wait_fetched(5.0), "the device did not fetch everything")
        self.assertTrue(t.wait_played(5.0), "the device did not play everything")
        t.stop()
        c = t.counts()
        counters = t.read_counters()
        self.assertTrue(c["identity_holds"], str(c))
        self.assertEqual((c["played"], c["late"], c["underflow"], c["not_played"]),
                         (total, 0, 0, 0), str(c))
        self.assertEqual(counters["device.check_mismatches"], 0)
        self.assertEqual(counters["device.check_samples"], total)

    def test_stop_with_samples_pending(self):
        # STOP while most of a primed ring is still to play: what was committed and not
        # played is counted not_played, to the sample.
        # Half a second of samples: STOP comes well before they are all played.
        t = rdma.tx_stream("type=emu,tx_check=1,hugepages=off,latency=0.5", "sc16", 1e6)
        N = t.ring_items()
        self.assertGreaterEqual(N, 500000)
        self.assertEqual(self.fill(t, "sc16", 0, N), N)
        t.start()
        self.assertTrue(wait_for(lambda: t.counts()["played"] > 0, 2.0))
        t.stop()
        c = t.counts()
        self.assertTrue(c["final"])
        self.assertTrue(c["identity_holds"], str(c))
        self.assertGreater(c["not_played"], 0)
        self.assertEqual(c["played"] + c["late"] + c["not_played"], N)
        self.assertEqual(t.read_counters()["device.check_mismatches"], 0)

    def test_send_copy(self):
        t = rdma.tx_stream(ARGS, "fc32", 1e6)
        n = 3 * t.ring_items()
        t.start()
        sent = t.send_copy(ramp_fc32(0, n), 5.0)
        self.assertEqual(sent, n)
        self.assertTrue(t.wait_fetched(2.0))
        t.stop()
        c = t.counts()
        self.assertTrue(c["identity_holds"], str(c))
        self.assertEqual(t.read_counters()["device.check_mismatches"], 0)

    def test_commit_beyond_free_space_is_refused(self):
        t = rdma.tx_stream(ARGS, "sc16", 1e6)
        x = t.wait_space(1, 0.1)
        self.assertEqual(len(x), t.ring_items())
        t.commit(len(x))
        self.assertEqual(len(t.wait_space(1, 0.0)), 0)
        with self.assertRaises(ValueError):
            t.commit(1)

    def test_burst_acknowledged(self):
        # A finite burst: the device acknowledges its end, and plays exactly it.
        n = 50000
        t = rdma.tx_stream(ARGS, "sc16", 1e6, n)
        self.assertEqual(self.fill(t, "sc16", 0, n), n)
        t.start()
        self.assertTrue(wait_for(lambda: any(
            e["type"] == "burst_ack" for e in t.events()), 3.0), "no burst_ack")
        t.stop()
        c = t.counts()
        self.assertEqual(c["played"] + c["late"], n)
        self.assertTrue(c["identity_holds"], str(c))

    def test_start_time_in_the_past_is_a_time_error(self):
        t = rdma.tx_stream(ARGS, "sc16", 1e6)
        past = t.device_time_now() - 1000000000
        with self.assertRaisesRegex(RuntimeError, "refused to start TX stream"):
            t.start_at(past)
        self.assertFalse(t.running())
        events = t.events()
        self.assertEqual([e["type"] for e in events], ["time_error"])
        self.assertEqual(events[0]["time_ns"], past)
        # The stream is usable afterwards: a start time ahead is taken, to the ns.
        ahead = t.device_time_now() + 200000000
        t.start_at(ahead)
        self.assertEqual(t.start_time_ns(), ahead)
        t.stop()

    def test_a_device_whose_reads_go_unanswered_ends_the_stream(self):
        # Every READ RESPONSE lost (tx_loss_ppm=1000000), as when a READ the host did
        # not expect took its queue pair's PSNs: the device gives up after its retry
        # limit (7 go-backs over 2 s) and reports TX_STATUS ERROR; the stream ends on it
        # with a stream_failed report and an error that names it. Before, underflow
        # zeros to the end, and no word.
        t = rdma.tx_stream(ARGS + ",tx_loss_ppm=1000000", "sc16", 1e6)
        t.start()
        began = time.monotonic()
        def fed_until_failed():
            self.fill(t, "sc16", t.committed(), t.committed() + 1000, 0.05)
            return t.error() != ""
        self.assertTrue(wait_for(fed_until_failed, 10.0))
        self.assertGreaterEqual(time.monotonic() - began, 2.0)
        self.assertIn("reports TX stream 0 in error", t.error())
        self.assertIn("READ requester gave up", t.error())
        self.assertIn("stream_failed", [e["type"] for e in t.events()])
        t.stop()  # neither throws nor hangs

    def test_args_are_checked(self):
        with self.assertRaisesRegex(ValueError, "stream=1"):
            rdma.tx_stream("type=emu,stream=1", "sc16", 1e6)  # the emulator has one
        with self.assertRaises(ValueError):
            rdma.tx_stream("type=emu,notify=0", "sc16", 1e6)
        with self.assertRaises(ValueError):
            rdma.tx_stream("type=emu,no_such_key=1", "sc16", 1e6)
        with self.assertRaises(ValueError):
            rdma.tx_stream("type=emu,latency=0.01,max_lead=0.02", "sc16", 1e6)


if __name__ == '__main__':
    gr_unittest.run(qa_tx_stream)
