#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""rxe_tx_flowgraph TEST_MODULES: transmit from a GNU Radio flowgraph on real verbs.

An upstream block writes the ramp straight into rdma.tx_sink's input buffer, which is
the TX ring that tx_stream registered on rxe0 (nic=verbs) for remote READ only; the
emulator daemon (gr-rdma-emu --wire raw, in namespace dev) READs it over the raw wire,
rxe answering, and compares every sample it plays with the ramp (tx_check=1). Runs in
the rxe guest through host-root.sh (the host's Python and GNU Radio on the guest's
kernel), with the build tree's module from TEST_MODULES. docs/rxe-guest.md.

Checks: the upstream's output pointer lies in the registered ring on every work() call
and the sink finds each item in its ring slot; every sample played is the ramp's, at
least ten rings of them; provided = played intact + zero-substituted (late) + not
played, from the device's final counters; the reports on async_msgs add up to the
device's underflow and late counts; no implausible fetch notification.
"""

import sys
import threading
import time

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else ".")

import numpy as np  # noqa: E402
import pmt  # noqa: E402
from gnuradio import blocks, gr  # noqa: E402
from gnuradio import rdma  # noqa: E402

# As rxe_tx_test_sc16 (docs/rxe-guest.md, "Timing"): TCG stalls for tens of ms, so a
# 400 ms ring, 4 KiB READs, a lead of 30 to 150 ms, 500 kS/s.
ARGS = ("type=remote,addr=192.0.2.2,nic=verbs,nic_addr=192.0.2.1,hugepages=off,"
        "tx_check=1,latency=0.4,payload=4096,min_lead=0.03,max_lead=0.15")
RATE = 5e5
MIN_WRAPS = 10
PLANNED_WRAPS = 12.5  # the ring rounds up to pages: a margin over ten
TIME_LIMIT = 120.0


class ramp_source(gr.sync_block):
    """The sc16 ramp (item k, read as a little-endian uint32, is k) up to `total`
    items, written in place into its output buffer, which it checks lies in the ring."""

    def __init__(self, total, ring):
        gr.sync_block.__init__(self, "ramp_source", [], [np.uint32])
        self.total = total
        self.base, self.span = ring
        self.calls = 0
        self.outside = 0

    def work(self, input_items, output_items):
        out = output_items[0]
        self.calls += 1
        address = out.__array_interface__["data"][0]
        if not (self.base <= address and address + out.nbytes <= self.base + self.span):
            self.outside += 1
        first = self.nitems_written(0)
        n = min(len(out), self.total - first)
        if n <= 0:
            return -1
        out[:n] = np.arange(first, first + n, dtype=np.uint64).astype(np.uint32)
        return n


def main():
    failures = []

    def expect(ok, what):
        print("RXE-TX-FLOWGRAPH %s %s" % ("ok  " if ok else "FAIL", what), flush=True)
        if not ok:
            failures.append(what)

    tb = gr.top_block()
    sink = rdma.tx_sink(ARGS, "sc16", RATE)
    ring_items = sink.ring_items()
    total = int(PLANNED_WRAPS * ring_items)
    src = ramp_source(total, (sink.ring_base(), 2 * sink.ring_bytes()))
    msgs = blocks.message_debug()
    tb.connect(src, sink)
    tb.msg_connect(sink, "async_msgs", msgs, "store")

    started = time.monotonic()
    done = threading.Event()

    def body():
        tb.run()
        done.set()
    threading.Thread(target=body, daemon=True).start()
    ended = done.wait(TIME_LIMIT)
    if not ended:
        tb.stop()
        tb.wait()
    print("RXE-TX-FLOWGRAPH ran %.1f s for %d items (%d-item ring)"
          % (time.monotonic() - started, total, ring_items), flush=True)
    expect(ended, "the flowgraph ended within %g s" % TIME_LIMIT)
    expect(sink.error() == "", "no stream error: '%s'" % sink.error())

    c = sink.read_counters()
    print("RXE-TX-FLOWGRAPH counters: " + ", ".join(
        "%s=%d" % (k, v) for k, v in sorted(c.items())
        if k.startswith(("acct.", "device.", "host.")) and v), flush=True)
    # Zero copy: the upstream wrote into the registered ring on every call.
    expect(src.calls > PLANNED_WRAPS and src.outside == 0,
           "the upstream's output lay in the ring on all %d calls (%d outside)"
           % (src.calls, src.outside))
    expect(sink.pointer_mismatches() == 0,
           "the sink found each item in its ring slot (%d mismatches)"
           % sink.pointer_mismatches())
    expect(c["host.committed"] == total, "committed %d of %d" % (c["host.committed"], total))
    # Bit-exact over the wraps: what the device played is the ramp.
    expect(c["device.check_mismatches"] == 0,
           "ramp mismatches: %d" % c["device.check_mismatches"])
    expect(c["device.check_samples"] == c["acct.played"],
           "checked %d of %d played" % (c["device.check_samples"], c["acct.played"]))
    expect(c["acct.played"] >= MIN_WRAPS * ring_items,
           "played %d >= %d rings (%d)" % (c["acct.played"], MIN_WRAPS,
                                          MIN_WRAPS * ring_items))
    # The identity, from the device's final counters.
    expect(c["acct.final"] == 1, "the device's counters are final")
    expect(c["acct.identity_holds"] == 1 and
           c["acct.host_committed"] == c["acct.played"] + c["acct.late"] +
           c["acct.not_played"],
           "provided %d = played intact %d + zero-substituted (late) %d + not played %d"
           % (c["acct.host_committed"], c["acct.played"], c["acct.late"],
              c["acct.not_played"]))
    reported = {"underflow": 0, "late": 0}
    for i in range(msgs.num_messages()):
        m = msgs.get_message(i)
        code = pmt.symbol_to_string(pmt.dict_ref(m, pmt.mp("event_code"), pmt.PMT_NIL))
        if code in reported:
            reported[code] += pmt.to_uint64(pmt.dict_ref(m, pmt.mp("count"), pmt.PMT_NIL))
    expect(reported["underflow"] == c["acct.underflow"] and
           reported["late"] == c["acct.late"],
           "reports: underflow %d of %d, late %d of %d" % (
               reported["underflow"], c["acct.underflow"], reported["late"],
               c["acct.late"]))
    expect(c["host.implausible_fetch"] == 0,
           "implausible fetch notifications: %d" % c["host.implausible_fetch"])
    print("RXE-TX-FLOWGRAPH %s" % ("PASSED" if not failures else
                                    "FAILED: " + "; ".join(failures)), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
