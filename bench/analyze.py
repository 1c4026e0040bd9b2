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
import csv
import json
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(os.path.dirname(HERE), "docs")
BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"
NAMES = {
    "udp_source_shipped": "udp_source, as shipped",
    "udp_source_tuned": "udp_source, tuned",
    "ideal": "ideal socket receiver",
    "rdma_udp": "gr-rdma, soft NIC, UDP wire",
    "rdma_inproc": "gr-rdma, soft NIC, in-process wire",
    "rdma_udp_notify64": "gr-rdma, soft NIC, UDP wire, notify=64",
    "ceiling": "gr-rdma, zero-copy ceiling (no transport)",
}
ORDER = list(NAMES)
RDMA_PATHS = ["rdma_udp", "rdma_inproc", "rdma_udp_notify64"]


# ---- reading --------------------------------------------------------------------------

def read_csv(directory, name):
    path = os.path.join(directory, name)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def num(value, default=0.0):
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def truthy(value):
    return str(value).lower() == "true"


def packets_in_window(row):
    return num(row["window_bytes"]) / num(row["packet_bytes"])


def cpu_per_gb(row, role):
    gb = num(row["window_bytes"]) / 1e9
    if gb <= 0:
        return None
    if role == "device" and num(row.get("device_bytes_total")) > 0:
        # The socket baseline's sender is its own process: its whole burst.
        return num(row["device_cpu_total_s"]) / (num(row["device_bytes_total"]) / 1e9)
    return num(row[role + "_cpu_s"]) / gb


def spread(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return min(values), statistics.median(values), max(values)


def fmt_num(v, digits=3):
    """Three significant digits, never in exponent form."""
    if v == 0 or not math.isfinite(v):
        return "%g" % v
    decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(v)))))
    return "%.*f" % (decimals, v)


def fmt_spread(s, digits=3, scale=1.0):
    if s is None:
        return "–"
    lo, mid, hi = (v * scale for v in s)
    if lo == hi:
        return fmt_num(mid, digits)
    return "%s [%s–%s]" % (fmt_num(mid, digits), fmt_num(lo, digits), fmt_num(hi, digits))


def nearest_rank(histogram, p):
    """Nearest-rank percentile of {value: count}."""
    total = sum(histogram.values())
    if total == 0:
        return None
    rank = max(1, math.ceil(p / 100.0 * total))
    seen = 0
    for value in sorted(histogram):
        seen += histogram[value]
        if seen >= rank:
            return value
    return max(histogram)


# ---- tables ---------------------------------------------------------------------------

def markdown(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def by(rows, *keys):
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in keys), []).append(r)
    return groups


def loss_free_maxima(rates):
    """{receiver: [max loss-free rate of each repetition]} (0: none)."""
    out = {}
    for (receiver, rep), rows in by(rates, "receiver", "rep").items():
        ok = [num(r["rate_sps"]) for r in rows if truthy(r["loss_free"])]
        out.setdefault(receiver, []).append(max(ok) if ok else 0.0)
    return out


def copies_by_receiver(copies):
    out = {}
    for receiver, rows in by(copies, "receiver").items():
        sample_bytes = max(num(r["sample_bytes"]) for r in rows)
        per_role = {}
        for r in rows:
            copied = num(r["copy_bytes"]) + num(r["recv_bytes"])
            per_role[r["role"]] = per_role.get(r["role"], 0) + copied
        out[receiver[0]] = {
            "sample_bytes": sample_bytes,
            "per_byte": {k: (v / sample_bytes if sample_bytes else None)
                         for k, v in per_role.items()},
            "pointer_test": rows[0]["pointer_test"], "pointer_detail": rows[0]["pointer_detail"]}
    return out


