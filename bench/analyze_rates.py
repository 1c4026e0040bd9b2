#!/usr/bin/python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""The rate sweep's tables for bench/analyze.py: CPU per GB by rate, loss-free
maxima, ratios against the socket baselines, the headline and the issue's targets."""

import statistics

from analyze_common import (
    DEFAULTS, FIXED_WORDS, GBPS, NAMES, ORDER, RDMA_PATHS, TUNED, TUNED_WORDS, by, cpu_per_gb,
    fmt_spread, markdown, num, spread, truthy, verdict)


class rate_sweep:
    """Tables of rates.csv (with the ceiling's rows in the targets); mixed into
    analyze.analysis, whose cell(), maxima and ceiling_rows() it uses."""

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

    def cost_at(self, rows, receiver, rate, payload=None):
        return self.cell([r for r in rows
                          if r["receiver"] == receiver and num(r["rate_sps"]) == rate
                          and (payload is None or r["payload"] == str(payload))])

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
                for name, setting in [(FIXED_WORDS, DEFAULTS), ("tuned", TUNED)]}
        lines.append("* gr-rdma's host side at 1 GB/s, the NIC's part done by the stand-in "
                     "(type=null; what a RoCE NIC does in hardware): %s s/GB with 8 KiB "
                     "messages and notify=16 (the defaults before 2026-12-04; today's: "
                     "\"Fast by default\"), %s s/GB tuned (%s)."
                     % (fmt_spread(host[FIXED_WORDS]), fmt_spread(host["tuned"]), TUNED_WORDS))
        for peer, goal in goals.items():
            peer_rows = self.rows_at(peer, GBPS)
            same_rate = any(truthy(r["loss_free"]) for r in peer_rows)
            if not same_rate:
                top = best[peer][0]
                peer_rows = self.rows_at(peer, top) if top else []
            for name, setting in [("tuned", TUNED), (FIXED_WORDS, DEFAULTS)]:
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
        for name, setting in [(FIXED_WORDS, DEFAULTS), ("tuned", TUNED)]:
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
