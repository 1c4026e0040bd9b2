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
import math
import re
import signal
import sys
import threading
import time

import pmt

from gnuradio import blocks, gr

from . import rdma_python as rdma


EXIT_STATUS = """exit status:
  0  the run ended (or SIGINT/SIGTERM stopped it: the report then says
     "interrupted") and every sample the device emitted is accounted for
     (emitted = delivered + lost; reported loss is not a failure), every
     requested sample was emitted unless interrupted, and --check found nothing
  1  the run failed: samples unaccounted for, --timeout reached, or --check
     found mismatches (the report says which, and a line on stderr)
  2  a usage or configuration error: a bad flag, bad device args, a device
     that cannot be reached (one line on stderr, nothing on stdout)"""

MAX_SAMPLES = 2**63 - 1  # the block counts samples in a uint64; kept clear of the sign bit


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (naming the flag), exit status 2."""

    def error(self, message):
        self.exit(2, "%s: error: %s\n" % (self.prog, message))


def _number(unit, low, high, low_open=False, integer=False):
    """An argparse type: a finite number in [low, high] (or (low, high]), refused with
    the value and the range otherwise. Integers are decimal digits only."""
    def fmt(x):
        return str(x) if integer else ("%g" % x).replace("e+0", "e").replace("e+", "e")

    def expected():
        if low_open:
            return "%s above %s, at most %s" % (unit, fmt(low), fmt(high))
        return "%s %s..%s" % (unit, fmt(low), fmt(high))

    def convert(text):
        try:
            if integer:
                if not re.fullmatch(r"[0-9]+", text):
                    raise ValueError(text)
                value = int(text)
            else:
                value = float(text)
        except ValueError:
            value = None
        if (value is None or not math.isfinite(value)
                or (value <= low if low_open else value < low) or value > high):
            raise argparse.ArgumentTypeError("%s is invalid: expected %s" % (text, expected()))
        return value
    return convert


def parse_args(argv):
    p = _Parser(
        prog="gr-rdma-rx",
        description="Receive samples from an RDMA SDR (default: the built-in emulator) "
                    "through a GNU Radio flowgraph and report what arrived.",
        epilog=EXIT_STATUS, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--args", default="type=emu,signal=ramp",
                   help="device args, e.g. type=emu,signal=ramp (docs/device-args.md)")
    p.add_argument("--format", default="sc16", choices=["sc16", "fc32"],
                   help="sample format on the wire and in memory (default sc16)")
    # The stream's own limit (rx_stream: 4e9 S/s).
    p.add_argument("--rate", type=_number("S/s", 0, 4e9, low_open=True), default=20e6,
                   help="sample rate in S/s, at most 4e9 (default 20e6)")
    length = p.add_mutually_exclusive_group()
    length.add_argument("--duration", type=_number("seconds", 0, 1e6, low_open=True),
                        default=3.0,
                        help="seconds of samples to receive, at most 1e6 (default 3)")
    length.add_argument("--samples", type=_number("samples", 1, MAX_SAMPLES, integer=True),
                        help="number of samples to receive, 1..2**63-1")
    p.add_argument("--output", metavar="FILE",
                   help="record the samples to FILE (raw items, as gr file_sink writes)")
    p.add_argument("--check", action="store_true",
                   help="verify every sample against the emulator's test signal, "
                        "recomputed from --args, and that every sample is read in place "
                        "in the ring")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--timeout", type=_number("seconds", 0, 1e6), default=10.0,
                   help="seconds to wait beyond the stream's length before giving up, "
                        "0..1e6 (default 10)")
    opts = p.parse_args(argv)
    opts.num_samples = (opts.samples if opts.samples is not None
                        else int(round(opts.rate * opts.duration)))
    if opts.num_samples <= 0:
        p.error("argument --duration: %g s at %g S/s is no sample: nothing to receive"
                % (opts.duration, opts.rate))
    if opts.check:
        refusal = check_refusal(opts.args)
        if refusal:
            p.error(refusal)
    return opts


CHECKABLE_SIGNALS = ("ramp", "tone", "noise", "clipped_noise", "clipped_tone", "square",
                     "extremes")


def check_refusal(args_text):
    """Why --check cannot verify the stream these device args describe (None: it can).
    The check recomputes the emulator's test signals (gnuradio/rdma/test_signal.h)."""
    pairs = dict((k.strip(), v.strip()) for k, _, v in
                 (pair.partition("=") for pair in args_text.split(",") if "=" in pair))
    if pairs.get("type") == "null":
        return "--check verifies the emulator's signal; type=null writes no samples to check"
    kind = pairs.get("signal", "ramp")
    if kind not in CHECKABLE_SIGNALS:
        return ("--check verifies the emulator's test signals (%s); signal=%s is none of "
                "them" % (", ".join(CHECKABLE_SIGNALS), kind))
    return None


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


class stop_signals:
    """SIGINT and SIGTERM end the run early but cleanly: the flowgraph is stopped and the
    report printed. The handler only records the signal (it runs between bytecodes of
    the main thread, which polls for it); a second signal kills as usual."""

    def __init__(self):
        self.received = None
        self._previous = {}

    def __enter__(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc):
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)

    def _handle(self, signum, frame):
        self.received = signal.Signals(signum).name
        for sig in self._previous:
            signal.signal(sig, signal.SIG_DFL)


