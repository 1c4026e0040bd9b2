#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""gr-rdma-rx: a headless receive flowgraph (rx_source -> sink) with a report.

    gr-rdma-rx --args "type=emu,signal=ramp" --rate 20e6 --duration 3 --json

Without --duration or --samples it runs until SIGINT or SIGTERM (a receive server:
--status prints a JSON line per interval); --sigmf records the stream as SigMF with
its losses annotated (docs/recording.md).
"""

import argparse
import json
import datetime
import math
import os
import re
import signal
import sys
import threading
import time

import pmt

from gnuradio import blocks, gr

from . import rdma_python as rdma
from .rx_report import link_lines, link_report, share_lines, share_report


EXIT_STATUS = """exit status:
  0  the run ended (or a stop request stopped it: SIGINT, SIGTERM, SIGHUP,
     SIGQUIT, SIGUSR1 or SIGUSR2, even one sent while it starts; the report then says
     "interrupted"; in continuous mode that is how it ends) and every sample
     the device emitted is accounted for (emitted = delivered + lost; reported
     loss is not a failure), every requested sample was emitted unless
     interrupted, and --check found nothing
  1  the run failed: samples unaccounted for, --timeout reached, --check
     found mismatches, or the recording failed (disk full): the report says
     which, and a line on stderr
  2  a usage or configuration error: a bad flag, bad device args, a device
     that cannot be reached (one line on stderr, nothing on stdout)"""

MAX_SAMPLES = 2**63 - 1  # the block counts samples in a uint64; kept clear of the sign bit
# The report lists the first this many gap and overrun ranges (and device events); the
# rest are counted (a receive server runs for months).
MAX_RANGES = 10000


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
    # rx_source's default: a flowgraph and the app receive the same by default.
    p.add_argument("--format", default="fc32", choices=["sc16", "fc32", "sc8"],
                   help="the flowgraph's sample format (rx_source's format, gr-uhd's "
                        "cpu_format; default fc32, as rx_source); also the wire format "
                        "unless --otw names another")
    p.add_argument("--otw", choices=["sc16", "fc32", "sc8"],
                   help="the wire format the device sends (gr-uhd's otw_format; default: "
                        "--format, zero copy); another than --format is converted by VOLK "
                        "from the ring, e.g. --otw sc16 --format fc32 halves the link's "
                        "bandwidth (docs/device-args.md)")
    # The stream's own limit (rx_stream: 4e9 S/s).
    p.add_argument("--rate", type=_number("S/s", 0, 4e9, low_open=True), default=20e6,
                   help="sample rate in S/s, at most 4e9 (default 20e6)")
    length = p.add_mutually_exclusive_group()
    length.add_argument("--duration", type=_number("seconds", 0, 1e6),
                        help="seconds of samples to receive, 0..1e6; 0 or none (the "
                             "default): until SIGINT or SIGTERM")
    length.add_argument("--samples", type=_number("samples", 1, MAX_SAMPLES, integer=True),
                        help="number of samples to receive, 1..2**63-1")
    record = p.add_mutually_exclusive_group()
    record.add_argument("--output", metavar="FILE",
                        help="record the samples to FILE (raw items, as gr file_sink "
                             "writes)")
    record.add_argument("--sigmf", metavar="PATH",
                        help="record as SigMF: PATH.sigmf-data and PATH.sigmf-meta, gaps "
                             "and overruns annotated (docs/recording.md)")
    p.add_argument("--rotate-size", type=_number("bytes", 1, MAX_SAMPLES, integer=True),
                   metavar="BYTES",
                   help="with --sigmf: a new recording PATH-NNNN once one holds BYTES "
                        "of samples, 1..2**63-1")
    p.add_argument("--rotate-seconds", type=_number("seconds", 0, 1e6, low_open=True),
                   metavar="S",
                   help="with --sigmf: a new recording PATH-NNNN every S seconds of "
                        "samples, at most 1e6")
    # As uhd_rx_cfile's -f/--freq and -g/--gain: the radio before the run.
    p.add_argument("--freq", type=_number("Hz", 0, 1e15), metavar="HZ",
                   help="tune the stream's RF channel to HZ before the run (as "
                        "uhd_rx_cfile's --freq); a value outside the device's range is "
                        "clipped to it, with a warning; the report's center_freq and a "
                        "recording's core:frequency are what the device then reports "
                        "(default: leave the device's frequency)")
    p.add_argument("--gain", type=_number("dB", -1000, 1000), metavar="DB",
                   help="set the stream's RF gain to DB before the run, clipped as "
                        "--freq (default: leave it)")
    p.add_argument("--check", action="store_true",
                   help="verify every sample against the emulator's test signal, "
                        "recomputed from --args, and that every sample is read in place "
                        "in the ring")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--status", action="store_true",
                   help="print a JSON status line on stdout every --progress-interval "
                        "(for services; fields in docs/rx-server.md)")
    p.add_argument("--progress-interval", type=_number("seconds", 0.1, 3600), default=5.0,
                   metavar="S",
                   help="seconds between progress lines (stderr, when it is a terminal) "
                        "and --status lines, 0.1..3600 (default 5)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress lines on the terminal")
    p.add_argument("--timeout", type=_number("seconds", 0, 1e6), default=10.0,
                   help="seconds to wait beyond the stream's length before giving up, "
                        "0..1e6 (default 10)")
    opts = p.parse_args(argv)
    if opts.samples is not None:
        opts.num_samples = opts.samples
    elif not opts.duration:
        opts.num_samples = 0  # continuous
    else:
        opts.num_samples = int(round(opts.rate * opts.duration))
        if opts.num_samples <= 0:
            p.error("argument --duration: %g s at %g S/s is no sample: nothing to "
                    "receive (0: until stopped)" % (opts.duration, opts.rate))
    opts.continuous = opts.num_samples == 0
    for flag in ("rotate_size", "rotate_seconds"):
        if getattr(opts, flag) is not None and not opts.sigmf:
            p.error("argument --%s: rotates a SigMF recording: add --sigmf PATH"
                    % flag.replace("_", "-"))
    opts.otw = opts.otw or opts.format
    if opts.check and opts.otw != opts.format:
        p.error("argument --check: verifies the items in place in the ring, in the wire "
                "format: leave --otw out (or equal to --format) to check the link")
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


class report_collector(gr.basic_block):
    """The source's reports, for the summary: counted, and the first MAX_RANGES of each
    kind kept (message_debug would keep every one, for ever)."""

    def __init__(self):
        gr.basic_block.__init__(self, "report_collector", in_sig=None, out_sig=None)
        self.message_port_register_in(pmt.intern("in"))
        self.set_msg_handler(pmt.intern("in"), self._handle)
        self._lock = threading.Lock()
        self.counts = {"gap": 0, "overrun": 0, "device": 0, "notice": 0}
        self.lost = {"gap": 0, "overrun": 0}
        self.kept = {"gap": [], "overrun": [], "device": []}
        self.dropped = {"gap": 0, "overrun": 0, "device": 0}

    def _handle(self, msg):
        e = pmt.to_python(pmt.cdr(msg))
        kind = e.get("type")
        with self._lock:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            if kind in self.lost and not (kind == "overrun"
                                          and e.get("cause") == "gap_overwritten"):
                self.lost[kind] += int(e.get("count", 0))
            if kind == "device" and e.get("cause") in ("fault_injected",
                                                       "device_overflow"):
                return
            if kind in self.kept:
                if len(self.kept[kind]) < MAX_RANGES:
                    self.kept[kind].append(e)
                else:
                    self.dropped[kind] += 1

    def snapshot(self):
        with self._lock:
            return (dict(self.counts), dict(self.lost),
                    {k: list(v) for k, v in self.kept.items()}, dict(self.dropped))


class receiver(gr.top_block):
    def __init__(self, opts):
        gr.top_block.__init__(self, "gr-rdma-rx")
        self.src = rdma.rx_source(opts.args, opts.format, opts.rate, opts.num_samples, 1,
                                  opts.otw)
        item = {"fc32": 8, "sc16": 4, "sc8": 2}[opts.format]
        self.rf = tune(self.src, opts)
        self.recorder = None
        if opts.sigmf:
            self.recorder = rdma.sigmf_sink(
                opts.sigmf, opts.format, opts.rate, hw=opts.args,
                recorder="gr-rdma-rx", rotate_size=opts.rotate_size or 0,
                rotate_seconds=opts.rotate_seconds or 0.0)
            self.connect(self.src, self.recorder)
            self.msg_connect((self.src, "async_msgs"), (self.recorder, "events"))
            self.sink = self.recorder  # it writes the items it takes
        else:
            self.sink = (blocks.file_sink(item, opts.output, False) if opts.output
                         else blocks.null_sink(item))
            self.connect(self.src, self.sink)
        # Every gap, overrun and device report of the source, for the summary.
        self.reports = report_collector()
        self.msg_connect((self.src, "async_msgs"), (self.reports, "in"))
        self.check = None
        if opts.check:
            self.check = rdma.ramp_check(opts.format, self.src.ring_base(),
                                         2 * self.src.ring_bytes(), opts.args)
            self.connect(self.src, self.check)
            self.msg_connect((self.src, "async_msgs"), (self.check, "events"))

    def ring_fill(self):
        """How much of the ring the slowest reader is behind the source, 0..1."""
        behind = self.src.nitems_written(0) - self.sink.nitems_read(0)
        if self.check is not None:
            behind = max(behind, self.src.nitems_written(0) - self.check.nitems_read(0))
        return max(0, behind) / self.src.ring_items()


def tune(src, opts):
    """--freq and --gain on the source's RF channel, before the stream starts (the
    source then tags rx_freq on item 0 with the frequency the device reports: a
    recording's core:frequency). Out of range: the device clips, the library warns.
    Returns what the device reports afterwards: {center_freq, gain}, None for a device
    without an RF front end (type=null) when nothing was asked of it."""
    if opts.freq is not None:
        src.set_center_freq(opts.freq, 0)
    if opts.gain is not None:
        src.set_gain(opts.gain, 0)
    try:
        return {"center_freq": src.get_center_freq(0), "gain": src.get_gain(0)}
    except RuntimeError:
        if opts.freq is not None or opts.gain is not None:
            raise
        return None


class stop_signals:
    """A stop request ends the run early but cleanly: the flowgraph is stopped and the
    report printed. SIGINT and SIGTERM are the usual ones; SIGHUP (the terminal went
    away), SIGQUIT and SIGUSR1/2 would otherwise kill the process with no report, so
    they are stop requests too. The handler only records the signal (it runs between
    bytecodes of the main thread, which polls for it); a second signal kills as usual,
    unless it comes within DUPLICATE_S of the first: one stop request often arrives
    twice (coreutils' timeout signals the process and then its process group).

    early: signal numbers that arrived before (the launcher records them from its
    first line on, while GNU Radio is imported): the first is this run's request."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT,
               signal.SIGUSR1, signal.SIGUSR2)
    DUPLICATE_S = 0.5

    def __init__(self, early=None):
        self._launched = early is not None  # the launcher's recorders stand before us
        self.received = None
        self._first = None
        self._previous = {}
        if early:
            self.received = signal.Signals(early[0]).name
            self._first = time.monotonic()

    def __enter__(self):
        for sig in self.SIGNALS:
            self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc):
        # After a stop request the run is over and the process ends: the second
        # delivery of the same request may still be on its way (a run that stops fast
        # gets here first), and the previous handler (SIG_DFL), or Python's own at
        # exit, would die of it before the report is out. Ignored: Python's
        # finalization leaves SIG_IGN alone.
        # Without a request, each signal acts again as it did before the app ran; under
        # a launcher (early is its list) that was its recorder, which only records and
        # would leave a Ctrl-C during teardown without effect: the default instead.
        for sig, handler in self._previous.items():
            if self.received is not None:
                handler = signal.SIG_IGN
            elif self._launched or handler is None:
                handler = (signal.default_int_handler if sig == signal.SIGINT
                           else signal.SIG_DFL)
            signal.signal(sig, handler)

    def _handle(self, signum, frame):
        now = time.monotonic()
        if self._first is None:
            self._first = now
            self.received = signal.Signals(signum).name
        elif now - self._first >= self.DUPLICATE_S:
            # The second request: end now, by the signal, as without this handler.
            for sig in self._previous:
                signal.signal(sig, signal.SIG_DFL)
            os.kill(os.getpid(), signum)


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class progress:
    """Every interval: a line on stderr for a person at a terminal, and/or a JSON
    status line on stdout for a service manager (docs/rx-server.md). Numbers from the
    flowgraph's own counts and reports: nothing asks the device."""

    def __init__(self, opts, tb, started):
        self.opts, self.tb = opts, tb
        self.tty = not opts.quiet and sys.stderr.isatty()
        self.enabled = self.tty or opts.status
        self.started = started
        self.next = started + opts.progress_interval
        self.last_items, self.last_time = 0, started

    def poll(self, now):
        if not self.enabled or now < self.next:
            return
        self.next += self.opts.progress_interval * max(
            1, math.ceil((now - self.next) / self.opts.progress_interval))
        tb = self.tb
        items = tb.src.nitems_written(0)
        counts, lost, _, _ = tb.reports.snapshot()
        rate = (items - self.last_items) / max(1e-9, now - self.last_time)
        self.last_items, self.last_time = items, now
        status = {
            "kind": "status",
            "time": utc_now(),
            "elapsed_s": round(now - self.started, 3),
            "items": items,
            # Items handed out, but not the zeros of gaps.
            "samples_delivered": max(0, items - lost["gap"]),
            "samples_lost": lost["gap"] + lost["overrun"],
            "gaps": counts["gap"],
            "overruns": counts["overrun"],
            "rate_achieved": round(rate, 1),
            "ring_fill": round(tb.ring_fill(), 4),
            "error": tb.src.error() or (tb.recorder.error() if tb.recorder else None),
        }
        if tb.recorder is not None:
            status["recording"] = tb.recorder.recordings()[-1]
        if self.opts.status:
            print(json.dumps(status), flush=True)
        if self.tty:
            print("gr-rdma-rx: %8.1f s  %8.3f MS/s  delivered %d  lost %d (%d gaps, %d "
                  "overruns)  ring %.0f%%"
                  % (status["elapsed_s"], rate / 1e6, status["samples_delivered"],
                     status["samples_lost"], status["gaps"], status["overruns"],
                     100 * status["ring_fill"]), file=sys.stderr, flush=True)


