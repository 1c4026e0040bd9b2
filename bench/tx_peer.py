#!/usr/bin/python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""One transmit benchmark run; prints one JSON object (bench/tx.py runs it).

    tx_peer.py sink   --args ARGS --rate R --seconds S
    tx_peer.py udp    --to PORT --rate R --seconds S --payload B
    tx_peer.py stream --args ARGS --rate R --seconds S

sink:   vector_source (the sc16 ramp, repeated) -> rdma.tx_sink(ARGS, "sc16", R): the
        upstream writes into the registered TX ring, the device paces by its READs.
udp:    the same source -> throttle(R) -> network.udp_sink(8-byte sequence header,
        B bytes of samples per datagram) to 127.0.0.1:PORT (bench_ideal_rx drains it).
        A socket sink has nothing that paces it, so the throttle is GNU Radio's way.
stream: rdma.tx_stream(ARGS, "sc16", R) fed without a flowgraph by a producer that
        commits free space without writing it: the transport's cost alone.

The stream runs S seconds. CPU is read twice, at 20 % and 80 % of it after the first
item left, with per-thread clocks (rdma.process_cpu_by_role(): host / NIC / device,
and every thread's /proc/self/task/*/schedstat), over the bytes the sink consumed in
between (tx_sink: fetched by the device; udp_sink: sent). The emulator (device) and
the soft NIC run in this process; their CPU is reported apart, never as the host's.
"""

import argparse
import json
import os
import threading
import time


ITEM = 4  # sc16
RAMP_ITEMS = 1 << 16  # the vector_source's period: 256 KiB of int32 (I in the low half)


def thread_times():
    """{name/tid: CPU seconds} of every thread of this process (schedstat: ns)."""
    out = {}
    for task in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/comm" % task) as f:
                name = f.read().strip()
            with open("/proc/self/task/%s/schedstat" % task) as f:
                ns = int(f.read().split()[0])
        except OSError:
            continue  # the thread exited meanwhile
        out["%s/%s" % (name, task)] = ns * 1e-9
    return out


def snapshot(rdma, items):
    cpu = rdma.process_cpu_by_role()
    out = {"t": time.monotonic(), "items": items(), "host": cpu["host"], "nic": cpu["nic"],
           "device": cpu["device"], "threads": thread_times()}
    # Reading every thread's schedstat costs the main thread a millisecond or two: the
    # measurement's, not the sender's. The window starts after it.
    out["host_after"] = rdma.process_cpu_by_role()["host"]
    return out


def window(a, b):
    threads = {k: round(b["threads"][k] - a["threads"].get(k, 0.0), 6) for k in b["threads"]}
    return {"t0": a["t"], "t1": b["t"], "bytes": (b["items"] - a["items"]) * ITEM,
            "host_s": b["host"] - a["host_after"], "nic_s": b["nic"] - a["nic"],
            "device_s": b["device"] - a["device"],
            "threads": {k: v for k, v in threads.items() if v > 0}}


def sleep_until(t):
    delay = t - time.monotonic()
    if delay > 0:
        time.sleep(delay)


DEVICE_ZEROS = ("device.underflow_samples", "device.late_zero_samples")


def measure(rdma, opts, items, counters=None):
    """Wait for the first item, then the two readings; returns the window. counters:
    the stream's read_counters, read outside the CPU window (an AXIoE exchange each),
    so that the window also says whether the device played zeros in steady state."""
    deadline = time.monotonic() + 10
    while items() == 0 and time.monotonic() < deadline:
        time.sleep(0.002)
    first = time.monotonic()
    sleep_until(first + 0.2 * opts.seconds)
    c0 = counters() if counters else {}
    a = snapshot(rdma, items)
    sleep_until(first + 0.8 * opts.seconds)
    b = snapshot(rdma, items)
    c1 = counters() if counters else {}
    sleep_until(first + opts.seconds)
    w = window(a, b)
    if counters:
        w["underflow"], w["late"] = (c1[k] - c0[k] for k in DEVICE_ZEROS)
    return w


def ramp_source(blocks):
    # int32 items, the sc16 pair (I, Q) = (k & 0xFFFF, 0) in memory: one 4-byte item.
    return blocks.vector_source_i(list(range(RAMP_ITEMS)), True)


def run_flowgraph(rdma, opts):
    from gnuradio import blocks, gr
    tb = gr.top_block("tx_bench")
    src = ramp_source(blocks)
    if opts.mode == "sink":
        sink = rdma.tx_sink(opts.args, "sc16", opts.rate)
        tb.connect(src, sink)
    else:
        from gnuradio import network
        header_seqnum = 1  # "64-bit Sequence Number" (gr-network udp_header_types.h)
        throttle = blocks.throttle(ITEM, opts.rate, True)
        # payloadsize counts the header: B bytes of samples per datagram.
        sink = network.udp_sink(ITEM, 1, "127.0.0.1", opts.to, header_seqnum,
                                8 + opts.payload, False)
        tb.connect(src, throttle, sink)
    tb.start()
    result = {"window": measure(rdma, opts, lambda: sink.nitems_read(0),
                                sink.read_counters if opts.mode == "sink" else None)}
    tb.stop()
    tb.wait()
    result["items"] = sink.nitems_read(0)
    if opts.mode == "sink":
        result["counters"] = {k: v for k, v in sink.read_counters().items()
                              if k.startswith(("acct.", "device.", "host."))}
        result["pointer_mismatches"] = sink.pointer_mismatches()
        result["error"] = sink.error()
        result["ring_bytes"] = sink.ring_bytes()
    return result


def run_stream(rdma, opts):
    """The transport alone: commit free space as it appears, never touching it."""
    t = rdma.tx_stream(opts.args, "sc16", opts.rate)
    stop = threading.Event()
    stats = {"waits": 0, "timeouts": 0}

    def producer():
        while not stop.is_set():
            x = t.wait_space(1, 0.1)
            stats["waits"] += 1
            if len(x) == 0:
                stats["timeouts"] += 1
                if t.error():
                    return
                continue
            t.commit(len(x))

    x = t.wait_space(1, 0.1)  # primed: the whole ring, as the sink primes it
    t.commit(len(x))
    t.start()
    worker = threading.Thread(target=producer, daemon=True)
    worker.start()
    result = {"window": measure(rdma, opts, t.fetched, t.read_counters)}
    stop.set()
    worker.join()
    t.stop()
    c = t.counts()
    result["items"] = t.fetched()
    result["counters"] = {"acct." + k: int(v) for k, v in c.items()}
    result["counters"].update({k: v for k, v in t.read_counters().items()
                               if k.startswith(("device.", "host."))})
    result["error"] = t.error()
    result["ring_bytes"] = t.ring_bytes()
    result["producer"] = stats
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("mode", choices=["sink", "udp", "stream"])
    p.add_argument("--rate", type=float, required=True, help="S/s")
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--args", default="type=emu")
    p.add_argument("--to", type=int, default=0, help="udp: the drain's port")
    p.add_argument("--payload", type=int, default=8192, help="udp: sample bytes per datagram")
    opts = p.parse_args()
    # Imported here: the module under test comes from PYTHONPATH (the build tree).
    from gnuradio import rdma
    result = run_stream(rdma, opts) if opts.mode == "stream" else run_flowgraph(rdma, opts)
    result["mode"] = opts.mode
    print(json.dumps(result), flush=True)
    # Skip interpreter teardown: some GNU Radio blocks crash in their destructors at exit.
    os._exit(0)


if __name__ == "__main__":
    main()
