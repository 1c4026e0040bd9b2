#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""The radio in a flowgraph (docs/radio.md, "Host side"): an rdma.device block and a
two-channel rx_source on the emulator's RF scene, one tone at RF frequency F. The tone
shows at baseband F - center; a retune from the device block moves it, tagged rx_freq
on the first sample taken at the new frequency; a command with a time retunes at that
device time, to the sample; a bad command comes back as an error report and the
flowgraph runs on. Also the rx_source's own controls and command port, and the
device block's setters, sources, start time and reports.

The tests that need the emulator's RF channels are skipped, visibly ("device has no RF
front end"), on an emulator without them; qa_without_rf runs on every emulator."""

import math
import time
import unittest

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import rdma

RATE = 1e6
TONE = 100.25e6  # RF frequency of the scene's one tone
FC0 = 100e6      # tone at +250 kHz
FC1 = 100.125e6  # tone at +125 kHz
FC2 = 100.375e6  # tone at -125 kHz
ARGS = "type=emu,signal=scene,scene=%.6g:0.5" % TONE
BASE = "type=emu"  # the same emulator without the scene: any map 1.3 feature optional
# The streams of the same emulator paced by their consumer (a test mode,
# docs/device-args.md): no sample lost to a busy machine, so every output has all its
# items, each tagged and tuned as the device did it.
PACED = ARGS + ",emu_pace=consumer"
FFT = 1000       # 1 kHz bins at 1 MS/s: each tone sits on a bin
COMMAND = pmt.intern("command")


def ns_of(tag_or_tuple):
    value = tag_or_tuple.value if hasattr(tag_or_tuple, "value") else tag_or_tuple
    secs = pmt.to_uint64(pmt.tuple_ref(value, 0))
    frac = pmt.to_double(pmt.tuple_ref(value, 1))
    return secs * 1000000000 + round(frac * 1e9)