def run(opts, tb, stop):
    cpu_before = rdma.process_cpu_by_role()
    started = time.monotonic()
    tb.start()
    finished = threading.Event()
    waiter = threading.Thread(target=lambda: (tb.wait(), finished.set()), daemon=True)
    waiter.start()
    # Continuous: no end but a signal (or a failure of the run, or of the recording).
    deadline = (None if opts.continuous
                else started + opts.num_samples / opts.rate + opts.timeout)
    ticker = progress(opts, tb, started)
    while not finished.wait(0.05) and stop.received is None:
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            break
        if tb.recorder is not None and tb.recorder.error():
            break
        ticker.poll(now)
    recording_failed = tb.recorder is not None and tb.recorder.error()
    interrupted = None if finished.is_set() or recording_failed else stop.received
    timed_out = not finished.is_set() and interrupted is None and not recording_failed
    if not finished.is_set():
        tb.stop()
        # The waiter's tb.wait() returns once the flowgraph has stopped.
        if not finished.wait(30):
            raise RuntimeError("the flowgraph did not stop within 30 s of tb.stop()")
    if tb.recorder is not None:
        tb.recorder.finish()  # every thread has stopped: the files are final
    elapsed = time.monotonic() - started
    cpu = {k: v - cpu_before[k] for k, v in rdma.process_cpu_by_role().items()}

    counters = tb.src.read_counters()
    # The device's final count may be unknown (it was lost, or restarted): then the
    # identity cannot be checked, and the report says why instead.
    known = counters["device.counters_known"] == 1 and not tb.src.device_note()
    emitted = counters.get("device.samples_emitted")
    delivered = counters["host.delivered"]
    lost = counters["host.lost"]
    counts, _, kept, dropped = tb.reports.snapshot()
    gaps, overruns = kept["gap"], kept["overrun"]
    report = {
        "kind": "report",
        "args": opts.args,
        "format": opts.format,
        "otw_format": opts.otw,
        "rate_requested": opts.rate,
        # None: continuous, until a signal.
        "samples_requested": None if opts.continuous else opts.num_samples,
        "continuous": opts.continuous,
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
        # The RF channel as the device reported it after --freq/--gain (null: no RF).
        "center_freq": (tb.rf or {}).get("center_freq"),
        "gain": (tb.rf or {}).get("gain"),
        "device_events": kept["device"],
        "items_through_flowgraph": tb.sink.nitems_read(0),
        "lost_by_cause": {"gap": counters["host.lost_gap"],
                          "overrun_skipped": counters["host.lost_skipped"],
                          "overrun_overwritten": counters["host.lost_overwritten"],
                          # emitted before the stop took effect (interrupted runs)
                          "stopped": counters["host.lost_stopped"]},
        "gaps": counts["gap"],
        # The first MAX_RANGES of each, in the order reported; the rest counted.
        "gap_ranges": [[e["first_sample"], e["count"]] for e in gaps],
        "gap_ranges_dropped": dropped["gap"],
        "overruns": counts["overrun"],
        "overrun_ranges": [[e["first_sample"], e["count"], e["cause"]] for e in overruns],
        "overrun_ranges_dropped": dropped["overrun"],
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
    report.update(link_report(counters))
    report.update(share_report(counters, report["samples_requested"]))
    if tb.recorder is not None:
        report["recordings"] = tb.recorder.recordings()
        # Why the recording ended early (disk full), None if it did not.
        report["recording_error"] = tb.recorder.error()
    if tb.check is not None:
        report["check"] = {
            "items_checked": tb.check.items_checked(),
            "mismatches": tb.check.unexplained_mismatches(),
            "first_mismatch": (None if tb.check.mismatches() == 0
                               else tb.check.first_mismatch()),
            # [first item, count] of the first unexplained mismatches, to start a hunt.
            "unexplained": [list(r) for r in tb.check.unexplained_ranges(8)],
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
    if report.get("recording_error"):
        return "recording: " + report["recording_error"]
    if report["timed_out"]:
        return "timed out: the stream did not end within --timeout"
    if report["identity_holds"] is None:
        return "samples emitted unknown: " + report["identity_unknown_because"]
    if not report["identity_holds"]:
        return ("samples unaccounted for: emitted %d != delivered %d + lost %d"
                % (report["samples_emitted"], report["samples_delivered"],
                   report["samples_lost"]))
    # One share of a split stream: its own samples of those requested.
    requested = report.get("samples_requested_share", report["samples_requested"])
    if (report["interrupted"] is None and requested is not None
            and report["samples_emitted"] != requested):
        return ("the device emitted %d of the %d samples requested%s"
                % (report["samples_emitted"], requested,
                   " of this share" if "share" in report else ""))
    check = report.get("check")
    if check is not None and (check["mismatches"] or check["time_errors"]
                              or check["out_of_ring_reads"]):
        return "--check failed"
    return None


def main(argv=None, early_signals=None):
    """early_signals: stop requests that came before main (see the launchers)."""
    opts = parse_args(sys.argv[1:] if argv is None else argv)
    with stop_signals(early_signals) as stop:
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
        for line in link_lines(report) + share_lines(report):
            print(line)
        if "check" in report:
            print("check: %(items_checked)d items, %(mismatches)d unexplained mismatches, "
                  "%(time_errors)d time errors, %(out_of_ring_reads)d reads outside the ring"
                  % report["check"])
        if report["interrupted"]:
            print("stopped early by %s" % report["interrupted"])
    if why:
        print("gr-rdma-rx: FAILED: %s" % why, file=sys.stderr)
    return 0 if why is None else 1
