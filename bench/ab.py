#!/usr/bin/python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""A/B: the host's cost per GB of two builds of gr-rdma, in one interleaved run.

    bench/ab.py --a BUILD_A --b BUILD_B [--rate 250e6] [--reps 7] [--out DIR]
    bench/ab.sh REV_A [REV_B]      # builds the revisions, then runs this

When a change must cost the host no more than the code before it ("within 5 % of
today's"), both builds run the same stand-in stream (type=null: no transport, the
host side alone) at the same rate, A and B alternating (ABBA order), so that the
machine's drift and noise fall on both alike. Each run is bench/peer_gr.py's rdma
mode; host CPU per GB comes from its measuring window. Settings: the defaults and the
tuned setting of bench/run.py.

Writes ab.csv (one row per run) and prints, per setting, the median host s/GB of A and
B and the ratio B / A with its spread over the repetition pairs.
"""

import argparse
import csv
import datetime
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run import TUNED  # noqa: E402  the tuned setting, as the suite defines it

SETTINGS = {"defaults": "type=null", "tuned": "type=null," + TUNED}
FIELDS = ["setting", "build", "rep", "rate_sps", "samples", "lost", "window_bytes",
          "host_cpu_s", "host_s_per_gb", "started", "load1", "args"]


def run_one(build, args, rate, samples):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(build, "test_modules")
    env["GR_CONF_LOG_LOG_FILE"] = "stderr"
    env["GR_CONF_LOG_LOG_LEVEL"] = "warn"
    argv = ["/usr/bin/python3", os.path.join(HERE, "peer_gr.py"), "rdma", "--args", args,
            "--rate", repr(rate), "--samples", str(samples)]
    p = subprocess.run(argv, capture_output=True, text=True, env=env,
                       timeout=samples / rate + 60)
    for line in reversed(p.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise RuntimeError("run failed (%s): %s" % (build, p.stderr[-2000:]))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--a", required=True, help="build tree A (the baseline)")
    p.add_argument("--b", required=True, help="build tree B (the change)")
    p.add_argument("--rate", type=float, default=250e6, help="S/s of sc16 (250e6: 1 GB/s)")
    p.add_argument("--seconds", type=float, default=2.0, help="burst length per run")
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--settings", default="defaults,tuned")
    p.add_argument("--out", default=os.path.join(
        HERE, "results", "ab-" + datetime.datetime.utcnow().strftime("%Y%m%dT%H%M%SZ")))
    opts = p.parse_args()
    os.makedirs(opts.out, exist_ok=True)
    samples = int(opts.rate * opts.seconds)
    builds = {"A": os.path.abspath(opts.a), "B": os.path.abspath(opts.b)}
    per_gb = {}
    with open(os.path.join(opts.out, "ab.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for rep in range(opts.reps):
            for setting in opts.settings.split(","):
                order = "AB" if rep % 2 == 0 else "BA"
                for name in order:
                    r = run_one(builds[name], SETTINGS[setting], opts.rate, samples)
                    win = r["window"]
                    gb = (win["items1"] - win["items0"]) * 4 / 1e9
                    s_per_gb = win["host_s"] / gb if gb > 0 else float("nan")
                    per_gb.setdefault((setting, name), []).append(s_per_gb)
                    w.writerow({"setting": setting, "build": name, "rep": rep,
                                "rate_sps": opts.rate, "samples": samples,
                                "lost": r["lost"], "window_bytes": int(gb * 1e9),
                                "host_cpu_s": win["host_s"], "host_s_per_gb": s_per_gb,
                                "started": datetime.datetime.utcnow().isoformat(),
                                "load1": open("/proc/loadavg").read().split()[0],
                                "args": SETTINGS[setting]})
                    f.flush()
                    print("rep %d %-8s %s %.5f s/GB lost %d" % (rep, setting, name, s_per_gb,
                                                                r["lost"]), flush=True)
    with open(os.path.join(opts.out, "builds.json"), "w") as f:
        json.dump(builds, f)
    print("\nhost CPU per GB at %.0f MB/s (sc16), %d repetitions, ABBA order" %
          (opts.rate * 4 / 1e6, opts.reps))
    for setting in opts.settings.split(","):
        a, b = per_gb[(setting, "A")], per_gb[(setting, "B")]
        ratios = sorted(y / x for x, y in zip(a, b))
        print("  %-8s A %.5f s/GB  B %.5f s/GB  B/A %.3f [%.3f-%.3f]" %
              (setting, statistics.median(a), statistics.median(b),
               statistics.median(ratios), ratios[0], ratios[-1]))
    print("raw: %s" % opts.out)


if __name__ == "__main__":
    main()
