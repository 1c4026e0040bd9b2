#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""tx_sink's timed bursts (docs/transmit.md, "Bursts and time"): gr-uhd's tx_sob,
tx_eob and tx_time tags on a ramp (item value = item index) written in place into the
TX ring; the emulator plays them from its TX burst queue and checks every sample it
plays against the ramp (tx_check=1). The sink's reports on async_msgs come from the
device's TX records: its items and its times, adding up to its counters."""


import numpy as np
import pmt

from gnuradio import blocks, gr, gr_unittest
from gnuradio import rdma

from qa_tx_sink import run_with_timeout

RATE = 250000  # 4 us per sample: a whole number of ns
ITEM_NS = 4000
# A lead of at least 10 ms: the emulated device is software, and a loaded machine
# stalls it (docs/transmit.md, "Loss, lateness and accounting").
ARGS = "type=emu,tx_check=1,hugepages=off,latency=0.05,min_lead=0.01"
# The converter waits for each piece instead of playing it late or underflow zeros (a
# test mode, docs/device-args.md): for the tests of what plays when, which must not
# depend on how busy the machine is.
PACED = ARGS + ",emu_pace=consumer"


def ramp(first, n):
    k = np.arange(first, first + n, dtype=np.uint64)
    return ((k & 0xFFFFFF).astype(np.float32) + 0j).astype(np.complex64)


