#!/usr/bin/python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""The controller in the emulator: water filling against round robin, in one run.

    bench/ctrl_emu.py run [--build build] [--seconds 10] [--rate 1000000] [--out DIR]
    bench/ctrl_emu.py analyze DIR [--check]

run: build/bench/bench_ctrl_emu (it builds nothing): three RX streams of the emulator
over two links capped (EMU_LINK_RATE) at 2/3 of their load (stream 0 on link 0, 1 and
2 on both), first with CTRL_POLICY 0 and weights 1:1 (round robin), then with
CTRL_POLICY 1 (water filling); halfway through each phase stream 0's host limits it
to a quarter of its demand (RX_RATE_LIMIT). A host socket per destination counts the
messages that arrive, per stream, in 5 ms bins. Writes DIR/bins.csv, events.csv,
counters.csv and metadata.json, then prints what analyze prints.

analyze: per phase and 1 s window (the first 250 ms after each change left out),
Jain's index of delivered / max-min fair share (computed here from the capacities,
not taken from the device), and the ratio of the two policies' lowest; how long after
the limit the other streams deliver 97 % of their new share (the start of the first
20 ms window that does, in 5 ms bins); the links' drops and the controller's counters. --check fails (exit 1) on a result set that is
incomplete or contradicts itself (more delivered than the device sent):
bench_ctrl_emu_analyze_smoke.
"""

import argparse
import csv
import datetime
import json
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
LINKS_OF = [[0], [0, 1], [0, 1]]  # the streams' links, as bench_ctrl_emu sets them
SETTLE_S = 0.25
FREE_FRACTION = 0.97
FREE_WINDOW_S = 0.020
TARGET_JAIN = 0.99
TARGET_FREE_MS = 50.0


def git(*argv):
    try:
        return subprocess.run(["git", "-C", SOURCE] + list(argv), capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def measure(opts):
    program = os.path.join(opts.build, "bench", "bench_ctrl_emu")
    if not os.access(program, os.X_OK):
        raise SystemExit("no %s: build it first (cmake --build %s --target bench_ctrl_emu)"
                         % (program, opts.build))
    os.makedirs(opts.out, exist_ok=True)
    argv = [program, "--out", opts.out, "--seconds", repr(opts.seconds),
            "--rate", str(opts.rate)]
    meta = {"command": sys.argv, "program": argv,
            "started": datetime.datetime.utcnow().isoformat(),
            "commit": git("rev-parse", "HEAD"),
            "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
            "machine": platform.platform(), "cpus": os.cpu_count(),
            "load1_start": open("/proc/loadavg").read().split()[0]}
    subprocess.run(argv, check=True)
    meta["load1_end"] = open("/proc/loadavg").read().split()[0]
    with open(os.path.join(opts.out, "metadata.json"), "w") as f:
        json.dump(meta, f, indent=1)
    return opts.out


def read(directory, name):
    with open(os.path.join(directory, name), newline="") as f:
        return list(csv.DictReader(f))


def max_min_fair(capacity, demand, links_of):
    """Progressive filling over sets of links: the max-min fair rates (multipath)."""
    n = len(demand)
    rate, frozen = [0.0] * n, [False] * n
    unions = set()
    for mask in range(1, 1 << len(capacity)):
        unions.add(mask)
    while not all(frozen):
        # The largest equal raise every unfrozen stream can take.
        step = min(demand[s] - rate[s] for s in range(n) if not frozen[s])
        for mask in unions:
            inside = [s for s in range(n) if all(mask >> l & 1 for l in links_of[s])]
            free = [s for s in inside if not frozen[s]]
            if free:
                room = sum(capacity[l] for l in range(len(capacity)) if mask >> l & 1)
                room -= sum(rate[s] for s in inside)
                step = min(step, room / len(free))
        for s in range(n):
            if not frozen[s]:
                rate[s] += step
        for s in range(n):
            if not frozen[s] and rate[s] >= demand[s] - 1e-9:
                frozen[s] = True
        for mask in unions:
            inside = [s for s in range(n) if all(mask >> l & 1 for l in links_of[s])]
            room = sum(capacity[l] for l in range(len(capacity)) if mask >> l & 1)
            if inside and sum(rate[s] for s in inside) >= room - 1e-6:
                for s in inside:
                    frozen[s] = True
    return rate


def phases(data):
    out = []
    for e in data["events"]:
        rate, payload = int(e["rate"]), int(e["payload"])
        wire = (payload + 44 + 20) / payload
        cap = [int(e["capacity0"]) / wire, int(e["capacity1"]) / wire]  # sample bytes/s
        demand = 4.0 * rate
        limit = float(int(rate * 4 / 4 / 1024) * 1024)
        before = max_min_fair(cap, [demand] * 3, LINKS_OF)
        after = max_min_fair(cap, [limit, demand, demand], LINKS_OF)
        out.append({"name": e["phase"], "begin": float(e["begin_s"]),
                    "limit": float(e["limit_s"]), "end": float(e["end_s"]),
                    "fair": (before, after)})
    return out


def delivered(bins, t0, t1):
    """Sample bytes per stream that arrived in [t0, t1) (whole 5 ms bins)."""
    got = [0, 0, 0]
    for b in bins:
        if float(b["t0_s"]) >= t0 - 1e-9 and float(b["t1_s"]) <= t1 + 1e-9:
            got[int(b["stream"])] += int(b["bytes"])
    return got


def jain(x):
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x))


def windows(p, bins):
    rows = []
    for half, (t0, t1) in enumerate([(p["begin"], p["limit"]), (p["limit"], p["end"])]):
        start = t0 + SETTLE_S
        while start + 1.0 <= t1 + 1e-9:
            got = delivered(bins, start, start + 1.0)
            norm = [g / f for g, f in zip(got, p["fair"][half])]
            rows.append((start - p["begin"], half, got, jain(norm)))
            start += 1.0
    return rows


def free_ms(p, bins, stream):
    """ms after the limit at which the first FREE_WINDOW_S window begins in which
    `stream` delivers FREE_FRACTION of its new share (resolution: one bin)."""
    share = p["fair"][1][stream]
    mine = sorted((float(b["t0_s"]), float(b["t1_s"]), int(b["bytes"])) for b in bins
                  if int(b["stream"]) == stream and float(b["t0_s"]) >= p["limit"] - 1e-9
                  and float(b["t1_s"]) <= p["end"])
    width = mine[1][0] - mine[0][0] if len(mine) > 1 else 0.005
    span = max(1, int(round(FREE_WINDOW_S / width)))
    for i in range(len(mine) - span + 1):
        got = sum(m[2] for m in mine[i:i + span])
        if got >= FREE_FRACTION * share * span * width:
            return 1e3 * (mine[i][0] - p["limit"])
    return None


def counters(data, phase):
    return {(r["counter"], int(r["index"])): int(r["value"]) for r in data["counters"]
            if r["phase"] == phase}


def problems(data):
    found = []
    names = [e["phase"] for e in data["events"]]
    if names != ["round_robin", "water_filling"]:
        found.append("events.csv: phases %s, not round_robin then water_filling" % names)
        return found
    for p in phases(data):
        c = counters(data, p["name"])
        got = delivered(data["bins"], p["begin"], p["end"] + 1.0)
        for s in range(3):
            sent = 4 * (c.get(("samples_emitted", s), 0) - c.get(("samples_dropped", s), 0))
            if got[s] > sent:
                found.append("%s: stream %d delivered %d bytes, more than the %d sent"
                             % (p["name"], s, got[s], sent))
        if not windows(p, data["bins"]):
            found.append("%s: no whole 1 s window" % p["name"])
    return found


def analyze(data):
    lines = []
    worst = {}
    frees = {}
    for p in phases(data):
        c = counters(data, p["name"])
        lines.append("%s: max-min fair MB/s %s, after stream 0's limit %s" % (
            p["name"], " ".join("%.2f" % (f / 1e6) for f in p["fair"][0]),
            " ".join("%.2f" % (f / 1e6) for f in p["fair"][1])))
        lines.append("  %-9s %-6s %-22s %-8s" % ("window s", "limit", "MB/s delivered",
                                                  "Jain"))
        for start, half, got, j in windows(p, data["bins"]):
            worst[p["name"]] = min(worst.get(p["name"], 1.0), j)
            lines.append("  %-9.2f %-6s %-22s %.4f" % (
                start, "after" if half else "before",
                " ".join("%.2f" % (g / 1e6) for g in got), j))
        for s in (1, 2):
            ms = free_ms(p, data["bins"], s)
            frees.setdefault(p["name"], []).append(ms)
            lines.append("  stream %d: %s" % (s, "%.0f %% of its new share from %.0f ms "
                                              "after the limit (20 ms windows, 5 ms bins)"
                                              % (100 * FREE_FRACTION, ms)
                                              if ms is not None else
                                              "never at %.0f %% of its new share"
                                              % (100 * FREE_FRACTION)))
        lines.append("  links: frames dropped %d and %d; controller since reset: %d events,"
                     " %d coalesced, %d runs" % (
                         c[("link_frames_dropped", 0)], c[("link_frames_dropped", 1)],
                         c[("ctrl_events", 0)], c[("ctrl_coalesced", 0)],
                         c[("ctrl_runs", 0)]))
    wf, rr = worst["water_filling"], worst["round_robin"]
    lines.append("targets (issue 14, acceptance 4, the emulator):")
    lines.append("  Jain >= %.2f in every window with water filling: %s (lowest %.4f; round "
                 "robin %.4f in the same run; ratio %.3f)" % (
                     TARGET_JAIN, "met" if wf >= TARGET_JAIN else "NOT met", wf, rr, wf / rr))
    ok = all(ms is not None and ms <= TARGET_FREE_MS for ms in frees["water_filling"])
    lines.append("  share freed within %.0f ms with water filling: %s" % (
        TARGET_FREE_MS, "met" if ok else "NOT met"))
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="measure, then analyze")
    r.add_argument("--build", default=os.path.join(SOURCE, "build"))
    r.add_argument("--seconds", type=float, default=10.0, help="s per phase")
    r.add_argument("--rate", type=int, default=1000000, help="samples/s per stream")
    r.add_argument("--out", default=os.path.join(
        HERE, "results", "ctrl-emu-" + datetime.datetime.utcnow().strftime("%Y%m%dT%H%M%SZ")))
    a = sub.add_parser("analyze", help="print the tables of a result set")
    a.add_argument("dir")
    a.add_argument("--check", action="store_true",
                   help="exit 1 if the result set is incomplete or contradicts itself")
    opts = p.parse_args()
    directory = measure(opts) if opts.command == "run" else opts.dir
    try:
        data = {n: read(directory, n + ".csv") for n in ("bins", "events", "counters")}
    except OSError as e:
        print("problem: %s" % e, file=sys.stderr)
        return 1
    found = problems(data)
    for text in found:
        print("problem: " + text, file=sys.stderr)
    if not found:
        print(analyze(data))
    print("raw: %s" % directory)
    return 1 if found and (opts.command == "run" or opts.check) else 0


if __name__ == "__main__":
    sys.exit(main())
