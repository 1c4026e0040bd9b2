#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""tx_stream's queued mode from Python (docs/transmit.md, "Bursts and time"): bursts
begun and ended at the commit position, played by the emulator from its TX burst
queue at their device times, the ramp (item value = item index) checked on every
sample it plays; the reports from its TX records."""

import time

import numpy as np

from gnuradio import gr_unittest
from gnuradio import rdma

RATE = 250000
ITEM_NS = 4000
ARGS = "type=emu,tx_check=1,hugepages=off,latency=0.05,min_lead=0.01"
# The converter waits for each piece instead of playing it late (a test mode,
# docs/device-args.md): what plays when does not depend on how busy the machine is.
PACED = ARGS + ",emu_pace=consumer"


def ramp_sc16(first, n):
    k = np.arange(first, first + n, dtype=np.uint64)
    return (k & 0xFFFFFFFF).astype("<u4").view("<i2").reshape(-1, 2)


class qa_tx_stream_bursts(gr_unittest.TestCase):

    def write(self, t, n):
        """The ramp, n items in place at the commit position."""
        done = 0
        while done < n:
            x = t.wait_space(1, 2.0)
            self.assertGreater(len(x), 0, t.error())
            k = min(len(x), n - done)
            x[:k] = ramp_sc16(t.committed(), k)
            t.commit(k)
            done += k

    def test_bursts_at_device_times_to_the_sample(self):
        t = rdma.tx_stream(PACED, "sc16", RATE, rdma.tx_stream.queued)
        self.assertTrue(t.is_queued())
        t.start()
        t0 = t.start_time_ns()
        self.assertGreater(t0, 0)
        # Two bursts on the run's grid, 40 ms apart, one as soon as possible after the
        # second (seamless), and one whose time has passed: the second's, which the
        # device played before (a time passed on a paced device's timeline too, which
        # stands still while it waits for a piece).
        a, b = t0 + 10000 * ITEM_NS, t0 + 20000 * ITEM_NS
        t.begin_burst(a)
        self.assertTrue(t.in_burst())
        self.write(t, 3000)
        t.end_burst()
        self.assertFalse(t.in_burst())
        t.begin_burst(b)
        self.write(t, 1000)
        t.end_burst()
        self.write(t, 500)  # outside a burst: one as soon as possible
        t.end_burst()
        past = b
        t.begin_burst(past)
        self.write(t, 700)
        t.end_burst()
        t.begin_burst(0)
        t.end_burst()  # a burst without items: none
        self.assertTrue(t.wait_played(3.0))
        t.stop()
        c = t.counts()
        self.assertTrue(c["identity_holds"], str(c))
        self.assertEqual((c["played"], c["dropped"], c["late"]), (4500, 700, 0), str(c))
        self.assertEqual((c["bursts_done"], c["time_errors"]), (3, 1))
        self.assertEqual(c["underflow"], 0)
        self.assertGreater(c["idle"], 20000 - 3000)
        self.assertEqual(t.read_counters()["device.check_mismatches"], 0)
        events = t.events()
        acks = [e for e in events if e["type"] == "burst_ack" and not e["unattributed"]]
        self.assertEqual(acks[0]["time_ns"], a + 3000 * ITEM_NS)
        self.assertEqual((acks[0]["item"], acks[0]["count"]), (3000, 3000))
        self.assertEqual(acks[1]["time_ns"], b + 1000 * ITEM_NS)
        self.assertEqual(acks[1]["item"], 4000)
        errors = [e for e in events if e["type"] == "time_error"]
        self.assertEqual([(e["item"], e["count"], e["time_ns"]) for e in errors],
                         [(4500, 700, past)], str((events, t.read_counters())))
        self.assertEqual(sum(e["bursts"] for e in events if e["type"] == "burst_ack"), 3)

    def test_burst_marks_need_queued_mode(self):
        t = rdma.tx_stream(ARGS, "sc16", RATE)
        self.assertFalse(t.is_queued())
        with self.assertRaisesRegex(RuntimeError, "queued mode"):
            t.begin_burst(0)
        with self.assertRaisesRegex(RuntimeError, "queued mode"):
            t.end_burst()
        # queued_if_able: the emulator has TX bursts.
        self.assertTrue(rdma.tx_stream(ARGS, "sc16", RATE,
                                       rdma.tx_stream.queued_if_able).is_queued())

    def test_a_queue_full_for_long_ends_the_stream_naming_the_cause(self):
        # Bursts timed 10 s ahead: the device takes none up before then, its queue
        # (16 entries) fills, and the next boundary waits burst_patience, then ends
        # the stream with the cause.
        t = rdma.tx_stream(ARGS, "sc16", RATE, rdma.tx_stream.queued)
        t.start()
        ahead = t.device_time_now() + 10 * 10**9
        for i in range(9):
            t.begin_burst(ahead + i * 10**7)
            self.write(t, 10)
            t.end_burst()
        self.assertEqual(t.error(), "")
        began = time.monotonic()
        x = t.wait_space(t.ring_items(), rdma.tx_stream.burst_patience + 2)
        self.assertEqual(len(x), 0)
        self.assertGreaterEqual(time.monotonic() - began,
                                rdma.tx_stream.burst_patience - 0.2)
        self.assertIn("TX burst queue stayed full", t.error())
        self.assertIn("timed far ahead", t.error())
        self.assertIn("stream_failed", [e["type"] for e in t.events()])
        t.stop()
        c = t.counts()
        self.assertTrue(c["identity_holds"], str(c))  # the 90 items, not played

    def test_lost_read_responses_are_seq_errors(self):
        # The device discards 2 % of the READ RESPONSE packets and reads again: each
        # time a seq_error report (the item read again, the packets found missing).
        t = rdma.tx_stream(ARGS + ",tx_loss_ppm=20000,tx_fault_seed=5", "sc16", RATE,
                           rdma.tx_stream.queued)
        t.start()
        self.write(t, 30000)
        t.end_burst()
        self.assertTrue(t.wait_played(3.0))
        t.stop()
        c = t.counts()
        self.assertTrue(c["identity_holds"], str(c))
        self.assertGreater(c["rereads"], 0)
        events = t.events()
        seq = [e for e in events if e["type"] == "seq_error"]
        self.assertTrue(seq)
        self.assertTrue(all(e["count"] > 0 and e["item"] < 30000 for e in seq))
        self.assertEqual(sum(e["count"] for e in events if e["type"] == "late"), c["late"])
        self.assertEqual(c["played"] + c["late"], 30000)


if __name__ == '__main__':
    gr_unittest.run(qa_tx_stream_bursts)
