#!/usr/bin/python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""The device controller (SCR, docs/links.md) on a fluid model: control work, fairness.

    bench/ctrl.py run [--build build] [--rates 1e3,1e4,1e5,1e6,1e7] [--seconds 2]
                      [--reps 5] [--callgrind] [--out DIR]
    bench/ctrl.py analyze DIR [--check]

run: build/bench/bench_ctrl (it builds nothing) in simulated time, no network, no
emulator: lib/emu/rate_controller.h driven as the emulator will drive it (phase 2).

* work: at each event rate (Poisson, per destination: RTT probes and NAK counts) and
  repetition, the loop's work over the simulated seconds: runs, records processed,
  policy computations, the wall time inside the runs; post()'s cost per event apart
  (post.csv). With --callgrind, once per rate under valgrind: instructions inside the
  runs (rate_controller::tick) and inside post(), repeatable on a busy machine.
* fluid: three streams of 100 MB/s on links of 80 and 120 MB/s (2/3 of the offered
  load; stream 0 on the first link, 1 and 2 on both), water filling against equal
  weights without rate limits, side by side in one simulation, per stream and 1 s
  window; at 5.0005 s stream 0's demand drops to 25 MB/s.

Writes DIR/work.csv, post.csv, fluid.csv, free.csv (callgrind.csv) and metadata.json,
then prints what analyze prints.

