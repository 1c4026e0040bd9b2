#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""Every sample accounted for: the device's own counters against what the host
reports, gap by gap, under injected loss, with and without notifications, with a
throttled consumer (overruns), and over 10^8 clean samples of each signal, the saturating
ones (what an overdriven radio sends, the old fixed gap marks among them) in both
formats."""

import time

import pmt
from gnuradio import blocks, filter, gr, gr_unittest
from gnuradio import rdma


def merged(ranges):
    """Merge [first, count] ranges that touch."""
    out = []
    for first, count in sorted(ranges):
        if out and out[-1][0] + out[-1][1] == first:
            out[-1][1] += count
        else:
            out.append([first, count])
    return out


class run_result:
    pass


def run(args, fmt="sc16", rate=20e6, samples=int(4e6), throttle=None, check=True):
    """rx_source -> [throttle] -> ramp_check (or null sink); returns what happened."""
    tb = gr.top_block()
    src = rdma.rx_source(args, fmt, rate, samples)
    item = 4 if fmt == "sc16" else 8
    reports = blocks.message_debug()
    tb.msg_connect((src, "async_msgs"), (reports, "store"))
    head = src
    if throttle:
        head = blocks.throttle(item, throttle, True)
        tb.connect(src, head)
    # The checker recomputes whatever signal the args ask the emulator for.
    sink = rdma.ramp_check(fmt, 0, 0, args) if check else blocks.null_sink(item)
    tb.connect(head, sink)
    if check:
        tb.msg_connect((src, "async_msgs"), (sink, "events"))
    tb.run()
    r = run_result()
    r.src, r.sink = src, sink
    r.counters = src.read_counters()
    r.faults = src.read_injected_faults()
    r.events = [pmt.to_python(pmt.cdr(reports.get_message(i)))
                for i in range(reports.num_messages())]
    r.gaps = [[e["device_sample"], e["count"]] for e in r.events if e["type"] == "gap"]
    r.overruns = [e for e in r.events if e["type"] == "overrun"]
    return r


class qa_loss_accounting(gr_unittest.TestCase):

    def assert_identity(self, r, samples):
        c = r.counters
        self.assertEqual(c["device.samples_emitted"], samples)
        self.assertEqual(c["device.samples_emitted"], c["host.delivered"] + c["host.lost"],
                         "emitted != delivered + lost: %s" % {k: v for k, v in c.items()
                                                              if k.startswith("host.")})

    def assert_checked(self, r, samples):
        self.assertEqual(r.sink.items_checked(), samples - r.counters["host.lost_skipped"])
        self.assertEqual(r.sink.unexplained_mismatches(), 0,
                         "first mismatch at item %d" % r.sink.first_mismatch())
        # rx_time names exactly the sample the ramp data carries, after every discontinuity.
        self.assertEqual(r.sink.time_errors(), 0)

    def check_loss(self, loss, burst, notify, samples):
        # Paced by the consumer (a test mode, docs/device-args.md): only the injected
        # loss is lost, however busy the machine is.
        args = ("type=emu,signal=ramp,fault_seed=11,loss=%g,loss_burst=%d,notify=%d,"
                "emu_pace=consumer" % (loss, burst, notify))
        r = run(args, samples=samples)
        self.assert_identity(r, samples)
        self.assert_checked(r, samples)
        drops = merged([[f["first_sample"], f["samples"]] for f in r.faults if f["kind"] == "drop"])
        self.assertGreater(len(drops), 0, "the emulator dropped nothing: the test tests nothing")
        # Every reported gap is an emulator drop, exactly: first sample and count.
        self.assertEqual(merged(r.gaps), drops)
        self.assertEqual(r.counters["host.lost_gap"], sum(c for _, c in drops))
        self.assertEqual(r.counters["host.lost_skipped"] + r.counters["host.lost_overwritten"], 0)
        self.assertEqual(r.sink.gap_items(), r.counters["host.lost_gap"])
        # rx_time on the first sample, and again on the first sample after each drop: a
        # drop that takes the burst's last samples has no sample after it to tag.
        resumed = [d for d in drops if d[0] + d[1] < samples]
        self.assertGreaterEqual(r.sink.time_tags(), len(resumed) + 1)

    def test_loss_0_1_percent(self):
        self.check_loss(0.001, 1, 16, int(20e6))

    def test_loss_1_percent(self):
        self.check_loss(0.01, 1, 16, int(4e6))

    def test_loss_10_percent(self):
        self.check_loss(0.1, 1, 16, int(4e6))

    def test_burst_loss(self):
        self.check_loss(0.005, 8, 16, int(4e6))

    def test_notify_every_message(self):
        self.check_loss(0.01, 1, 1, int(4e6))

    def test_notify_every_256(self):
        self.check_loss(0.01, 2, 256, int(8e6))

    def test_clock_mode_without_notifications(self):
        self.check_loss(0.01, 1, 0, int(4e6))

    def test_corruption_is_a_gap_duplicates_are_not(self):
        r = run("type=emu,signal=ramp,fault_seed=5,corrupt=0.01,duplicate=0.02,"
                "emu_pace=consumer", samples=int(4e6))
        self.assert_identity(r, int(4e6))
        self.assert_checked(r, int(4e6))
        corrupted = merged([[f["first_sample"], f["samples"]] for f in r.faults
                            if f["kind"] == "corrupt_payload"])
        self.assertGreater(len(corrupted), 0)
        self.assertEqual(merged(r.gaps), corrupted)
        self.assertGreater(r.counters["nic.drop_bad_icrc"], 0)
        self.assertGreater(r.counters["device.packets_duplicated"], 0)

    def test_throttled_consumer_overruns_reconcile(self):
        # The device streams 10 MS/s into a 50 ms ring; the consumer takes 3 MS/s.
        samples = int(10e6)
        r = run("type=emu,signal=ramp,latency=0.1", rate=10e6, samples=samples, throttle=3e6)
        self.assert_identity(r, samples)
        self.assertGreater(len(r.overruns), 0)
        lost_overrun = r.counters["host.lost_skipped"] + r.counters["host.lost_overwritten"]
        self.assertGreater(lost_overrun, 0)
        # (gap_overwritten tells again of samples a gap counted already.)
        reported = sum(e["count"] for e in r.overruns if e["cause"] != "gap_overwritten")
        self.assertEqual(reported, lost_overrun)
        # Resumed time-aligned: every rx_time after an overrun names the right sample,
        # and whatever was not reported as lost is the right ramp value.
        self.assert_checked(r, samples)
        self.assertGreater(r.sink.time_tags(), 1)

    def run_behind(self, consumer, out_size=gr.sizeof_gr_complex, samples=int(4e6)):
        """rx_source (fc32, 10 MS/s, 100 ms ring) -> consumer -> throttle (1 MS/s): the
        consumer falls behind; it must neither stall the stream nor break the books."""
        tb = gr.top_block()
        src = rdma.rx_source("type=emu,signal=ramp,latency=0.1", "fc32", 10e6, samples)
        slow = blocks.throttle(out_size, 1e6, True)
        sink = blocks.null_sink(out_size)
        tb.connect(src, consumer, slow, sink)
        tb.start()
        deadline = time.monotonic() + 60
        c = src.read_counters()  # one AXIoE exchange per look
        while c["host.delivered"] + c["host.lost"] < samples:
            if time.monotonic() > deadline:
                tb.stop()
                tb.wait()
                self.fail("stalled: %s" % {k: v for k, v in c.items() if k.startswith("host.")})
            time.sleep(0.05)
            c = src.read_counters()
        tb.stop()
        tb.wait()
        c = src.read_counters()
        self.assertEqual(c["device.samples_emitted"], samples)
        self.assertEqual(c["host.delivered"] + c["host.lost"], samples)
        self.assertGreater(c["host.lost_skipped"], 0)

    def test_consumer_with_history_is_not_stalled(self):
        # A FIR filter never releases its last taps-1 input items.
        self.run_behind(filter.fir_filter_ccf(1, [1.0 / 64] * 64))

    def test_decimator_is_not_stalled(self):
        # A decimator leaves fewer than its factor behind.
        self.run_behind(blocks.stream_to_vector(gr.sizeof_gr_complex, 7),
                        7 * gr.sizeof_gr_complex)

    def no_false_gap(self, signal, samples=int(1e8), fmt="sc16"):
        # Loopback may drop packets: each reported gap must be one of those. Without
        # real loss nothing may be reported. Paced by the consumer (a test mode,
        # docs/device-args.md): however busy the machine is, the emulator neither
        # overflows nor laps the consumer, and no packet is made final by the host's
        # clock before it could land: a gap reported is the code's, not the machine's.
        # A second of silence from the device is load on a shared machine here, not the
        # subject: device_timeout=5.
        packet_items = 4096 // (4 if fmt == "sc16" else 8)  # loopback: 4 KiB packets
        r = run("type=emu,signal=%s,emu_pace=consumer,device_timeout=5" % signal, fmt=fmt,
                samples=samples)
        self.assert_identity(r, samples)
        c = r.counters
        really_lost_packets = (c["device.packets_dropped"] +
                               c["device.packets_sent"] - c["nic.rx_packets"])
        lapped = c["host.lost_skipped"] + c["host.lost_overwritten"]
        self.assertEqual(lapped, 0, "the consumer was lapped")
        self.assertEqual(c["host.lost_gap"], really_lost_packets * packet_items,
                         "reported gaps that did not happen (false gaps)")
        self.assertTrue(all(f["kind"] == "overflow" for f in r.faults))
        # Every sample handed out is the emulator's, bit for bit (recomputed).
        self.assertEqual(r.sink.items_checked(), samples)
        self.assertEqual(r.sink.unexplained_mismatches(), 0,
                         "first mismatch at item %d" % r.sink.first_mismatch())
        if signal == "ramp":
            self.assertEqual(r.sink.time_errors(), 0)

    def test_no_false_gap_ramp(self):
        self.no_false_gap("ramp")

    def test_no_false_gap_tone(self):
        self.no_false_gap("tone")

    def test_no_false_gap_noise(self):
        self.no_false_gap("noise")

    # What an overdriven radio sends: saturated values, I and Q independent or in
    # phase. The extremes hold the old fixed gap marks at every message boundary, and
    # for fc32 +-1.0, infinities and denormals.
    def test_no_false_gap_clipped_noise_sc16(self):
        self.no_false_gap("clipped_noise")

    def test_no_false_gap_clipped_noise_fc32(self):
        self.no_false_gap("clipped_noise", fmt="fc32")

    def test_no_false_gap_clipped_tone_at_half_rate_sc16(self):
        self.no_false_gap("clipped_tone,freq=10e6")

    def test_no_false_gap_clipped_tone_at_half_rate_fc32(self):
        self.no_false_gap("clipped_tone,freq=10e6", fmt="fc32")

    def test_no_false_gap_square_sc16(self):
        self.no_false_gap("square")

    def test_no_false_gap_square_fc32(self):
        self.no_false_gap("square", fmt="fc32")

    def test_old_marks_as_data_sc16(self):
        self.no_false_gap("extremes")

    def test_old_marks_as_data_fc32(self):
        self.no_false_gap("extremes", fmt="fc32")


if __name__ == '__main__':
    gr_unittest.run(qa_loss_accounting)
