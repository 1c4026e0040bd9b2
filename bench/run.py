#!/usr/bin/python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""The benchmark suite: what a sample costs the host, gr-rdma next to the socket path.

    bench/run.sh                 # build, run everything, analyze (the one command)
    bench/run.py --build BUILD_DIR [--out DIR] [--quick]

Writes raw CSV and metadata.json into a fresh directory under bench/results/ and
prints nothing but progress; bench/analyze.py turns a result directory into the
table (docs/performance.md explains every column). Phases:

  rates    every receiver on the same stream (sc16, 8 KiB of samples per message),
           rates from 10 MS/s up, each repetition a ladder that stops at its first
           lossy rate
  sizes    message sizes 8, 4, 2, 1 KiB at a fixed rate, 128 KiB per notification
  ceiling  rx_source -> null_sink over the null stand-in (type=null): no transport,
           1 GB/s and beyond; packet size (path MTU 4096/2048/1024) with the defaults
           and tuned, a grid of message size x notification interval, and the tuned
           setting's work_interval from 0 to 50 ms
  latency  notification latency (latency_probe=1), pooled over the repetitions
  defaults gr-rdma with no tuning (payload and notify chosen by the stream) over the
           stand-in from 10 MB/s to 10 GB/s with its hand-out latency, the same
           tuned, the soft NIC with the defaults, and the socket baselines
  handout  what one hand-out costs: the stand-in at 1 GB/s, hand-outs from ~240 to
           ~15 000 a second (notify 64 ... 1), host CPU per second against them, each
           beside GNU Radio alone at the same hand-out rate (bench_handout_floor)
  copies   copy census (LD_PRELOAD) and pointer tests, one run per receiver

Receivers: udp_source as shipped and tuned (network.udp_source -> null_sink), the
ideal socket receiver (bench_ideal_rx), gr-rdma over the soft NIC on loopback UDP
(rdma_udp) and over the in-process wire (rdma_inproc), each with the defaults and tuned
(*_tuned: 64 KiB messages, a notification every 32, items handed out at most every
50 ms within a 0.2 s latency budget). The socket baseline's sender is the same emulator
(bench_udp_sender, RX_TRANSPORT = 2).

