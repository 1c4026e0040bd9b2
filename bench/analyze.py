#!/usr/bin/python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""Turn a result directory of bench/run.py into tables (and the docs' plot).

    bench/analyze.py bench/results/<run>                  # print the tables
    bench/analyze.py bench/results/<run> --write-docs     # also docs/performance.md + PNG
    bench/analyze.py --check bench/testdata/smoke         # smoke test (ctest)

Everything is computed from the raw CSV: CPU seconds per GB of samples delivered in
each run's measurement window, min/median/max over the repetitions (loss-free runs
only), loss-free maxima per repetition, ratios against the baselines of the same run,
nearest-rank latency percentiles from the pooled histograms, copies per sample byte
from the copy census. docs/performance.md explains the method.
"""

import argparse
import json
import os
import sys

from analyze_ceiling import ceiling_sweep
from analyze_defaults import defaults_sweep, handout_sweep
from analyze_common import (
    DEFAULTS, NAMES, ORDER, TUNED, by, copies_by_receiver, cpu_per_gb, fmt_spread,
    is_setting, loss_free_maxima, markdown, nearest_rank, num, read_csv, spread, truthy)
from analyze_rates import rate_sweep

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(os.path.dirname(HERE), "docs")
BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"


class analysis(rate_sweep, ceiling_sweep, defaults_sweep, handout_sweep):
    """A result directory: its CSV, and the report made of the tables of the rate sweep
    (analyze_rates), the size sweep and the ceiling (analyze_ceiling), latency and copies."""

    def __init__(self, directory):
        self.dir = directory
        self.rates = read_csv(directory, "rates.csv")
        self.sizes = read_csv(directory, "sizes.csv")
        self.ceiling = read_csv(directory, "ceiling.csv")
        self.latency = read_csv(directory, "latency.csv")
        self.latency_hist = read_csv(directory, "latency_hist.csv")
        self.copies = read_csv(directory, "copies.csv")
        self.defaults = read_csv(directory, "defaults.csv")
        self.handout = read_csv(directory, "handout.csv")
        path = os.path.join(directory, "metadata.json")
        self.meta = json.load(open(path)) if os.path.exists(path) else {}
        self.maxima = loss_free_maxima(self.rates)
        self.copy = copies_by_receiver(self.copies)

    def cell(self, rows, role="host"):
        ok = [r for r in rows if truthy(r["loss_free"])]
        return spread([cpu_per_gb(r, role) for r in ok]), len(ok), len(rows)

    # -- latency
    def latency_table(self):
        header = ["receiver", "pooled samples", "p50 (µs)", "p99 (µs)", "p99.9 (µs)",
                  "per-rep p50 (µs)", "per-rep p99 (µs)", "per-rep p99.9 (µs)", "lost samples",
                  "stream"]
        rows = []
        hist = {}
        for r in self.latency_hist:
            h = hist.setdefault(r["receiver"], {})
            h[int(r["bucket_ns"])] = h.get(int(r["bucket_ns"]), 0) + int(r["count"])
        for receiver, group in sorted(by(self.latency, "receiver").items(),
                                      key=lambda kv: ORDER.index(kv[0][0])):
            receiver = receiver[0]
            h = hist.get(receiver, {})
            g = group[0]
            rows.append([NAMES[receiver], sum(h.values()),
                         *("%.1f" % (nearest_rank(h, p) / 1e3) if h else "–"
                           for p in (50, 99, 99.9)),
                         *(fmt_spread(spread([num(r[k]) for r in group]), 3, 1e-3)
                           for k in ("p50_ns", "p99_ns", "p999_ns")),
                         sum(int(num(r["lost"])) for r in group),
                         "%g MS/s, %s B, notify=%s"
                         % (num(g["rate_sps"]) / 1e6, g["payload"], g["notify"])])
        return markdown(header, rows)

    def copies_table(self):
        header = ["receiver", "host copies per sample byte", "NIC", "device", "pointer test"]
        rows = []
        for receiver in ORDER:
            if receiver not in self.copy:
                continue
            c = self.copy[receiver]
            pb = c["per_byte"]
            rows.append([NAMES[receiver], "%.2f" % pb.get("host", 0.0), "%.2f" % pb.get("nic", 0.0),
                         "%.2f" % pb.get("device", 0.0),
                         "%s (%s)" % (c["pointer_test"], c["pointer_detail"])])
        return markdown(header, rows)

    # -- the whole report
    def report(self):
        m = self.meta.get("start", {})
        parts = []
        if m:
            parts.append("Run `%s`: %s, %s CPUs (%s), kernel %s, %s, GNU Radio %s; load average "
                         "%s at the start, %s at the end; commit %s (%s uncommitted files); "
                         "wall time %s s." % (
                             os.path.basename(os.path.normpath(self.dir)), m.get("cpu_model"),
                             m.get("cpus"), "hypervisor: %s" % m.get("hypervisor"), m.get("kernel"),
                             m.get("os"), m.get("gnuradio"), " ".join(m.get("loadavg", [])),
                             " ".join(self.meta.get("end", {}).get("loadavg", [])),
                             (m.get("git_commit") or "?")[:12], m.get("git_dirty_files"),
                             self.meta.get("wall_s")))
        if self.rates:
            parts += ["### Headline", self.headline(),
                      "### The issue's targets, checked", self.targets(),
                      "### Loss-free maxima and cost at them", self.summary_table(),
                      "### CPU per GB by rate (median [min–max] over loss-free repetitions)",
                      self.rate_table(),
                      "### Ratios at each rate (median of A ÷ median of B "
                      "[min A ÷ max B – max A ÷ min B])",
                      self.ratio_table()]
        if self.sizes:
            parts += ["### Message size (%g MS/s, 128 KiB per notification)" %
                      (num(self.sizes[0]["rate_sps"]) / 1e6), self.size_table()]
        if self.ceiling:
            parts.append("### gr-rdma's host side with no transport (type=null: the stand-in "
                         "does the NIC's part; not a measurement of any NIC)")
            for title, table in self.ceiling_tables():
                parts += (["#### " + title] if title else []) + [table]
        if self.latency:
            parts += ["### Notification latency (NIC wrote the last byte → work() produced "
                      "the items)",
                      self.latency_table()]
        if self.defaults:
            parts.append("### Fast by default: no tuning, 10 MB/s to 10 GB/s")
            for title, table in self.defaults_tables():
                parts += ["#### " + title, table]
        if self.handout:
            parts += ["### What one hand-out costs (type=null, 1 GB/s, 64 KiB messages, "
                      "notify=1 … 64; least squares over the loss-free runs)",
                      self.handout_table()]
        if self.copies:
            parts += ["### Copies per sample byte (copy census, 25 MS/s)", self.copies_table()]
        return "\n\n".join(parts) + "\n"

    # -- the plot
    def plot(self, path):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(8, 5))
        for receiver in ORDER:
            points = []
            if receiver.startswith("ceiling"):
                setting = TUNED if receiver == "ceiling_tuned" else DEFAULTS
                mine = [r for r in self.ceiling if is_setting(r, setting)]
            else:
                mine = [r for r in self.rates if r["receiver"] == receiver]
            for rate, group in by(mine, "rate_sps").items():
                s, ok, _ = self.cell(group)
                if ok:
                    points.append((num(rate[0]) * 4 / 1e6, s))
            if not points:
                continue
            points.sort()
            x = [p[0] for p in points]
            y = [p[1][1] for p in points]
            err = [[p[1][1] - p[1][0] for p in points], [p[1][2] - p[1][1] for p in points]]
            ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=NAMES[receiver],
                        linestyle="--" if receiver.startswith("ceiling") else "-")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("payload rate (MB/s), loss-free runs only")
        ax.set_ylabel("host CPU seconds per GB of samples")
        ax.set_title("Host CPU per GB (median, min–max over repetitions)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)

    def check(self):
        """Smoke test: the tables build and every run row is complete."""
        for name, rows in [("rates", self.rates), ("sizes", self.sizes), ("ceiling", self.ceiling)]:
            for r in rows:
                for k in ("receiver", "rate_sps", "loss_free", "window_bytes", "host_cpu_s"):
                    if r.get(k) in (None, ""):
                        raise SystemExit("%s.csv: a row lacks %s" % (name, k))
        text = self.report()
        if "### Headline" not in text or "|" not in text:
            raise SystemExit("the report is incomplete")
        if self.defaults and ("The issue's targets, checked" not in text or
                              "sample age at hand-out p50 / p99 / p99.9" not in text):
            raise SystemExit("the defaults phase's tables are incomplete")
        if (any(r["receiver"] == "gr_floor" for r in self.defaults) and
                "GNU Radio's own cost of a hand-out" not in text):
            raise SystemExit("the defaults phase has GNU Radio's own runs but no table")
        if self.handout and "µs of CPU per hand-out (slope)" not in text:
            raise SystemExit("the handout phase's fit is missing")
        return text


def write_docs(text, a):
    path = os.path.join(DOCS, "performance.md")
    with open(path) as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        raise SystemExit("%s has no %s ... %s markers" % (path, BEGIN, END))
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    rel = os.path.relpath(a.dir, os.path.dirname(path))
    body = ("\n_Generated by `bench/analyze.py %s --write-docs` from the raw CSV in "
            "[%s](%s); do not edit by hand._\n\n"
            % (os.path.relpath(a.dir, os.path.dirname(HERE)), rel, rel)
            + text + "\n![Host CPU per GB by rate](performance_cpu_per_gb.png)\n")
    with open(path, "w") as f:
        f.write(head + BEGIN + body + END + tail)
    a.plot(os.path.join(DOCS, "performance_cpu_per_gb.png"))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("directory", help="a result directory of bench/run.py")
    p.add_argument("--write-docs", action="store_true",
                   help="replace the results section of docs/performance.md and its plot")
    p.add_argument("--plot", metavar="PNG", help="write the plot there")
    p.add_argument("--check", action="store_true",
                   help="smoke test: build the tables, write nothing")
    opts = p.parse_args()
    a = analysis(opts.directory)
    if opts.check:
        a.check()
        print("analyze.py: %d rate, %d size, %d ceiling, %d latency, %d defaults, %d handout "
              "rows: OK" % (len(a.rates), len(a.sizes), len(a.ceiling), len(a.latency),
                            len(a.defaults), len(a.handout)))
        return 0
    text = a.report()
    print(text)
    if opts.plot:
        a.plot(opts.plot)
    if opts.write_docs:
        write_docs(text, a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
