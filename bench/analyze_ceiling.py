#!/usr/bin/python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""The cost of messages, packets and hand-outs for bench/analyze.py: the size sweep
and the host side with no transport (the ceiling), with its least-squares fit."""

from analyze_common import (
    DEFAULTS, FIXED_WORDS, GBPS, NAMES, ORDER, TUNED, by, cpu_per_gb, fmt_spread, is_setting,
    markdown, messages_in_window, mtu_of, num, packets_in_window, spread, truthy,
    wake_of)


class ceiling_sweep:
    """Tables of sizes.csv and ceiling.csv; mixed into analyze.analysis, whose
    cell() it uses."""

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

    def ceiling_rows(self, setting, rate=GBPS, mtu="4096"):
        return [r for r in self.ceiling if num(r["rate_sps"]) == rate
                and is_setting(r, setting, mtu)]

    def setting_cells(self, rows):
        host, ok, n = self.cell(rows)
        good = [r for r in rows if truthy(r["loss_free"]) and num(r["window_bytes"]) > 0]
        per_m = spread([num(r["host_cpu_s"]) / messages_in_window(r) * 1e9 for r in good])
        return [("%d/%d" % (ok, n)), fmt_spread(host) if ok else "lossy", fmt_spread(per_m)]

    def ceiling_tables(self):
        tables = []
        rows = []
        for name, setting in [(FIXED_WORDS, DEFAULTS), ("tuned", TUNED)]:
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
        for name, setting in [(FIXED_WORDS, DEFAULTS), ("tuned", TUNED)]:
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
