#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""Wire format and CPU format (gr-uhd's otw_format and cpu_format): the device sends
sc16 or sc8, the flowgraph gets fc32 (or another integer width), converted by VOLK from
the ring in place; equal formats stay zero copy. The expectation is recomputed with
numpy from the ramp's definition (gnuradio/rdma/ramp.h) and gr-uhd's scales."""

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import rdma

RATE = 10e6
# A 200 ms ring: a burst of 1.2 s wraps it more than five times. The emulator paced by
# the consumer (a test mode, docs/device-args.md): it never laps the flowgraph, so what
# these tests check does not depend on how busy the machine is.
ARGS = "type=emu,signal=ramp,latency=0.2,emu_pace=consumer"
SAMPLES = int(RATE * 1.2)


def ramp(wire, n):
    """Items 0 .. n-1 of the emulator's ramp in the wire format, as (I, Q) integers."""
    k = np.arange(n, dtype=np.uint64)
    if wire == "sc16":  # the item, read as a little-endian uint32, is k mod 2^32
        return (k & 0xFFFFFFFF).astype("<u4").view("<i2").reshape(-1, 2)
    if wire == "sc8":  # the item, read as a little-endian uint16, is k mod 2^16
        return (k & 0xFFFF).astype("<u2").view("i1").reshape(-1, 2)
    raise ValueError(wire)


def expected(wire, cpu, n):
    """What VOLK makes of the ramp: gr-uhd's scales (docs/device-args.md)."""
    iq = ramp(wire, n).astype(np.int32)
    if cpu == "fc32":
        scale = 32768.0 if wire == "sc16" else 128.0
        return (iq[:, 0] / scale + 1j * (iq[:, 1] / scale)).astype(np.complex64)
    if cpu == "sc16" and wire == "sc8":  # volk_8i_convert_16i: * 256
        return (iq * 256).astype(np.int16)
    if cpu == "sc8" and wire == "sc16":  # volk_16i_convert_8i: the high byte
        return (iq >> 8).astype(np.int8)
    raise ValueError((wire, cpu))


def sink_for(cpu, items):
    # Room reserved for every item: a vector that grows while the stream runs stalls
    # the sink for the copy, long enough on a busy machine for the ring to overrun.
    if cpu == "fc32":
        return blocks.vector_sink_c(1, items)
    if cpu == "sc16":
        return blocks.vector_sink_s(2, items)
    return blocks.vector_sink_b(2, items)


def received(sink, cpu):
    data = np.array(sink.data())
    if cpu == "fc32":
        return data.astype(np.complex64)
    if cpu == "sc16":
        return data.astype(np.int16).reshape(-1, 2)
    return data.astype(np.uint8).view(np.int8).reshape(-1, 2)


