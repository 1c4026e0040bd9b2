#!/usr/bin/python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""Wire format vs CPU format: the host's cost of converting, beside zero copy.

    bench/convert.py run [--rate 100e6] [--seconds 1] [--reps 3] [--out DIR]
    bench/convert.py analyze DIR [--check]

run: the same stand-in stream (type=null: no transport, the host side alone, as
bench/ab.py) at one sample rate, once per setting, the settings in turn and the turns
repeated, so that the machine's drift falls on all alike. Each run is bench/peer_gr.py's
rdma mode: rx_source -> null_sink, host CPU read over the middle 60 % of the burst.
About 25 s with the defaults.

    zc_sc16    sc16 on the wire, sc16 in the flowgraph: zero copy (the baseline)
    sc16_fc32  sc16 on the wire, fc32 in the flowgraph: VOLK converts from the ring
    zc_fc32    fc32 on the wire and in the flowgraph: zero copy, twice sc16's bytes
    zc_sc8     sc8 on the wire and in the flowgraph: zero copy
    sc8_fc32   sc8 on the wire, fc32 in the flowgraph: VOLK converts

Writes DIR/convert.csv (one row per run) and prints what analyze prints.

analyze: per setting, the median [min-max] host CPU seconds per 10^9 samples and per
GB the flowgraph received, and the conversion's own cost: a converting setting's
median less the zero-copy median of its wire format, per GB of fc32 written. --check
also fails (exit 1) on a CSV a run did not write whole: a setting without runs, a run
that lost samples or measured nothing (bench_convert_analyze_smoke).
"""

import argparse
import csv
import datetime
import json
import math
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ITEM_SIZE = {"sc16": 4, "fc32": 8, "sc8": 2}
# name: (cpu format, wire format), in the order they run and print.
SETTINGS = {
    "zc_sc16": ("sc16", "sc16"),
    "sc16_fc32": ("fc32", "sc16"),
    "zc_fc32": ("fc32", "fc32"),
    "zc_sc8": ("sc8", "sc8"),
    "sc8_fc32": ("fc32", "sc8"),
}
FIELDS = ["setting", "cpu_format", "otw_format", "rep", "rate_sps", "samples", "lost",
          "window_items", "host_cpu_s", "host_s_per_gs", "host_s_per_gb_out",
          "conversion_calls", "started", "load1", "args"]
# The stand-in device with bench/run.py's tuned messages (64 KiB, a notification per 32
# of them) and its 0.2 s ring, without work_interval=: at 100 MS/s a converting source
# with it overran now and then here (docs/performance.md, "Wire format conversion").
ARGS = "type=null,payload=65536,notify=32,latency=0.2"


def run_one(build, cpu, otw, rate, samples):
    env = dict(os.environ)
    if build:
        env["PYTHONPATH"] = os.path.join(build, "test_modules")
    env["GR_CONF_LOG_LOG_FILE"] = "stderr"
    env["GR_CONF_LOG_LOG_LEVEL"] = "warn"
    argv = ["/usr/bin/python3", os.path.join(HERE, "peer_gr.py"), "rdma", "--args", ARGS,
            "--rate", repr(rate), "--samples", str(samples), "--format", cpu, "--otw", otw]
    p = subprocess.run(argv, capture_output=True, text=True, env=env,
                       timeout=samples / rate + 60)
    for line in reversed(p.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise RuntimeError("run failed (%s/%s): %s" % (cpu, otw, p.stderr[-2000:]))


def measure(opts):
    os.makedirs(opts.out, exist_ok=True)
    samples = int(opts.rate * opts.seconds)
    path = os.path.join(opts.out, "convert.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for rep in range(opts.reps):
            for name, (cpu, otw) in SETTINGS.items():
                r = run_one(opts.build, cpu, otw, opts.rate, samples)
                win = r["window"]
                items = win["items1"] - win["items0"]
                w.writerow({
                    "setting": name, "cpu_format": cpu, "otw_format": otw, "rep": rep,
                    "rate_sps": opts.rate, "samples": samples, "lost": r["lost"],
                    "window_items": items, "host_cpu_s": win["host_s"],
                    "host_s_per_gs": win["host_s"] / (items / 1e9) if items else "nan",
                    "host_s_per_gb_out": (win["host_s"] / (items * ITEM_SIZE[cpu] / 1e9)
                                          if items else "nan"),
                    "conversion_calls": r["conversion_reads"]["calls"],
                    "started": datetime.datetime.utcnow().isoformat(),
                    "load1": open("/proc/loadavg").read().split()[0], "args": ARGS})
                f.flush()
                print("rep %d %-9s lost %d" % (rep, name, r["lost"]), flush=True)
    return opts.out


def load(directory):
    with open(os.path.join(directory, "convert.csv"), newline="") as f:
        return list(csv.DictReader(f))


def problems(rows):
    """What makes a result set unusable (empty: nothing)."""
    out = []
    seen = {row["setting"] for row in rows}
    for name in SETTINGS:
        if name not in seen:
            out.append("setting %s has no run" % name)
    for row in rows:
        where = "%s rep %s" % (row["setting"], row["rep"])
        if row["setting"] not in SETTINGS:
            out.append("%s: unknown setting" % where)
            continue
        if (row["cpu_format"], row["otw_format"]) != SETTINGS[row["setting"]]:
            out.append("%s: formats %s/%s are not the setting's" %
                       (where, row["cpu_format"], row["otw_format"]))
        if int(row["lost"]) != 0:
            out.append("%s: lost %s samples: not the host's steady cost" % (where, row["lost"]))
        value = float(row["host_s_per_gs"])
        if int(row["window_items"]) <= 0 or not math.isfinite(value) or value <= 0:
            out.append("%s: measured nothing" % where)
        converts = row["cpu_format"] != row["otw_format"]
        if converts != (int(row["conversion_calls"]) > 0):
            out.append("%s: conversion calls %s for %s" %
                       (where, row["conversion_calls"],
                        "a conversion" if converts else "zero copy"))
    return out


def spread(values):
    return "%.3f [%.3f-%.3f]" % (statistics.median(values), min(values), max(values))


def analyze(rows):
    """The table, as text."""
    by = {}
    for row in rows:
        by.setdefault(row["setting"], []).append(row)
    rate = float(rows[0]["rate_sps"])
    reps = max(len(v) for v in by.values())
    lines = ["host CPU at %.0f MS/s (%s), %d repetitions: median [min-max]"
             % (rate / 1e6, rows[0]["args"], reps),
             "  %-9s %-5s %-5s %-24s %-24s" % ("setting", "wire", "cpu", "s per 1e9 samples",
                                              "s per GB received")]
    medians = {}
    for name, (cpu, otw) in SETTINGS.items():
        runs = by.get(name, [])
        if not runs:
            continue
        gs = [float(r["host_s_per_gs"]) for r in runs]
        gb = [float(r["host_s_per_gb_out"]) for r in runs]
        medians[name] = statistics.median(gs)
        lines.append("  %-9s %-5s %-5s %-24s %-24s" % (name, otw, cpu, spread(gs), spread(gb)))
    lines.append("conversion's own cost (converting median - zero-copy median, same wire):")
    for name, (cpu, otw) in SETTINGS.items():
        base = "zc_" + otw
        if cpu == otw or name not in medians or base not in medians:
            continue
        extra = medians[name] - medians[base]
        lines.append("  %-9s %+.3f s per 1e9 samples = %+.3f s per GB of fc32 written"
                     % (name, extra, extra / ITEM_SIZE[cpu]))
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="measure, then analyze")
    r.add_argument("--build", default="",
                   help="build tree whose module to run (default: the installed one or "
                        "PYTHONPATH's)")
    r.add_argument("--rate", type=float, default=100e6, help="S/s (default 100e6)")
    r.add_argument("--seconds", type=float, default=1.0, help="burst length per run")
    r.add_argument("--reps", type=int, default=3)
    r.add_argument("--out", default=os.path.join(
        HERE, "results", "convert-" + datetime.datetime.utcnow().strftime("%Y%m%dT%H%M%SZ")))
    a = sub.add_parser("analyze", help="print the table of a result set")
    a.add_argument("dir")
    a.add_argument("--check", action="store_true",
                   help="exit 1 if the result set is incomplete or a run lost samples")
    opts = p.parse_args()
    directory = measure(opts) if opts.command == "run" else opts.dir
    rows = load(directory)
    found = problems(rows)
    for text in found:
        print("problem: " + text, file=sys.stderr)
    if rows:
        print(analyze(rows))
    print("raw: %s" % os.path.join(directory, "convert.csv"))
    if found and (opts.command == "run" or opts.check):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
