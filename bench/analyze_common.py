#!/usr/bin/python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""What bench/analyze.py's tables share: the receivers' names and order, the
ceiling's settings, reading the raw CSV, numbers and their spreads, markdown."""

import csv
import math
import os
import statistics


NAMES = {
    "udp_source_shipped": "udp_source, as shipped",
    "udp_source_tuned": "udp_source, tuned",
    "ideal": "ideal socket receiver",
    "rdma_udp": "gr-rdma, soft NIC, UDP wire",
    "rdma_inproc": "gr-rdma, soft NIC, in-process wire",
    "rdma_udp_tuned": "gr-rdma, soft NIC, UDP wire, tuned",
    "rdma_inproc_tuned": "gr-rdma, soft NIC, in-process wire, tuned",
    "rdma_udp_notify64": "gr-rdma, soft NIC, UDP wire, notify=64",  # runs before 2026-11-29T18
    "ceiling": "gr-rdma host side, no transport (type=null), untuned",
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
# The bench's fixed 8 KiB messages with notify=16: the defaults until 2026-12-04 (since
# then payload and notify follow the rate: the defaults phase measures those).
FIXED_WORDS = "8 KiB, notify=16"


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