def time_tag(ns):
    return pmt.make_tuple(pmt.from_uint64(ns // 10**9),
                          pmt.from_double((ns % 10**9) * 1e-9))


class burst_source(gr.sync_block):
    """The ramp in bursts: each (items, time_ns or None, sob, eob) tags its first and
    last item as gr-uhd's sink reads them. Checks that its output lies in the ring."""

    def __init__(self, bursts, ring=None, fill=ramp, split=False):
        gr.sync_block.__init__(self, "burst_source", [], [np.complex64])
        self.fill = fill
        self.split = split  # each call ends at a burst's last item
        self.ends = []
        self.tags = {}
        first = 0
        for n, t, sob, eob in bursts:
            if t is not None:
                self.tags.setdefault(first, []).append(("tx_time", time_tag(t)))
            if sob:
                self.tags.setdefault(first, []).append(("tx_sob", pmt.PMT_T))
            if eob:
                self.tags.setdefault(first + n - 1, []).append(("tx_eob", pmt.PMT_T))
            first += n
            self.ends.append(first)
        self.total = first
        self.ring = ring
        self.outside = 0

    def work(self, input_items, output_items):
        out = output_items[0]
        if self.ring is not None:
            base, span = self.ring
            address = out.__array_interface__["data"][0]
            if not (base <= address and address + out.nbytes <= base + span):
                self.outside += 1
        first = self.nitems_written(0)
        n = min(len(out), self.total - first)
        if n <= 0:
            return -1
        if self.split:
            n = min(n, min(e for e in self.ends if e > first) - first)
        out[:n] = self.fill(first, n)
        for k in range(first, first + n):
            for key, value in self.tags.get(k, ()):
                self.add_item_tag(0, k, pmt.intern(key), value)
        return n


def reports(msgs):
    """async_msgs as plain dicts: time_spec back in ns."""
    out = []
    for i in range(msgs.num_messages()):
        m = msgs.get_message(i)
        d = {}
        for key in ("count", "item", "value", "bursts"):
            d[key] = pmt.to_uint64(pmt.dict_ref(m, pmt.intern(key), pmt.PMT_NIL))
        d["type"] = pmt.symbol_to_string(pmt.dict_ref(m, pmt.intern("event_code"),
                                                      pmt.PMT_NIL))
        d["unattributed"] = pmt.to_bool(pmt.dict_ref(m, pmt.intern("unattributed"),
                                                     pmt.PMT_NIL))
        t = pmt.dict_ref(m, pmt.intern("time_spec"), pmt.PMT_NIL)
        d["time_ns"] = (pmt.to_uint64(pmt.tuple_ref(t, 0)) * 10**9 +
                        round(pmt.to_double(pmt.tuple_ref(t, 1)) * 1e9))
        d["channel"] = pmt.to_long(pmt.dict_ref(m, pmt.intern("channel"), pmt.PMT_NIL))
        out.append(d)
    return out


def of(events, kind):
    return [e for e in events if e["type"] == kind]


class qa_tx_sink_bursts(gr_unittest.TestCase):

    def run_bursts(self, bursts, args=ARGS, throttle=None, seconds=60, split=False):
        """Run the bursts into a sink; \p bursts: the plan, or a function of the
        device's time now (ns) that makes it."""
        tb = gr.top_block()
        sink = rdma.tx_sink(args, "fc32", RATE)
        if callable(bursts):
            bursts = bursts(sink.get_time_now())
        src = burst_source(bursts, (sink.ring_base(), 2 * sink.ring_bytes()),
                           split=split)
        msgs = blocks.message_debug()
        if throttle:
            thr = blocks.throttle(gr.sizeof_gr_complex, throttle)
            tb.connect(src, thr, sink)
        else:
            tb.connect(src, sink)
        tb.msg_connect(sink, "async_msgs", msgs, "store")
        self.assertTrue(run_with_timeout(tb, seconds), "the flowgraph did not end")
        self.assertEqual(sink.error(), "")
        if not throttle:
            self.assertEqual(src.outside, 0)
            self.assertEqual(sink.pointer_mismatches(), 0)
        c = sink.read_counters()
        self.assertEqual(c["host.queued"], 1)
        self.assertEqual(c["acct.final"], 1)
        self.assertEqual(c["host.committed"], src.total)
        self.assertEqual(c["acct.identity_holds"], 1, str(c))
        self.assertEqual(c["device.check_mismatches"], 0, str(c))
        self.assertEqual(c["device.check_samples"], c["acct.played"])
        self.assertEqual(c["host.records_rejected"], 0)
        events = reports(msgs)
        self.check_sums(events, c)
        return sink, c, events

    def check_sums(self, events, c):
        """The reports add up to the device's counters, exactly."""
        self.assertEqual(sum(e["count"] for e in of(events, "underflow")),
                         c["device.underflow_samples"])
        self.assertEqual(sum(e["count"] for e in of(events, "late")),
                         c["device.late_zero_samples"])
        self.assertEqual(sum(e["count"] for e in of(events, "time_error")),
                         c["device.dropped_samples"])
        self.assertEqual(sum(e["bursts"] for e in of(events, "time_error")),
                         c["device.time_errors"])
        self.assertEqual(sum(e["bursts"] for e in of(events, "burst_ack")),
                         c["device.bursts_done"])
        for e in events:
            self.assertEqual(e["channel"], 0)

    def test_timed_bursts_start_at_their_time_to_the_sample(self):
        # Three bursts at device times on the run's grid (tx_time on item 0 anchors
        # it): each one's ack is its time plus its samples, to the ns, so its first
        # sample played exactly then; the converter idled in between.
        plan = []

        def at(now):
            t0 = (now + 300000000) // 1000 * 1000
            plan[:] = [(3000, t0, True, True),
                       (2000, t0 + 40000 * ITEM_NS, True, True),    # 160 ms later
                       (1000, t0 + 70000 * ITEM_NS, True, True)]
            return plan
        sink, c, events = self.run_bursts(at, args=PACED)
        t0 = plan[0][1]
        self.assertEqual(c["host.start_time_ns"], t0)
        self.assertEqual(c["acct.played"], 6000)
        self.assertEqual(c["acct.underflow"], 0, str(c))
        self.assertEqual(c["acct.bursts_done"], 3)
        # Ticks up to the last burst's end: 71000, of which 6000 played.
        self.assertGreaterEqual(c["acct.idle"], 71000 - 6000)
        acks = of(events, "burst_ack")
        self.assertEqual([(a["item"], a["count"], a["unattributed"]) for a in acks],
                         [(3000, 3000, False), (5000, 2000, False), (6000, 1000, False)])
        for a, (n, t, _, _) in zip(acks, plan):
            self.assertEqual(a["time_ns"], t + n * ITEM_NS)

    def test_bursts_written_one_per_call_keep_their_times(self):
        # The upstream's calls end at each burst's last item: the sink sees a tx_eob
        # at the end of one call and the next burst's tx_time only in the next, and
        # still gives the device both (END, then START at its time).
        plan = []

        def at(now):
            t0 = (now + 300000000) // 1000 * 1000
            plan[:] = [(1000 + 300 * i, t0 + i * 15000 * ITEM_NS, True, True)
                       for i in range(4)]
            return plan
        sink, c, events = self.run_bursts(at, args=PACED, split=True)
        self.assertEqual(c["acct.bursts_done"], 4)
        self.assertEqual(c["acct.underflow"], 0, str(c))
        acks = [a for a in of(events, "burst_ack") if not a["unattributed"]]
        self.assertEqual([a["time_ns"] for a in acks],
                         [t + n * ITEM_NS for n, t, _, _ in plan])

    def test_bursts_with_gaps_play_every_sample(self):
        # Untimed and timed bursts of every size, some shorter than a message, one
        # ending mid-message: every sample played bit-exact, idle (never underflow)
        # between them, one ack each.
        sizes = [700, 37, 1024, 5, 3000, 513]
        plan = []

        def at(now):
            t0 = (now + 300000000) // 1000 * 1000
            for i, n in enumerate(sizes):  # every other one timed, gaps of 40 ms
                plan.append((n, t0 + i * 10000 * ITEM_NS if i % 2 == 0 else None,
                             True, True))
            return plan
        sink, c, events = self.run_bursts(at, args=PACED)
        t0 = plan[0][1]
        self.assertEqual(c["acct.played"], sum(sizes))
        self.assertEqual(c["acct.underflow"], 0, str(c))
        self.assertEqual(c["acct.late"], 0, str(c))
        self.assertEqual(c["acct.not_played"], 0, str(c))
        self.assertEqual(c["acct.bursts_done"], len(sizes))
        self.assertGreater(c["acct.idle"], 4 * 10000 - sum(sizes))
        # Bursts ending within 1 ms of each other share a record (the device's rate
        # bound): one ack for them, and stop() reports the bursts it did not name.
        acks = [a for a in of(events, "burst_ack") if not a["unattributed"]]
        ends = [int(e) for e in np.cumsum(sizes)]
        self.assertEqual(sum(a["count"] for a in acks), sum(sizes))
        self.assertTrue(all(a["item"] in ends for a in acks), str(acks))
        # The timed ones to the ns (an ASAP one right after its timed one may share
        # its ack: the device merges records of one code within 1 ms).
        for i in range(0, len(sizes), 2):
            ack = [a for a in acks if a["item"] == ends[i]]
            self.assertEqual(len(ack), 1)
            self.assertEqual(ack[0]["time_ns"], t0 + i * 10000 * ITEM_NS + sizes[i] * ITEM_NS)

    def test_late_tx_time_is_a_time_error_and_the_next_burst_plays(self):
        # gr-uhd's late command: the burst is dropped and reported, its samples counted
        # dropped; the flowgraph goes on and the next burst plays.
        plan = []

        def at(now):
            plan[:] = [(5000, now - 10**9, True, True), (3000, None, True, True)]
            return plan
        sink, c, events = self.run_bursts(at, args=PACED)
        past = plan[0][1]
        self.assertEqual(c["acct.dropped"], 5000, str(c))
        self.assertEqual(c["acct.time_errors"], 1)
        self.assertEqual(c["acct.played"], 3000)
        errors = of(events, "time_error")
        self.assertEqual(len(errors), 1)
        self.assertEqual((errors[0]["item"], errors[0]["count"]), (0, 5000))
        self.assertEqual(errors[0]["time_ns"], past)  # the time the tag asked for
        self.assertGreater(errors[0]["value"], past)  # when the device found it passed
        acks = of(events, "burst_ack")
        self.assertEqual([(a["item"], a["count"]) for a in acks], [(8000, 3000)])

    def test_underflow_inside_a_burst_has_device_time_and_adds_up(self):
        # One open burst (no tags) from an upstream at half the device's pace: the
        # device underflows, and each report says which item it waited for and when
        # its first zero played, on the device's clock; the reports add up to its
        # counter; what played is the ramp.
        sink, c, events = self.run_bursts([(30000, None, False, False)],
                                          throttle=RATE / 2)
        self.assertGreater(c["acct.underflow"], 0, str(c))
        # Every sample played or, a READ answered after its play time on a loaded
        # machine (CI: 512 once), reported late; run_bursts checked the identity.
        self.assertEqual(c["acct.played"] + c["acct.late"], 30000, str(c))
        self.assertEqual(c["acct.not_played"], 0, str(c))
        start = c["host.start_time_ns"] or 0
        underflows = of(events, "underflow")
        self.assertTrue(underflows)
        items = [u["item"] for u in underflows if not u["unattributed"]]
        self.assertEqual(items, sorted(items))
        self.assertTrue(all(0 < i <= 30000 for i in items))
        times = [u["time_ns"] for u in underflows if not u["unattributed"]]
        self.assertEqual(times, sorted(times))
        self.assertTrue(all(t > start for t in times) if start else True)
        # The last report of the run, before its end.
        end = max(a["time_ns"] for a in of(events, "burst_ack"))
        self.assertTrue(all(t < end for t in times))

    def test_read_response_loss_is_reported_as_seq_error(self):
        # The device discards 2 % of the READ RESPONSE packets: it reads them again
        # and says so (seq_error: the first item read again, packets found missing).
        n = 40000
        sink, c, events = self.run_bursts([(n, None, True, True)],
                                          args=ARGS + ",tx_loss_ppm=20000,tx_fault_seed=3")
        self.assertGreater(c["device.rereads"], 0)
        seq = of(events, "seq_error")
        self.assertTrue(seq, str(c))
        self.assertTrue(all(e["count"] > 0 and e["item"] < n for e in seq))
        self.assertEqual(c["acct.played"] + c["acct.late"], n)

    def test_conversion_keeps_the_bursts(self):
        # fc32 in the flowgraph, sc16 on the wire: the sink converts up to each burst
        # boundary, then gives the boundary to the device.
        tb = gr.top_block()
        sink = rdma.tx_sink(PACED, "fc32", RATE, "sc16")
        t0 = (sink.get_time_now() + 300000000) // 1000 * 1000
        plan = [(2000, t0, True, True), (1500, t0 + 20000 * ITEM_NS, True, True)]

        def sc16_ramp(first, n):
            # The emulator's sc16 ramp: item k's I, Q are the little-endian halves of
            # k, which the sink's conversion (x 32768) gives back exactly.
            k = np.arange(first, first + n, dtype=np.uint64)
            iq = (k & 0xFFFFFFFF).astype("<u4").view("<i2").reshape(-1, 2)
            return (iq[:, 0] / 32768.0 + 1j * (iq[:, 1] / 32768.0)).astype(np.complex64)
        src = burst_source(plan, fill=sc16_ramp)
        msgs = blocks.message_debug()
        tb.connect(src, sink)
        tb.msg_connect(sink, "async_msgs", msgs, "store")
        self.assertTrue(run_with_timeout(tb, 60), "the flowgraph did not end")
        self.assertEqual(sink.error(), "")
        c = sink.read_counters()
        self.assertEqual(c["acct.identity_holds"], 1, str(c))
        self.assertEqual(c["acct.played"], 3500)
        self.assertEqual(c["device.check_mismatches"], 0)
        self.assertEqual(sink.conversion_writes()["outside"], 0)
        acks = of(reports(msgs), "burst_ack")
        self.assertEqual([a["time_ns"] for a in acks],
                         [t0 + 2000 * ITEM_NS, t0 + 21500 * ITEM_NS])


if __name__ == '__main__':
    gr_unittest.run(qa_tx_sink_bursts)
