#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""tx_sink in a flowgraph: an upstream block writes a ramp straight into the registered
TX ring (its output pointer checked on every work() call), the emulator fetches it by
RDMA READ over the soft NIC and checks it (EMU_TX_CHECK)."""

import threading

import numpy as np
import pmt

from gnuradio import blocks, gr, gr_unittest
from gnuradio import rdma

ARGS = "type=emu,tx_check=1,hugepages=off,latency=0.02"
# The emulator's converter waits for each piece instead of playing it late (a test mode,
# docs/device-args.md): what a test of contents checks no longer depends on how busy
# the machine is.
PACED = ARGS + ",emu_pace=consumer"


# The input signature of each CPU format (gr.sync_block's numpy types).
CPU_TYPES = {"fc32": np.complex64, "sc16": (np.int16, 2), "sc8": (np.int8, 2)}


def ramp_in(cpu, wire, first, n):
    """Items first .. first+n-1 in the CPU format that become the emulator's ramp
    (gnuradio/rdma/ramp.h) in the wire format, exactly, by the sink's conversion
    (docs/wire-format.md: fc32 -> sc16 * 32768, fc32 -> sc8 * 128, sc16 -> sc8 >> 8)."""
    k = np.arange(first, first + n, dtype=np.uint64)
    if wire == "fc32":  # I = k mod 2^24, Q = 0
        assert cpu == "fc32"
        return ((k & 0xFFFFFF).astype(np.float32) + 0j).astype(np.complex64)
    if wire == "sc16":  # the item, read as a little-endian uint32, is k mod 2^32
        iq = (k & 0xFFFFFFFF).astype("<u4").view("<i2").reshape(-1, 2)
    else:  # sc8: the item, read as a little-endian uint16, is k mod 2^16
        iq = (k & 0xFFFF).astype("<u2").view("i1").reshape(-1, 2)
    if cpu == wire:
        return iq
    if cpu == "fc32":
        scale = 32768.0 if wire == "sc16" else 128.0
        return (iq[:, 0] / scale + 1j * (iq[:, 1] / scale)).astype(np.complex64)
    assert (cpu, wire) == ("sc16", "sc8")
    return iq.astype(np.int16) * 256


class ramp_source(gr.sync_block):
    """The ramp up to `total` items, in the CPU format `cpu` such that the sink's
    conversion into `wire` gives the emulator's ramp; checks on every call that its
    output buffer lies in the sink's ring (ring=None: no check)."""

    def __init__(self, total, ring=None, start_ns=None, cpu="fc32", wire="fc32"):
        gr.sync_block.__init__(self, "ramp_source", [], [CPU_TYPES[cpu]])
        self.total = total
        self.ring = ring
        self.start_ns = start_ns  # a tx_time tag on item 0
        self.cpu, self.wire = cpu, wire
        self.calls = 0
        self.outside = 0

    def work(self, input_items, output_items):
        out = output_items[0]
        self.calls += 1
        if self.ring is not None:
            base, span = self.ring
            address = out.__array_interface__["data"][0]
            if not (base <= address and address + out.nbytes <= base + span):
                self.outside += 1
        first = self.nitems_written(0)
        if first == 0 and self.start_ns is not None:
            t = pmt.make_tuple(pmt.from_uint64(self.start_ns // 10**9),
                               pmt.from_double((self.start_ns % 10**9) * 1e-9))
            self.add_item_tag(0, 0, pmt.intern("tx_time"), t)
        n = min(len(out), self.total - first)
        if n <= 0:
            return -1
        out[:n] = ramp_in(self.cpu, self.wire, first, n)
        return n


def run_with_timeout(tb, seconds):
    """Run the flowgraph; False if it did not end in time (it is stopped then)."""
    done = threading.Event()

    def body():
        tb.run()
        done.set()
    t = threading.Thread(target=body, daemon=True)
    t.start()
    if not done.wait(seconds):
        tb.stop()
        tb.wait()
        return False
    return True


class qa_tx_sink(gr_unittest.TestCase):

    def test_ramp_in_place_over_ten_wraps(self):
        tb = gr.top_block()
        sink = rdma.tx_sink(PACED, "fc32", 1e6)
        total = 12 * sink.ring_items()
        src = ramp_source(total, (sink.ring_base(), 2 * sink.ring_bytes()))
        msgs = blocks.message_debug()
        tb.connect(src, sink)
        tb.msg_connect(sink, "async_msgs", msgs, "store")
        self.assertTrue(run_with_timeout(tb, 60), "the flowgraph did not end")
        self.assertEqual(sink.error(), "")
        # Zero copy: the upstream wrote into the registered ring on every call, and the
        # sink read its items in place.
        self.assertGreater(src.calls, 12)
        self.assertEqual(src.outside, 0)
        self.assertGreater(sink.work_calls(), 0)
        self.assertEqual(sink.pointer_mismatches(), 0)
        c = sink.read_counters()
        self.assertEqual(c["host.committed"], total)
        self.assertEqual(c["host.fetched"], total)
        self.assertEqual(c["acct.final"], 1)
        self.assertEqual(c["acct.identity_holds"], 1, str(c))
        # A whole number of messages, the last notification covering them all: the
        # sink still ends in work(), after the device played everything.
        self.assertEqual(c["acct.not_played"], 0, str(c))
        self.assertEqual(c["device.check_mismatches"], 0)
        self.assertGreaterEqual(c["device.check_samples"], 10 * sink.ring_items())
        self.assertEqual(c["host.implausible_fetch"], 0)
        # The reports on async_msgs add up to the device's underflow count.
        underflow = 0
        for i in range(msgs.num_messages()):
            m = msgs.get_message(i)
            code = pmt.symbol_to_string(pmt.dict_ref(m, pmt.mp("event_code"), pmt.PMT_NIL))
            if code == "underflow":
                underflow += pmt.to_uint64(pmt.dict_ref(m, pmt.mp("count"), pmt.PMT_NIL))
        self.assertEqual(underflow, c["acct.underflow"])

    def test_throttled_upstream_underflows_and_reports_exactly(self):
        # An upstream slower than the device: it plays zeros while the host has nothing
        # committed (underflow), reports them on async_msgs, and never plays a stale
        # sample: what it plays is the ramp, in order, each sample once. Low rates, so
        # that the device's own pace is kept on a loaded machine.
        rate, total = 1e5, 60000
        tb = gr.top_block()
        sink = rdma.tx_sink(ARGS, "fc32", rate)
        src = ramp_source(total)
        throttle = blocks.throttle(gr.sizeof_gr_complex, rate / 2)  # half the pace
        msgs = blocks.message_debug()
        tb.connect(src, throttle, sink)
        tb.msg_connect(sink, "async_msgs", msgs, "store")
        self.assertTrue(run_with_timeout(tb, 60), "the flowgraph did not end")
        self.assertEqual(sink.error(), "")
        self.assertEqual(sink.pointer_mismatches(), 0)
        c = sink.read_counters()
        self.assertEqual(c["acct.final"], 1)
        self.assertEqual(c["host.committed"], total)
        self.assertEqual(c["acct.identity_holds"], 1, str(c))
        self.assertGreater(c["acct.underflow"], 0, str(c))
        self.assertEqual(c["device.underflow_samples"], c["acct.underflow"])
        # Only correct samples or zeros: every sample played is the ramp's.
        self.assertEqual(c["device.check_mismatches"], 0, str(c))
        self.assertEqual(c["device.check_samples"], c["acct.played"])
        self.assertGreater(c["acct.played"], total // 2)
        # The reports add up to the device's counters, exactly.
        reported = {"underflow": 0, "late": 0}
        for i in range(msgs.num_messages()):
            m = msgs.get_message(i)
            code = pmt.symbol_to_string(pmt.dict_ref(m, pmt.mp("event_code"), pmt.PMT_NIL))
            if code in reported:
                reported[code] += pmt.to_uint64(pmt.dict_ref(m, pmt.mp("count"), pmt.PMT_NIL))
        self.assertEqual(reported["underflow"], c["device.underflow_samples"])
        self.assertEqual(reported["late"], c["device.late_zero_samples"])

    def test_tx_time_on_item_0_starts_at_that_time(self):
        tb = gr.top_block()
        sink = rdma.tx_sink(ARGS, "fc32", 1e6)
        # A whole number of microseconds: the tag's fraction is a double.
        start = (sink.get_time_now() + 300000000) // 1000 * 1000
        src = ramp_source(4 * sink.ring_items(), start_ns=start)
        tb.connect(src, sink)
        self.assertTrue(run_with_timeout(tb, 30), "the flowgraph did not end")
        self.assertEqual(sink.error(), "")
        c = sink.read_counters()
        self.assertEqual(c["host.start_time_ns"], start)
        self.assertEqual(c["device.check_mismatches"], 0)
        self.assertEqual(c["acct.identity_holds"], 1, str(c))

    def test_tx_time_already_past_is_a_time_error(self):
        # As gr-uhd's device does with a late command: the burst is dropped (here the
        # whole stream, untagged after item 0), reported, its samples counted dropped;
        # the flowgraph ends as usual.
        tb = gr.top_block()
        sink = rdma.tx_sink(ARGS, "fc32", 1e6)
        past = sink.get_time_now() - 10**9
        src = ramp_source(100000, start_ns=past)
        msgs = blocks.message_debug()
        tb.connect(src, sink)
        tb.msg_connect(sink, "async_msgs", msgs, "store")
        self.assertTrue(run_with_timeout(tb, 30), "the flowgraph did not end")
        self.assertEqual(sink.error(), "")
        c = sink.read_counters()
        self.assertEqual(c["acct.dropped"], 100000, str(c))
        self.assertEqual(c["acct.played"], 0)
        self.assertEqual(c["acct.identity_holds"], 1, str(c))
        errors = []
        for i in range(msgs.num_messages()):
            m = msgs.get_message(i)
            if pmt.symbol_to_string(pmt.dict_ref(m, pmt.intern("event_code"),
                                                 pmt.PMT_NIL)) == "time_error":
                errors.append(pmt.to_uint64(pmt.dict_ref(m, pmt.intern("count"),
                                                         pmt.PMT_NIL)))
        self.assertEqual(errors, [100000])

    def test_relay_from_rx_source_is_a_clear_error(self):
        tb = gr.top_block()
        src = rdma.rx_source("type=emu,signal=ramp,name=relay_rx", "fc32", 1e6)
        sink = rdma.tx_sink(ARGS + ",name=relay_tx", "fc32", 1e6)
        tb.connect(src, sink)
        self.assertTrue(run_with_timeout(tb, 30), "the flowgraph did not end")
        self.assertIn("blocks.copy", sink.error())

    def fan_out(self, sink_made_first, keep):
        """A fan-out of the edge into the sink; returns what the other consumer got.
        GNU Radio 3.10.5.1 connects the blocks' inputs in the order of their addresses
        (flowgraph.cc: calc_used_blocks() sorts the blocks by pointer), not of the
        connect() calls. Python cannot see those addresses; blocks made one after the
        other usually lie at increasing ones, but the allocator may reuse the memory of
        blocks freed before, so `keep` holds every block made, and the caller tries
        again until both orders have been seen. The source never ends by itself: the
        flowgraph ends because the sink refused, with the message that names the fix."""
        tb = gr.top_block()
        src = blocks.null_source(gr.sizeof_gr_complex)
        if sink_made_first:
            sink = rdma.tx_sink(ARGS, "fc32", 1e6)
            other = blocks.vector_sink_c()
        else:
            other = blocks.vector_sink_c()
            sink = rdma.tx_sink(ARGS, "fc32", 1e6)
        keep.extend((tb, src, sink, other))
        tb.connect(src, sink)
        tb.connect(src, other)
        self.assertTrue(run_with_timeout(tb, 30), "the flowgraph did not end")
        self.assertIn("fans out", sink.error())
        self.assertIn("put a blocks.copy in front of the sink", sink.error())
        self.assertEqual(sink.work_calls(), 1)
        # The device never started: nothing was committed.
        self.assertEqual(sink.read_counters()["host.committed"], 0)
        return len(other.data()), sink.ring_items()

    def test_fan_out_is_refused_in_either_order(self):
        # Sink connected first: the other consumer is a second reader of the ring
        # (GNU Radio's transfer-type refusal no longer fires); it gets what the upstream
        # wrote before the flowgraph ended, never more than the ring holds but one (the
        # sink consumes nothing). Other consumer first: it reads the buffer the ring
        # replaced, which nothing writes; the sink marks it done, so it ends with
        # nothing instead of waiting for ever. Every attempt must be refused cleanly,
        # and both paths must have been taken within the attempts (items seen: the
        # ring; none: the replaced buffer, or the ring before the upstream wrote).
        paths = set()
        keep = []
        for attempt in range(12):
            got, ring = self.fan_out(attempt % 2 == 0, keep)
            self.assertLessEqual(got, ring - 1)
            paths.add("ring" if got else "replaced buffer")
            if len(paths) == 2:
                break
        self.assertEqual(paths, {"ring", "replaced buffer"},
                         "12 attempts took one path: the test no longer covers both")

    def test_two_sinks_on_one_edge_are_refused(self):
        # GNU Radio replaces the upstream's buffer for each sink in turn: the second
        # ring replaces the first, whose sink would wait for ever. Both refuse.
        tb = gr.top_block()
        src = blocks.null_source(gr.sizeof_gr_complex)
        sinks = [rdma.tx_sink(ARGS + ",name=fan_tx%d" % i, "fc32", 1e6) for i in (0, 1)]
        for sink in sinks:
            tb.connect(src, sink)
        self.assertTrue(run_with_timeout(tb, 30), "the flowgraph did not end")
        for sink in sinks:
            self.assertIn("put a blocks.copy in front of the sink", sink.error())

    def test_fan_out_behind_a_copy_transmits(self):
        # The fix the error names: the other consumer taps the upstream before the
        # copy; the edge into the sink has the sink alone.
        tb = gr.top_block()
        src = ramp_source(200000)
        copy = blocks.copy(gr.sizeof_gr_complex)
        sink = rdma.tx_sink(ARGS, "fc32", 1e6)
        tap = blocks.vector_sink_c(1, 200000)
        tb.connect(src, copy, sink)
        tb.connect(src, tap)
        self.assertTrue(run_with_timeout(tb, 30), "the flowgraph did not end")
        self.assertEqual(sink.error(), "")
        self.assertEqual(len(tap.data()), 200000)
        c = sink.read_counters()
        self.assertEqual(c["host.committed"], 200000)
        self.assertEqual(c["device.check_mismatches"], 0)
        self.assertEqual(c["acct.identity_holds"], 1, str(c))

    def test_relay_rx_source_copy_tx_sink(self):
        # A relay: what the emulator's RX stream sends (its ramp) goes out of its TX
        # stream, through one copy block; the TX check sees the ramp intact. The RX
        # stream paced by its consumer: a lapped one would hand out fewer items, or
        # zeros the TX check cannot tell from a wrong sample.
        n = 300000
        tb = gr.top_block()
        src = rdma.rx_source("type=emu,signal=ramp,hugepages=off,latency=0.1,"
                             "emu_pace=consumer", "fc32", 1e6, n)
        copy = blocks.copy(gr.sizeof_gr_complex)
        sink = rdma.tx_sink(ARGS, "fc32", 1e6)
        tb.connect(src, copy, sink)
        self.assertTrue(run_with_timeout(tb, 30), "the flowgraph did not end")
        self.assertEqual(sink.error(), "")
        c = sink.read_counters()
        self.assertEqual(c["host.committed"], n)
        self.assertEqual(c["acct.identity_holds"], 1, str(c))
        self.assertEqual(c["device.check_mismatches"], 0)
        self.assertGreater(c["device.check_samples"], 0)

    def test_relay_through_a_copy_block(self):
        tb = gr.top_block()
        src = ramp_source(200000)
        copy = blocks.copy(gr.sizeof_gr_complex)
        sink = rdma.tx_sink(ARGS, "fc32", 1e6)
        tb.connect(src, copy, sink)
        self.assertTrue(run_with_timeout(tb, 30), "the flowgraph did not end")
        self.assertEqual(sink.error(), "")
        self.assertEqual(sink.pointer_mismatches(), 0)
        c = sink.read_counters()
        self.assertEqual(c["host.committed"], 200000)
        self.assertEqual(c["device.check_mismatches"], 0)
        self.assertEqual(c["acct.identity_holds"], 1, str(c))
        # 200000 is not a whole number of 512-item messages: at the end of the stream
        # the sink ends its burst there, and the END cuts the last message into a
        # piece the device fetches and plays too.
        self.assertEqual(c["host.short_tail"], 0)
        self.assertEqual(c["acct.not_played"], 0, str(c))
        self.assertEqual(c["acct.played"] + c["acct.late"], 200000)


    def check_conversion(self, cpu, wire):
        # The flowgraph's items in the CPU format, converted by the sink straight into
        # the ring in the wire format: the emulator's ramp check sees every played
        # sample exact, over more than ten ring wraps.
        tb = gr.top_block()
        sink = rdma.tx_sink(PACED, cpu_format=cpu, otw_format=wire, sample_rate=1e6)
        self.assertEqual((sink.cpu_format(), sink.otw_format()), (cpu, wire))
        total = 12 * sink.ring_items()
        src = ramp_source(total, cpu=cpu, wire=wire)
        tb.connect(src, sink)
        self.assertTrue(run_with_timeout(tb, 60), "the flowgraph did not end")
        self.assertEqual(sink.error(), "")
        c = sink.read_counters()
        self.assertEqual(c["host.committed"], total)
        self.assertEqual(c["acct.final"], 1)
        self.assertEqual(c["acct.identity_holds"], 1, str(c))
        self.assertEqual(c["acct.not_played"], 0, str(c))  # played to its end
        self.assertEqual(c["device.check_mismatches"], 0)
        self.assertGreaterEqual(c["device.check_samples"], 10 * sink.ring_items())
        # Every conversion wrote into the registered ring, at the slot of the next
        # item, and the writes went round it.
        w = sink.conversion_writes()
        base, size = sink.ring_base(), sink.ring_bytes()
        self.assertEqual(w["items"], total)
        self.assertGreater(w["calls"], 12)
        self.assertEqual(w["outside"], 0)
        self.assertGreaterEqual(w["lowest"], base)
        self.assertLessEqual(w["end"], base + 2 * size)
        self.assertGreater(w["end"], base + size // 2)
        return sink

    def test_fc32_flowgraph_sc16_wire_ramp_exact(self):
        self.check_conversion("fc32", "sc16")

    def test_fc32_flowgraph_sc8_wire_ramp_exact(self):
        self.check_conversion("fc32", "sc8")

    def test_sc16_flowgraph_sc8_wire_ramp_exact(self):
        self.check_conversion("sc16", "sc8")

    def test_equal_formats_stay_zero_copy(self):
        sink = rdma.tx_sink(ARGS, cpu_format="sc16", otw_format="sc16", sample_rate=1e6)
        total = 3 * sink.ring_items()
        src = ramp_source(total, (sink.ring_base(), 2 * sink.ring_bytes()),
                          cpu="sc16", wire="sc16")
        tb = gr.top_block()
        tb.connect(src, sink)
        self.assertTrue(run_with_timeout(tb, 30), "the flowgraph did not end")
        self.assertEqual(sink.error(), "")
        self.assertEqual(src.outside, 0)
        self.assertEqual(sink.pointer_mismatches(), 0)
        self.assertEqual(sink.conversion_writes(),
                         {"calls": 0, "items": 0, "outside": 0, "lowest": 0, "end": 0})
        c = sink.read_counters()
        self.assertEqual(c["device.check_mismatches"], 0)
        self.assertEqual(c["acct.identity_holds"], 1, str(c))

    def test_converting_sink_may_share_its_input(self):
        # Converting, the input is an ordinary buffer: a fan-out is fine.
        tb = gr.top_block()
        sink = rdma.tx_sink(ARGS, "fc32", 1e6, "sc16")
        src = ramp_source(100000, wire="sc16")
        tap = blocks.vector_sink_c(1, 100000)
        tb.connect(src, sink)
        tb.connect(src, tap)
        self.assertTrue(run_with_timeout(tb, 30), "the flowgraph did not end")
        self.assertEqual(sink.error(), "")
        self.assertEqual(len(tap.data()), 100000)
        c = sink.read_counters()
        self.assertEqual(c["host.committed"], 100000)
        self.assertEqual(c["device.check_mismatches"], 0)
        self.assertEqual(c["acct.identity_holds"], 1, str(c))

    def test_format_names(self):
        sink = rdma.tx_sink(ARGS, "fc32", 1e6)
        self.assertEqual((sink.cpu_format(), sink.otw_format()), ("fc32", "fc32"))
        with self.assertRaisesRegex(ValueError, "sc8"):
            rdma.tx_sink(ARGS, cpu_format="fc32", otw_format="sc12")

if __name__ == '__main__':
    gr_unittest.run(qa_tx_sink)
