#!/usr/bin/python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""bench/analyze.py's tables of the defaults phase: gr-rdma with no tuning from
10 MB/s to 10 GB/s (host CPU per GB, hand-outs per second, hand-out latency) beside
the tuned setting, the soft NIC with the defaults and the socket baselines, and the
issue's acceptance checks (docs/performance.md, "Fast by default")."""

from analyze_common import by, cpu_per_gb, fmt_num, fmt_spread, markdown, num, spread, truthy

DEFAULT_NAMES = {
    "standin_defaults": "host side (type=null), defaults",
    "standin_tuned": "host side (type=null), tuned",
    "rdma_udp_defaults": "gr-rdma, soft NIC, UDP wire, defaults",
    "ideal": "ideal socket receiver",
    "udp_source_tuned": "udp_source, tuned",
}


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

    def defaults_table(self):
        header = ["payload rate (MB/s)", "receiver", "loss-free runs", "host CPU s/GB",
                  "host share of a core", "NIC CPU s/GB", "hand-outs/s", "hand-out p50 / "
                  "p99 / p99.9 (µs)", "payload, notify"]
        out = []
        for mbps in self.defaults_rates():
            for receiver in DEFAULT_NAMES:
                rows, ok = self.defaults_cells(receiver, mbps)
                if not rows:
                    continue
                latency = "–"
                if receiver.startswith("standin") or receiver == "rdma_udp_defaults":
                    latency = " / ".join(fmt_spread(spread([num(r[k]) for r in ok if r[k]]),
                                                    3, 1e-3)
                                         for k in ("p50_ns", "p99_ns", "p999_ns"))
                handouts = fmt_spread(spread([num(r["handouts_per_s"]) for r in ok
                                              if r.get("handouts_per_s")]), 3)
                share = self.core_share(ok)
                out.append([fmt_num(mbps), DEFAULT_NAMES[receiver],
                            "%d/%d" % (len(ok), len(rows)),
                            fmt_spread(spread([cpu_per_gb(r, "host") for r in ok])) if ok
                            else "lossy",
                            fmt_spread(share, 2, 100) + " %" if share else "–",
                            fmt_spread(spread([cpu_per_gb(r, "nic") for r in ok]))
                            if ok and receiver == "rdma_udp_defaults" else "–",
                            handouts if ok and handouts != "–" else "–", latency,
                            "%s B, %s" % (rows[0]["payload"], rows[0]["notify"])
                            if rows[0].get("notify") else "8 KiB datagrams"])
        return markdown(header, out)

    def ratio(self, a_rows, b_rows):
        a = spread([cpu_per_gb(r, "host") for r in a_rows])
        b = spread([cpu_per_gb(r, "host") for r in b_rows])
        if not a or not b:
            return None
        return b[1] / a[1], b[0] / a[2], b[2] / a[0]

    def defaults_checks(self):
        lines = []
        _, std = self.defaults_cells("standin_defaults", 1000)
        _, ideal = self.defaults_cells("ideal", 1000)
        r = self.ratio(std, ideal)
        p99 = spread([num(x["p99_ns"]) for x in std if x["p99_ns"]])
        if r and p99:
            lines.append("* Defaults at 1 GB/s (host side over the stand-in): the ideal "
                         "receiver spends **%s×** [%s–%s] its host CPU per GB (target 20×: "
                         "%s); hand-out p99 %s µs (target ≤ 2000 µs: %s)." % (
                             fmt_num(r[0]), fmt_num(r[1]), fmt_num(r[2]),
                             "**met**" if r[1] >= 20 else "met by the median"
                             if r[0] >= 20 else "**not met**",
                             fmt_spread(p99, 3, 1e-3),
                             "**met**" if p99[2] <= 2e6 else "**not met**"))
        else:
            lines.append("* Defaults at 1 GB/s: not measured against the ideal receiver "
                         "(it or the stand-in was not loss-free there).")
        rows, ok = self.defaults_cells("standin_defaults", 10000)
        share = self.core_share(ok)
        if rows:
            lines.append("* Defaults at 10 GB/s over the stand-in: loss-free in %d of %d "
                         "runs; host side %s %% of one core (target < 10 %%: %s)." % (
                             len(ok), len(rows), fmt_spread(share, 2, 100) if share else "–",
                             "**met**" if share and share[2] < 0.1 and len(ok) == len(rows)
                             else "**not met**"))
        _, tuned = self.defaults_cells("standin_tuned", 1000)
        t = spread([cpu_per_gb(x, "host") for x in tuned])
        if t:
            lines.append("* Tuned at 1 GB/s over the stand-in: %s s/GB." % fmt_spread(t))
        return "\n".join(lines)

    def defaults_tables(self):
        return [("The issue's targets, checked", self.defaults_checks()),
                ("By rate (median [min–max] over loss-free repetitions)",
                 self.defaults_table())]


def least_squares(xs, ys):
    """Slope and intercept of the line through (xs, ys)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if n < 2 or sxx == 0:
        return None
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return slope, my - slope * mx


class handout_sweep:
    """Mixed into analyze.analysis: needs self.handout (rows of handout.csv)."""

    @staticmethod
    def thread_group(name):
        """A thread's role in the fit: GNU Radio names a block's thread after it."""
        base = name.split("/")[0].rstrip("0123456789")
        return base or name

    def handout_fit(self):
        import json
        ok = [r for r in self.handout if truthy(r["loss_free"]) and num(r["window_s"]) > 0]
        if len(ok) < 2:
            return None, {}
        xs = [num(r["handouts_per_s"]) for r in ok]
        total = least_squares(xs, [num(r["host_cpu_s"]) / num(r["window_s"]) for r in ok])
        per_thread = {}
        for r, x in zip(ok, xs):
            groups = {}
            for name, s in json.loads(r["threads"] or "{}").items():
                g = self.thread_group(name)
                groups[g] = groups.get(g, 0.0) + s
            for g, s in groups.items():
                per_thread.setdefault(g, []).append((x, s / num(r["window_s"])))
        fits = {g: least_squares([p[0] for p in pts], [p[1] for p in pts])
                for g, pts in per_thread.items() if len(pts) == len(ok)}
        return total, {g: f for g, f in fits.items() if f}

    def handout_table(self):
        total, fits = self.handout_fit()
        if not total:
            return "Too few loss-free runs for a fit."
        rows = [["all host threads (rdma.process_cpu_by_role: host)",
                 "%.1f" % (total[0] * 1e6), "%.2f" % (total[1] * 1e3)]]
        for g, (slope, icpt) in sorted(fits.items(), key=lambda kv: -kv[1][0]):
            if abs(slope) * 1e6 >= 0.1:
                rows.append(["thread `%s`" % g, "%.1f" % (slope * 1e6), "%.2f" % (icpt * 1e3)])
        per = by(self.handout, "notify")
        points = ", ".join("notify=%s: %s/s" % (k[0], fmt_num(spread(
            [num(r["handouts_per_s"]) for r in v])[1])) for k, v in
            sorted(per.items(), key=lambda kv: int(kv[0][0])))
        return (markdown(["what", "µs of CPU per hand-out (slope)",
                          "ms of CPU per second without hand-outs (intercept)"], rows)
                + "\n\nHand-outs per second of the runs (median): " + points + ".")
