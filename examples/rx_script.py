#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""Receive for a few seconds without GRC, and say what arrived.

A plain GNU Radio script: RDMA RX Source (the built-in emulator by default) into a
null sink, its async_msgs kept by a Message Debug; afterwards the source's totals and
the reports. Run it with Debian's interpreter:

    /usr/bin/python3 examples/rx_script.py --args type=emu,loss=0.01 --seconds 2
"""

import argparse
import sys

import pmt

from gnuradio import blocks, gr, rdma


def report_of(msg):
    """(rdma_rx_event . dict) or (rdma_command . dict) as a Python dict, with its kind."""
    kind = pmt.symbol_to_string(pmt.car(msg))
    return kind, pmt.to_python(pmt.cdr(msg))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--args", default="type=emu,signal=tone,freq=250e3",
                        help="device args (docs/device-args.md) [%(default)s]")
    parser.add_argument("--rate", type=float, default=1e6,
                        help="sample rate, S/s [%(default)g]")
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="how long to receive, > 0 [%(default)g]")
    opts = parser.parse_args()
    if not opts.rate > 0:
        parser.error("--rate=%g is invalid: expected > 0 S/s" % opts.rate)
    if not opts.seconds > 0:
        parser.error("--seconds=%g is invalid: expected > 0" % opts.seconds)
    samples = int(round(opts.rate * opts.seconds))

    tb = gr.top_block()
    try:
        src = rdma.rx_source(opts.args, "fc32", opts.rate, samples)
    except (RuntimeError, ValueError) as e:
        sys.exit("rx_script: %s" % e)
    reports = blocks.message_debug()
    tb.connect(src, blocks.null_sink(gr.sizeof_gr_complex))
    tb.msg_connect((src, "async_msgs"), (reports, "store"))
    tb.run()  # the source ends the flowgraph after the burst

    counters = src.read_counters(0)
    print("asked for %d samples at %g S/s" % (samples, opts.rate))
    print("delivered %d, lost %d in gaps, %d skipped, %d overwritten"
          % (counters.get("host.delivered", 0), counters.get("host.lost_gap", 0),
             counters.get("host.lost_skipped", 0),
             counters.get("host.lost_overwritten", 0)))
    kinds = {}
    for i in range(reports.num_messages()):
        kind, report = report_of(reports.get_message(i))
        key = "%s %s" % (report.get("type", kind), report.get("cause", ""))
        kinds[key] = kinds.get(key, 0) + 1
    for key, n in sorted(kinds.items()):
        print("%d report(s): %s" % (n, key.strip()))
    if not kinds:
        print("no reports: nothing was lost")
    if src.error():
        print("the run ended early: %s" % src.error())
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