class qa_wire_format(gr_unittest.TestCase):

    def assert_read_in_ring(self, src, chan=0):
        """The converter read from the registered ring (either mapping) on every call,
        and converted every item: nothing was copied out of the ring first."""
        reads = src.conversion_reads(chan)
        base, size = src.ring_base(chan), src.ring_bytes()
        self.assertGreater(reads["calls"], 10)
        self.assertGreaterEqual(reads["lowest"], base)
        self.assertLessEqual(reads["end"], base + 2 * size)
        # The reads wrapped: they reached past the ring's first copy's middle.
        self.assertGreater(reads["end"], base + size // 2)
        return reads

    def assert_equal_or_reported(self, got, want, counters, emitted):
        """Every item is the conversion of the ramp, except items the host reported
        lost (a loaded machine: the emulator drops what it cannot send in time), which
        are zeros; emitted = delivered + lost, to the sample."""
        differs = got != want
        if differs.ndim > 1:
            differs = differs.any(axis=1)
        bad = np.nonzero(differs)[0]
        host = {k: v for k, v in counters.items() if k.startswith("host.")}
        self.assertEqual(counters["device.samples_emitted"], emitted)
        self.assertEqual(host["host.delivered"] + host["host.lost"], emitted, host)
        self.assertLessEqual(len(bad), host["host.lost"],
                             "first unreported difference at item %s; %s" % (bad[:1], host))
        nonzero = got[bad] != 0
        if nonzero.ndim > 1:
            nonzero = nonzero.any(axis=1)
        self.assertFalse(nonzero.any(), "a differing item is not a lost sample's zero")
        if host["host.lost"]:
            print("note: %d samples lost and reported (loaded machine); the rest equal "
                  "the conversion" % host["host.lost"])

    def run_conversion(self, wire, cpu, samples=SAMPLES, args=ARGS):
        tb = gr.top_block()
        src = rdma.rx_source(args, cpu_format=cpu, otw_format=wire,
                             sample_rate=RATE, num_samples=samples)
        self.assertEqual(src.cpu_format(), cpu)
        self.assertEqual(src.otw_format(), wire)
        self.assertGreaterEqual(samples / src.ring_items(), 5,
                                "the test must cover at least 5 ring wraps")
        sink = sink_for(cpu, samples)
        tb.connect(src, sink)
        tb.run()
        return src, sink

    def check_conversion(self, wire, cpu):
        src, sink = self.run_conversion(wire, cpu)
        got = received(sink, cpu)
        self.assertEqual(len(got), SAMPLES)
        want = expected(wire, cpu, SAMPLES)
        c = src.read_counters()
        self.assert_equal_or_reported(got, want, c, SAMPLES)
        reads = self.assert_read_in_ring(src)
        self.assertEqual(reads["items"], SAMPLES)
        return src, sink

    def test_sc16_wire_fc32_flowgraph_equals_volk_of_the_ramp(self):
        _, sink = self.check_conversion("sc16", "fc32")
        # Tags as with zero copy: rx_time and rx_rate on item 0.
        keys = {pmt.symbol_to_string(t.key): t.offset for t in sink.tags()}
        self.assertEqual(keys.get("rx_time"), 0)
        self.assertEqual(keys.get("rx_rate"), 0)

    def test_sc8_wire_fc32_flowgraph_equals_volk_of_the_ramp(self):
        self.check_conversion("sc8", "fc32")

    def test_sc8_wire_sc16_flowgraph(self):
        self.check_conversion("sc8", "sc16")

    def test_sc16_wire_sc8_flowgraph(self):
        self.check_conversion("sc16", "sc8")

    def test_fc32_wire_to_integer_flowgraphs_round_and_saturate(self):
        # fc32 on the wire, sc16 or sc8 in the flowgraph: x * 32768 (x * 128), rounded
        # to nearest, saturated. The emulator's clipped tone (full scale +-1.0 reached
        # half the time, values in between on the edges) is a function of the sample
        # index: a zero-copy fc32 run gives the values the converting runs start from.
        args = "type=emu,signal=clipped_tone,freq=123e3,emu_pace=consumer"
        n = 200000

        def run(cpu, otw):
            tb = gr.top_block()
            src = rdma.rx_source(args, cpu_format=cpu, otw_format=otw,
                                 sample_rate=1e6, num_samples=n)
            sink = sink_for(cpu, n)
            tb.connect(src, sink)
            tb.run()
            return received(sink, cpu)

        x = run("fc32", "fc32")
        iq = np.stack([x.real, x.imag], axis=1).astype(np.float32)
        for cpu, scale, lo, hi in (("sc16", 32768.0, -32768, 32767), ("sc8", 128.0, -128, 127)):
            want = np.clip(np.rint(iq * np.float32(scale)), lo, hi)
            got = run(cpu, "fc32").astype(np.float64)
            self.assertEqual(got.shape, want.shape)
            self.assertTrue(np.array_equal(got, want), cpu)
            self.assertEqual((got.min(), got.max()), (lo, hi))  # +1.0 saturated

    def test_fc32_scale_is_full_scale_one(self):
        # The scale the docs state, at the extremes: -32768 -> -1.0, 32767 -> 1 - 2^-15.
        want = expected("sc16", "fc32", 1 << 16)
        self.assertEqual(want[32767].real, 32767 / 32768.0)
        self.assertEqual(want[32768].real, -1.0)
        want8 = expected("sc8", "fc32", 256)
        self.assertEqual(want8[127].real, 127 / 128.0)
        self.assertEqual(want8[128].real, -1.0)

    def test_sc8_zero_copy_ramp_bit_exact(self):
        # sc8 end to end without conversion: the emulator's sc8 ramp, checked in the
        # ring in place, rx_time against the sample the data carries.
        tb = gr.top_block()
        src = rdma.rx_source(ARGS, "sc8", RATE, SAMPLES)
        check = rdma.ramp_check("sc8", src.ring_base(), 2 * src.ring_bytes())
        tb.connect(src, check)
        tb.msg_connect((src, "async_msgs"), (check, "events"))
        tb.run()
        self.assertEqual(check.items_checked(), SAMPLES)
        self.assertEqual(check.mismatches(), 0,
                         "first mismatch at item %d" % check.first_mismatch())
        self.assertEqual(check.time_errors(), 0)
        self.assertGreater(check.time_tags(), 0)
        self.assertEqual(check.out_of_range_calls(), 0)
        self.assertEqual(src.conversion_reads()["calls"], 0)

    def test_equal_formats_stay_zero_copy(self):
        tb = gr.top_block()
        src = rdma.rx_source(ARGS, cpu_format="sc16", otw_format="sc16",
                             sample_rate=RATE, num_samples=SAMPLES)
        check = rdma.ramp_check("sc16", src.ring_base(), 2 * src.ring_bytes())
        tb.connect(src, check)
        tb.run()
        self.assertEqual(check.items_checked(), SAMPLES)
        self.assertEqual(check.mismatches(), 0)
        self.assertGreater(check.work_calls(), 10)
        self.assertEqual(check.out_of_range_calls(), 0)  # read in the ring itself
        self.assertEqual(src.conversion_reads(), {"calls": 0, "items": 0,
                                                  "lowest": 0, "end": 0})

    def test_format_alone_sets_both(self):
        src = rdma.rx_source(ARGS, "fc32", RATE, 1000)
        self.assertEqual((src.cpu_format(), src.otw_format()), ("fc32", "fc32"))
        src = rdma.rx_source(ARGS, "fc32", RATE, 1000, 1, "sc8")
        self.assertEqual((src.cpu_format(), src.otw_format()), ("fc32", "sc8"))

    def test_unknown_format_names_the_choices(self):
        with self.assertRaisesRegex(ValueError, "sc8"):
            rdma.rx_source(ARGS, cpu_format="fc32", otw_format="sc12")

    def test_two_channels_convert_each_from_its_own_ring(self):
        # Item k of both outputs is the same device instant; each output is converted
        # from its own ring.
        samples = int(2e6)
        tb = gr.top_block()
        src = rdma.rx_source(ARGS, "fc32", 4e6, samples, 2, "sc16")
        sinks = [blocks.vector_sink_c(1, samples) for _ in range(2)]
        for c, sink in enumerate(sinks):
            tb.connect((src, c), sink)
        tb.run()
        want = expected("sc16", "fc32", samples)
        rings = set()
        for c, sink in enumerate(sinks):
            got = np.array(sink.data(), dtype=np.complex64)
            self.assertEqual(len(got), samples)
            self.assert_equal_or_reported(got, want, src.read_counters(c), samples)
            reads = src.conversion_reads(c)
            base = src.ring_base(c)
            self.assertGreater(reads["calls"], 0)
            self.assertGreaterEqual(reads["lowest"], base)
            self.assertLessEqual(reads["end"], base + 2 * src.ring_bytes())
            rings.add(base)
        self.assertEqual(len(rings), 2)
        time0 = [[t.value for t in sink.tags() if pmt.symbol_to_string(t.key) == "rx_time"
                  and t.offset == 0] for sink in sinks]
        self.assertTrue(pmt.equal(time0[0][0], time0[1][0]))

    def check_loss(self, wire):
        # Injected loss with a conversion: the same accounting, to the sample; the lost
        # samples are zeros in the flowgraph, the others VOLK's conversion of the ramp.
        samples = int(4e6)
        args = ARGS + ",fault_seed=11,loss=0.01,loss_burst=1"
        tb = gr.top_block()
        src = rdma.rx_source(args, cpu_format="fc32", otw_format=wire,
                             sample_rate=20e6, num_samples=samples)
        sink = blocks.vector_sink_c(1, samples)
        reports = blocks.message_debug()
        tb.connect(src, sink)
        tb.msg_connect((src, "async_msgs"), (reports, "store"))
        tb.run()
        c = src.read_counters()
        self.assertEqual(c["device.samples_emitted"], samples)
        self.assertEqual(c["device.samples_emitted"], c["host.delivered"] + c["host.lost"])
        self.assertGreater(c["host.lost_gap"], 0, "nothing was lost: the test tests nothing")
        self.assertEqual(c["host.lost_skipped"], 0)
        events = [pmt.to_python(pmt.cdr(reports.get_message(i)))
                  for i in range(reports.num_messages())]
        gaps = [(e["first_sample"], e["count"]) for e in events if e["type"] == "gap"]
        self.assertEqual(sum(n for _, n in gaps), c["host.lost_gap"])
        drops = [f for f in src.read_injected_faults() if f["kind"] == "drop"]
        self.assertEqual(sum(f["samples"] for f in drops), c["host.lost_gap"])
        got = np.array(sink.data(), dtype=np.complex64)
        self.assertEqual(len(got), samples)
        lost = np.zeros(samples, dtype=bool)
        for first, count in gaps:
            lost[first:first + count] = True
        self.assertTrue(np.all(got[lost] == 0), "a lost sample is not zero")
        want = expected(wire, "fc32", samples)
        bad = np.nonzero(got[~lost] != want[~lost])[0]
        self.assertEqual(len(bad), 0, "delivered samples differ from the ramp")
        tagged = sorted(t.offset for t in sink.tags()
                        if pmt.symbol_to_string(t.key) == "rx_gap")
        self.assertEqual(tagged, sorted(first for first, _ in gaps))
        self.assert_read_in_ring(src)

    def test_loss_with_sc16_wire_accounts_every_sample(self):
        self.check_loss("sc16")

    def test_loss_with_sc8_wire_accounts_every_sample(self):
        self.check_loss("sc8")


if __name__ == '__main__':
    gr_unittest.run(qa_wire_format)
