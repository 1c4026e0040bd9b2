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
    "rdma_udp_tuned": "gr-rdma, soft NIC, UDP wire, tuned",
    "rdma_inproc_tuned": "gr-rdma, soft NIC, in-process wire, tuned",
    "rdma_udp_notify64": "gr-rdma, soft NIC, UDP wire, notify=64",  # runs before 2026-11-29T18
    "ceiling": "gr-rdma host side, no transport (type=null), defaults",
    "ceiling_tuned": "gr-rdma host side, no transport (type=null), tuned",
}
ORDER = list(NAMES)
RDMA_PATHS = ["rdma_udp", "rdma_inproc", "rdma_udp_tuned", "rdma_inproc_tuned",
              "rdma_udp_notify64"]
GBPS = 250e6  # 1 GB/s of sc16
# Ceiling settings: (payload, notify, work_interval). The bench's 8 KiB messages with the
# default notify, and the tuned setting of run.py (64 KiB, notify=32, 50 ms).
DEFAULTS = ("8192", "16", 0.0)
TUNED = ("65536", "32", 0.05)
TUNED_WORDS = "64 KiB messages, notify=32, latency=0.2, work_interval=0.05"


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


def messages_in_window(row):
    return num(row["window_bytes"]) / num(row["payload"])


def mtu_of(row):
    return row.get("mtu") or "4096"  # runs before the column existed: 4096


def wake_of(row):
    return num(row.get("work_interval"), 0.0)


def is_setting(row, setting, mtu="4096"):
    payload, notify, wake = setting
    return (row["payload"] == payload and row["notify"] == notify
            and abs(wake_of(row) - wake) < 1e-9 and mtu_of(row) == mtu)


