#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""gr-rdma-rx: a headless receive flowgraph (rx_source -> sink) with a report.

    gr-rdma-rx --args "type=emu,signal=ramp" --rate 20e6 --duration 3 --json
"""

import argparse
import json

import pmt
import sys
import threading
import time

from gnuradio import blocks, gr

from . import rdma_python as rdma


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="gr-rdma-rx",
        description="Receive samples from an RDMA SDR (default: the built-in emulator) "
                    "through a GNU Radio flowgraph and report what arrived.")
    p.add_argument("--args", default="type=emu,signal=ramp",
                   help="device args, e.g. type=emu,signal=ramp (docs/device-args.md)")
    p.add_argument("--format", default="sc16", choices=["sc16", "fc32"],
                   help="sample format on the wire and in memory (default sc16)")
    p.add_argument("--rate", type=float, default=20e6, help="sample rate in S/s (default 20e6)")
    length = p.add_mutually_exclusive_group()
    length.add_argument("--duration", type=float, default=3.0,
                        help="seconds of samples to receive (default 3)")
    length.add_argument("--samples", type=int, help="number of samples to receive")
    p.add_argument("--output", metavar="FILE",
                   help="record the samples to FILE (raw items, as gr file_sink writes)")
    p.add_argument("--check", action="store_true",
                   help="verify every sample against the emulator's test signal, "
                        "recomputed from --args, and that every sample is read in place "
                        "in the ring")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--timeout", type=float, default=10.0,
                   help="seconds to wait beyond the stream's length before giving up")
    opts = p.parse_args(argv)
    if opts.rate <= 0:
        p.error("--rate must be positive")
    opts.num_samples = opts.samples if opts.samples is not None else int(round(opts.rate * opts.duration))
    if opts.num_samples <= 0:
        p.error("nothing to receive: give a positive --duration or --samples")
    return opts


class receiver(gr.top_block):
    def __init__(self, opts):
        gr.top_block.__init__(self, "gr-rdma-rx")
        self.src = rdma.rx_source(opts.args, opts.format, opts.rate, opts.num_samples)
        item = 8 if opts.format == "fc32" else 4
        self.sink = (blocks.file_sink(item, opts.output, False) if opts.output
                     else blocks.null_sink(item))
        self.connect(self.src, self.sink)
        # Every gap, overrun and time report of the source, kept for the summary.
        self.reports = blocks.message_debug()
        self.msg_connect((self.src, "async_msgs"), (self.reports, "store"))
        self.check = None
        if opts.check:
            self.check = rdma.ramp_check(opts.format, self.src.ring_base(),
                                         2 * self.src.ring_bytes(), opts.args)
            self.connect(self.src, self.check)
            self.msg_connect((self.src, "async_msgs"), (self.check, "events"))

    def events(self):
        out = []
        for i in range(self.reports.num_messages()):
            msg = self.reports.get_message(i)
            out.append(pmt.to_python(pmt.cdr(msg)))
        return out


def run(opts):
    tb = receiver(opts)
    expected = opts.num_samples / opts.rate
    cpu_before = rdma.process_cpu_by_role()
    started = time.monotonic()
    tb.start()
    finished = threading.Event()
    waiter = threading.Thread(target=lambda: (tb.wait(), finished.set()), daemon=True)
    waiter.start()
    timed_out = not finished.wait(expected + opts.timeout)
    if timed_out:
        tb.stop()
        tb.wait()
    elapsed = time.monotonic() - started
    cpu = {k: v - cpu_before[k] for k, v in rdma.process_cpu_by_role().items()}

    counters = tb.src.read_counters()
    emitted = counters["device.samples_emitted"]
    delivered = counters["host.delivered"]
    lost = counters["host.lost"]
    events = tb.events()
    gaps = [e for e in events if e["type"] == "gap"]
    overruns = [e for e in events if e["type"] == "overrun"]
    report = {
        "args": opts.args,
        "format": opts.format,
        "rate_requested": opts.rate,
        "samples_requested": opts.num_samples,
        # The device's own count, and what the host made of it: emitted = delivered + lost.
        "samples_emitted": emitted,
        "samples_delivered": delivered,
        "samples_lost": lost,
        "identity_holds": emitted == delivered + lost,
        "items_through_flowgraph": tb.sink.nitems_read(0),
        "lost_by_cause": {"gap": counters["host.lost_gap"],
                          "overrun_skipped": counters["host.lost_skipped"],
                          "overrun_overwritten": counters["host.lost_overwritten"]},
        "gaps": len(gaps),
        "gap_ranges": [[e["first_sample"], e["count"]] for e in gaps],
        "overruns": len(overruns),
        "overrun_ranges": [[e["first_sample"], e["count"], e["cause"]] for e in overruns],
        "elapsed_s": round(elapsed, 6),
        "rate_achieved": tb.sink.nitems_read(0) / elapsed if elapsed > 0 else 0.0,
        "ring_bytes": tb.src.ring_bytes(),
        "ring_items": tb.src.ring_items(),
        "hugepages": tb.src.hugepages(),
        "cpu_seconds": {k: round(v, 6) for k, v in cpu.items()},
        "nic": {k[4:]: v for k, v in counters.items() if k.startswith("nic.")},
        "device": {k[7:]: v for k, v in counters.items() if k.startswith("device.")},
        "timed_out": timed_out,
    }
    if tb.check is not None:
        report["check"] = {
            "items_checked": tb.check.items_checked(),
            "mismatches": tb.check.unexplained_mismatches(),
            "first_mismatch": (None if tb.check.mismatches() == 0
                               else tb.check.first_mismatch()),
            "time_tags": tb.check.time_tags(),
            "time_errors": tb.check.time_errors(),
            "out_of_ring_reads": tb.check.out_of_range_calls(),
        }
    return report


def ok(report):
    """Exit status: everything the device emitted is accounted for and checks pass.
    Reported loss is not a failure (it is the point of reporting it); silent loss is."""
    if report["timed_out"] or not report["identity_holds"]:
        return False
    if report["samples_emitted"] != report["samples_requested"]:
        return False
    check = report.get("check")
    return check is None or (check["mismatches"] == 0 and check["time_errors"] == 0
                             and check["out_of_ring_reads"] == 0)


def main(argv=None):
    opts = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        report = run(opts)
    except (ValueError, RuntimeError, OSError) as e:
        print("gr-rdma-rx: %s" % e, file=sys.stderr)
        return 2
    if opts.json:
        print(json.dumps(report))
    else:
        print("delivered %d of %d samples (%d lost: %d gaps, %d overruns) at %.3f MS/s; "
              "ring %d bytes%s; CPU s host %.3f nic %.3f device %.3f"
              % (report["samples_delivered"], report["samples_emitted"], report["samples_lost"],
                 report["gaps"], report["overruns"],
                 report["rate_achieved"] / 1e6, report["ring_bytes"],
                 " (hugepages)" if report["hugepages"] else "",
                 report["cpu_seconds"]["host"], report["cpu_seconds"]["nic"],
                 report["cpu_seconds"]["device"]))
        if "check" in report:
            print("check: %(items_checked)d items, %(mismatches)d unexplained mismatches, "
                  "%(time_errors)d time errors, %(out_of_ring_reads)d reads outside the ring"
                  % report["check"])
    return 0 if ok(report) else 1
