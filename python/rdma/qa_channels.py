#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""Channels in step: one rx_source with several outputs, RX streams of one device,
started at one device time; the streams of one device share its metadata channel."""

import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import rdma

RATE = 5e6
# Timestamps every 20 ms: the default 0.1 s would fall on the last sample of a 0.1 s
# run, and the test asks that each stream used some. Each stream paced by its consumer
# (a test mode, docs/device-args.md): bit-exact however busy the machine is.
ARGS = "type=emu,signal=ramp,latency=0.1,metadata_interval=0.02,emu_pace=consumer"


def rx_time_ns(tag):
    secs = pmt.to_uint64(pmt.tuple_ref(tag.value, 0))
    frac = pmt.to_double(pmt.tuple_ref(tag.value, 1))
    return secs * 1000000000 + round(frac * 1e9)


class qa_channels(gr_unittest.TestCase):

    def run_channels(self, n, items, start_in_s=None, args=ARGS):
        tb = gr.top_block()
        src = rdma.rx_source(args, "sc16", RATE, items, n)
        self.assertEqual(src.num_channels(), n)
        start = 0
        if start_in_s is not None:
            start = src.get_time_now() + int(start_in_s * 1e9)
            src.set_start_time(start)
        checks, tags = [], []
        for c in range(n):
            check = rdma.ramp_check("sc16", src.ring_base(c), 2 * src.ring_bytes())
            tag = blocks.tag_debug(4, "chan%d" % c)
            tag.set_display(False)
            tag.set_save_all(True)
            tb.connect((src, c), check)
            tb.connect((src, c), tag)
            checks.append(check)
            tags.append(tag)
        tb.run()
        return src, checks, tags, start

    def test_two_channels_start_in_step_at_a_device_time(self):
        src, checks, tags, start = self.run_channels(2, 500000, start_in_s=0.3)
        times = []
        for c in range(2):
            self.assertEqual(checks[c].items_checked(), 500000, "channel %d" % c)
            self.assertEqual(checks[c].mismatches(), 0, "channel %d" % c)
            self.assertEqual(checks[c].out_of_range_calls(), 0, "channel %d" % c)
            first = [t for t in tags[c].current_tags()
                     if pmt.symbol_to_string(t.key) == "rx_time" and t.offset == 0]
            self.assertEqual(len(first), 1, "channel %d: rx_time of item 0" % c)
            times.append(rx_time_ns(first[0]))
        # rx_time of item 0 is the start time asked, on both (to the tag's precision:
        # seconds and a double fraction).
        for c in range(2):
            self.assertLess(abs(times[c] - start), 1000, "channel %d" % c)
        self.assertEqual(times[0], times[1])
        # Two RX streams of one device, each with its own books and its own records of
        # the device's one metadata channel.
        self.assertNotEqual(src.ring_base(0), src.ring_base(1))
        for c in range(2):
            counters = src.read_counters(c)
            self.assertEqual(counters["device.samples_emitted"], 500000)
            self.assertEqual(counters["host.delivered"] + counters["host.lost"], 500000)
            self.assertEqual(counters["metadata.t0_mismatch"], 0, "channel %d" % c)
            self.assertEqual(counters["metadata.rejected"], 0, "channel %d" % c)
            self.assertGreater(counters["metadata.timestamps"], 0, "channel %d" % c)
            self.assertEqual(counters["metadata.port"], src.read_counters(0)["metadata.port"])

    def test_channels_without_a_start_time_are_in_step(self):
        src, checks, tags, _ = self.run_channels(3, 200000, args=ARGS + ",stream=1")
        first = []
        for c in range(3):
            self.assertEqual(checks[c].mismatches(), 0)
            t = [t for t in tags[c].current_tags()
                 if pmt.symbol_to_string(t.key) == "rx_time" and t.offset == 0]
            first.append(rx_time_ns(t[0]))
        self.assertEqual(len(set(first)), 1, "rx_time of item 0: %s" % first)

    def test_bad_channel_counts_name_the_fix(self):
        with self.assertRaisesRegex(ValueError, "num_channels=0 is out of range 1..16"):
            rdma.rx_source(ARGS, "sc16", RATE, 0, 0)
        with self.assertRaisesRegex(ValueError, "stream=15 with 2 channels"):
            rdma.rx_source(ARGS + ",stream=15", "sc16", RATE, 0, 2)
        # The emulator in this process has 4 RX streams unless streams= says more.
        with self.assertRaisesRegex(ValueError, "streams=<count>"):
            rdma.rx_source(ARGS, "sc16", RATE, 0, 5)
        src = rdma.rx_source(ARGS + ",streams=5", "sc16", RATE, 0, 5)
        self.assertEqual(src.num_channels(), 5)
        with self.assertRaisesRegex(ValueError, "channel 5 does not exist"):
            src.read_counters(5)


if __name__ == '__main__':
    gr_unittest.run(qa_channels)