def run(opts, tb, stop):
    expected = opts.num_samples / opts.rate
    cpu_before = rdma.process_cpu_by_role()
    started = time.monotonic()
    tb.start()
    finished = threading.Event()
    waiter = threading.Thread(target=lambda: (tb.wait(), finished.set()), daemon=True)
    waiter.start()
    deadline = started + expected + opts.timeout
    while not finished.wait(0.05) and stop.received is None:
        if time.monotonic() >= deadline:
            break
    interrupted = None if finished.is_set() else stop.received
    timed_out = not finished.is_set() and interrupted is None
    if not finished.is_set():
        tb.stop()
        # The waiter's tb.wait() returns once the flowgraph has stopped.
        if not finished.wait(30):
            raise RuntimeError("the flowgraph did not stop within 30 s of tb.stop()")
    elapsed = time.monotonic() - started
    cpu = {k: v - cpu_before[k] for k, v in rdma.process_cpu_by_role().items()}

    counters = tb.src.read_counters()
    # The device's final count may be unknown (it was lost, or restarted): then the
    # identity cannot be checked, and the report says why instead.
    known = counters["device.counters_known"] == 1 and not tb.src.device_note()
    emitted = counters.get("device.samples_emitted")
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
        "identity_holds": (emitted == delivered + lost) if known else None,
        # Why the identity could not be checked (None: it could).
        "identity_unknown_because": None if known else tb.src.device_note(),
        # Why the run ended early: the device was lost or failed the stream, the NIC
        # failed it (None: it did not).
        "error": tb.src.error() or None,
        "device_events": [e for e in events if e["type"] == "device"
                          and e["cause"] not in ("fault_injected", "device_overflow")],
        "items_through_flowgraph": tb.sink.nitems_read(0),
        "lost_by_cause": {"gap": counters["host.lost_gap"],
                          "overrun_skipped": counters["host.lost_skipped"],
                          "overrun_overwritten": counters["host.lost_overwritten"],
                          # emitted before the stop took effect (interrupted runs)
                          "stopped": counters["host.lost_stopped"]},
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
        # SIGINT or SIGTERM stopped the run before its end (None: it was not).
        "interrupted": interrupted,
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


def failure(report):
    """Why the run failed (None: it did not; exit status 0). Everything the device
    emitted must be accounted for and checks must pass. Reported loss is not a failure
    (it is the point of reporting it); silent loss is. A run stopped by a signal need
    not have reached the samples requested."""
    if report["error"]:
        return report["error"]
    if report["timed_out"]:
        return "timed out: the stream did not end within --timeout"
    if report["identity_holds"] is None:
        return "samples emitted unknown: " + report["identity_unknown_because"]
    if not report["identity_holds"]:
        return ("samples unaccounted for: emitted %d != delivered %d + lost %d"
                % (report["samples_emitted"], report["samples_delivered"],
                   report["samples_lost"]))
    if (report["interrupted"] is None
            and report["samples_emitted"] != report["samples_requested"]):
        return ("the device emitted %d of the %d samples requested"
                % (report["samples_emitted"], report["samples_requested"]))
    check = report.get("check")
    if check is not None and (check["mismatches"] or check["time_errors"]
                              or check["out_of_ring_reads"]):
        return "--check failed"
    return None


def main(argv=None):
    opts = parse_args(sys.argv[1:] if argv is None else argv)
    with stop_signals() as stop:
        # Anything the library refuses while the flowgraph is built is a configuration
        # error (2); anything after it started, a failed run (1). Never a traceback.
        try:
            tb = receiver(opts)
        except Exception as e:
            print("gr-rdma-rx: %s" % e, file=sys.stderr)
            return 2
        try:
            report = run(opts, tb, stop)
        except Exception as e:
            print("gr-rdma-rx: the run failed: %s" % e, file=sys.stderr)
            return 1
    why = failure(report)
    report["failure"] = why
    if opts.json:
        print(json.dumps(report))
    else:
        print("delivered %d of %s samples (%d lost: %d gaps, %d overruns) at %.3f MS/s; "
              "ring %d bytes%s; CPU s host %.3f nic %.3f device %.3f"
              % (report["samples_delivered"],
                 "?" if report["samples_emitted"] is None else report["samples_emitted"],
                 report["samples_lost"],
                 report["gaps"], report["overruns"],
                 report["rate_achieved"] / 1e6, report["ring_bytes"],
                 " (hugepages)" if report["hugepages"] else "",
                 report["cpu_seconds"]["host"], report["cpu_seconds"]["nic"],
                 report["cpu_seconds"]["device"]))
        if "check" in report:
            print("check: %(items_checked)d items, %(mismatches)d unexplained mismatches, "
                  "%(time_errors)d time errors, %(out_of_ring_reads)d reads outside the ring"
                  % report["check"])
        if report["interrupted"]:
            print("stopped early by %s" % report["interrupted"])
    if why:
        print("gr-rdma-rx: FAILED: %s" % why, file=sys.stderr)
    return 0 if why is None else 1
