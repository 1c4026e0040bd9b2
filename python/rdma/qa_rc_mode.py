#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""RC mode for receive (transport=rc): under 1 % injected loss the ramp arrives
bit-exact when the device's retransmit window suffices, and when it does not, what
the device resends as zeros is exactly what is reported."""

import pmt
from gnuradio import blocks, gr, gr_unittest
from gnuradio import rdma

RATE = 10e6  # RC on a shared 2-core host: go-back-N needs a NIC that keeps up
SAMPLES = int(4e6)  # 0.4 s: ~3900 messages of 4 KiB (loopback's MTU), ~40 of them dropped
# Paced by the consumer (a test mode, docs/device-args.md): the checker is never lapped,
# so what is lost is what RC could not recover, however busy the machine is.
PACED = "type=emu,signal=ramp,transport=rc,emu_pace=consumer"


class run_result:
    pass


def run(args, samples=SAMPLES):
    """rx_source -> ramp_check, with the source's reports stored; what happened."""
    tb = gr.top_block()
    src = rdma.rx_source(args, "sc16", RATE, samples)
    reports = blocks.message_debug()
    sink = rdma.ramp_check("sc16")
    tb.connect(src, sink)
    tb.msg_connect((src, "async_msgs"), (reports, "store"))
    tb.msg_connect((src, "async_msgs"), (sink, "events"))
    tb.run()
    r = run_result()
    r.sink = sink
    r.counters = src.read_counters()
    r.faults = src.read_injected_faults()
    r.events = [pmt.to_python(pmt.cdr(reports.get_message(i)))
                for i in range(reports.num_messages())]
    r.gaps = [e for e in r.events if e["type"] == "gap"]
    return r


def summary(r):
    return {k: v for k, v in r.counters.items()
            if k.startswith("host.") or k.startswith("device.") or
            k in ("nic.naks_sent", "nic.duplicate", "nic.drop_psn_sequence",
                  "metadata.substituted_unmatched")}


class qa_rc_mode(gr_unittest.TestCase):

    def test_window_suffices_bit_exact_under_1_percent_loss(self):
        r = run(PACED + ",loss=0.01,fault_seed=3")
        c = r.counters
        why = summary(r)
        # The run really lost packets on first transmission and really recovered them.
        drops = [f for f in r.faults if f["kind"] == "drop"]
        self.assertGreater(len(drops), 20, why)
        self.assertGreaterEqual(c["device.retransmits"], len(drops), why)
        self.assertGreater(c["device.naks_received"], 0, why)
        self.assertEqual(c["device.zero_substituted"], 0, why)
        # Bit-exact, nothing lost, nothing reported: RC made the loss disappear.
        self.assertEqual(r.sink.items_checked(), SAMPLES)
        self.assertEqual(r.sink.unexplained_mismatches(), 0,
                         "first mismatch at item %d; %s" % (r.sink.first_mismatch(), why))
        self.assertEqual(r.sink.mismatches(), 0, why)
        self.assertEqual(r.sink.gap_items(), 0, why)
        self.assertEqual(r.gaps, [], why)
        self.assertEqual(r.sink.time_errors(), 0)
        self.assertEqual(c["host.lost"], 0, why)
        self.assertEqual(c["device.samples_emitted"], SAMPLES)
        self.assertEqual(c["device.samples_emitted"], c["host.delivered"], why)

    def test_window_too_small_substitution_reported_exactly(self):
        # A window of two 4 KiB packets: less than a NAK's round trip.
        r = run(PACED + ",retx_window=8192,loss=0.01,fault_seed=3")
        c = r.counters
        why = summary(r)
        zeros = c["device.zero_substituted"]
        self.assertGreater(zeros, 0, why)
        # The ramp's sample 0 is zero: a substitution there would hide from the checker.
        self.assertNotIn(0, [f["message"] for f in r.faults], "choose another fault_seed")
        self.assertEqual(r.sink.items_checked(), SAMPLES)
        self.assertEqual(r.sink.time_errors(), 0)
        self.assertEqual(c["device.samples_emitted"], SAMPLES)
        self.assertEqual(c["device.samples_emitted"], c["host.delivered"] + c["host.lost"], why)
        reported = sum(e["count"] for e in r.gaps if e["cause"] == "zero_substituted")
        # The metadata channel told the host: exactly the substituted samples are lost
        # and reported, nothing else is.
        self.assertEqual(reported, zeros, why)
        self.assertEqual(c["host.lost"], zeros, why)
        self.assertEqual(c["host.lost_gap"], zeros, why)
        # Each substituted sample is zeros the checker either expected (reported before
        # it was handed out: inside an rx_gap tag) or was told of afterwards; the events
        # port hears of all of them. Nothing else is wrong.
        self.assertEqual(r.sink.unexplained_mismatches(), 0, why)
        self.assertEqual(r.sink.overwritten_items(), zeros, why)

if __name__ == '__main__':
    gr_unittest.run(qa_rc_mode)
