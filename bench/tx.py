#!/usr/bin/python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""Transmit: what a GB of samples sent costs the host, gr-rdma next to the socket path.

    bench/tx.py run [--build BUILD] [--rates 10e6,20e6] [--seconds 3] [--reps 3]
                    [--ladder 5e6,10e6,...] [--ladder-reps 3] [--no-tune] [--out DIR]
    bench/tx.py analyze DIR [--check] [--write-docs]

run, phase "compare": at each rate of --rates, every variant once, then again (--reps
turns), so that the machine's drift falls on all alike. sc16 (4-byte items), the ramp:

    tx_sink          vector_source -> rdma.tx_sink over the emulator (type=emu, soft NIC):
                     the upstream writes into the registered ring, the device READs it
    udp_sink_tuned   vector_source -> throttle -> network.udp_sink, 8 KiB of samples per
                     datagram (jumbo frames' size) and an 8 MiB socket send buffer
    udp_sink_shipped the same with GRC's default datagram (1472 bytes) and buffer
    ideal            bench_ideal_tx: sendmmsg of 8 KiB datagrams straight from a ring the
                     ramp was written into beforehand, paced at the rate
    ceiling          rdma.tx_stream fed by a producer that commits without writing: the
                     zero-copy transport's own cost (compare with ideal: neither writes)

Each socket variant sends to bench_ideal_rx on loopback, which drains and counts. Phase
"ladder": tx_sink (both settings) at the rates of --ladder in turn, each turn stopping
at its first rate where the host underflowed (the emulator's TX_UNDERFLOW_SAMPLES);
late samples (READs that came back too late: the emulated device and soft NIC) are
recorded over the whole run and over the measurement window. Each run is one process (bench/tx_peer.py or
bench_ideal_tx): CPU over the middle 60 % of --seconds, per thread; the host is every
thread but the emulator's (device) and the soft NIC's (NIC), which hardware does.
Writes DIR/tx.csv (one row per run) and DIR/metadata.json, then prints what analyze
prints. As root (and without --no-tune) it reserves hugepages for the rings and sets the
tuned socket buffer while those runs last, and restores both however it ends.

analyze: per rate and variant, the median [min-max] host CPU seconds per GB sent, the
ratio of each median to udp_sink_tuned's (range: min/max - max/min), and the ladder's
maxima. --check fails (exit 1) on a result set a run did not write whole: a variant
without runs, a run that failed or measured nothing for want of a stream (a run whose
device played only zeros in its window is listed as stalled: a result) (bench_tx_smoke,
bench_tx_analyze_smoke). --write-docs puts the tables into docs/performance.md.
"""

import argparse
import csv
import datetime
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from run import suite, sysctl_guard  # noqa: E402  (the suite's guard and port picker)

ITEM = 4
# The emulator's lead time floor raised from 0.2 ms to 20 ms: on this shared two-core
# machine a READ's round trip reaches milliseconds, and the lead the device adapts from
# 0.2 ms comes too late for the first messages (late samples at any rate).
TX_ARGS = "type=emu,min_lead=0.02"
# Tuned: a fetch notification (a wake-up of the sink) every 64 messages of 4 KiB instead
# of 16. Larger messages would cut more, but READs of more than one 4 KiB packet lose
# responses in the soft NIC's socket on this machine (re-reads, late samples).
TX_TUNED = TX_ARGS + ",notify=64"
SOCKET_BUFFER = 8 << 20  # what bench_ideal_tx is granted for its 4 MiB request
VARIANTS = {  # name: (what runs, sample bytes per datagram, device args)
    "tx_sink": ("sink", 0, TX_ARGS),
    "tx_sink_tuned": ("sink", 0, TX_TUNED),
    "udp_sink_tuned": ("udp", 8192, ""),
    "udp_sink_shipped": ("udp", 1472 - 8, ""),
    "ideal": ("ideal", 8192, ""),
    "ceiling": ("stream", 0, TX_TUNED),
}
LADDER = ["tx_sink", "tx_sink_tuned"]
BASELINE = "udp_sink_tuned"
HUGEPAGES = 128  # 256 MiB of 2 MiB pages: the largest ring of the ladder fits
FIELDS = ["phase", "variant", "rep", "rate_sps", "seconds", "payload", "args",
          "window_s", "window_bytes", "achieved_sps", "host_cpu_s", "host_s_per_gb",
          "source_cpu_s", "sink_side_s_per_gb", "nic_cpu_s", "device_cpu_s",
          "underflow", "late", "clean", "window_underflow", "window_late", "drained_items", "socket_buffer", "hugepage_pool",
          "threads", "started", "load1", "note"]
BEGIN, END = "<!-- tx-results:begin -->", "<!-- tx-results:end -->"


class runner:
    def __init__(self, opts):
        self.opts = opts
        self.bin = os.path.join(opts.build, "bench")
        self.env = dict(os.environ)
        self.env["PYTHONPATH"] = os.path.join(opts.build, "test_modules")
        self.env["GR_CONF_LOG_LOG_FILE"] = "stderr"
        self.env["GR_CONF_LOG_LOG_LEVEL"] = "warn"
        self.sysctl = sysctl_guard()
        self.tune = self.sysctl.permitted and not opts.no_tune
        self.log = open(os.path.join(opts.out, "stderr.log"), "w")
        self.csv = open(os.path.join(opts.out, "tx.csv"), "w", newline="")
        self.rows = csv.DictWriter(self.csv, fieldnames=FIELDS)
        self.rows.writeheader()

    def spawn(self, argv):
        self.log.write("$ %s\n" % " ".join(argv))
        self.log.flush()
        return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=self.log,
                                env=self.env, text=True)

    def finish(self, p, timeout):
        try:
            out, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()  # our own child, by its pid
            out, _ = p.communicate()
            self.log.write("timed out: pid %d\n" % p.pid)
        for line in reversed(out.splitlines()):
            if line.startswith("{"):
                return json.loads(line)
        return None

    def peer(self, mode, rate, extra):
        argv = ["/usr/bin/python3", os.path.join(HERE, "tx_peer.py"), mode, "--rate",
                repr(rate), "--seconds", str(self.opts.seconds)] + extra
        return self.finish(self.spawn(argv), self.opts.seconds + 60)

    def socket_run(self, kind, rate, payload):
        """A socket sender and the drain; returns (sender's result, drain's result)."""
        port = suite.free_port()
        # The drain expects more than the sender sends (it runs a little before and after
        # its seconds) and stops 0.5 s after the stream dried up, once the burst it was
        # told of (--samples / --rate: the seconds and one more) is over.
        samples = int(rate * (self.opts.seconds + 30))
        drain = self.spawn([os.path.join(self.bin, "bench_ideal_rx"), "--port", str(port),
                            "--rate", repr(samples / (self.opts.seconds + 1)), "--payload",
                            str(payload), "--samples", str(samples)])
        if drain.stdout.readline().strip() != "READY":
            return None, self.finish(drain, 5)
        if kind == "ideal":
            sent = self.finish(self.spawn([
                os.path.join(self.bin, "bench_ideal_tx"), "--port", str(port), "--rate",
                repr(rate), "--seconds", str(self.opts.seconds), "--payload", str(payload)]),
                self.opts.seconds + 30)
        else:
            sent = self.peer("udp", rate, ["--to", str(port), "--payload", str(payload)])
        return sent, self.finish(drain, 10)

    def measure(self, phase, variant, rep, rate):
        kind, payload, args = VARIANTS[variant]
        row = {"phase": phase, "variant": variant, "rep": rep, "rate_sps": rate,
               "seconds": self.opts.seconds, "payload": payload,
               "started": datetime.datetime.now(datetime.timezone.utc).isoformat(
                   timespec="seconds"),
               "load1": open("/proc/loadavg").read().split()[0]}
        if kind in ("sink", "stream"):
            row["args"] = args
            got = self.peer(kind, rate, ["--args", args])
            row.update(self.rdma_fields(got))
        else:
            tuned = variant == "udp_sink_tuned" and self.tune
            if tuned:
                self.sysctl.set("net.core.wmem_default", SOCKET_BUFFER)
            try:
                got, drained = self.socket_run(kind, rate, payload)
            finally:
                if tuned:
                    self.sysctl.restore("net.core.wmem_default")
            row.update(self.socket_fields(kind, got, drained))
            row["socket_buffer"] = (SOCKET_BUFFER if tuned or kind == "ideal" else
                                    int(sysctl_guard.read("net.core.wmem_default")))
        if row.get("window_bytes"):
            gb = row["window_bytes"] / 1e9
            row["host_s_per_gb"] = row["host_cpu_s"] / gb
            row["achieved_sps"] = row["window_bytes"] / ITEM / row["window_s"]
            row["sink_side_s_per_gb"] = (row["host_cpu_s"] - row.get("source_cpu_s", 0)) / gb
        self.rows.writerow(row)
        self.csv.flush()
        return row

    @staticmethod
    def peer_window(got):
        w = got["window"]
        threads = w["threads"]
        source = sum(v for k, v in threads.items() if k.startswith("vector_source"))
        return {"window_s": w["t1"] - w["t0"], "window_bytes": w["bytes"],
                "host_cpu_s": w["host_s"], "nic_cpu_s": w["nic_s"],
                "device_cpu_s": w["device_s"], "source_cpu_s": source,
                "threads": json.dumps({k.rsplit("/", 1)[0]: v for k, v in threads.items()})}

    def rdma_fields(self, got):
        if not got:
            return {"clean": False, "note": "run failed (see stderr.log)"}
        c = got["counters"]
        out = self.peer_window(got)
        underflow, late = c["acct.underflow"], c["acct.late"]
        out.update({"underflow": underflow, "late": late, "hugepage_pool": self.pool,
                    "window_underflow": got["window"]["underflow"],
                    "window_late": got["window"]["late"],
                    "clean": underflow == 0 and late == 0 and not got["error"],
                    "note": got["error"]})
        return out

    def socket_fields(self, kind, got, drained):
        if not got:
            return {"clean": False, "note": "run failed (see stderr.log)"}
        out = {"drained_items": (drained or {}).get("items", ""), "clean": True}
        if kind == "ideal":
            w = got["window"]
            out.update({"window_s": w["t1"] - w["t0"], "window_bytes": w["bytes1"] - w["bytes0"],
                        "host_cpu_s": w["cpu1"] - w["cpu0"], "nic_cpu_s": 0.0,
                        "device_cpu_s": 0.0, "source_cpu_s": 0.0,
                        "threads": json.dumps({"bench_ideal_tx": w["cpu1"] - w["cpu0"]})})
            if not w["valid"]:
                out.update({"clean": False, "note": "window incomplete"})
        else:
            out.update(self.peer_window(got))
        return out

    def run(self):
        t0 = time.monotonic()
        meta = {"command": " ".join([sys.executable] + sys.argv), "options": vars(self.opts),
                "tuned_system": self.tune, "variants": VARIANTS,
                "git_commit": subprocess.run(["git", "rev-parse", "HEAD"], cwd=SOURCE,
                                             capture_output=True, text=True).stdout.strip(),
                "cpus": os.cpu_count(),
                "load_start": open("/proc/loadavg").read().split()[:3],
                "top_start": subprocess.run(["sh", "-c", "ps -eo pcpu,comm --sort=-pcpu | "
                                             "head -8"], capture_output=True,
                                            text=True).stdout}
        if self.tune:
            self.sysctl.set("vm.nr_hugepages", HUGEPAGES)
        # 2 MiB pages the rings could take (a ring falls back to normal pages, and says
        # so in stderr.log, when the pool is short).
        self.pool = int(sysctl_guard.read("vm.nr_hugepages"))
        meta["hugepage_pool"] = self.pool
        try:
            for rep in range(self.opts.reps):
                for rate in self.opts.rates:
                    for variant in VARIANTS:
                        r = self.measure("compare", variant, rep, rate)
                        print("[%5.0f s] compare %4.0f MS/s rep %d %-16s %s s/GB %s" % (
                            time.monotonic() - t0, rate / 1e6, rep, variant,
                            "%.3f" % r["host_s_per_gb"] if "host_s_per_gb" in r else "-",
                            "clean" if r["clean"] else "NOT CLEAN %s" % r.get("note", "")),
                            flush=True)
            for rep in range(self.opts.ladder_reps):
                for variant in LADDER:
                    for rate in self.opts.ladder:
                        r = self.measure("ladder", variant, rep, rate)
                        print("[%5.0f s] ladder  %4.0f MS/s rep %d %-16s underflow %s "
                              "late %s" % (time.monotonic() - t0, rate / 1e6, rep, variant,
                                           r.get("underflow"), r.get("late")), flush=True)
                        if r.get("underflow", 1) != 0:
                            break  # the host fell behind (or the run failed): turn over
        finally:
            self.sysctl.restore()
            meta["load_end"] = open("/proc/loadavg").read().split()[:3]
            meta["wall_s"] = round(time.monotonic() - t0, 1)
            with open(os.path.join(self.opts.out, "metadata.json"), "w") as f:
                json.dump(meta, f, indent=1)
            self.csv.close()


# ---- analysis -------------------------------------------------------------------------

def load(directory):
    with open(os.path.join(directory, "tx.csv"), newline="") as f:
        return list(csv.DictReader(f))


def measured(row):
    try:
        return float(row["window_bytes"]) > 0 and float(row["host_s_per_gb"]) > 0
    except (KeyError, ValueError):
        return False


def stalled(row):
    """A run that worked but moved no byte in its window, the device playing zeros: a
    result (the stream stalled), listed by the analysis, not a broken run."""
    return (row["window_bytes"] not in ("", None) and float(row["window_bytes"]) == 0
            and row["underflow"] not in ("", None) and int(row["window_underflow"] or 0) > 0)


def problems(rows):
    """What makes a result set unusable (empty: nothing). Not speed: an unclean run is
    a result (the ladder's end), a run that measured nothing is not."""
    out = []
    if not rows:
        return ["no rows"]
    missing = [f for f in FIELDS if f not in rows[0]]
    if missing:
        out.append("columns missing: %s" % ", ".join(missing))
    rates = sorted({r["rate_sps"] for r in rows if r["phase"] == "compare"})
    if not rates:
        out.append("no compare runs")
    for rate in rates:
        seen = {r["variant"] for r in rows if r["phase"] == "compare" and r["rate_sps"] == rate}
        for v in VARIANTS:
            if v not in seen:
                out.append("%s at %s S/s has no run" % (v, rate))
    for v in LADDER:
        if not any(r["phase"] == "ladder" and r["variant"] == v for r in rows):
            out.append("%s has no ladder run" % v)
    for r in rows:
        if r["variant"] not in VARIANTS:
            out.append("%s rep %s: unknown variant" % (r["variant"], r["rep"]))
        elif not measured(r) and not stalled(r):
            out.append("%s %s rep %s at %s S/s measured nothing: %s" % (
                r["phase"], r["variant"], r["rep"], r["rate_sps"], r["note"]))
    return out


def spread(values, fmt="%.3f"):
    return (fmt + " [" + fmt + "–" + fmt + "]") % (statistics.median(values), min(values),
                                                  max(values))


def ratio(base, values):
    """base ÷ values: the ratio of medians and its range (min/max – max/min)."""
    return "%.1f× [%.1f–%.1f]" % (statistics.median(base) / statistics.median(values),
                                   min(base) / max(values), max(base) / min(values))


def per_gb(rows, key):
    return [float(r[key]) / (float(r["window_bytes"]) / 1e9) for r in rows]


def compare_tables(rows):
    """One markdown table per rate of the compare phase."""
    out = []
    for rate in sorted({float(r["rate_sps"]) for r in rows if r["phase"] == "compare"}):
        runs = [r for r in rows if r["phase"] == "compare" and float(r["rate_sps"]) == rate
                and measured(r)]
        by = {v: [r for r in runs if r["variant"] == v] for v in VARIANTS}
        base = [float(r["host_s_per_gb"]) for r in by[BASELINE]]
        out += ["", "**%g MS/s (%g MB/s)**, host CPU s per GB sent, median [min–max] of %d:"
                % (rate / 1e6, rate * ITEM / 1e6, max(len(v) for v in by.values())), "",
                "| Variant | Clean | Host | %s ÷ this | Host less the source | NIC | Device |"
                % BASELINE, "|---|---|---|---|---|---|---|"]
        for v, rs in by.items():
            if not rs:
                continue
            host = [float(r["host_s_per_gb"]) for r in rs]
            side = [float(r["sink_side_s_per_gb"]) for r in rs]
            out.append("| %s | %d/%d | %s | %s | %s | %s | %s |" % (
                v, sum(r["clean"] == "True" for r in rs), len(rs), spread(host),
                ratio(base, host) if base else "-", spread(side),
                spread(per_gb(rs, "nic_cpu_s")), spread(per_gb(rs, "device_cpu_s"))))
        for r in rows:
            if (r["phase"] == "compare" and float(r["rate_sps"]) == rate and stalled(r)):
                out += ["", "%s turn %s stalled: no byte fetched in its window, %s "
                        "underflow samples there (excluded above)." % (
                            r["variant"], r["rep"], r["window_underflow"])]
        if by["ideal"] and by["ceiling"]:
            out.append("")
            out.append("Transport alone, neither writing samples: ideal ÷ ceiling = %s." %
                       ratio([float(r["host_s_per_gb"]) for r in by["ideal"]],
                             [float(r["host_s_per_gb"]) for r in by["ceiling"]]))
    return out


def highest_before(turn, bad):
    """The highest rate of a turn (ascending) before its first run that is bad."""
    best = 0.0
    for r in turn:
        if bad(r):
            break
        best = float(r["rate_sps"])
    return best


def ladder_table(rows):
    """Per ladder variant and turn: the highest rate before the first run with zeros
    played (whole run; window only) and before the first host underflow."""
    top = max((float(r["rate_sps"]) for r in rows if r["phase"] == "ladder"), default=0)
    out = ["", "**Maximum rates** (MS/s; per turn, then the median): each turn climbs the "
           "rates until the host underflows; a rate counts while every rate up to it "
           "played no zeros (clean), none in the measurement window (steady), or none "
           "for want of the host's samples (no underflow; ≥ %g: never, up to the top)."
           % (top / 1e6), "",
           "| Variant | Device args | Clean | Steady | No underflow |", "|---|---|---|---|---|"]
    tests = [lambda r: r["clean"] != "True",
             lambda r: not measured(r) or int(r["window_underflow"] or 1) + int(
                 r["window_late"] or 0) > 0,
             lambda r: int(r["underflow"] or 1) > 0]
    for variant in LADDER:
        runs = [r for r in rows if r["phase"] == "ladder" and r["variant"] == variant]
        if not runs:
            continue
        cells = []
        for test in tests:
            maxima = []
            for rep in sorted({int(r["rep"]) for r in runs}):
                turn = sorted((r for r in runs if int(r["rep"]) == rep),
                              key=lambda r: float(r["rate_sps"]))
                maxima.append(highest_before(turn, test))
            cells.append("%s: **%g**" % (", ".join("%g" % (m / 1e6) for m in maxima),
                                         statistics.median(maxima) / 1e6))
        out.append("| %s | `%s` | %s |" % (variant, runs[0]["args"], " | ".join(cells)))
    return out


def analyze(rows, directory):
    return "\n".join(["Run `%s`" % os.path.basename(os.path.normpath(directory))] +
                     compare_tables(rows) + ladder_table(rows))


def write_docs(text):
    path = os.path.join(SOURCE, "docs", "performance.md")
    with open(path) as f:
        page = f.read()
    if BEGIN not in page or END not in page:
        raise SystemExit("%s has no %s ... %s section" % (path, BEGIN, END))
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(path, "w") as f:
        f.write(head + BEGIN + "\n" + text + "\n" + END + tail)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="measure, then analyze")
    r.add_argument("--build", default=os.path.join(SOURCE, "build"),
                   help="build tree with the bench targets (make bench)")
    r.add_argument("--rates", default="10e6,20e6", help="S/s of the compare phase")
    r.add_argument("--ladder", default="5e6,10e6,20e6,40e6,60e6,100e6")
    r.add_argument("--ladder-reps", type=int, default=3, help="turns of the ladder")
    r.add_argument("--seconds", type=float, default=3.0, help="stream per run")
    r.add_argument("--reps", type=int, default=3)
    r.add_argument("--no-tune", action="store_true",
                   help="leave hugepages and socket buffers as they are, even as root")
    r.add_argument("--out", default=os.path.join(
        HERE, "results", "tx-" + datetime.datetime.utcnow().strftime("%Y%m%dT%H%M%SZ")))
    a = sub.add_parser("analyze", help="print the tables of a result set")
    a.add_argument("dir")
    a.add_argument("--check", action="store_true", help="exit 1 if the set is incomplete")
    a.add_argument("--write-docs", action="store_true",
                   help="put the tables into docs/performance.md")
    opts = p.parse_args()
    if opts.command == "run":
        opts.build = os.path.abspath(opts.build)
        opts.rates = [float(x) for x in opts.rates.split(",")]
        opts.ladder = [float(x) for x in opts.ladder.split(",")]
        os.makedirs(opts.out, exist_ok=True)
        runner(opts).run()
    directory = opts.out if opts.command == "run" else opts.dir
    rows = load(directory)
    found = problems(rows)
    for text in found:
        print("problem: " + text, file=sys.stderr)
    if any(t.startswith(("no rows", "columns missing")) for t in found):
        return 1  # nothing to tabulate
    text = analyze(rows, directory)
    print(text)
    print("raw: %s" % os.path.join(directory, "tx.csv"))
    if opts.command == "analyze" and opts.write_docs:
        write_docs(text)
    if found and (opts.command == "run" or opts.check):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