Needs root for the tuned socket buffers (sysctl net.core.rmem_default/rmem_max, as
gr-network recommends) and for hugepages (vm.nr_hugepages); both are restored when the
suite ends, however it ends. Without root, the tuned variant and hugepages are
skipped and the metadata says so.
"""

import argparse
import atexit
import csv
import datetime
import json
import os
import platform
import select
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
ITEM = 4  # sc16
RATES = [10e6, 25e6, 50e6, 100e6, 150e6, 200e6, 250e6, 300e6, 400e6]
SOCKET_RECEIVERS = ["udp_source_shipped", "udp_source_tuned", "ideal"]
RDMA_RECEIVERS = {"rdma_udp": "type=emu", "rdma_inproc": "type=emu,wire=inproc"}
# gr-rdma's own tuning knobs, as the socket buffer and timer are udp_source's: 64 KiB
# messages (one placeholder check per 16 packets), a notification every 2 MiB and items
# handed out at most every 50 ms, which needs a 0.2 s latency budget (work_interval is
# at most a quarter of it; docs/device-args.md).
TUNED_PAYLOAD, TUNED_NOTIFY, TUNED_WAKE, TUNED_LATENCY = 65536, 32, 0.05, 0.2
TUNED_TAIL = "latency=%g,work_interval=%g" % (TUNED_LATENCY, TUNED_WAKE)
TUNED = "payload=%d,notify=%d,%s" % (TUNED_PAYLOAD, TUNED_NOTIFY, TUNED_TAIL)
RDMA_TUNED = {"rdma_udp_tuned": "type=emu," + TUNED,
              "rdma_inproc_tuned": "type=emu,wire=inproc," + TUNED}
# gr-network's recommendation for udp_source (its GRC block documentation).
TUNED_SYSCTL = {"net.core.rmem_default": 26214400, "net.core.rmem_max": 104857600}
# 3 GiB of 2 MiB pages: the largest ring here (10 GB/s x 0.2 s, the tuned setting's
# latency budget, 2 GB) fits.
HUGEPAGES = 1536
# The defaults phase's rates, MB/s of payload (sc16: a quarter as many MS/s).
DEFAULT_RATES_MB = [10, 30, 100, 300, 1000, 3000, 10000]

RUN_FIELDS = [
    "phase", "receiver", "rep", "rate_sps", "payload", "notify", "mtu", "work_interval",
    "samples", "emitted",
    "received", "lost", "device_dropped", "loss_free", "window_s", "window_bytes",
    "host_cpu_s", "nic_cpu_s", "device_cpu_s", "device_cpu_total_s", "device_bytes_total",
    "packets", "packet_bytes", "ring_bytes", "hugepages", "socket_buffer", "args",
    "elapsed_s", "started", "load1", "threads", "note",
]

# The defaults and handout phases: what a run settled on and its latencies, host.latency.*
# (notification to hand-out) and host.latency.age.* (the oldest sample of a hand-out, from
# the device taking it).
HANDOUT_FIELDS = RUN_FIELDS + [
    "handouts", "handouts_per_s", "latency_samples", "p50_ns", "p99_ns", "p999_ns",
    "max_ns", "age_latency_samples", "age_p50_ns", "age_p99_ns", "age_p999_ns",
    "age_max_ns"]


class sysctl_guard:
    """Set sysctls for a while and always put the old values back."""

    def __init__(self):
        self.saved = {}
        self.permitted = os.geteuid() == 0

    @staticmethod
    def read(key):
        with open("/proc/sys/" + key.replace(".", "/")) as f:
            return f.read().strip()

    def set(self, key, value):
        if not self.permitted:
            return False
        if key not in self.saved:
            self.saved[key] = self.read(key)
        try:
            with open("/proc/sys/" + key.replace(".", "/"), "w") as f:
                f.write(str(value))
            return True
        except OSError:
            return False

    def restore(self, key=None):
        for k in [key] if key else list(self.saved):
            if k in self.saved:
                with open("/proc/sys/" + k.replace(".", "/"), "w") as f:
                    f.write(self.saved.pop(k))


class suite:
    def __init__(self, opts):
        self.opts = opts
        self.build = os.path.abspath(opts.build)
        self.bin = os.path.join(self.build, "bench")
        self.out = opts.out
        self.sysctl = sysctl_guard()
        self.env = dict(os.environ)
        self.env["PYTHONPATH"] = os.path.join(self.build, "test_modules")
        self.env["GR_CONF_LOG_LOG_FILE"] = "stderr"
        self.env["GR_CONF_LOG_LOG_LEVEL"] = "warn"
        self.children = set()
        self.files = {}
        self.log = open(os.path.join(self.out, "stderr.log"), "w")

    # ---- output ---------------------------------------------------------------------

    def writer(self, name, fields):
        if name not in self.files:
            f = open(os.path.join(self.out, name), "w", newline="")
            w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
            w.writeheader()
            self.files[name] = (f, w)
        return self.files[name][1]

    def row(self, name, fields, values):
        self.writer(name, fields).writerow(values)
        self.files[name][0].flush()

    def progress(self, text):
        print("[%6.1f s] %s" % (time.monotonic() - self.t0, text), flush=True)

    # ---- processes ------------------------------------------------------------------

    def spawn(self, argv, extra_env=None):
        env = dict(self.env)
        env.update(extra_env or {})
        self.log.write("$ %s\n" % " ".join(argv))
        self.log.flush()
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=self.log, env=env, text=True)
        self.children.add(p)
        return p

    def finish(self, p, timeout):
        try:
            out, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()  # our own child, by its pid
            out, _ = p.communicate()
            self.log.write("timed out: pid %d\n" % p.pid)
        self.children.discard(p)
        for line in reversed(out.splitlines()):
            if line.startswith("{"):
                return json.loads(line)
        return None

    @staticmethod
    def wait_ready(p, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([p.stdout], [], [], 0.1)
            if ready:
                line = p.stdout.readline()
                if not line or line.strip() == "READY":
                    return bool(line)
            if p.poll() is not None:
                return False
        return False

    def kill_children(self):
        for p in list(self.children):
            if p.poll() is None:
                p.kill()

    @staticmethod
    def free_port():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]

    # ---- one run --------------------------------------------------------------------

    def samples_for(self, rate, payload):
        # Whole messages only: udp_source cannot take a short last datagram.
        spm = payload // ITEM
        return max(1, int(rate * self.opts.duration) // spm) * spm

    def run_socket(self, receiver, rate, payload, extra_env=None, check=False):
        samples = self.samples_for(rate, payload)
        port = self.free_port()
        if receiver == "ideal":
            argv = [os.path.join(self.bin, "bench_ideal_rx"), "--port", str(port),
                    "--rate", repr(rate), "--samples", str(samples), "--payload", str(payload)]
            if check:
                argv.append("--check")
        else:
            argv = ["/usr/bin/python3", os.path.join(HERE, "peer_gr.py"), "udp", "--port",
                    str(port), "--rate", repr(rate), "--samples", str(samples), "--payload",
                    str(payload), "--variant", receiver.rsplit("_", 1)[1]]
        rx = self.spawn(argv, extra_env)
        if not self.wait_ready(rx, 30):
            return self.finish(rx, 5), None, samples
        tx = self.spawn([os.path.join(self.bin, "bench_udp_sender"), "--to",
                         "127.0.0.1:%d" % port, "--rate", repr(rate), "--samples", str(samples),
                         "--payload", str(payload)])
        sent = self.finish(tx, samples / rate + 20)
        got = self.finish(rx, 20)
        return got, sent, samples

    def run_rdma(self, args, rate, samples, extra_env=None, check=False, reader=False):
        argv = ["/usr/bin/python3", os.path.join(HERE, "peer_gr.py"), "rdma", "--args", args,
                "--rate", repr(rate), "--samples", str(samples)]
        if check:
            argv.append("--check")
        if reader:
            argv.append("--reader")
        p = self.spawn(argv, extra_env)
        return self.finish(p, samples / rate + 40)

    @staticmethod
    def new_row(phase, receiver, rep, rate, **fields):
        """A run's row as it starts: what it is, when, and the machine's load."""
        row = {"phase": phase, "receiver": receiver, "rep": rep, "rate_sps": rate,
               "started": datetime.datetime.now(datetime.timezone.utc).isoformat(
                   timespec="seconds"),
               "load1": open("/proc/loadavg").read().split()[0]}
        row.update(fields)
        return row

    def measure(self, phase, receiver, rep, rate, payload, notify=16, args=None,
                mtu=4096, work_interval=0, fields=RUN_FIELDS):
        """One run; returns the CSV row (also written to <phase>.csv)."""
        row = self.new_row(phase, receiver, rep, rate, payload=payload)
        t = time.monotonic()
        if receiver in SOCKET_RECEIVERS:
            tuned = receiver == "udp_source_tuned"
            if tuned:
                for k, v in TUNED_SYSCTL.items():
                    self.sysctl.set(k, v)
            try:
                got, sent, samples = self.run_socket(receiver, rate, payload)
            finally:
                if tuned:
                    for k in TUNED_SYSCTL:
                        self.sysctl.restore(k)
            row.update(self.socket_row(receiver, got, sent, samples, payload))
        else:
            if receiver in RDMA_TUNED and not args:
                args, payload, notify = RDMA_TUNED[receiver], TUNED_PAYLOAD, TUNED_NOTIFY
                work_interval = TUNED_WAKE
                row["payload"] = payload
            args = args or "%s,payload=%d,notify=%d" % (RDMA_RECEIVERS[receiver], payload,
                                                        notify)
            samples = self.samples_for(rate, payload)
            row.update(self.rdma_row(self.run_rdma(args, rate, samples), samples, payload,
                                     args, mtu))
            row.update({"notify": notify, "mtu": mtu, "work_interval": work_interval})
        row["elapsed_s"] = round(time.monotonic() - t, 3)
        self.row(phase + ".csv", fields, row)
        return row

    @staticmethod
    def window_fields(w):
        return {"window_s": w["t1"] - w["t0"],
                "window_bytes": (w["items1"] - w["items0"]) * ITEM,
                "host_cpu_s": w["host_s"], "nic_cpu_s": w["nic_s"],
                "device_cpu_s": w["device_s"], "threads": json.dumps(w["threads"])}

    def socket_row(self, receiver, got, sent, samples, payload):
        row = {"samples": samples, "packet_bytes": payload + 8}
        if not got or not sent:
            row.update({"loss_free": False, "note": "run failed (see stderr.log)"})
            return row
        emitted = sent["samples_emitted"]
        received = got["items"]
        row.update({"emitted": emitted, "received": received, "lost": emitted - received,
                    "device_dropped": sent["samples_dropped"],
                    "device_cpu_total_s": sent["cpu_device_s"],
                    "device_bytes_total": emitted * ITEM, "packets": sent["packets_sent"]})
        row["loss_free"] = bool(sent["done"] and emitted == samples and received == emitted)
        if receiver == "ideal":
            w = got["window"]
            row.update({"window_s": w["t1"] - w["t0"],
                        "window_bytes": w["bytes1"] - w["bytes0"],
                        "host_cpu_s": w["cpu1"] - w["cpu0"], "nic_cpu_s": 0.0,
                        "device_cpu_s": 0.0,
                        "threads": json.dumps({"ideal": w["cpu1"] - w["cpu0"]}),
                        "ring_bytes": got["ring_bytes"], "hugepages": False,
                        "socket_buffer": got["rcvbuf_granted"]})
            if not w["valid"]:
                row["note"] = "window incomplete"
        else:
            row.update(self.window_fields(got["window"]))
            row["device_cpu_s"] = 0.0  # the sender is another process: see *_total
            row["socket_buffer"] = int(self.sysctl.read("net.core.rmem_default"))
            if receiver == "udp_source_tuned":
                row["socket_buffer"] = TUNED_SYSCTL["net.core.rmem_default"]
            # gr-network 3.10.5.1 udp_source: a local queue of 2000 (payload < 5000 B) or
            # 1500 packets, plus its GNU Radio output buffer; normal pages.
            mult = 4000 if payload + 8 < 2000 else 2000 if payload + 8 < 5000 else 1500
            row.update({"ring_bytes": (payload + 8) * mult, "hugepages": False})
        return row

    def rdma_row(self, got, samples, payload, args, mtu=4096):
        row = {"samples": samples, "args": args, "packet_bytes": min(payload, mtu)}
        if not got:
            row.update({"loss_free": False, "note": "run failed (see stderr.log)"})
            return row
        c = got["counters"]
        row.update(self.window_fields(got["window"]))
        row.update({"emitted": got["samples_emitted"], "received": got["delivered"],
                    "lost": got["lost"], "device_dropped": c.get("device.samples_dropped", 0),
                    "packets": c.get("device.packets_sent", 0),
                    "ring_bytes": got["ring_bytes"], "hugepages": got["hugepages"],
                    "loss_free": (got["lost"] == 0 and got["samples_emitted"] == samples
                                  and got["delivered"] == samples and not got.get("timed_out"))})
        return row

    # ---- phases ---------------------------------------------------------------------

    def phase_rates(self):
        receivers = SOCKET_RECEIVERS + list(RDMA_RECEIVERS) + list(RDMA_TUNED)
        for rep in range(self.opts.reps):
            for receiver in receivers:
                for rate in RATES:
                    row = self.measure("rates", receiver, rep, rate, self.opts.payload)
                    self.progress("rates   %-20s rep %d %5.0f MS/s %s" % (
                        receiver, rep, rate / 1e6, "ok" if row["loss_free"] else
                        "LOSS %s" % row.get("lost", "?")))
                    if not row["loss_free"]:
                        break  # this repetition's ladder ends at its first lossy rate

    def phase_sizes(self):
        receivers = SOCKET_RECEIVERS + list(RDMA_RECEIVERS)
        per_notification = 128 * 1024
        for rep in range(self.opts.reps):
            for receiver in receivers:
                for payload in [8192, 4096, 2048, 1024]:
                    row = self.measure("sizes", receiver, rep, self.opts.size_rate, payload,
                                       notify=per_notification // payload)
                    self.progress("sizes   %-20s rep %d %5d B %s" % (
                        receiver, rep, payload, "ok" if row["loss_free"] else "LOSS"))

    def phase_ceiling(self):
        gbps = 250e6  # 1 GB/s of sc16
        default = (8192, 16, 0)  # the bench's messages with the default notify
        tuned = (TUNED_PAYLOAD, TUNED_NOTIFY, TUNED_WAKE)
        # Message size x bytes between notifications: notify = interval / size.
        grid = [(p, b // p, 0) for b in [32 << 10, 2 << 20] for p in [8192, 4096, 2048, 1024]]
        runs = []  # (what, rate, (payload, notify, work_interval), mtu)
        for setting in [default, tuned]:
            runs += [("packets", gbps, setting, mtu) for mtu in [4096, 2048, 1024]]
        runs += [("grid", gbps, g, 4096) for g in grid if g != (8192, 16, 0)]
        runs += [("wake", gbps, (TUNED_PAYLOAD, TUNED_NOTIFY, w), 4096)
                 for w in [0, 0.005, 0.01, 0.02]]
        runs += [("rate", r, s_, 4096) for s_ in [default, tuned] for r in [500e6, 1000e6]]
        for rep in range(self.opts.reps):
            for what, rate, (payload, notify, wake), mtu in runs:
                args = "type=null,payload=%d,notify=%d,mtu=%d" % (payload, notify, mtu)
                if (payload, notify) == (TUNED_PAYLOAD, TUNED_NOTIFY):
                    args += ",latency=%g" % TUNED_LATENCY  # every wake alike: one ring size
                if wake:
                    args += ",work_interval=%g" % wake
                row = self.measure("ceiling", "ceiling", rep, rate, payload, notify, args,
                                   mtu=mtu, work_interval=wake)
                self.progress("ceiling %-7s rep %d %4.0f MS/s %5d B notify %3d mtu %4d "
                              "work_interval %g %s" % (
                                  what, rep, rate / 1e6, payload, notify, mtu, wake,
                                  "ok" if row["loss_free"] else "LOSS"))

    def phase_latency(self):
        fields = ["receiver", "rep", "rate_sps", "payload", "notify", "samples_latency",
                  "p50_ns", "p99_ns", "p999_ns", "max_ns", "dropped", "lost", "args"]
        low = self.opts.latency_rate
        # A notification per 2 KiB message: the latency of the notification path itself.
        # The tuned setting, at 1 GB/s: what gathering items for 50 ms costs in latency.
        setups = {"rdma_udp": ("type=emu", low, 2048, 1, ""),
                  "rdma_inproc": ("type=emu,wire=inproc", low, 2048, 1, ""),
                  "ceiling": ("type=null", low, 2048, 1, ""),
                  "ceiling_tuned": ("type=null", 250e6, TUNED_PAYLOAD, TUNED_NOTIFY,
                                    "," + TUNED_TAIL)}
        for rep in range(self.opts.reps):
            for receiver, (base, rate, payload, notify, extra) in setups.items():
                args = "%s,payload=%d,notify=%d%s,latency_probe=1" % (base, payload, notify,
                                                                      extra)
                spm = payload // ITEM
                samples = int(rate * self.opts.latency_duration) // spm * spm
                got = self.run_rdma(args, rate, samples)
                if not got:
                    self.progress("latency %s rep %d FAILED" % (receiver, rep))
                    continue
                c = got["counters"]
                self.row("latency.csv", fields, {
                    "receiver": receiver, "rep": rep, "rate_sps": rate, "payload": payload,
                    "notify": notify, "samples_latency": c["host.latency.samples"],
                    "p50_ns": c["host.latency.p50_ns"], "p99_ns": c["host.latency.p99_ns"],
                    "p999_ns": c["host.latency.p999_ns"], "max_ns": c["host.latency.max_ns"],
                    "dropped": c["host.latency.dropped"], "lost": got["lost"], "args": args})
                for value, count in sorted(got["latency_hist"].items(), key=lambda kv: int(kv[0])):
                    self.row("latency_hist.csv", ["receiver", "rep", "bucket_ns", "count"],
                             {"receiver": receiver, "rep": rep, "bucket_ns": value, "count": count})
                self.progress("latency %-12s rep %d: %d samples, p50 %.1f us, p99 %.1f us" % (
                    receiver, rep, c["host.latency.samples"], c["host.latency.p50_ns"] / 1e3,
                    c["host.latency.p99_ns"] / 1e3))

    def phase_defaults(self):
        """gr-rdma with no tuning at all, 10 MB/s ... 10 GB/s, beside the baselines.

        standin_defaults: rx_source("type=null,latency_probe=1"): the host side with the
        defaults handout_pacing chooses (payload, notify) and its latencies, each run
        followed by gr_floor, GNU Radio alone (bench_handout_floor) at the hand-out rate
        the stand-in ran at; standin_reader: the same with a downstream block that reads
        every byte (peer_gr.py --reader) instead of null_sink; standin_tuned: the tuned
        knobs; rdma_udp_defaults: the emulator over loopback UDP into the soft NIC,
        defaults (the soft NIC's own cost); ideal and udp_source_tuned: the socket
        baselines (8 KiB datagrams). Every receiver but the stand-in climbs the ladder
        to its first lossy rate.
        """
        receivers = {"standin_defaults": "type=null",
                     "standin_reader": "type=null",
                     "standin_tuned": "type=null," + TUNED,
                     "rdma_udp_defaults": "type=emu",
                     "ideal": None, "udp_source_tuned": None}
        for rep in range(self.opts.reps):
            for receiver, base in receivers.items():
                for mbps in DEFAULT_RATES_MB:
                    rate = mbps * 1e6 / ITEM
                    if base is None:
                        row = self.measure("defaults", receiver, rep, rate, self.opts.payload,
                                           fields=HANDOUT_FIELDS)
                    else:
                        row = self.measure_defaults(receiver, rep, rate,
                                                    base + ",latency_probe=1",
                                                    reader=receiver == "standin_reader")
                    self.progress("defaults %-18s rep %d %6.0f MB/s %s" % (
                        receiver, rep, mbps, "ok" if row["loss_free"] else
                        "LOSS %s" % row.get("lost", "?")))
                    if receiver == "standin_defaults" and row.get("handouts_per_s"):
                        floor = self.measure_floor("defaults", rep, rate,
                                                   row["handouts_per_s"])
                        self.progress("defaults %-18s rep %d %6.0f MB/s %.0f hand-outs/s" % (
                            "gr_floor", rep, mbps, floor.get("handouts_per_s", 0)))
                    if not row["loss_free"] and not receiver.startswith("standin"):
                        break

    def phase_handout(self):
        """What one hand-out costs: the stand-in at 1 GB/s in 64 KiB messages, a
        notification (a hand-out) every 1 ... 64 messages; the slope of host CPU per
        second over hand-outs per second is the cost of one, per thread."""
        for rep in range(self.opts.reps):
            for notify in [1, 2, 4, 8, 16, 32, 64]:
                args = "type=null,payload=65536,notify=%d" % notify
                row = self.measure_defaults("handout", rep, 250e6, args, phase="handout",
                                            setting={"payload": 65536, "notify": notify})
                self.progress("handout notify %2d rep %d: %s hand-outs/s %s" % (
                    notify, rep, "%.0f" % row.get("handouts_per_s", 0),
                    "ok" if row["loss_free"] else "LOSS"))
                if row.get("handouts_per_s"):
                    self.measure_floor("handout", rep, 250e6, row["handouts_per_s"])

    def measure_defaults(self, receiver, rep, rate, args, phase="defaults", reader=False,
                         setting=None):
        """One gr-rdma run that reports the payload and notify it settled on (\p setting:
        what the args ask for, written also when the run fails)."""
        row = self.new_row(phase, receiver, rep, rate, **(setting or {}))
        t = time.monotonic()
        samples = self.samples_for(rate, 65536)  # whole messages of any payload
        got = self.run_rdma(args, rate, samples, reader=reader)
        row.update(self.rdma_row(got, samples, 0, args))
        if got:
            c = got["counters"]
            payload = c.get("host.payload_bytes", 0)
            row.update({"payload": payload, "notify": c.get("host.notify_interval"),
                        "work_interval": c.get("host.work_interval_ns", 0) / 1e9,
                        "packet_bytes": min(payload, 4096), "mtu": 4096,
                        "handouts": c.get("host.handouts"),
                        "handouts_per_s": c.get("host.handouts", 0) / (samples / rate)})
            for ours, theirs in (("latency_samples", "samples"), ("p50_ns", "p50_ns"),
                                 ("p99_ns", "p99_ns"), ("p999_ns", "p999_ns"),
                                 ("max_ns", "max_ns")):
                row[ours] = c.get("host.latency." + theirs)
                row["age_" + ours] = c.get("host.latency.age." + theirs)
        row["elapsed_s"] = round(time.monotonic() - t, 3)
        self.row(phase + ".csv", HANDOUT_FIELDS, row)
        return row

    def measure_floor(self, phase, rep, rate, handouts_per_s):
        """GNU Radio alone (bench_handout_floor): a source woken \p handouts_per_s times
        a second, as rx_source by its notifications, handing out to a null_sink."""
        period_us = 1e6 / handouts_per_s
        row = self.new_row(phase, "gr_floor", rep, rate, args="period_us=%.1f" % period_us,
                           work_interval=0)
        t = time.monotonic()
        p = self.spawn([os.path.join(self.bin, "bench_handout_floor"), "--rate", repr(rate),
                        "--period-us", "%.3f" % period_us, "--seconds",
                        repr(self.opts.duration)])
        got = self.finish(p, self.opts.duration + 30)
        if got:
            row.update({"window_s": got["window_s"], "window_bytes": got["items"] * ITEM,
                        "host_cpu_s": got["host_cpu_s"], "nic_cpu_s": 0.0,
                        "device_cpu_s": 0.0, "threads": json.dumps(got["threads"]),
                        "handouts": got["handouts"],
                        "handouts_per_s": got["handouts"] / got["window_s"],
                        "loss_free": True, "note": "GNU Radio alone, no gr-rdma"})
        else:
            row.update({"loss_free": False, "note": "run failed (see stderr.log)"})
        row["elapsed_s"] = round(time.monotonic() - t, 3)
        self.row(phase + ".csv", HANDOUT_FIELDS, row)
        return row

    def phase_copies(self):
        """Copy census under LD_PRELOAD, and the pointer tests, at a modest rate."""
        fields = ["receiver", "thread", "role", "copy_bytes", "copy_calls", "recv_bytes",
                  "recv_calls", "sample_bytes", "pointer_test", "pointer_detail"]
        lib = os.path.join(self.bin, "libbench_copycount.so")
        rate, payload = 25e6, self.opts.payload
        for receiver in SOCKET_RECEIVERS[1:] + list(RDMA_RECEIVERS):
            table = os.path.join(self.out, "copycount_%s.tmp" % receiver)
            env = {"LD_PRELOAD": lib, "COPYCOUNT_OUT": table}
            pointer, detail = "", ""
            if receiver in SOCKET_RECEIVERS:
                if receiver == "udp_source_tuned":
                    for k, v in TUNED_SYSCTL.items():
                        self.sysctl.set(k, v)
                try:
                    got, sent, samples = self.run_socket(receiver, rate, payload, env)
                finally:
                    for k in TUNED_SYSCTL:
                        self.sysctl.restore(k)
                sample_bytes = (got or {}).get("items", 0) * ITEM
                if receiver == "ideal":
                    # Separate run without the census: every payload is checked in place.
                    got2, _, _ = self.run_socket(receiver, rate, payload, check=True)
                    pointer = "pass" if got2 and got2["check_failures"] == 0 else "FAIL"
                    detail = "ramp value at the ring slot of each datagram: %s failures of %s" % (
                        (got2 or {}).get("check_failures"), (got2 or {}).get("datagrams"))
                else:
                    pointer = "n/a"
                    detail = "by construction (gr-network udp_source_impl.cc: receive_from, " \
                             "memcpy to local queue, memcpy to output)"
            else:
                args = "%s,payload=%d" % (RDMA_RECEIVERS[receiver], payload)
                samples = self.samples_for(rate, payload)
                got = self.run_rdma(args + ",signal=ramp", rate, samples, env)
                sample_bytes = (got or {}).get("delivered", 0) * ITEM
                # Pointer test: every downstream read is inside the ring and every sample
                # is the ramp (rx_source itself checks its write pointer is the ring slot).
                got2 = self.run_rdma(args + ",signal=ramp", rate, samples, check=True)
                chk = (got2 or {}).get("check", {})
                ok = chk and chk["out_of_ring_reads"] == 0 and chk["mismatches"] == 0
                pointer = "pass" if ok else "FAIL"
                detail = "ramp_check: %s items, %s reads outside the ring, %s mismatches" % (
                    chk.get("items_checked"), chk.get("out_of_ring_reads"), chk.get("mismatches"))
            try:
                with open(table) as f:
                    rows = list(csv.DictReader(f))
                os.unlink(table)
            except OSError:
                rows = []
            for r in rows:
                name = r["thread"]
                role = ("nic" if name.startswith("nic-") else
                        "device" if name.startswith(("emu-", "null-dev")) else "host")
                r.update({"receiver": receiver, "role": role, "sample_bytes": sample_bytes,
                          "pointer_test": pointer, "pointer_detail": detail})
                self.row("copies.csv", fields, r)
            self.progress("copies  %-20s pointer test %s" % (receiver, pointer))

    # ---- machine facts --------------------------------------------------------------

    def metadata(self, phase):
        def cmd(argv):
            try:
                return subprocess.run(argv, capture_output=True, text=True, timeout=10,
                                      cwd=SOURCE).stdout.strip()
            except (OSError, subprocess.TimeoutExpired):
                return ""
        m = {"when_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
             "loadavg": open("/proc/loadavg").read().split()[:3]}
        if phase == "start":
            lscpu = cmd(["lscpu"])
            m.update({
                "command": " ".join([sys.executable] + sys.argv),
                "options": vars(self.opts),
                "cpu_model": next((x.split(":", 1)[1].strip() for x in lscpu.splitlines()
                                   if x.startswith("Model name")), platform.processor()),
                "cpus": os.cpu_count(),
                "hypervisor": next((x.split(":", 1)[1].strip() for x in lscpu.splitlines()
                                    if x.startswith("Hypervisor vendor")), "none"),
                "kernel": platform.uname().release + " " + platform.uname().version,
                "os": cmd(["sh", "-c", ". /etc/os-release; echo $PRETTY_NAME"]),
                "memory_kib": int(open("/proc/meminfo").readline().split()[1]),
                "gnuradio": cmd(["gnuradio-config-info", "--version"]),
                "git_commit": cmd(["git", "rev-parse", "HEAD"]),
                "git_dirty_files": len(cmd(["git", "status", "--porcelain"]).splitlines()),
                "sysctl_before": {k: sysctl_guard.read(k) for k in
                                  list(TUNED_SYSCTL) + ["vm.nr_hugepages"]},
                "sysctl_permitted": self.sysctl.permitted,
                "top_processes": cmd(["sh", "-c", "ps -eo pcpu,comm --sort=-pcpu | head -6"]),
            })
        return m

    def run(self):
        self.t0 = time.monotonic()
        meta = {"start": self.metadata("start")}
        self.progress("results in %s; load %s" % (self.out, " ".join(meta["start"]["loadavg"])))
        if self.sysctl.permitted:
            self.sysctl.set("vm.nr_hugepages", HUGEPAGES)
            meta["hugepages_reserved"] = int(sysctl_guard.read("vm.nr_hugepages"))
        else:
            meta["note"] = "not root: udp_source 'tuned' runs with the default socket " \
                           "buffer and rings use normal pages"
        try:
            for phase in self.opts.phases.split(","):
                getattr(self, "phase_" + phase)()
                self.progress("phase %s done" % phase)
        finally:
            self.kill_children()
            self.sysctl.restore()
            meta["end"] = self.metadata("end")
            meta["wall_s"] = round(time.monotonic() - self.t0, 1)
            meta["sysctl_after"] = {k: sysctl_guard.read(k) for k in
                                    list(TUNED_SYSCTL) + ["vm.nr_hugepages"]}
            with open(os.path.join(self.out, "metadata.json"), "w") as f:
                json.dump(meta, f, indent=1)
            for f, _ in self.files.values():
                f.close()
        self.progress("suite done in %.0f s" % (time.monotonic() - self.t0))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default=os.path.join(SOURCE, "build-bench"),
                   help="build tree with the bench targets (make bench)")
    p.add_argument("--out", help="result directory (default bench/results/<UTC time>)")
    p.add_argument("--phases", default="rates,sizes,ceiling,latency,defaults,handout,copies")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--duration", type=float, default=1.5, help="seconds of stream per run")
    p.add_argument("--payload", type=int, default=8192, help="sample bytes per message")
    p.add_argument("--size-rate", type=float, default=25e6, help="S/s of the size sweep")
    p.add_argument("--latency-rate", type=float, default=25e6)
    p.add_argument("--latency-duration", type=float, default=7.0)
    p.add_argument("--quick", action="store_true", help="one repetition, short runs (smoke)")
    opts = p.parse_args()
    if opts.quick:
        opts.reps, opts.duration, opts.latency_duration = 1, 0.6, 1.0
    if not opts.out:
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        opts.out = os.path.join(HERE, "results", stamp)
    os.makedirs(opts.out, exist_ok=True)
    s = suite(opts)
    # However the suite ends, the machine's settings go back and children die.
    atexit.register(s.sysctl.restore)
    atexit.register(s.kill_children)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: sys.exit(130))
    s.run()


if __name__ == "__main__":
    main()