class analysis:
    def __init__(self, directory):
        self.dir = directory
        self.rates = read_csv(directory, "rates.csv")
        self.sizes = read_csv(directory, "sizes.csv")
        self.ceiling = read_csv(directory, "ceiling.csv")
        self.latency = read_csv(directory, "latency.csv")
        self.latency_hist = read_csv(directory, "latency_hist.csv")
        self.copies = read_csv(directory, "copies.csv")
        path = os.path.join(directory, "metadata.json")
        self.meta = json.load(open(path)) if os.path.exists(path) else {}
        self.maxima = loss_free_maxima(self.rates)
        self.copy = copies_by_receiver(self.copies)

    def cell(self, rows, role="host"):
        ok = [r for r in rows if truthy(r["loss_free"])]
        return spread([cpu_per_gb(r, role) for r in ok]), len(ok), len(rows)

    # -- the rate sweep
    def rate_table(self):
        header = ["receiver", "rate (MS/s)", "payload rate (MB/s)", "loss-free runs",
                  "host CPU s/GB", "NIC CPU s/GB", "device CPU s/GB", "packets/s (k)"]
        rows = []
        for (receiver, rate), group in sorted(
                by(self.rates, "receiver", "rate_sps").items(),
                key=lambda kv: (ORDER.index(kv[0][0]), num(kv[0][1]))):
            host, ok, n = self.cell(group)
            nic, _, _ = self.cell(group, "nic")
            dev, _, _ = self.cell(group, "device")
            pps = spread([num(r["packets"]) / (num(r["samples"]) / num(r["rate_sps"]))
                          for r in group if num(r["samples"]) > 0])
            rows.append([NAMES[receiver], "%g" % (num(rate) / 1e6), "%g" % (num(rate) * 4 / 1e6),
                         "%d/%d" % (ok, n), fmt_spread(host) if ok else "lossy",
                         fmt_spread(nic) if ok else "", fmt_spread(dev) if ok else "",
                         "%.0f" % (pps[1] / 1e3) if pps else ""])
        return markdown(header, rows)

    def summary_table(self):
        header = ["receiver", "loss-free max (MS/s) min/med/max", "host CPU s/GB at it",
                  "copies/byte host", "copies/byte NIC", "receive memory (MiB)", "hugepages"]
        rows = []
        for receiver in ORDER:
            if receiver not in self.maxima:
                continue
            m = self.maxima[receiver]
            top = [r for r in self.rates if r["receiver"] == receiver and truthy(r["loss_free"])
                   and num(r["rate_sps"]) == statistics.median(m)]
            host = spread([cpu_per_gb(r, "host") for r in top])
            c = self.copy.get(receiver, {}).get("per_byte", {})
            mem = spread([num(r["ring_bytes"]) + num(r["socket_buffer"])
                          for r in (top or [r for r in self.rates
                                            if r["receiver"] == receiver])])
            huge = {r["hugepages"] for r in self.rates if r["receiver"] == receiver}
            maxima = " / ".join("%g" % (v / 1e6) for v in spread(m))
            if max(m) == 0:
                lowest = min(num(r["rate_sps"]) for r in self.rates
                             if r["receiver"] == receiver)
                maxima = "none (lossy at %g)" % (lowest / 1e6)
            rows.append([NAMES[receiver], maxima,
                         fmt_spread(host) if top else "–",
                         "%.2f" % c["host"] if c.get("host") is not None else "–",
                         "%.2f" % c["nic"] if c.get("nic") is not None else "0" if c else "–",
                         fmt_spread(mem, 3, 1 / 2**20),
                         "yes" if huge == {"True"} else "no" if huge <= {"False", ""} else "mixed"])
        return markdown(header, rows)

    def ratios(self, rows_a, rows_b):
        """CPU/GB of A over B: (ratio of medians, min ratio, max ratio)."""
        a = spread([cpu_per_gb(r, "host") for r in rows_a if truthy(r["loss_free"])])
        b = spread([cpu_per_gb(r, "host") for r in rows_b if truthy(r["loss_free"])])
        if not a or not b or b[0] <= 0:
            return None
        return a[1] / b[1], a[0] / b[2], a[2] / b[0]

    def rows_at(self, receiver, rate):
        return [r for r in self.rates if r["receiver"] == receiver and num(r["rate_sps"]) == rate]

    def ratio_table(self):
        header = ["rate (MS/s)", "gr-rdma path", "tuned udp_source ÷ gr-rdma",
                  "ideal ÷ gr-rdma", "shipped udp_source ÷ gr-rdma"]
        rows = []
        for rate in sorted({num(r["rate_sps"]) for r in self.rates}):
            for rdma in RDMA_PATHS:
                cells = []
                for peer in ["udp_source_tuned", "ideal", "udp_source_shipped"]:
                    r = self.ratios(self.rows_at(peer, rate), self.rows_at(rdma, rate))
                    cells.append("%.1f× [%.1f–%.1f]" % r if r else "–")
                if any(c != "–" for c in cells):
                    rows.append(["%g" % (rate / 1e6), NAMES[rdma]] + cells)
        return markdown(header, rows)

    def headline(self):
        """Ratios at the highest rate where tuned udp_source, ideal and gr-rdma all ran
        loss-free at least once."""
        groups = by(self.rates, "receiver", "rate_sps")
        lines = []
        for rdma in RDMA_PATHS:
            if rdma not in self.maxima:
                continue
            common = []
            for (rec, rate), rows in groups.items():
                if rec != rdma or not any(truthy(r["loss_free"]) for r in rows):
                    continue
                peers = [groups.get((p, rate), []) for p in ["udp_source_tuned", "ideal"]]
                if all(any(truthy(r["loss_free"]) for r in g) for g in peers):
                    common.append(rate)
            if not common:
                lines.append("* %s: no rate at which it and both socket baselines were "
                             "loss-free." % NAMES[rdma])
                continue
            rate = max(common, key=num)
            t = self.ratios(groups[("udp_source_tuned", rate)], groups[(rdma, rate)])
            i = self.ratios(groups[("ideal", rate)], groups[(rdma, rate)])
            lines.append("* **%s at %g MS/s (%g MB/s)**, the highest rate where it and both "
                         "socket baselines were loss-free: tuned udp_source spends **%.1f×** "
                         "[%.1f–%.1f] the host CPU per GB, the ideal receiver **%.1f×** "
                         "[%.1f–%.1f]."
                         % ((NAMES[rdma], num(rate) / 1e6, num(rate) * 4 / 1e6) + t + i))
        return "\n".join(lines)

    # -- the targets, one by one
    def cost_at(self, rows, receiver, rate, payload=None, notify=None):
        sel = [r for r in rows if r["receiver"] == receiver and num(r["rate_sps"]) == rate
               and (payload is None or r["payload"] == str(payload))
               and (notify is None or r["notify"] == str(notify))]
        host, ok, n = self.cell(sel)
        return host, ok, n

    def targets(self):
        gbps = 250e6  # 1 GB/s of sc16
        lines = []
        best = {}
        for peer in ["udp_source_tuned", "ideal"]:
            host, ok, n = self.cost_at(self.rates, peer, gbps)
            m = self.maxima.get(peer, [0])
            top = statistics.median(m)
            at_top = self.cost_at(self.rates, peer, top)[0] if top else None
            best[peer] = (top, at_top)
            if ok:
                lines.append("* %s at 1 GB/s: loss-free in %d of %d runs, %s s/GB." % (
                    NAMES[peer], ok, n, fmt_spread(host)))
            else:
                lines.append("* %s at 1 GB/s: **not reached** on this machine; its loss-free "
                             "maximum (median of the repetitions) was %g MS/s (%g MB/s), where "
                             "it spends %s s/GB of host CPU."
                             % (NAMES[peer], top / 1e6, top * 4 / 1e6, fmt_spread(at_top)))
        for rdma in RDMA_PATHS:
            host, ok, n = self.cost_at(self.rates, rdma, gbps)
            if rdma in self.maxima:
                if ok:
                    what = "loss-free in %d of %d runs, host %s s/GB" % (ok, n, fmt_spread(host))
                else:
                    what = "not reached loss-free (loss-free maximum, median: %g MS/s)" % (
                        statistics.median(self.maxima[rdma]) / 1e6)
                lines.append("* %s at 1 GB/s: %s." % (NAMES[rdma], what))
        ceiling = {}
        if self.ceiling:
            ceiling["default"] = self.cost_at(self.ceiling, "ceiling", gbps, 8192, 16)[0]
            ceiling["2 MiB"] = self.cost_at(self.ceiling, "ceiling", gbps, 8192, 256)[0]
            lines.append("* The GNU Radio side alone at 1 GB/s (ceiling, no transport): %s s/GB "
                         "with the default notify=16 (128 KiB), %s s/GB with a notification "
                         "every 2 MiB."
                         % (fmt_spread(ceiling["default"]), fmt_spread(ceiling["2 MiB"])))
            for peer, (top, at_top) in best.items():
                if at_top and ceiling["2 MiB"] and ceiling["default"]:
                    lines.append(
                        "  * %s at %g MB/s ÷ ceiling at 1 GB/s: %.0f× (notify=16), %.0f× "
                        "(2 MiB) — *different rates*, not a ratio measured at 1 GB/s." % (
                            NAMES[peer], top * 4 / 1e6, at_top[1] / ceiling["default"][1],
                            at_top[1] / ceiling["2 MiB"][1]))
            flat = []
            for interval in [32 << 10, 256 << 10, 2 << 20]:
                big = self.cost_at(self.ceiling, "ceiling", gbps, 8192, interval // 8192)[0]
                small = self.cost_at(self.ceiling, "ceiling", gbps, 1024, interval // 1024)[0]
                if big and small:
                    flat.append("%g KiB: ×%.2f" % (interval / 1024, small[1] / big[1]))
            if flat:
                lines.append("* Flat from 8 KiB to 1 KiB messages? Ceiling at 1 GB/s, cost at "
                             "1 KiB ÷ cost at 8 KiB, by bytes per notification: %s."
                             % ", ".join(flat))
        if self.sizes:
            for rdma in ["rdma_udp", "rdma_inproc"]:
                rate = num(self.sizes[0]["rate_sps"])
                big = self.cost_at(self.sizes, rdma, rate, 8192)[0]
                small = self.cost_at(self.sizes, rdma, rate, 1024)[0]
                if big and small:
                    lines.append("* %s at %g MB/s, 128 KiB per notification: 1 KiB messages "
                                 "cost ×%.2f what 8 KiB messages cost." % (
                                     NAMES[rdma], rate * 4 / 1e6, small[1] / big[1]))
        return "\n".join(lines)

    # -- the size sweep
    def size_table(self):
        header = ["receiver", "payload (B)", "loss-free runs", "host CPU s/GB",
                  "host CPU per packet (µs)", "Table I budget per packet at 1 GB/s (µs)"]
        rows = []
        for (receiver, payload), group in sorted(
                by(self.sizes, "receiver", "payload").items(),
                key=lambda kv: (ORDER.index(kv[0][0]), -num(kv[0][1]))):
            host, ok, n = self.cell(group)
            per_packet = spread([num(r["host_cpu_s"]) / packets_in_window(r) * 1e6
                                 for r in group if truthy(r["loss_free"])
                                 and num(r["window_bytes"]) > 0])
            budget = num(payload) / 1e9 * 1e6
            rows.append([NAMES[receiver], payload, "%d/%d" % (ok, n),
                         fmt_spread(host) if ok else "lossy", fmt_spread(per_packet),
                         "%.2f" % budget])
        return markdown(header, rows)

    # -- the ceiling
    def ceiling_tables(self):
        grid = [r for r in self.ceiling if num(r["rate_sps"]) == 250e6
                and not (r["payload"] == "8192" and r["notify"] == "16")]
        header = ["payload (B)", "notify (messages)", "KiB per notification", "loss-free runs",
                  "host CPU s/GB", "host CPU per notification (µs)", "host CPU per packet (ns)"]
        rows = []
        for (payload, notify), group in sorted(
                by(grid, "payload", "notify").items(),
                key=lambda kv: (num(kv[0][0]) * num(kv[0][1]), -num(kv[0][0]))):
            host, ok, n = self.cell(group)
            good = [r for r in group if truthy(r["loss_free"]) and num(r["window_bytes"]) > 0]
            interval = num(payload) * num(notify)
            per_n = spread([num(r["host_cpu_s"]) / (num(r["window_bytes"]) / interval) * 1e6
                            for r in good])
            per_p = spread([num(r["host_cpu_s"]) / packets_in_window(r) * 1e9 for r in good])
            rows.append([payload, notify, "%g" % (interval / 1024), "%d/%d" % (ok, n),
                         fmt_spread(host) if ok else "lossy", fmt_spread(per_n),
                         fmt_spread(per_p)])
        grid_md = markdown(header, rows)
        fit = self.ceiling_fit(grid)
        rows = []
        default = [r for r in self.ceiling if r["payload"] == "8192" and r["notify"] == "16"]
        for rate, group in sorted(by(default, "rate_sps").items(), key=lambda kv: num(kv[0][0])):
            host, ok, n = self.cell(group)
            rows.append(["%g" % (num(rate[0]) * 4 / 1e9), "%d/%d" % (ok, n),
                         fmt_spread(host) if ok else "lossy",
                         fmt_spread(self.cell(group, "device")[0]) if ok else ""])
        rate_md = markdown(["rate (GB/s)", "loss-free runs", "host CPU s/GB",
                            "stand-in CPU s/GB"], rows) if rows else ""
        return grid_md, fit, rate_md

    @staticmethod
    def ceiling_fit(grid):
        """Least squares: host s/GB = a * notifications/GB + b * packets/GB + c."""
        try:
            import numpy as np
        except ImportError:
            return None
        good = [r for r in grid if truthy(r["loss_free"]) and num(r["window_bytes"]) > 0]
        if len(good) < 4:
            return None
        a = np.array([[1e9 / (num(r["payload"]) * num(r["notify"])),
                       1e9 / num(r["packet_bytes"]), 1.0] for r in good])
        y = np.array([cpu_per_gb(r, "host") for r in good])
        coef, *_ = np.linalg.lstsq(a, y, rcond=None)
        pred = a @ coef
        r2 = 1 - float(np.sum((y - pred) ** 2) / np.sum((y - y.mean()) ** 2)) if len(y) > 1 else 0
        return {"per_notification_us": coef[0] * 1e6, "per_packet_ns": coef[1] * 1e9,
                "floor_s_per_gb": coef[2], "r2": r2, "points": len(good)}

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
            grid, fit, rates = self.ceiling_tables()
            parts += ["### Zero-copy ceiling at 1 GB/s (type=null: no transport; not a "
                      "measurement of any NIC)", grid]
            if fit:
                parts.append("Least-squares fit over the grid (%d runs, R² = %.2f): host CPU "
                             "≈ **%.1f µs per notification** + **%.0f ns per packet** + %.4f s/GB."
                             % (fit["points"], fit["r2"], fit["per_notification_us"],
                                fit["per_packet_ns"], fit["floor_s_per_gb"]))
            if rates:
                parts += ["Ceiling at higher rates (8 KiB messages, notify=16):", rates]
        if self.latency:
            parts += ["### Notification latency (NIC wrote the last byte → work() produced "
                      "the items)",
                      self.latency_table()]
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
            rows = self.rates if receiver != "ceiling" else \
                [r for r in self.ceiling if r["payload"] == "8192" and r["notify"] == "16"]
            mine = [r for r in rows if r["receiver"] == receiver]
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
                        linestyle="--" if receiver == "ceiling" else "-")
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
        print("analyze.py: %d rate, %d size, %d ceiling, %d latency rows: OK" % (
            len(a.rates), len(a.sizes), len(a.ceiling), len(a.latency)))
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