analyze: control work per second against the event rate and its ratio over each 100x
step; the collector's cost; Jain's index per 1 s window of each policy, of throughput
normalized by the max-min fair share (1 = everyone gets exactly its share); the time
the other streams take to get their new share after the drop. --check fails (exit 1)
on a result set a run did not write whole or that contradicts itself (counters that do
not add up, more delivered than offered): bench_ctrl_analyze_smoke.
"""

import argparse
import csv
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
POLICIES = ["water_filling", "round_robin"]
TARGET_JAIN = 0.99
TARGET_FREE_MS = 50.0
TARGET_FLAT = 2.0


# ---- running ---------------------------------------------------------------------------

def load1():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def git(*argv):
    try:
        return subprocess.run(["git", "-C", SOURCE, *argv], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def callgrind_ir(program, rate, seconds, function, scratch):
    """Instructions inside \\p function over one simulated run at \\p rate."""
    out = os.path.join(scratch, "callgrind.out")
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                    "--collect-atstart=no", "--toggle-collect=" + function,
                    program, "work", "--out", scratch, "--rates", repr(rate), "--reps", "1",
                    "--seconds", repr(seconds), "--no-post"],
                   check=True, capture_output=True, text=True)
    with open(out) as f:
        for line in f:
            if line.startswith("totals:") or line.startswith("summary:"):
                ir = int(line.split()[1])
                break
        else:
            raise RuntimeError("no totals in " + out)
    with open(os.path.join(scratch, "work.csv")) as f:
        row = next(csv.DictReader(f))
    return ir, row


def measure(opts):
    program = os.path.join(opts.build, "bench", "bench_ctrl")
    if not os.access(program, os.X_OK):
        raise SystemExit("no %s: build it first (cmake --build %s --target bench_ctrl)"
                         % (program, opts.build))
    os.makedirs(opts.out, exist_ok=True)
    meta = {"command": sys.argv, "started": datetime.datetime.utcnow().isoformat(),
            "commit": git("rev-parse", "HEAD"),
            "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
            "machine": platform.platform(), "cpus": os.cpu_count(), "load1_start": load1()}
    rates = ",".join(repr(r) for r in opts.rates)
    work = [program, "work", "--out", opts.out, "--rates", rates, "--reps", str(opts.reps),
            "--seconds", repr(opts.seconds)]
    fluid = [program, "fluid", "--out", opts.out, "--seconds", repr(opts.fluid_seconds),
             "--drop", opts.drop, "--event-rate", repr(opts.event_rate)]
    meta["work"], meta["fluid"] = work, fluid
    subprocess.run(work, check=True)
    subprocess.run(fluid, check=True)
    if opts.callgrind:
        rows = []
        with tempfile.TemporaryDirectory() as scratch:
            for rate in opts.rates:
                tick, row = callgrind_ir(program, rate, opts.callgrind_seconds,
                                         "*rate_controller::tick*", scratch)
                post, _ = callgrind_ir(program, rate, opts.callgrind_seconds,
                                       "*ctrl_event_queue::post*", scratch)
                rows.append({"rate_eps": rate, "seconds": opts.callgrind_seconds,
                             "events": row["events"], "processed": row["processed"],
                             "runs": row["runs"], "tick_ir": tick, "post_ir": post})
                print("callgrind %g events/s: %d Ir in runs" % (rate, tick), flush=True)
        with open(os.path.join(opts.out, "callgrind.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    meta["load1_end"] = load1()
    with open(os.path.join(opts.out, "metadata.json"), "w") as f:
        json.dump(meta, f, indent=1)
    return opts.out


# ---- reading ---------------------------------------------------------------------------

def read(directory, name):
    path = os.path.join(directory, name)
    if not os.path.exists(path):
        return None
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def load(directory):
    return {name: read(directory, name + ".csv")
            for name in ("work", "post", "fluid", "free", "callgrind")}


def by_rate(rows):
    out = {}
    for row in rows:
        out.setdefault(float(row["rate_eps"]), []).append(row)
    return dict(sorted(out.items()))


def per_second(row, key):
    return float(row[key]) / float(row["seconds"])


def jain(values):
    squares = sum(v * v for v in values)
    return sum(values) ** 2 / (len(values) * squares) if squares > 0 else float("nan")


def windows(fluid):
    """{policy: {window: [rows by stream]}}"""
    out = {}
    for row in fluid:
        out.setdefault(row["policy"], {}).setdefault(int(row["window"]), []).append(row)
    return out


def window_jain(rows):
    return jain([float(r["delivered_bytes"]) / float(r["fair_bytes"]) for r in rows
                 if float(r["fair_bytes"]) > 0])


def problems(data):
    """What makes a result set unusable (empty: nothing)."""
    out = []
    for name in ("work", "post", "fluid", "free"):
        if not data[name]:
            out.append("%s.csv missing or empty" % name)
    if out:
        return out
    reps = {len(v) for v in by_rate(data["work"]).values()}
    if len(reps) != 1:
        out.append("work.csv: rates with different repetition counts %s" % sorted(reps))
    for row in data["work"]:
        where = "work %s events/s rep %s" % (row["rate_eps"], row["rep"])
        events, processed = int(row["events"]), int(row["processed"])
        coalesced, pending = int(row["coalesced"]), int(row["pending"])
        if events != processed + coalesced + pending:
            out.append("%s: events %d != processed + coalesced + pending" % (where, events))
        if pending > int(row["queues"]):
            out.append("%s: %d pending records, more than the queues" % (where, pending))
        # The bound: at most one record per queue per run, at most one run per period.
        bound = int(row["queues"]) * (float(row["seconds"]) * 1e6 / float(row["period_us"]) + 1)
        if processed > bound or int(row["runs"]) > bound / int(row["queues"]):
            out.append("%s: more work than the bound queues x runs" % where)
        if int(row["computations"]) != int(row["runs"]):
            out.append("%s: computations != runs" % where)
    by = windows(data["fluid"])
    if sorted(by) != sorted(POLICIES):
        out.append("fluid.csv: policies %s, want %s" % (sorted(by), POLICIES))
    else:
        shape = {p: sorted((w, len(rows)) for w, rows in by[p].items()) for p in POLICIES}
        if shape[POLICIES[0]] != shape[POLICIES[1]] or not shape[POLICIES[0]]:
            out.append("fluid.csv: the policies' windows differ")
    for row in data["fluid"]:
        offered, dequeued = float(row["offered_bytes"]), float(row["dequeued_bytes"])
        delivered = float(row["delivered_bytes"])
        # Sums of doubles over a window: a byte of rounding allowed.
        if delivered > dequeued + 1 or dequeued > offered + 1:
            out.append("fluid %s window %s stream %s: delivered %.0f, dequeued %.0f, "
                       "offered %.0f" % (row["policy"], row["window"], row["stream"],
                                         delivered, dequeued, offered))
    if {r["policy"] for r in data["free"]} != set(POLICIES):
        out.append("free.csv: not every policy")
    return out


# ---- the tables ------------------------------------------------------------------------

def spread(values, fmt="%.0f"):
    return (fmt + " [" + fmt + "-" + fmt + "]") % (statistics.median(values), min(values),
                                                   max(values))


def work_table(data):
    rates = by_rate(data["work"])
    first = data["work"][0]
    grind = {float(r["rate_eps"]): r for r in data["callgrind"] or []}
    lines = ["control work per second of simulated time: %s streams, %s links, %s queues, "
             "CTRL_PERIOD_US %s, water filling; median [min-max] of %d repetitions"
             % (first["streams"], first["links"], first["queues"], first["period_us"],
                len(next(iter(rates.values())))),
             "  %-9s %-10s %-7s %-9s %-7s %-12s %-19s %-12s" % (
                 "events/s", "coalesced", "runs/s", "records/s", "comp/s",
                 "Ir in runs/s", "wall, us/s: median", "sum [min-max]")]
    work = {}
    for rate, rows in rates.items():
        coalesced = sum(int(r["coalesced"]) for r in rows) / max(
            1, sum(int(r["events"]) for r in rows))
        runs = statistics.median(per_second(r, "runs") for r in rows)
        records = statistics.median(per_second(r, "processed") for r in rows)
        comps = statistics.median(per_second(r, "computations") for r in rows)
        wall = [per_second(r, "run_wall_ns") / 1e3 for r in rows]
        # The typical run's time x runs: what the loop costs when nothing preempts it.
        typical = statistics.median(int(r["run_median_ns"]) * per_second(r, "runs") / 1e3
                                    for r in rows)
        ir = (int(grind[rate]["tick_ir"]) / float(grind[rate]["seconds"])
              if rate in grind else None)
        work[rate] = {"runs": runs, "records": records, "wall": typical, "ir": ir}
        lines.append("  %-9g %-10s %-7.0f %-9.0f %-7.0f %-12s %-19.0f %-12s" % (
            rate, "%.2f %%" % (100 * coalesced), runs, records, comps,
            "%.3g" % ir if ir is not None else "-", typical, spread(wall)))
    bound = int(first["queues"]) * 1e6 / float(first["period_us"])
    lines.append("  bound: records/s <= queues x 10^6 / CTRL_PERIOD_US = %.0f; highest "
                 "measured %.0f" % (bound, max(w["records"] for w in work.values())))
    lines.append("  wall: median run x runs/s, and the sum of every run's time (a preemption "
                 "inside a run lands in the sum); timing costs %s ns a run, included"
                 % statistics.median(int(r["clock_pair_ns"]) for r in data["work"]))
    lines.append("  one run: median %s ns, p99 %s ns (medians over the rates and repetitions)"
                 % (statistics.median(int(r["run_median_ns"]) for r in data["work"]),
                    statistics.median(int(r["run_p99_ns"]) for r in data["work"])))
    lines.append("ratio of the work at 100x the event rate to the work at the rate:")
    flat = []
    for rate in rates:
        up = next((r for r in rates if abs(r / rate - 100) < 1e-6), None)
        if up is None:
            continue
        ratios = {k: work[up][k] / work[rate][k] for k in ("runs", "records", "wall")
                  if work[rate][k]}
        if work[rate]["ir"] and work[up]["ir"]:
            ratios["ir"] = work[up]["ir"] / work[rate]["ir"]
        # The work is the CPU inside the runs: instructions where callgrind counted
        # them (repeatable), else the median run's time. Records are the loop's
        # input, judged apart (below).
        work_ratio = ratios.get("ir", ratios.get("wall", float("nan")))
        within = work_ratio <= TARGET_FLAT
        flat.append((rate, up, within, ratios.get("records", float("nan")),
                     work[rate]["records"]))
        lines.append("  %g -> %g events/s: runs %.2fx, records %.2fx, Ir %s, wall (median) %.2fx%s"
                     % (rate, up, ratios.get("runs", float("nan")),
                        ratios.get("records", float("nan")),
                        "%.2fx" % ratios["ir"] if "ir" in ratios else "-",
                        ratios.get("wall", float("nan")),
                        "" if within else "   (more than %gx)" % TARGET_FLAT))
    cost = run_and_record_ir(data["callgrind"])
    if cost:
        lines.append("  Ir in the runs = %.0f per run + %.1f per record (least squares over "
                     "the rates): the policy computation, once a run, is the work; a record "
                     "costs %.1f %% of a run" % (cost[0], cost[1], 100 * cost[1] / cost[0]))
    post = [float(r["ns_per_post"]) for r in data["post"]]
    lines.append("collector: post() %s ns per event (median [min-max] of %d x %s posts); "
                 "it grows with the event rate, the loop does not"
                 % (spread(post, "%.2f"), len(post), data["post"][0]["posts"]))
    if data["callgrind"]:
        per = [int(r["post_ir"]) / int(r["events"]) for r in data["callgrind"]
               if int(r["events"])]
        lines.append("  callgrind: %.1f-%.1f Ir per post() over the rates" % (min(per), max(per)))
    return lines, flat


def run_and_record_ir(rows):
    """(Ir per run, Ir per record) fitting tick_ir = a runs + b records, or None."""
    if not rows or len(rows) < 2:
        return None
    x = [(float(r["runs"]), float(r["processed"]), float(r["tick_ir"])) for r in rows]
    srr = sum(a * a for a, _, _ in x)
    spp = sum(b * b for _, b, _ in x)
    srp = sum(a * b for a, b, _ in x)
    sry = sum(a * y for a, _, y in x)
    spy = sum(b * y for _, b, y in x)
    det = srr * spp - srp * srp
    if det == 0:
        return None
    return ((sry * spp - spy * srp) / det, (srr * spy - srp * sry) / det)


def fluid_table(data):
    by = windows(data["fluid"])
    free = data["free"][0]
    lines = ["fluid model: links %s bytes/s; stream demand drops at %s s (stream %s to %s "
             "bytes/s); %s synthetic events/s besides; step %s us"
             % (data["fluid"][0]["capacity"].replace(":", " + "), free["drop_at_s"],
                free["drop_stream"], free["drop_to"], free["event_rate"], free["step_us"]),
             "  Jain's index per 1 s window of throughput / max-min fair share, and MB/s "
             "delivered per stream:",
             "  %-7s %-12s %-24s %-12s %-24s" % ("window", POLICIES[0], "MB/s", POLICIES[1],
                                                 "MB/s")]
    worst = {}
    for w in sorted(by[POLICIES[0]]):
        cells = []
        for p in POLICIES:
            rows = sorted(by[p][w], key=lambda r: int(r["stream"]))
            j = window_jain(rows)
            worst[p] = min(worst.get(p, 1.0), j)
            seconds = float(rows[0]["t1_s"]) - float(rows[0]["t0_s"])
            mbs = " ".join("%.1f" % (float(r["delivered_bytes"]) / seconds / 1e6) for r in rows)
            cells += ["%.4f" % j, mbs]
        lines.append("  %-7d %-12s %-24s %-12s %-24s" % (w, *cells))
    lines.append("  lowest: %s %.4f, %s %.4f" % (POLICIES[0], worst[POLICIES[0]],
                                                 POLICIES[1], worst[POLICIES[1]]))
    last = max(by[POLICIES[0]])
    frees = {}
    for p in POLICIES:
        for row in (r for r in data["free"] if r["policy"] == p):
            s = row["stream"]
            share = next(float(r["delivered_bytes"]) / float(r["fair_bytes"])
                         for r in by[p][last] if r["stream"] == s)
            ms = float(row["free_ms"]) if row["free_ms"] else None
            frees.setdefault(p, []).append(ms)
            lines.append("  %s, stream %s: %s; in the last window %.1f %% of its share"
                         % (p, s, "99 %% of its new share %.3f ms after the drop" % ms
                            if ms is not None else "never at 99 % of its new share",
                            100 * share))
    wf = data["free"][0]
    lines.append("  controller in the fluid run: %s events, %s coalesced, %s runs"
                 % (wf["events"], wf["coalesced"], wf["runs"]))
    return lines, worst, frees


def analyze(data):
    work_lines, flat = work_table(data)
    fluid_lines, worst, frees = fluid_table(data)
    lines = work_lines + fluid_lines + ["targets (issue 14, acceptance 4 and 5; this is the "
                                        "fluid model, not the emulator):"]
    lines.append("  Jain >= %.2f in every window with water filling: %s (%.4f; round robin "
                 "%.4f)" % (TARGET_JAIN, "met" if worst[POLICIES[0]] >= TARGET_JAIN else
                            "NOT met", worst[POLICIES[0]], worst[POLICIES[1]]))
    wf = frees.get(POLICIES[0], [])
    ok = wf and all(ms is not None and ms <= TARGET_FREE_MS for ms in wf)
    lines.append("  share freed within %.0f ms with water filling: %s" % (
        TARGET_FREE_MS, "met" if ok else "NOT met"))
    first = data["work"][0]
    queues = int(first["queues"])
    bound = queues * 1e6 / float(first["period_us"])
    for rate, up, within, records, at_rate in flat:
        lines.append("  control work (Ir in the runs) within %gx from %g to %g events/s: %s"
                     % (TARGET_FLAT, rate, up, "met" if within else "NOT met"))
        if records > TARGET_FLAT:
            # Why the record count is not flat there: nothing can coalesce below one
            # event per queue per period.
            lines.append("    records processed grow %.2fx: at %g events/s there are %.2f "
                         "events per queue per period, so every event is a record of its "
                         "own (%.0f/s), up to the bound of %.0f/s; records are not the cost"
                         % (records, rate, rate / queues * float(first["period_us"]) / 1e6,
                            at_rate, bound))
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="measure, then analyze")
    r.add_argument("--build", default=os.path.join(SOURCE, "build"),
                   help="build tree with bench/bench_ctrl (default: the checkout's build)")
    r.add_argument("--rates", type=lambda s: [float(x) for x in s.split(",")],
                   default=[1e3, 1e4, 1e5, 1e6, 1e7], help="event rates, events/s")
    r.add_argument("--seconds", type=float, default=2.0, help="simulated s per work run")
    r.add_argument("--reps", type=int, default=5)
    r.add_argument("--fluid-seconds", type=float, default=10.0)
    r.add_argument("--drop", default="0:25e6@5.0005",
                   help="stream:new demand in bytes/s@simulated s")
    r.add_argument("--event-rate", type=float, default=1e5,
                   help="synthetic events/s in the fluid run")
    r.add_argument("--callgrind", action="store_true",
                   help="also count instructions under valgrind, once per rate")
    r.add_argument("--callgrind-seconds", type=float, default=1.0)
    r.add_argument("--out", default=os.path.join(
        HERE, "results", "ctrl-" + datetime.datetime.utcnow().strftime("%Y%m%dT%H%M%SZ")))
    a = sub.add_parser("analyze", help="print the tables of a result set")
    a.add_argument("dir")
    a.add_argument("--check", action="store_true",
                   help="exit 1 if the result set is incomplete or contradicts itself")
    opts = p.parse_args()
    directory = measure(opts) if opts.command == "run" else opts.dir
    data = load(directory)
    found = problems(data)
    for text in found:
        print("problem: " + text, file=sys.stderr)
    if not found:
        print(analyze(data))
    print("raw: %s" % directory)
    if found and (opts.command == "run" or opts.check):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
