#!/usr/bin/python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""bench/analyze.py's tables of the defaults phase: gr-rdma with no tuning from
10 MB/s to 10 GB/s (host CPU per GB, hand-outs per second, latencies) beside GNU Radio
alone at the same hand-out rate, a downstream reader, the tuned setting, the soft NIC
with the defaults and the socket baselines, and the issue's acceptance checks
(docs/performance.md, "Fast by default")."""

import json

from analyze_common import by, cpu_per_gb, fmt_num, fmt_spread, markdown, num, spread, truthy

DEFAULT_NAMES = {
    "standin_defaults": "host side (type=null), defaults",
    "gr_floor": "GNU Radio alone, same hand-outs/s",
    "standin_reader": "host side (type=null), defaults, reader downstream",
    "standin_tuned": "host side (type=null), tuned",
    "rdma_udp_defaults": "gr-rdma, soft NIC, UDP wire, defaults",
    "ideal": "ideal socket receiver",
    "udp_source_tuned": "udp_source, tuned",
}
MEASURES_LATENCY = ("standin_defaults", "standin_reader", "standin_tuned",
                    "rdma_udp_defaults")


def thread_group(name):
    """A thread's name without its id and GNU Radio's block number: rx_source2/123 ->
    rx_source."""
    base = name.split("/")[0].rstrip("0123456789")
    return base or name


def thread_share(row, group):
    """CPU seconds per second of the threads of \\p group in \\p row."""
    window = num(row["window_s"])
    if window <= 0:
        return None
    threads = json.loads(row.get("threads") or "{}")
    return sum(s for n, s in threads.items() if thread_group(n) == group) / window


class defaults_sweep:
    """Mixed into analyze.analysis: needs self.defaults (rows of defaults.csv)."""

    def defaults_cells(self, receiver, mbps):
        rows = [r for r in self.defaults if r["receiver"] == receiver
                and abs(num(r["rate_sps"]) * 4 / 1e6 - mbps) < 1e-6]
        ok = [r for r in rows if truthy(r["loss_free"])]
        return rows, ok

    def defaults_rates(self):
        return sorted({round(num(r["rate_sps"]) * 4 / 1e6, 6) for r in self.defaults})

    def core_share(self, rows):
        """Host CPU seconds per second of stream: the share of one core."""
        return spread([num(r["host_cpu_s"]) / num(r["window_s"]) for r in rows
                       if num(r["window_s"]) > 0])

    @staticmethod
    def latencies(rows, prefix):
        return " / ".join(fmt_spread(spread([num(r[prefix + k]) for r in rows
                                             if r.get(prefix + k)]), 3, 1e-3)
                          for k in ("p50_ns", "p99_ns", "p999_ns"))

    def defaults_table(self):
        header = ["payload rate (MB/s)", "receiver", "loss-free runs", "host CPU s/GB",
                  "host share of a core", "NIC CPU s/GB", "hand-outs/s",
                  "sample age at hand-out p50 / p99 / p99.9 (µs)",
                  "notification → hand-out p50 / p99 / p99.9 (µs)", "payload, notify"]
        out = []
        for mbps in self.defaults_rates():
            for receiver in DEFAULT_NAMES:
                rows, ok = self.defaults_cells(receiver, mbps)
                if not rows:
                    continue
                age = notification = "–"
                if receiver in MEASURES_LATENCY:
                    age = self.latencies(ok, "age_")
                    notification = self.latencies(ok, "")
                handouts = fmt_spread(spread([num(r["handouts_per_s"]) for r in ok
                                              if r.get("handouts_per_s")]), 3)
                share = self.core_share(ok)
                setting = ("%s B, %s" % (rows[0]["payload"], rows[0]["notify"])
                           if rows[0].get("notify") else
                           rows[0]["args"] if receiver == "gr_floor" else "8 KiB datagrams")
                out.append([fmt_num(mbps), DEFAULT_NAMES[receiver],
                            "%d/%d" % (len(ok), len(rows)),
                            fmt_spread(spread([cpu_per_gb(r, "host") for r in ok])) if ok
                            else "lossy",
                            fmt_spread(share, 2, 100) + " %" if share else "–",
                            fmt_spread(spread([cpu_per_gb(r, "nic") for r in ok]))
                            if ok and receiver == "rdma_udp_defaults" else "–",
                            handouts if ok and handouts != "–" else "–", age, notification,
                            setting])
        return markdown(header, out)

    def ratio(self, a_rows, b_rows):
        """How many times b's host CPU per GB is a's: median, and the extremes (min b
        over max a, max b over min a)."""
        a = spread([cpu_per_gb(r, "host") for r in a_rows])
        b = spread([cpu_per_gb(r, "host") for r in b_rows])
        if not a or not b:
            return None
        return b[1] / a[1], b[0] / a[2], b[2] / a[0]

    def floor_table(self):
        """gr-rdma's host side over GNU Radio's own cost at the same hand-out rate."""
        header = ["payload rate (MB/s)", "hand-outs/s", "host side (type=null), µs per "
                  "hand-out", "GNU Radio alone, µs per hand-out", "host side ÷ GNU Radio"]
        out = []
        for mbps in self.defaults_rates():
            _, ours = self.defaults_cells("standin_defaults", mbps)
            _, floor = self.defaults_cells("gr_floor", mbps)
            if not ours or not floor:
                continue
            per = lambda rows: spread([num(r["host_cpu_s"]) / num(r["window_s"]) /
                                       num(r["handouts_per_s"]) for r in rows
                                       if num(r["handouts_per_s"]) > 0])
            a, b = per(ours), per(floor)
            out.append([fmt_num(mbps), fmt_spread(spread([num(r["handouts_per_s"])
                                                          for r in ours]), 3),
                        fmt_spread(a, 3, 1e6), fmt_spread(b, 3, 1e6),
                        fmt_num(a[1] / b[1]) if a and b else "–"])
        return markdown(header, out)

    def soft_nic_lines(self):
        def maxima(receiver):
            best = {}
            for r in self.defaults:
                if r["receiver"] == receiver and truthy(r["loss_free"]):
                    rate = num(r["rate_sps"]) * 4 / 1e6
                    best[r["rep"]] = max(best.get(r["rep"], 0), rate)
            reps = {r["rep"] for r in self.defaults if r["receiver"] == receiver}
            return spread([best.get(k, 0) for k in reps])
        lines = []
        for receiver in ("rdma_udp_defaults", "ideal", "udp_source_tuned"):
            m = maxima(receiver)
            if m:
                lines.append("%s: loss-free up to %s MB/s" % (DEFAULT_NAMES[receiver],
                                                              fmt_spread(m)))
        return lines

    def defaults_checks(self):
        lines = []
        _, std = self.defaults_cells("standin_defaults", 1000)
        _, ideal = self.defaults_cells("ideal", 1000)
        r = self.ratio(std, ideal)
        p99 = spread([num(x["age_p99_ns"]) for x in std if x.get("age_p99_ns")])
        if r and p99:
            lines.append("* Defaults at 1 GB/s (host side over the stand-in): the ideal "
                         "receiver spends **%s×** [%s–%s] its host CPU per GB (target 20×: "
                         "%s); sample age at hand-out p99 %s µs (target ≤ 2000 µs: %s)." % (
                             fmt_num(r[0]), fmt_num(r[1]), fmt_num(r[2]),
                             "**met**" if r[1] >= 20 else "met by the median"
                             if r[0] >= 20 else "**not met**",
                             fmt_spread(p99, 3, 1e-3),
                             "**met**" if p99[2] <= 2e6 else "**not met**"))
        else:
            lines.append("* Defaults at 1 GB/s: not measured against the ideal receiver "
                         "(it or the stand-in was not loss-free there).")
        for receiver, what in (("standin_defaults", "null_sink"),
                               ("standin_reader", "a reader of every byte")):
            rows, ok = self.defaults_cells(receiver, 10000)
            if not rows:
                continue
            source = spread([thread_share(x, "rx_source") for x in ok])
            reader = (spread([thread_share(x, "reader") for x in ok])
                      if receiver == "standin_reader" else None)
            share = self.core_share(ok)
            lines.append(
                "* Defaults at 10 GB/s over the stand-in, %s downstream: loss-free in %d of "
                "%d runs; host side %s %% of one core, rx_source's thread %s %%%s (target "
                "< 10 %%: %s)." % (
                    what, len(ok), len(rows), fmt_spread(share, 2, 100) if share else "–",
                    fmt_spread(source, 2, 100) if source else "–",
                    ", the reader's %s %%" % fmt_spread(reader, 2, 100) if reader else "",
                    "**met**" if source and source[2] < 0.1 and len(ok) == len(rows)
                    else "**not met**"))
        _, tuned = self.defaults_cells("standin_tuned", 1000)
        t = spread([cpu_per_gb(x, "host") for x in tuned])
        if t:
            lines.append("* Tuned at 1 GB/s over the stand-in: %s s/GB." % fmt_spread(t))
        lines += ["* " + x for x in self.soft_nic_lines()]
        return "\n".join(lines)

    def defaults_tables(self):
        tables = [("The issue's targets, checked", self.defaults_checks()),
                  ("By rate (median [min–max] over loss-free repetitions)",
                   self.defaults_table())]
        if any(r["receiver"] == "gr_floor" for r in self.defaults):
            tables.append(("Against GNU Radio's own cost of a hand-out (median [min–max])",
                           self.floor_table()))
        return tables


def least_squares(xs, ys):
    """Slope and intercept of the line through (xs, ys)."""
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return slope, my - slope * mx


class handout_sweep:
    """Mixed into analyze.analysis: needs self.handout (rows of handout.csv)."""

    def handout_fit(self, receiver="handout"):
        ok = [r for r in self.handout if truthy(r["loss_free"]) and num(r["window_s"]) > 0
              and r["receiver"] == receiver]
        if len(ok) < 2:
            return None, {}
        xs = [num(r["handouts_per_s"]) for r in ok]
        total = least_squares(xs, [num(r["host_cpu_s"]) / num(r["window_s"]) for r in ok])
        per_thread = {}
        for r, x in zip(ok, xs):
            groups = {}
            for name, s in json.loads(r["threads"] or "{}").items():
                g = thread_group(name)
                groups[g] = groups.get(g, 0.0) + s
            for g, s in groups.items():
                per_thread.setdefault(g, []).append((x, s / num(r["window_s"])))
        fits = {g: least_squares([p[0] for p in pts], [p[1] for p in pts])
                for g, pts in per_thread.items() if len(pts) == len(ok)}
        return total, {g: f for g, f in fits.items() if f}

    def handout_table(self):
        rows = []
        for receiver, what in (("handout", "rx_source → null_sink (type=null)"),
                               ("gr_floor", "GNU Radio alone: paced source → null_sink")):
            total, fits = self.handout_fit(receiver)
            if not total:
                continue
            rows.append(["%s: all host threads" % what, "%.1f" % (total[0] * 1e6),
                         "%.2f" % (total[1] * 1e3)])
            for g, (slope, icpt) in sorted(fits.items(), key=lambda kv: -kv[1][0]):
                if abs(slope) * 1e6 >= 0.1:
                    rows.append(["%s: thread `%s`" % (what.split(":")[0], g),
                                 "%.1f" % (slope * 1e6), "%.2f" % (icpt * 1e3)])
        if not rows:
            return "Too few loss-free runs for a fit."
        mine = [r for r in self.handout if r["receiver"] == "handout" and r.get("notify")]
        per = by(mine, "notify")
        points = ", ".join("notify=%s: %s/s" % (k[0], fmt_num(spread(
            [num(r["handouts_per_s"]) for r in v])[1])) for k, v in
            sorted(per.items(), key=lambda kv: int(kv[0][0])))
        return (markdown(["what", "µs of CPU per hand-out (slope)",
                          "ms of CPU per second without hand-outs (intercept)"], rows)
                + "\n\nHand-outs per second of the runs (median): " + points + ".")