def time_pmt(ns):
    """A device time as gr-uhd's command dicts take it: (uint64 secs, double frac)."""
    return pmt.make_tuple(pmt.from_uint64(ns // 1000000000),
                          pmt.from_double((ns % 1000000000) * 1e-9))


def command(**keys):
    d = pmt.make_dict()
    for k, v in keys.items():
        value = v if isinstance(v, pmt.pmt_base) else pmt.to_pmt(v)
        d = pmt.dict_add(d, pmt.intern(k), value)
    return d


def peak_hz(x):
    """The strongest baseband frequency of a stretch of samples, Hz."""
    spectrum = np.abs(np.fft.fft(np.asarray(x[:FFT])))
    b = int(np.argmax(spectrum))
    return (b if b < FFT // 2 else b - FFT) * RATE / FFT


def inst_hz(x, k):
    """Frequency between samples k and k+1, Hz (phase step per sample)."""
    return np.angle(x[k + 1] * np.conj(x[k])) * RATE / (2 * math.pi)


def first_sample_at(start_ns, at_ns):
    """Index of the first sample taken at or after device time at_ns (exact)."""
    return -((-(at_ns - start_ns) * int(RATE)) // 1000000000)


def tags_of(sink, key):
    return sorted(((t.offset, t.value) for t in sink.tags()
                   if pmt.symbol_to_string(t.key) == key), key=lambda t: t[0])


def wait_for(predicate, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def reports_of(debug):
    return [debug.get_message(i) for i in range(debug.num_messages())]


def field(report, key):
    return pmt.dict_ref(report, pmt.intern(key), pmt.PMT_NIL)


def acks(reports):
    return [r for r in reports if not pmt.is_null(field(r, "ack"))]


def errors(reports):
    return [r for r in reports if not pmt.is_null(field(r, "error"))]


def error_texts(reports):
    """The refusals among \p reports as text: what a failed assertion can print."""
    return [pmt.write_string(field(r, "error")) for r in errors(reports)]


def rf_channels():
    """The emulator's RF channels. Asked with BASE: an emulator without RF channels
    (register map 1.2) does not know the scene= arg either."""
    return rdma.sdr(BASE).num_channels()


# Skipped, and said so, only when the emulator has no RF front end at all; one with
# fewer than two channels fails in setUp.
needs_rf = unittest.skipIf(rf_channels() == 0, "device has no RF front end")

# Commands refused whole, each with the one line its report must hold: the same on
# rdma.device and rx_source (both speak for two channels in these tests).
BAD_COMMANDS = [
    (command(freq=FC1, frobnicate=1), "unknown key 'frobnicate'"),
    (command(freq="high"), "freq: high is not a number"),
    (command(freq=FC1, chan=2), r"chan: 2 is out of range 0..1"),
    (command(freq=FC1, time="noon"), "time: noon is not a device time"),
    (command(freq=FC1, time=(1, 1.5)), "is not a device time"),
    (command(antenna=3), "antenna: 3 is not a name"),
    (command(tune=(FC1, 1e3)), "LO offset of 1000 Hz is not supported"),
    (command(freq=FC1, lo_offset=5e3), "lo_offset: 5000 Hz is not supported"),
    (command(freq=FC1, direction="TX"), "the device only receives"),
    (command(freq=FC1, mboard=1), "mboard: 1 does not exist"),
    (command(freq=FC1, rate=2e6, time=1.0),
     "rate: (not applicable|a timed rate change is not supported)"),
    (command(rate=-5.0), "rate: (not applicable|-5 S/s is not a sample rate)"),
    (command(chan=0), "nothing to set"),
    (pmt.from_long(7), "a command is a dict"),
    (pmt.make_tuple(pmt.intern("freq")), "a command tuple is"),
]


@needs_rf
class qa_radio_flowgraph(gr_unittest.TestCase):

    def setUp(self):
        self.assertGreaterEqual(rdma.sdr(ARGS).num_channels(), 2,
                                "the emulator needs two RF channels (docs/radio.md)")

    def test_device_block_tunes_two_channels_to_the_sample(self):
        items = 1500000
        tb = gr.top_block()
        dev = rdma.device(ARGS, 2, "", "", "now", 0)
        for c in range(2):
            self.assertEqual(dev.set_center_freq(FC0, c).actual, FC0)
            dev.set_gain(0, c)
        src = rdma.rx_source(PACED, "fc32", RATE, items, 2)
        start = dev.get_time_now() + 300000000
        src.set_start_time(start)
        sinks = [blocks.vector_sink_c() for _ in range(2)]
        for c in range(2):
            tb.connect((src, c), sinks[c])
        debug = blocks.message_debug()
        tb.msg_connect((dev, "reports"), (debug, "store"))
        tb.start()
        try:
            # Run time: a retune of channel 0 from the device block, once samples flow.
            self.assertTrue(wait_for(lambda: dev.get_time_now() > start + 200000000))
            retune = dev.set_center_freq(FC1, 0)
            self.assertEqual(retune.actual, FC1)
            self.assertFalse(retune.clipped)
            # A command with a time, for both channels, half a sample past a sample.
            at = start + 900000500
            self.assertLess(dev.get_time_now() + 200000000, at, "the test ran late")
            dev._post(COMMAND, command(freq=FC2, time=time_pmt(at)))
            bad = command(frobnicate=1)
            dev._post(COMMAND, bad)
            self.assertTrue(wait_for(
                lambda: dev.get_time_now() > start + int(items / RATE * 1e9) + 300000000))
            self.assertTrue(wait_for(lambda: all(len(s.data()) == items for s in sinks)))
            reports = reports_of(debug)
        finally:
            tb.stop()
            tb.wait()
        self.assertEqual(src.error(), "")
        timed_k = first_sample_at(start, at)
        self.assertEqual(timed_k, 900001)
        for c in range(2):
            x = np.array(sinks[c].data())
            self.assertEqual(len(x), items)
            # Sample 0 at the start time, on both channels.
            rx_time = [t for t in sinks[c].tags()
                       if pmt.symbol_to_string(t.key) == "rx_time" and t.offset == 0]
            self.assertEqual(len(rx_time), 1, "channel %d" % c)
            self.assertLess(abs(ns_of(rx_time[0]) - start), 1000, "channel %d" % c)
            # The tone at F - center.
            freqs = tags_of(sinks[c], "rx_freq")
            self.assertEqual(freqs[0], (0, freqs[0][1]))
            self.assertEqual(pmt.to_double(freqs[0][1]), FC0)
            self.assertEqual(peak_hz(x[1000:]), TONE - FC0, "channel %d" % c)
            # The timed retune, exactly at its sample, on both.
            timed = [k for k, v in freqs if pmt.to_double(v) == FC2]
            self.assertEqual(timed, [timed_k], "channel %d: %s" % (c, freqs))
            before = FC1 if c == 0 else FC0
            self.assertAlmostEqual(inst_hz(x, timed_k - 2), TONE - before, delta=50)
            self.assertAlmostEqual(inst_hz(x, timed_k), TONE - FC2, delta=50)
            self.assertEqual(peak_hz(x[timed_k + 10:]), TONE - FC2, "channel %d" % c)
            if c == 1:
                self.assertEqual([pmt.to_double(v) for _, v in freqs], [FC0, FC2])
                continue
            # The run-time retune of channel 0: the tagged sample has the new frequency,
            # the one before the old.
            untimed = [k for k, v in freqs if pmt.to_double(v) == FC1]
            self.assertEqual(len(untimed), 1, freqs)
            k = untimed[0]
            self.assertTrue(0 < k < timed_k, freqs)
            self.assertAlmostEqual(inst_hz(x, k - 2), TONE - FC0, delta=50)
            self.assertAlmostEqual(inst_hz(x, k), TONE - FC1, delta=50)
            self.assertEqual(peak_hz(x[k + 10:]), TONE - FC1)
        # The reports: an ack per channel for the timed command, an error for the bad
        # one, which named the key and left the flowgraph running.
        timed_acks = acks(reports)
        self.assertEqual(len(timed_acks), 2, reports)
        timed_acks.sort(key=lambda r: pmt.to_uint64(field(r, "chan")))
        for c, ack in enumerate(timed_acks):
            self.assertEqual(pmt.to_uint64(field(ack, "chan")), c)
            self.assertEqual(pmt.symbol_to_string(field(ack, "key")), "freq")
            self.assertEqual(pmt.to_double(field(ack, "requested")), FC2)
            self.assertEqual(pmt.to_double(field(ack, "actual")), FC2)
            self.assertEqual(ns_of(field(ack, "time")), at)
            self.assertFalse(pmt.to_bool(field(ack, "clipped")))
        refused = errors(reports)
        self.assertEqual(len(refused), 1, reports)
        self.assertIn("unknown key 'frobnicate'",
                      pmt.symbol_to_string(field(refused[0], "error")))
        self.assertTrue(pmt.equal(field(refused[0], "command"), bad))

    def test_rx_source_command_port(self):
        items = 1200000
        tb = gr.top_block()
        src = rdma.rx_source(PACED, "fc32", RATE, items, 2)
        for c in range(2):
            src.set_center_freq(FC0, c)
        start = src.get_time_now() + 300000000
        src.set_start_time(start)
        sinks = [blocks.vector_sink_c() for _ in range(2)]
        for c in range(2):
            tb.connect((src, c), sinks[c])
        debug = blocks.message_debug()
        tb.msg_connect((src, "async_msgs"), (debug, "store"))
        tb.start()
        # A time as a double of seconds, for output 1 only; its rounding (well under a
        # microsecond at today's epoch) stays within the half sample of margin.
        at = start + 600000500
        src._post(COMMAND, command(freq=FC2, chan=1, time=at / 1e9))
        rate = command(rate=2e6)
        src._post(COMMAND, rate)
        tb.wait()  # the burst ends the flowgraph: the refused command did not stop it
        self.assertEqual(src.error(), "")
        messages = reports_of(debug)
        reports = [pmt.cdr(m) for m in messages
                   if pmt.is_pair(m) and pmt.eq(pmt.car(m), pmt.intern("rdma_command"))]
        freq_acks = [a for a in acks(reports)
                     if pmt.symbol_to_string(field(a, "key")) == "freq"]
        self.assertEqual(len(freq_acks), 1, reports)
        ack = freq_acks[0]
        self.assertEqual(pmt.to_uint64(field(ack, "chan")), 1)
        self.assertEqual(pmt.to_double(field(ack, "actual")), FC2)
        # The rate is taken up (an ack), then refused where it would happen: a finite
        # burst keeps its rate.
        self.assertEqual([pmt.to_double(field(a, "requested")) for a in acks(reports)
                          if pmt.symbol_to_string(field(a, "key")) == "rate"], [2e6])
        refused = errors(reports)
        self.assertEqual(len(refused), 1, reports)
        self.assertEqual(pmt.symbol_to_string(field(refused[0], "key")), "rate")
        self.assertIn("a finite burst keeps its rate",
                      pmt.symbol_to_string(field(refused[0], "error")))
        k = first_sample_at(start, at)
        self.assertEqual(k, 600001)
        self.assertEqual([(o, pmt.to_double(v)) for o, v in tags_of(sinks[1], "rx_freq")],
                         [(0, FC0), (k, FC2)])
        self.assertEqual([(o, pmt.to_double(v)) for o, v in tags_of(sinks[0], "rx_freq")],
                         [(0, FC0)])
        x = np.array(sinks[1].data())
        self.assertEqual(len(x), items)
        self.assertAlmostEqual(inst_hz(x, k - 2), TONE - FC0, delta=50)
        self.assertAlmostEqual(inst_hz(x, k), TONE - FC2, delta=50)
        self.assertEqual(src.get_center_freq(1), FC2)
        self.assertEqual(src.get_center_freq(0), FC0)

    def test_rx_source_setters_speak_for_its_outputs(self):
        # Output c is RF channel stream= + c.
        src = rdma.rx_source(ARGS + ",stream=1", "fc32", RATE, 0, 1)
        radio = rdma.sdr(ARGS)
        radio.set_center_freq(FC0, 1)
        r = src.set_center_freq(FC1, 0)
        self.assertEqual((r.requested, r.actual, r.clipped), (FC1, FC1, False))
        self.assertEqual(radio.get_center_freq(1), FC1)
        self.assertEqual(src.get_center_freq(0), FC1)
        g = src.set_gain(10, 0)
        self.assertEqual(g.actual, 10)
        self.assertEqual(radio.get_gain(1), 10)
        self.assertEqual(src.get_gain_range(0).stop, radio.get_gain_range(1).stop)
        self.assertEqual(src.get_antennas(0), radio.get_antennas(1))
        src.set_antenna("ANT1", 0)
        self.assertEqual(radio.get_antenna(1), "ANT1")
        src.set_antenna("ANT0", 0)
        with self.assertRaisesRegex(ValueError, r"chan=1 is out of range 0..0"):
            src.set_center_freq(FC0, 1)
        # Outside the range: clipped, not refused (the tune_result says so).
        high = src.set_center_freq(1e12, 0)
        self.assertTrue(high.clipped)
        self.assertEqual(high.actual, src.get_freq_range(0).stop)
        # A command time: the setting waits for it.
        at = src.get_time_now() + 500000000
        src.set_command_time(at)
        timed = src.set_center_freq(FC2, 0)
        src.clear_command_time()
        self.assertEqual(timed.time_ns, at)
        self.assertNotEqual(src.get_center_freq(0), FC2)
        self.assertTrue(wait_for(lambda: src.get_center_freq(0) == FC2, 3))


def run_commands(dev, *messages):
    """Post the messages to a running device block; its reports."""
    tb = gr.top_block()
    debug = blocks.message_debug()
    tb.msg_connect((dev, "reports"), (debug, "store"))
    tb.start()
    try:
        for m in messages:
            dev._post(COMMAND, m)
        wait_for(lambda: debug.num_messages() >= len(messages), 5)
        time.sleep(0.1)  # and whatever else they bring
    finally:
        tb.stop()
        tb.wait()
    return reports_of(debug)


@needs_rf
class qa_radio_block(gr_unittest.TestCase):

    RADIO = ["num_channels", "set_center_freq", "get_center_freq", "get_freq_range",
             "set_gain", "get_gain", "get_gain_range", "set_bandwidth", "get_bandwidth",
             "get_bandwidth_range", "set_antenna", "get_antenna", "get_antennas",
             "get_time_now", "set_command_time", "clear_command_time"]

    def test_one_radio_api_for_rx_source_and_device(self):
        # Declared once (radio_block, as gr-uhd's usrp_block), inherited by both blocks:
        # neither declares a radio control of its own.
        self.assertEqual(sorted(n for n in vars(rdma.radio_block) if not n.startswith("_")),
                         sorted(self.RADIO))
        for block in (rdma.rx_source, rdma.device):
            self.assertTrue(issubclass(block, rdma.radio_block), block)
            self.assertEqual([n for n in self.RADIO if n in vars(block)], [], block)
        # The register map's RF channels receive: the sink has none.
        self.assertFalse(issubclass(rdma.tx_sink, rdma.radio_block))
        # One implementation: a block's channel c is RF channel first + c, for both.
        src = rdma.rx_source(ARGS + ",stream=1", "fc32", 1e6, 0, 1)
        dev = rdma.device(ARGS, 2)
        self.assertEqual(src.num_channels(), 1)
        src.set_center_freq(FC1, 0)
        self.assertEqual(dev.get_center_freq(1), FC1)
        self.assertEqual(src.get_bandwidth_range(0).stop, dev.get_bandwidth_range(1).stop)
        with self.assertRaisesRegex(ValueError, r"chan=1 is out of range 0..0"):
            src.get_gain(1)


class qa_device_block(gr_unittest.TestCase):

    def setUp(self):
        self.assertGreaterEqual(rdma.sdr(ARGS).num_channels(), 2,
                                "the emulator needs two RF channels (docs/radio.md)")

    def test_setters_getters_and_clipping(self):
        dev = rdma.device(ARGS, 2)
        self.assertEqual(dev.num_channels(), 2)
        r = dev.set_center_freq(FC1, 1)
        self.assertEqual((r.actual, r.clipped), (FC1, False))
        self.assertEqual(dev.get_center_freq(1), FC1)
        span = dev.get_freq_range(0)
        self.assertLess(span.start, FC0)
        self.assertGreater(span.stop, FC0)
        low = dev.set_center_freq(1.0, 0)
        self.assertEqual((low.actual, low.clipped), (span.start, True))
        gains = dev.get_gain_range(0)
        g = dev.set_gain(gains.stop + 100, 0)
        self.assertEqual((g.actual, g.clipped), (gains.stop, True))
        self.assertEqual(dev.get_gain(0), gains.stop)
        dev.set_gain(0, 0)
        bw = dev.get_bandwidth_range(0)
        self.assertEqual(dev.set_bandwidth(bw.stop, 0).actual, bw.stop)
        self.assertEqual(dev.get_bandwidth(0), bw.stop)
        self.assertEqual(dev.get_antennas(0)[:2], ["ANT0", "ANT1"])
        dev.set_antenna("ANT1", 1)
        self.assertEqual(dev.get_antenna(1), "ANT1")
        dev.set_antenna("ANT0", 1)
        with self.assertRaisesRegex(ValueError, "antenna 'ANT9'.*does not exist"):
            dev.set_antenna("ANT9", 0)
        with self.assertRaisesRegex(ValueError, r"chan=2 is out of range 0..1"):
            dev.set_gain(0, 2)
        self.assertIn("internal", dev.get_clock_sources())
        self.assertIn("internal", dev.get_time_sources())

    def test_time_at_start(self):
        dev = rdma.device(ARGS, 0, "internal", "internal", "now")
        self.assertEqual(dev.get_clock_source(), "internal")
        self.assertEqual(dev.get_time_source(), "internal")
        self.assertLess(abs(dev.get_time_now() - time.time_ns()), 50000000)
        # Off by an hour, then back to the host's clock at a PPS edge: whole seconds.
        dev.set_time_now(time.time_ns() + 3600 * 10**9)
        self.assertGreater(dev.get_time_now() - time.time_ns(), 3500 * 10**9)
        dev = rdma.device(ARGS, 0, "", "", "pps")
        last = dev.get_time_last_pps()
        self.assertEqual(last % 1000000000, 0)
        # The emulator's PPS edges come on its own oscillator's seconds: the device time
        # is the host's to within a second.
        self.assertLess(abs(dev.get_time_now() - time.time_ns()), 1100000000)
        self.assertLess(abs(last - time.time_ns()), 2100000000)

    def test_command_time_applies_to_setters(self):
        dev = rdma.device(ARGS, 1)
        dev.set_gain(0, 0)
        at = dev.get_time_now() + 400000000
        dev.set_command_time(at)
        r = dev.set_gain(20, 0)
        dev.clear_command_time()
        self.assertEqual((r.actual, r.time_ns), (20, at))
        self.assertEqual(dev.get_gain(0), 0)
        self.assertTrue(wait_for(lambda: dev.get_gain(0) == 20, 3))
        self.assertEqual(dev.set_gain(0, 0).actual, 0)  # cleared: at once
        self.assertEqual(dev.get_gain(0), 0)

    def test_commands_and_their_reports(self):
        dev = rdma.device(ARGS, 2)
        for c in range(2):
            dev.set_center_freq(FC0, c)
            dev.set_gain(0, c)
        legacy = pmt.make_tuple(pmt.intern("freq"), pmt.from_double(FC1),
                                pmt.from_long(1))
        pair = pmt.cons(pmt.intern("gain"), pmt.from_double(6))
        several = command(gain=12, antenna="ANT1", chan=0, direction="RX", mboard=0,
                          lo_offset=0)
        tune = command(tune=(FC2, 0.0), chan=0)
        reports = run_commands(dev, legacy, pair, several, tune)
        self.assertEqual(error_texts(reports), [])
        got = [(pmt.to_uint64(field(r, "chan")), pmt.symbol_to_string(field(r, "key")),
                pmt.to_python(field(r, "actual"))) for r in acks(reports)]
        self.assertEqual(got, [(1, "freq", FC1), (0, "gain", 6.0), (1, "gain", 6.0),
                               (0, "gain", 12.0), (0, "antenna", "ANT1"),
                               (0, "freq", FC2)])
        for r in acks(reports):
            self.assertGreater(ns_of(field(r, "time")), 0)
        self.assertTrue(pmt.equal(field(acks(reports)[0], "ack"), legacy))
        self.assertEqual((dev.get_center_freq(0), dev.get_center_freq(1)), (FC2, FC1))
        self.assertEqual((dev.get_gain(0), dev.get_gain(1)), (12, 6))
        self.assertEqual(dev.get_antenna(0), "ANT1")

    def test_bad_commands_are_reported_and_change_nothing(self):
        dev = rdma.device(ARGS, 2)
        for c in range(2):
            dev.set_center_freq(FC0, c)
            dev.set_antenna("ANT0", c)
        reports = run_commands(dev, *[m for m, _ in BAD_COMMANDS])
        self.assertEqual(acks(reports), [])
        refused = errors(reports)
        self.assertEqual(len(refused), len(BAD_COMMANDS), refused)
        for (msg, why), r in zip(BAD_COMMANDS, refused):
            self.assertRegex(pmt.symbol_to_string(field(r, "error")), why)
            self.assertTrue(pmt.equal(field(r, "command"), msg))
        self.assertEqual((dev.get_center_freq(0), dev.get_center_freq(1)), (FC0, FC0))
        # A value the device refuses fails that setting alone, on each channel.
        reports = run_commands(dev, command(antenna="ANT9", gain=3))
        self.assertEqual([pmt.symbol_to_string(field(r, "key")) for r in acks(reports)],
                         ["gain", "gain"])
        refused = errors(reports)
        self.assertEqual(len(refused), 2, reports)
        for c, r in enumerate(refused):
            self.assertEqual(pmt.to_uint64(field(r, "chan")), c)
            self.assertRegex(pmt.symbol_to_string(field(r, "error")),
                             "chan %d: antenna: antenna 'ANT9'.*does not exist" % c)
        self.assertEqual(dev.get_antenna(0), "ANT0")


@needs_rf
class qa_rate_at_run_time(gr_unittest.TestCase):
    """set_samp_rate while the source runs: every output changes at one item, tagged
    rx_rate and rx_time there, with no sample lost (the tone's phase step per sample
    shows the new spacing)."""

    def test_set_samp_rate_changes_both_channels_at_one_item(self):
        items, new_rate = 1500000, RATE / 2
        tb = gr.top_block()
        src = rdma.rx_source(PACED, "fc32", RATE, 0, 2)  # continuous
        for c in range(2):
            src.set_center_freq(FC1, c)  # +125 kHz: below Nyquist at both rates
        heads = [blocks.head(gr.sizeof_gr_complex, items) for _ in range(2)]
        sinks = [blocks.vector_sink_c() for _ in range(2)]
        for c in range(2):
            tb.connect((src, c), heads[c], sinks[c])
        debug = blocks.message_debug()
        tb.msg_connect((src, "async_msgs"), (debug, "store"))
        tb.start()
        self.assertTrue(wait_for(lambda: len(sinks[0].data()) > 200000))
        src.set_samp_rate(new_rate)
        tb.wait()
        self.assertEqual(src.error(), "")
        self.assertEqual(error_texts([pmt.cdr(m) for m in reports_of(debug) if pmt.is_pair(m)]),
                         [])
        changes = []
        for c in range(2):
            x = np.array(sinks[c].data())
            self.assertEqual(len(x), items)
            rates = tags_of(sinks[c], "rx_rate")
            self.assertEqual(len(rates), 2, "channel %d: %s" % (c, rates))
            self.assertEqual(pmt.to_double(rates[0][1]), RATE)
            k, value = rates[1]
            self.assertEqual(pmt.to_double(value), new_rate)
            self.assertTrue(200000 < k < items - 1000, k)
            times = dict((o, ns_of(v)) for o, v in tags_of(sinks[c], "rx_time"))
            self.assertIn(k, times)
            # Continuous items, the later ones spaced at the new rate: the tone's phase
            # step per sample doubles when the rate halves.
            self.assertEqual(tags_of(sinks[c], "rx_gap"), [])
            self.assertAlmostEqual(inst_hz(x, k - 2), TONE - FC1, delta=50)
            self.assertAlmostEqual(inst_hz(x, k + 1) * new_rate / RATE, TONE - FC1,
                                   delta=100)
            changes.append((k, times[k]))
        self.assertEqual(changes[0], changes[1], "the channels changed at different items")
        self.assertEqual(src.get_samp_rate(), new_rate)


class qa_without_rf(gr_unittest.TestCase):
    """What needs no RF front end: runs on every emulator."""

    def test_bad_construction_names_the_fix(self):
        n = rdma.sdr(BASE).num_channels()
        with self.assertRaisesRegex(ValueError, "num_channels=%d but the device has %d "
                                    "RF channel" % (n + 1, n)):
            rdma.device(BASE, n + 1)
        with self.assertRaisesRegex(ValueError, "time_at_start='soon' is invalid"):
            rdma.device(BASE, 0, "", "", "soon")
        with self.assertRaisesRegex(ValueError, "report_interval=-1.* is invalid"):
            rdma.device(BASE, 0, "", "", "", -1)
        with self.assertRaisesRegex(ValueError,
                                    "clock source 'rubidium' is not available"):
            rdma.device(BASE, 0, "rubidium")

    def test_device_time_reports(self):
        dev = rdma.device(BASE, 0, "", "", "", 0.1)
        tb = gr.top_block()
        debug = blocks.message_debug()
        tb.msg_connect((dev, "reports"), (debug, "store"))
        tb.start()
        time.sleep(0.55)
        tb.stop()
        tb.wait()
        times = [ns_of(field(r, "device_time")) for r in reports_of(debug)]
        self.assertTrue(4 <= len(times) <= 6, times)
        steps = np.diff(times)
        self.assertTrue(all(50000000 < s < 250000000 for s in steps), steps)
        n = len(times)
        time.sleep(0.3)
        self.assertEqual(debug.num_messages(), n, "reports after the flowgraph stopped")

    def test_rx_source_refuses_commands_and_runs_on(self):
        # A message handler that threw would end the source's thread: every refusal
        # comes back as a report instead, and the burst ends the flowgraph as usual.
        # One second of samples: time for the commands before the burst ends.
        items = 1000000
        tb = gr.top_block()
        src = rdma.rx_source(BASE + ",emu_pace=consumer", "fc32", RATE, items, 2)
        sinks = [blocks.vector_sink_c() for _ in range(2)]
        for c in range(2):
            tb.connect((src, c), sinks[c])
        debug = blocks.message_debug()
        tb.msg_connect((src, "async_msgs"), (debug, "store"))
        # A value the device refuses fails that setting alone, on each channel: an
        # antenna it lacks (without an RF front end: every antenna).
        refused_by_device = command(antenna="ANT9")
        tb.start()
        for m, _ in BAD_COMMANDS:
            src._post(COMMAND, m)
        src._post(COMMAND, refused_by_device)
        tb.wait()
        self.assertEqual(src.error(), "")
        for c in range(2):
            self.assertEqual(len(sinks[c].data()), items)
        reports = [pmt.cdr(m) for m in reports_of(debug)
                   if pmt.is_pair(m) and pmt.eq(pmt.car(m), pmt.intern("rdma_command"))]
        self.assertEqual(acks(reports), [])
        refused = errors(reports)
        self.assertEqual(len(refused), len(BAD_COMMANDS) + 2, refused)
        for (msg, why), r in zip(BAD_COMMANDS, refused):
            self.assertRegex(pmt.symbol_to_string(field(r, "error")), why)
            if pmt.is_dict(msg):  # a well-formed command: refused whole
                self.assertIn("nothing of this command was applied",
                              pmt.symbol_to_string(field(r, "error")))
            self.assertTrue(pmt.equal(field(r, "command"), msg))
        for c, r in enumerate(refused[len(BAD_COMMANDS):]):
            self.assertEqual(pmt.to_uint64(field(r, "chan")), c)
            self.assertEqual(pmt.symbol_to_string(field(r, "key")), "antenna")
            self.assertRegex(pmt.symbol_to_string(field(r, "error")),
                             "^chan %d: antenna: " % c)
            self.assertTrue(pmt.equal(field(r, "command"), refused_by_device))


if __name__ == '__main__':
    if rf_channels() == 0:
        print("qa_radio_flowgraph: the RF tests are SKIPPED: device has no RF front end "
              "(the emulator of register map 1.3 has one)", flush=True)
    gr_unittest.run(qa_radio_flowgraph)
