#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""rx_source in flowgraphs: bit-exact ramps through the zero-copy ring, tags,
restarts, concurrent top blocks, and clean teardown."""

import gc
import os
import threading
import time

import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import rdma

RATE = 20e6
# A 100 ms ring (the default latency budget): it wraps ten times in a second. The
# emulator paced by the consumer (a test mode, docs/device-args.md): it never laps the
# checker, so what these tests check does not depend on how busy the machine is.
ARGS = "type=emu,signal=ramp,latency=0.1,emu_pace=consumer"


def thread_names():
    names = []
    for tid in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/comm" % tid) as f:
                names.append(f.read().strip())
        except OSError:
            pass
    return sorted(names)


def thread_count():
    return len(thread_names())


def socket_count():
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(os.path.join("/proc/self/fd", fd)).startswith("socket:"):
                count += 1
        except OSError:
            pass
    return count


def wait_for(predicate, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


class ramp_flowgraph:
    """rx_source -> ramp_check (zero-copy range = both mappings of the ring)."""

    def __init__(self, fmt, num_samples, args=ARGS, rate=RATE):
        self.tb = gr.top_block()
        self.src = rdma.rx_source(args, fmt, rate, num_samples)
        self.check = rdma.ramp_check(fmt, self.src.ring_base(), 2 * self.src.ring_bytes())
        self.tb.connect(self.src, self.check)


class qa_rx_source(gr_unittest.TestCase):

    def run_ramp(self, fmt):
        num_samples = int(RATE * 1.1)
        fg = ramp_flowgraph(fmt, num_samples)
        wraps = num_samples / fg.src.ring_items()
        self.assertGreaterEqual(wraps, 10, "the test must cover at least 10 ring wraps")
        fg.tb.run()
        self.assertEqual(fg.check.items_checked(), num_samples)
        self.assertEqual(fg.check.mismatches(), 0,
                         "first mismatch at item %d" % fg.check.first_mismatch())
        self.assertGreater(fg.check.work_calls(), 10)
        # Zero copy: every call of the downstream work() read inside the ring.
        self.assertEqual(fg.check.out_of_range_calls(), 0)
        counters = fg.src.read_counters()
        self.assertEqual(counters["device.samples_emitted"], num_samples)

    def test_ramp_sc16_bit_exact_over_10_wraps(self):
        self.run_ramp("sc16")

    def test_ramp_fc32_bit_exact_over_10_wraps(self):
        self.run_ramp("fc32")

    def test_rx_time_and_rx_rate_tags_on_first_sample(self):
        tb = gr.top_block()
        src = rdma.rx_source(ARGS, "fc32", 1e6, 100000)
        tags = blocks.tag_debug(gr.sizeof_gr_complex, "tags")
        tags.set_display(False)
        tags.set_save_all(True)
        tb.connect(src, tags)
        before = time.time()
        tb.run()
        after = time.time()
        found = {pmt.symbol_to_string(t.key): t for t in tags.current_tags()}
        self.assertIn("rx_time", found)
        self.assertIn("rx_rate", found)
        self.assertEqual(found["rx_time"].offset, 0)
        self.assertEqual(found["rx_rate"].offset, 0)
        self.assertEqual(pmt.to_double(found["rx_rate"].value), 1e6)
        value = found["rx_time"].value
        secs = pmt.to_uint64(pmt.tuple_ref(value, 0))
        frac = pmt.to_double(pmt.tuple_ref(value, 1))
        self.assertTrue(0.0 <= frac < 1.0)
        # The emulator's clock is the wall clock: sample 0 was taken during the run.
        self.assertTrue(before - 0.001 <= secs + frac <= after,
                        "rx_time %f outside [%f, %f]" % (secs + frac, before, after))

    def test_stop_and_restart_three_times(self):
        threads, sockets = thread_count(), socket_count()
        fg = ramp_flowgraph("sc16", 0)
        for run in range(3):
            checked_before = fg.check.items_checked()
            fg.tb.start()
            self.assertTrue(wait_for(lambda: fg.check.items_checked() > checked_before + 2e6),
                            "run %d delivered too little" % run)
            fg.tb.stop()
            fg.tb.wait()
            self.assertEqual(fg.check.mismatches(), 0,
                             "run %d: first mismatch at %d" % (run, fg.check.first_mismatch()))
            self.assertEqual(fg.check.out_of_range_calls(), 0)
        del fg
        gc.collect()
        self.assertTrue(wait_for(lambda: thread_count() <= threads),
                        "threads left behind: %s (had %d)" % (thread_names(), threads))
        self.assertEqual(socket_count(), sockets, "sockets left behind")

    def test_two_top_blocks_at_once(self):
        threads, sockets = thread_count(), socket_count()
        # Two streams of one emulator, two NICs and two flowgraphs share two cores:
        # 5 MS/s each. One RX stream runs in one block at a time: the second takes
        # stream 1.
        a = ramp_flowgraph("sc16", int(5e6), rate=5e6)
        b = ramp_flowgraph("fc32", int(5e6), rate=5e6, args=ARGS + ",stream=1")
        self.assertNotEqual(a.src.ring_base(), b.src.ring_base())
        a.tb.start()
        b.tb.start()
        a.tb.wait()
        b.tb.wait()
        for check in (a.check, b.check):
            self.assertEqual(check.items_checked(), int(5e6))
            self.assertEqual(check.mismatches(), 0)
            self.assertEqual(check.out_of_range_calls(), 0)
        del a, b, check
        gc.collect()
        self.assertTrue(wait_for(lambda: thread_count() <= threads),
                        "threads left behind: %s (had %d)" % (thread_names(), threads))
        self.assertEqual(socket_count(), sockets, "sockets left behind")

    def test_fan_out_to_default_buffers(self):
        # The ring feeds GNU Radio's own blocks like any buffer: a block with history
        # (moving average) reads across the wrap correctly.
        tb = gr.top_block()
        src = rdma.rx_source(ARGS, "fc32", 10e6, int(2e6))
        check = rdma.ramp_check("fc32", src.ring_base(), 2 * src.ring_bytes())
        avg = blocks.moving_average_cc(7, 1.0 / 7)
        length = src.ring_items() + 1000  # read across the ring's wrap
        head = blocks.head(gr.sizeof_gr_complex, length)
        sink = blocks.vector_sink_c()
        tb.connect(src, check)
        tb.connect(src, avg, head, sink)
        tb.run()
        self.assertEqual(check.mismatches(), 0)
        data = sink.data()
        self.assertEqual(len(data), length)
        # Moving average of a ramp k - 6 .. k is k - 3 once the window is full.
        for k in (6, 1000, src.ring_items() - 2, src.ring_items() + 5, length - 1):
            # float32 sums of seven values near 2^18: allow rounding, not a wrong item.
            self.assertLess(abs(data[k].real - (k - 3)), 0.5)

    def test_bad_args_name_the_fix(self):
        with self.assertRaisesRegex(ValueError, "sgnal"):
            rdma.rx_source("type=emu,sgnal=ramp", "fc32", 1e6, 0)
        with self.assertRaisesRegex(ValueError, "sc16"):
            rdma.rx_source("type=emu", "cs8", 1e6, 0)

    def test_work_interval_hands_out_in_batches(self):
        # work_interval=0.01: a notification every 64 KiB would wake the flowgraph ~600
        # times in 0.5 s at 20 MS/s; gathered, at most ~50 times. Every sample arrives.
        num_samples = int(RATE * 0.5)
        fg = ramp_flowgraph("sc16", num_samples, args=ARGS + ",work_interval=0.01")
        fg.tb.run()
        self.assertEqual(fg.check.items_checked(), num_samples)
        self.assertEqual(fg.check.mismatches(), 0)
        self.assertEqual(fg.check.out_of_range_calls(), 0)
        self.assertLessEqual(fg.check.work_calls(), 100)

    def test_device_refusing_to_start_ends_the_flowgraph(self):
        # The host accepts a 64 KiB message in 512-byte packets; the emulator refuses
        # it at START (more than 64 packets). GNU Radio starts a block on its own thread:
        # the flowgraph must end, not wait for ever, and nothing is handed out.
        fg = ramp_flowgraph("sc16", 1000000, args=ARGS + ",payload=65536,mtu=512")
        fg.tb.start()
        waiter = threading.Thread(target=fg.tb.wait, daemon=True)
        waiter.start()
        waiter.join(10.0)
        # (Were it stuck, stopping it would hang as well: fail right away.)
        self.assertFalse(waiter.is_alive(),
                         "the flowgraph still ran 10 s after the device refused")
        self.assertEqual(fg.check.items_checked(), 0)
        self.assertEqual(fg.src.read_counters()["host.delivered"], 0)


if __name__ == '__main__':
    gr_unittest.run(qa_rx_source)