def verdict(ratio, goal):
    """A ratio (median, min, max) against its target."""
    return ("**met**" if ratio[1] >= goal else "met by the median, not by every repetition"
            if ratio[0] >= goal else "**not met**")


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
        loss-free at least once, and where the ideal receiver alone went higher, there."""
        groups = by(self.rates, "receiver", "rate_sps")

        def highest_common(rdma, peers):
            common = []
            for (rec, rate), rows in groups.items():
                if rec != rdma or not any(truthy(r["loss_free"]) for r in rows):
                    continue
                if all(any(truthy(r["loss_free"]) for r in groups.get((p, rate), []))
                       for p in peers):
                    common.append(rate)
            return max(common, key=num) if common else None

        lines = []
        for rdma in RDMA_PATHS:
            if rdma not in self.maxima:
                continue
            rate = highest_common(rdma, ["udp_source_tuned", "ideal"])
            if rate is None:
                lines.append("* %s: no rate at which it and both socket baselines were "
                             "loss-free." % NAMES[rdma])
                continue
            t = self.ratios(groups[("udp_source_tuned", rate)], groups[(rdma, rate)])
            i = self.ratios(groups[("ideal", rate)], groups[(rdma, rate)])
            line = ("* **%s at %g MS/s (%g MB/s)**, the highest rate where it and both "
                    "socket baselines were loss-free: tuned udp_source spends **%.1f×** "
                    "[%.1f–%.1f] the host CPU per GB, the ideal receiver **%.1f×** "
                    "[%.1f–%.1f]" % ((NAMES[rdma], num(rate) / 1e6, num(rate) * 4 / 1e6) + t + i))
            higher = highest_common(rdma, ["ideal"])
            if higher is not None and num(higher) > num(rate):
                i = self.ratios(groups[("ideal", higher)], groups[(rdma, higher)])
                line += ("; at %g MS/s (%g MB/s), the highest rate where it and the ideal "
                         "receiver were loss-free, the ideal receiver spends **%.1f×** "
                         "[%.1f–%.1f]" % ((num(higher) / 1e6, num(higher) * 4 / 1e6) + i))
            lines.append(line + ".")
        return "\n".join(lines)

    # -- the targets, one by one
    def cost_at(self, rows, receiver, rate, payload=None):
        return self.cell([r for r in rows
                          if r["receiver"] == receiver and num(r["rate_sps"]) == rate
                          and (payload is None or r["payload"] == str(payload))])

    def ceiling_rows(self, setting, rate=GBPS, mtu="4096"):
        return [r for r in self.ceiling if num(r["rate_sps"]) == rate
                and is_setting(r, setting, mtu)]

    def targets(self):
        lines = []
        best = {}
        for peer in ["udp_source_tuned", "ideal"]:
            host, ok, n = self.cost_at(self.rates, peer, GBPS)
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
        goals = {"udp_source_tuned": 100, "ideal": 50}
        for rdma in RDMA_PATHS:
            host, ok, n = self.cost_at(self.rates, rdma, GBPS)
            if rdma in self.maxima:
                if ok:
                    what = "loss-free in %d of %d runs, host %s s/GB" % (ok, n, fmt_spread(host))
                else:
                    what = "not reached loss-free (loss-free maximum, median: %g MS/s)" % (
                        statistics.median(self.maxima[rdma]) / 1e6)
                lines.append("* %s at 1 GB/s: %s." % (NAMES[rdma], what))
            # End to end at the target rate, where a socket baseline got there too.
            for peer, goal in goals.items():
                r = self.ratios(self.rows_at(peer, GBPS), self.rows_at(rdma, GBPS))
                if r:
                    lines.append("  * %s ÷ %s, both at 1 GB/s, same run: **%.0f×** "
                                 "[%.0f–%.0f]; target %d×: %s." % (
                                     NAMES[peer], NAMES[rdma], r[0], r[1], r[2], goal,
                                     verdict(r, goal)))
        if not self.ceiling:
            return "\n".join(lines)
        host = {name: self.cell(self.ceiling_rows(setting))[0]
                for name, setting in [("defaults", DEFAULTS), ("tuned", TUNED)]}
        lines.append("* gr-rdma's host side at 1 GB/s, the NIC's part done by the stand-in "
                     "(type=null; what a RoCE NIC does in hardware): %s s/GB with the "
                     "defaults (8 KiB messages, notify=16), %s s/GB tuned (%s)."
                     % (fmt_spread(host["defaults"]), fmt_spread(host["tuned"]), TUNED_WORDS))
        for peer, goal in goals.items():
            peer_rows = self.rows_at(peer, GBPS)
            same_rate = any(truthy(r["loss_free"]) for r in peer_rows)
            if not same_rate:
                top = best[peer][0]
                peer_rows = self.rows_at(peer, top) if top else []
            for name, setting in [("tuned", TUNED), ("defaults", DEFAULTS)]:
                r = self.ratios(peer_rows, self.ceiling_rows(setting))
                if not r:
                    continue
                where = ("both at 1 GB/s" if same_rate else
                         "%s at its loss-free maximum, %g MB/s: *different rates*"
                         % (NAMES[peer], best[peer][0] * 4 / 1e6))
                lines.append("  * %s ÷ gr-rdma host side (%s): **%.0f×** [%.0f–%.0f] (%s); "
                             "target %d×: %s." % (NAMES[peer], name, r[0], r[1], r[2], where,
                                                  goal, verdict(r, goal)))
        flat = []
        for name, setting in [("defaults", DEFAULTS), ("tuned", TUNED)]:
            big = self.cell(self.ceiling_rows(setting, mtu="4096"))[0]
            for mtu in ["2048", "1024"]:
                small = self.cell(self.ceiling_rows(setting, mtu=mtu))[0]
                if big and small:
                    flat.append("%s, %s-byte packets: ×%.2f [%.2f–%.2f]" % (
                        name, mtu, small[1] / big[1], small[0] / big[2], small[2] / big[0]))
        if flat:
            lines.append("* Flat as packets shrink? Host side at 1 GB/s, cost with smaller "
                         "packets ÷ cost with 4096-byte packets (same messages): %s. (RoCE "
                         "packets carry at most 4 KiB; the 8 KiB datagram of the socket path "
                         "corresponds to an 8 KiB message of two packets.)" % "; ".join(flat))
        per_message = []
        for interval in [32 << 10, 2 << 20]:
            big = self.cell(self.ceiling_rows(("8192", str(interval // 8192), 0.0)))[0]
            small = self.cell(self.ceiling_rows(("1024", str(interval // 1024), 0.0)))[0]
            if big and small:
                per_message.append("%g KiB per notification: ×%.2f" % (interval / 1024,
                                                                       small[1] / big[1]))
        if per_message:
            lines.append("* Smaller *messages* do cost more: the host checks one placeholder "
                         "per message. 1 KiB ÷ 8 KiB messages (one packet each vs two), host "
                         "side at 1 GB/s: %s. The message size is the device's `payload=`, "
                         "chosen by the host, not the wire." % ", ".join(per_message))
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
    def setting_cells(self, rows):
        host, ok, n = self.cell(rows)
        good = [r for r in rows if truthy(r["loss_free"]) and num(r["window_bytes"]) > 0]
        per_m = spread([num(r["host_cpu_s"]) / messages_in_window(r) * 1e9 for r in good])
        return [("%d/%d" % (ok, n)), fmt_spread(host) if ok else "lossy", fmt_spread(per_m)]

    def ceiling_tables(self):
        tables = []
        rows = []
        for name, setting in [("defaults", DEFAULTS), ("tuned", TUNED)]:
            for mtu in ["4096", "2048", "1024"]:
                group = self.ceiling_rows(setting, mtu=mtu)
                if group:
                    rows.append([name, setting[0], mtu, int(setting[0]) // int(mtu)]
                                + self.setting_cells(group))
        if rows:
            tables.append(("Packet size, same messages (1 GB/s)", markdown(
                ["setting", "message (B)", "packet (B)", "packets per message",
                 "loss-free runs", "host CPU s/GB", "host CPU per message (ns)"], rows)))
        grid = [r for r in self.ceiling if num(r["rate_sps"]) == GBPS and mtu_of(r) == "4096"
                and wake_of(r) == 0]
        rows = []
        for (payload, notify), group in sorted(
                by(grid, "payload", "notify").items(),
                key=lambda kv: (num(kv[0][0]) * num(kv[0][1]), -num(kv[0][0]))):
            interval = num(payload) * num(notify)
            good = [r for r in group if truthy(r["loss_free"]) and num(r["window_bytes"]) > 0]
            per_n = spread([num(r["host_cpu_s"]) / (num(r["window_bytes"]) / interval) * 1e6
                            for r in good])
            runs, host, per_m = self.setting_cells(group)
            rows.append([payload, notify, "%g" % (interval / 1024), runs, host,
                         fmt_spread(per_n), per_m])
        if rows:
            tables.append(("Message size × notification interval (1 GB/s, an item hand-out "
                           "per notification)", markdown(
                               ["message (B)", "notify (messages)", "KiB per notification",
                                "loss-free runs", "host CPU s/GB",
                                "host CPU per notification (µs)", "host CPU per message (ns)"],
                               rows)))
        fit = self.ceiling_fit(grid)
        if fit:
            tables.append(("", "Least-squares fit over that grid (%d runs, R² = %.2f): host "
                           "CPU ≈ **%.1f µs per notification** + **%.0f ns per message** + "
                           "%.4f s/GB." % (fit["points"], fit["r2"],
                                           fit["per_notification_us"], fit["per_message_ns"],
                                           fit["floor_s_per_gb"])))
        wake = [r for r in self.ceiling if num(r["rate_sps"]) == GBPS and mtu_of(r) == "4096"
                and r["payload"] == TUNED[0] and r["notify"] == TUNED[1]]
        rows = []
        for w, group in sorted(by(wake, "work_interval").items(), key=lambda kv: num(kv[0][0])):
            host, ok, n = self.cell(group)
            interval = num(w[0])
            notifications = GBPS * 4 / (int(TUNED[0]) * int(TUNED[1]))
            handouts = min(1 / interval, notifications) if interval else notifications
            per_h = spread([num(r["host_cpu_s"]) / num(r["window_s"]) / handouts * 1e6
                            for r in group if truthy(r["loss_free"]) and num(r["window_s"]) > 0])
            rows.append(["%g" % (interval * 1e3), "%.0f" % handouts, "%d/%d" % (ok, n),
                         fmt_spread(host) if ok else "lossy", fmt_spread(per_h)])
        if len(rows) > 1:
            tables.append(("Gathering items: work_interval (1 GB/s, 64 KiB messages, "
                           "notify=32)", markdown(
                               ["work_interval (ms)", "hand-outs/s (at most)",
                                "loss-free runs", "host CPU s/GB",
                                "host CPU per hand-out (µs)"], rows)))
        rows = []
        for name, setting in [("defaults", DEFAULTS), ("tuned", TUNED)]:
            mine = [r for r in self.ceiling if is_setting(r, setting)]
            for rate, group in sorted(by(mine, "rate_sps").items(), key=lambda kv: num(kv[0][0])):
                host, ok, n = self.cell(group)
                rows.append([name, "%g" % (num(rate[0]) * 4 / 1e9), "%d/%d" % (ok, n),
                             fmt_spread(host) if ok else "lossy",
                             fmt_spread(self.cell(group, "device")[0]) if ok else ""])
        if rows:
            tables.append(("Higher rates", markdown(
                ["setting", "rate (GB/s)", "loss-free runs", "host CPU s/GB",
                 "stand-in CPU s/GB"], rows)))
        return tables

    @staticmethod
    def ceiling_fit(grid):
        """Least squares: host s/GB = a * notifications/GB + b * messages/GB + c."""
        try:
            import numpy as np
        except ImportError:
            return None
        good = [r for r in grid if truthy(r["loss_free"]) and num(r["window_bytes"]) > 0]
        if len(good) < 4:
            return None
        a = np.array([[1e9 / (num(r["payload"]) * num(r["notify"])),
                       1e9 / num(r["payload"]), 1.0] for r in good])
        y = np.array([cpu_per_gb(r, "host") for r in good])
        coef, *_ = np.linalg.lstsq(a, y, rcond=None)
        pred = a @ coef
        r2 = 1 - float(np.sum((y - pred) ** 2) / np.sum((y - y.mean()) ** 2)) if len(y) > 1 else 0
        return {"per_notification_us": coef[0] * 1e6, "per_message_ns": coef[1] * 1e9,
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
            parts.append("### gr-rdma's host side with no transport (type=null: the stand-in "
                         "does the NIC's part; not a measurement of any NIC)")
            for title, table in self.ceiling_tables():
                parts += (["#### " + title] if title else []) + [table]
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
